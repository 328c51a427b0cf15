/* msg_family.h - the pack/unpack/free triples of every message, declared
 * for msg_table.c. Internal to src/common and the unit tests.
 */
#pragma once
#include <stdint.h>

struct pack_buf;

#define MSG_DECLARE(s)                                                                             \
	void s##_pack(const void *msg, struct pack_buf *b, uint16_t ver);                          \
	int s##_unpack(void *msg, struct pack_buf *b, uint16_t ver);                               \
	void s##_free(void *msg)

MSG_DECLARE(rc_msg);
MSG_DECLARE(empty_msg);
MSG_DECLARE(shutdown_msg);
MSG_DECLARE(build_info_msg);
MSG_DECLARE(node_reg_msg);
MSG_DECLARE(ping_slurmd_msg);
MSG_DECLARE(node_info_req);
MSG_DECLARE(node_info_msg);
MSG_DECLARE(update_node_msg);
MSG_DECLARE(extern_pid_msg);
MSG_DECLARE(reboot_msg);
MSG_DECLARE(part_info_req);
MSG_DECLARE(license_info_msg);
MSG_DECLARE(part_edit_msg);
MSG_DECLARE(resv_desc_msg);
MSG_DECLARE(resv_name_msg);
MSG_DECLARE(resv_info_msg);
MSG_DECLARE(part_info_msg);
MSG_DECLARE(job_desc);
MSG_DECLARE(submit_response);
MSG_DECLARE(job_info_req);
MSG_DECLARE(job_info_msg);
MSG_DECLARE(kill_job_msg);
MSG_DECLARE(update_job_msg);
MSG_DECLARE(batch_launch_msg);
MSG_DECLARE(complete_batch_msg);
MSG_DECLARE(signal_job_msg);
MSG_DECLARE(epilog_complete_msg);
MSG_DECLARE(alloc_response);
MSG_DECLARE(step_create_req);
MSG_DECLARE(step_create_resp);
MSG_DECLARE(launch_tasks_msg);
MSG_DECLARE(step_complete_msg);
MSG_DECLARE(step_stat_req);
MSG_DECLARE(step_stat_resp);
MSG_DECLARE(complete_alloc_msg);
MSG_DECLARE(acct_query_req);
MSG_DECLARE(acct_query_resp);
MSG_DECLARE(step_signal_msg);
MSG_DECLARE(step_info_req);
MSG_DECLARE(step_info_msg);
MSG_DECLARE(srun_notice_msg);
MSG_DECLARE(stats_info_req);
MSG_DECLARE(stats_info_msg);
MSG_DECLARE(prio_factors_req);
MSG_DECLARE(prio_factors_resp);
MSG_DECLARE(assoc_mgr_req);
MSG_DECLARE(assoc_mgr_resp);
MSG_DECLARE(assoc_list_req);
MSG_DECLARE(assoc_dump);
MSG_DECLARE(auth_token_req);
MSG_DECLARE(auth_token_resp);
MSG_DECLARE(job_wait_req);
MSG_DECLARE(job_wait_resp);
