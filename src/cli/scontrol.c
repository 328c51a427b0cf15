/* scontrol.c - the scontrol command: options, a verb table, one context.
 *
 * Purpose: run one command from the command line, or read commands from
 * stdin ("scontrol: " prompt) when none is given, as scontrol does.
 * Verbs and "show" entities are tables {name, least abbreviation, fn};
 * a word selects an entry when it is a case-insensitive prefix of at
 * least that many characters (Slurm's strncasecmp(word, name,
 * MAX(len, min))), tried in table order.
 * Owns: struct sctl, the whole state of one run (flags, exit code, the
 * configuration, loaded on first use so "show hostnames" needs none).
 * Errors use Slurm's words and streams: "Node n9 not found" on stdout,
 * "slurm_load_node error: <strerror>" on stderr; any error makes the
 * exit code 1.
 * Job verbs (show job, hold, uhold, release, requeue[hold], update
 * JobId=) live in scontrol_job.c, "show step" in scontrol_step.c, the
 * partition verbs in scontrol_part.c and the reservation verbs (create,
 * update, delete, show) in scontrol_resv.c; this file only dispatches
 * them.
 * Caveats: step updates, node creation and deletion, and the other show
 * entities, are not implemented ("invalid entity" / not supported).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "api/ctld_fetch.h"
#include "api/job_fetch.h"
#include "cli/cli.h"
#include "cli/scontrol_data.h"
#include "cli/scontrol_job.h"
#include "cli/scontrol_part.h"
#include "cli/scontrol_resv.h"
#include "cli/scontrol_show.h"
#include "cli/scontrol_step.h"
#include "cli/scontrol_token.h"
#include "cli/scontrol_wait.h"
#include "cli/scontrol_update.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_time.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"
#include "common/states.h"

#define SCONTROL_SHOW_ALL    0x0001 /* Slurm's SHOW_ALL */
#define SCONTROL_SHOW_DETAIL 0x0002 /* Slurm's SHOW_DETAIL */
#define SCONTROL_MAX_WORDS   128

struct sctl {
	struct sl_conf *conf; /* NULL until a verb needs it */
	bool one_liner, details, all;
	int quiet; /* 1: -Q, -1: -v, 0: normal */
	int exit_code;
	bool exit_flag;
	struct scontrol_data data; /* --json / --yaml */
};

typedef void verb_fn(struct sctl *s, int argc, char **argv);

struct verb {
	const char *name;
	size_t min;
	verb_fn *fn;
};

static const char usage_text[] =
    "scontrol [<OPTION>] [<COMMAND>]\n"
    "    Valid <OPTION> values are:\n"
    "     -a or --all: equivalent to \"all\" command\n"
    "     -d or --details: equivalent to \"details\" command\n"
    "     -h or --help: equivalent to \"help\" command\n"
    "     --hide: equivalent to \"hide\" command\n"
    "     -o or --oneliner: equivalent to \"oneliner\" command\n"
    "     -Q or --quiet: equivalent to \"quiet\" command\n"
    "     -v or --verbose: equivalent to \"verbose\" command\n"
    "     -V or --version: equivalent to \"version\" command\n"
    "\n"
    "  <keyword> may be omitted from the execute line and scontrol will execute\n"
    "  in interactive mode. It will process commands as entered until explicitly\n"
    "  terminated.\n"
    "\n"
    "    Valid <COMMAND> values are:\n"
    "     all                      display information about all partitions,\n"
    "                              including hidden partitions.\n"
    "     cancel_reboot <nodelist> Cancel pending reboot on nodes.\n"
    "     create <SPECIFICATIONS>  create a new partition or reservation\n"
    "     details                  evokes additional details from the \"show\"\n"
    "                              command\n"
    "     delete <SPECIFICATIONS>  delete the specified partition or reservation\n"
    "     errnumstr <ERRNO>        Given a Slurm error number, return a\n"
    "                              descriptive string.\n"
    "     exit                     terminate scontrol\n"
    "     help                     print this description of use.\n"
    "     hold <job_list>          prevent specified job from starting.\n"
    "     hide                     do not display information about hidden\n"
    "                              partitions\n"
    "     oneliner                 report output one record per line.\n"
    "     ping                     print status of slurmctld daemons.\n"
    "     quiet                    print no messages other than error messages.\n"
    "     quit                     terminate this command.\n"
    "     reboot [ASAP] [nextstate=] [reason=] <ALL|nodelist>  reboot nodes\n"
    "                              when they become idle.\n"
    "     reconfigure              re-read configuration files.\n"
    "     release <job_list>       permit specified job to start (see hold).\n"
    "     requeue <job_id>         re-queue a batch job.\n"
    "     requeuehold <job_id>     re-queue and hold a batch job.\n"
    "     show <ENTITY> [<ID>]     display state of identified entity, default\n"
    "                              is all records.\n"
    "     shutdown <OPTS>          shutdown slurm daemons\n"
    "     uhold <job_list>         place user hold on specified job (see hold).\n"
    "     update <SPECIFICATIONS>  update job, node, partition or reservation\n"
    "                              configuration\n"
    "     verbose                  enable detailed logging.\n"
    "     version                  display tool version number.\n"
    "\n"
    "  <ENTITY> may be \"config\", \"hostlist\", \"hostlistsorted\", \"hostnames\",\n"
    "       \"job\", \"licenses\", \"node\", \"partition\", \"reservation\" or \"step\".\n"
    "\n"
    "  <SPECIFICATIONS> are specified in the same format as the configuration\n"
    "  file. \"update NodeName=<name> State=<state> Reason=<text>\",\n"
    "  \"update JobId=<id> TimeLimit=<t> Partition=<p> NumNodes=<n> Name=<s>\n"
    "  Nice=<n> Priority=<n>\" and \"create|update ReservationName=<name>\n"
    "  StartTime=<t> Duration=<d> Nodes=<list>|NodeCnt=<n> PartitionName=<p>\n"
    "  Users=<list> Accounts=<list> Flags=<flags>\" are supported.\n";

static const struct verb *lookup(const struct verb *tab, size_t n, const char *word, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (cli_keyword_match(word, len, tab[i].name, tab[i].min))
			return &tab[i];
	return NULL;
}

static bool too_many(struct sctl *s, int argc, int max, const char *tag)
{
	if (argc <= max)
		return false;
	s->exit_code = CLI_EXIT_ERROR;
	fprintf(stderr, "too many arguments for keyword:%s\n", tag);
	return true;
}

/* The configuration, loaded once; NULL (exit code 1) when unreadable. */
static const struct sl_conf *conf_of(struct sctl *s)
{
	if (!s->conf && cli_conf_load(&s->conf) < 0) {
		s->conf = NULL;
		s->exit_code = CLI_EXIT_ERROR;
	}
	return s->conf;
}

/* Request to slurmctld; prints "<what> error: <strerror>" on failure. */
static void *fetch(struct sctl *s, uint16_t req_type, const void *req, uint16_t resp_type,
		   const char *what)
{
	const struct sl_conf *conf = conf_of(s);
	void *m = NULL;
	char msg[64];
	int r;

	if (!conf)
		return NULL;
	/* the job list comes in pages (job_fetch.c) */
	r = req_type == REQUEST_JOB_INFO
		? job_fetch_all(conf, (struct job_info_req *)req, (struct job_info_msg **)&m)
		: ctld_fetch(conf, req_type, req, resp_type, &m);
	if (r < 0) {
		s->exit_code = CLI_EXIT_ERROR;
		if (s->quiet != 1) {
			snprintf(msg, sizeof(msg), "%s error", what);
			cli_perror(msg, r);
		}
		return NULL;
	}
	return m;
}

/* -v (quiet -1): the header line before a job or step list. */
static void print_update_line(const struct sctl *s, time_t last_update, uint32_t count)
{
	char when[32];

	if (s->quiet == -1)
		printf("last_update_time=%s, records=%u\n",
		       time_display(last_update, when, sizeof(when)), count);
}

static struct scontrol_show_opts show_opts(const struct sctl *s)
{
	return (struct scontrol_show_opts){.one_liner = s->one_liner,
					   .details = s->details,
					   .slurmd_port = s->conf ? s->conf->slurmd_port : 6818,
					   .now = time(NULL)};
}

/* ---- show ---- */

static void show_nodes(struct sctl *s, const char *val)
{
	struct node_info_req req = {.show_flags = (s->all ? SCONTROL_SHOW_ALL : 0)
						  | (s->details ? SCONTROL_SHOW_DETAIL : 0)};
	struct node_info_msg *m =
	    fetch(s, REQUEST_NODE_INFO, &req, RESPONSE_NODE_INFO, "slurm_load_node");
	struct scontrol_show_opts o = show_opts(s);
	struct hostlist *hl = NULL;
	uint32_t shown = 0;

	if (!m)
		return;
	if (s->data.mime) {
		if (scontrol_data_nodes(&s->data, m, val) < 0)
			s->exit_code = CLI_EXIT_ERROR;
	} else if (!val) {
		for (uint32_t i = 0; i < m->count; i++)
			if (m->nodes[i].name && ++shown)
				scontrol_show_node(stdout, &m->nodes[i], &o);
		if (!shown && s->quiet != 1)
			printf("No nodes in the system\n");
	} else if (hostlist_new(val, &hl) < 0) {
		s->exit_code = CLI_EXIT_ERROR;
		if (s->quiet != 1)
			fprintf(stderr, "unable to parse node list %s\n", val);
	} else {
		for (size_t h = 0; h < hostlist_count(hl); h++) {
			const char *name = hostlist_nth(hl, h);
			uint32_t i = 0;

			while (i < m->count
			       && (!m->nodes[i].name || strcmp(m->nodes[i].name, name)))
				i++;
			if (i < m->count) {
				scontrol_show_node(stdout, &m->nodes[i], &o);
				continue;
			}
			s->exit_code = CLI_EXIT_ERROR;
			if (s->quiet != 1)
				printf("Node %s not found\n", name);
		}
		hostlist_free(hl);
	}
	msg_free(msg_lookup(RESPONSE_NODE_INFO), m);
}

static void show_parts(struct sctl *s, const char *val)
{
	struct part_info_req req = {.show_flags = s->all ? SCONTROL_SHOW_ALL : 0};
	struct part_info_msg *m = fetch(s, REQUEST_PARTITION_INFO, &req, RESPONSE_PARTITION_INFO,
					"slurm_load_partitions");
	struct scontrol_show_opts o = show_opts(s);
	uint32_t shown = 0;

	if (!m)
		return;
	if (s->data.mime) {
		if (scontrol_data_parts(&s->data, m, val, s->all) < 0)
			s->exit_code = CLI_EXIT_ERROR;
		msg_free(msg_lookup(RESPONSE_PARTITION_INFO), m);
		return;
	}
	for (uint32_t i = 0; i < m->count; i++) {
		const struct part_info *p = &m->parts[i];

		if (val ? strcmp(p->name, val) != 0 : (p->flags & PART_FLAG_HIDDEN) && !s->all)
			continue;
		scontrol_show_part(stdout, p, &o);
		shown++;
	}
	if (!shown && val) {
		s->exit_code = CLI_EXIT_ERROR;
		if (s->quiet != 1)
			printf("Partition %s not found\n", val);
	} else if (!shown && s->quiet != 1) {
		printf("No partitions in the system\n");
	}
	msg_free(msg_lookup(RESPONSE_PARTITION_INFO), m);
}

/* show licenses [NAME]: Slurm's lines, one per license. */
static void show_licenses(struct sctl *s, const char *val)
{
	struct part_info_req req = {0};
	struct license_info_msg *m =
	    fetch(s, REQUEST_LICENSE_INFO, &req, RESPONSE_LICENSE_INFO, "slurm_load_licenses");

	if (!m)
		return;
	if (!m->count && s->quiet != 1)
		printf("No licenses configured in Slurm.\n");
	for (uint32_t i = 0; i < m->count; i++) {
		const struct license_info *l = &m->lics[i];

		if (val && strcmp(l->name, val))
			continue;
		printf("LicenseName=%s%sTotal=%u Used=%u Free=%u Reserved=%u Remote=%s\n", l->name,
		       s->one_liner ? " " : "\n    ", l->total, l->in_use, l->available,
		       l->reserved, l->is_remote ? "yes" : "no");
	}
	msg_free(msg_lookup(RESPONSE_LICENSE_INFO), m);
}

/* The controller's name as Slurm prints it: "localhost" becomes this
 * host's short name, as Slurm's configuration reader does. */
static void ctld_name(const struct sl_conf *c, char *buf, size_t n)
{
	const char *m = c->control_machine ? c->control_machine : "(null)";

	if (!strcasecmp(m, "localhost") && gethostname(buf, n) == 0) {
		buf[n - 1] = '\0';
		buf[strcspn(buf, ".")] = '\0';
		return;
	}
	snprintf(buf, n, "%s", m);
}

static void ping(struct sctl *s)
{
	const struct sl_conf *conf = conf_of(s);
	struct empty_msg req = {0};
	uint16_t rtype = 0;
	void *resp = NULL;
	const char *ctld;
	char host[256];
	bool up;

	if (!conf)
		return;
	ctld = conf->control_addr ? conf->control_addr : conf->control_machine;
	/* one try, not the commands' retry for MessageTimeout: a ping says
	 * how the controller is now */
	up = ctld
	     && rpc_call_addr(conf, ctld, conf->slurmctld_port, REQUEST_PING, &req, &rtype, &resp)
		    == 0
	     && rtype == RESPONSE_SLURM_RC && ((struct rc_msg *)resp)->rc == 0;
	if (resp)
		msg_free(msg_lookup(rtype), resp);
	ctld_name(conf, host, sizeof(host));
	printf("Slurmctld(primary) at %s is %s\n", host, up ? "UP" : "DOWN");
	if (!up && getuid() == 0) {
		printf("*****************************************\n");
		printf("** RESTORE SLURMCTLD DAEMON TO SERVICE **\n");
		printf("*****************************************\n");
	}
	s->exit_code = up ? CLI_EXIT_OK : CLI_EXIT_ERROR; /* as Slurm: ping sets it either way */
}

static void show_config(struct sctl *s, const char *val _unused_)
{
	struct empty_msg req = {0};
	struct build_info_msg *b =
	    fetch(s, REQUEST_BUILD_INFO, &req, RESPONSE_BUILD_INFO, "slurm_load_ctl_conf");

	if (!b)
		return;
	scontrol_show_config(stdout, b);
	printf("\n");
	msg_free(msg_lookup(RESPONSE_BUILD_INFO), b);
	ping(s);
}

static void e_config(struct sctl *s, int argc _unused_, char **argv)
{
	show_config(s, argv[0]);
}
static void e_hostnames(struct sctl *s _unused_, int argc _unused_, char **argv)
{
	const char *val = argv[0] ? argv[0] : getenv("SLURM_NODELIST");

	if (!val)
		cli_error("host list is empty");
	else
		(void)scontrol_show_hostnames(stdout, val); /* Slurm keeps the exit code */
}

static void hostlist_cmd(struct sctl *s, const char *val, bool sorted)
{
	if (!val) {
		s->exit_code = CLI_EXIT_ERROR;
		fprintf(stderr, "invalid encode argument\n");
		fputs(usage_text, stdout);
	} else if (scontrol_show_hostlist(stdout, val, sorted) < 0) {
		s->exit_code = CLI_EXIT_ERROR;
	}
}

static void e_hostlist(struct sctl *s, int argc _unused_, char **argv)
{
	hostlist_cmd(s, argv[0], false);
}

static void e_hostlistsorted(struct sctl *s, int argc _unused_, char **argv)
{
	hostlist_cmd(s, argv[0], true);
}

/* show job [id]: the controller sends that job (an array's id: all its
 * tasks), filtered exactly here (a single unknown id is what
 * slurm_load_job() reports as "Invalid job id specified"). */
static void e_jobs(struct sctl *s, int argc _unused_, char **argv)
{
	const char *val = argv[0];
	struct job_info_req req = {.show_flags = (s->all ? SCONTROL_SHOW_ALL : 0)
						 | (s->details ? SCONTROL_SHOW_DETAIL : 0)};
	struct scontrol_show_opts o;
	struct job_info_msg *m;
	int r;

	if (val && !scontrol_job_id_valid(val)) {
		s->exit_code = CLI_EXIT_ERROR;
		if (s->quiet != 1)
			cli_perror("scontrol_print_job error", -ESLURM_INVALID_JOB_ID);
		return;
	}
	req.job_ids = (char *)val;
	m = fetch(s, REQUEST_JOB_INFO, &req, RESPONSE_JOB_INFO, "slurm_load_jobs");
	if (!m)
		return;
	o = show_opts(s);
	if (s->data.mime) {
		r = scontrol_data_jobs(&s->data, m, val);
	} else {
		print_update_line(s, m->last_update, m->count);
		r = scontrol_job_print(stdout, m, val, &o, s->quiet);
	}
	if (r < 0)
		s->exit_code = CLI_EXIT_ERROR;
	if (r == -ESLURM_INVALID_JOB_ID && s->quiet != 1)
		cli_perror("slurm_load_jobs error", r);
	msg_free(msg_lookup(RESPONSE_JOB_INFO), m);
}

/* show step [JOB[_TASK][.STEP]]: the controller filters by job and step;
 * an array task is looked up in the whole list. */
static void e_steps(struct sctl *s, int argc _unused_, char **argv)
{
	const char *val = argv[0];
	struct scontrol_step_id id;
	struct step_info_req req = {.show_flags = s->all ? SCONTROL_SHOW_ALL : 0};
	struct scontrol_show_opts o;
	struct step_info_msg *m;

	scontrol_step_id_parse(val, &id);
	req.job_id = id.array_id == NO_VAL ? id.job_id : NO_VAL;
	req.step_id = id.array_id == NO_VAL ? id.step_id : NO_VAL;
	m = fetch(s, REQUEST_JOB_STEP_INFO, &req, RESPONSE_JOB_STEP_INFO, "slurm_get_job_steps");
	if (!m)
		return;
	o = show_opts(s);
	print_update_line(s, m->last_update, m->count);
	if (scontrol_step_print(stdout, m, val, &o, s->quiet) < 0)
		s->exit_code = CLI_EXIT_ERROR;
	msg_free(msg_lookup(RESPONSE_JOB_STEP_INFO), m);
}

static void e_nodes(struct sctl *s, int argc _unused_, char **argv)
{
	show_nodes(s, argv[0]);
}
static void e_parts(struct sctl *s, int argc _unused_, char **argv)
{
	show_parts(s, argv[0]);
}
static void e_licenses(struct sctl *s, int argc _unused_, char **argv)
{
	show_licenses(s, argv[0]);
}
/* show reservation [NAME]: Slurm's records (scontrol_resv.c). */
static void e_resv(struct sctl *s, int argc _unused_, char **argv)
{
	struct part_info_req req = {0};
	struct resv_info_msg *m = fetch(s, REQUEST_RESERVATION_INFO, &req,
					RESPONSE_RESERVATION_INFO, "slurm_load_reservations");

	if (!m)
		return;
	if (scontrol_resv_show(stdout, m, argv[0], s->one_liner, s->quiet == 1, time(NULL)) < 0)
		s->exit_code = CLI_EXIT_ERROR;
	msg_free(msg_lookup(RESPONSE_RESERVATION_INFO), m);
}

/* Entities of "show", in the order scontrol tries them. Their fn gets the
 * value (or NULL) in argv[0]. */
static const struct verb entities[] = {
    {"config", 1, e_config},	 {"hostnames", 5, e_hostnames},
    {"hostlist", 5, e_hostlist}, {"hostlistsorted", 9, e_hostlistsorted},
    {"jobs", 1, e_jobs},	 {"jobid", 1, e_jobs},
    {"licenses", 2, e_licenses}, {"nodes", 1, e_nodes},
    {"partitions", 2, e_parts},	 {"partitionname", 2, e_parts},
    {"reservations", 1, e_resv}, {"reservationname", 1, e_resv},
    {"steps", 2, e_steps},
};

static void v_show(struct sctl *s, int argc, char **argv)
{
	const struct verb *e;
	char *tag, *val;
	size_t len;

	if (argc < 2) {
		s->exit_code = CLI_EXIT_ERROR;
		if (s->quiet != 1)
			fprintf(stderr, "too few arguments for keyword:%s\n", argv[0]);
		return;
	}
	if (argc > 3) {
		s->exit_code = CLI_EXIT_ERROR;
		if (s->quiet != 1)
			fprintf(stderr, "too many arguments for keyword:%s\n", argv[0]);
		return;
	}
	tag = argv[1];
	val = strchr(tag, '=');
	len = val ? (size_t)(val - tag) : strlen(tag);
	val = val ? val + 1 : argc == 3 ? argv[2] : NULL;
	e = lookup(entities, ARRAY_SIZE(entities), tag, len);
	if (e && s->data.mime && e->fn != e_jobs && e->fn != e_nodes && e->fn != e_parts) {
		s->exit_code = CLI_EXIT_ERROR;
		fprintf(stderr, "--json and --yaml are only supported by show job, node and "
				"partition\n");
		return;
	}
	if (e) {
		e->fn(s, 1, &val);
		return;
	}
	s->exit_code = CLI_EXIT_ERROR;
	if (s->quiet != 1)
		fprintf(stderr, "invalid entity:%s for keyword:%s \n", tag, argv[0]);
}

/* ---- update NodeName=... ---- */

static void update_node(struct sctl *s, int argc, char **argv)
{
	struct update_node_msg m;
	const struct sl_conf *conf;
	int r;

	if (scontrol_update_node_parse(argc, argv, &m) < 0) {
		s->exit_code = CLI_EXIT_ERROR;
		return;
	}
	if (!(conf = conf_of(s)))
		return;
	r = rpc_call_ctld_rc(conf, REQUEST_UPDATE_NODE, &m);
	if (r < 0) {
		s->exit_code = CLI_EXIT_ERROR;
		cli_perror("slurm_update error", r);
	}
}

/* update JobId=...: "<strerror> for job N" per failure, then Slurm's
 * "slurm_update error: <strerror>". */
static void update_job(struct sctl *s, int argc, char **argv)
{
	const struct sl_conf *conf = conf_of(s);
	int r;

	if (!conf)
		return;
	r = scontrol_job_update(conf, argc, argv, s->quiet);
	if (r == 0)
		return;
	s->exit_code = CLI_EXIT_ERROR;
	if (r > 0)
		cli_perror("slurm_update error", r);
}

static void v_update(struct sctl *s, int argc, char **argv)
{
	bool node = false, other = false, job = false, part = false, resv = false;
	const struct sl_conf *conf;

	if (argc < 2) {
		s->exit_code = CLI_EXIT_ERROR;
		fprintf(stderr, "too few arguments for %s keyword\n", argv[0]);
		return;
	}
	for (int i = 1; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t len = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);

		if (cli_keyword_match(argv[i], len, "NodeName", 3))
			node = true;
		else if (cli_keyword_match(argv[i], len, "JobId", 3)
			 || cli_keyword_match(argv[i], len, "JobName", 3))
			job = true;
		else if (cli_keyword_match(argv[i], len, "PartitionName", 3))
			part = true;
		else if (cli_keyword_match(argv[i], len, "ReservationName", 3))
			resv = true;
		else if (cli_keyword_match(argv[i], len, "StepId", 4)
			 || cli_keyword_match(argv[i], len, "SlurmctldDebug", 2))
			other = true;
	}
	if (job) { /* first, as Slurm: a job update may name a partition */
		update_job(s, argc - 1, argv + 1);
	} else if (other) { /* entities Slurm knows that this build cannot update yet */
		s->exit_code = CLI_EXIT_ERROR;
		cli_perror("slurm_update error", -ESLURM_NOT_SUPPORTED);
	} else if (resv) { /* before nodes and partitions: it may name a partition */
		if (!(conf = conf_of(s)) || scontrol_resv_update(conf, argc - 1, argv + 1) < 0)
			s->exit_code = CLI_EXIT_ERROR;
	} else if (node) {
		update_node(s, argc - 1, argv + 1);
	} else if (part) {
		if (!(conf = conf_of(s))
		    || scontrol_part_edit(conf, REQUEST_UPDATE_PARTITION, argc - 1, argv + 1) < 0)
			s->exit_code = CLI_EXIT_ERROR;
	} else {
		s->exit_code = CLI_EXIT_ERROR;
		fprintf(stderr, "No valid entity in update command\n");
		fprintf(stderr, "Input line must include \"NodeName\", \"PartitionName\", "
				"\"Reservation\", \"JobId\", or \"SlurmctldDebug\"\n");
	}
}

/* create ...: the first word that names an entity (Slurm's test: at
 * least three letters of NodeName, PartitionName or ReservationName, as
 * in "create reservation StartTime=..." or "create res ...") says which. */
static void v_create(struct sctl *s, int argc, char **argv)
{
	const struct sl_conf *conf;

	if (argc < 2) {
		s->exit_code = CLI_EXIT_ERROR;
		fprintf(stderr, "too few arguments for keyword:%s\n", argv[0]);
		return;
	}
	for (int i = 1; i < argc; i++) {
		size_t len = strcspn(argv[i], "=");
		int r = 0;

		if (cli_keyword_match(argv[i], len, "NodeName", 3)) {
			cli_perror("Error creating", -ESLURM_NOT_SUPPORTED);
			r = -1;
		} else if (cli_keyword_match(argv[i], len, "PartitionName", 3)) {
			conf = conf_of(s);
			r = conf ? scontrol_part_edit(conf, REQUEST_CREATE_PARTITION, argc - 1,
						      argv + 1)
				 : -1;
		} else if (cli_keyword_match(argv[i], len, "ReservationName", 3)) {
			conf = conf_of(s);
			r = conf ? scontrol_resv_create(conf, argc - 1, argv + 1) : -1;
		} else {
			continue;
		}
		if (r < 0)
			s->exit_code = CLI_EXIT_ERROR;
		return;
	}
	s->exit_code = CLI_EXIT_ERROR;
	cli_error("Invalid creation entity: %s", argv[1]);
}

/* delete ENTITY=ID or delete ENTITY ID, as Slurm reads them; tag is the
 * entity word as typed (the error prefixes echo it). */
static int delete_entity(struct sctl *s, const char *tag, size_t len, const char *val)
{
	bool is_node = cli_keyword_match(tag, len, "NodeName", 3);
	bool is_resv = cli_keyword_match(tag, len, "ReservationName", 3);
	_cleanup_free_ char *word = NULL;
	const struct sl_conf *conf;
	char what[64];

	if (!is_node && !is_resv && !cli_keyword_match(tag, len, "PartitionName", 3)) {
		fprintf(stderr, "Invalid deletion entity: %s\n", tag);
		return -1;
	}
	if (!(conf = conf_of(s)))
		return -1;
	if (is_node) {
		snprintf(what, sizeof(what), "delete_node %s", tag);
		cli_perror(what, -ESLURM_NOT_SUPPORTED);
		return -1;
	}
	if (is_resv)
		return scontrol_resv_delete(conf, tag, val);
	/* scontrol_part_edit reads a "PartitionName=NAME" word */
	if (tag[len] != '=' && asprintf(&word, "PartitionName=%s", val) < 0) {
		word = NULL;
		return -1;
	}
	return scontrol_part_edit(conf, REQUEST_DELETE_PARTITION, 1, word ? &word : (char **)&tag);
}

static void v_delete(struct sctl *s, int argc, char **argv)
{
	const char *eq = argc == 2 ? strchr(argv[1], '=') : NULL;

	if (argc < 2) {
		s->exit_code = CLI_EXIT_ERROR;
		fprintf(stderr, "too few arguments for keyword:%s\n", argv[0]);
	} else if (argc > 3 || (argc == 2 && !eq)) {
		s->exit_code = CLI_EXIT_ERROR;
		cli_error("Proper format is 'delete <ENTITY>=<ID>' or 'delete <ENTITY> <ID>'");
	} else if (delete_entity(s, argv[1], eq ? (size_t)(eq - argv[1]) : strlen(argv[1]),
				 eq ? eq + 1 : argv[2])
		   < 0) {
		s->exit_code = CLI_EXIT_ERROR;
	}
}

/* ---- job verbs ---- */

static bool too_few(struct sctl *s, int argc, const char *tag)
{
	if (argc >= 2)
		return false;
	s->exit_code = CLI_EXIT_ERROR;
	if (s->quiet != 1)
		fprintf(stderr, "too few arguments for keyword:%s\n", tag);
	return true;
}

/* hold, holdu, uhold, release: Slurm closes each failed argument with
 * "slurm_suspend error: <strerror>" (sic). */
static void v_hold(struct sctl *s, int argc, char **argv)
{
	const struct sl_conf *conf;

	if (too_few(s, argc, argv[0]) || !(conf = conf_of(s)))
		return;
	for (int i = 1; i < argc; i++) {
		int r = scontrol_job_hold(conf, argv[0], argv[i], s->quiet);

		if (r == 0)
			continue;
		s->exit_code = CLI_EXIT_ERROR;
		if (r > 0 && s->quiet != 1)
			cli_perror("slurm_suspend error", r);
	}
}

/* requeue [Incomplete|State=SpecialExit] ids; requeuehold likewise. */
static void v_requeue(struct sctl *s, int argc, char **argv)
{
	bool hold = strlen(argv[0]) > 7;
	const struct sl_conf *conf;
	int i = 1;

	if (too_few(s, argc, argv[0]) || !(conf = conf_of(s)))
		return;
	while (i < argc && scontrol_job_requeue_flag(argv[i]))
		i++;
	for (; i < argc; i++)
		if (scontrol_job_requeue(conf, hold, argv[i], s->quiet) != 0)
			s->exit_code = CLI_EXIT_ERROR;
}

/* ---- the other verbs ---- */

/* Verbs that only set a flag of the session (and reject extra words,
 * except "all" and "hide"), plus ping/help/version. */
static void v_flag(struct sctl *s, int argc, char **argv)
{
	const char *w = argv[0];
	size_t len = strlen(w);

	if (!cli_keyword_match(w, len, "all", 2) && !cli_keyword_match(w, len, "hide", 2)
	    && argc > 1) {
		s->exit_code = CLI_EXIT_ERROR;
		if (cli_keyword_match(w, len, "verbose", 4)
		    || cli_keyword_match(w, len, "version", 4))
			fprintf(stderr, "too many arguments for %s keyword\n", w);
		else
			fprintf(stderr, "too many arguments for keyword:%s\n", w);
		if (cli_keyword_match(w, len, "details", 1))
			return;
	}
	if (cli_keyword_match(w, len, "all", 2))
		s->all = true;
	else if (cli_keyword_match(w, len, "details", 1))
		s->details = true;
	else if (cli_keyword_match(w, len, "hide", 2))
		s->all = s->details = false;
	else if (cli_keyword_match(w, len, "oneliner", 1))
		s->one_liner = true;
	else if (cli_keyword_match(w, len, "quiet", 4))
		s->quiet = 1;
	else if (cli_keyword_match(w, len, "verbose", 4))
		s->quiet = -1;
	else if (cli_keyword_match(w, len, "help", 2))
		fputs(usage_text, stdout);
	else if (cli_keyword_match(w, len, "version", 4))
		cli_print_version();
	else if (cli_keyword_match(w, len, "ping", 3))
		ping(s);
	else
		s->exit_flag = true; /* exit, quit */
}

static void v_errnumstr(struct sctl *s, int argc, char **argv)
{
	char *end = NULL;
	long n;

	if (argc != 2) {
		s->exit_code = CLI_EXIT_ERROR;
		fprintf(stderr, "one arguments required for keyword:%s\n", argv[0]);
		return;
	}
	n = strtol(argv[1], &end, 10);
	if (*end || !*argv[1]) {
		s->exit_code = CLI_EXIT_ERROR;
		fprintf(stderr, "numeric arguments required for keyword:%s\n", argv[0]);
		return;
	}
	printf("%s\n", sl_strerror((int)n));
}
static void v_reconfigure(struct sctl *s, int argc, char **argv)
{
	struct empty_msg req = {0};
	const struct sl_conf *conf;
	struct sl_conf *whole;
	int r;

	too_many(s, argc, 2, argv[0]);
	if (!(conf = conf_of(s)))
		return;
	/* the whole file as the daemons will read it, nodes and partitions
	 * too: an admin hears where it is broken before the controller does */
	if (cli_conf_load_nodes(&whole) < 0) {
		s->exit_code = CLI_EXIT_ERROR;
		return;
	}
	conf_free(whole);
	r = rpc_call_ctld_rc(conf, REQUEST_RECONFIGURE, &req);
	if (r < 0) {
		s->exit_code = CLI_EXIT_ERROR;
		if (s->quiet != 1)
			cli_perror("slurm_reconfigure error", r);
	}
}
/* reboot [ASAP] [nextstate=RESUME|DOWN] [reason=...] ALL|NodeList */
static void v_reboot(struct sctl *s, int argc, char **argv)
{
	const struct sl_conf *conf;
	struct reboot_msg m;
	int r;

	if (too_few(s, argc, argv[0]))
		return;
	if (scontrol_reboot_parse(argc - 1, argv + 1, &m) < 0) {
		s->exit_code = CLI_EXIT_ERROR;
		return;
	}
	if (!(conf = conf_of(s)))
		return;
	if (!conf->reboot_program) {
		s->exit_code = CLI_EXIT_ERROR;
		fprintf(stderr, "RebootProgram isn't defined\n");
		return;
	}
	r = rpc_call_ctld_rc(conf, REQUEST_REBOOT_NODES, &m);
	if (r < 0) {
		s->exit_code = CLI_EXIT_ERROR;
		if (s->quiet != 1)
			cli_perror("scontrol_reboot_nodes error", r);
	}
}
/* cancel_reboot NodeList: State=CANCEL_REBOOT on those nodes. */
static void v_cancel_reboot(struct sctl *s, int argc, char **argv)
{
	struct update_node_msg m = {.weight = NO_VAL, .state = NODE_UPDATE_CANCEL_REBOOT};
	const struct sl_conf *conf;
	int r;

	if (too_few(s, argc, argv[0]) || too_many(s, argc, 2, argv[0]))
		return;
	if (!(conf = conf_of(s)))
		return;
	m.node_names = argv[1];
	r = rpc_call_ctld_rc(conf, REQUEST_UPDATE_NODE, &m);
	if (r < 0) {
		s->exit_code = CLI_EXIT_ERROR;
		if (s->quiet != 1)
			cli_perror("slurm_update error", r);
	}
}
static void v_shutdown(struct sctl *s, int argc, char **argv)
{
	struct shutdown_msg req = {.options = 0};
	const struct sl_conf *conf;
	int r;

	if (argc == 2 && (!strcmp(argv[1], "slurmctld") || !strcmp(argv[1], "controller"))) {
		req.options = 1;
	} else if (argc == 2) {
		s->exit_code = CLI_EXIT_ERROR;
		fprintf(stderr, "invalid shutdown argument:%s\n", argv[1]);
		return;
	} else if (too_many(s, argc, 2, argv[0])) {
		return;
	}
	if (!(conf = conf_of(s)))
		return;
	r = rpc_call_ctld_rc(conf, REQUEST_SHUTDOWN, &req);
	if (r < 0) {
		s->exit_code = CLI_EXIT_ERROR;
		if (s->quiet != 1)
			cli_perror("slurm_shutdown error", r);
	}
}
static void v_token(struct sctl *s, int argc, char **argv)
{
	const struct sl_conf *conf = conf_of(s);

	if (conf && scontrol_token(conf, argc, argv) != 0)
		s->exit_code = CLI_EXIT_ERROR;
}
static void v_wait_job(struct sctl *s, int argc, char **argv)
{
	const struct sl_conf *conf = conf_of(s);
	int r;

	if (!conf)
		return;
	r = scontrol_wait_job(conf, argc, argv);
	if (r != 0)
		s->exit_code = r;
}
/* Verbs in the order scontrol tries them; min is the least abbreviation. */
static const struct verb verbs[] = {
    {"all", 2, v_flag},
    {"cancel_reboot", 13, v_cancel_reboot},
    {"create", 2, v_create},
    {"delete", 3, v_delete},
    {"details", 1, v_flag},
    {"errnumstr", 2, v_errnumstr},
    {"exit", 2, v_flag},
    {"help", 2, v_flag},
    {"hide", 2, v_flag},
    {"oneliner", 1, v_flag},
    {"ping", 3, v_flag},
    {"quiet", 4, v_flag},
    {"quit", 4, v_flag},
    {"reboot", 6, v_reboot},
    {"reconfigure", 3, v_reconfigure},
    {"requeue", 3, v_requeue},
    {"requeuehold", 11, v_requeue},
    {"hold", 4, v_hold},
    {"holdu", 5, v_hold},
    {"uhold", 5, v_hold},
    {"release", 3, v_hold},
    {"show", 3, v_show},
    {"shutdown", 8, v_shutdown},
    {"token", 3, v_token},
    {"update", 1, v_update},
    {"verbose", 4, v_flag},
    {"version", 4, v_flag},
    {"wait_job", 8, v_wait_job},
};

static void run_command(struct sctl *s, int argc, char **argv)
{
	const struct verb *v = lookup(verbs, ARRAY_SIZE(verbs), argv[0], strlen(argv[0]));

	fflush(stdout);
	if (v) {
		v->fn(s, argc, argv);
	} else {
		s->exit_code = CLI_EXIT_ERROR;
		fprintf(stderr, "invalid keyword: %s\n", argv[0]);
	}
	fflush(stdout);
}

/* Split a line into words at blanks outside quotes (quotes are kept, as
 * scontrol keeps them; Reason= strips its own). Returns the word count. */
static int split_words(char *line, char **words, int max)
{
	int n = 0;

	for (char *p = line; *p && n < max;) {
		bool dq = false, sq = false;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		words[n++] = p;
		for (; *p && (dq || sq || !isspace((unsigned char)*p)); p++) {
			if (*p == '"' && !sq)
				dq = !dq;
			else if (*p == '\'' && !dq)
				sq = !sq;
		}
		if (*p)
			*p++ = '\0';
	}
	return n;
}

/* Interactive mode: "scontrol: " prompt, one command per line. */
static void interactive(struct sctl *s)
{
	char *line = NULL, *words[SCONTROL_MAX_WORDS];
	size_t cap = 0;

	while (!s->exit_flag) {
		int n;

		printf("scontrol: ");
		fflush(stdout);
		if (getline(&line, &cap, stdin) < 0) {
			putchar('\n');
			break;
		}
		n = split_words(line, words, SCONTROL_MAX_WORDS);
		if (n)
			run_command(s, n, words);
	}
	free(line);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"all", no_argument, 0, 'a'},      {"details", no_argument, 0, 'd'},
	    {"help", no_argument, 0, 'h'},     {"hide", no_argument, 0, 0x100},
	    {"json", no_argument, 0, 0x101},   {"yaml", no_argument, 0, 0x102},
	    {"oneliner", no_argument, 0, 'o'}, {"quiet", no_argument, 0, 'Q'},
	    {"usage", no_argument, 0, 'h'},    {"verbose", no_argument, 0, 'v'},
	    {"version", no_argument, 0, 'V'},  {NULL, 0, 0, 0},
	};
	/* meta.command is the command line as typed: getopt reorders argv */
	_cleanup_free_ char **typed = calloc((size_t)argc + 1, sizeof(*typed));
	struct sctl s = {.conf = NULL, .data = {.argc = typed ? argc : 0, .argv = typed}};
	int c;

	if (typed)
		memcpy(typed, argv, (size_t)argc * sizeof(*typed));
	cli_init(argv[0]);
	if (getenv("SCONTROL_ALL"))
		s.all = true;
	while ((c = getopt_long(argc, argv, "adhoQvV", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			s.all = true;
			break;
		case 'd':
			s.details = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return s.exit_code;
		case 0x100:
			s.all = s.details = false;
			break;
		case 0x101:
		case 0x102:
			s.data.mime = c == 0x101 ? CLI_MIME_JSON : CLI_MIME_YAML;
			break;
		case 'o':
			s.one_liner = true;
			break;
		case 'Q':
			s.quiet = 1;
			break;
		case 'v':
			s.quiet = -1;
			break;
		case 'V':
			cli_print_version();
			return s.exit_code;
		default:
			fprintf(stderr, "Try \"scontrol --help\" for more information\n");
			return CLI_EXIT_ERROR;
		}
	}
	if (optind < argc)
		run_command(&s, argc - optind, argv + optind);
	else
		interactive(&s);
	conf_free(s.conf);
	return s.exit_code;
}
