/* scontrol_job.c - scontrol's job verbs (see scontrol_job.h).
 *
 * Purpose: what scontrol does for "show job", "hold", "uhold", "release",
 * "requeue[hold]" and "update JobId=...": expand the job id argument the
 * way scontrol's _is_job_id()/_next_job_id() do, send one
 * REQUEST_UPDATE_JOB or REQUEST_JOB_REQUEUE per id, and print
 * "<strerror> for job <id>" for each one that fails.
 * Hold is priority 0 (hold_user set for uhold: JobHeldUser; a plain hold
 * is JobHeldAdmin when the controller sees an operator, JobHeldUser
 * otherwise); release is priority INFINITE.
 */
#include "cli/scontrol_job.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/job_fetch.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/scontrol_show.h"
#include "common/hostlist.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_time.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* ---- job id expressions ---- */

/* Slurm's _is_job_id(): the characters, one '_' and '+' per id, '-' only
 * in brackets or after the '_', brackets balanced. */
static bool ids_valid(const char *s)
{
	bool plus = false, under = false;
	int depth = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		if (*s == '+') {
			if (plus)
				return false;
			plus = true;
		} else if (*s == '_') {
			if (under)
				return false;
			under = true;
		} else if (*s == '[' || *s == ']') {
			depth += *s == '[' ? 1 : -1;
		} else if (*s == '-') {
			if (!depth && !under)
				return false;
		} else if (*s == ',' || *s == ' ') {
			if (!depth)
				plus = under = false;
		} else if (*s < '0' || *s > '9') {
			return false;
		}
	}
	return depth == 0;
}

static int push(char ***v, size_t *n, const char *job, size_t len, const char *task)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));
	int w;

	if (!nv)
		return -ENOMEM;
	*v = nv;
	w = task ? asprintf(&nv[*n], "%.*s_%s", (int)len, job, task)
		 : asprintf(&nv[*n], "%.*s", (int)len, job);
	if (w < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* One id of the list: "[12-14]_3" expands the jobs, "12_[1-3]" strips
 * the task brackets. */
static int expand_one(const char *tok, char ***v, size_t *n)
{
	const char *under = strchr(tok, '_'), *br = strchr(tok, '[');
	char *task = NULL, *job = NULL;
	struct hostlist *hl = NULL;
	int r = 0;

	if (under)
		task = strndup(under + 1 + (under[1] == '['),
			       strcspn(under + 1, "]") - (under[1] == '['));
	if (under && !task)
		return -ENOMEM;
	if (br && (!under || br < under)) {
		job = strndup(tok, under ? (size_t)(under - tok) : strlen(tok));
		r = !job ? -ENOMEM : hostlist_new(job, &hl) < 0 ? -EINVAL : 0;
		for (size_t i = 0; r == 0 && i < hostlist_count(hl); i++)
			r = push(v, n, hostlist_nth(hl, i), strlen(hostlist_nth(hl, i)), task);
		if (r == 0 && !hostlist_count(hl))
			r = -EINVAL;
	} else {
		r = push(v, n, tok, under ? (size_t)(under - tok) : strlen(tok), task);
	}
	hostlist_free(hl);
	free(job);
	free(task);
	return r;
}

void scontrol_job_ids_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int scontrol_job_ids(const char *s, char ***ret, size_t *ret_n)
{
	char **v = NULL;
	size_t n = 0;
	int r = ids_valid(s) ? 0 : -EINVAL;

	for (const char *p = s; r == 0 && *p;) {
		size_t len = 0;
		int depth = 0;
		char *tok;

		while (p[len] && (depth || (p[len] != ',' && p[len] != ' ')))
			depth += (p[len] == '[') - (p[len] == ']'), len++;
		if (len) {
			tok = strndup(p, len);
			r = tok ? expand_one(tok, &v, &n) : -ENOMEM;
			free(tok);
		}
		p += len + (p[len] != '\0');
	}
	if (r == 0 && n == 0)
		r = -EINVAL;
	if (r < 0) {
		scontrol_job_ids_free(v, n);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

bool scontrol_job_id_valid(const char *s)
{
	return s && *s && strspn(s, "0123456789_+") == strlen(s);
}

/* ---- show job ---- */

static bool task_in(const struct job_info *j, uint32_t task)
{
	return task == NO_VAL || j->array_task_id == task || fmt_idset_has(j->array_task_str, task);
}

int scontrol_job_print(FILE *out, const struct job_info_msg *m, const char *id,
		       const struct scontrol_show_opts *o, int quiet)
{
	uint32_t job = 0, task = NO_VAL, shown = 0;
	char *end = NULL;
	bool known = !id;

	if (id) {
		job = (uint32_t)strtoul(id, &end, 10);
		if (*end == '_')
			task = (uint32_t)strtoul(end + 1, &end, 10);
	}
	for (uint32_t i = 0; i < m->count && !known; i++)
		known = m->jobs[i].job_id == job || m->jobs[i].array_job_id == job;
	if (!known)
		return -ESLURM_INVALID_JOB_ID; /* what slurm_load_job() answers */
	for (uint32_t i = 0; i < m->count; i++) {
		struct job_info j = m->jobs[i];

		if (id
		    && ((j.job_id != job && j.array_job_id != job) || *end == '+'
			|| !task_in(&j, task)))
			continue;
		if (task != NO_VAL && j.array_task_str) { /* one task of the meta record */
			j.array_task_str = NULL;
			j.array_task_id = task;
		}
		scontrol_show_job(out, &j, o);
		shown++;
	}
	if (shown || quiet == 1)
		return shown || !id ? 0 : -ENOENT;
	if (!id) {
		fprintf(out, "No jobs in the system\n");
		return 0;
	}
	if (task == NO_VAL)
		fprintf(out, "Job %u not found\n", job);
	else
		fprintf(out, "Job %u_%u not found\n", job, task);
	return -ENOENT;
}

/* ---- sending ---- */

static struct update_job_msg update_reset(void)
{
	return (struct update_job_msg){
	    .time_limit = NO_VAL,
	    .min_nodes = NO_VAL,
	    .max_nodes = NO_VAL,
	    .nice = NO_VAL,
	    .priority = NO_VAL,
	};
}

static int invalid_id(const char *arg, int quiet)
{
	if (quiet != 1)
		fprintf(stderr, "%s for job %s\n", sl_strerror(ESLURM_INVALID_JOB_ID), arg);
	return ESLURM_INVALID_JOB_ID;
}

/* One request per id of arg; "<strerror> for job <id>" for each failure. */
static int send_each(const struct sl_conf *conf, uint16_t type, struct update_job_msg *m,
		     const char *arg, int quiet)
{
	char **ids = NULL;
	size_t n = 0;
	int worst = 0;

	if (scontrol_job_ids(arg, &ids, &n) < 0)
		return invalid_id(arg, quiet);
	for (size_t i = 0; i < n; i++) {
		int r;

		m->sjob_id = ids[i];
		r = rpc_call_ctld_rc(conf, type, m);
		if (r == 0)
			continue;
		worst = MAX(worst, -r);
		if (quiet != 1) {
			fflush(stdout);
			fprintf(stderr, "%s for job %s\n", sl_strerror(r), ids[i]);
		}
	}
	m->sjob_id = NULL;
	scontrol_job_ids_free(ids, n);
	return worst;
}

static int load_jobs(const struct sl_conf *conf, struct job_info_msg **ret)
{
	struct job_info_req req = {.show_flags = 0};

	return job_fetch_all(conf, &req, ret);
}

static void jobs_free(struct job_info_msg *m)
{
	msg_free(msg_lookup(RESPONSE_JOB_INFO), m);
}

/* "12", "12_3" or "12_[3-5]" for a record, as scontrol names it. */
static char *id_of(const struct job_info *j)
{
	char *s = NULL;
	int w;

	if (j->array_task_str)
		w = asprintf(&s, "%u_%s", j->array_job_id, j->array_task_str);
	else if (j->array_job_id && j->array_task_id != NO_VAL)
		w = asprintf(&s, "%u_%u", j->array_job_id, j->array_task_id);
	else
		w = asprintf(&s, "%u", j->job_id);
	return w < 0 ? NULL : s;
}

static const char *strip_job_prefix(const char *arg)
{
	if (!strncasecmp(arg, "JobID=", 6))
		arg += 6;
	if (!strncasecmp(arg, "Job=", 4))
		arg += 4;
	return arg;
}

/* hold Name=x: every job of that name (pending, or the array's meta). */
static int hold_by_name(const struct sl_conf *conf, struct update_job_msg *m, const char *name,
			int quiet)
{
	struct job_info_msg *jm = NULL;
	int worst = 0, r = load_jobs(conf, &jm);

	if (r < 0) {
		if (quiet == -1)
			cli_perror("slurm_load_job error", r);
		return -r;
	}
	for (uint32_t i = 0; i < jm->count; i++) {
		const struct job_info *j = &jm->jobs[i];
		char *id;

		if (!j->name || strcmp(j->name, name))
			continue;
		if ((j->job_state & JOB_STATE_BASE) != JOB_PENDING) {
			if (j->array_job_id && j->array_task_id != NO_VAL)
				continue;
			worst = MAX(worst, ESLURM_JOB_NOT_PENDING);
		}
		if (!(id = id_of(j)))
			continue;
		worst = MAX(worst, send_each(conf, REQUEST_UPDATE_JOB, m, id, quiet));
		free(id);
	}
	jobs_free(jm);
	return worst;
}

int scontrol_job_hold(const struct sl_conf *conf, const char *op, const char *arg, int quiet)
{
	struct update_job_msg m = update_reset();

	arg = strip_job_prefix(arg);
	if (!strncasecmp(op, "holdu", 5) || !strncasecmp(op, "uhold", 5))
		m.priority = 0, m.hold_user = 1;
	else if (!strncasecmp(op, "hold", 4))
		m.priority = 0;
	else
		m.priority = INFINITE;
	if (ids_valid(arg))
		return send_each(conf, REQUEST_UPDATE_JOB, &m, arg, quiet);
	if (!strncasecmp(arg, "Name=", 5))
		return hold_by_name(conf, &m, arg + 5, quiet);
	if (!strncasecmp(arg, "JobName=", 8))
		return hold_by_name(conf, &m, arg + 8, quiet);
	return invalid_id(arg, quiet);
}

bool scontrol_job_requeue_flag(const char *word)
{
	size_t len = strlen(word);

	if (len && !strncasecmp(word, "incomplete", len))
		return true;
	return !strncasecmp(word, "state=", 6)
	       && (!strncasecmp(word + 6, "specialexit", 11) || !strncasecmp(word + 6, "se", 2));
}

int scontrol_job_requeue(const struct sl_conf *conf, bool hold, const char *arg, int quiet)
{
	struct update_job_msg m = update_reset();

	if (!*arg)
		return -EINVAL;
	arg = strip_job_prefix(arg);
	m.requeue_op = hold ? 2 : 1;
	if (!ids_valid(arg))
		return invalid_id(arg, quiet);
	return send_each(conf, REQUEST_JOB_REQUEUE, &m, arg, quiet);
}

/* ---- update JobId=... ---- */

static bool key_is(const char *tag, size_t len, const char *key, size_t min)
{
	return len >= 1 && !strncasecmp(tag, key, MAX(len, min)) && len <= strlen(key);
}

static int bad(const char *what, const char *val)
{
	if (val)
		cli_error("Invalid %s value: %s", what, val);
	else
		cli_error("Invalid %s value", what);
	return -EINVAL;
}

/* One "Key=value" (or "Key value") pair; returns 0 or -EINVAL. */
static int update_word(const char *tag, size_t len, const char *val, int sign,
		       struct update_job_msg *m, int *delta, const char **ids)
{
	char *end;

	if (key_is(tag, len, "JobId", 3)) {
		*ids = val;
		return 0;
	}
	if (key_is(tag, len, "TimeLimit", 5)) {
		if (val[0] == '+' || val[0] == '-') {
			if (sign) {
				cli_error("Invalid syntax, variations of +=- are not accepted.");
				return -EINVAL;
			}
			sign = val[0] == '+' ? 1 : -1;
			val++;
		}
		if (time_str2mins(val, &m->time_limit) < 0)
			return bad("TimeLimit", NULL);
		*delta = sign;
		return 0;
	}
	if (sign) {
		cli_error("Option %.*s does not accept [+|-]= syntax", (int)len, tag);
		return -EINVAL;
	}
	if (key_is(tag, len, "Priority", 2)) {
		unsigned long long p = strtoull(val, &end, 10);

		if (!*val || *end || p > UINT32_MAX)
			return bad("Priority", val);
		m->priority = (uint32_t)p;
	} else if (key_is(tag, len, "Nice", 2)) {
		long long n = strtoll(val, NULL, 10);

		if (llabs(n) > (long long)NICE_OFFSET - 3) {
			cli_error("Nice value out of range (+/- %u). Value ignored",
				  NICE_OFFSET - 3);
			return -EINVAL;
		}
		m->nice = (uint32_t)(NICE_OFFSET + n);
	} else if (key_is(tag, len, "ReqNodes", 8) || key_is(tag, len, "NumNodes", 8)) {
		if (!strcasecmp(val, "ALL")) {
			m->min_nodes = INFINITE;
		} else {
			unsigned long lo = strtoul(val, &end, 10), hi = NO_VAL;

			if (*end == '-')
				hi = strtoul(end + 1, &end, 10);
			if (end == val || *end || (hi != NO_VAL && hi < lo))
				return bad("NumNodes", val);
			m->min_nodes = (uint32_t)lo;
			m->max_nodes = (uint32_t)hi;
		}
	} else if (key_is(tag, len, "Partition", 2)) {
		m->partition = (char *)val;
	} else if (key_is(tag, len, "Account", 1)) {
		m->account = (char *)val;
	} else if (key_is(tag, len, "QOS", 1)) {
		m->qos = (char *)val;
	} else if (key_is(tag, len, "Name", 2) || key_is(tag, len, "JobName", 4)) {
		m->name = (char *)val;
	} else {
		return 1; /* not something this build can update */
	}
	return 0;
}

int scontrol_job_update_parse(int argc, char **argv, struct update_job_msg *m, int *ret_delta,
			      const char **ret_ids)
{
	const char *ids = NULL;
	int changes = 0, delta = 0;

	*m = update_reset();
	for (int i = 0; i < argc; i++) {
		const char *tag = argv[i], *eq = strchr(tag, '='), *val;
		size_t len = eq ? (size_t)(eq - tag) : strlen(tag);
		int sign = 0, r;

		if (eq && len && (eq[-1] == '+' || eq[-1] == '-'))
			sign = eq[-1] == '+' ? 1 : -1, len--;
		if (eq) {
			val = eq + 1;
		} else if (key_is(tag, len, "Nice", 2)) {
			m->nice = NICE_OFFSET + 100;
			changes++;
			continue;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			fprintf(stderr, "Invalid input: %s\nRequest aborted\n", argv[i]);
			return -EINVAL;
		}
		r = update_word(tag, len, val, sign, m, &delta, &ids);
		if (r < 0)
			return r;
		if (r > 0) {
			fprintf(stderr, "Update of this parameter is not supported: %s\n", argv[i]);
			fprintf(stderr, "Request aborted\n");
			return -EINVAL;
		}
		changes += !key_is(tag, len, "JobId", 3);
	}
	if (!changes) {
		fprintf(stderr, "No changes specified\n");
		return -EINVAL;
	}
	*ret_delta = delta;
	*ret_ids = ids;
	return 0;
}

static const struct job_info *find_job(const struct job_info_msg *jm, const char *id)
{
	char *end;
	uint32_t job = (uint32_t)strtoul(id, &end, 10), task = NO_VAL;

	if (*end == '_')
		task = (uint32_t)strtoul(end + 1, &end, 10);
	for (uint32_t i = 0; i < jm->count; i++) {
		const struct job_info *j = &jm->jobs[i];

		if (task == NO_VAL ? j->job_id == job && !j->array_task_str
				   : j->array_job_id == job && task_in(j, task))
			return j;
	}
	return NULL;
}

/* TimeLimit=+N/-N against the job's current limit. */
static int apply_delta(const struct sl_conf *conf, struct update_job_msg *m, int delta,
		       const char *ids)
{
	struct job_info_msg *jm = NULL;
	const struct job_info *j;
	int r;

	if (!ids) {
		cli_error("JobId must precede TimeLimit increment or decrement");
		return -EINVAL;
	}
	if ((r = load_jobs(conf, &jm)) < 0) {
		cli_error("Could not load state information for job %s: %s", ids, sl_strerror(r));
		return -EINVAL;
	}
	j = find_job(jm, ids);
	if (!j) {
		cli_error("Job ID %s not found", ids);
		r = -EINVAL;
	} else if (delta > 0) {
		m->time_limit += j->time_limit;
	} else if (m->time_limit > j->time_limit) {
		cli_error("TimeLimit decrement larger than current time limit (%u > %u)",
			  m->time_limit, j->time_limit);
		r = -EINVAL;
	} else {
		m->time_limit = j->time_limit - m->time_limit;
	}
	jobs_free(jm);
	return r;
}

/* Name= without JobId=: every job of that name ("12,13_4"). */
static char *ids_by_name(const struct sl_conf *conf, const char *name)
{
	struct job_info_msg *jm = NULL;
	char *all = NULL, *id, *s;

	if (load_jobs(conf, &jm) < 0) {
		cli_error("Could not load state information: %s",
			  sl_strerror(ESLURM_INVALID_JOB_ID));
		return NULL;
	}
	for (uint32_t i = 0; i < jm->count; i++) {
		const struct job_info *j = &jm->jobs[i];

		if (!j->name || strcmp(j->name, name) || !(id = id_of(j)))
			continue;
		if (asprintf(&s, "%s%s%s", all ? all : "", all ? "," : "", id) < 0)
			s = NULL;
		free(all);
		free(id);
		all = s;
	}
	jobs_free(jm);
	if (!all)
		cli_error("No jobs with name \'%s\'", name);
	return all;
}

int scontrol_job_update(const struct sl_conf *conf, int argc, char **argv, int quiet)
{
	struct update_job_msg m;
	const char *ids = NULL;
	char *by_name = NULL;
	int delta = 0, r;

	if (scontrol_job_update_parse(argc, argv, &m, &delta, &ids) < 0)
		return -EINVAL;
	if (!ids && m.name && !(ids = by_name = ids_by_name(conf, m.name)))
		return -EINVAL;
	if (!ids) {
		cli_error("No job ID specified");
		return -EINVAL;
	}
	r = delta ? apply_delta(conf, &m, delta, ids) : 0;
	if (r == 0)
		r = send_each(conf, REQUEST_UPDATE_JOB, &m, ids, quiet);
	free(by_name);
	return r;
}
