/* sstat.c - the sstat command: live usage of running job steps.
 *
 *   sstat -j JOB[.STEP][,...] [-a] [-o FIELDS] [-p|-P] [-n] [-e]
 *
 * Purpose: Slurm 22.05's sstat. The controller says which steps run and
 * where (REQUEST_JOB_STEP_INFO, the batch step among them); each node's slurmd asks that step's
 * slurmstepd for its usage so far (REQUEST_JOB_STEP_STAT: a fresh sample, the CPU time of live and
 * ended processes); the nodes' answers are merged as the controller merges a finished step's
 * (maxima with their node and task, totals summed) and printed with sacct's field table and
 * formats. "JOB" alone is its lowest numbered running step, or every running step (the batch one
 * too) with -a. Caveats: MinCPU and its node and task are printed for one-task steps only, as sacct
 * does; the energy, disk and CPU frequency fields are 0 or empty (nothing gathers them).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/ctld_fetch.h"
#include "cli/cli.h"
#include "cli/sacct_fmt.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/job_states.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"

/* Slurm 22.05's default fields (sstat.h), those sacct's table has. */
#define SSTAT_FIELDS                                                                               \
	"jobid,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize,maxrss,maxrssnode,maxrsstask,"      \
	"averss,maxpages,maxpagesnode,maxpagestask,avepages,mincpu,mincpunode,mincputask,avecpu,"  \
	"ntasks,avecpufreq,reqcpufreqmin,reqcpufreqmax,reqcpufreqgov,consumedenergy,maxdiskread,"  \
	"maxdiskreadnode,maxdiskreadtask,avediskread,maxdiskwrite,maxdiskwritenode,"               \
	"maxdiskwritetask,avediskwrite,tresusageinave,tresusageinmax,tresusageinmaxn,"             \
	"tresusageinmaxt,tresusageinmin,tresusageinminn,tresusageinmint,tresusageintot,"           \
	"tresusageoutave,tresusageoutmax,tresusageoutmaxn,tresusageoutmaxt,tresusageoutmin,"       \
	"tresusageoutminn,tresusageoutmint,tresusageouttot"

static const char usage_text[] = "Usage: sstat [options] -j <job(.stepid)>\n"
				 "\tUse --help for help\n";

static const char help_text[] =
    "sstat [<OPTION>] -j <job(.stepid)>\n"
    "    Valid <OPTION> values are:\n"
    "      -a, --allsteps:\n"
    "                   Print all steps for the given job(s) when no step is\n"
    "                   specified.\n"
    "      -e, --helpformat:\n"
    "                   Print a list of fields that can be specified with the\n"
    "                   '--format' option\n"
    "     -h, --help:   Print this description of use.\n"
    "     -j, --jobs:\n"
    "                   Format is <job(.step)>. Stat this job step\n"
    "                   or comma-separated list of job steps. This option is\n"
    "                   required.  The step portion will default to the lowest\n"
    "                   numbered (not batch, extern, etc) step running if not\n"
    "                   specified, unless the --allsteps flag is set where not\n"
    "                   specifying a step will result in all running steps\n"
    "                   to be displayed.\n"
    "     --noconvert:  Don't convert units from their original type\n"
    "                   (e.g. 2048M won't be converted to 2G).\n"
    "     -n, --noheader:\n"
    "                   No header will be added to the beginning of output.\n"
    "                   The default is to print a header.\n"
    "     -o, --format:\n"
    "                   Comma separated list of fields.\n"
    "                   (use \"--helpformat\" for a list of available fields).\n"
    "     -p, --parsable: output will be '|' delimited with a '|' at the end\n"
    "     -P, --parsable2: output will be '|' delimited without a '|' at the end\n"
    "     --usage:      Display brief usage message.\n"
    "     -v, --verbose:\n"
    "                   Primarily for debugging purposes, report the state of\n"
    "                   various variables during processing.\n"
    "     -V, --version: Print version.\n";

struct sstat {
	struct sl_conf *conf;
	struct sacct_cols cols;
	struct sacct_out out;
	bool all_steps, no_header;
	char *jobs;
	int exit_code;
};

/* One node's answer for a step, merged into rec. */
static void stat_node(struct sstat *ss, const char *node, uint32_t job_id, uint32_t step_id,
		      struct acct_step_rec *rec, bool *is_any)
{
	const struct conf_node *cn = conf_node_find(ss->conf, node);
	struct step_stat_req req = {.job_id = job_id, .step_id = step_id};
	struct step_stat_resp *resp = NULL;
	uint16_t type = 0;
	void *m = NULL;
	unsigned merged;
	int r;

	if (!cn) {
		cli_error("unknown node %s of StepId=%u.%u", node, job_id, step_id);
		return;
	}
	r = rpc_call_addr(ss->conf, cn->node_addr, cn->port, REQUEST_JOB_STEP_STAT, &req, &type,
			  &m);
	if (r == 0 && type == RESPONSE_SLURM_RC)
		r = -(int)((struct rc_msg *)m)->rc;
	else if (r == 0 && type != RESPONSE_JOB_STEP_STAT)
		r = -SLURM_UNEXPECTED_MSG_ERROR;
	if (r < 0) {
		if (r != -ESLURM_ALREADY_DONE && r != -ESLURM_INVALID_JOB_ID)
			cli_error("problem getting step stat for %u.%u from %s: %s", job_id,
				  step_id, node, sl_strerror(r));
		if (r == -ESLURM_ACCESS_DENIED)
			ss->exit_code = CLI_EXIT_ERROR;
		msg_free(msg_lookup(type), m);
		return;
	}
	resp = m;
	merged = acct_usage_merge(&rec->usage, &resp->usage);
	if (merged & ACCT_MERGE_RSS) {
		free(rec->max_rss_node);
		rec->max_rss_node = strdup(node);
	}
	if (merged & ACCT_MERGE_VM) {
		free(rec->max_vm_node);
		rec->max_vm_node = strdup(node);
	}
	*is_any = true;
	msg_free(msg_lookup(type), m);
}

/* Ask every node of the step; print its line when any answered. */
static void stat_step(struct sstat *ss, const struct acct_job_rec *job, uint32_t step_id,
		      const char *nodes)
{
	struct acct_step_rec rec = {.step_id = step_id, .state = JOB_RUNNING};
	struct hostlist *hl = NULL;
	bool is_any = false;

	if (hostlist_new(nodes, &hl) < 0) {
		cli_error("StepId=%u.%u: bad node list %s", job->job_id, step_id, nodes);
		return;
	}
	for (size_t i = 0; i < hostlist_count(hl); i++)
		stat_node(ss, hostlist_nth(hl, i), job->job_id, step_id, &rec, &is_any);
	hostlist_free(hl);
	rec.nnodes = 1;
	rec.ntasks = rec.usage.ntasks;
	if (is_any)
		sacct_print_row(stdout, &ss->cols, &ss->out, job, &rec);
	free(rec.max_rss_node);
	free(rec.max_vm_node);
}

/* "12", "12.3", "12.batch": the job and the step (NO_VAL: not given). */
static int parse_id(const char *w, uint32_t *job, uint32_t *step)
{
	char *end;
	unsigned long j = strtoul(w, &end, 10), st;

	if (end == w || j == 0 || j > UINT32_MAX)
		return -EINVAL;
	*job = (uint32_t)j;
	*step = NO_VAL;
	if (!*end)
		return 0;
	if (*end != '.')
		return -EINVAL;
	if (strcasecmp(end + 1, "batch") == 0) {
		*step = SL_BATCH_STEP;
		return 0;
	}
	if (strcasecmp(end + 1, "extern") == 0) {
		*step = SL_EXTERN_STEP;
		return 0;
	}
	st = strtoul(end + 1, &end, 10);
	if (*end || st >= SL_BATCH_STEP)
		return -EINVAL;
	*step = (uint32_t)st;
	return 0;
}

static void stat_job(struct sstat *ss, const char *w)
{
	struct step_info_req req = {.step_id = NO_VAL};
	struct step_info_msg *m = NULL;
	struct acct_job_rec job = {0};
	uint32_t step, lowest = NO_VAL;
	int r;

	if (parse_id(w, &req.job_id, &step) < 0) {
		cli_error("Invalid job id %s", w);
		ss->exit_code = CLI_EXIT_ERROR;
		return;
	}
	job.job_id = req.job_id;
	job.array_task_id = NO_VAL;
	r = ctld_fetch(ss->conf, REQUEST_JOB_STEP_INFO, &req, RESPONSE_JOB_STEP_INFO, (void **)&m);
	if (r < 0) {
		cli_error("couldn't get steps for job %u with status: %s", req.job_id,
			  sl_strerror(r));
		ss->exit_code = CLI_EXIT_ERROR;
		return;
	}
	for (uint32_t i = 0; i < m->count; i++) {
		const struct step_info *si = &m->steps[i];

		if (si->job_id != req.job_id || si->state != JOB_RUNNING || !si->nodes)
			continue;
		if (step != NO_VAL && si->step_id == step)
			stat_step(ss, &job, si->step_id, si->nodes);
		if (step == NO_VAL && ss->all_steps)
			stat_step(ss, &job, si->step_id, si->nodes);
		if (step == NO_VAL && si->step_id < SL_BATCH_STEP /* not batch, extern */
		    && (lowest == NO_VAL || si->step_id < lowest))
			lowest = si->step_id;
	}
	if (step == NO_VAL && !ss->all_steps) {
		for (uint32_t i = 0; i < m->count && lowest != NO_VAL; i++)
			if (m->steps[i].step_id == lowest && m->steps[i].job_id == req.job_id)
				stat_step(ss, &job, lowest, m->steps[i].nodes);
		if (lowest == NO_VAL) {
			cli_error("no steps running for job %u", req.job_id);
			ss->exit_code = CLI_EXIT_ERROR;
		}
	}
	msg_free(msg_lookup(RESPONSE_JOB_STEP_INFO), m);
}

static const struct option long_opts[] = {
    {"allsteps", no_argument, NULL, 'a'},     {"helpformat", no_argument, NULL, 'e'},
    {"help", no_argument, NULL, 'h'},	      {"jobs", required_argument, NULL, 'j'},
    {"noconvert", no_argument, NULL, 'C'},    {"noheader", no_argument, NULL, 'n'},
    {"format", required_argument, NULL, 'o'}, {"fields", required_argument, NULL, 'o'},
    {"parsable", no_argument, NULL, 'p'},     {"parsable2", no_argument, NULL, 'P'},
    {"usage", no_argument, NULL, 'U'},	      {"verbose", no_argument, NULL, 'v'},
    {"version", no_argument, NULL, 'V'},      {NULL, 0, NULL, 0},
};

static void parse(struct sstat *ss, int argc, char **argv)
{
	const char *fields = NULL;
	char *bad = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "aehj:no:pPvV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			ss->all_steps = true;
			break;
		case 'e':
			sacct_print_field_names(stdout);
			exit(CLI_EXIT_OK);
		case 'h':
			fputs(help_text, stdout);
			exit(CLI_EXIT_OK);
		case 'j':
			free(ss->jobs);
			ss->jobs = strdup(optarg);
			break;
		case 'C':
			ss->out.noconvert = true;
			break;
		case 'n':
			ss->no_header = true;
			break;
		case 'o':
			fields = optarg;
			break;
		case 'p':
			ss->out.parsable = SACCT_PARSABLE;
			break;
		case 'P':
			ss->out.parsable = SACCT_PARSABLE2;
			break;
		case 'U':
			fputs(usage_text, stdout);
			exit(CLI_EXIT_OK);
		case 'v':
			log_set_level(log_get_level() + 1);
			break;
		case 'V':
			cli_print_version();
			exit(CLI_EXIT_OK);
		default:
			fputs(usage_text, stderr);
			exit(CLI_EXIT_ERROR);
		}
	}
	if (optind < argc && !ss->jobs) /* sstat 12.0 */
		ss->jobs = strdup(argv[optind]);
	if (!ss->jobs) {
		fprintf(stderr, "%s: error: You didn't give me any jobs to stat.\n", cli_prog());
		exit(CLI_EXIT_ERROR);
	}
	if (sacct_cols_add(&ss->cols, fields ? fields : SSTAT_FIELDS, &bad) < 0) {
		fprintf(stderr, "%s: error: Invalid field requested: \"%s\"\n", cli_prog(),
			bad ? bad : "");
		exit(CLI_EXIT_ERROR);
	}
}

int main(int argc, char **argv)
{
	struct sstat ss = {0};
	char *save = NULL;

	cli_init(argv[0]);
	parse(&ss, argc, argv);
	if (cli_conf_load_nodes(&ss.conf) < 0)
		return CLI_EXIT_ERROR;
	ss.out.now = time(NULL);
	ss.out.cluster = ss.conf->cluster_name;
	if (!ss.no_header)
		sacct_print_header(stdout, &ss.cols, &ss.out);
	for (char *w = strtok_r(ss.jobs, ",", &save); w; w = strtok_r(NULL, ",", &save))
		stat_job(&ss, w);
	sacct_cols_done(&ss.cols);
	free(ss.jobs);
	conf_free(ss.conf);
	return ss.exit_code;
}
