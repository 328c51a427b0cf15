/* resv.c - see resv.h.
 *
 * Purpose: the reservation table and what changes it. A create or update
 * builds the new record on the side (resv_build), checks it whole against
 * the nodes, the other reservations and the running jobs, then swaps it
 * in; so a refusal leaves everything as it was.
 * Checks, as Slurm 22.05: a name used twice; no users nor accounts; nodes
 * that do not exist; a window that meets another reservation's on a
 * shared node (unless the new one has OVERLAP or MAINT, or the other
 * is a MAINT one); a running job on the nodes
 * that ends after the start (unless IGNORE_JOBS); NodeCnt= picks free
 * nodes of the partition (the default one when none is named).
 * A reservation that ends or is deleted lets its pending jobs go
 * (jobs_let_go): held, or free to run anywhere with NO_HOLD_JOBS_AFTER.
 */
#include "resv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/states.h"
#include "common/tres.h"
#include "ctld.h"
#include "job.h"
#include "node.h"
#include "part.h"

static void resv_done(struct resv *r)
{
	free(r->name);
	free(r->node_list);
	free(r->partition);
	free(r->users);
	free(r->accounts);
	free(r->node_idx);
	*r = (struct resv){0};
}

void resv_table_free(struct ctld *c)
{
	for (uint32_t i = 0; i < c->resv_count; i++)
		resv_done(&c->resvs[i]);
	free(c->resvs);
	c->resvs = NULL;
	c->resv_count = 0;
}

struct resv *resv_find(const struct ctld *c, const char *name)
{
	for (uint32_t i = 0; name && i < c->resv_count; i++)
		if (!strcmp(c->resvs[i].name, name))
			return &c->resvs[i];
	return NULL;
}

/* r->node_list into r->node_idx (nodes not in the table drop out) and the
 * list written again, ranged. */
static int resolve_nodes(struct ctld *c, struct resv *r, bool is_strict)
{
	struct hostlist *hl = NULL, *out = NULL;
	uint32_t *idx;
	int rc = 0;

	free(r->node_idx);
	r->node_idx = NULL;
	r->node_count = r->core_count = 0;
	if (hostlist_new(r->node_list && *r->node_list ? r->node_list : NULL, &hl) < 0)
		return -ESLURM_INVALID_NODE_NAME;
	idx = calloc(hostlist_count(hl) + 1, sizeof(*idx));
	if (!idx || hostlist_new(NULL, &out) < 0) {
		free(idx);
		hostlist_free(hl);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < c->node_count && rc == 0; i++) {
		const struct node *n = &c->nodes[i];

		if (hostlist_find(hl, node_name(n)) < 0)
			continue;
		idx[r->node_count++] = i;
		r->core_count += (uint32_t)n->cfg->sockets * n->cfg->cores_per_socket;
		rc = hostlist_push_host(out, node_name(n));
	}
	if (rc == 0 && is_strict && r->node_count != hostlist_count(hl))
		rc = -ESLURM_INVALID_NODE_NAME; /* a name that is not a node */
	if (rc == 0) {
		char *s = r->node_count ? hostlist_ranged_string(out) : strdup("");

		if (!s)
			rc = -ENOMEM;
		free(r->node_list);
		r->node_list = s;
	}
	hostlist_free(hl);
	hostlist_free(out);
	if (rc < 0) {
		free(idx);
		r->node_count = r->core_count = 0;
		return rc;
	}
	r->node_idx = idx;
	return 0;
}

int resv_table_resolve(struct ctld *c)
{
	for (uint32_t i = 0; i < c->resv_count; i++) {
		int r = resolve_nodes(c, &c->resvs[i], false);

		if (r == -ENOMEM)
			return r;
	}
	return 0;
}

static bool shares_node(const struct resv *a, const struct resv *b)
{
	for (uint32_t i = 0; i < a->node_count; i++)
		for (uint32_t k = 0; k < b->node_count; k++)
			if (a->node_idx[i] == b->node_idx[k])
				return true;
	return false;
}

/* Another reservation whose window meets r's on a shared node. */
static bool overlaps(const struct ctld *c, const struct resv *r, const char *self)
{
	for (uint32_t i = 0; i < c->resv_count; i++) {
		const struct resv *o = &c->resvs[i];

		if ((self && !strcmp(o->name, self)) || o->end <= r->start || o->start >= r->end
		    || (o->flags & RESV_FLAG_MAINT))
			continue; /* a maintenance window may be shared */
		if (!(r->flags & (RESV_FLAG_OVERLAP | RESV_FLAG_MAINT)) && shares_node(r, o))
			return true; /* OVERLAP (or MAINT): this one may share others' nodes */
	}
	return false;
}

static bool node_busy_at(const struct ctld *c, uint32_t node, time_t start, const char *self)
{
	for (uint32_t i = 0; i < c->job_count; i++) {
		const struct job *j = c->jobs[i];

		if (!job_is_running(j) || (j->end_time && j->end_time <= start))
			continue;
		if (self && j->desc && j->desc->reservation && !strcmp(j->desc->reservation, self))
			continue; /* its own jobs */
		for (uint32_t k = 0; k < j->alloc.count; k++)
			if (j->alloc.nodes[k].node == node)
				return true;
	}
	return false;
}

static bool in_other_resv(const struct ctld *c, uint32_t node, const struct resv *r,
			  const char *self)
{
	for (uint32_t i = 0; i < c->resv_count; i++) {
		const struct resv *o = &c->resvs[i];

		if ((self && !strcmp(o->name, self)) || o->end <= r->start || o->start >= r->end
		    || (r->flags & RESV_FLAG_OVERLAP))
			continue;
		for (uint32_t k = 0; k < o->node_count; k++)
			if (o->node_idx[k] == node)
				return true;
	}
	return false;
}

/* NodeCnt=N: the first N nodes of the partition, in placement order, that
 * are up, in no other reservation and (without IGNORE_JOBS) run nothing
 * past the start. */
static int pick_nodes(struct ctld *c, struct resv *r, uint32_t want, const char *self)
{
	const struct part *p = r->partition ? part_find(c, r->partition) : NULL;
	struct hostlist *hl = NULL;
	uint32_t got = 0;
	int rc = 0;

	for (uint32_t i = 0; !p && i < c->part_count; i++)
		if (c->parts[i].cfg->is_default)
			p = &c->parts[i];
	if (!p)
		return -ESLURM_DEFAULT_PARTITION_NOT_SET;
	if (!r->partition && !(r->partition = strdup(p->cfg->name)))
		return -ENOMEM;
	if (hostlist_new(NULL, &hl) < 0)
		return -ENOMEM;
	for (uint32_t x = 0; x < c->node_count && got < want && rc == 0; x++) {
		uint32_t i = c->node_order ? c->node_order[x] : x;
		bool is_in = false;

		for (uint32_t k = 0; k < p->node_count && !is_in; k++)
			is_in = p->node_idx[k] == i;
		if (!is_in || (c->nodes[i].state & NODE_STATE_BASE) == NODE_STATE_DOWN
		    || in_other_resv(c, i, r, self)
		    || (!(r->flags & RESV_FLAG_IGNORE_JOBS) && node_busy_at(c, i, r->start, self)))
			continue;
		rc = hostlist_push_host(hl, node_name(&c->nodes[i]));
		got++;
	}
	if (rc == 0 && got < want)
		rc = -ESLURM_NODES_BUSY;
	if (rc == 0) {
		free(r->node_list);
		r->node_list = hostlist_ranged_string(hl);
		rc = r->node_list ? 0 : -ENOMEM;
	}
	hostlist_free(hl);
	return rc;
}

static int window(struct resv *r, const struct resv_desc_msg *m, time_t now)
{
	time_t start = m->start_time ? m->start_time : r->start;
	time_t dur = r->end - r->start;

	if (m->start_time && m->start_time < now)
		start = now; /* "now" as scontrol computed it, a moment ago */
	if (m->duration != NO_VAL)
		dur =
		    (time_t)(m->duration == INFINITE ? RESV_DURATION_UNLIMITED : m->duration) * 60;
	if (m->end_time && m->duration != NO_VAL && m->end_time != start + dur)
		return -ESLURM_INVALID_TIME_VALUE;
	r->start = start;
	r->end = m->end_time ? m->end_time : start + dur;
	return r->end > r->start ? 0 : -ESLURM_INVALID_TIME_VALUE;
}

static int set_str(char **dst, const char *val)
{
	char *s;

	if (!val)
		return 0;
	s = *val ? strdup(val) : NULL;
	if (*val && !s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

/* r (a copy of the old record, or empty for a create) changed by m. */
static int resv_build(struct ctld *c, struct resv *r, const struct resv_desc_msg *m, time_t now,
		      const char *self)
{
	bool is_all = m->node_list && !strcasecmp(m->node_list, "ALL");
	int rc = window(r, m, now);

	if (rc == 0 && m->partition && !part_find(c, m->partition))
		rc = -ESLURM_INVALID_PARTITION_NAME;
	if (rc == 0)
		rc = set_str(&r->partition, m->partition) | set_str(&r->users, m->users)
		     | set_str(&r->accounts, m->accounts);
	if (rc < 0)
		return rc == -ESLURM_INVALID_TIME_VALUE || rc == -ESLURM_INVALID_PARTITION_NAME
			   ? rc
			   : -ENOMEM;
	r->flags = (r->flags | (m->flags & RESV_FLAGS_USER)) & ~(m->flags_clear & RESV_FLAGS_USER);
	if (!r->users && !r->accounts)
		return -ESLURM_RESERVATION_EMPTY;
	if (is_all) {
		rc = set_str(&r->node_list, "ALL");
		r->flags |= RESV_FLAG_SPEC_NODES | RESV_FLAG_ALL_NODES;
	} else if (m->node_list) {
		rc = set_str(&r->node_list, m->node_list);
		r->flags |= RESV_FLAG_SPEC_NODES;
		r->flags &= ~RESV_FLAG_ALL_NODES;
	}
	if (rc < 0)
		return rc;
	if (is_all) {
		struct hostlist *hl = NULL;

		if (hostlist_new(NULL, &hl) < 0)
			return -ENOMEM;
		for (uint32_t i = 0; i < c->node_count; i++)
			hostlist_push_host(hl, node_name(&c->nodes[i]));
		free(r->node_list);
		r->node_list = hostlist_ranged_string(hl);
		hostlist_free(hl);
		if (!r->node_list)
			return -ENOMEM;
	}
	rc = resolve_nodes(c, r, true);
	if (rc == 0 && !m->node_list && m->node_cnt != NO_VAL) {
		r->flags &= ~(RESV_FLAG_SPEC_NODES | RESV_FLAG_ALL_NODES);
		rc = pick_nodes(c, r, m->node_cnt, self);
		if (rc == 0)
			rc = resolve_nodes(c, r, true);
	}
	if (rc < 0)
		return rc;
	if (!r->node_count)
		return -ESLURM_INVALID_NODE_NAME;
	if (overlaps(c, r, self))
		return -ESLURM_RESERVATION_OVERLAP;
	/* running jobs matter when the nodes or the start are new */
	if (self && !m->node_list && m->node_cnt == NO_VAL && !m->start_time)
		return 0;
	for (uint32_t k = 0; k < r->node_count && !(r->flags & RESV_FLAG_IGNORE_JOBS); k++)
		if (node_busy_at(c, r->node_idx[k], r->start, self))
			return -ESLURM_NODES_BUSY;
	return 0;
}

static bool name_ok(const char *s)
{
	if (!s || !*s || strlen(s) >= SL_NAME_MAX)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s == ',' || *s == '=' || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* Slurm's: the first user (or account) and a number. */
static char *generate_name(struct ctld *c, const struct resv_desc_msg *m)
{
	const char *who = m->users ? m->users : m->accounts ? m->accounts : "resv";
	size_t len = strcspn(who, ",");
	char *s = NULL;

	for (uint32_t k = c->resv_seq;; k++) {
		free(s);
		if (asprintf(&s, "%.*s_%u", (int)(len < 32 ? len : 32), who, k) < 0)
			return NULL;
		if (!resv_find(c, s))
			break;
	}
	return s;
}

/* Slurm's ResvID: the create's number, or the next one no reservation has. */
static uint32_t new_id(const struct ctld *c)
{
	for (uint32_t id = c->resv_seq;; id++) {
		bool is_used = id == 0;

		for (uint32_t i = 0; i < c->resv_count && !is_used; i++)
			is_used = c->resvs[i].id == id;
		if (!is_used)
			return id;
	}
}

static int add(struct ctld *c, struct resv *r)
{
	struct resv *t = realloc(c->resvs, (c->resv_count + 1) * sizeof(*t));

	if (!t)
		return -ENOMEM;
	c->resvs = t;
	c->resvs[c->resv_count++] = *r;
	*r = (struct resv){0};
	return 0;
}

int resv_create(struct ctld *c, const struct resv_desc_msg *m, time_t now, char **ret_name)
{
	struct resv r = {0};
	int rc;

	*ret_name = NULL;
	if (c->resv_count >= RESV_MAX)
		return -ENOSPC;
	c->resv_seq++; /* every create counts, named or not (Slurm's numbering) */
	if (m->name && !name_ok(m->name))
		return -ESLURM_RESERVATION_INVALID;
	if (m->name && resv_find(c, m->name))
		return -ESLURM_RESERVATION_NAME_DUP;
	if (!m->start_time || (!m->end_time && m->duration == NO_VAL))
		return -ESLURM_INVALID_TIME_VALUE;
	if (!m->node_list && m->node_cnt == NO_VAL)
		return -ESLURM_INVALID_NODE_NAME;
	r.name = m->name ? strdup(m->name) : generate_name(c, m);
	if (!r.name)
		return -ENOMEM;
	r.id = new_id(c);
	rc = resv_build(c, &r, m, now, NULL);
	if (rc == 0 && !(*ret_name = strdup(r.name)))
		rc = -ENOMEM;
	if (rc == 0)
		rc = add(c, &r);
	if (rc < 0) {
		free(*ret_name);
		*ret_name = NULL;
		resv_done(&r);
		return rc;
	}
	info("sched: Created reservation=%s nodes=%s", *ret_name,
	     c->resvs[c->resv_count - 1].node_list);
	return 0;
}

static int copy(struct resv *dst, const struct resv *src)
{
	*dst =
	    (struct resv){.start = src->start, .end = src->end, .flags = src->flags, .id = src->id};
	dst->name = sdup(src->name);
	dst->node_list = sdup(src->node_list);
	dst->partition = sdup(src->partition);
	dst->users = sdup(src->users);
	dst->accounts = sdup(src->accounts);
	if (!dst->name || (src->node_list && !dst->node_list) || (src->partition && !dst->partition)
	    || (src->users && !dst->users) || (src->accounts && !dst->accounts)) {
		resv_done(dst);
		return -ENOMEM;
	}
	return 0;
}

int resv_update(struct ctld *c, const struct resv_desc_msg *m, time_t now)
{
	struct resv *old = resv_find(c, m->name);
	struct resv r;
	bool was_active;
	int rc;

	if (!old)
		return -ESLURM_RESERVATION_INVALID;
	if (m->start_time && old->start <= now)
		return -ESLURM_RSV_ALREADY_STARTED;
	rc = copy(&r, old);
	if (rc < 0)
		return rc;
	rc = resv_build(c, &r, m, now, old->name);
	if (rc < 0) {
		resv_done(&r);
		return rc;
	}
	was_active = old->is_active;
	resv_done(old);
	*old = r;
	old->is_active = was_active; /* the tick sets the nodes' flags again */
	info("sched: Updated reservation=%s nodes=%s", old->name, old->node_list);
	return 0;
}

/* r goes (ended or deleted): each job still pending in it loses it, as
 * Slurm does. Held (an admin's own hold stays as it was) unless r has
 * NO_HOLD_JOBS_AFTER; then it may run anywhere. Running and finished
 * jobs keep its name: their accounting rows say where they ran. */
static void jobs_let_go(struct ctld *c, const struct resv *r)
{
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];
		struct job_desc *d = job->desc;

		if ((job->state & JOB_STATE_BASE) != JOB_PENDING || !d || !d->reservation
		    || strcmp(d->reservation, r->name))
			continue;
		info("JobId=%u linked to defunct reservation %s, clearing that reservation",
		     job->job_id, r->name);
		job_desc_set_str(d, &d->reservation, NULL); /* no copy to make: cannot fail */
		job->resv_id = 0;
		if (!(r->flags & RESV_FLAG_NO_HOLD_JOBS_AFTER) && job->reason != WAIT_HELD) {
			free(job->state_desc);
			if (asprintf(&job->state_desc, "Reservation %s was deleted", r->name) < 0)
				job->state_desc = NULL;
			job->state |= JOB_RESV_DEL_HOLD;
			job->reason = WAIT_RESV_DELETED;
			job->priority = 0;
			job->is_user_hold = false;
		}
		job_changed(c, job);
	}
}

int resv_delete(struct ctld *c, const char *name)
{
	struct resv *r = resv_find(c, name);
	uint32_t i;

	if (!r)
		return -ESLURM_RESERVATION_INVALID;
	for (i = 0; i < c->job_count; i++) {
		const struct job *j = c->jobs[i];

		if (job_is_running(j) && j->desc && j->desc->reservation
		    && !strcmp(j->desc->reservation, name))
			return -ESLURM_RESERVATION_BUSY;
	}
	info("sched: Deleted reservation=%s", name);
	jobs_let_go(c, r);
	i = (uint32_t)(r - c->resvs);
	resv_done(r);
	memmove(&c->resvs[i], &c->resvs[i + 1], (c->resv_count - i - 1) * sizeof(*c->resvs));
	c->resv_count--;
	return 0;
}

/* The next window of a repeating reservation. */
static time_t step_of(const struct resv *r, time_t start)
{
	struct tm tm;

	if (r->flags & RESV_FLAG_DAILY)
		return 24 * 3600;
	if (r->flags & RESV_FLAG_WEEKLY)
		return 7 * 24 * 3600;
	localtime_r(&start, &tm); /* WEEKDAY: Friday's next is Monday's */
	return (tm.tm_wday == 5 ? 3 : tm.tm_wday == 6 ? 2 : 1) * 24 * 3600;
}

/* RESERVED (and MAINT) on the nodes of every active reservation, off the
 * others; true when a node changed. One pass over the reservations' nodes
 * and one over the table: it runs every second. */
static bool node_flags(struct ctld *c)
{
	const uint32_t both = NODE_STATE_RES | NODE_STATE_MAINT;
	_cleanup_free_ uint32_t *want = calloc(c->node_count + 1, sizeof(*want));
	bool changed = false;

	if (!want)
		return false; /* the next tick tries again */
	for (uint32_t r = 0; r < c->resv_count; r++) {
		const struct resv *v = &c->resvs[r];
		uint32_t f = NODE_STATE_RES | (v->flags & RESV_FLAG_MAINT ? NODE_STATE_MAINT : 0);

		for (uint32_t k = 0; v->is_active && k < v->node_count; k++)
			want[v->node_idx[k]] |= f; /* as Slurm: MAINT is RESERVED too */
	}
	for (uint32_t i = 0; i < c->node_count; i++) {
		struct node *n = &c->nodes[i];

		if ((n->state & both) == want[i])
			continue;
		n->state = (n->state & ~both) | want[i];
		changed = true;
	}
	return changed;
}

bool resv_tick(struct ctld *c, time_t now)
{
	bool changed = false;

	for (uint32_t i = 0; i < c->resv_count;) {
		struct resv *r = &c->resvs[i];

		if (r->end <= now && (r->flags & RESV_FLAGS_REPEAT)) {
			while (r->end <= now) {
				time_t d = step_of(r, r->start);

				r->start += d;
				r->end += d;
			}
			info("sched: reservation=%s moves to its next window", r->name);
			changed = true;
		} else if (r->end <= now) {
			info("sched: reservation=%s ended", r->name);
			jobs_let_go(c, r);
			resv_done(r);
			memmove(r, r + 1, (c->resv_count - i - 1) * sizeof(*r));
			c->resv_count--;
			changed = true;
			continue;
		}
		i++;
	}
	resv_nodes_mark(c, now);
	if (changed)
		c->resv_last_update = now;
	return changed;
}

void resv_nodes_mark(struct ctld *c, time_t now)
{
	for (uint32_t i = 0; i < c->resv_count; i++)
		c->resvs[i].is_active = c->resvs[i].start <= now && now < c->resvs[i].end;
	if (node_flags(c))
		c->node_last_update = now;
}

int resv_info_fill(const struct ctld *c, const struct resv *r, struct resv_info *ret)
{
	struct tres t = {0};

	for (uint32_t k = 0; k < r->node_count; k++)
		t.cpus += c->nodes[r->node_idx[k]].cfg->cpus;
	*ret = (struct resv_info){
	    .name = sdup(r->name),
	    .start_time = r->start,
	    .end_time = r->end,
	    .node_list = sdup(r->node_list ? r->node_list : ""),
	    .node_cnt = r->node_count,
	    .core_cnt = r->core_count,
	    .partition = sdup(r->partition),
	    .flags = r->flags,
	    .users = sdup(r->users),
	    .accounts = sdup(r->accounts),
	};
	if (asprintf(&ret->tres, "cpu=%u", t.cpus) < 0)
		ret->tres = NULL;
	return ret->name && ret->node_list && ret->tres ? 0 : -ENOMEM;
}

static bool in_list(const char *list, const char *name)
{
	size_t n = name ? strlen(name) : 0;

	for (const char *p = list; p && *p && n;) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, name, n))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

int resv_job_check(const struct ctld *c, const struct job_desc *d, const char *user, bool is_admin)
{
	const struct resv *r;

	if (!d->reservation || !*d->reservation)
		return 0;
	r = resv_find(c, d->reservation);
	if (!r)
		return -ESLURM_RESERVATION_INVALID;
	if (is_admin || in_list(r->users, user) || in_list(r->accounts, d->account))
		return 0;
	return -ESLURM_RESERVATION_ACCESS;
}
