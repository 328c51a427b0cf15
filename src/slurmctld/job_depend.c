/* job_depend.c - see job_depend.h.
 *
 * Grammar: item {',' item} | item {'?' item}; item = "singleton" | ID |
 * TYPE ':' ID {':' ID}; ID = N ['_' (M | '*')] ['+' MINUTES, after only].
 * Each ID becomes one struct job_depend_item, as Slurm splits them, so
 * "afterok:1:2" renders "afterok:1(unfulfilled),afterok:2(unfulfilled)".
 *
 * Semantics follow Slurm 22.05: fulfilled and failed are sticky; a job that
 * is no longer known (purged) lifts the item; "done" means finished and no
 * longer COMPLETING. Caveat: an array given by its plain id is turned into
 * "N_*" only by job_depend_validate(), so call it on submit and update.
 */
#include "job_depend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/errprintf.h"
#include "common/macros.h"
#include "common/sl_errno.h"

/* clang-format off */
static const struct {
	const char *name;
	enum job_depend_type type;
} type_names[] = {
	{"after", JOB_DEPEND_AFTER},
	{"afterany", JOB_DEPEND_AFTER_ANY},
	{"afterok", JOB_DEPEND_AFTER_OK},
	{"afternotok", JOB_DEPEND_AFTER_NOT_OK},
	{"aftercorr", JOB_DEPEND_AFTER_CORR},
	{"afterburstbuffer", JOB_DEPEND_AFTER_BURST_BUFFER},
	{"singleton", JOB_DEPEND_SINGLETON},
};
/* clang-format on */

static const char *type_name(enum job_depend_type t)
{
	for (size_t i = 0; i < ARRAY_SIZE(type_names); i++)
		if (type_names[i].type == t)
			return type_names[i].name;
	return "?";
}

/* Decimal digits only, at least one, at most max. */
static bool parse_u32(const char **p, const char *end, uint32_t max, uint32_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;

	if (s == end || *s < '0' || *s > '9')
		return false;
	while (s < end && *s >= '0' && *s <= '9') {
		v = v * 10 + (uint64_t)(*s++ - '0');
		if (v > max)
			return false;
	}
	*p = s;
	*ret = (uint32_t)v;
	return true;
}

static bool skip_word(const char **p, const char *end, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(end - *p) < n || strncmp(*p, w, n) != 0)
		return false;
	*p += n;
	return true;
}

/* One ID in [p, end) into *it (type already set). */
static int parse_id(const char *p, const char *end, unsigned flags, struct job_depend_item *it,
		    struct sl_error *err)
{
	const char *s = p;

	if (!parse_u32(&s, end, NO_VAL - 1, &it->job_id) || it->job_id == 0)
		goto bad;
	it->task_id = NO_VAL;
	if (s < end && *s == '_') {
		s++;
		if (s < end && *s == '*') {
			s++;
			it->task_id = JOB_DEPEND_ALL_TASKS;
		} else if (!parse_u32(&s, end, NO_VAL - 1, &it->task_id))
			goto bad;
	}
	if (s < end && *s == '+') {
		s++;
		if (it->type != JOB_DEPEND_AFTER || !parse_u32(&s, end, 100000000, &it->minutes))
			goto bad;
	}
	if ((flags & JOB_DEPEND_PARSE_STATE) && skip_word(&s, end, "(unfulfilled)"))
		it->state = JOB_DEPEND_UNFULFILLED;
	else if ((flags & JOB_DEPEND_PARSE_STATE) && skip_word(&s, end, "(failed)"))
		it->state = JOB_DEPEND_FAILED;
	if (s == end)
		return 0;
bad:
	return errprintf(err, -ESLURM_DEPENDENCY, "invalid job id '%.*s' in dependency",
			 (int)(end - p), p);
}

/* One item of the list, [p, end), appended to d->items. */
static int parse_token(const char *p, const char *end, unsigned flags, struct job_depend *d,
		       struct sl_error *err)
{
	enum job_depend_type type = JOB_DEPEND_AFTER_ANY;
	const char *colon;
	bool found = false;
	size_t len = 0;
	int r;

	if (p == end)
		return errprintf(err, -ESLURM_DEPENDENCY, "empty item in dependency list");
	if (*p >= '0' && *p <= '9') {
		/* Legacy form: a bare id means afterany. */
		d->items[d->n] = (struct job_depend_item){.type = JOB_DEPEND_AFTER_ANY};
		r = parse_id(p, end, flags, &d->items[d->n], err);
		if (r == 0)
			d->n++;
		return r;
	}
	while (p + len < end
	       && ((p[len] >= 'a' && p[len] <= 'z') || (p[len] >= 'A' && p[len] <= 'Z')))
		len++;
	colon = p + len < end && p[len] == ':' ? p + len : NULL;
	for (size_t i = 0; i < ARRAY_SIZE(type_names) && !found; i++) {
		found = strlen(type_names[i].name) == len
			&& strncasecmp(p, type_names[i].name, len) == 0;
		if (found)
			type = type_names[i].type;
	}
	if (!found && len == 6 && strncasecmp(p, "expand", 6) == 0)
		return errprintf(err, -ESLURM_DEPENDENCY,
				 "dependency type 'expand' is not supported");
	if (!found)
		return errprintf(err, -ESLURM_DEPENDENCY, "invalid dependency type '%.*s'",
				 (int)len, p);
	if (type == JOB_DEPEND_SINGLETON) {
		struct job_depend_item *it = &d->items[d->n];
		const char *s = p + len;

		*it = (struct job_depend_item){.type = type, .task_id = NO_VAL};
		if ((flags & JOB_DEPEND_PARSE_STATE) && skip_word(&s, end, "(unfulfilled)"))
			it->state = JOB_DEPEND_UNFULFILLED;
		if (s != end)
			return errprintf(err, -ESLURM_DEPENDENCY, "singleton takes no job id");
		d->n++;
		return 0;
	}
	if (!colon || colon + 1 == end)
		return errprintf(err, -ESLURM_DEPENDENCY, "dependency type '%.*s' needs a job id",
				 (int)len, p);
	for (const char *s = colon + 1; s <= end;) {
		const char *e = memchr(s, ':', (size_t)(end - s));

		if (!e)
			e = end;
		d->items[d->n] = (struct job_depend_item){.type = type};
		r = parse_id(s, e, flags, &d->items[d->n], err);
		if (r < 0)
			return r;
		d->n++;
		s = e + 1;
	}
	return 0;
}

int job_depend_parse(const char *spec, unsigned flags, struct job_depend **ret,
		     struct sl_error *err)
{
	_cleanup_free_ struct job_depend *d = NULL;
	size_t max = 1;
	char sep;
	int r;

	if (!spec || !*spec) {
		*ret = NULL;
		return 0;
	}
	if (strchr(spec, ',') && strchr(spec, '?'))
		return errprintf(err, -ESLURM_DEPENDENCY,
				 "dependency list cannot mix ',' (all) and '?' (any)");
	sep = strchr(spec, '?') ? '?' : ',';
	/* Every item but the first needs a ':' or a separator before it, so
	 * max bounds the count; the exact cap is checked once parsed. */
	for (const char *s = spec; *s; s++)
		if (*s == ':' || *s == sep)
			max++;
	if (max > JOB_DEPEND_MAX_ITEMS + 1)
		goto too_many;
	d = calloc(1, sizeof(*d) + max * sizeof(d->items[0]));
	if (!d)
		return -ENOMEM;
	d->is_or = sep == '?';
	for (const char *s = spec;;) {
		const char *e = strchr(s, sep);

		if (!e)
			e = s + strlen(s);
		r = parse_token(s, e, flags, d, err);
		if (r < 0)
			return r;
		if (!*e)
			break;
		s = e + 1;
	}
	if (d->n > JOB_DEPEND_MAX_ITEMS)
		goto too_many;
	*ret = TAKE_PTR(d);
	return 0;
too_many:
	return errprintf(err, -ESLURM_DEPENDENCY, "too many dependencies (at most %d)",
			 JOB_DEPEND_MAX_ITEMS);
}

struct job_depend *job_depend_free(struct job_depend *d)
{
	free(d);
	return NULL;
}

int job_depend_validate(struct job_depend *d, const struct job_depend_ops *ops,
			uint32_t self_job_id, uint32_t self_array_job_id, struct sl_error *err)
{
	for (uint32_t i = 0; d && i < d->n; i++) {
		struct job_depend_item *it = &d->items[i];
		struct job_depend_array a = {0};
		struct job_depend_job j;
		bool is_array, is_known;

		if (it->type == JOB_DEPEND_SINGLETON)
			continue;
		if ((self_job_id && it->job_id == self_job_id)
		    || (self_array_job_id && self_array_job_id != NO_VAL
			&& it->job_id == self_array_job_id))
			return errprintf(err, -ESLURM_DEPENDENCY,
					 "job cannot depend on itself (%u)", it->job_id);
		if (it->state != JOB_DEPEND_UNFULFILLED)
			continue;
		is_array = ops->array(ops->arg, it->job_id, &a) && a.total > 0;
		if (it->task_id == NO_VAL && is_array)
			it->task_id = JOB_DEPEND_ALL_TASKS; /* the plain id of an array */
		if (it->task_id == JOB_DEPEND_ALL_TASKS || it->type == JOB_DEPEND_AFTER_CORR)
			is_known = is_array;
		else
			is_known = ops->job(ops->arg, it->job_id, it->task_id, &j);
		if (!is_known)
			it->state = JOB_DEPEND_FULFILLED;
	}
	return 0;
}

static bool is_done(uint32_t state)
{
	return job_state_is_finished(state) && !(state & JOB_COMPLETING);
}

static bool is_ok(const struct job_depend_job *j)
{
	return (j->state & JOB_STATE_BASE) == JOB_COMPLETE && j->exit_status == 0;
}

/* One job: the new state of an item of type t. */
static enum job_depend_state eval_job(enum job_depend_type t, uint32_t minutes,
				      const struct job_depend_job *j, time_t now)
{
	switch (t) {
	case JOB_DEPEND_AFTER:
		if ((j->state & JOB_STATE_BASE) == JOB_PENDING)
			return JOB_DEPEND_UNFULFILLED;
		if (minutes && now < j->start_time + (time_t)minutes * 60)
			return JOB_DEPEND_UNFULFILLED;
		return JOB_DEPEND_FULFILLED;
	case JOB_DEPEND_AFTER_OK:
	case JOB_DEPEND_AFTER_CORR:
		if (!is_done(j->state))
			return JOB_DEPEND_UNFULFILLED;
		return is_ok(j) ? JOB_DEPEND_FULFILLED : JOB_DEPEND_FAILED;
	case JOB_DEPEND_AFTER_NOT_OK:
		if (!is_done(j->state))
			return JOB_DEPEND_UNFULFILLED;
		return is_ok(j) ? JOB_DEPEND_FAILED : JOB_DEPEND_FULFILLED;
	default: /* afterany, afterburstbuffer */
		return is_done(j->state) ? JOB_DEPEND_FULFILLED : JOB_DEPEND_UNFULFILLED;
	}
}

/* "N_*": the same questions asked of every task at once. */
static enum job_depend_state eval_array(enum job_depend_type t, uint32_t minutes,
					const struct job_depend_array *a, time_t now)
{
	bool all_done = a->done_ok + a->done_notok >= a->total;

	switch (t) {
	case JOB_DEPEND_AFTER:
		if (a->pending || (minutes && now < a->last_start + (time_t)minutes * 60))
			return JOB_DEPEND_UNFULFILLED;
		return JOB_DEPEND_FULFILLED;
	case JOB_DEPEND_AFTER_OK:
		if (!all_done)
			return JOB_DEPEND_UNFULFILLED;
		return a->done_notok ? JOB_DEPEND_FAILED : JOB_DEPEND_FULFILLED;
	case JOB_DEPEND_AFTER_NOT_OK:
		if (!all_done)
			return JOB_DEPEND_UNFULFILLED;
		return a->done_notok ? JOB_DEPEND_FULFILLED : JOB_DEPEND_FAILED;
	default: /* afterany, afterburstbuffer */
		return all_done ? JOB_DEPEND_FULFILLED : JOB_DEPEND_UNFULFILLED;
	}
}

static enum job_depend_state eval_item(const struct job_depend_item *it,
				       const struct job_depend_ops *ops, uint32_t self_task_id,
				       time_t now)
{
	struct job_depend_array a = {0};
	struct job_depend_job j;

	if (it->type == JOB_DEPEND_SINGLETON)
		return ops->singleton_busy(ops->arg) ? JOB_DEPEND_UNFULFILLED
						     : JOB_DEPEND_FULFILLED;
	if (it->type == JOB_DEPEND_AFTER_CORR) {
		/* The task with our own index; none (or we are no array
		 * task) lifts the item, as in Slurm. */
		if (self_task_id == NO_VAL || self_task_id == JOB_DEPEND_ALL_TASKS
		    || !ops->job(ops->arg, it->job_id, self_task_id, &j))
			return JOB_DEPEND_FULFILLED;
		return eval_job(it->type, 0, &j, now);
	}
	if (it->task_id == JOB_DEPEND_ALL_TASKS) {
		if (!ops->array(ops->arg, it->job_id, &a) || a.total == 0)
			return JOB_DEPEND_FULFILLED; /* gone: lifted */
		return eval_array(it->type, it->minutes, &a, now);
	}
	if (!ops->job(ops->arg, it->job_id, it->task_id, &j))
		return JOB_DEPEND_FULFILLED; /* gone: lifted */
	return eval_job(it->type, it->minutes, &j, now);
}

enum job_depend_result job_depend_evaluate(struct job_depend *d, const struct job_depend_ops *ops,
					   uint32_t self_task_id, time_t now)
{
	uint32_t n_ok = 0, n_failed = 0;

	if (!d || d->n == 0)
		return JOB_DEPEND_OK;
	for (uint32_t i = 0; i < d->n; i++) {
		struct job_depend_item *it = &d->items[i];

		if (it->state == JOB_DEPEND_UNFULFILLED)
			it->state = eval_item(it, ops, self_task_id, now);
		n_ok += it->state == JOB_DEPEND_FULFILLED;
		n_failed += it->state == JOB_DEPEND_FAILED;
	}
	if (d->is_or)
		return n_ok ? JOB_DEPEND_OK : n_failed == d->n ? JOB_DEPEND_NEVER : JOB_DEPEND_WAIT;
	return n_failed ? JOB_DEPEND_NEVER : n_ok == d->n ? JOB_DEPEND_OK : JOB_DEPEND_WAIT;
}

enum job_state_reason job_depend_reason(enum job_depend_result r)
{
	switch (r) {
	case JOB_DEPEND_WAIT:
		return WAIT_DEPENDENCY;
	case JOB_DEPEND_NEVER:
		return WAIT_DEP_INVALID;
	default:
		return WAIT_NO_REASON;
	}
}

/* Longest item: "afterburstbuffer:4294967293_4294967293+100000000(unfulfilled)," */
#define ITEM_TEXT_MAX 80

int job_depend_format(const struct job_depend *d, char **ret)
{
	char *s, *p;

	if (!d) {
		*ret = NULL;
		return 0;
	}
	for (uint32_t i = 0; d->is_or && i < d->n; i++)
		if (d->items[i].state == JOB_DEPEND_FULFILLED) {
			*ret = NULL; /* one is enough: nothing left to show */
			return 0;
		}
	s = p = malloc((size_t)d->n * ITEM_TEXT_MAX + 1);
	if (!s)
		return -ENOMEM;
	*p = '\0';
	for (uint32_t i = 0; i < d->n; i++) {
		const struct job_depend_item *it = &d->items[i];

		if (it->state == JOB_DEPEND_FULFILLED)
			continue;
		if (p != s)
			*p++ = d->is_or ? '?' : ',';
		p += sprintf(p, "%s", type_name(it->type));
		if (it->type != JOB_DEPEND_SINGLETON)
			p += sprintf(p, ":%u", it->job_id);
		if (it->task_id == JOB_DEPEND_ALL_TASKS)
			p += sprintf(p, "_*");
		else if (it->task_id != NO_VAL)
			p += sprintf(p, "_%u", it->task_id);
		if (it->minutes)
			p += sprintf(p, "+%u", it->minutes);
		p += sprintf(p, "(%s)", it->state == JOB_DEPEND_FAILED ? "failed" : "unfulfilled");
	}
	if (p == s) {
		free(s);
		s = NULL;
	}
	*ret = s;
	return 0;
}
