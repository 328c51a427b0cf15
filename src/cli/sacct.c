/* sacct.c - the sacct command: options, one accounting query, print.
 *
 * Purpose: turn sacct's options into a REQUEST_ACCT_QUERY (users, jobs,
 * accounts, partitions, names, states, the time window with Slurm's
 * defaults), fetch every page through the controller (acct_client.c),
 * then sort the rows, keep the latest run of each job unless -D, and
 * print the job and step lines the -j list selects (sacct_fmt.c).
 * Errors use Slurm's words: "Slurm accounting storage is disabled",
 * "sacct: error: Invalid field requested: "X"", "Invalid time
 * specification (pos=N): X"; all exit 1.
 * Caveat: cluster options (-L, -M, --local, --federation) are accepted and
 * ignored (one cluster); --json/--yaml write the dbv0.0.38 document
 * (sacct_doc.c) of the rows the text would show. -x, -W, -C, -B, -c, -f, -F,
 * --reason and --env-vars of Slurm's sacct are not implemented.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "api/acct_client.h"
#include "api/id_name.h"
#include "cli/cli.h"
#include "cli/sacct_doc.h"
#include "cli/sacct_fmt.h"
#include "cli/sacct_opt.h"
#include "common/conf.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_time.h"
#include "common/sl_errno.h"

#define OPT_DELIMITER 0x100
#define OPT_NAME      0x101
#define OPT_NOCONVERT 0x102
#define OPT_UNITS     0x103
#define OPT_IGNORED   0x104
#define OPT_JSON      0x105
#define OPT_YAML      0x106

struct sacct {
	struct sacct_out out;
	struct sacct_cols cols;
	struct acct_query_req req;
	struct sacct_sel *sels;
	size_t n_sels;
	char *fields;	/* -o lists, -b, -l, joined */
	char *uid_list; /* -u as uids */
	char *jobs, *states, *accounts, *partitions, *names; /* repeated options joined */
	char *gid_list, *qos, *nodes;			     /* -g as gids, -q, -N */
	const char *start_str, *end_str, *limit_min_str, *limit_max_str;
	bool all_users, brief, long_list, no_header, dups, no_steps, truncate, verbose;
	int help; /* 1 --help, 2 --helpformat, 3 --usage */
	bool is_doc;		  /* --json or --yaml */
	enum dout_kind doc_kind;  /* which of the two */
	int argc;		  /* the command line, for the document's meta */
	char **argv;
};

static const char usage_text[] = "Usage: sacct [options]\n\tUse --help for help\n";

static const char help_text[] =
    "Usage: sacct [OPTIONS]\n"
    "  -a, --allusers              show the jobs of every user (root's default)\n"
    "  -A, --accounts=list         only jobs charged to these accounts\n"
    "  -b, --brief                 the fields JobID, State and ExitCode\n"
    "  -D, --duplicates            every run of a requeued job, not only the last\n"
    "      --delimiter=chars       field separator of -p/-P (default '|')\n"
    "  -e, --helpformat            list the fields -o accepts\n"
    "  -E, --endtime=time          jobs eligible before this time\n"
    "  -g, --group=groups          only jobs of these groups (names or gids)\n"
    "  -h, --help                  this text\n"
    "  -i, --nnodes=min[-max]      only jobs that ran on this many nodes\n"
    "  -I, --ncpus=min[-max]       only jobs that ran on this many cpus\n"
    "  -j, --jobs=job[.step],...   these jobs, array tasks (N_T) or steps (N.S)\n"
    "      --json                  the jobs as Slurm's dbv0.0.38 JSON document\n"
    "  -k, --timelimit-min=time    only jobs with this time limit (the least\n"
    "                              of a range with -K)\n"
    "  -K, --timelimit-max=time    the greatest time limit of -k's range\n"
    "  -l, --long                  the long list of usage fields\n"
    "  -n, --noheader              no header lines\n"
    "  -N, --nodelist=nodes        only jobs that ran on any of these nodes\n"
    "      --name=names            only jobs with these names\n"
    "      --noconvert             sizes in their own unit\n"
    "  -o, --format=fields         comma separated fields, each with an optional\n"
    "                              %width (%-width: left-justified)\n"
    "  -p, --parsable              '|' after every field\n"
    "  -P, --parsable2             '|' between fields\n"
    "  -q, --qos=list              only jobs of these QOS\n"
    "  -r, --partition=list        only jobs of these partitions\n"
    "  -s, --state=states          jobs in these states (CD, F, CA, TO, OOM, ...)\n"
    "  -S, --starttime=time        jobs eligible after this time (default:\n"
    "                              midnight; with -j: any time)\n"
    "  -T, --truncate              start and end times cut to the window\n"
    "  -u, --user=users            jobs of these users (names or uids)\n"
    "      --units=[KMGTP]         sizes in this unit\n"
    "      --usage                 a short usage line\n"
    "  -v, --verbose               print the time window of the query\n"
    "  -V, --version               print the version\n"
    "  -X, --allocations           job lines only, no steps\n"
    "      --yaml                  the jobs as Slurm's dbv0.0.38 YAML document\n"
    "\nTimes: HH:MM[:SS][AM|PM], MMDD[YY], MM/DD[/YY], MM.DD[.YY] (each with an\n"
    "optional -HH:MM[:SS]), YYYY-MM-DD[THH:MM[:SS]], today, midnight, noon,\n"
    "fika, teatime, now[{+|-}count[seconds|minutes|hours|days|weeks]].\n";

/* A list option given again adds to the list, as Slurm's sacct does. */
static int join_list(char **dst, const char *list)
{
	size_t len = *dst ? strlen(*dst) : 0;
	char *v = realloc(*dst, len + strlen(list) + 2);

	if (!v)
		return -ENOMEM;
	sprintf(v + len, "%s%s", len ? "," : "", list);
	*dst = v;
	return 0;
}

static int add_fields(struct sacct *a, const char *list)
{
	return join_list(&a->fields, list);
}

/* Each name or id of list through id_of, appended to *dst as ids. 0, or
 * -EINVAL after printing "Invalid <what> id: <item>" (Slurm's sacct: a
 * bare line for users, an error line for groups), -ENOMEM. */
static int join_ids(char **dst, const char *list, bool (*id_of)(const char *, uint32_t *),
		    const char *what, bool is_error_line)
{
	_cleanup_free_ char *copy = strdup(list), *out = NULL;
	char *save = NULL;
	size_t len = 0;
	FILE *f;
	int r = 0;

	if (!copy || !(f = open_memstream(&out, &len)))
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint32_t id;

		if (!id_of(tok, &id)) {
			if (is_error_line)
				cli_error("Invalid %s id: %s", what, tok);
			else
				fprintf(stderr, "Invalid %s id: %s\n", what, tok);
			r = -EINVAL;
			break;
		}
		fprintf(f, "%s%u", ftell(f) ? "," : "", id);
	}
	fclose(f);
	if (r == 0 && *out)
		r = join_list(dst, out);
	return r;
}

/* -u: names or uids; "-1" means every user. */
static int parse_users(struct sacct *a, const char *list)
{
	int r;

	if (streq(list, "-1")) {
		a->all_users = true;
		return 0;
	}
	r = join_ids(&a->uid_list, list, id_name_uid_of, "user", false);
	if (r == 0)
		a->all_users = false;
	return r;
}

static int parse_range(const char *arg, const char *what, uint32_t *min, uint32_t *max)
{
	if (sacct_parse_range(arg, min, max) == 0)
		return 0;
	cli_error("Invalid numeric value \"%s\" for requested %s range.", arg, what);
	return -EINVAL;
}

#define OPT_NOT_MINE 2 /* filter_opt(): c is not a filter */

/* The options that choose which jobs to show. Returns 0, -1 to exit 1,
 * or OPT_NOT_MINE. */
static int filter_opt(struct sacct *a, int c, char *arg)
{
	switch (c) {
	case 'A':
		if (join_list(&a->accounts, arg) < 0)
			return -1;
		break;
	case 'E':
		a->end_str = arg;
		break;
	case 'g':
		if (join_ids(&a->gid_list, arg, id_name_gid_of, "group", true) < 0)
			return -1;
		break;
	case 'i':
		if (parse_range(arg, "node", &a->req.nodes_min, &a->req.nodes_max) < 0)
			return -1;
		a->req.flags |= ACCT_Q_NODES;
		break;
	case 'I':
		if (parse_range(arg, "cpu", &a->req.cpus_min, &a->req.cpus_max) < 0)
			return -1;
		a->req.flags |= ACCT_Q_CPUS;
		break;
	case 'k':
		a->limit_min_str = arg;
		break;
	case 'K':
		a->limit_max_str = arg;
		break;
	case 'N':
		if (join_list(&a->nodes, arg) < 0)
			return -1;
		break;
	case 'q':
		if (join_list(&a->qos, arg) < 0)
			return -1;
		break;
	case 'j':
		if (join_list(&a->jobs, arg) < 0)
			return -1;
		break;
	case 'r':
		if (join_list(&a->partitions, arg) < 0)
			return -1;
		break;
	case 's':
		if (join_list(&a->states, arg) < 0)
			return -1;
		break;
	case 'S':
		a->start_str = arg;
		break;
	case 'u':
		if (parse_users(a, arg) < 0)
			return -1;
		break;
	case OPT_NAME:
		if (join_list(&a->names, arg) < 0)
			return -1;
		break;
	default:
		return OPT_NOT_MINE;
	}
	return 0;
}

/* The options that shape the output, help and version. Returns as
 * parse_args(). */
static int output_opt(struct sacct *a, int c, char *arg)
{
	switch (c) {
	case 'a':
		a->all_users = true;
		break;
	case 'b':
		a->brief = true;
		break;
	case 'D':
		a->dups = true;
		break;
	case 'e':
		a->help = 2;
		break;
	case 'h':
		a->help = 1;
		break;
	case 'T':
		a->truncate = true;
		break;
	case 'l':
		a->long_list = true;
		break;
	case 'n':
		a->no_header = true;
		break;
	case 'o':
		if (add_fields(a, arg) < 0)
			return -1;
		break;
	case 'p':
		a->out.parsable = SACCT_PARSABLE;
		break;
	case 'P':
		a->out.parsable = SACCT_PARSABLE2;
		break;
	case 't': /* Slurm's old name of -X */
	case 'X':
		a->no_steps = true;
		break;
	case 'U':
		a->help = 3;
		break;
	case 'V':
		cli_print_version();
		return 1;
	case OPT_DELIMITER:
		a->out.delim = arg;
		break;
	case OPT_NOCONVERT:
		a->out.noconvert = true;
		break;
	case OPT_UNITS:
		if (!arg[0] || arg[1] || !strchr("KMGTPkmgtp", arg[0])) {
			fprintf(stderr, "%s: fatal: Invalid unit type\n", cli_prog());
			return -1;
		}
		a->out.units = (char)(arg[0] & ~0x20);
		break;
	case 'v':
		a->verbose = true;
		break;
	case OPT_JSON:
	case OPT_YAML:
		a->is_doc = true;
		a->doc_kind = c == OPT_JSON ? DOUT_JSON : DOUT_YAML;
		break;
	case 'L':
	case 'M':
	case OPT_IGNORED:
		break;
	default:
		return -1;
	}
	return 0;
}

/* Returns -1 to exit 1, 1 to exit 0 (help, version), 0 to go on. */
static int parse_args(struct sacct *a, int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"allusers", no_argument, 0, 'a'},
	    {"accounts", required_argument, 0, 'A'},
	    {"allocations", no_argument, 0, 'X'},
	    {"brief", no_argument, 0, 'b'},
	    {"delimiter", required_argument, 0, OPT_DELIMITER},
	    {"duplicates", no_argument, 0, 'D'},
	    {"federation", no_argument, 0, OPT_IGNORED},
	    {"helpformat", no_argument, 0, 'e'},
	    {"help-fields", no_argument, 0, 'e'},
	    {"endtime", required_argument, 0, 'E'},
	    {"gid", required_argument, 0, 'g'},
	    {"group", required_argument, 0, 'g'},
	    {"help", no_argument, 0, 'h'},
	    {"nnodes", required_argument, 0, 'i'},
	    {"ncpus", required_argument, 0, 'I'},
	    {"timelimit-min", required_argument, 0, 'k'},
	    {"timelimit-max", required_argument, 0, 'K'},
	    {"nodelist", required_argument, 0, 'N'},
	    {"qos", required_argument, 0, 'q'},
	    {"truncate", no_argument, 0, 'T'},
	    {"local", no_argument, 0, OPT_IGNORED},
	    {"name", required_argument, 0, OPT_NAME},
	    {"jobs", required_argument, 0, 'j'},
	    {"json", no_argument, 0, OPT_JSON},
	    {"yaml", no_argument, 0, OPT_YAML},
	    {"long", no_argument, 0, 'l'},
	    {"allclusters", no_argument, 0, 'L'},
	    {"cluster", required_argument, 0, 'M'},
	    {"clusters", required_argument, 0, 'M'},
	    {"noconvert", no_argument, 0, OPT_NOCONVERT},
	    {"units", required_argument, 0, OPT_UNITS},
	    {"noheader", no_argument, 0, 'n'},
	    {"fields", required_argument, 0, 'o'},
	    {"format", required_argument, 0, 'o'},
	    {"parsable", no_argument, 0, 'p'},
	    {"parsable2", no_argument, 0, 'P'},
	    {"partition", required_argument, 0, 'r'},
	    {"state", required_argument, 0, 's'},
	    {"starttime", required_argument, 0, 'S'},
	    {"uid", required_argument, 0, 'u'},
	    {"usage", no_argument, 0, 'U'},
	    {"user", required_argument, 0, 'u'},
	    {"verbose", no_argument, 0, 'v'},
	    {"version", no_argument, 0, 'V'},
	    {NULL, 0, 0, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "aA:bDeE:g:hi:I:j:k:K:lLM:nN:o:pPq:r:s:S:tTu:UvVX",
				lopts, NULL))
	       != -1) {
		int r = filter_opt(a, c, optarg);

		if (r == OPT_NOT_MINE)
			r = output_opt(a, c, optarg);
		if (r != 0)
			return r;
	}
	if (optind < argc) {
		cli_error("Unknown arguments:");
		for (int i = optind; i < argc; i++)
			cli_error(" %s", argv[i]);
		return -1;
	}
	return 0;
}

/* What parse_args collected -> the query and the columns. */
static int build(struct sacct *a, time_t now)
{
	time_t start = 0, end = 0;
	char *bad = NULL, *job_ids = NULL;
	const char *env = getenv("SACCT_FORMAT");
	int r;

	if ((a->start_str && sacct_time_arg(a->start_str, now, &start) < 0)
	    || (a->end_str && sacct_time_arg(a->end_str, now, &end) < 0))
		return -1;
	if (a->states && (r = sacct_state_mask(a->states, &a->req.state_mask, &bad)) < 0) {
		if (bad && r == -ENOTSUP)
			fprintf(stderr, "%s: fatal: job state %s is not supported / accounted\n",
				cli_prog(), bad);
		else if (bad)
			fprintf(stderr, "%s: fatal: unrecognized job state value '%s'\n",
				cli_prog(), bad);
		free(bad);
		return -1;
	}
	if (a->jobs) {
		r = sacct_parse_jobs(a->jobs, &a->sels, &a->n_sels, &job_ids, &bad);
		if (r < 0) {
			if (bad)
				fprintf(stderr, "%s: fatal: Bad job/step specified: %s\n",
					cli_prog(), bad);
			free(bad);
			return -1;
		}
		if (a->n_sels) {
			a->req.job_ids = job_ids;
		} else { /* "-j ,": no job at all, as if -j was not given */
			free(job_ids);
			free(a->jobs);
			a->jobs = NULL;
		}
	}
	if (a->limit_min_str) { /* -K alone is ignored, as Slurm's */
		if (time_str2mins(a->limit_min_str, &a->req.time_limit_min) < 0
		    || (a->limit_max_str
			&& time_str2mins(a->limit_max_str, &a->req.time_limit_max) < 0)) {
			fprintf(stderr, "%s: fatal: Invalid time limit specification\n",
				cli_prog());
			return -1;
		}
		if (!a->limit_max_str)
			a->req.time_limit_max = a->req.time_limit_min;
		a->req.flags |= ACCT_Q_TIME_LIMIT;
	}
	a->req.accounts = a->accounts;
	a->req.partitions = a->partitions;
	a->req.names = a->names;
	a->req.gids = a->gid_list;
	a->req.qos = a->qos;
	a->req.nodes = a->nodes;
	sacct_time_window(a->jobs != NULL, a->states != NULL, start, end, now, &a->req.start,
			  &a->req.end);
	if (a->req.end && a->req.start > a->req.end) {
		char s1[32], s2[32];

		cli_error("Start time (%s) requested is after end time (%s).",
			  time_display(a->req.start, s1, sizeof(s1)),
			  time_display(a->req.end, s2, sizeof(s2)));
		return -1;
	}
	/* -j without -u and root without -u see every user, as Slurm's sacct */
	if (!a->uid_list && (a->jobs || getuid() == 0))
		a->all_users = true;
	if (a->all_users)
		a->req.flags |= ACCT_Q_ALL_USERS;
	else
		a->req.uids = a->uid_list;
	if (a->no_steps)
		a->req.flags |= ACCT_Q_NO_STEPS;
	if ((a->brief && add_fields(a, SACCT_BRIEF_FIELDS) < 0)
	    || (a->long_list && add_fields(a, SACCT_LONG_FIELDS) < 0)
	    || (!a->fields && add_fields(a, env ? env : SACCT_DEFAULT_FIELDS) < 0))
		return -1;
	r = sacct_cols_add(&a->cols, a->fields, &bad);
	if (r == -EINVAL)
		cli_error("Invalid field requested: \"%s\"", bad ? bad : "");
	free(bad);
	return r < 0 ? -1 : 0;
}

static void print_rows(struct sacct *a, struct acct_rows *rows)
{
	if (!a->no_header)
		sacct_print_header(stdout, &a->cols, &a->out);
	for (uint32_t i = 0; i < rows->count; i++) {
		const struct acct_job_rec *j = &rows->jobs[i];

		if (sacct_job_shown(a->sels, a->n_sels, j))
			sacct_print_row(stdout, &a->cols, &a->out, j, NULL);
		for (uint32_t k = 0; !a->no_steps && k < j->step_count; k++)
			if (sacct_step_shown(a->sels, a->n_sels, j, &j->steps[k]))
				sacct_print_row(stdout, &a->cols, &a->out, j, &j->steps[k]);
	}
}

static int run(struct sacct *a)
{
	struct sl_conf *conf = NULL;
	struct acct_rows rows = {0};
	int r;

	if (cli_conf_load(&conf) < 0)
		return -1;
	a->out.cluster = conf->cluster_name;
	if (a->verbose) {
		char *line = sacct_window_line(a->states, a->req.start, a->req.end, time(NULL));

		if (line)
			fprintf(stderr, "%s: %s\n", cli_prog(), line);
		free(line);
	}
	r = acct_client_fetch(conf, &a->req, &rows);
	if (r == -ESLURM_DISABLED) {
		fputs("Slurm accounting storage is disabled\n", stderr);
	} else if (r < 0) {
		cli_error("Problem talking to the database: %s", sl_strerror(r));
	} else {
		a->out.now = time(NULL);
		sacct_rows_sort(rows.jobs, rows.count);
		/* -T: a running job ends now at the latest, not at a later -E */
		time_t cut_end = a->req.end && a->req.end < a->out.now ? a->req.end : a->out.now;

		for (uint32_t i = 0; a->truncate && i < rows.count; i++)
			sacct_truncate(&rows.jobs[i], a->req.start, cut_end);
		if (!a->dups)
			rows.count = (uint32_t)sacct_rows_dedup(rows.jobs, rows.count);
		if (a->is_doc)
			r = sacct_print_doc(stdout, a->doc_kind, conf->cluster_name, a->sels,
					    a->n_sels, rows.jobs, rows.count, !a->no_steps, a->argc,
					    a->argv);
		else
			print_rows(a, &rows);
		if (a->is_doc && fflush(stdout) != 0 && r == 0)
			r = -EIO;
		fflush(stdout);
		if (r < 0 && a->is_doc)
			cli_error("Unable to write the document: %s", sl_strerror(r));
	}
	acct_rows_done(&rows);
	conf_free(conf);
	return r < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct sacct a = {.out = {.parsable = SACCT_TABLE}, .argc = argc, .argv = argv};
	int r;

	/* the rows of a big query are many small allocations and a few large
	 * reply buffers: keep freed memory rather than faulting it in again */
	cli_big_heap();
	cli_init(argv[0]);
	r = parse_args(&a, argc, argv);
	if (r == 0 && a.help) {
		if (a.help == 1)
			fputs(help_text, stdout);
		else if (a.help == 2)
			sacct_print_field_names(stdout);
		else
			fputs(usage_text, stdout);
		r = 1;
	}
	if (r == 0)
		r = build(&a, time(NULL));
	if (r == 0)
		r = run(&a);
	sacct_cols_done(&a.cols);
	free(a.sels);
	free(a.req.job_ids);
	free(a.uid_list);
	free(a.fields);
	free(a.jobs);
	free(a.states);
	free(a.accounts);
	free(a.partitions);
	free(a.names);
	free(a.gid_list);
	free(a.qos);
	free(a.nodes);
	return r < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
