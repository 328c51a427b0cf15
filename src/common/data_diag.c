/* data_diag.c - sdiag's statistics as a v0.0.38 document (data_diag.h).
 * Means are integer divisions of the sums, as sdiag prints them. */
#include "common/data_diag.h"

#include <stddef.h>

#include "common/macros.h"
#include "common/msg_stats.h"

#define D(m) offsetof(struct stats_info_msg, m)
#define SREC(k) const struct stats_info_msg *m = (k)

static uint64_t mean(uint64_t sum, uint32_t n)
{
	return n ? sum / n : 0;
}

static void w_sched_mean(struct dout *d, const char *key, const void *rec)
{
	SREC(rec);
	dout_uint(d, key, mean(m->sched_sum, m->sched_cycles));
}

static void w_sched_depth(struct dout *d, const char *key, const void *rec)
{
	SREC(rec);
	dout_uint(d, key, mean(m->sched_depth_sum, m->sched_cycles));
}

static void w_per_minute(struct dout *d, const char *key, const void *rec)
{
	SREC(rec);
	time_t mins = (m->now - m->since) / 60;

	dout_uint(d, key, mins > 0 ? m->sched_cycles / (uint64_t)mins : 0);
}

static void w_bf_mean(struct dout *d, const char *key, const void *rec)
{
	SREC(rec);
	dout_uint(d, key, mean(m->bf_sum, m->bf_cycles));
}

static void w_bf_depth(struct dout *d, const char *key, const void *rec)
{
	SREC(rec);
	dout_uint(d, key, mean(m->bf_depth_sum, m->bf_cycles));
}

static void w_bf_depth_try(struct dout *d, const char *key, const void *rec)
{
	SREC(rec);
	dout_uint(d, key, mean(m->bf_depth_try_sum, m->bf_cycles));
}

static void w_bf_queue(struct dout *d, const char *key, const void *rec)
{
	SREC(rec);
	dout_uint(d, key, mean(m->bf_queue_len_sum, m->bf_cycles));
}

#define U32(name, m) {name, DF_U32, 0, D(m), NULL, NULL}
#define T(name, m) {name, DF_TIME, 0, D(m), NULL, NULL}
#define K(name, type) {name, type, 0, 0, NULL, NULL}
#define F(name, fn) {name, DF_FN, DS_INTEGER, 0, fn, NULL}

static const struct dfield diag_fields[] = {
    K("parts_packed", DF_ZERO),
    T("req_time", now),
    T("req_time_start", since),
    U32("server_thread_count", server_threads),
    U32("agent_queue_size", agent_queue),
    U32("agent_count", agent_count),
    U32("agent_thread_count", agent_threads),
    U32("dbd_agent_queue_size", dbd_queue),
    U32("gettimeofday_latency", gettimeofday_latency),
    U32("schedule_cycle_max", sched_max),
    U32("schedule_cycle_last", sched_last),
    U32("schedule_cycle_total", sched_cycles),
    F("schedule_cycle_mean", w_sched_mean),
    F("schedule_cycle_mean_depth", w_sched_depth),
    F("schedule_cycle_per_minute", w_per_minute),
    U32("schedule_queue_length", sched_queue_len),
    U32("jobs_submitted", jobs_submitted),
    U32("jobs_started", jobs_started),
    U32("jobs_completed", jobs_completed),
    U32("jobs_canceled", jobs_canceled),
    U32("jobs_failed", jobs_failed),
    U32("jobs_pending", jobs_pending),
    U32("jobs_running", jobs_running),
    T("job_states_ts", job_states_ts),
    U32("bf_backfilled_jobs", bf_jobs_total),
    U32("bf_last_backfilled_jobs", bf_jobs_since_reset),
    K("bf_backfilled_het_jobs", DF_ZERO),
    U32("bf_cycle_counter", bf_cycles),
    F("bf_cycle_mean", w_bf_mean),
    U32("bf_cycle_max", bf_max),
    U32("bf_last_depth", bf_last_depth),
    U32("bf_last_depth_try", bf_last_depth_try),
    F("bf_depth_mean", w_bf_depth),
    F("bf_depth_mean_try", w_bf_depth_try),
    U32("bf_cycle_last", bf_last),
    U32("bf_queue_len", bf_queue_len),
    F("bf_queue_len_mean", w_bf_queue),
    T("bf_when_last_cycle", bf_when_last),
    K("bf_active", DF_FALSE),
};
DFIELD_TABLE(data_diag_table, "v0.0.38_diag_statistics", diag_fields);

void data_diag_doc(struct dout *d, const struct stats_info_msg *m, int argc, char **argv)
{
	dout_obj(d, NULL);
	dout_meta(d, false, argc, argv);
	dout_record(d, "statistics", &data_diag_table, m);
	dout_end(d);
}
