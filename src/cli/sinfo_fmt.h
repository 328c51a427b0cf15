/* sinfo_fmt.h - sinfo's output engine as pure functions.
 *
 * Input: the controller's node and partition tables plus the options;
 * output: sinfo's text. Nothing here talks to a daemon, so unit tests
 * feed it records equal to a reference cluster and compare bytes.
 *
 * Format strings are sinfo's: "%[.][width]X" tokens with literal text
 * between them ("." right-justifies, width is minimum and maximum), plus
 * "%#X" / "%.#X": width of the longest value of the column (what sinfo's
 * built-in formats do for the partition and node list columns). -O long
 * formats "Name[:[.]width][suffix]" are accepted too.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct node_info_msg;
struct part_info_msg;
struct resv_info_msg;

#define SINFO_STATES_MAX 32

struct sinfo_opts {
	const char *format;		  /* -o; NULL: format_long or the built-in one */
	const char *format_long;	  /* -O; used when format is NULL */
	const char *sort;		  /* -S; NULL: "#P,-t", or "N" with -N */
	const char *partitions;		  /* -p: comma-separated names; NULL: all */
	const char *nodes;		  /* -n: hostlist expression; NULL: all */
	const char *cluster_name;	  /* for %V; NULL prints "N/A" */
	int32_t states[SINFO_STATES_MAX]; /* -t, from sinfo_state_parse() */
	unsigned n_states;		  /* 0: no state filter */
	bool node_flag;			  /* -N: one line per node and partition */
	bool long_flag;			  /* -l */
	bool list_reasons;		  /* -R */
	bool summarize;			  /* -s */
	bool exact;			  /* -e: split lines on cpus, memory, ... */
	bool no_header;			  /* -h */
	bool dead;			  /* -d: only non-responding nodes */
	bool responding;		  /* -r: only responding nodes */
	bool all;			  /* -a (and -p): show hidden partitions */
};

/* The format used when opts->format and opts->format_long are NULL (the
 * choice sinfo makes from -s, -N, -R, -l). Static string. */
const char *sinfo_builtin_format(const struct sinfo_opts *o);

/* One word of -t ("idle", "mix", "drain", "drained", "no_respond"; any
 * unique prefix as sinfo accepts) into the state value the filter uses.
 * Returns 0, or -EINVAL (*ret untouched). */
int sinfo_state_parse(const char *word, int32_t *ret);
/* Comma-separated valid -t words, for "valid states: ..." messages. */
const char *sinfo_state_names(void);

/* Print the header (unless no_header) and one line per group of nodes,
 * grouped, sorted and compressed as sinfo does. The date line of -l/-i is
 * not printed here (see sinfo_print_date). Unknown format letters are
 * reported on stderr as sinfo does and printed literally.
 * Returns 0, -EINVAL for a malformed -n expression, or -ENOMEM. */
int sinfo_print(FILE *out, const struct sinfo_opts *o, const struct node_info_msg *nodes,
		const struct part_info_msg *parts);

/* "Wed Dec 02 08:52:03 2026\n" in local time (the first line of -l/-i). */
void sinfo_print_date(FILE *out, time_t now);

/* sinfo -T: "RESV_NAME STATE START_TIME END_TIME DURATION NODELIST"
 * (unless no_header) and one row per reservation, the name column as wide
 * as the longest name (at least the header's 9), STATE ACTIVE when
 * start <= now <= end; "No reservations in the system" when there is
 * none. Times in local time. */
void sinfo_print_resv(FILE *out, const struct resv_info_msg *m, bool no_header, time_t now);
