/* job_fetch.c - every page of a REQUEST_JOB_INFO; see job_fetch.h. */
#include "api/job_fetch.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/ctld_fetch.h"
#include "common/frame.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"

struct each {
	job_page_fn *fn;
	void *arg;
	bool view;	/* pages unpacked as views (job_fetch_each_as) */
	uint32_t after; /* the cursor: every page must move it on */
};

/* One frame of the stream: a page for fn, or the controller's error. A
 * page that would not move the cursor (a confused server) is an error
 * rather than a loop for ever. */
static int on_frame(void *arg, const struct frame_body *part)
{
	struct each *e = arg;
	struct job_info_msg *page = NULL;
	uint16_t type = part->type;
	void *msg = NULL;
	int more, r;

	if (type == RESPONSE_JOB_INFO && e->view) {
		r = job_info_msg_unpack_view(part->body, part->len, part->version, &page);
		msg = page;
	} else {
		r = msg_unpack_body(type, part->body, part->len, part->version, &msg);
		page = msg; /* looked at only as RESPONSE_JOB_INFO */
	}
	if (r < 0)
		return r;
	if (type != RESPONSE_JOB_INFO)
		return ctld_fetch_unwrap(type, msg, RESPONSE_JOB_INFO);
	more = page->is_more;
	if (more && (!page->count || page->last_job_id <= e->after)) {
		msg_free(msg_lookup(type), page);
		return -SLURM_UNEXPECTED_MSG_ERROR;
	}
	e->after = page->last_job_id;
	r = e->fn(e->arg, page);
	return r < 0 ? r : more;
}

int job_fetch_each_as(const struct sl_conf *conf, const struct frame_as *as,
		      struct job_info_req *req, bool view, job_page_fn *fn, void *arg)
{
	struct each e = {.fn = fn, .arg = arg, .view = view, .after = req->after_job_id};
	uint16_t saved = req->show_flags;
	int r;

	req->show_flags |= JOB_SHOW_STREAM;
	r = rpc_stream_ctld_as(conf, as, REQUEST_JOB_INFO, req, on_frame, &e);
	req->show_flags = saved;
	return r;
}

/* job_fetch_pages: on_frame checks each frame and unpacks its page as a
 * view; keep_page keeps the page with the frame it points into. */
struct kept {
	struct each e;
	struct job_pages *p;
	void *frame; /* the frame being handled, until a page keeps it */
};

static int keep_page(void *arg, struct job_info_msg *page)
{
	struct kept *k = arg;
	struct job_pages *p = k->p;

	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct job_info_msg **pages = realloc(p->pages, cap * sizeof(*pages));
		void **frames;

		if (pages)
			p->pages = pages;
		frames = pages ? realloc(p->frames, cap * sizeof(*frames)) : NULL;
		if (!frames) {
			msg_free(msg_lookup(RESPONSE_JOB_INFO), page);
			return -ENOMEM;
		}
		p->frames = frames;
		p->cap = cap;
	}
	p->pages[p->n] = page;
	p->frames[p->n++] = TAKE_PTR(k->frame);
	return 0;
}

static int on_kept_frame(void *arg, const struct frame_body *part, void *frame)
{
	struct kept *k = arg;
	int r;

	k->frame = frame;
	r = on_frame(&k->e, part);
	free(k->frame); /* not kept: the controller's error, or a bad page */
	k->frame = NULL;
	return r;
}

int job_fetch_pages(const struct sl_conf *conf, struct job_info_req *req, struct job_pages *ret)
{
	struct kept k = {.p = ret};
	uint16_t saved = req->show_flags;
	int r;

	k.e = (struct each){.fn = keep_page, .arg = &k, .view = true, .after = req->after_job_id};
	*ret = (struct job_pages){.n = 0};
	req->show_flags |= JOB_SHOW_STREAM;
	r = rpc_stream_ctld_owned(conf, REQUEST_JOB_INFO, req, on_kept_frame, &k);
	req->show_flags = saved;
	if (r == 0 && !ret->n)
		r = -SLURM_UNEXPECTED_MSG_ERROR;
	return r;
}

void job_pages_free(struct job_pages *p)
{
	for (size_t i = 0; i < p->n; i++) {
		msg_free(msg_lookup(RESPONSE_JOB_INFO), p->pages[i]);
		free(p->frames[i]);
	}
	free(p->pages);
	free(p->frames);
	*p = (struct job_pages){.n = 0};
}

/* Collects the pages into the first one. */
static int take_page(void *arg, struct job_info_msg *page)
{
	struct job_info_msg **all = arg;
	int r;

	if (!*all) {
		*all = page;
		return 0;
	}
	(*all)->last_update = page->last_update;
	r = job_info_msg_append(*all, page);
	msg_free(msg_lookup(RESPONSE_JOB_INFO), page);
	return r;
}

int job_fetch_all(const struct sl_conf *conf, struct job_info_req *req, struct job_info_msg **ret)
{
	return job_fetch_all_as(conf, NULL, req, ret);
}

int job_fetch_all_as(const struct sl_conf *conf, const struct frame_as *as,
		     struct job_info_req *req, struct job_info_msg **ret)
{
	struct job_info_msg *all = NULL;
	int r;

	r = job_fetch_each_as(conf, as, req, false, take_page, &all);
	if (r == 0 && !all)
		r = -SLURM_UNEXPECTED_MSG_ERROR;
	if (r < 0) {
		msg_free(msg_lookup(RESPONSE_JOB_INFO), all);
		return r;
	}
	all->is_more = false;
	*ret = all;
	return 0;
}
