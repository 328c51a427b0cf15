/* sprio.c - the sprio command: the factors of pending jobs' multifactor
 * priorities (REQUEST_PRIORITY_FACTORS), as Slurm 22.05's sprio prints them.
 *
 * Formats: by default "%.15i %9r" (+ "%.8u" with -u) "%.10Y %.10S" and one
 * column per factor whose weight is not 0 (%.10A %.10B %.10F %.10J %.10P
 * %.10Q, %.20T with TRES weights); -n the same with the normalized letters
 * (%10y %10a ... %20t, no SITE); -l every column:
 *   "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T"
 *   -n -l: "%.15i %9r %.8u %10y %10a %10b %10f %10j %10p %10q %20t"
 * Weighted values are factor x weight ("%.0f"), normalized ones "%.7f",
 * TRES terms that are 0 left out; PRIORITY is the job's priority (what
 * squeue shows); a priority set by an administrator shows with 0 factors.
 * -w prints the weights under the header (SITE 1, TRES as configured).
 * Under priority/basic it prints Slurm's "not running a supported priority
 * plugin" text and exits 1; -j matching nothing prints Slurm's "Unable to
 * find jobs matching user/id(s) specified".
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/ctld_fetch.h"
#include "api/id_name.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "common/conf.h"
#include "common/conf_prio.h"
#include "common/macros.h"
#include "common/msg.h"

#define OPT_HELP  0x100
#define OPT_USAGE 0x101

/* -l; without it Slurm's format leaves out the factors nobody weighs
 * (default_format) */
#define FMT_LONG      "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T"
#define FMT_NORM_LONG "%.15i %9r %.8u %10y %10a %10b %10f %10j %10p %10q %20t"

struct sprio_args {
	bool is_long, is_norm, is_weights, no_header;
	const char *format, *sort, *parts;
	struct prio_factors_req req;
};

/* What the cells need besides the reply: the local configuration's. */
struct out_ctx {
	const char *cluster;
	const char *weight_tres; /* PriorityWeightTRES as written */
};

enum col {
	C_JOBID,
	C_PART,
	C_USER,
	C_ACCOUNT,
	C_QOSNAME,
	C_CLUSTER,
	C_PRIO,
	C_SITE,
	C_NICE,
	/* factors: normalized and weighted */
	C_AGE,
	C_ASSOC,
	C_FS,
	C_JS,
	C_PARTF,
	C_QOS,
	C_TRES,
};

static const struct {
	char letter;
	enum col col;
	bool is_norm;
	const char *header;
} letters[] = {
    {'i', C_JOBID, false, "JOBID"},	{'r', C_PART, false, "PARTITION"},
    {'u', C_USER, false, "USER"},	{'o', C_ACCOUNT, false, "ACCOUNT"},
    {'n', C_QOSNAME, false, "QOSNAME"}, {'c', C_CLUSTER, false, "CLUSTER"},
    {'Y', C_PRIO, false, "PRIORITY"},	{'y', C_PRIO, true, "PRIORITY"},
    {'S', C_SITE, false, "SITE"},	{'N', C_NICE, false, "NICE"},
    {'A', C_AGE, false, "AGE"},		{'a', C_AGE, true, "AGE"},
    {'B', C_ASSOC, false, "ASSOC"},	{'b', C_ASSOC, true, "ASSOC"},
    {'F', C_FS, false, "FAIRSHARE"},	{'f', C_FS, true, "FAIRSHARE"},
    {'J', C_JS, false, "JOBSIZE"},	{'j', C_JS, true, "JOBSIZE"},
    {'P', C_PARTF, false, "PARTITION"}, {'p', C_PARTF, true, "PARTITION"},
    {'Q', C_QOS, false, "QOS"},		{'q', C_QOS, true, "QOS"},
    {'T', C_TRES, false, "TRES"},	{'t', C_TRES, true, "TRES"},
};

static int letter_id(char ch, const void *arg)
{
	(void)arg;
	for (size_t i = 0; i < ARRAY_SIZE(letters); i++)
		if (letters[i].letter == ch)
			return (int)i;
	return -1;
}

static void usage(FILE *f)
{
	fputs("Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n"
	      "     [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n",
	      f);
}

static void help(void)
{
	puts("Usage: sprio [OPTIONS]\n"
	     "  -h, --noheader                  no headers on output\n"
	     "  -j, --jobs                      comma separated list of jobs\n"
	     "                                  to view, default is all\n"
	     "  -l, --long                      long report\n"
	     "  -n, --norm                      display normalized values\n"
	     "  -o, --format=format             format specification\n"
	     "  -p, --partition=partition_name  comma separated list of partitions\n"
	     "  -S, --sort=sort_list            comma separated list of fields to sort on\n"
	     "  -u, --user=user_name            comma separated list of users to view\n"
	     "  -v, --verbose                   verbosity level\n"
	     "  -V, --version                   output version information and exit\n"
	     "  -w, --weights                   show the weights for each priority factor\n"
	     "\nHelp options:\n"
	     "  --help                          show this help message\n"
	     "  --usage                         display a brief summary of sprio options");
}

/* "12,13" -> req's ids; false with the bad word in *bad. */
static bool parse_ids(const char *s, struct prio_factors_req *r, bool is_user, const char **bad)
{
	_cleanup_free_ char *copy = strdup(s);
	char *save = NULL;

	if (!copy)
		return false;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		uint32_t **v = is_user ? &r->uids : &r->job_ids;
		uint32_t *n = is_user ? &r->uid_count : &r->job_id_count, id = 0;
		uint32_t *grown = realloc(*v, (*n + 1) * sizeof(**v));
		char *end;
		unsigned long long j;

		if (!grown)
			return false;
		*v = grown;
		if (is_user) {
			if (!id_name_uid_of(w, &id)) {
				*bad = s;
				return false;
			}
		} else {
			errno = 0;
			j = strtoull(w, &end, 10);
			if (!isdigit((unsigned char)*w) || *end || errno || !j || j >= NO_VAL) {
				*bad = s;
				return false;
			}
			id = (uint32_t)j;
		}
		(*v)[(*n)++] = id;
	}
	return true;
}

/* Returns -1 to go on, or the exit code. */
static int parse_args(int argc, char **argv, struct sprio_args *a)
{
	static const struct option longopts[] = {
	    {"noheader", no_argument, NULL, 'h'},
	    {"jobs", optional_argument, NULL, 'j'},
	    {"long", no_argument, NULL, 'l'},
	    {"cluster", required_argument, NULL, 'M'},
	    {"clusters", required_argument, NULL, 'M'},
	    {"norm", no_argument, NULL, 'n'},
	    {"format", required_argument, NULL, 'o'},
	    {"partition", required_argument, NULL, 'p'},
	    {"sort", required_argument, NULL, 'S'},
	    {"user", required_argument, NULL, 'u'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"version", no_argument, NULL, 'V'},
	    {"weights", no_argument, NULL, 'w'},
	    {"help", no_argument, NULL, OPT_HELP},
	    {"usage", no_argument, NULL, OPT_USAGE},
	    {"local", no_argument, NULL, 'L'},
	    {"federation", no_argument, NULL, 'L'},
	    {"sibling", no_argument, NULL, 'L'},
	    {NULL, 0, NULL, 0},
	};
	const char *bad = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "hj::lM:no:p:S:u:vVw", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			a->no_header = true;
			break;
		case 'j':
			if (optarg && !parse_ids(optarg, &a->req, false, &bad)) {
				cli_error("Invalid job id: %s", bad ? bad : optarg);
				return 1;
			}
			break;
		case 'l':
			a->is_long = true;
			break;
		case 'n':
			a->is_norm = true;
			break;
		case 'o':
			a->format = optarg;
			break;
		case 'p':
			a->parts = optarg;
			break;
		case 'S':
			a->sort = optarg;
			break;
		case 'u':
			if (!parse_ids(optarg, &a->req, true, &bad)) {
				cli_error("Invalid user: %s", bad ? bad : optarg);
				return 1;
			}
			break;
		case 'w':
			a->is_weights = true;
			break;
		case 'V':
			cli_print_version();
			return 0;
		case OPT_HELP:
			help();
			return 0;
		case OPT_USAGE:
			usage(stdout);
			return 0;
		case 'v':
		case 'M':
		case 'L':
			break; /* one cluster, no federation */
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		cli_error("Unrecognized option: %s", argv[optind]);
		usage(stderr);
		return 1;
	}
	return -1;
}

/* ---- cells ---- */

static double weight_of(const struct prio_factors_resp *r, enum col col)
{
	switch (col) {
	case C_AGE:
		return r->w_age;
	case C_ASSOC:
		return r->w_assoc;
	case C_FS:
		return r->w_fairshare;
	case C_JS:
		return r->w_job_size;
	case C_PARTF:
		return r->w_partition;
	case C_QOS:
		return r->w_qos;
	case C_TRES:
		return r->tres_count;
	default:
		return 1;
	}
}

static double factor_of(const struct prio_job_factors *j, enum col col)
{
	switch (col) {
	case C_AGE:
		return j->age;
	case C_ASSOC:
		return j->assoc;
	case C_FS:
		return j->fairshare;
	case C_JS:
		return j->job_size;
	case C_PARTF:
		return j->part;
	case C_QOS:
		return j->qos_f;
	default:
		return 0;
	}
}

/* "cpu=500,mem=250": the job's weighted (or normalized) TRES terms, those
 * that are 0 left out. */
static char *tres_str(const struct prio_factors_resp *r, const struct prio_job_factors *j,
		      bool is_norm, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < r->tres_count && j->tres && len < n; i++) {
		double v = is_norm ? j->tres[i] : j->tres[i] * r->tres_weights[i];
		int w;

		if (v == 0)
			continue;
		w = snprintf(buf + len, n - len, is_norm ? "%s%s=%.2f" : "%s%s=%.0f",
			     len ? "," : "", r->tres_names[i], v);
		len += w > 0 ? (size_t)w : 0;
	}
	return buf;
}

/* The weights line's cell: each factor's weight, SITE's 1, the TRES
 * weights as configured. */
static const char *weight_cell(const struct out_ctx *o, const struct prio_factors_resp *r,
			       enum col col, char *buf, size_t n)
{
	if (col == C_JOBID)
		return "Weights";
	if (col == C_SITE)
		return "1";
	if (col == C_TRES)
		return o->weight_tres ? o->weight_tres : "";
	if (col < C_AGE)
		return "";
	snprintf(buf, n, "%.0f", weight_of(r, col));
	return buf;
}

static const char *job_cell(const struct prio_factors_resp *r, const struct prio_job_factors *j,
			    int id, char *buf, size_t n)
{
	enum col col = letters[id].col;
	bool is_norm = letters[id].is_norm;

	switch (col) {
	case C_JOBID:
		snprintf(buf, n, "%u", j->job_id);
		return buf;
	case C_PART:
		return j->partition ? j->partition : "";
	case C_USER:
		if (!id_name_uid(j->user_id, buf, n))
			snprintf(buf, n, "%u", j->user_id);
		return buf;
	case C_ACCOUNT:
		return j->account ? j->account : "";
	case C_QOSNAME:
		return j->qos ? j->qos : "";
	case C_CLUSTER:
		return "";
	case C_PRIO:
		if (is_norm)
			snprintf(buf, n, "%16.14f", (double)j->priority / (double)UINT32_MAX);
		else
			snprintf(buf, n, "%u", j->priority);
		return buf;
	case C_SITE:
		return "0";
	case C_NICE:
		snprintf(buf, n, "%lld", (long long)j->nice - (long long)NICE_OFFSET);
		return buf;
	case C_TRES:
		return tres_str(r, j, is_norm, buf, n);
	default:
		break;
	}
	if (is_norm)
		snprintf(buf, n, "%.7f", factor_of(j, col));
	else
		snprintf(buf, n, "%.0f", factor_of(j, col) * weight_of(r, col));
	return buf;
}

/* Slurm's default format: the factors nobody weighs are left out (not with
 * -l), USER comes in with -u. */
static void default_format(const struct sprio_args *a, const struct prio_factors_resp *r, char *buf,
			   size_t n)
{
	static const struct {
		char letter;
		enum col col;
	} factors[] = {{'A', C_AGE},   {'B', C_ASSOC}, {'F', C_FS},  {'J', C_JS},
		       {'P', C_PARTF}, {'Q', C_QOS},   {'T', C_TRES}};
	size_t len;

	if (a->is_long) {
		snprintf(buf, n, "%s", a->is_norm ? FMT_NORM_LONG : FMT_LONG);
		return;
	}
	len = (size_t)snprintf(buf, n, "%%.15i %%9r%s%s", a->req.uid_count ? " %.8u" : "",
			       a->is_norm ? " %10y" : " %.10Y %.10S");
	for (size_t i = 0; i < ARRAY_SIZE(factors) && len < n; i++) {
		int w = 0;
		bool is_tres = factors[i].col == C_TRES;

		if (!weight_of(r, factors[i].col))
			continue;
		if (a->is_norm)
			w = snprintf(buf + len, n - len, is_tres ? " %%20%c" : " %%10%c",
				     tolower((unsigned char)factors[i].letter));
		else
			w = snprintf(buf + len, n - len, is_tres ? " %%.20%c" : " %%.10%c",
				     factors[i].letter);
		len += w > 0 ? (size_t)w : 0;
	}
}

static void print_line(const struct fmt_spec *f, const struct out_ctx *o,
		       const struct prio_factors_resp *r, const struct prio_job_factors *j,
		       int kind /* 0 header, 1 weights, 2 job */)
{
	char buf[512];

	for (size_t i = 0; i < f->n; i++) {
		const struct fmt_field *fl = &f->v[i];
		const char *v = "";

		if (fl->id >= 0)
			v = kind == 0	? letters[fl->id].header
			    : kind == 1 ? weight_cell(o, r, letters[fl->id].col, buf, sizeof(buf))
			    : letters[fl->id].col == C_CLUSTER
				? (o->cluster ? o->cluster : "")
				: job_cell(r, j, fl->id, buf, sizeof(buf));
		if (fl->id != FMT_LITERAL)
			fmt_put_cell(stdout, v, fl->width, fl->right, true);
		if (fl->suffix)
			fputs(fl->suffix, stdout);
	}
	putchar('\n');
}

/* ---- sort and filter ---- */

/* What -S sorts on; -1 for a letter it does not know. */
static int sort_key_ok(char key)
{
	return strchr("ciNnoruAaFfJjPpQqTtYy", key) ? 0 : -1;
}

static int cmp_double(double x, double y)
{
	return fabs(x - y) < 1e-9 ? 0 : x < y ? -1 : 1;
}

static int cmp_str(const char *x, const char *y)
{
	return strcmp(x ? x : "", y ? y : "");
}

static int cmp_key(const struct prio_factors_resp *r, const struct prio_job_factors *x,
		   const struct prio_job_factors *y, char key)
{
	char nx[64], ny[64];
	double tx = 0, ty = 0;

	switch (key) {
	case 'c':
		return 0; /* one cluster */
	case 'N':
		return x->nice < y->nice ? -1 : x->nice > y->nice;
	case 'n':
		return cmp_str(x->qos, y->qos);
	case 'o':
		return cmp_str(x->account, y->account);
	case 'r':
		return cmp_str(x->partition, y->partition);
	case 'u':
		if (!id_name_uid(x->user_id, nx, sizeof(nx)))
			snprintf(nx, sizeof(nx), "%u", x->user_id);
		if (!id_name_uid(y->user_id, ny, sizeof(ny)))
			snprintf(ny, sizeof(ny), "%u", y->user_id);
		return strcmp(nx, ny);
	case 'Y':
	case 'y':
		return x->priority < y->priority ? -1 : x->priority > y->priority;
	case 'T':
	case 't':
		for (uint32_t i = 0; i < r->tres_count; i++) {
			tx += x->tres ? x->tres[i] * r->tres_weights[i] : 0;
			ty += y->tres ? y->tres[i] * r->tres_weights[i] : 0;
		}
		return cmp_double(tx, ty);
	case 'i':
		return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
	default: { /* a factor: weighted and normalized sort the same */
		enum col col = letters[letter_id(key, NULL)].col;

		return cmp_double(factor_of(x, col), factor_of(y, col));
	}
	}
}

struct sort_ctx {
	const char *keys;
	const struct prio_factors_resp *r;
};

/* -S: keys left to right, '-' before one for descending; job id last. */
static int cmp_jobs(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *s = arg;

	for (const char *k = s->keys; *k; k++) {
		int r;

		if (*k == ',' || *k == '-' || *k == '+')
			continue;
		r = cmp_key(s->r, a, b, *k);
		if (r)
			return k > s->keys && k[-1] == '-' ? -r : r;
	}
	return cmp_key(s->r, a, b, 'i');
}

static int print_all(const struct sl_conf *conf, const struct sprio_args *a,
		     struct prio_factors_resp *r, const struct fmt_spec *f)
{
	const struct out_ctx o = {conf->cluster_name, conf->prio_weight_tres};
	struct sort_ctx sc = {.keys = a->sort ? a->sort : "i", .r = r};

	if (a->req.job_id_count && !r->count) {
		puts("Unable to find jobs matching user/id(s) specified");
		return 0;
	}
	if (!a->no_header)
		print_line(f, &o, r, NULL, 0);
	if (a->is_weights) {
		print_line(f, &o, r, NULL, 1);
		return 0;
	}
	if (r->count)
		qsort_r(r->jobs, r->count, sizeof(*r->jobs), cmp_jobs, &sc);
	for (uint32_t i = 0; i < r->count; i++)
		if (!a->parts || fmt_list_has(a->parts, r->jobs[i].partition, false))
			print_line(f, &o, r, &r->jobs[i], 2);
	return 0;
}

static int run(const struct sl_conf *conf, struct sprio_args *a)
{
	struct prio_factors_resp *r = NULL;
	struct fmt_spec f = {0};
	char fmt[256];
	int rc;

	for (const char *k = a->sort; k && *k; k++)
		if (*k != ',' && *k != '-' && *k != '+' && sort_key_ok(*k) < 0) {
			cli_error("Invalid sort specification: %c", *k);
			return 1;
		}
	rc = ctld_fetch(conf, REQUEST_PRIORITY_FACTORS, &a->req, RESPONSE_PRIORITY_FACTORS,
			(void **)&r);
	if (rc < 0) {
		cli_perror("Couldn't get priority factors from controller", rc);
		return 1;
	}
	if (!a->format)
		default_format(a, r, fmt, sizeof(fmt));
	if (fmt_parse_short(&f, a->format ? a->format : fmt, false, letter_id, NULL) < 0)
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < f.n; i++)
		if (f.v[i].id == FMT_INVALID) {
			cli_error("Invalid job format specification: %c", f.v[i].letter);
			rc = -EINVAL;
		}
	if (!rc)
		rc = print_all(conf, a, r, &f);
	fmt_spec_done(&f);
	msg_free(msg_lookup(RESPONSE_PRIORITY_FACTORS), r);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sprio_args a = {0};
	struct sl_conf *conf = NULL;
	int rc;

	cli_init(argv[0]);
	rc = parse_args(argc, argv, &a);
	if (rc < 0 && cli_conf_load(&conf) < 0)
		rc = 1;
	if (rc < 0
	    && (!conf->priority_type
		|| strcasecmp(conf->priority_type, "priority/multifactor") != 0)) {
		fprintf(stderr,
			"You are not running a supported priority plugin\n(%s).\n"
			"Only 'priority/multifactor' is supported.\n",
			conf->priority_type ? conf->priority_type : "priority/basic");
		rc = 1;
	}
	if (rc < 0)
		rc = run(conf, &a);
	free(a.req.job_ids);
	free(a.req.uids);
	conf_free(conf);
	return rc;
}
