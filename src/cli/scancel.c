/* scancel.c - the scancel command: cancel or signal jobs, as Slurm 22.05.
 *
 * Purpose: turn ids ("12", "12_3", "12_[1-3]", "12_*") and filters (-u -p
 * -t -n -w -A -q) into one REQUEST_KILL_JOB per job.
 * Action: with ids only (and no -s, -b, -i or filter) every id is sent as
 * written; otherwise the job list is loaded, the ids are checked against
 * it ("Kill job error on job id N: Invalid job id specified"), the filters
 * select, and pending jobs are cancelled before running ones.
 * Exit status: Slurm's scancel exits with the worst error code it got,
 * which the shell sees modulo 256: ESLURM_ACCESS_DENIED (2002) gives 210.
 * An unknown or finished job is no error for a plain cancel (SIGKILL) and
 * is reported only with -v.
 * Steps ("12.1", "12_3.1"): the job list is loaded to find the step's
 * job, then one REQUEST_CANCEL_JOB_STEP per step ("Kill job error on job
 * step id 12.5: ..."; a finished step is no error for a plain cancel).
 * Caveat: -M, --sibling, --wckey and -R select nothing here.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "api/id_name.h"
#include "api/job_fetch.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/job_states.h"
#include "common/msg.h"
#include "common/rpc_client.h"
#include "common/sig_name.h"
#include "common/sl_errno.h"

#define STATE_UNSET    0xffffffffu
#define CANCEL_RETRIES 10
#define OPT_HELP       0x100
#define OPT_USAGE      0x101
#define OPT_IGNORED    0x102

/* One id of the command line: job, array task (NO_VAL none, INFINITE "*"),
 * step (NO_VAL: the job itself). */
struct cancel_id {
	uint32_t job, task, step;
	bool found, pending;
};

struct scancel {
	const char *account, *name, *partition, *qos, *user, *nodes;
	uint32_t uid, state;
	uint16_t signal; /* NO_VAL16: cancel */
	bool batch, full, hurry, interactive, filters;
	int verbose; /* -1 -Q, 0, >0 -v */
	char **strs; /* the ids as written, commas split */
	size_t n_strs;
	struct cancel_id *ids;
	size_t n_ids;
	const struct sl_conf *conf;
	int rc; /* worst error code */
};

static void verbose_msg(const struct scancel *c, const char *fmt, ...) _printf_(2, 3);
static void verbose_msg(const struct scancel *c, const char *fmt, ...)
{
	va_list ap;

	if (c->verbose <= 0)
		return;
	fflush(stdout);
	fprintf(stderr, "%s: ", cli_prog());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int add_id(struct scancel *c, uint32_t job, uint32_t task, uint32_t step)
{
	struct cancel_id *v = realloc(c->ids, (c->n_ids + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	c->ids = v;
	v[c->n_ids++] = (struct cancel_id){job, task, step, false, false};
	return 0;
}

/* "12_[1-3]": every task of the bracket list. */
static int add_task_list(struct scancel *c, uint32_t job, const char *br)
{
	struct hostlist *hl = NULL;
	int r = hostlist_new(br, &hl);

	for (size_t i = 0; r == 0 && i < hostlist_count(hl); i++)
		r = add_id(c, job, (uint32_t)strtoul(hostlist_nth(hl, i), NULL, 10), NO_VAL);
	hostlist_free(hl);
	return r;
}

static int bad_id(const char *arg)
{
	cli_error("Invalid job id %s", arg);
	return -EINVAL;
}

static int add_str(struct scancel *c, const char *s, size_t len)
{
	char **v = realloc(c->strs, (c->n_strs + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	c->strs = v;
	if (!(v[c->n_strs] = strndup(s, len)))
		return -ENOMEM;
	c->n_strs++;
	return 0;
}

/* Slurm's _xlate_job_step_ids() for one argument; ",more" goes on. */
static int parse_id(struct scancel *c, const char *arg)
{
	while (*arg) {
		char *end;
		long job = strtol(arg, &end, 10), n;
		uint32_t task = NO_VAL, step = NO_VAL;
		size_t len;

		if (job <= 0 || job >= (long)NO_VAL)
			return bad_id(arg);
		if (end[0] == '_' && end[1] == '[') {
			char *close = strchr(end, ']');

			if (!close || close[1] || add_task_list(c, (uint32_t)job, end + 1) < 0)
				return bad_id(arg);
			len = strlen(arg);
		} else {
			if (end[0] == '_' && end[1] == '*') {
				task = INFINITE;
				end += 2;
			} else if (end[0] == '_' || end[0] == '+') { /* '+': a het offset */
				bool is_task = end[0] == '_';

				n = strtol(end + 1, &end, 10);
				if (n < 0)
					return bad_id(arg);
				task = is_task ? (uint32_t)n : NO_VAL;
			}
			if (*end == '.') {
				n = strtol(end + 1, &end, 10);
				if (n < 0)
					return bad_id(arg);
				step = (uint32_t)n;
			}
			if (*end && *end != ',')
				return bad_id(arg);
			if (add_id(c, (uint32_t)job, task, step) < 0)
				return -ENOMEM;
			len = (size_t)(end - arg);
		}
		if (add_str(c, arg, len) < 0)
			return -ENOMEM;
		arg += len + (arg[len] == ',');
	}
	return 0;
}

/* ---- one kill request ---- */

static void cancel_one(struct scancel *c, const char *id)
{
	bool sig_set = c->signal != NO_VAL16;
	struct kill_job_msg m = {.sjob_id = (char *)id, .signal = sig_set ? c->signal : SIGKILL};
	const char *type = "";
	int r = 0, code;

	if (c->batch)
		m.flags |= KILL_JOB_BATCH, type = "batch ";
	if (c->full)
		m.flags |= KILL_FULL_JOB, type = "full ";
	if (c->hurry)
		m.flags |= KILL_HURRY;
	if (sig_set)
		verbose_msg(c, "Signal %u to %sjob %s", m.signal, type, id);
	else
		verbose_msg(c, "Terminating %sjob %s", type, id);
	for (int i = 0; i < CANCEL_RETRIES; i++) {
		r = rpc_call_ctld_rc(c->conf, REQUEST_KILL_JOB, &m);
		if (r != -ESLURM_TRANSITION_STATE_NO_UPDATE)
			break;
		verbose_msg(c, "Job is in transistional state, retrying");
		sleep((unsigned)(5 + i));
	}
	if (r == 0)
		return;
	code = -r;
	if (c->verbose > 0 || (code != ESLURM_ALREADY_DONE && code != ESLURM_INVALID_JOB_ID))
		cli_error("Kill job error on job id %s: %s", id, sl_strerror(code));
	if ((code == ESLURM_ALREADY_DONE || code == ESLURM_INVALID_JOB_ID) && m.signal == SIGKILL)
		code = 0; /* the job is gone already: that is what was asked */
	if (code > c->rc)
		c->rc = code;
}

/* Slurm's _cancel_step_id(): job_id is the step's own job (an array
 * task's record), id the step as the user names it ("12_3.1"). */
static void cancel_step(struct scancel *c, uint32_t job_id, uint32_t step_id, const char *id)
{
	struct step_signal_msg m = {.job_id = job_id, .step_id = step_id, .signal = SIGKILL};
	int r = 0, code;

	if (c->signal != NO_VAL16)
		m.signal = c->signal;
	for (int i = 0; i < CANCEL_RETRIES; i++) {
		if (m.signal == SIGKILL)
			verbose_msg(c, "Terminating step %s", id);
		else
			verbose_msg(c, "Signal %u to step %s", m.signal, id);
		r = rpc_call_ctld_rc(c->conf, REQUEST_CANCEL_JOB_STEP, &m);
		if (r != -ESLURM_TRANSITION_STATE_NO_UPDATE && r != -ESLURM_JOB_PENDING)
			break;
		verbose_msg(c, "Job is in transistional state, retrying");
		sleep((unsigned)(5 + i));
	}
	if (r == 0)
		return;
	code = -r;
	if (c->verbose > 0 || code != ESLURM_ALREADY_DONE)
		cli_error("Kill job error on job step id %s: %s", id, sl_strerror(code));
	if (code == ESLURM_ALREADY_DONE && m.signal == SIGKILL)
		code = 0; /* the step is gone already: that is what was asked */
	if (code > c->rc)
		c->rc = code;
}

/* ---- the load, verify, filter path ---- */

static bool finished(const struct job_info *j)
{
	return job_state_is_finished(j->job_state);
}

static bool task_in(const struct job_info *j, uint32_t task)
{
	return j->array_task_id == task || fmt_idset_has(j->array_task_str, task);
}

static bool id_matches(const struct cancel_id *id, const struct job_info *j)
{
	if (id->task == NO_VAL)
		return id->job == j->job_id || (id->job == j->array_job_id && id->step == NO_VAL);
	if (id->task == INFINITE)
		return id->job == j->array_job_id;
	return id->job == j->array_job_id && j->array_job_id && task_in(j, id->task);
}

static void id_str(const struct cancel_id *id, char *buf, size_t n)
{
	if (id->task == NO_VAL)
		snprintf(buf, n, "%u", id->job);
	else if (id->task == INFINITE)
		snprintf(buf, n, "%u_*", id->job);
	else
		snprintf(buf, n, "%u_%u", id->job, id->task);
}

/* Every id must name a job still in the controller's list. */
static void verify_ids(struct scancel *c, const struct job_info_msg *m)
{
	char buf[64];

	for (uint32_t i = 0; i < m->count; i++)
		for (size_t k = 0; !finished(&m->jobs[i]) && k < c->n_ids; k++)
			if (id_matches(&c->ids[k], &m->jobs[i])) {
				c->ids[k].found = true;
				c->ids[k].pending |=
				    (m->jobs[i].job_state & JOB_STATE_BASE) == JOB_PENDING;
			}
	for (size_t k = 0; k < c->n_ids; k++) {
		if (c->ids[k].found)
			continue;
		c->rc = c->rc ? c->rc : 1;
		if (c->verbose < 0)
			continue;
		id_str(&c->ids[k], buf, sizeof(buf));
		if (c->ids[k].step == NO_VAL)
			cli_error("Kill job error on job id %s: %s", buf,
				  sl_strerror(ESLURM_INVALID_JOB_ID));
		else
			cli_error("Kill job error on job step id %s.%u: %s", buf, c->ids[k].step,
				  sl_strerror(ESLURM_INVALID_JOB_ID));
	}
}

static bool nodes_match(const char *want, const char *nodes)
{
	struct hostlist *a = NULL, *b = NULL;
	bool hit = false;

	if (nodes && hostlist_new(want, &a) == 0 && hostlist_new(nodes, &b) == 0)
		for (size_t i = 0; i < hostlist_count(b) && !hit; i++)
			hit = hostlist_find(a, hostlist_nth(b, i)) >= 0;
	hostlist_free(a);
	hostlist_free(b);
	return hit;
}

static bool str_match(const char *want, const char *have)
{
	return !want || (have && !strcmp(want, have));
}

static bool selected(const struct scancel *c, const struct job_info *j)
{
	uint32_t base = j->job_state & JOB_STATE_BASE;

	if (finished(j))
		return false;
	if (!c->filters)
		return true;
	return (base == JOB_PENDING || base == JOB_RUNNING || base == JOB_SUSPENDED)
	       && str_match(c->account, j->account) && str_match(c->name, j->name)
	       && str_match(c->partition, j->partition) && str_match(c->qos, j->qos)
	       && (c->state == STATE_UNSET || j->job_state == c->state)
	       && (!c->user || j->user_id == c->uid)
	       && (!c->nodes || nodes_match(c->nodes, j->nodes));
}

/* "Cancel job_id=12 name=x partition=p [y/n]? " (step_id=12.0 for a
 * step) until y or n. */
static bool confirm(const struct job_info *j, const char *id, bool step)
{
	char line[128];

	for (;;) {
		printf("Cancel %s=%s name=%s partition=%s [y/n]? ", step ? "step_id" : "job_id", id,
		       j->name ? j->name : "(null)", j->partition ? j->partition : "(null)");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return false;
		if (line[0] == 'y' || line[0] == 'Y')
			return true;
		if (line[0] == 'n' || line[0] == 'N')
			return false;
	}
}

/* The id a record is cancelled by: "12", "12_3" or "12_[3-9]". */
static void record_id(const struct job_info *j, const struct cancel_id *want, char *buf, size_t n)
{
	if (want && want->task != NO_VAL && want->task != INFINITE && j->array_task_str)
		snprintf(buf, n, "%u_%u", j->array_job_id, want->task);
	else if (j->array_task_str)
		snprintf(buf, n, "%u_[%s]", j->array_job_id, j->array_task_str);
	else if (j->array_job_id && j->array_task_id != NO_VAL)
		snprintf(buf, n, "%u_%u", j->array_job_id, j->array_task_id);
	else
		snprintf(buf, n, "%u", j->job_id);
	if (want && want->step != NO_VAL)
		snprintf(buf + strlen(buf), n - strlen(buf), ".%u", want->step);
}

/* One pass: pending jobs only, or all that are left. */
static void cancel_pass(struct scancel *c, const struct job_info_msg *m, bool *done,
			bool pending_only)
{
	char id[256];

	for (uint32_t i = 0; i < m->count; i++) {
		const struct job_info *j = &m->jobs[i];
		const struct cancel_id *want = NULL;

		if (done[i] || !selected(c, j)
		    || (pending_only && (j->job_state & JOB_STATE_BASE) != JOB_PENDING))
			continue;
		if (!c->n_ids) {
			done[i] = true;
			record_id(j, NULL, id, sizeof(id));
			if (!c->interactive || confirm(j, id, false))
				cancel_one(c, id);
			continue;
		}
		/* Every id naming this job: each step, or the job once. */
		for (size_t k = 0; k < c->n_ids && !done[i]; k++) {
			want = &c->ids[k];
			if (!want->found || !id_matches(want, j))
				continue;
			record_id(j, want, id, sizeof(id));
			if (want->step == NO_VAL)
				done[i] = true;
			if (c->interactive && !confirm(j, id, want->step != NO_VAL))
				continue;
			if (want->step == NO_VAL)
				cancel_one(c, id);
			else
				cancel_step(c, j->job_id, want->step, id);
		}
		done[i] = true;
	}
}

/* -v and no job passes the filters: say which, in Slurm's order. */
static void report_no_match(const struct scancel *c, const struct job_info_msg *m)
{
	const char *keys[] = {"account", "job_name", "nodelist", "partition",
			      "qos",	 "state",    "user_name"};
	const char *vals[] = {
	    c->account,	  c->name, c->nodes,
	    c->partition, c->qos,  c->state == STATE_UNSET ? NULL : job_state_string(c->state),
	    c->user};
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	for (uint32_t i = 0; i < m->count; i++)
		if (selected(c, &m->jobs[i]))
			return;
	if (!(f = open_memstream(&text, &len)))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (vals[i])
			fprintf(f, "%s=%s ", keys[i], vals[i]);
	fclose(f);
	cli_error("No active jobs match ALL job filters, including: %s", text ? text : "");
	free(text);
}

static void cancel_loaded(struct scancel *c)
{
	struct job_info_req req = {.show_flags = 0};
	struct job_info_msg *m = NULL;
	bool *done;
	int r;

	r = job_fetch_all(c->conf, &req, &m);
	if (r < 0) {
		cli_perror("slurm_load_jobs error", r);
		c->rc = 1;
		return;
	}
	verify_ids(c, m);
	if (c->filters && c->verbose > 0)
		report_no_match(c, m);
	done = calloc(m->count + 1, sizeof(*done));
	if (done) {
		cancel_pass(c, m, done, true);
		cancel_pass(c, m, done, false);
	}
	free(done);
	msg_free(msg_lookup(RESPONSE_JOB_INFO), m);
}

/* ---- options ---- */

static const char usage_text[] =
    "Usage: scancel [-A account] [--batch] [--full] [--interactive] [-n job_name]\n"
    "               [-p partition] [-Q] [-q qos] [-R reservation] [-s signal | integer]\n"
    "               [-t PENDING | RUNNING | SUSPENDED] [--usage] [-u user_name]\n"
    "               [--hurry] [-V] [-v] [-w hosts...] [--wckey=wckey]\n"
    "               [job_id[_array_id][.step_id]]\n";

static const char help_text[] =
    "Usage: scancel [OPTIONS] [job_id[_array_id][.step_id]]\n"
    "  -A, --account=account           act only on jobs charging this account\n"
    "  -b, --batch                     signal batch shell for specified job\n"
    "  -f, --full                      signal batch shell and all steps for specified job\n"
    "  -H, --hurry                     avoid burst buffer stage out\n"
    "  -i, --interactive               require response from user for each job\n"
    "  -n, --name=job_name             act only on jobs with this name\n"
    "  -p, --partition=partition       act only on jobs in this partition\n"
    "  -Q, --quiet                     disable warnings\n"
    "  -q, --qos=qos                   act only on jobs with this quality of service\n"
    "  -R, --reservation=reservation   act only on jobs with this reservation\n"
    "  -s, --signal=name | integer     signal to send to job, default is SIGKILL\n"
    "  -t, --state=states              act only on jobs in this state.  Valid job\n"
    "                                  states are PENDING, RUNNING and SUSPENDED\n"
    "  -u, --user=user_name            act only on jobs of this user\n"
    "  -V, --version                   output version information and exit\n"
    "  -v, --verbose                   verbosity level\n"
    "  -w, --nodelist                  act only on jobs on these nodes\n"
    "      --wckey=wckey               act only on jobs with this workload\n"
    "                                  charactization key\n"
    "\nHelp options:\n"
    "  --help                          show this help message\n"
    "  --usage                         display brief usage message\n";

static bool env_true(const char *var, bool dflt)
{
	const char *v = getenv(var);

	if (!v)
		return dflt;
	if (!strcasecmp(v, "true") || !strcasecmp(v, "T"))
		return true;
	if (!strcasecmp(v, "false") || !strcasecmp(v, "F"))
		return false;
	cli_error("Unrecognized %s value: %s", var, v);
	return dflt;
}

/* Any job state name; exits 1 with Slurm's two lines otherwise. */
static int parse_state(struct scancel *c, const char *s, bool from_env)
{
	if (job_state_from_string(s, &c->state) == 0)
		return 0;
	if (from_env)
		fprintf(stderr, "Unrecognized SCANCEL_STATE value: %s\n", s);
	else
		fprintf(stderr, "Invalid job state specified: %s\n", s);
	fprintf(stderr, "Valid job states are PENDING, RUNNING, and SUSPENDED\n");
	return -EINVAL;
}

static void from_env(struct scancel *c)
{
	c->account = getenv("SCANCEL_ACCOUNT");
	c->batch = env_true("SCANCEL_BATCH", false);
	c->full = env_true("SCANCEL_FULL", false);
	c->hurry = getenv("SCANCEL_HURRY") != NULL;
	c->interactive = env_true("SCANCEL_INTERACTIVE", false);
	c->name = getenv("SCANCEL_NAME");
	c->partition = getenv("SCANCEL_PARTITION");
	c->qos = getenv("SCANCEL_QOS");
	c->user = getenv("SCANCEL_USER");
	c->verbose = env_true("SCANCEL_VERBOSE", false) ? 1 : 0;
}

/* Returns -1 to exit 1, 1 to exit 0, 0 to go on. */
static int parse_args(struct scancel *c, int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"account", required_argument, 0, 'A'},
	    {"batch", no_argument, 0, 'b'},
	    {"ctld", no_argument, 0, OPT_IGNORED},
	    {"cron", no_argument, 0, 'c'},
	    {"full", no_argument, 0, 'f'},
	    {"help", no_argument, 0, OPT_HELP},
	    {"hurry", no_argument, 0, 'H'},
	    {"interactive", no_argument, 0, 'i'},
	    {"jobname", required_argument, 0, 'n'},
	    {"name", required_argument, 0, 'n'},
	    {"nodelist", required_argument, 0, 'w'},
	    {"partition", required_argument, 0, 'p'},
	    {"qos", required_argument, 0, 'q'},
	    {"quiet", no_argument, 0, 'Q'},
	    {"reservation", required_argument, 0, 'R'},
	    {"signal", required_argument, 0, 's'},
	    {"state", required_argument, 0, 't'},
	    {"usage", no_argument, 0, OPT_USAGE},
	    {"user", required_argument, 0, 'u'},
	    {"verbose", no_argument, 0, 'v'},
	    {"version", no_argument, 0, 'V'},
	    {"wckey", required_argument, 0, OPT_IGNORED},
	    {"sibling", required_argument, 0, OPT_IGNORED},
	    {NULL, 0, 0, 0},
	};
	const char *env_state = getenv("SCANCEL_STATE");
	int ch, sig;

	from_env(c);
	if (env_state && parse_state(c, env_state, true) < 0)
		return -1;
	while ((ch = getopt_long(argc, argv, "A:bcfHiM:n:p:Qq:R:s:t:u:vVw:", lopts, NULL)) != -1) {
		switch (ch) {
		case 'A':
			c->account = optarg;
			break;
		case 'b':
			c->batch = true;
			break;
		case 'f':
			c->full = true;
			break;
		case 'H':
			c->hurry = true;
			break;
		case 'i':
			c->interactive = true;
			break;
		case 'n':
			c->name = optarg;
			break;
		case 'p':
			c->partition = optarg;
			break;
		case 'Q':
			c->verbose = -1;
			break;
		case 'q':
			c->qos = optarg;
			break;
		case 'u':
			c->user = optarg;
			break;
		case 'v':
			c->verbose++;
			break;
		case 'w':
			c->nodes = optarg;
			break;
		case 'c':
		case 'M':
		case 'R':
		case OPT_IGNORED:
			break;
		case 's':
			if (!(sig = sig_name2num(optarg))) {
				fprintf(stderr, "Unknown job signal: %s\n", optarg);
				return -1;
			}
			c->signal = (uint16_t)sig;
			break;
		case 't':
			if (parse_state(c, optarg, false) < 0)
				return -1;
			break;
		case 'V':
			cli_print_version();
			return 1;
		case OPT_HELP:
			fputs(help_text, stdout);
			return 1;
		case OPT_USAGE:
			fputs(usage_text, stdout);
			return 1;
		default:
			fprintf(stderr, "Try \"scancel --help\" for more information\n");
			return -1;
		}
	}
	for (int i = optind; i < argc; i++)
		if (parse_id(c, argv[i]) < 0)
			return -1;
	if (c->user && !id_name_uid_of(c->user, &c->uid)) {
		cli_error("Invalid user name: %s", c->user);
		return -1;
	}
	c->filters = c->account || c->name || c->nodes || c->partition || c->qos
		     || c->state != STATE_UNSET || c->user;
	if (!c->filters && !c->n_ids) {
		cli_error("No job identification provided");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct scancel c = {.state = STATE_UNSET, .signal = NO_VAL16};
	struct sl_conf *conf = NULL;
	bool has_steps = false;
	int r;

	cli_init(argv[0]);
	r = parse_args(&c, argc, argv);
	if (r == 0 && cli_conf_load(&conf) < 0)
		r = -1;
	if (r == 0) {
		c.conf = conf;
		for (size_t i = 0; i < c.n_ids; i++)
			has_steps |= c.ids[i].step != NO_VAL;
		/* ids only: each sent as written, no job list needed */
		if (!c.filters && !c.batch && !c.interactive && c.signal == NO_VAL16 && !has_steps)
			for (size_t i = 0; i < c.n_strs; i++)
				cancel_one(&c, c.strs[i]);
		else
			cancel_loaded(&c);
	}
	for (size_t i = 0; i < c.n_strs; i++)
		free(c.strs[i]);
	free(c.strs);
	free(c.ids);
	conf_free(conf);
	if (r != 0)
		return r < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
	return c.rc & 0xff; /* exit(rc) as Slurm: the shell sees rc mod 256 */
}
