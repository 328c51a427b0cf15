/* squeue_cell.h - the value cell and small helpers that squeue's job view
 * (squeue_fmt.c) and step view (squeue_step.c) both print with. Internal
 * to squeue.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/macros.h"

struct fmt_field;
struct hostlist;

/* One printed value: short ones in buf, longer ones in own. */
struct cell {
	char buf[256];
	char *own; /* a value too long for buf; freed after printing */
	bool cut;  /* _print_str's cut_output */
};

/* Format into c->buf, or c->own (owned by c) when it does not fit; ""
 * when out of memory. */
const char *squeue_cellf(struct cell *c, const char *fmt, ...) _printf_(2, 3);
/* v in decimal in c->buf, as printf("%lld") prints it. */
const char *squeue_cell_int(struct cell *c, long long v);
/* _print_secs: "M:SS", "H:MM:SS", "D-HH:MM:SS"; "INVALID" out of range. */
const char *squeue_secs_str(long t, struct cell *c);
/* A node list compressed again, as squeue's _print_nodes() does; never cut. */
const char *squeue_nodes_str(const char *nodes, struct cell *c);
/* One value under fl. A NULL string prints as glibc's printf("%s")
 * prints it: "(null)", or nothing at all under a precision below 6. */
void squeue_put_value(FILE *out, const char *v, const struct fmt_field *fl, bool cut);
/* Any host of nodes (a host list expression) in want. */
bool squeue_nodes_intersect(const struct hostlist *want, const char *nodes);
/* Sort helpers: -1, 0, 1; a NULL string sorts as "". */
int squeue_diff_u64(uint64_t a, uint64_t b);
int squeue_diff_str(const char *a, const char *b);
