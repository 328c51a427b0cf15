/* hostlist.h - Slurm host list expressions: "n[01-16,20],g[1-2]".
 *
 * Grammar (what hostlist_new()/hostlist_push() accept): tokens separated by
 * ',', ' ', '\t' or '\n' outside brackets (empty tokens are skipped); a
 * token is a plain name or text with bracket groups, each a comma list of
 * N or A-B (digits only, A <= B). The digits written for the low bound set
 * the zero padding ("n[01-10]" -> n01..n10, "n[1-10]" -> n1..n10). Several
 * groups expand as a cartesian product, rightmost varying fastest
 * ("r[1-2]n[1-2]" -> r1n1 r1n2 r2n1 r2n2). Text after the last ']' is
 * kept as a suffix ("n[1-2]-ib" -> n1-ib n2-ib); Slurm itself rejects that
 * form, we accept it as a superset.
 *
 * Compression (hostlist_ranged_string) works as Slurm's: a host's number is
 * its trailing digits, so "n1-ib,n2-ib" does not compress (no suffix merge).
 */
#pragma once
#include <stddef.h>

struct hostlist;

/* Expand expr into a new list (in written order, duplicates kept).
 * NULL or "" gives an empty list. Returns -EINVAL on a malformed
 * expression (unbalanced or nested brackets, empty or non-numeric range,
 * high < low, a number over 18 digits, a host name over SL_NAME_MAX),
 * -E2BIG when it would exceed SL_HOSTLIST_MAX hosts, -ENOMEM;
 * *ret untouched on failure. */
int hostlist_new(const char *expr, struct hostlist **ret);
/* How many hosts expr names, without expanding it (cheap whatever the
 * ranges): for a request's list, checked against max (at most
 * SL_HOSTLIST_MAX) before anything is expanded. Errors as hostlist_new(),
 * -E2BIG when over max; ret may be NULL. */
int hostlist_count_expr(const char *expr, size_t max, size_t *ret);
struct hostlist *hostlist_free(struct hostlist *hl); /* NULL-safe, returns NULL */
size_t hostlist_count(const struct hostlist *hl);
/* i-th host, or NULL when i >= count. Borrowed: valid until the list
 * changes. */
const char *hostlist_nth(const struct hostlist *hl, size_t i);
/* Append an expression; errors as hostlist_new(), and on error the list is
 * unchanged (including -E2BIG when the total would pass the cap). */
int hostlist_push(struct hostlist *hl, const char *expr);
/* Append one literal name, not parsed (may contain brackets). -EINVAL for
 * NULL, "" or a name over SL_NAME_MAX, -E2BIG, -ENOMEM. */
int hostlist_push_host(struct hostlist *hl, const char *host);
/* Sort as Slurm's hostlist_sort: by prefix in natural order (digit runs
 * compare as numbers, "r2n" < "r10n"), names without a number before
 * numbered ones, then by number when the zero padding is compatible, else
 * by width ("n1" < "n2" < "n10", "n9" < "n010"). */
void hostlist_sort(struct hostlist *hl);
void hostlist_uniq(struct hostlist *hl); /* drop adjacent duplicates (sort first) */
/* Index of the first host equal to host (exact string), or -1. */
long hostlist_find(const struct hostlist *hl, const char *host);
/* Compressed form in list order, as Slurm's hostlist_ranged_string:
 * consecutive hosts with the same prefix and compatible zero padding join
 * into a range; neighbouring ranges with the same prefix share one bracket:
 * "n1,n2,n3,n5,g1" -> "n[1-3,5],g1", "n9,n10" -> "n[9-10]",
 * "n1,n2,n2" -> "n[1-2,2]", "n1" -> "n1", empty -> "".
 * malloc'd; NULL on ENOMEM. */
char *hostlist_ranged_string(const struct hostlist *hl);
/* Convenience: compress one expression ("n1,n2,n3" -> "n[1-3]"); malloc'd,
 * NULL when expr is malformed or on ENOMEM. */
char *hostlist_compress(const char *expr);
