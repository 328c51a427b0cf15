/* ep_job.c - POST job/submit, DELETE job/{id}, POST job/{id}: the body is
 * parsed (job_parse.c) and sent as sbatch, scancel and scontrol update
 * send it; the controller checks it as the request's user. */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "common/data_out.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/sig_name.h"
#include "common/sl_errno.h"
#include "ctld_call.h"
#include "endpoints.h"
#include "job_parse.h"
#include "reply.h"
#include "req_log.h"
#include "restd.h"

static void reply_rc(struct rest_req *r, int rc, const char *text)
{
	if (rc < 0) {
		rest_reply_error(r, rest_status_of(rc), rc, text && *text ? text : NULL);
		return;
	}
	rest_reply_doc(r, 200, rest_doc_new(false));
}

/* A job id as the path gives it: digits, or "N_M" for an array task. */
static bool job_id_ok(const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (n == 0 || n > 10)
		return false;
	if (!s[n])
		return true;
	return s[n] == '_' && strspn(s + n + 1, "0123456789") == strlen(s + n + 1) && s[n + 1]
	       && strlen(s + n + 1) <= 10;
}

/* What a shell would have given sbatch: the directory (the user's home,
 * never a shared one such as /tmp where slurm-<id>.out is a predictable
 * name anyone can create first) and the umask (0077: the output stays the
 * user's). -ESLURM_REST_INVALID_JOBS_DESC when the user has no home. */
static int submit_defaults(struct rest_req *r, struct job_desc *d, char *err, size_t errsz)
{
	static const char umask_var[] = "SLURM_UMASK=";
	struct passwd pw, *res = NULL;
	char buf[2048];
	char **env;

	if (!d->work_dir) {
		if (getpwuid_r(r->uid, &pw, buf, sizeof(buf), &res) != 0 || !res || !res->pw_dir
		    || res->pw_dir[0] != '/') {
			snprintf(err, errsz,
				 "current_working_directory: not given, and user "
				 "%u has no home directory to run in",
				 (unsigned)r->uid);
			return -ESLURM_REST_INVALID_JOBS_DESC;
		}
		if (!(d->work_dir = strdup(res->pw_dir)))
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < d->env_count; i++)
		if (d->env[i] && strncmp(d->env[i], umask_var, sizeof(umask_var) - 1) == 0)
			return 0;
	env = realloc(d->env, (d->env_count + 2) * sizeof(*env));
	if (!env)
		return -ENOMEM;
	d->env = env;
	env[d->env_count] = strdup("SLURM_UMASK=0077");
	if (!env[d->env_count])
		return -ENOMEM;
	env[++d->env_count] = NULL;
	return 0;
}

void ep_job_submit(struct rest_req *r)
{
	struct job_desc d;
	struct submit_response *resp = NULL;
	struct dout *o;
	char err[512];
	int rc;

	rc = job_parse_submit(r->body, r->body_len, &d, err, sizeof(err));
	if (rc == 0)
		rc = submit_defaults(r, &d, err, sizeof(err));
	if (rc == 0) {
		d.user_id = (uint32_t)r->uid;
		d.group_id = (uint32_t)r->gid;
		rc = ctld_call_fetch(r, REQUEST_SUBMIT_BATCH_JOB, &d, RESPONSE_SUBMIT_BATCH_JOB,
				     (void **)&resp);
		err[0] = '\0';
	}
	job_desc_done(&d);
	if (rc < 0) {
		req_log(LOG_LEVEL_INFO, "%s: job submit as %s refused: %s", r->peer, r->user,
			err[0] ? err : sl_strerror(rc));
		reply_rc(r, rc, err);
		return;
	}
	o = rest_doc_new(false);
	if (o) {
		dout_uint(o, "job_id", resp->job_id);
		dout_str(o, "step_id", "batch");
		dout_str(o, "job_submit_user_msg", resp->user_msg);
	}
	msg_free(msg_lookup(RESPONSE_SUBMIT_BATCH_JOB), resp);
	rest_reply_doc(r, 200, o);
}

/* ?signal=NAME (default KILL); anything else in the query is refused. */
static int cancel_signal(struct rest_req *r, uint16_t *ret)
{
	struct evkeyvalq q = { 0 };
	struct evkeyval *kv;
	int rc = 0;

	*ret = SIGKILL;
	if (!r->query || !*r->query)
		return 0;
	if (evhttp_parse_query_str(r->query, &q) < 0)
		return -ESLURM_REST_INVALID_QUERY;
	for (kv = q.tqh_first; kv; kv = kv->next.tqe_next) {
		int sig = strcasecmp(kv->key, "signal") == 0 ? sig_name2num(kv->value) : 0;

		if (!sig) {
			rc = -ESLURM_REST_INVALID_QUERY;
			break;
		}
		*ret = (uint16_t)sig;
	}
	evhttp_clear_headers(&q);
	return rc;
}

void ep_job_cancel(struct rest_req *r)
{
	struct kill_job_msg m = { .sjob_id = r->arg };
	int rc;

	if (!job_id_ok(r->arg)) {
		reply_rc(r, -ESLURM_INVALID_JOB_ID, NULL);
		return;
	}
	rc = cancel_signal(r, &m.signal);
	if (rc < 0) {
		reply_rc(r, rc, "Invalid signal");
		return;
	}
	rc = ctld_call_rc(r, REQUEST_KILL_JOB, &m);
	if (rc < 0)
		req_log(LOG_LEVEL_INFO, "%s: signal %u to job %s as %s refused: %s", r->peer,
			(unsigned)m.signal, r->arg, r->user, sl_strerror(rc));
	reply_rc(r, rc, NULL);
}

void ep_job_update(struct rest_req *r)
{
	struct update_job_msg m;
	char err[512];
	int rc;

	if (!job_id_ok(r->arg)) {
		reply_rc(r, -ESLURM_INVALID_JOB_ID, NULL);
		return;
	}
	rc = job_parse_update(r->body, r->body_len, r->arg, &m, err, sizeof(err));
	if (rc == 0) {
		rc = ctld_call_rc(r, REQUEST_UPDATE_JOB, &m);
		err[0] = '\0';
	}
	msg_lookup(REQUEST_UPDATE_JOB)->free(&m); /* the fields; m is on the stack */
	if (rc < 0)
		req_log(LOG_LEVEL_INFO, "%s: update of job %s as %s refused: %s", r->peer, r->arg,
			r->user, err[0] ? err : sl_strerror(rc));
	reply_rc(r, rc, err);
}
