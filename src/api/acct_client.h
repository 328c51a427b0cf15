/* acct_client.h - the query of the accounting store through the
 * controller (REQUEST_ACCT_QUERY, msg_acct.h), every page of it: sacct,
 * seff and slurmrestd's /slurmdb jobs.
 */
#pragma once
#include <stdint.h>

struct acct_job_rec;
struct acct_query_req;
struct frame_as;
struct sl_conf;

struct acct_rows {
	struct acct_job_rec *jobs; /* store order (job submit order) */
	uint32_t count;
};

/* Ask page after page (req->after and req->limit are set here) until the
 * controller has nothing more. Returns 0 and fills *ret (free with
 * acct_rows_done), or a negative code: a connection error, or the
 * controller's error (-ESLURM_ACCOUNTING_DISABLED-like codes from
 * acct_query_resp.error_code). */
int acct_client_fetch(const struct sl_conf *conf, struct acct_query_req *req,
		      struct acct_rows *ret);
/* The same on behalf of as->uid (slurmrestd; frame.h). */
int acct_client_fetch_as(const struct sl_conf *conf, const struct frame_as *as,
			 struct acct_query_req *req, struct acct_rows *ret);
void acct_rows_done(struct acct_rows *rows);
