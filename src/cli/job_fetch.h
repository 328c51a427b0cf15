/* job_fetch.h - every page of a REQUEST_JOB_INFO (squeue, scontrol,
 * scancel): the controller answers at most JOB_INFO_PAGE_BYTES a reply
 * (docs/protocol.md, "Paged replies"); this asks for the next page until
 * the last one and returns all the jobs in one message. */
#pragma once

struct frame_as;
struct sl_conf;
struct job_info_req;
struct job_info_msg;

/* req as the caller built it (after_job_id is set here, then restored).
 * Returns 0 and *ret (owned; free with
 * msg_free(msg_lookup(RESPONSE_JOB_INFO), m)), or cli_ctld_fetch's error. */
int job_fetch_all(const struct sl_conf *conf, struct job_info_req *req, struct job_info_msg **ret);
/* The same on behalf of as->uid (slurmrestd; frame.h). */
int job_fetch_all_as(const struct sl_conf *conf, const struct frame_as *as,
		     struct job_info_req *req, struct job_info_msg **ret);
