/* multi_prog.h - srun --multi-prog's configuration file: which program
 * and arguments each task of a step runs.
 *
 * One line per rule: task ranks, the program, its arguments, separated by
 * white space. Ranks are a comma list of numbers and ranges ("0,2-3"), or
 * "*" for every task no earlier line named. A "#" in column one starts a
 * comment; blank lines are skipped. In the arguments "%t" becomes the
 * task's rank and "%o" its offset among the ranks of its line; text in
 * single quotes is taken as it is (no "%" expansion), double quotes group
 * words. The first line that names a task decides it. Arguments given to
 * srun after the file name are appended.
 *
 * Pure functions: srun checks the file (and counts the tasks it names),
 * each slurmstepd reads it as the user and builds one task's argv.
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

#define MULTI_PROG_MAX (1u << 20) /* bytes of a configuration file read */

/* The file at path (opened by whoever calls: srun and the stepd's task,
 * both as the user) into *ret_text (malloc'd, NUL-terminated), at most
 * MULTI_PROG_MAX bytes. 0 or -errno. */
int multi_prog_read(const char *path, char **ret_text);

/* The tasks the file names: 1 + the highest rank, in *ret_ntasks, and
 * whether a "*" line takes every other task (*ret_any). 0, or -EINVAL
 * with *ret_line the first bad line (1-based). */
int multi_prog_check(const char *text, uint32_t *ret_ntasks, int *ret_any, unsigned *ret_line);

/* Task `task`'s argv (malloc'd, NULL-terminated, each string malloc'd;
 * free with multi_prog_argv_free): the program and its arguments from the
 * first line naming the task, then extra[0..n_extra). 0, -ENOENT when no
 * line names it, -EINVAL (*ret_line) for a bad line, -ENOMEM. */
int multi_prog_argv(const char *text, uint32_t task, char *const *extra, size_t n_extra,
		    char ***ret_argv, unsigned *ret_line);
void multi_prog_argv_free(char **argv);
