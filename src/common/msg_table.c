/* msg_table.c - the one table of message types (R16): number -> name,
 * struct size and pack/unpack/free triple. Sorted by number; a unit test
 * checks the order, round-trips every entry and truncates every entry.
 */
#include "msg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "msg_assoc.h"
#include "msg_auth.h"
#include "msg_family.h"
#include "msg_resv.h"
#include "msg_stats.h"
#include "msg_wait.h"
#include "pack.h"

#define MSG(t, s) { t, #t, sizeof(struct s), s##_pack, s##_unpack, s##_free }

const struct msg_type msg_table[] = {
    MSG(REQUEST_NODE_REGISTRATION_STATUS, empty_msg),
    MSG(MESSAGE_NODE_REGISTRATION_STATUS, node_reg_msg),
    MSG(REQUEST_RECONFIGURE, empty_msg),
    MSG(REQUEST_SHUTDOWN, shutdown_msg),
    MSG(REQUEST_PING, empty_msg),
    MSG(REQUEST_HEALTH_CHECK, empty_msg),
    MSG(REQUEST_REBOOT_NODES, reboot_msg),
    MSG(RESPONSE_PING_SLURMD, ping_slurmd_msg),
    MSG(REQUEST_LICENSE_INFO, part_info_req),
    MSG(RESPONSE_LICENSE_INFO, license_info_msg),
    MSG(REQUEST_ACCT_QUERY, acct_query_req),
    MSG(RESPONSE_ACCT_QUERY, acct_query_resp),
    MSG(REQUEST_BUILD_INFO, empty_msg),
    MSG(RESPONSE_BUILD_INFO, build_info_msg),
    MSG(REQUEST_JOB_INFO, job_info_req),
    MSG(RESPONSE_JOB_INFO, job_info_msg),
    MSG(REQUEST_JOB_STEP_INFO, step_info_req),
    MSG(RESPONSE_JOB_STEP_INFO, step_info_msg),
    MSG(REQUEST_NODE_INFO, node_info_req),
    MSG(RESPONSE_NODE_INFO, node_info_msg),
    MSG(REQUEST_PARTITION_INFO, part_info_req),
    MSG(RESPONSE_PARTITION_INFO, part_info_msg),
    MSG(REQUEST_RESERVATION_INFO, part_info_req),
    MSG(RESPONSE_RESERVATION_INFO, resv_info_msg),
    MSG(REQUEST_PRIORITY_FACTORS, prio_factors_req),
    MSG(RESPONSE_PRIORITY_FACTORS, prio_factors_resp),
    MSG(REQUEST_STATS_INFO, stats_info_req),
    MSG(RESPONSE_STATS_INFO, stats_info_msg),
    MSG(REQUEST_UPDATE_JOB, update_job_msg),
    MSG(REQUEST_UPDATE_NODE, update_node_msg),
    MSG(REQUEST_CREATE_PARTITION, part_edit_msg),
    MSG(REQUEST_UPDATE_PARTITION, part_edit_msg),
    MSG(REQUEST_DELETE_PARTITION, part_edit_msg),
    MSG(REQUEST_CREATE_RESERVATION, resv_desc_msg),
    MSG(RESPONSE_CREATE_RESERVATION, resv_name_msg),
    MSG(REQUEST_DELETE_RESERVATION, resv_name_msg),
    MSG(REQUEST_UPDATE_RESERVATION, resv_desc_msg),
    MSG(REQUEST_RESOURCE_ALLOCATION, job_desc),
    MSG(RESPONSE_RESOURCE_ALLOCATION, alloc_response),
    MSG(REQUEST_SUBMIT_BATCH_JOB, job_desc),
    MSG(RESPONSE_SUBMIT_BATCH_JOB, submit_response),
    MSG(REQUEST_BATCH_JOB_LAUNCH, batch_launch_msg),
    MSG(REQUEST_JOB_WILL_RUN, job_desc),
    MSG(RESPONSE_JOB_WILL_RUN, submit_response),
    MSG(REQUEST_JOB_STEP_CREATE, step_create_req),
    MSG(RESPONSE_JOB_STEP_CREATE, step_create_resp),
    MSG(REQUEST_CANCEL_JOB_STEP, step_signal_msg),
    MSG(REQUEST_STEP_COMPLETE, step_complete_msg),
    MSG(REQUEST_COMPLETE_JOB_ALLOCATION, complete_alloc_msg),
    MSG(REQUEST_COMPLETE_BATCH_SCRIPT, complete_batch_msg),
    MSG(REQUEST_JOB_STEP_STAT, step_stat_req),
    MSG(RESPONSE_JOB_STEP_STAT, step_stat_resp),
    MSG(REQUEST_JOB_REQUEUE, update_job_msg),
    MSG(REQUEST_KILL_JOB, kill_job_msg),
    MSG(REQUEST_LAUNCH_TASKS, launch_tasks_msg),
    MSG(REQUEST_SIGNAL_TASKS, signal_job_msg),
    MSG(REQUEST_KILL_TIMELIMIT, signal_job_msg),
    MSG(REQUEST_TERMINATE_JOB, signal_job_msg),
    MSG(MESSAGE_EPILOG_COMPLETE, epilog_complete_msg),
    MSG(REQUEST_LAUNCH_PROLOG, signal_job_msg),
    MSG(REQUEST_COMPLETE_PROLOG, epilog_complete_msg),
    MSG(SRUN_PING, srun_notice_msg),
    MSG(SRUN_TIMEOUT, srun_notice_msg),
    MSG(SRUN_NODE_FAIL, srun_notice_msg),
    MSG(SRUN_JOB_COMPLETE, srun_notice_msg),
    MSG(RESPONSE_SLURM_RC, rc_msg),
    MSG(REQUEST_ASSOC_MGR, assoc_mgr_req),
    MSG(RESPONSE_ASSOC_MGR, assoc_mgr_resp),
    MSG(REQUEST_ASSOC_LIST, assoc_list_req),
    MSG(RESPONSE_ASSOC_LIST, assoc_dump),
    MSG(REQUEST_SHARE_INFO, assoc_list_req),
    MSG(REQUEST_AUTH_TOKEN, auth_token_req),
    MSG(RESPONSE_AUTH_TOKEN, auth_token_resp),
    MSG(REQUEST_JOB_WAIT, job_wait_req),
    MSG(RESPONSE_JOB_WAIT, job_wait_resp),
    MSG(REQUEST_ADD_EXTERN_PID, extern_pid_msg),
};
const size_t msg_table_len = sizeof(msg_table) / sizeof(msg_table[0]);

static int msg_cmp(const void *key, const void *elem)
{
	uint16_t k = *(const uint16_t *)key;
	const struct msg_type *t = elem;

	return (int)k - (int)t->type;
}

const struct msg_type *msg_lookup(uint16_t type)
{
	return bsearch(&type, msg_table, msg_table_len, sizeof(msg_table[0]), msg_cmp);
}

const char *msg_type_name(uint16_t type)
{
	static __thread char buf[16];
	const struct msg_type *t = msg_lookup(type);

	if (t)
		return t->name;
	snprintf(buf, sizeof(buf), "MSG_%u", (unsigned)type);
	return buf;
}

void *msg_alloc(const struct msg_type *t)
{
	return calloc(1, t->size);
}

void msg_free(const struct msg_type *t, void *m)
{
	if (!m)
		return;
	if (t)
		t->free(m);
	free(m);
}

int msg_unpack_body(uint16_t type, const void *data, size_t len, uint16_t ver, void **ret)
{
	const struct msg_type *t = msg_lookup(type);
	struct pack_buf b = pack_buf_view(data, len);
	void *m;
	int r;

	*ret = NULL;
	if (!t)
		return -EBADMSG;
	m = msg_alloc(t);
	if (!m)
		return -ENOMEM;
	r = t->unpack(m, &b, ver);
	if (r == 0 && pack_remaining(&b) != 0)
		r = -EBADMSG; /* leftover bytes: not the message we think it is */
	if (r < 0) {
		msg_free(t, m);
		return r;
	}
	*ret = m;
	return 0;
}
