/* sched_stats.c - see sched_stats.h.
 *
 * Jobs are counted by a job hook: each job record carries stats_seen bits
 * (submitted, started, ended) so a change seen twice counts once; a
 * requeued job starts and ends again. Jobs already in the table at start
 * (a restart replayed them) are marked seen as they are, without counting.
 * RPC rows are fixed tables searched linearly (a few dozen types; users
 * past the table's end are not counted by user).
 */
#include "sched_stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg_stats.h"
#include "ctld.h"
#include "job.h"

#define RPC_TYPES_MAX 128
#define RPC_USERS_MAX 256
#define SEEN_SUBMIT   0x1
#define SEEN_START    0x2
#define SEEN_END      0x4

static struct {
	time_t since;
	uint32_t submitted, started, completed, canceled, failed;
	uint32_t sched_last, sched_max, sched_cycles, sched_queue_len;
	uint64_t sched_sum, sched_depth_sum;
	uint32_t bf_total, bf_since_reset, bf_cycles, bf_last, bf_max;
	uint32_t bf_last_depth, bf_last_depth_try, bf_queue_len;
	uint64_t bf_sum, bf_depth_sum, bf_depth_try_sum, bf_queue_len_sum;
	time_t bf_when;
	struct stats_rpc types[RPC_TYPES_MAX], users[RPC_USERS_MAX];
	uint32_t type_count, user_count;
} S;

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

void sched_stats_main_cycle(struct ctld *c, uint64_t usec, uint32_t depth, uint32_t queue_len,
			    uint32_t started)
{
	(void)c;
	(void)started;
	S.sched_last = clamp32(usec);
	if (S.sched_last > S.sched_max)
		S.sched_max = S.sched_last;
	S.sched_cycles++;
	S.sched_sum += usec;
	S.sched_depth_sum += depth;
	S.sched_queue_len = queue_len;
}

void sched_stats_bf_cycle(struct ctld *c, uint64_t usec, uint32_t depth, uint32_t try_depth,
			  uint32_t queue_len, uint32_t started, time_t when)
{
	(void)c;
	S.bf_last = clamp32(usec);
	if (S.bf_last > S.bf_max)
		S.bf_max = S.bf_last;
	S.bf_cycles++;
	S.bf_sum += usec;
	S.bf_last_depth = depth;
	S.bf_last_depth_try = try_depth;
	S.bf_depth_sum += depth;
	S.bf_depth_try_sum += try_depth;
	S.bf_queue_len = queue_len;
	S.bf_queue_len_sum += queue_len;
	S.bf_total += started;
	S.bf_since_reset += started;
	S.bf_when = when;
}

/* As Slurm counts them: a cancel is "canceled", a run the nodes could not
 * start or lost "failed", every other end (a non-zero exit code, a time
 * limit, memory) "completed". */
static void count_end(const struct job *job)
{
	uint32_t base = job->state & JOB_STATE_BASE;

	if (base == JOB_CANCELLED)
		S.canceled++;
	else if (base == JOB_NODE_FAIL || base == JOB_BOOT_FAIL || (job->state & JOB_LAUNCH_FAILED))
		S.failed++;
	else
		S.completed++;
}

/* What a job already is counts as seen (jobs a restart replayed). */
static void mark_seen(struct job *job)
{
	job->stats_seen = SEEN_SUBMIT;
	if (!job_is_pending(job) && (job_is_running(job) || job->nodes))
		job->stats_seen |= SEEN_START;
	if (job_is_finished(job))
		job->stats_seen |= SEEN_END;
}

static void job_seen(struct ctld *c, struct job *job)
{
	bool is_task = job->array_job_id && job->array_task_id != NO_VAL;

	(void)c;
	if (!(job->stats_seen & SEEN_SUBMIT)) {
		job->stats_seen |= SEEN_SUBMIT;
		if (!is_task)
			S.submitted += job->array_job_id && job->array_pending_count
					   ? job->array_pending_count
					   : 1;
	}
	if (job_is_pending(job)) { /* (again): a requeued job runs and ends anew */
		job->stats_seen &= (uint8_t) ~(SEEN_START | SEEN_END);
		return;
	}
	/* a job cancelled while pending has a start time too, but no nodes */
	if (!(job->stats_seen & SEEN_START) && (job_is_running(job) || job->nodes)) {
		job->stats_seen |= SEEN_START;
		S.started++;
	}
	if (!(job->stats_seen & SEEN_END) && job_is_finished(job)) {
		job->stats_seen |= SEEN_END;
		count_end(job);
	}
}

static const struct job_hook stats_hook = {.changed = job_seen};

int sched_stats_start(struct ctld *c, time_t now)
{
	S.since = now;
	for (uint32_t i = 0; i < c->job_count; i++)
		mark_seen(c->jobs[i]);
	return job_hook_add(c, &stats_hook);
}

static void row_add(struct stats_rpc *v, uint32_t *n, uint32_t max, uint32_t id, uint64_t usec)
{
	uint32_t i = 0;

	while (i < *n && v[i].id != id)
		i++;
	if (i == *n) {
		if (*n >= max)
			return;
		v[(*n)++] = (struct stats_rpc){.id = id};
	}
	v[i].count++;
	v[i].time_us += usec;
}

void sched_stats_rpc(uint16_t type, uint32_t uid, uint64_t usec)
{
	row_add(S.types, &S.type_count, RPC_TYPES_MAX, type, usec);
	row_add(S.users, &S.user_count, RPC_USERS_MAX, uid, usec);
}

static struct stats_rpc *rows_dup(const struct stats_rpc *v, uint32_t n)
{
	struct stats_rpc *d = malloc((n ? n : 1) * sizeof(*d));

	if (d && n)
		memcpy(d, v, n * sizeof(*d));
	return d;
}

/* Slurm shows what 1000 gettimeofday() calls cost. */
static uint32_t gettimeofday_latency(void)
{
	struct timeval a, b, t;

	gettimeofday(&a, NULL);
	for (int i = 0; i < 1000; i++)
		gettimeofday(&t, NULL);
	gettimeofday(&b, NULL);
	return clamp32((uint64_t)((b.tv_sec - a.tv_sec) * 1000000 + (b.tv_usec - a.tv_usec)));
}

int sched_stats_fill(struct ctld *c, time_t now, struct stats_info_msg *ret)
{
	*ret = (struct stats_info_msg){
	    .now = now,
	    .since = S.since,
	    .job_states_ts = now,
	    .bf_when_last = S.bf_when,
	    .server_threads = 1,
	    .jobs_submitted = S.submitted,
	    .jobs_started = S.started,
	    .jobs_completed = S.completed,
	    .jobs_canceled = S.canceled,
	    .jobs_failed = S.failed,
	    .sched_last = S.sched_last,
	    .sched_max = S.sched_max,
	    .sched_cycles = S.sched_cycles,
	    .sched_queue_len = S.sched_queue_len,
	    .sched_sum = S.sched_sum,
	    .sched_depth_sum = S.sched_depth_sum,
	    .bf_jobs_total = S.bf_total,
	    .bf_jobs_since_reset = S.bf_since_reset,
	    .bf_cycles = S.bf_cycles,
	    .bf_last = S.bf_last,
	    .bf_max = S.bf_max,
	    .bf_last_depth = S.bf_last_depth,
	    .bf_last_depth_try = S.bf_last_depth_try,
	    .bf_queue_len = S.bf_queue_len,
	    .bf_sum = S.bf_sum,
	    .bf_depth_sum = S.bf_depth_sum,
	    .bf_depth_try_sum = S.bf_depth_try_sum,
	    .bf_queue_len_sum = S.bf_queue_len_sum,
	    .gettimeofday_latency = gettimeofday_latency(),
	};
	for (uint32_t i = 0; c && i < c->job_count; i++) {
		const struct job *j = c->jobs[i];

		if (job_is_pending(j))
			ret->jobs_pending += j->array_pending_count ? j->array_pending_count : 1;
		else if ((j->state & JOB_STATE_BASE) == JOB_RUNNING)
			ret->jobs_running++;
	}
	ret->rpc_types = rows_dup(S.types, S.type_count);
	ret->rpc_users = rows_dup(S.users, S.user_count);
	if (!ret->rpc_types || !ret->rpc_users) {
		stats_info_msg_free(ret);
		return -ENOMEM;
	}
	ret->rpc_type_count = S.type_count;
	ret->rpc_user_count = S.user_count;
	return 0;
}

void sched_stats_reset(time_t now)
{
	uint32_t bf_total = S.bf_total;

	memset(&S, 0, sizeof(S));
	S.since = now;
	S.bf_total = bf_total;
}
