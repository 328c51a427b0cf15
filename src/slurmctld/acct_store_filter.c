/* acct_store_filter.c - see acct_store_filter.h.
 *
 * A -j list is IN lists and row values, not a chain of ORs, so that
 * SQLite's expression depth does not cap it; a state mask is grouped
 * with each group's window rule (pending, running, ended, requeued).
 */
#include "slurmctld/acct_store_filter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg_acct.h"

int acct_filter_param(struct acct_filter *b, int64_t i, const char *s)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		struct acct_filter_param *p = realloc(b->p, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	b->p[b->n++] = (struct acct_filter_param){.i = i, .s = s};
	fputc('?', b->f);
	return 0;
}

/* Split a comma list into trimmed, non-empty items (in place, in a copy
 * that lives until the statement is done). Returns the count, or -EINVAL
 * when there is none or too many, -ENOMEM. */
static int qb_split(struct acct_filter *b, const char *list, char **items, size_t max)
{
	char *copy, *save = NULL, *tok;
	size_t n = 0;

	if (b->ncopies == ARRAY_SIZE(b->copies) || !(copy = strdup(list)))
		return -ENOMEM;
	b->copies[b->ncopies++] = copy;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;

		tok += strspn(tok, " \t");
		end = tok + strlen(tok);
		while (end > tok && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (!*tok)
			continue;
		if (n == max)
			return -EINVAL;
		items[n++] = tok;
	}
	return n ? (int)n : -EINVAL;
}

/* Decimal digits to a u32; *s moves past them. */
static int parse_u32(const char **s, uint32_t *ret)
{
	uint64_t v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return -EINVAL;
	}
	*s = p;
	*ret = (uint32_t)v;
	return 0;
}

/* " AND col IN (?, ?, ...)", numbers (uids) or text. */
static int qb_in_list(struct acct_filter *b, const char *col, const char *list, bool is_number)
{
	_cleanup_free_ char **items = calloc(ACCT_FILTER_LIST_MAX, sizeof(*items));
	int n, r = 0;

	if (!items)
		return -ENOMEM;
	n = qb_split(b, list, items, ACCT_FILTER_LIST_MAX);
	if (n < 0)
		return n;
	fprintf(b->f, " AND %s IN (", col);
	for (int i = 0; i < n && r == 0; i++) {
		const char *p = items[i];
		uint32_t v = 0;

		if (i)
			fputs(", ", b->f);
		if (is_number && (parse_u32(&p, &v) < 0 || *p))
			return -EINVAL;
		r = acct_filter_param(b, v, is_number ? NULL : items[i]);
	}
	fputc(')', b->f);
	return r;
}

/* " col IN (?, ...)" over ids[0..n). */
static int qb_id_list(struct acct_filter *b, const char *col, const uint32_t *ids, size_t n)
{
	int r = 0;

	fprintf(b->f, "%s IN (", col);
	for (size_t i = 0; i < n && r == 0; i++) {
		fputs(i ? ", " : "", b->f);
		r = acct_filter_param(b, ids[i], NULL);
	}
	fputc(')', b->f);
	return r;
}

/* "N" is the job N or every task of the array N; "N_T" one task of the
 * array N (or the job N when it is that task). What follows a '.' (a
 * step) is the client's business. IN lists and row values, not a chain
 * of ORs: SQLite's expression depth would cap a long -j list. */
static int qb_job_ids(struct acct_filter *b, const char *list)
{
	_cleanup_free_ char **items = calloc(ACCT_FILTER_LIST_MAX, sizeof(*items));
	_cleanup_free_ uint32_t *ids = calloc(ACCT_FILTER_LIST_MAX, sizeof(*ids));
	_cleanup_free_ uint32_t *pairs = calloc(2 * ACCT_FILTER_LIST_MAX, sizeof(*pairs));
	size_t nids = 0, npairs = 0;
	int n, r = 0;

	if (!items || !ids || !pairs)
		return -ENOMEM;
	n = qb_split(b, list, items, ACCT_FILTER_LIST_MAX);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		const char *p = items[i];
		uint32_t id, task;

		if (parse_u32(&p, &id) < 0)
			return -EINVAL;
		if (*p != '_') {
			ids[nids++] = id;
		} else {
			p++;
			if (parse_u32(&p, &task) < 0)
				return -EINVAL;
			pairs[2 * npairs] = id;
			pairs[2 * npairs++ + 1] = task;
		}
		if (*p && *p != '.')
			return -EINVAL;
	}
	fputs(" AND (", b->f);
	if (nids) {
		r = qb_id_list(b, "job_id", ids, nids);
		fputs(" OR ", b->f);
		r = r ?: qb_id_list(b, "array_job_id", ids, nids);
	}
	for (int col = 0; col < 2 && npairs && r == 0; col++) {
		fprintf(b->f, "%s(%s, array_task_id) IN (VALUES ", nids || col ? " OR " : "",
			col ? "job_id" : "array_job_id");
		for (size_t i = 0; i < npairs && r == 0; i++) {
			fputs(i ? ", (" : "(", b->f);
			r = acct_filter_param(b, pairs[2 * i], NULL);
			fputs(", ", b->f);
			r = r ?: acct_filter_param(b, pairs[2 * i + 1], NULL);
			fputc(')', b->f);
		}
		fputc(')', b->f);
	}
	fputc(')', b->f);
	return r;
}

/* One group of states with its window rule: "(base IN (...) AND not
 * requeued AND rule)". The state numbers are ours, not the caller's. */
static int qb_state_group(struct acct_filter *b, uint32_t mask, const uint32_t *states, size_t n,
			  bool *first, const char *rule, time_t start, time_t end)
{
	bool any = false;
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(mask & (1u << states[i])))
			continue;
		if (!any)
			fputs(*first ? "((state & 255) IN (" : " OR ((state & 255) IN (", b->f);
		fprintf(b->f, "%s%u", any ? ", " : "", states[i]);
		any = true;
	}
	if (!any)
		return 0;
	*first = false;
	fprintf(b->f, ") AND (state & %u) = 0", JOB_REQUEUE);
	if (!end) {
		fputc(')', b->f);
		return 0;
	}
	/* in the rule, "$s" and "$e" stand for the window's start and end */
	fputs(" AND ", b->f);
	for (const char *p = rule; *p && r == 0; p++) {
		if (*p == '$')
			r = acct_filter_param(b, *++p == 's' ? start : end, NULL);
		else
			fputc(*p, b->f);
	}
	fputc(')', b->f);
	return r;
}

static const char RULE_PENDING[] = "submit <= $e AND (start_time = 0 OR start_time >= $s)";
static const char RULE_RUNNING[] =
    "start_time != 0 AND start_time <= $e AND (end_time = 0 OR end_time >= $s)";
static const char RULE_ENDED[] = "end_time != 0 AND end_time BETWEEN $s AND $e";

/* state_mask: a row in one of the states (during the window when there is one). */
static int qb_states(struct acct_filter *b, uint32_t mask, time_t start, time_t end)
{
	static const uint32_t pending[] = {JOB_PENDING};
	static const uint32_t running[] = {JOB_RUNNING, JOB_SUSPENDED};
	static const uint32_t ended[] = {JOB_COMPLETE,	JOB_CANCELLED, JOB_FAILED,
					 JOB_TIMEOUT,	JOB_NODE_FAIL, JOB_PREEMPTED,
					 JOB_BOOT_FAIL, JOB_DEADLINE,  JOB_OOM};
	static const struct {
		const uint32_t *states;
		size_t n;
		const char *rule;
	} groups[] = {
	    {pending, ARRAY_SIZE(pending), RULE_PENDING},
	    {running, ARRAY_SIZE(running), RULE_RUNNING},
	    {ended, ARRAY_SIZE(ended), RULE_ENDED},
	};
	bool first = true;
	int r = 0;

	fputs(" AND (", b->f);
	for (size_t g = 0; g < ARRAY_SIZE(groups) && r == 0; g++)
		r = qb_state_group(b, mask, groups[g].states, groups[g].n, &first, groups[g].rule,
				   start, end);
	if (r < 0)
		return r;
	if (mask & (1u << ACCT_STATE_REQUEUED_BIT)) {
		fprintf(b->f, "%s(state & %u) != 0", first ? "(" : " OR (", JOB_REQUEUE);
		if (end) {
			fputs(" AND end_time != 0 AND end_time BETWEEN ", b->f);
			r = acct_filter_param(b, start, NULL);
			fputs(" AND ", b->f);
			r = r ?: acct_filter_param(b, end, NULL);
		}
		fputc(')', b->f);
		first = false;
	}
	fputs(first ? "0)" : ")", b->f); /* no known state asked: nothing matches */
	return r;
}

/* col BETWEEN min AND max when is_on. */
static int qb_range(struct acct_filter *b, bool is_on, const char *col, uint32_t min, uint32_t max)
{
	int r;

	if (!is_on)
		return 0;
	fprintf(b->f, " AND %s BETWEEN ", col);
	r = acct_filter_param(b, min, NULL);
	fputs(" AND ", b->f);
	return r ?: acct_filter_param(b, max, NULL);
}

int acct_filter_where(struct acct_filter *b, const struct acct_query_req *q)
{
	time_t start = q->start, end = q->end;
	int r = 0;

	if ((start || end) && !end)
		end = time(NULL); /* a start alone: up to now */
	if (q->job_ids && (r = qb_job_ids(b, q->job_ids)) < 0)
		return r;
	if (q->uids && (r = qb_in_list(b, "uid", q->uids, true)) < 0)
		return r;
	if (q->accounts && (r = qb_in_list(b, "account", q->accounts, false)) < 0)
		return r;
	if (q->partitions && (r = qb_in_list(b, "partition", q->partitions, false)) < 0)
		return r;
	if (q->names && (r = qb_in_list(b, "name", q->names, false)) < 0)
		return r;
	if (q->gids && (r = qb_in_list(b, "gid", q->gids, true)) < 0)
		return r;
	if (q->qos && (r = qb_in_list(b, "qos", q->qos, false)) < 0)
		return r;
	if (q->nodes) {
		fputs(" AND sl_nodes_meet(nodes, ", b->f);
		if ((r = acct_filter_param(b, 0, q->nodes)) < 0)
			return r;
		fputc(')', b->f);
	}
	if ((r = qb_range(b, q->flags & ACCT_Q_NODES, "nnodes", q->nodes_min, q->nodes_max)) < 0
	    || (r = qb_range(b, q->flags & ACCT_Q_CPUS, "ncpus", q->cpus_min, q->cpus_max)) < 0
	    || (r = qb_range(b, q->flags & ACCT_Q_TIME_LIMIT, "time_limit", q->time_limit_min,
			     q->time_limit_max))
		   < 0)
		return r;
	if (q->state_mask)
		return qb_states(b, q->state_mask, start, end);
	if (!end)
		return 0;
	/* Slurm's rule without states: eligible by the end, not ended before the start. */
	fputs(" AND eligible != 0 AND eligible <= ", b->f);
	r = acct_filter_param(b, end, NULL);
	fputs(" AND (end_time >= ", b->f);
	r = r ?: acct_filter_param(b, start, NULL);
	fputs(" OR end_time = 0)", b->f);
	return r;
}

void acct_filter_done(struct acct_filter *b)
{
	if (b->f)
		fclose(b->f);
	free(b->sql);
	free(b->p);
	for (size_t i = 0; i < b->ncopies; i++)
		free(b->copies[i]);
}
