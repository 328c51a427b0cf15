/* ep_info.c - GET ping, and the listings. The listings' JSON (jobs, nodes,
 * partitions, diag, slurmdb jobs) and the OpenAPI spec come from the
 * shared serializers in src/common (data_*.h); until those are in, the
 * endpoints answer 501 with an error that says so. */
#include <errno.h>
#include <stdlib.h>

#include "common/conf.h"
#include "common/data_out.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld_call.h"
#include "endpoints.h"
#include "reply.h"
#include "restd.h"

void ep_ping(struct rest_req *r)
{
	const struct sl_conf *conf = r->rd->conf;
	struct empty_msg m = { 0 };
	struct dout *o;
	int rc = ctld_call_rc(r, REQUEST_PING, &m);

	o = rest_doc_new(false);
	if (!o) {
		rest_reply_error(r, 500, ENOMEM, NULL);
		return;
	}
	dout_arr(o, "pings");
	dout_obj(o, NULL);
	dout_str(o, "hostname", conf->control_machine);
	dout_str(o, "ping", rc == 0 ? "UP" : "DOWN");
	dout_int(o, "status", rc < 0 ? -rc : 0);
	dout_str(o, "mode", "primary");
	dout_end(o);
	dout_end(o);
	rest_reply_doc(r, 200, o);
}

static void not_yet(struct rest_req *r)
{
	rest_reply_error(r, 501, ESLURM_NOT_SUPPORTED,
			 "this endpoint's JSON output is not built into slurmrestd yet");
}

void ep_diag(struct rest_req *r) { not_yet(r); }
void ep_jobs(struct rest_req *r) { not_yet(r); }
void ep_job(struct rest_req *r) { not_yet(r); }
void ep_nodes(struct rest_req *r) { not_yet(r); }
void ep_node(struct rest_req *r) { not_yet(r); }
void ep_parts(struct rest_req *r) { not_yet(r); }
void ep_part(struct rest_req *r) { not_yet(r); }
void ep_db_jobs(struct rest_req *r) { not_yet(r); }
void ep_db_job(struct rest_req *r) { not_yet(r); }
void ep_openapi(struct rest_req *r) { not_yet(r); }
