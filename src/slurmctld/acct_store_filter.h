/* acct_store_filter.h - sacct's filters (struct acct_query_req) as SQL
 * text for the store's job table (acct_store.c): the conditions, each
 * value from the request a parameter ('?') listed in order, never pasted
 * into the text. Pure: no SQLite here; the store binds the parameters.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct acct_query_req;

#define ACCT_FILTER_LIST_MAX 10000 /* items in one filter list */

struct acct_filter_param {
	int64_t i;
	const char *s; /* text when not NULL (points into a list copy) */
};

/* The statement being written: the caller opens f (open_memstream on
 * sql/sql_len) and writes its own parts around the conditions. */
struct acct_filter {
	FILE *f;
	char *sql;
	size_t sql_len;
	struct acct_filter_param *p; /* one per '?', in order */
	size_t n, cap;
	char *copies[8]; /* the comma lists (ids, uids, accounts, partitions, names, gids, qos) */
	size_t ncopies;
};

/* Write '?' and keep its value (s when not NULL, else i). 0 or -ENOMEM. */
int acct_filter_param(struct acct_filter *b, int64_t i, const char *s);
/* " AND ..." for every filter q sets, with Slurm's window rules. 0,
 * -EINVAL (a list that is empty, too long, or not numbers where numbers
 * go), -ENOMEM. */
int acct_filter_where(struct acct_filter *b, const struct acct_query_req *q);
/* Close f and free what b holds (not b). */
void acct_filter_done(struct acct_filter *b);
