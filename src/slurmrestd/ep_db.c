/* ep_db.c - GET /slurmdb/v0.0.38/jobs and /slurmdb/v0.0.38/job/{id}: the
 * accounting store through the controller (REQUEST_ACCT_QUERY, as sacct
 * asks), as the request's user, written as sacct --json writes it
 * (data_acct_jobs_doc). Query parameters of Slurm's that we take: users,
 * start_time, end_time (Unix seconds), job_name, partition, account, qos,
 * node, skip_steps; any other is refused (422) with its name. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "api/acct_client.h"
#include "common/conf.h"
#include "common/data_acct.h"
#include "common/data_out.h"
#include "common/frame.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "endpoints.h"
#include "reply.h"
#include "restd.h"

#define DB_USERS_MAX 256

static int free_strs(struct acct_query_req *q)
{
	char **s[] = { &q->job_ids, &q->uids, &q->accounts, &q->partitions,
		       &q->names,   &q->qos,  &q->nodes };

	for (size_t i = 0; i < ARRAY_SIZE(s); i++) {
		free(*s[i]);
		*s[i] = NULL;
	}
	return 0;
}

/* "alice,bob" -> "1001,1002"; -ENOENT (name in err) for an unknown user. */
static int users_to_uids(const char *names, char **ret, char *err, size_t errsz)
{
	_cleanup_free_ char *copy = strdup(names);
	char *save = NULL, *out;
	size_t len = 0, n = 0;

	if (!copy || !(out = calloc(1, DB_USERS_MAX * 11 + 1)))
		return -ENOMEM;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		struct passwd pw, *res = NULL;
		char buf[2048];

		if (++n > DB_USERS_MAX || getpwnam_r(w, &pw, buf, sizeof(buf), &res) != 0 || !res) {
			snprintf(err, errsz, "unknown user in users: %.64s", w);
			free(out);
			return -ENOENT;
		}
		len += (size_t)sprintf(out + len, "%s%u", len ? "," : "", (unsigned)res->pw_uid);
	}
	*ret = out;
	return 0;
}

static int set_time(const char *v, time_t *t)
{
	char *end = NULL;
	long long n = strtoll(v, &end, 10);

	if (!*v || *end || n < 0)
		return -EINVAL;
	*t = (time_t)n;
	return 0;
}

static int query_param(struct acct_query_req *q, const char *k, const char *v, char *err,
		       size_t errsz)
{
	static const struct {
		const char *name;
		size_t off;
	} strs[] = {
	    { "job_name", offsetof(struct acct_query_req, names) },
	    { "partition", offsetof(struct acct_query_req, partitions) },
	    { "account", offsetof(struct acct_query_req, accounts) },
	    { "qos", offsetof(struct acct_query_req, qos) },
	    { "node", offsetof(struct acct_query_req, nodes) },
	};

	for (size_t i = 0; i < ARRAY_SIZE(strs); i++) {
		char **dst = (char **)((char *)q + strs[i].off);

		if (strcasecmp(k, strs[i].name) != 0)
			continue;
		free(*dst);
		*dst = strdup(v);
		return *dst ? 0 : -ENOMEM;
	}
	if (strcasecmp(k, "users") == 0) {
		free(q->uids);
		q->uids = NULL;
		return users_to_uids(v, &q->uids, err, errsz);
	}
	if (strcasecmp(k, "skip_steps") == 0) {
		q->flags |= strcasecmp(v, "false") && strcmp(v, "0") ? ACCT_Q_NO_STEPS : 0;
		return 0;
	}
	if ((strcasecmp(k, "start_time") == 0 && set_time(v, &q->start) == 0)
	    || (strcasecmp(k, "end_time") == 0 && set_time(v, &q->end) == 0))
		return 0;
	snprintf(err, errsz, "unknown or invalid query parameter %.64s", k);
	return -EINVAL;
}

static int parse_query(struct rest_req *r, struct acct_query_req *q, char *err, size_t errsz)
{
	struct evkeyvalq kv = { 0 };
	struct evkeyval *p;
	int rc = 0;

	if (!r->query || !*r->query)
		return 0;
	if (evhttp_parse_query_str(r->query, &kv) < 0) {
		snprintf(err, errsz, "malformed query");
		return -EINVAL;
	}
	for (p = kv.tqh_first; p && rc == 0; p = p->next.tqe_next)
		rc = query_param(q, p->key, p->value, err, errsz);
	evhttp_clear_headers(&kv);
	return rc;
}

static void db_jobs(struct rest_req *r, const char *job_id)
{
	struct frame_as as = { .uid = r->uid, .gid = r->gid };
	struct acct_query_req q = { .flags = ACCT_Q_ALL_USERS };
	struct acct_rows rows = { 0 };
	struct dout *d;
	char err[160] = "";
	int rc = 0;

	if (job_id && !(q.job_ids = strdup(job_id)))
		rc = -ENOMEM;
	if (rc == 0 && !job_id)
		rc = parse_query(r, &q, err, sizeof(err));
	if (rc < 0) {
		free_strs(&q);
		rest_reply_error(r, rc == -ENOMEM ? 500 : 422,
				 rc == -ENOMEM ? ENOMEM : ESLURM_REST_INVALID_QUERY, err);
		return;
	}
	if (q.uids)
		q.flags &= ~(uint32_t)ACCT_Q_ALL_USERS;
	rc = acct_client_fetch_as(r->rd->conf, &as, &q, &rows);
	free_strs(&q);
	if (rc < 0) {
		rest_reply_error(r, rest_status_of(rc), rc, NULL);
		return;
	}
	d = dout_new(DOUT_JSON);
	if (d)
		data_acct_jobs_doc(d, r->rd->conf->cluster_name, rows.jobs, rows.count,
				   !(q.flags & ACCT_Q_NO_STEPS), 0, NULL);
	acct_rows_done(&rows);
	rest_reply_written(r, d);
}

void ep_db_jobs(struct rest_req *r)
{
	db_jobs(r, NULL);
}

void ep_db_job(struct rest_req *r)
{
	if (strspn(r->arg, "0123456789_") != strlen(r->arg) || strlen(r->arg) > 21) {
		rest_reply_error(r, 500, ESLURM_INVALID_JOB_ID, NULL);
		return;
	}
	db_jobs(r, r->arg);
}
