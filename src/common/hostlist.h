/* hostlist.h - Slurm host list expressions: "n[01-16,20],g[1-2]",
 * several bracket groups ("r[1-2]n[1-3]", rightmost varies fastest),
 * separators comma/space inside nothing, commas inside [] belong to ranges.
 */
#pragma once
#include <stddef.h>

struct hostlist;

/* Expand expr into a new list (in written order, duplicates kept).
 * NULL or "" gives an empty list. Returns -EINVAL on a malformed
 * expression (unbalanced brackets, bad range, high < low) and -E2BIG when
 * it would exceed SL_HOSTLIST_MAX hosts; *ret untouched on failure. */
int hostlist_new(const char *expr, struct hostlist **ret);
struct hostlist *hostlist_free(struct hostlist *hl); /* NULL-safe, returns NULL */
size_t hostlist_count(const struct hostlist *hl);
const char *hostlist_nth(const struct hostlist *hl, size_t i); /* borrowed */
int hostlist_push(struct hostlist *hl, const char *expr);      /* append an expression */
int hostlist_push_host(struct hostlist *hl, const char *host);  /* append one literal name */
void hostlist_sort(struct hostlist *hl);   /* by prefix, then numeric suffix */
void hostlist_uniq(struct hostlist *hl);   /* drop adjacent duplicates (sort first) */
/* Index of host or -1. */
long hostlist_find(const struct hostlist *hl, const char *host);
/* Compressed form in list order, e.g. "n[1-3,5],g1"; malloc'd, NULL on ENOMEM.
 * Consecutive numbers with the same prefix, suffix and zero-pad width merge. */
char *hostlist_ranged_string(const struct hostlist *hl);
/* Convenience: compress one expression ("n1,n2,n3" -> "n[1-3]"); malloc'd. */
char *hostlist_compress(const char *expr);
