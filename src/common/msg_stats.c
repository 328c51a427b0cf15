/* msg_stats.c - packers of the stats_info messages (msg_stats.h). */
#include "msg_stats.h"

#include <errno.h>
#include <stdlib.h>

#include "msg.h"
#include "msg_family.h"
#include "pack.h"

void stats_info_req_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct stats_info_req *m = msg;

	(void)ver;
	pack_u16(b, m->command);
}

int stats_info_req_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct stats_info_req *m = msg;

	(void)ver;
	unpack_u16(b, &m->command);
	return b->err;
}

void stats_info_req_free(void *msg)
{
	(void)msg;
}

static void rows_pack(struct pack_buf *b, const struct stats_rpc *v, uint32_t n)
{
	pack_u32(b, n);
	for (uint32_t i = 0; i < n; i++) {
		pack_u32(b, v[i].id);
		pack_u32(b, v[i].count);
		pack_u64(b, v[i].time_us);
	}
}

static void rows_unpack(struct pack_buf *b, struct stats_rpc **ret, uint32_t *ret_n)
{
	uint32_t n = 0;

	unpack_count(b, &n, STATS_RPC_MAX, 16);
	if (b->err || !n)
		return;
	*ret = calloc(n, sizeof(**ret));
	if (!*ret) {
		b->err = -ENOMEM;
		return;
	}
	*ret_n = n;
	for (uint32_t i = 0; i < n; i++) {
		unpack_u32(b, &(*ret)[i].id);
		unpack_u32(b, &(*ret)[i].count);
		unpack_u64(b, &(*ret)[i].time_us);
	}
}

#define U32S(X)                                                                                    \
	X(server_threads)                                                                          \
	X(agent_queue)                                                                             \
	X(agent_count) X(agent_threads) X(dbd_queue) X(jobs_submitted) X(jobs_started)             \
	    X(jobs_completed) X(jobs_canceled) X(jobs_failed) X(jobs_pending) X(jobs_running)      \
		X(sched_last) X(sched_max) X(sched_cycles) X(sched_queue_len) X(bf_jobs_total)     \
		    X(bf_jobs_since_reset) X(bf_cycles) X(bf_last) X(bf_max) X(bf_last_depth)      \
			X(bf_last_depth_try) X(bf_queue_len) X(bf_table_size)                      \
			    X(gettimeofday_latency)
#define U64S(X)                                                                                    \
	X(sched_sum)                                                                               \
	X(sched_depth_sum)                                                                         \
	X(bf_sum) X(bf_depth_sum) X(bf_depth_try_sum) X(bf_queue_len_sum) X(bf_table_size_sum)
#define TIMES(X) X(now) X(since) X(job_states_ts) X(bf_when_last)

void stats_info_msg_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct stats_info_msg *m = msg;

	(void)ver;
#define P32(f) pack_u32(b, m->f);
#define P64(f) pack_u64(b, m->f);
#define PT(f)  pack_time(b, m->f);
	TIMES(PT)
	U32S(P32)
	U64S(P64)
	rows_pack(b, m->rpc_types, m->rpc_type_count);
	rows_pack(b, m->rpc_users, m->rpc_user_count);
}

int stats_info_msg_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct stats_info_msg *m = msg;

	(void)ver;
#define U32(f) unpack_u32(b, &m->f);
#define U64(f) unpack_u64(b, &m->f);
#define UT(f)  unpack_time(b, &m->f);
	TIMES(UT)
	U32S(U32)
	U64S(U64)
	rows_unpack(b, &m->rpc_types, &m->rpc_type_count);
	rows_unpack(b, &m->rpc_users, &m->rpc_user_count);
	return b->err;
}

void stats_info_msg_free(void *msg)
{
	struct stats_info_msg *m = msg;

	free(m->rpc_types);
	free(m->rpc_users);
	m->rpc_types = m->rpc_users = NULL;
	m->rpc_type_count = m->rpc_user_count = 0;
}
