/* job.c - job records, the job table and the job_changed() hooks; see
 * job.h. The bottom of the job floors: it calls nothing of the controller
 * but step_rec.c (a job owns its step records) and ctld.c.
 */
#include "job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob_store.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/share.h"
#include "ctld.h"
#include "job_depend.h"
#include "job_submit_check.h"
#include "step_rec.h"

/* The job_changed() observers, in registration order (c->job_hooks). Made
 * by the first job_hook_add(), so the files that register need no init
 * before theirs; freed by job_hooks_clear(). */
struct job_hooks {
	const struct job_hook *at[8];
	uint32_t count;
};

/* The hooks registered so far; *n = 0 (and NULL) before the first. */
static const struct job_hook *const *hooks_of(const struct ctld *c, uint32_t *n)
{
	*n = c->job_hooks ? c->job_hooks->count : 0;
	return c->job_hooks ? c->job_hooks->at : NULL;
}

/* MinJobAge purges job: the hooks hear of it before it is freed. */
static void job_purged(struct ctld *c, const struct job *job)
{
	uint32_t n;
	const struct job_hook *const *hs = hooks_of(c, &n);

	for (uint32_t i = 0; i < n; i++)
		if (hs[i]->purged)
			hs[i]->purged(c, job);
}

struct job *job_free(struct job *job)
{
	if (!job)
		return NULL;
	if (job->desc) {
		job_desc_done(job->desc);
		free(job->desc);
	}
	blob_unref(job->script_blob);
	blob_unref(job->env_blob);
	free(job->array_pending);
	job_depend_free(job->depend);
	if (job->is_str_shared) {
		share_put(job->user_name);
		share_put(job->partition);
	} else {
		free(job->user_name);
		free(job->partition);
	}
	free(job->gids);
	free(job->state_desc);
	sel_result_done(&job->alloc);
	free(job->prolog_nodes);
	free(job->epilog_nodes);
	free(job->nodes);
	free(job->sched_nodes);
	free(job->batch_host);
	free(job->info_kept);
	free(job->batch_usage);
	step_job_free(job);
	free(job);
	return NULL;
}

const struct acct_usage *job_batch_usage(const struct job *job)
{
	static const struct acct_usage none;

	return job->batch_usage ? job->batch_usage : &none;
}

int job_set_batch_usage(struct job *job, const struct acct_usage *u)
{
	static const struct acct_usage none;

	if (!u || !memcmp(u, &none, sizeof(none))) {
		free(job->batch_usage);
		job->batch_usage = NULL;
		return 0;
	}
	if (!job->batch_usage && !(job->batch_usage = malloc(sizeof(*u))))
		return -ENOMEM;
	*job->batch_usage = *u;
	return 0;
}

int job_set_partition(struct job *job, const char *name)
{
	char *v = job->is_str_shared ? (char *)share_str(name) : strdup(name);

	if (!v)
		return -ENOMEM;
	if (job->is_str_shared)
		share_put(job->partition);
	else
		free(job->partition);
	job->partition = v;
	return 0;
}

/* A queue's jobs have a few users and partitions: their names kept once
 * (on ENOMEM the job keeps its own). */
static void job_share_strs(struct job *job)
{
	const char *u = job->user_name ? share_str(job->user_name) : NULL;
	const char *p = job->partition ? share_str(job->partition) : NULL;

	if ((job->user_name && !u) || (job->partition && !p)) {
		share_put(u);
		share_put(p);
		return;
	}
	free(job->user_name);
	free(job->partition);
	job->user_name = (char *)u;
	job->partition = (char *)p;
	job->is_str_shared = true;
}

struct job *job_find(struct ctld *c, uint32_t job_id)
{
	uint32_t lo = 0, hi = c->job_count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->jobs[mid]->job_id == job_id)
			return c->jobs[mid];
		if (c->jobs[mid]->job_id < job_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool job_table_remove(struct ctld *c, uint32_t job_id)
{
	uint32_t lo = 0, hi = c->job_count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->jobs[mid]->job_id == job_id) {
			job_free(c->jobs[mid]);
			memmove(&c->jobs[mid], &c->jobs[mid + 1],
				(c->job_count - mid - 1) * sizeof(*c->jobs));
			c->job_count--;
			return true;
		}
		if (c->jobs[mid]->job_id < job_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

int job_table_add(struct ctld *c, struct job *job)
{
	if (c->job_count && c->jobs[c->job_count - 1]->job_id >= job->job_id) {
		job_free(job);
		return -EINVAL; /* ids only grow */
	}
	if (c->job_count == c->job_cap) {
		uint32_t cap = c->job_cap ? c->job_cap * 2 : 64;
		struct job **jobs = realloc(c->jobs, cap * sizeof(*jobs));

		if (!jobs) {
			job_free(job);
			return -ENOMEM;
		}
		c->jobs = jobs;
		c->job_cap = cap;
	}
	/* the script and environment go to StateSaveLocation's blob store;
	 * without one (unit tests), a sweep's jobs keep theirs once in
	 * memory. On ENOMEM the job keeps its own copies. */
	if (c->blobs)
		(void)job_files_store(c->blobs, job);
	if (job->desc)
		(void)job_desc_share(job->desc);
	if (!job->is_str_shared)
		job_share_strs(job);
	c->jobs[c->job_count++] = job;
	return 0;
}

struct job_view {
	struct job **jobs;
	uint32_t count, cap;
	bool is_taken;
};

void job_table_free(struct ctld *c)
{
	for (uint32_t i = 0; i < c->job_count; i++)
		job_free(c->jobs[i]);
	free(c->jobs);
	c->jobs = NULL;
	c->job_count = c->job_cap = 0;
	if (c->job_view)
		free(c->job_view->jobs);
	free(c->job_view);
	c->job_view = NULL;
}

void job_view_take(struct ctld *c)
{
	struct job_view *v = c->job_view;

	if (!v && !(v = c->job_view = calloc(1, sizeof(*v))))
		return; /* out of memory: the checks go through every job */
	v->count = 0;
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];

		if (job_is_pending(job) && !job_is_interactive(job))
			continue;
		if (v->count == v->cap) {
			uint32_t cap = v->cap ? v->cap * 2 : 256;
			struct job **jobs = realloc(v->jobs, cap * sizeof(*jobs));

			if (!jobs)
				return; /* not taken: every job */
			v->jobs = jobs;
			v->cap = cap;
		}
		v->jobs[v->count++] = job;
	}
	v->is_taken = true;
}

void job_view_drop(struct ctld *c)
{
	if (c->job_view)
		c->job_view->is_taken = false;
}

struct job *const *job_view(const struct ctld *c, uint32_t *ret_n)
{
	const struct job_view *v = c->job_view;

	if (v && v->is_taken) {
		*ret_n = v->count;
		return v->jobs;
	}
	*ret_n = c->job_count;
	return c->jobs;
}

void job_table_purge(struct ctld *c, time_t now)
{
	time_t age = (time_t)c->conf->min_job_age;
	struct job *const *view;
	uint32_t kept = 0, n;
	bool is_due = false;

	if (!age)
		return; /* MinJobAge=0: job records are never purged (slurm.conf(5)) */
	view = job_view(c, &n);
	for (uint32_t i = 0; i < n && !is_due; i++)
		is_due = job_is_finished(view[i]) && now - view[i]->end_time >= age;
	if (!is_due)
		return; /* the whole table is gone through only when one may go */
	job_view_drop(c); /* its jobs may be freed below */
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *j = c->jobs[i];

		/* a job leaves memory only once its final row is on disk */
		if (job_is_finished(j) && !(j->state & JOB_COMPLETING)
		    && now - j->end_time >= age
		    && job_seq_is_recorded(c, j->acct_seq)) {
			job_purged(c, j);
			job_free(j);
			c->job_last_update = now;
			continue;
		}
		c->jobs[kept++] = j;
	}
	c->job_count = kept;
}

bool job_is_visible(const struct ctld *c, const struct job *job, uid_t uid)
{
	return job->uid == uid || !(c->conf->private_data_flags & PRIVATE_DATA_JOBS)
	       || ctld_is_admin(c, uid);
}

bool job_is_pending(const struct job *job)
{
	/* a requeued job still completing on its node is not schedulable yet */
	return (job->state & JOB_STATE_BASE) == JOB_PENDING && !(job->state & JOB_COMPLETING);
}

bool job_is_running(const struct job *job)
{
	return (job->state & JOB_STATE_BASE) == JOB_RUNNING || (job->state & JOB_COMPLETING);
}

time_t job_time_of_report(time_t reported, time_t start, time_t now)
{
	if (!reported || reported > now)
		return now;
	return reported < start ? start : reported;
}

bool job_may_requeue(const struct ctld *c, const struct job *job)
{
	uint16_t r = job->desc ? job->desc->requeue : 0;

	return r == NO_VAL16 ? c->conf->job_requeue != 0 : r != 0;
}

bool job_is_finished(const struct job *job)
{
	return (job->state & JOB_STATE_BASE) > JOB_SUSPENDED;
}

bool job_is_interactive(const struct job *job)
{
	return job->desc && job->desc->alloc_port != 0;
}

bool job_has_script(const struct job *job)
{
	return job->script_blob || (job->desc && job->desc->script);
}

bool job_is_batch_running(const struct job *job)
{
	return job_has_script(job) && job->alloc.count && job->batch_host
	       && (job->state & JOB_STATE_BASE) == JOB_RUNNING;
}

int job_hook_add(struct ctld *c, const struct job_hook *h)
{
	struct job_hooks *hs = c->job_hooks;

	if (!hs) {
		hs = calloc(1, sizeof(*hs));
		if (!hs)
			return -ENOMEM;
		c->job_hooks = hs;
	}
	if (hs->count == ARRAY_SIZE(hs->at))
		return -ENOSPC;
	hs->at[hs->count++] = h;
	return 0;
}

void job_hooks_clear(struct ctld *c)
{
	free(c->job_hooks);
	c->job_hooks = NULL;
}

void job_changed(struct ctld *c, struct job *job)
{
	uint32_t n;
	const struct job_hook *const *hs = hooks_of(c, &n);

	c->job_last_update = time(NULL);
	job_info_touch(job);
	for (uint32_t i = 0; i < n; i++)
		if (hs[i]->changed)
			hs[i]->changed(c, job);
}

void job_requeued(struct ctld *c, struct job *job, time_t now)
{
	uint32_t n;
	const struct job_hook *const *hs = hooks_of(c, &n);

	for (uint32_t i = 0; i < n; i++)
		if (hs[i]->requeued)
			hs[i]->requeued(c, job, now);
}

void job_ended(struct ctld *c, struct job *job)
{
	uint32_t n;
	const struct job_hook *const *hs = hooks_of(c, &n);

	for (uint32_t i = 0; i < n; i++)
		if (hs[i]->ended)
			hs[i]->ended(c, job);
}

bool job_seq_is_recorded(const struct ctld *c, uint64_t seq)
{
	uint32_t n;
	const struct job_hook *const *hs = hooks_of(c, &n);

	for (uint32_t i = 0; i < n; i++)
		if (hs[i]->is_recorded && !hs[i]->is_recorded(c, seq))
			return false;
	return true;
}

/* ---- the script and environment in the blob store ---- */

int job_files_store(struct blob_store *s, struct job *job)
{
	struct job_desc *d = job->desc;
	struct pack_buf env = {0};
	struct blob *b;

	job->script_blob = blob_adopt(s, job->script_blob);
	job->env_blob = blob_adopt(s, job->env_blob);
	if (!d || d->is_shared) /* shared copies already: they stay */
		return 0;
	if (d->script && !job->script_blob) {
		b = blob_put(s, d->script, strlen(d->script));
		if (!b)
			return -ENOMEM;
		job->script_blob = b;
		free(d->script);
		d->script = NULL;
	}
	if (d->env_count && !job->env_blob) {
		pack_strv(&env, d->env, d->env_count);
		b = env.err ? NULL : blob_put(s, env.data, env.len);
		pack_buf_done(&env);
		if (!b)
			return -ENOMEM;
		job->env_blob = b;
		strv_free(d->env, d->env_count);
		d->env = NULL;
		d->env_count = 0;
	}
	return 0;
}

int job_files_load(const struct job *job, struct job_files *f)
{
	const struct job_desc *d = job->desc;
	size_t len;
	int r;

	*f = (struct job_files){0};
	if (d) {
		f->script = d->script;
		f->env = d->env;
		f->env_count = d->env_count;
	}
	if (job->script_blob) {
		r = blob_read(job->script_blob, &f->script_bytes, &len);
		if (r < 0)
			return r;
		if (memchr(f->script_bytes, '\0', len)) {
			job_files_done(f);
			return -EBADMSG;
		}
		f->script = (const char *)f->script_bytes;
	}
	if (job->env_blob) {
		uint8_t *bytes;
		struct pack_buf b;

		r = blob_read(job->env_blob, &bytes, &len);
		if (r < 0) {
			job_files_done(f);
			return r;
		}
		b = pack_buf_view(bytes, len);
		unpack_strv(&b, &f->env_owned, &f->env_owned_count, JOB_ENV_MAX_COUNT);
		r = b.err ? b.err : pack_remaining(&b) ? -EBADMSG : 0;
		free(bytes);
		if (r < 0) {
			job_files_done(f);
			return r;
		}
		f->env = f->env_owned;
		f->env_count = f->env_owned_count;
	}
	return 0;
}

void job_files_done(struct job_files *f)
{
	free(f->script_bytes);
	strv_free(f->env_owned, f->env_owned_count);
	*f = (struct job_files){0};
}
