/* reply.c - response documents; see reply.h. */
#include "reply.h"

#include <errno.h>
#include <stdlib.h>

#include "common/data_out.h"
#include "common/sl_errno.h"
#include "restd.h"

struct dout *rest_doc_new(bool db)
{
	struct dout *d = dout_new(DOUT_JSON);

	if (!d)
		return NULL;
	dout_obj(d, NULL);
	dout_meta(d, db, 0, NULL);
	return d;
}

static void set_body(struct rest_req *r, int status, struct dout *d)
{
	free(r->out);
	r->out = NULL;
	r->out_len = 0;
	r->status = status;
	if (d && !dout_error(d))
		r->out = dout_steal(d, &r->out_len);
	if (!r->out)
		r->status = 500;
	dout_free(d);
}

void rest_reply_doc(struct rest_req *r, int status, struct dout *d)
{
	if (d)
		dout_end(d);
	set_body(r, status, d);
}

void rest_reply_written(struct rest_req *r, struct dout *d)
{
	if (!d || dout_error(d)) {
		dout_free(d);
		rest_reply_error(r, 500, ENOMEM, NULL);
		return;
	}
	set_body(r, 200, d);
}

void rest_reply_error(struct rest_req *r, int status, int code, const char *text)
{
	struct dout *d = dout_new(DOUT_JSON);

	if (code < 0)
		code = -code;
	if (d) {
		dout_obj(d, NULL);
		dout_meta_block(d, false, 0, NULL);
		dout_arr(d, "errors");
		dout_obj(d, NULL);
		dout_str(d, "error", text ? text : sl_strerror(code));
		dout_int(d, "errno", code);
		dout_end(d);
		dout_end(d);
		dout_end(d);
	}
	set_body(r, status, d);
}

int rest_status_of(int code)
{
	if (code < 0)
		code = -code;
	switch (code) {
	case 0:
		return 200;
	case ESLURM_REST_INVALID_QUERY:
		return 422;
	case ESLURM_REST_FAIL_PARSING:
	case ESLURM_REST_INVALID_JOBS_DESC:
		return 400;
	case ESLURM_REST_EMPTY_RESULT:
		return 404;
	case ESLURM_DATA_TOO_LARGE:
		return 413;
	case ESLURM_AUTH_CRED_INVALID:
		return 401;
	default:
		return 500;
	}
}
