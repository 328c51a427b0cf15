/* job_fetch.h - every page of a REQUEST_JOB_INFO (squeue, scontrol,
 * scancel, slurmrestd). The listing comes streamed (JOB_SHOW_STREAM,
 * docs/protocol.md "Paged replies"): one request, then the controller's
 * pages one frame each on the same connection, the first small, so that
 * the caller can work on a page while the controller builds the next. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct frame_as;
struct sl_conf;
struct job_info_req;
struct job_info_msg;

/* Takes page (free with msg_free(msg_lookup(RESPONSE_JOB_INFO), page));
 * returns 0, or a negative code to stop the listing with. */
typedef int job_page_fn(void *arg, struct job_info_msg *page);

/* Hands every page to fn in the controller's order (by job id), on
 * behalf of as->uid (slurmrestd; frame.h) or as ourselves (as NULL).
 * view: the pages' strings point into the received frame (no copies,
 * job_info_msg_unpack_view), so fn must be done with the page when it
 * returns. req as the caller built it (its show_flags are restored).
 * Returns 0, or fn's code or the controller's (as ctld_fetch); pages
 * handed over before an error stay handed over. */
int job_fetch_each_as(const struct sl_conf *conf, const struct frame_as *as,
		      struct job_info_req *req, bool view, job_page_fn *fn, void *arg);

/* Every page of a listing, kept as received: each page a view
 * (job_info_msg_unpack_view) whose strings point into its frame, both
 * kept until job_pages_free. No record or string is copied, which for a
 * listing of 100,000 jobs is most of what gathering them costs. */
struct job_pages {
	struct job_info_msg **pages;
	void **frames; /* frames[i] holds pages[i]'s strings */
	size_t n, cap;
};
/* 0 and *ret filled (free with job_pages_free, also on error), or the
 * error as job_fetch_each_as's. */
int job_fetch_pages(const struct sl_conf *conf, struct job_info_req *req, struct job_pages *ret);
void job_pages_free(struct job_pages *p);

/* Every page in one message: returns 0 and *ret (owned; free with
 * msg_free(msg_lookup(RESPONSE_JOB_INFO), m)), or the error. */
int job_fetch_all(const struct sl_conf *conf, struct job_info_req *req, struct job_info_msg **ret);
/* The same on behalf of as->uid (slurmrestd; frame.h). */
int job_fetch_all_as(const struct sl_conf *conf, const struct frame_as *as,
		     struct job_info_req *req, struct job_info_msg **ret);
