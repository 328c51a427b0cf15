/* seff.c - the seff command: a job's CPU and memory efficiency, from the
 * accounting store (through the controller, REQUEST_ACCT_QUERY).
 *
 * `seff JOBID` prints upstream contrib seff's report (seff_fmt.c).
 * Ids: "N" is job N, or every task of array N; "N_T" one array task; a
 * task's own job id (sacct's JobIDRaw) selects that task. Upstream prints
 * only the first row it gets for an array; we print every task's report,
 * in task order, one empty line between reports, so that nothing is
 * hidden (`seff N_T` gives one). The pending tasks of an array have one
 * record, shown as "Array Job ID: N_[2-5]" with the PENDING form.
 * An unknown id prints "Job not found." on stderr and exits 1 (upstream
 * exits 2; our commands use only 0 and 1).
 *
 * `seff -u USER [-S TIME] [-E TIME]`, our addition: the finished jobs of
 * USER in the window (default: the last 7 days up to now; -S/-E in
 * sacct's forms, sacct_parse_time), one line each, the most
 * over-allocated first (seff_user_table).
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/acct_client.h"
#include "api/id_name.h"
#include "cli/cli.h"
#include "cli/sacct_opt.h"
#include "cli/seff_fmt.h"
#include "common/conf.h"
#include "common/msg.h"
#include "common/sl_errno.h"

#define OPT_HELP 0x100

static void conf_freep(struct sl_conf **c)
{
	conf_free(*c);
}

struct seff_args {
	const char *user, *start, *end, *job;
	bool is_debug;
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: seff [Options] <Jobid>\n"
	    "       seff -u <user> [-S <time>] [-E <time>]\n"
	    "       Options:\n"
	    "       -h, --help       Help menu\n"
	    "       -V, -v, --version  Version\n"
	    "       -d               Debug mode: display raw Slurm data\n"
	    "       -u, --user=USER  One line per finished job of USER, the most\n"
	    "                        over-allocated first (unused core-hours plus\n"
	    "                        unused memory GiB-hours)\n"
	    "       -S, --starttime=TIME  Window start for -u (default: now-%ddays)\n"
	    "       -E, --endtime=TIME    Window end for -u (default: now)\n"
	    "       TIME: as sacct reads it: YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY][-HH:MM[:SS]],\n"
	    "             HH:MM[:SS], today, midnight, "
	    "now[{+|-}N[seconds|minutes|hours|days|weeks]]\n",
	    SEFF_DEFAULT_DAYS);
}

/* Returns -1 to go on, or the exit code. */
static int parse_args(int argc, char **argv, struct seff_args *a)
{
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, OPT_HELP},     {"version", no_argument, NULL, 'V'},
	    {"user", required_argument, NULL, 'u'},    {"starttime", required_argument, NULL, 'S'},
	    {"endtime", required_argument, NULL, 'E'}, {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "hdvVu:S:E:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
		case OPT_HELP:
			usage(stdout);
			return CLI_EXIT_OK;
		case 'v':
		case 'V':
			cli_print_version();
			return CLI_EXIT_OK;
		case 'd':
			a->is_debug = true;
			break;
		case 'u':
			a->user = optarg;
			break;
		case 'S':
			a->start = optarg;
			break;
		case 'E':
			a->end = optarg;
			break;
		default:
			usage(stderr);
			return CLI_EXIT_ERROR;
		}
	}
	if (a->user ? optind != argc : optind != argc - 1) {
		usage(stderr);
		return CLI_EXIT_ERROR;
	}
	if (!a->user && (a->start || a->end)) {
		cli_error("-S and -E select the jobs of -u USER");
		return CLI_EXIT_ERROR;
	}
	a->job = a->user ? NULL : argv[optind];
	return -1;
}

/* Load slurm.conf (*ret_conf, to free) and fetch every row req selects. */
static int fetch(struct acct_query_req *req, struct sl_conf **ret_conf, struct acct_rows *rows)
{
	int r = cli_conf_load(ret_conf);

	if (r < 0)
		return r;
	r = acct_client_fetch(*ret_conf, req, rows);
	if (r < 0)
		cli_error("Problem talking to the accounting store: %s", sl_strerror(r));
	return r;
}

static int run_user(const struct seff_args *a, time_t now)
{
	_cleanup_(conf_freep) struct sl_conf *conf = NULL;
	struct acct_query_req req = {.state_mask = 0};
	struct acct_rows rows = {0};
	char uids[16];
	uint32_t uid;

	req.start = now - SEFF_DEFAULT_DAYS * 86400;
	req.end = now;
	if (!id_name_uid_of(a->user, &uid)) {
		cli_error("Invalid user: %s", a->user);
		return CLI_EXIT_ERROR;
	}
	if (a->start && sacct_time_arg(a->start, now, &req.start) < 0)
		return CLI_EXIT_ERROR;
	if (a->end && sacct_time_arg(a->end, now, &req.end) < 0)
		return CLI_EXIT_ERROR;
	if (req.end < req.start) {
		cli_error("Start time (%s) after end time (%s)", a->start ? a->start : "default",
			  a->end ? a->end : "now");
		return CLI_EXIT_ERROR;
	}
	snprintf(uids, sizeof(uids), "%" PRIu32, uid);
	req.uids = uids;
	if (fetch(&req, &conf, &rows) < 0)
		return CLI_EXIT_ERROR;
	seff_user_table(stdout, a->user, req.start, req.end, rows.jobs, rows.count);
	acct_rows_done(&rows);
	return CLI_EXIT_OK;
}

static void print_one(const struct sl_conf *conf, const struct acct_job_rec *j, time_t now,
		      bool is_debug)
{
	struct seff_job s;
	char gbuf[1024], gnum[16], ubuf[64];
	struct group gr, *res = NULL;

	seff_job_from_rec(j, now, &s);
	s.cluster = conf->cluster_name;
	if (getgrgid_r(j->gid, &gr, gbuf, sizeof(gbuf), &res) == 0 && res) {
		s.group = res->gr_name;
	} else {
		snprintf(gnum, sizeof(gnum), "%" PRIu32, j->gid);
		s.group = gnum;
	}
	if (!s.user) {
		if (!id_name_uid(j->uid, ubuf, sizeof(ubuf)))
			snprintf(ubuf, sizeof(ubuf), "%" PRIu32, j->uid);
		s.user = ubuf;
	}
	if (is_debug)
		seff_debug(stdout, &s);
	seff_report(stdout, &s);
}

static int run_job(const struct seff_args *a, time_t now)
{
	_cleanup_(conf_freep) struct sl_conf *conf = NULL;
	struct acct_query_req req = {.flags = ACCT_Q_ALL_USERS};
	struct acct_rows rows = {0};
	_cleanup_free_ const struct acct_job_rec **sel = NULL;
	char ids[32];
	uint32_t job, task;
	size_t n;

	if (seff_parse_id(a->job, &job, &task) < 0) {
		cli_error("Invalid job id: %s", a->job);
		return CLI_EXIT_ERROR;
	}
	if (task == NO_VAL)
		snprintf(ids, sizeof(ids), "%" PRIu32, job);
	else
		snprintf(ids, sizeof(ids), "%" PRIu32 "_%" PRIu32, job, task);
	req.job_ids = ids;
	if (fetch(&req, &conf, &rows) < 0)
		return CLI_EXIT_ERROR;
	sel = calloc(rows.count ? rows.count : 1, sizeof(*sel));
	n = sel ? seff_select(rows.jobs, rows.count, job, task, sel) : 0;
	if (!n) {
		fputs("Job not found.\n", stderr);
		acct_rows_done(&rows);
		return CLI_EXIT_ERROR;
	}
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc('\n', stdout);
		print_one(conf, sel[i], now, a->is_debug);
	}
	acct_rows_done(&rows);
	return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct seff_args a = {0};
	time_t now = time(NULL);
	int rc;

	cli_init(argv[0]);
	rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	return a.user ? run_user(&a, now) : run_job(&a, now);
}
