/* squeue.c - the squeue command: options, one job-info request, print.
 *
 * Purpose: parse squeue's options (and the SQUEUE_* variables) into
 * struct squeue_opts, fetch every job from slurmctld and hand them to
 * squeue_fmt.c, once or every -i seconds.
 * Errors use Slurm's words: "slurm_load_jobs error: <text>" (exit 1) when
 * the controller fails, or when -j names a single job it does not know;
 * bad options "squeue: error: ..." and exit 1.
 * -s/--steps[=LIST] shows job steps instead (RESPONSE_JOB_STEP_INFO,
 * squeue_print_steps), "slurm_get_job_steps error: <text>" on failure.
 * --json/--yaml print Slurm's v0.0.38 document (data_job.h) of the jobs
 * the filters keep, every state unless -t is given (as Slurm 22.05).
 * Caveat: clusters (-M) and licenses or reservation filters are not
 * implemented.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "api/ctld_fetch.h"
#include "api/id_name.h"
#include "api/job_fetch.h"
#include "cli/cli.h"
#include "cli/cli_data.h"
#include "cli/fmt.h"
#include "cli/squeue_fmt.h"
#include "common/conf.h"
#include "common/data_job.h"
#include "common/data_out.h"
#include "common/hostlist.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"

#define OPT_HELP  0x100
#define OPT_USAGE 0x101
#define OPT_HIDE  0x102
#define OPT_START 0x103
#define OPT_JSON  0x104
#define OPT_YAML  0x105
#define OPT_ME	  0x106

struct sq {
	struct squeue_opts o;
	int iterate;	  /* -i seconds, 0: once */
	bool job_flag;	  /* -j without a list: the list is the next argument */
	bool override;	  /* -o/-O/-l/--start: SQUEUE_FORMAT* are ignored */
	const char *jobs; /* -j list as given */
	const char *users, *states;
	const char *steps; /* -s list as given */
	struct squeue_job_id *job_ids;
	struct squeue_step_id *step_ids;
	uint32_t *uids, *state_vals;
	enum cli_mime mime; /* --json / --yaml */
	char me[16];	    /* --me: this uid as a -u list */
	int argc;	    /* the command line, for meta.command */
	char **argv;
};

static const char usage_text[] =
    "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n"
    "              [-n name] [-o format] [-p partitions] [--qos qos]\n"
    "              [--reservation reservation] [--sort fields] [--start]\n"
    "              [--step step_id] [-t states] [-u user_name] [--usage]\n"
    "              [-L licenses] [-w nodes] [--federation] [--local] [--sibling]\n"
    "              [--expand-patterns] [--json] [--yaml] [--me] [-ahjlrsv]\n";

static const char help_text[] =
    "Usage: squeue [OPTIONS]\n"
    "  -A, --account=account(s)        comma separated list of accounts\n"
    "                                  to view, default is all accounts\n"
    "  -a, --all                       display jobs in hidden partitions\n"
    "  -h, --noheader                  no headers on output\n"
    "      --hide                      do not display jobs in hidden partitions\n"
    "  -i, --iterate=seconds           specify an interation period\n"
    "  -j, --job=job(s)                comma separated list of jobs IDs\n"
    "                                  to view, default is all\n"
    "      --json                      Produce JSON output\n"
    "  -l, --long                      long report\n"
    "      --me                        equivalent to --user=<my username>\n"
    "  -n, --name=job_name(s)          comma separated list of job names to view\n"
    "  -o, --format=format             format specification\n"
    "  -O, --Format=format             format specification\n"
    "  -p, --partition=partition(s)    comma separated list of partitions\n"
    "                                  to view, default is all partitions\n"
    "  -q, --qos=qos(s)                comma separated list of qos's\n"
    "                                  to view, default is all qos's\n"
    "  -r, --array                     display one job array element per line\n"
    "  -s, --step=step(s)              comma separated list of job steps\n"
    "                                  to view, default is all\n"
    "  -S, --sort=fields               comma separated list of fields to sort on\n"
    "      --start                     print expected start times of pending jobs\n"
    "  -t, --states=states             comma separated list of states to view,\n"
    "                                  default is pending and running,\n"
    "                                  '--states=all' reports all states\n"
    "  -u, --user=user_name(s)         comma separated list of users to view\n"
    "      --name=job_name(s)          comma separated list of job names to view\n"
    "  -v, --verbose                   verbosity level\n"
    "  -V, --version                   output version information and exit\n"
    "  -w, --nodelist=hostlist         list of nodes to view, default is\n"
    "                                  all nodes\n"
    "      --yaml                      Produce YAML output\n"
    "\nHelp options:\n"
    "  --help                          show this help message\n"
    "  --usage                         display a brief summary of squeue options\n";

/* "12,13_4": Slurm's _build_job_list (strtol, so "12x" is 12). */
static int parse_jobs(struct sq *q)
{
	char *copy = strdup(q->jobs), *save = NULL, *tok;
	size_t n = 0;

	if (!copy || !(q->job_ids = calloc(strlen(q->jobs) + 1, sizeof(*q->job_ids)))) {
		free(copy);
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long id = strtol(tok, &end, 10), task = NO_VAL;

		if (*end == '_')
			task = strtol(end + 1, &end, 10);
		if (id <= 0 || id >= (long)NO_VAL) {
			cli_error("Invalid job id: %s", tok);
			free(copy);
			return -EINVAL;
		}
		q->job_ids[n++] = (struct squeue_job_id){(uint32_t)id, (uint32_t)task};
	}
	free(copy);
	q->o.jobs = q->job_ids;
	q->o.n_jobs = n;
	return 0;
}

/* "12.0,12_3.1,12.batch": Slurm's _build_step_list. */
static int parse_steps(struct sq *q)
{
	char *copy = strdup(q->steps), *save = NULL, *tok;
	size_t n = 0;

	if (!copy || !(q->step_ids = calloc(strlen(q->steps) + 1, sizeof(*q->step_ids)))) {
		free(copy);
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end, *dot = strchr(tok, '.');
		long id, task = NO_VAL, step;

		if (!dot) {
			cli_error("Invalid job_step id: %s.??", tok);
			free(copy);
			return -EINVAL;
		}
		*dot = '\0';
		id = strtol(tok, &end, 10);
		if (*end == '_')
			task = strtol(end + 1, &end, 10);
		if (!strcmp(dot + 1, "batch"))
			step = SL_BATCH_STEP;
		else if (!strcmp(dot + 1, "extern"))
			step = SL_EXTERN_STEP;
		else
			step = strtol(dot + 1, &end, 10);
		if (id <= 0 || id >= (long)NO_VAL || step < 0 || step > (long)SL_EXTERN_STEP) {
			cli_error("Invalid job_step id: %s.%s", tok, dot + 1);
			free(copy);
			return -EINVAL;
		}
		q->step_ids[n++] =
		    (struct squeue_step_id){(uint32_t)id, (uint32_t)task, (uint32_t)step};
	}
	free(copy);
	q->o.steps = q->step_ids;
	q->o.n_steps = n;
	return 0;
}

/* Slurm's uid_from_string(): a user name, or a number naming a user. */
/* Unknown names are reported and left out; squeue goes on (and shows no
 * job for them). */
static int parse_users(struct sq *q)
{
	char *copy = strdup(q->users), *save = NULL, *tok;
	size_t n = 0;

	if (!copy || !(q->uids = calloc(strlen(q->users) + 1, sizeof(*q->uids)))) {
		free(copy);
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (id_name_uid_of(tok, &q->uids[n]))
			n++;
		else
			cli_error("Invalid user: %s\n", tok);
	free(copy);
	q->o.has_users = true;
	q->o.users = q->uids;
	q->o.n_users = n;
	return 0;
}

static int parse_states(struct sq *q)
{
	char *copy, *save = NULL, *tok;
	size_t n = 0;

	if (!strcasecmp(q->states, "all")) {
		q->o.all_states = true;
		return 0;
	}
	copy = strdup(q->states);
	if (!copy || !(q->state_vals = calloc(strlen(q->states) + 1, sizeof(*q->state_vals)))) {
		free(copy);
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (job_state_from_string(tok, &q->state_vals[n]) < 0) {
			cli_error("Invalid job state specified: %s", tok);
			cli_error("Valid job states include: %s\n", job_state_names());
			free(copy);
			return -EINVAL;
		}
		n++;
	}
	free(copy);
	q->o.states = q->state_vals;
	q->o.n_states = n;
	return 0;
}

static const char *env_or(const char *have, const char *var)
{
	return have ? have : getenv(var);
}

/* After the options: a -j or -s value given as the next word, then the
 * SQUEUE_* variables for what the options left unset, then the lists
 * parsed. Returns as parse_args(). */
static int args_finish(struct sq *q, int argc, char **argv)
{
	if (optind < argc && q->job_flag && !q->jobs)
		q->jobs = argv[optind++];
	if (optind < argc && q->o.step_flag && !q->steps) /* "-s 12.0" */
		q->steps = argv[optind++];
	if (optind < argc) {
		cli_error("Unrecognized option: %s", argv[optind]);
		fputs(usage_text, stdout);
		return -1;
	}
	if (!q->override) {
		q->o.format = getenv("SQUEUE_FORMAT");
		q->o.format_long = q->o.format ? NULL : getenv("SQUEUE_FORMAT2");
	}
	q->o.accounts = env_or(q->o.accounts, "SQUEUE_ACCOUNT");
	q->o.names = env_or(q->o.names, "SQUEUE_NAMES");
	q->o.partitions = env_or(q->o.partitions, "SQUEUE_PARTITION");
	q->o.qos = env_or(q->o.qos, "SQUEUE_QOS");
	q->states = env_or(q->states, "SQUEUE_STATES");
	q->users = env_or(q->users, "SQUEUE_USERS");
	if (q->o.start_flag && !q->states)
		q->states = "PD";
	if (q->mime && !q->states)
		q->o.all_states = true; /* Slurm 22.05's --json shows every job */
	if (q->mime && (q->iterate || q->o.step_flag)) {
		cli_error("%s", q->iterate ? "--json and --yaml can not be used with --iterate"
					   : "--json and --yaml can not be used with --steps");
		return -1;
	}
	if ((q->jobs && parse_jobs(q) < 0) || (q->steps && parse_steps(q) < 0)
	    || (q->users && parse_users(q) < 0) || (q->states && parse_states(q) < 0))
		return -1;
	return 0;
}

/* squeue's long options, as getopt_long reads them. */
static const struct option squeue_longopts[] = {
    {"accounts", required_argument, 0, 'A'},
    {"account", required_argument, 0, 'A'},
    {"all", no_argument, 0, 'a'},
    {"array", no_argument, 0, 'r'},
    {"Format", required_argument, 0, 'O'},
    {"format", required_argument, 0, 'o'},
    {"help", no_argument, 0, OPT_HELP},
    {"hide", no_argument, 0, OPT_HIDE},
    {"iterate", required_argument, 0, 'i'},
    {"jobs", optional_argument, 0, 'j'},
    {"json", no_argument, 0, OPT_JSON},
    {"long", no_argument, 0, 'l'},
    {"me", no_argument, 0, OPT_ME},
    {"name", required_argument, 0, 'n'},
    {"noheader", no_argument, 0, 'h'},
    {"node", required_argument, 0, 'w'},
    {"nodes", required_argument, 0, 'w'},
    {"nodelist", required_argument, 0, 'w'},
    {"partitions", required_argument, 0, 'p'},
    {"qos", required_argument, 0, 'q'},
    {"sort", required_argument, 0, 'S'},
    {"start", no_argument, 0, OPT_START},
    {"states", required_argument, 0, 't'},
    {"steps", optional_argument, 0, 's'},
    {"usage", no_argument, 0, OPT_USAGE},
    {"user", required_argument, 0, 'u'},
    {"users", required_argument, 0, 'u'},
    {"verbose", no_argument, 0, 'v'},
    {"version", no_argument, 0, 'V'},
    {"yaml", no_argument, 0, OPT_YAML},
    {NULL, 0, 0, 0},
};

/* Options, then the SQUEUE_* variables for what the options left unset.
 * Returns -1 to exit 1, 1 to exit 0 (help, version), 0 to go on. */
static int parse_args(struct sq *q, int argc, char **argv)
{
	int c;

	q->o.sort = getenv("SQUEUE_SORT");
	q->o.array_flag = getenv("SQUEUE_ARRAY") != NULL;
	while ((c = getopt_long(argc, argv, "A:ahi:j::ln:o:O:p:q:rs::S:t:u:vVw:", squeue_longopts,
				NULL))
	       != -1) {
		switch (c) {
		case 'A':
			q->o.accounts = optarg;
			break;
		case 'a':
		case 'v':
		case OPT_HIDE:
			break; /* no hidden partitions here */
		case 'h':
			q->o.no_header = true;
			break;
		case 'i':
			q->iterate = atoi(optarg);
			if (q->iterate <= 0) {
				cli_error("--iterate=%s\n", optarg);
				return -1;
			}
			break;
		case 'j':
			q->jobs = optarg;
			q->job_flag = true;
			break;
		case 'l':
			q->o.long_flag = q->override = true;
			break;
		case 'n':
			q->o.names = optarg;
			break;
		case 'O':
		case 'o':
			if ((c == 'O' && q->o.format) || (c == 'o' && q->o.format_long)) {
				cli_error(c == 'O'
					      ? "-O (--Format) is incompatible with -o (--format)"
					      : "-o (--format) is incompatible with -O (--Format)");
				return -1;
			}
			*(c == 'O' ? &q->o.format_long : &q->o.format) = optarg;
			q->override = true;
			break;
		case 'p':
			q->o.partitions = optarg;
			break;
		case 'q':
			q->o.qos = optarg;
			break;
		case 'r':
			q->o.array_flag = true;
			break;
		case 's':
			q->o.step_flag = true;
			if (optarg)
				q->steps = optarg;
			break;
		case 'S':
			q->o.sort = optarg;
			break;
		case 't':
			q->states = optarg;
			break;
		case 'u':
			q->users = optarg;
			break;
		case 'V':
			cli_print_version();
			return 1;
		case 'w':
			q->o.nodes = optarg;
			break;
		case OPT_HELP:
			fputs(help_text, stdout);
			return 1;
		case OPT_USAGE:
			fputs(usage_text, stdout);
			return 1;
		case OPT_START:
			q->o.start_flag = q->override = true;
			break;
		case OPT_JSON:
		case OPT_YAML:
			q->mime = c == OPT_JSON ? CLI_MIME_JSON : CLI_MIME_YAML;
			break;
		case OPT_ME:
			snprintf(q->me, sizeof(q->me), "%u", (unsigned)getuid());
			q->users = q->me;
			break;
		default:
			fprintf(stderr, "Try \"squeue --help\" for more information\n");
			return -1;
		}
	}
	return args_finish(q, argc, argv);
}

/* A single -j id the controller does not know at all is an error, as
 * slurm_load_job() makes it; several ids just filter. */
static bool single_id_unknown(const struct sq *q, const struct job_info_msg *const *pages,
			      size_t n_pages)
{
	if (q->o.n_jobs != 1)
		return false;
	for (size_t p = 0; p < n_pages; p++)
		for (uint32_t i = 0; i < pages[p]->count; i++)
			if (pages[p]->jobs[i].job_id == q->job_ids[0].job_id
			    || pages[p]->jobs[i].array_job_id == q->job_ids[0].job_id)
				return false;
	return true;
}

static int show_steps(struct sq *q, const struct sl_conf *conf)
{
	struct step_info_req req = {.job_id = NO_VAL, .step_id = NO_VAL};
	struct step_info_msg *m = NULL;
	int r;

	if (!q->o.no_header && (q->iterate || q->o.long_flag))
		fmt_print_date(stdout, time(NULL));
	r = ctld_fetch(conf, REQUEST_JOB_STEP_INFO, &req, RESPONSE_JOB_STEP_INFO, (void **)&m);
	if (r < 0) {
		cli_perror("slurm_get_job_steps error", r);
	} else {
		q->o.now = time(NULL);
		r = squeue_print_steps(stdout, &q->o, m);
	}
	msg_free(msg_lookup(RESPONSE_JOB_STEP_INFO), m);
	fflush(stdout);
	return r;
}

struct keep_arg {
	const struct squeue_opts *o;
	const struct hostlist *want;
};

static bool keep_job(const struct job_info *j, void *arg)
{
	const struct keep_arg *k = arg;

	return squeue_job_keep(k->o, k->want, j);
}

/* --json / --yaml: the records the filters keep, as the controller
 * sent them, every page of the listing. */
static int print_doc(struct sq *q, const struct job_pages *p)
{
	struct keep_arg k = {.o = &q->o, .want = NULL};
	struct hostlist *want = NULL;
	struct dout *d;
	int r;

	if (q->o.nodes && hostlist_new(q->o.nodes, &want) < 0)
		return -EINVAL;
	k.want = want;
	d = cli_data_new(q->mime);
	if (d) {
		data_jobs_doc_begin(d, q->argc, q->argv);
		for (size_t i = 0; i < p->n; i++)
			data_jobs_doc_add(d, p->pages[i], keep_job, &k);
		data_jobs_doc_end(d);
	}
	r = cli_data_print(d);
	hostlist_free(want);
	return r;
}

/* --json / --yaml of a whole listing, written page by page as the
 * controller streams them (job_fetch_each_as): the document grows while
 * the controller builds the next page. Begun with the first page, so an
 * error before it prints nothing on stdout. */
struct doc_stream {
	struct sq *q;
	struct keep_arg k;
	struct dout *d;
};

static int doc_page(void *arg, struct job_info_msg *page)
{
	struct doc_stream *s = arg;
	int r = 0;

	if (!s->d) {
		s->d = cli_data_new(s->q->mime);
		if (s->d)
			data_jobs_doc_begin(s->d, s->q->argc, s->q->argv);
	}
	if (s->d)
		data_jobs_doc_add(s->d, page, keep_job, &s->k);
	if (!s->d || dout_error(s->d))
		r = -EIO;
	msg_free(msg_lookup(RESPONSE_JOB_INFO), page);
	return r;
}

/* -u, --me: only those users' jobs are sent; -t (or, without it, the
 * active jobs): only jobs in those states; -p: only jobs in those
 * partitions (all are still filtered here, with the rest). When every user named was unknown, the uid no user
 * has: nothing is sent, and nothing would be shown. One -j id gets its
 * job in any state: a job that is not sent is an unknown id. */
static void pick_jobs(const struct sq *q, struct job_info_req *req)
{
	static uint32_t nobody = UINT32_MAX;

	if (q->o.has_users) {
		req->user_ids = q->o.n_users ? q->uids : &nobody;
		req->n_user_ids = q->o.n_users ? (uint32_t)q->o.n_users : 1;
	}
	if (q->o.n_jobs != 1) {
		squeue_pick_states(&q->o, &req->state_bases, &req->state_flags);
		if (q->o.partitions && strlen(q->o.partitions) <= JOB_INFO_PARTS_MAX)
			req->partitions = (char *)q->o.partitions; /* else filtered here alone */
	}
}

static int print_doc_stream(struct sq *q, const struct sl_conf *conf)
{
	/* -j, -u, -t: the controller sends only those jobs (as show_once) */
	struct job_info_req req = {.show_flags = 0, .job_ids = (char *)q->jobs};
	struct doc_stream s = {.q = q, .k = {.o = &q->o}};
	struct hostlist *want = NULL;
	int r;

	if (q->o.nodes && hostlist_new(q->o.nodes, &want) < 0)
		return -EINVAL;
	s.k.want = want;
	q->o.now = time(NULL);
	pick_jobs(q, &req);
	r = job_fetch_each_as(conf, NULL, &req, true, doc_page, &s);
	if (r == -EIO) {
		dout_free(s.d); /* cli_data_print says why */
		s.d = NULL;
	} else if (r < 0) {
		cli_perror("slurm_load_jobs error", r);
	}
	if (r == 0 || r == -EIO) {
		if (r == 0 && s.d)
			data_jobs_doc_end(s.d);
		r = cli_data_print(s.d) < 0 ? -EIO : 0;
	} else {
		dout_free(s.d); /* a partial document is left unfinished */
	}
	hostlist_free(want);
	fflush(stdout);
	return r;
}

static int show_once(struct sq *q, const struct sl_conf *conf)
{
	struct job_info_req req = {.show_flags = 0};
	struct job_pages p = {.n = 0};
	int r;

	if (!q->mime && !q->o.no_header && (q->iterate || q->o.long_flag))
		fmt_print_date(stdout, time(NULL));
	if (q->mime && q->o.n_jobs != 1) /* one id: unknown is an error */
		return print_doc_stream(q, conf);
	/* -j, -u, -t: the controller sends only those jobs (and their arrays'
	 * tasks); the exact task filter is applied here. Every page is kept
	 * as it came (views into their frames): nothing is copied. */
	req.job_ids = (char *)q->jobs;
	pick_jobs(q, &req);
	if (!q->mime && squeue_wants_brief(&q->o))
		req.show_flags |= JOB_SHOW_BRIEF;
	r = job_fetch_pages(conf, &req, &p);
	if (r == 0 && single_id_unknown(q, (const struct job_info_msg *const *)p.pages, p.n))
		r = -ESLURM_INVALID_JOB_ID;
	if (r < 0) {
		cli_perror("slurm_load_jobs error", r);
	} else if (q->mime) {
		r = print_doc(q, &p);
	} else {
		q->o.now = time(NULL);
		r = squeue_print_pages(stdout, &q->o, (const struct job_info_msg *const *)p.pages,
				       p.n);
	}
	job_pages_free(&p);
	fflush(stdout);
	return r;
}

int main(int argc, char **argv)
{
	/* meta.command is the command line as typed: getopt reorders argv */
	_cleanup_free_ char **typed = calloc((size_t)argc + 1, sizeof(*typed));
	struct sq q = {.o = {.now = 0}, .argc = typed ? argc : 0, .argv = typed};
	struct sl_conf *conf = NULL;
	int r, rc = CLI_EXIT_OK;

	if (typed)
		memcpy(typed, argv, (size_t)argc * sizeof(*typed));
	cli_big_heap();
	cli_init(argv[0]);
	r = parse_args(&q, argc, argv);
	if (r == 0 && cli_conf_load(&conf) < 0)
		r = -1;
	while (r == 0) {
		if ((q.o.step_flag ? show_steps(&q, conf) : show_once(&q, conf)) < 0)
			rc = CLI_EXIT_ERROR;
		if (!q.iterate)
			break;
		printf("\n");
		fflush(stdout);
		sleep((unsigned)q.iterate);
	}
	conf_free(conf);
	free(q.job_ids);
	free(q.step_ids);
	free(q.uids);
	free(q.state_vals);
	return r < 0 ? CLI_EXIT_ERROR : rc;
}
