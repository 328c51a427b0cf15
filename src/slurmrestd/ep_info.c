/* ep_info.c - GET ping, diag, jobs, job/{id}, nodes, node/{name},
 * partitions, partition/{name} and the OpenAPI spec. The documents are the
 * ones squeue/sinfo/scontrol/sdiag --json print (src/common/data_*.h);
 * the controller answers as the request's user, so PrivateData and the
 * other visibility rules are its own. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/job_fetch.h"
#include "common/conf.h"
#include "common/data_diag.h"
#include "common/data_job.h"
#include "common/data_node.h"
#include "common/data_out.h"
#include "common/data_part.h"
#include "common/data_spec.h"
#include "common/frame.h"
#include "common/msg.h"
#include "common/msg_stats.h"
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

/* The reply of type want, or the error answered to the client. */
static int fetch(struct rest_req *r, uint16_t type, const void *req, uint16_t want, void **ret)
{
	int rc = ctld_call_fetch(r, type, req, want, ret);

	if (rc < 0)
		rest_reply_error(r, rest_status_of(rc), rc, NULL);
	return rc;
}

void ep_diag(struct rest_req *r)
{
	struct stats_info_req req = { .command = 0 };
	struct stats_info_msg *m = NULL;
	struct dout *d;

	if (fetch(r, REQUEST_STATS_INFO, &req, RESPONSE_STATS_INFO, (void **)&m) < 0)
		return;
	d = dout_new(DOUT_JSON);
	if (d)
		data_diag_doc(d, m, 0, NULL);
	msg_free(msg_lookup(RESPONSE_STATS_INFO), m);
	rest_reply_written(r, d);
}

static void jobs(struct rest_req *r, char *ids)
{
	struct frame_as as = { .uid = r->uid, .gid = r->gid };
	struct job_info_req req = { .job_ids = ids };
	struct job_info_msg *m = NULL;
	struct dout *d;
	int rc = job_fetch_all_as(r->rd->conf, &as, &req, &m);

	if (rc == 0 && ids && !m->count) { /* none, or none this user may see */
		msg_free(msg_lookup(RESPONSE_JOB_INFO), m);
		rc = -ESLURM_INVALID_JOB_ID;
	}
	if (rc < 0) {
		rest_reply_error(r, rest_status_of(rc), rc, NULL);
		return;
	}
	d = dout_new(DOUT_JSON);
	if (d)
		data_jobs_doc(d, m, NULL, NULL, 0, NULL);
	msg_free(msg_lookup(RESPONSE_JOB_INFO), m);
	rest_reply_written(r, d);
}

void ep_jobs(struct rest_req *r)
{
	jobs(r, NULL);
}

void ep_job(struct rest_req *r)
{
	size_t n = strspn(r->arg, "0123456789");

	if (n == 0 || n > 10 || (r->arg[n] && (r->arg[n] != '_' || !r->arg[n + 1]
					       || strspn(r->arg + n + 1, "0123456789")
						      != strlen(r->arg + n + 1)))) {
		rest_reply_error(r, 500, ESLURM_INVALID_JOB_ID, NULL);
		return;
	}
	jobs(r, r->arg);
}

static bool node_named(const struct node_info *n, void *arg)
{
	return n->name && strcmp(n->name, arg) == 0;
}

static void nodes(struct rest_req *r, const char *name)
{
	struct node_info_req req = { .node_name = (char *)name };
	struct node_info_msg *m = NULL;
	struct dout *d;

	if (fetch(r, REQUEST_NODE_INFO, &req, RESPONSE_NODE_INFO, (void **)&m) < 0)
		return;
	if (name && !m->count) {
		msg_free(msg_lookup(RESPONSE_NODE_INFO), m);
		rest_reply_error(r, 500, ESLURM_INVALID_NODE_NAME, NULL);
		return;
	}
	d = dout_new(DOUT_JSON);
	if (d)
		data_nodes_doc(d, m, name ? node_named : NULL, (void *)name, 0, NULL);
	msg_free(msg_lookup(RESPONSE_NODE_INFO), m);
	rest_reply_written(r, d);
}

void ep_nodes(struct rest_req *r)
{
	nodes(r, NULL);
}

void ep_node(struct rest_req *r)
{
	nodes(r, r->arg);
}

static bool part_named(const struct part_info *p, void *arg)
{
	return p->name && strcmp(p->name, arg) == 0;
}

static void parts(struct rest_req *r, const char *name)
{
	struct part_info_req req = { 0 };
	struct part_info_msg *m = NULL;
	struct dout *d;
	bool found = !name;

	if (fetch(r, REQUEST_PARTITION_INFO, &req, RESPONSE_PARTITION_INFO, (void **)&m) < 0)
		return;
	for (uint32_t i = 0; !found && i < m->count; i++)
		found = part_named(&m->parts[i], (void *)name);
	if (!found) {
		msg_free(msg_lookup(RESPONSE_PARTITION_INFO), m);
		rest_reply_error(r, 500, ESLURM_INVALID_PARTITION_NAME, NULL);
		return;
	}
	d = dout_new(DOUT_JSON);
	if (d)
		data_parts_doc(d, m, name ? part_named : NULL, (void *)name, 0, NULL);
	msg_free(msg_lookup(RESPONSE_PARTITION_INFO), m);
	rest_reply_written(r, d);
}

void ep_parts(struct rest_req *r)
{
	parts(r, NULL);
}

void ep_part(struct rest_req *r)
{
	parts(r, r->arg);
}

void ep_openapi(struct rest_req *r)
{
	struct dout *d = dout_new(DOUT_JSON);

	if (d)
		data_openapi_v0038(d);
	rest_reply_written(r, d);
}
