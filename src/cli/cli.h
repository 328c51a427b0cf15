/* cli.h - plumbing shared by the command-line tools (sinfo, scontrol).
 *
 * Program name, slurm.conf loading, version/error printing in Slurm's
 * words, keyword abbreviation, the partition words. Calls to the
 * controller are in src/api (api/ctld_fetch.h), user and group names in
 * api/id_name.h. Nothing here keeps state except the program name, which
 * the messages need (it plays the logger's role, docs/style.md R2).
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/macros.h"

struct sl_conf;

/* Exit codes of every tool: Slurm's commands use only these two. */
#define CLI_EXIT_OK    0
#define CLI_EXIT_ERROR 1

/* Remember basename(argv0) for messages and start logging to stderr. */
void cli_init(const char *argv0);
/* The name set by cli_init(), "slurm" before it. */
const char *cli_prog(void);

/* Load slurm.conf from $SLURM_CONF or the default path (conf_default_path)
 * as a command needs it (conf_load_client: no node or partition lines).
 * On failure prints "<prog>: error: <file:line: text>" to stderr and
 * returns the negative code; *ret is untouched then. */
int cli_conf_load(struct sl_conf **ret);
/* The same with the nodes (sstat reaches each node's slurmd itself). */
int cli_conf_load_nodes(struct sl_conf **ret);

/* "slurm 22.05.8\n" on stdout, as every Slurm command's -V prints. */
void cli_print_version(void);

/* "<prog>: error: <text>\n" on stderr (Slurm's error() in a command). */
void cli_error(const char *fmt, ...) _printf_(1, 2);

/* A multi-line text (a controller's user_msg) as one cli_error() line per
 * line; empty lines are skipped. NULL prints nothing. */
void cli_error_lines(const char *text);
/* ... as info() lines ("<prog>: <text>"): a user_msg that came with a
 * success (job_submit.lua's slurm.log_user), as Slurm's clients print it. */
void cli_info_lines(const char *text);

/* Slurm's slurm_perror(msg): "<msg>: <text of code>\n" on stderr; code is
 * positive or negative (sl_strerror). */
void cli_perror(const char *msg, int code);

/* True when the first len characters of word select keyword the way
 * scontrol compares them (strncasecmp(word, keyword, MAX(len, min))):
 * word is a case-insensitive prefix of keyword, at least min characters
 * long unless it is the whole keyword. */
bool cli_keyword_match(const char *word, size_t len, const char *keyword, size_t min);

/* For the commands that read big listings (squeue, sacct): the heap grows
 * CLI_HEAP_PAD at a time, in huge pages where the kernel gives them, and
 * keeps what is freed. 5,000 jobs' records are ~175,000 small allocations
 * and a 2 MB reply: one page fault per 4 KiB was a third of squeue
 * --json's CPU time. Call before the first big allocation. */
#define CLI_HEAP_PAD (64u << 20)
void cli_big_heap(void);

/* Partition words shared by sinfo and scontrol. over_subscribe follows
 * msg.h: 0 "NO", CLI_OVERSUB_FORCE|n "FORCE:n", CLI_OVERSUB_EXCLUSIVE
 * "EXCLUSIVE", other n "YES:n". preempt_mode is Slurm's PREEMPT_MODE_*
 * bits: 0 "OFF", 1 "SUSPEND", 2 "REQUEUE", 8 "CANCEL", plus 0x8000 GANG
 * (",GANG"). Both write buf (size n) and return it. */
#define CLI_OVERSUB_FORCE     0x8000
#define CLI_OVERSUB_EXCLUSIVE 0x4000
char *cli_oversubscribe_str(uint16_t v, char *buf, size_t n);
char *cli_preempt_mode_str(uint16_t v, char *buf, size_t n);
