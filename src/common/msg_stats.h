/* msg_stats.h - REQUEST_STATS_INFO / RESPONSE_STATS_INFO: the scheduler
 * and RPC statistics that sdiag prints (Slurm's stats_info messages).
 */
#pragma once
#include <stdint.h>
#include <time.h>

#define STATS_CMD_GET	0    /* Slurm's STAT_COMMAND_GET */
#define STATS_CMD_RESET 1    /* STAT_COMMAND_RESET (admins only) */
#define STATS_RPC_MAX	1024 /* rows accepted per table when unpacking */

struct stats_info_req {
	uint16_t command;
};

struct stats_rpc {   /* one row: by message type or by user */
	uint32_t id; /* message type, or uid */
	uint32_t count;
	uint64_t time_us; /* total handler time */
};

struct stats_info_msg {
	time_t now, since, job_states_ts, bf_when_last;
	uint32_t server_threads, agent_queue, agent_count, agent_threads, dbd_queue;
	uint32_t jobs_submitted, jobs_started, jobs_completed, jobs_canceled, jobs_failed;
	uint32_t jobs_pending, jobs_running;
	/* main scheduler (microseconds) */
	uint32_t sched_last, sched_max, sched_cycles, sched_queue_len;
	uint64_t sched_sum, sched_depth_sum;
	/* backfill */
	uint32_t bf_jobs_total, bf_jobs_since_reset, bf_cycles, bf_last, bf_max;
	uint32_t bf_last_depth, bf_last_depth_try, bf_queue_len, bf_table_size;
	uint32_t gettimeofday_latency; /* microseconds for 1000 calls */
	uint64_t bf_sum, bf_depth_sum, bf_depth_try_sum, bf_queue_len_sum, bf_table_size_sum;
	uint32_t rpc_type_count, rpc_user_count;
	struct stats_rpc *rpc_types, *rpc_users;
};

/* Free the rows (not the struct itself); NULL rows are fine. */
void stats_info_msg_free(void *msg);
