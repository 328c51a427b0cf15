/* acct_client.c - see acct_client.h. */
#include "api/acct_client.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/ctld_fetch.h"
#include "common/msg.h"

#define PAGE_JOBS      20000u /* ~5 MB per reply, far below MaxMessageSize */
#define BUSY_TRIES_MAX 150u   /* 30 s of "too many queries waiting" before giving up */

int acct_client_fetch(const struct sl_conf *conf, struct acct_query_req *req, struct acct_rows *ret)
{
	return acct_client_fetch_as(conf, NULL, req, ret);
}

int acct_client_fetch_as(const struct sl_conf *conf, const struct frame_as *as,
			 struct acct_query_req *req, struct acct_rows *ret)
{
	struct acct_rows rows = {0};
	unsigned busy_tries = 0;
	int r = 0;

	req->after = 0;
	req->limit = PAGE_JOBS;
	for (;;) {
		struct acct_query_resp *m = NULL;
		struct acct_job_rec *nv;
		bool is_more;

		r = ctld_fetch_as(conf, as, REQUEST_ACCT_QUERY, req, RESPONSE_ACCT_QUERY,
				  (void **)&m);
		if (r < 0)
			break;
		if (m->error_code == EAGAIN && busy_tries++ < BUSY_TRIES_MAX) {
			/* the controller has many queries waiting: ask again shortly */
			msg_free(msg_lookup(RESPONSE_ACCT_QUERY), m);
			usleep(200000);
			continue;
		}
		if (m->error_code) {
			r = -(int)m->error_code;
			msg_free(msg_lookup(RESPONSE_ACCT_QUERY), m);
			break;
		}
		nv = m->count ? realloc(rows.jobs, (rows.count + m->count) * sizeof(*nv))
			      : rows.jobs;
		if (m->count && !nv) {
			msg_free(msg_lookup(RESPONSE_ACCT_QUERY), m);
			r = -ENOMEM;
			break;
		}
		rows.jobs = nv;
		/* the rows move into ours; the reply keeps nothing to free */
		if (m->count)
			memcpy(rows.jobs + rows.count, m->jobs, m->count * sizeof(*nv));
		rows.count += m->count;
		free(m->jobs);
		m->jobs = NULL;
		m->count = 0;
		is_more = m->is_more && m->last > req->after;
		req->after = m->last;
		msg_free(msg_lookup(RESPONSE_ACCT_QUERY), m);
		if (!is_more)
			break;
	}
	if (r < 0) {
		acct_rows_done(&rows);
		return r;
	}
	*ret = rows;
	return 0;
}

void acct_rows_done(struct acct_rows *rows)
{
	for (uint32_t i = 0; rows->jobs && i < rows->count; i++)
		acct_job_rec_done(&rows->jobs[i]);
	free(rows->jobs);
	rows->jobs = NULL;
	rows->count = 0;
}
