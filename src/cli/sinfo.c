/* sinfo.c - the sinfo command: options, two requests, print, repeat.
 *
 * Purpose: parse sinfo's options (and SINFO_* environment), fetch the
 * partition and node tables from slurmctld, and hand them to the format
 * engine (sinfo_fmt.c), once or every -i seconds.
 * Errors are Slurm's words: "slurm_load_partitions: <strerror>" when the
 * controller cannot be reached (exit 1), "Bad state string" for -t.
 * --json/--yaml print {"meta", "errors", "nodes", "partitions"} (v0.0.38
 * records, data_node.h and data_part.h) filtered by -p, -n, -t, -d, -r.
 * -T/--reservation prints the reservations table instead (sinfo_fmt.c).
 * Caveats: -M/--clusters and --federation are not implemented; -v
 * prints the date line as Slurm's does but not its option dump.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "api/ctld_fetch.h"
#include "cli/cli.h"
#include "cli/cli_data.h"
#include "cli/fmt.h"
#include "cli/sinfo_fmt.h"
#include "cli/sinfo_rec.h"
#include "common/conf.h"
#include "common/data_node.h"
#include "common/data_out.h"
#include "common/data_part.h"
#include "common/hostlist.h"
#include "common/macros.h"
#include "common/msg.h"

/* show_flags of the info requests (Slurm's SHOW_ALL). */
#define SINFO_SHOW_ALL 0x0001

enum { OPT_HELP = 0x100, OPT_USAGE, OPT_HIDE, OPT_NOCONVERT, OPT_LOCAL, OPT_JSON, OPT_YAML };

struct sinfo_cmd {
	struct sinfo_opts o;
	char *states; /* -t as given (owned copy) */
	int iterate;  /* -i seconds, 0: once */
	int verbose;
	bool reservation;   /* -T */
	enum cli_mime mime; /* --json / --yaml */
	int argc;	    /* the command line as typed, for meta.command */
	char **argv;
};

static const char usage_text[] =
    "Usage: sinfo [-adelNRrsTv] [-i seconds] [-t states] [-p partition] [-n nodes]\n"
    "             [-S fields] [-o format] [-O Format]\n";

static const char help_text[] =
    "Usage: sinfo [OPTIONS]\n"
    "  -a, --all                  show all partitions (including hidden and those\n"
    "                             not accessible)\n"
    "  -d, --dead                 show only non-responding nodes\n"
    "  -e, --exact                group nodes only on exact match of configuration\n"
    "  -h, --noheader             no headers on output\n"
    "  --hide                     do not show hidden or non-accessible partitions\n"
    "  -i, --iterate=seconds      specify an iteration period\n"
    "      --json                 Produce JSON output\n"
    "  -l, --long                 long output - displays more information\n"
    "  -n, --nodes=NODES          report on specific node(s)\n"
    "  -N, --Node                 Node-centric format\n"
    "  -o, --format=format        format specification\n"
    "  -O, --Format=format        long format specification\n"
    "  -p, --partition=PARTITION  report on specific partition\n"
    "  -r, --responding           report only responding nodes\n"
    "  -R, --list-reasons         list reason nodes are down or drained\n"
    "  -s, --summarize            report state summary only\n"
    "  -S, --sort=fields          comma separated list of fields to sort on\n"
    "  -t, --states=node_state    specify the what states of nodes to view\n"
    "  -T, --reservation          show only reservation information\n"
    "  -v, --verbose              verbosity level\n"
    "  -V, --version              output version information and exit\n"
    "      --yaml                 Produce YAML output\n"
    "\nHelp options:\n"
    "  --help                     show this help message\n"
    "  --usage                    display brief usage message\n";

/* -t: comma (or '&') separated words; prints Slurm's errors on failure. */
static int parse_states(struct sinfo_cmd *s, const char *arg)
{
	char *copy = strdup(arg), *save = NULL, *w;
	int r = copy ? 0 : -1;

	s->o.n_states = 0;
	if (copy && !strcasecmp(copy, "all")) {
		free(copy);
		return 0;
	}
	for (w = copy ? strtok_r(copy, ",&", &save) : NULL; w && r == 0;
	     w = strtok_r(NULL, ",&", &save)) {
		if (s->o.n_states >= SINFO_STATES_MAX
		    || sinfo_state_parse(w, &s->o.states[s->o.n_states]) < 0) {
			cli_error("Bad state string: \"%s\"", w);
			cli_error("valid states: %s", sinfo_state_names());
			r = -1;
		} else {
			s->o.n_states++;
		}
	}
	free(copy);
	return r;
}

/* SINFO_ALL, SINFO_PARTITION and SINFO_SORT, before the options. */
static void read_env(struct sinfo_cmd *s)
{
	if (getenv("SINFO_ALL"))
		s->o.all = true;
	if (getenv("SINFO_PARTITION")) {
		s->o.partitions = getenv("SINFO_PARTITION");
		s->o.all = true;
	}
	if (getenv("SINFO_ALL") && getenv("SINFO_PARTITION")) {
		cli_error("Conflicting options, SINFO_ALL and SINFO_PARTITION, specified. "
			  "Please choose one or the other.");
		exit(CLI_EXIT_ERROR);
	}
	s->o.sort = getenv("SINFO_SORT");
}

/* After the options: -a with -p, SINFO_FORMAT, -R's default states. */
static void args_finish(struct sinfo_cmd *s, bool opt_a, bool opt_p)
{
	if (opt_a && opt_p) {
		cli_error("Conflicting options, -a and -p, specified. "
			  "Please choose one or the other.");
		exit(CLI_EXIT_ERROR);
	}
	/* SINFO_FORMAT only replaces the plain default format. */
	if (!s->o.format && !s->o.format_long && !s->o.summarize && !s->o.node_flag
	    && !s->o.list_reasons)
		s->o.format = getenv("SINFO_FORMAT");
	if (s->o.list_reasons && !s->states && parse_states(s, "down,fail,drain") < 0)
		exit(CLI_EXIT_ERROR);
}

/* sinfo's long options, as getopt_long reads them. */
static const struct option sinfo_longopts[] = {
    {"all", no_argument, 0, 'a'},
    {"dead", no_argument, 0, 'd'},
    {"exact", no_argument, 0, 'e'},
    {"help", no_argument, 0, OPT_HELP},
    {"hide", no_argument, 0, OPT_HIDE},
    {"iterate", required_argument, 0, 'i'},
    {"json", no_argument, 0, OPT_JSON},
    {"local", no_argument, 0, OPT_LOCAL},
    {"long", no_argument, 0, 'l'},
    {"nodes", required_argument, 0, 'n'},
    {"noconvert", no_argument, 0, OPT_NOCONVERT},
    {"noheader", no_argument, 0, 'h'},
    {"Node", no_argument, 0, 'N'},
    {"format", required_argument, 0, 'o'},
    {"Format", required_argument, 0, 'O'},
    {"partition", required_argument, 0, 'p'},
    {"reservation", no_argument, 0, 'T'},
    {"responding", no_argument, 0, 'r'},
    {"list-reasons", no_argument, 0, 'R'},
    {"summarize", no_argument, 0, 's'},
    {"sort", required_argument, 0, 'S'},
    {"states", required_argument, 0, 't'},
    {"usage", no_argument, 0, OPT_USAGE},
    {"verbose", no_argument, 0, 'v'},
    {"version", no_argument, 0, 'V'},
    {"yaml", no_argument, 0, OPT_YAML},
    {NULL, 0, 0, 0},
};

static void parse_args(struct sinfo_cmd *s, int argc, char **argv)
{
	bool opt_a = false, opt_p = false;
	struct hostlist *hl = NULL;
	int c;

	read_env(s);
	while ((c = getopt_long(argc, argv, "adehi:ln:No:O:p:rRsS:t:TvV", sinfo_longopts, NULL))
	       != -1) {
		switch (c) {
		case 'a':
			opt_a = s->o.all = true;
			s->o.partitions = NULL;
			break;
		case 'd':
			s->o.dead = true;
			break;
		case 'e':
			s->o.exact = true;
			break;
		case 'h':
			s->o.no_header = true;
			break;
		case 'i':
			s->iterate = atoi(optarg);
			if (s->iterate <= 0) {
				cli_error("Error: invalid entry for --iterate=%s", optarg);
				exit(CLI_EXIT_ERROR);
			}
			break;
		case 'l':
			s->o.long_flag = true;
			break;
		case 'n':
			if (hostlist_new(optarg, &hl) < 0) {
				cli_error("'%s' invalid entry for --nodes", optarg);
				exit(CLI_EXIT_ERROR);
			}
			hl = hostlist_free(hl);
			s->o.nodes = optarg;
			break;
		case 'N':
			s->o.node_flag = true;
			break;
		case 'o':
			s->o.format = optarg;
			break;
		case 'O':
			s->o.format_long = optarg;
			s->o.format = NULL;
			break;
		case 'p':
			opt_p = s->o.all = true;
			s->o.partitions = optarg;
			break;
		case 'r':
			s->o.responding = true;
			break;
		case 'R':
			s->o.list_reasons = true;
			break;
		case 's':
			s->o.summarize = true;
			break;
		case 'S':
			s->o.sort = optarg;
			break;
		case 't':
			free(s->states);
			s->states = strdup(optarg);
			if (!s->states || parse_states(s, optarg) < 0)
				exit(CLI_EXIT_ERROR);
			break;
		case 'T':
			s->reservation = true;
			break;
		case 'v':
			s->verbose++;
			break;
		case 'V':
			cli_print_version();
			exit(CLI_EXIT_OK);
		case OPT_HELP:
			fputs(help_text, stdout);
			exit(CLI_EXIT_OK);
		case OPT_USAGE:
			fputs(usage_text, stdout);
			exit(CLI_EXIT_OK);
		case OPT_HIDE:
			s->o.all = false;
			break;
		case OPT_NOCONVERT:
		case OPT_LOCAL:
			break;
		case OPT_JSON:
		case OPT_YAML:
			s->mime = c == OPT_JSON ? CLI_MIME_JSON : CLI_MIME_YAML;
			break;
		default:
			fprintf(stderr, "Try \"sinfo --help\" for more information\n");
			exit(CLI_EXIT_ERROR);
		}
	}
	args_finish(s, opt_a, opt_p);
	if (s->mime && s->iterate) {
		cli_error("%s", "--json and --yaml can not be used with --iterate");
		exit(CLI_EXIT_ERROR);
	}
}

struct keep_arg {
	const struct sinfo_opts *o;
	const struct part_info_msg *parts;
	const struct hostlist *only;
};

static bool keep_part(const struct part_info *p, void *arg)
{
	return sinfo_part_wanted(((const struct keep_arg *)arg)->o, p);
}

/* A node passes -n/-t/-d/-r and, with -p, is in a listed partition. */
static bool keep_node(const struct node_info *n, void *arg)
{
	const struct keep_arg *k = arg;

	if (!sinfo_node_wanted(k->o, k->only, n))
		return false;
	if (!k->o->partitions)
		return true;
	for (uint32_t i = 0; i < k->parts->count; i++)
		if (sinfo_part_wanted(k->o, &k->parts->parts[i]) && n->partitions
		    && fmt_list_has(n->partitions, k->parts->parts[i].name, false))
			return true;
	return false;
}

/* --json / --yaml: nodes, then partitions. Returns 0 or -1. */
static int print_doc(const struct sinfo_cmd *s, const struct node_info_msg *nodes,
		     const struct part_info_msg *parts)
{
	struct hostlist *only = NULL;
	struct keep_arg k = {.o = &s->o, .parts = parts};
	struct dout *d;
	int r;

	if (s->o.nodes && hostlist_new(s->o.nodes, &only) < 0)
		return -1;
	k.only = only;
	d = cli_data_new(s->mime);
	if (d) {
		dout_obj(d, NULL);
		dout_meta(d, false, s->argc, s->argv);
		data_nodes_member(d, nodes, keep_node, &k);
		data_parts_member(d, parts, keep_part, &k);
		dout_end(d);
	}
	r = cli_data_print(d);
	hostlist_free(only);
	return r;
}

/* -T: the reservations table. Returns 0 or 1 (exit code). */
static int sinfo_resv_once(const struct sinfo_cmd *s, const struct sl_conf *conf)
{
	struct part_info_req req = {.show_flags = 0};
	struct resv_info_msg *m = NULL;
	int r = ctld_fetch(conf, REQUEST_RESERVATION_INFO, &req, RESPONSE_RESERVATION_INFO,
			   (void **)&m);

	if (r < 0) {
		cli_perror("slurm_load_reservations", r);
		return CLI_EXIT_ERROR;
	}
	sinfo_print_resv(stdout, m, s->o.no_header, time(NULL));
	msg_free(msg_lookup(RESPONSE_RESERVATION_INFO), m);
	return CLI_EXIT_OK;
}

/* One round: fetch both tables and print. Returns 0 or 1 (exit code). */
static int sinfo_once(const struct sinfo_cmd *s, const struct sl_conf *conf)
{
	struct part_info_req preq = {.show_flags = s->o.all ? SINFO_SHOW_ALL : 0};
	struct node_info_req nreq = {.show_flags = s->o.all ? SINFO_SHOW_ALL : 0};
	struct part_info_msg *parts = NULL;
	struct node_info_msg *nodes = NULL;
	int r;

	if (s->reservation)
		return sinfo_resv_once(s, conf);
	r = ctld_fetch(conf, REQUEST_PARTITION_INFO, &preq, RESPONSE_PARTITION_INFO,
		       (void **)&parts);
	if (r < 0) {
		cli_perror("slurm_load_partitions", r);
		return CLI_EXIT_ERROR;
	}
	r = ctld_fetch(conf, REQUEST_NODE_INFO, &nreq, RESPONSE_NODE_INFO, (void **)&nodes);
	if (r < 0) {
		cli_perror("slurm_load_node", r);
		msg_free(msg_lookup(RESPONSE_PARTITION_INFO), parts);
		return CLI_EXIT_ERROR;
	}
	if (s->mime) {
		r = print_doc(s, nodes, parts);
	} else {
		r = sinfo_print(stdout, &s->o, nodes, parts);
		if (r < 0)
			cli_error("%s", "Unable to print node information");
	}
	msg_free(msg_lookup(RESPONSE_NODE_INFO), nodes);
	msg_free(msg_lookup(RESPONSE_PARTITION_INFO), parts);
	return r < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
	/* meta.command is the command line as typed: getopt reorders argv */
	_cleanup_free_ char **typed = calloc((size_t)argc + 1, sizeof(*typed));
	struct sinfo_cmd s = {.o = {.format = NULL}, .argc = typed ? argc : 0, .argv = typed};
	struct sl_conf *conf = NULL;
	int rc = CLI_EXIT_OK;

	if (typed)
		memcpy(typed, argv, (size_t)argc * sizeof(*typed));
	cli_init(argv[0]);
	parse_args(&s, argc, argv);
	if (cli_conf_load(&conf) < 0)
		return CLI_EXIT_ERROR;
	s.o.cluster_name = conf->cluster_name;
	for (;;) {
		if (!s.mime && !s.o.no_header && (s.iterate || s.verbose || s.o.long_flag))
			sinfo_print_date(stdout, time(NULL));
		if (sinfo_once(&s, conf) != CLI_EXIT_OK)
			rc = CLI_EXIT_ERROR;
		if (!s.iterate)
			break;
		fputc('\n', stdout);
		fflush(stdout);
		sleep((unsigned)s.iterate);
	}
	free(s.states);
	conf_free(conf);
	return rc;
}
