/* job_fetch.c - every page of a REQUEST_JOB_INFO; see job_fetch.h. */
#include "job_fetch.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "common/msg.h"
#include "common/sl_errno.h"

/* Adds page to *all (taking it). Returns 1 when another page follows, 0
 * after the last, or an error; a page that would not move the cursor
 * (a confused server) is an error rather than a loop for ever. */
static int take_page(struct job_info_msg **all, struct job_info_msg *page, uint32_t *after)
{
	int more = page->is_more, r = 0;

	if (more && (!page->count || page->last_job_id <= *after))
		r = -SLURM_UNEXPECTED_MSG_ERROR;
	*after = page->last_job_id;
	if (r == 0 && !*all) {
		*all = page;
		return more;
	}
	if (r == 0) {
		(*all)->last_update = page->last_update;
		r = job_info_msg_append(*all, page);
	}
	msg_free(msg_lookup(RESPONSE_JOB_INFO), page);
	return r < 0 ? r : more;
}

int job_fetch_all(const struct sl_conf *conf, struct job_info_req *req, struct job_info_msg **ret)
{
	return job_fetch_all_as(conf, NULL, req, ret);
}

int job_fetch_all_as(const struct sl_conf *conf, const struct frame_as *as,
		     struct job_info_req *req, struct job_info_msg **ret)
{
	uint32_t saved = req->after_job_id;
	struct job_info_msg *all = NULL, *page;
	int r;

	do {
		page = NULL;
		r = cli_ctld_fetch_as(conf, as, REQUEST_JOB_INFO, req, RESPONSE_JOB_INFO,
				      (void **)&page);
		if (r == 0)
			r = take_page(&all, page, &req->after_job_id);
	} while (r > 0);
	req->after_job_id = saved;
	if (r < 0) {
		msg_free(msg_lookup(RESPONSE_JOB_INFO), all);
		return r;
	}
	all->is_more = false;
	*ret = all;
	return 0;
}
