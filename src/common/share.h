/* share.h - immutable strings and string vectors kept once, however many
 * holders have the same bytes.
 *
 * The controller keeps every pending job's environment and script; jobs
 * submitted from one shell (a sweep, an array's tasks, a workflow's
 * steps) have the same ones, byte for byte. A shared copy is found by
 * its content, counted, and freed by the last share_put(). Thread-safe.
 */
#pragma once
#include <stdint.h>

/* The shared copy of the string s (never NULL). NULL on ENOMEM. */
const char *share_str(const char *s);
/* The shared copy of the n strings of v, as a NULL-terminated vector
 * whose strings follow it in the same block. NULL on ENOMEM. */
char **share_strv(char *const *v, uint32_t n);
/* Give back what share_str or share_strv returned. NULL-safe. */
void share_put(const void *p);
/* Shared blocks alive, and their bytes (for tests and sdiag). */
void share_stats(uint64_t *ret_blocks, uint64_t *ret_bytes);
