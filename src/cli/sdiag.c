/* sdiag - the controller's scheduling and RPC statistics, laid out as
 * Slurm 22.05's sdiag prints them; -r resets them (admins only).
 *
 * Options: -a (all: the default), -r, -i / -t / -T (RPC rows by id, by
 * total time, by average time; by count otherwise), -M (one cluster only:
 * refused for another name), --help, --usage, -V.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/ctld_fetch.h"
#include "api/id_name.h"
#include "cli/cli.h"
#include "cli/cli_data.h"
#include "common/conf.h"
#include "common/data_diag.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/msg_stats.h"
#include "common/sl_errno.h"

enum rpc_sort { SORT_COUNT, SORT_ID, SORT_TIME, SORT_AVE };

static const char usage_text[] = "Usage: sdiag [-M cluster] [-aritT] [--json] [--yaml]\n";
static const char help_text[] = "Usage: sdiag [OPTIONS]\n"
				"  -a, --all             all statistics\n"
				"  -r, --reset           reset statistics\n"
				"  -M, --cluster         direct the request to a specific cluster\n"
				"  -i, --sort-by-id      sort RPCs by id\n"
				"  -t, --sort-by-time    sort RPCs by time\n"
				"  -T, --sort-by-time2   sort RPCs by average time\n"
				"  -V, --version         print version information and exit\n"
				"      --json            Produce JSON output\n"
				"      --yaml            Produce YAML output\n"
				"\nHelp options:\n"
				"  --help                show this help message\n"
				"  --usage               display brief usage message\n";

static enum rpc_sort sort_key;

static uint64_t ave(const struct stats_rpc *r)
{
	return r->count ? r->time_us / r->count : 0;
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return (a < b) - (a > b);
}

static int rpc_cmp(const void *pa, const void *pb)
{
	const struct stats_rpc *a = pa, *b = pb;
	int d = 0;

	switch (sort_key) {
	case SORT_ID:
		return (a->id > b->id) - (a->id < b->id);
	case SORT_TIME:
		d = cmp_u64_desc(a->time_us, b->time_us);
		break;
	case SORT_AVE:
		d = cmp_u64_desc(ave(a), ave(b));
		break;
	case SORT_COUNT:
		d = cmp_u64_desc(a->count, b->count);
		break;
	}
	return d ? d : (a->id > b->id) - (a->id < b->id);
}

static const char *ctime_of(time_t t, char *buf, size_t n)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, n, "%a %b %d %H:%M:%S %Y", &tm))
		snprintf(buf, n, "%ld", (long)t);
	return buf;
}

static void print_head(const struct stats_info_msg *m)
{
	char a[64], b[64];

	printf("*******************************************************\n");
	printf("sdiag output at %s (%ld)\n", ctime_of(m->now, a, sizeof(a)), (long)m->now);
	printf("Data since      %s (%ld)\n", ctime_of(m->since, b, sizeof(b)), (long)m->since);
	printf("*******************************************************\n");
	printf("Server thread count:  %u\n", m->server_threads);
	printf("Agent queue size:     %u\n", m->agent_queue);
	printf("Agent count:          %u\n", m->agent_count);
	printf("Agent thread count:   %u\n", m->agent_threads);
	printf("DBD Agent queue size: %u\n\n", m->dbd_queue);
	printf("Jobs submitted: %u\n", m->jobs_submitted);
	printf("Jobs started:   %u\n", m->jobs_started);
	printf("Jobs completed: %u\n", m->jobs_completed);
	printf("Jobs canceled:  %u\n", m->jobs_canceled);
	printf("Jobs failed:    %u\n\n", m->jobs_failed);
	printf("Job states ts:  %s (%ld)\n", ctime_of(m->job_states_ts, a, sizeof(a)),
	       (long)m->job_states_ts);
	printf("Jobs pending:   %u\n", m->jobs_pending);
	printf("Jobs running:   %u\n", m->jobs_running);
}

static void print_main(const struct stats_info_msg *m)
{
	printf("\nMain schedule statistics (microseconds):\n");
	printf("\tLast cycle:   %u\n", m->sched_last);
	printf("\tMax cycle:    %u\n", m->sched_max);
	printf("\tTotal cycles: %u\n", m->sched_cycles);
	if (m->sched_cycles) {
		printf("\tMean cycle:   %" PRIu64 "\n", m->sched_sum / m->sched_cycles);
		printf("\tMean depth cycle:  %" PRIu64 "\n", m->sched_depth_sum / m->sched_cycles);
	}
	if (m->now - m->since > 60)
		printf("\tCycles per minute: %u\n",
		       (uint32_t)(m->sched_cycles / ((m->now - m->since) / 60)));
	printf("\tLast queue length: %u\n", m->sched_queue_len);
}

static void print_bf(const struct stats_info_msg *m)
{
	char a[64];
	uint32_t n = m->bf_cycles;

	printf("\nBackfilling stats\n");
	printf("\tTotal backfilled jobs (since last slurm start): %u\n", m->bf_jobs_total);
	printf("\tTotal backfilled jobs (since last stats cycle start): %u\n",
	       m->bf_jobs_since_reset);
	printf("\tTotal backfilled heterogeneous job components: 0\n");
	printf("\tTotal cycles: %u\n", n);
	if (m->bf_when_last > 0)
		printf("\tLast cycle when: %s (%ld)\n", ctime_of(m->bf_when_last, a, sizeof(a)),
		       (long)m->bf_when_last);
	else
		printf("\tLast cycle when: N/A\n");
	printf("\tLast cycle: %u\n", m->bf_last);
	printf("\tMax cycle:  %u\n", m->bf_max);
	if (n)
		printf("\tMean cycle: %" PRIu64 "\n", m->bf_sum / n);
	printf("\tLast depth cycle: %u\n", m->bf_last_depth);
	printf("\tLast depth cycle (try sched): %u\n", m->bf_last_depth_try);
	if (n) {
		printf("\tDepth Mean: %" PRIu64 "\n", m->bf_depth_sum / n);
		printf("\tDepth Mean (try depth): %" PRIu64 "\n", m->bf_depth_try_sum / n);
	}
	printf("\tLast queue length: %u\n", m->bf_queue_len);
	if (n)
		printf("\tQueue length mean: %" PRIu64 "\n", m->bf_queue_len_sum / n);
	printf("\tLast table size: %u\n", m->bf_table_size);
	if (n)
		printf("\tMean table size: %" PRIu64 "\n", m->bf_table_size_sum / n);
	printf("\nLatency for 1000 calls to gettimeofday(): %u microseconds\n",
	       m->gettimeofday_latency);
}

static void print_rpcs(struct stats_info_msg *m)
{
	qsort(m->rpc_types, m->rpc_type_count, sizeof(*m->rpc_types), rpc_cmp);
	qsort(m->rpc_users, m->rpc_user_count, sizeof(*m->rpc_users), rpc_cmp);
	printf("\nRemote Procedure Call statistics by message type\n");
	for (uint32_t i = 0; i < m->rpc_type_count; i++) {
		const struct stats_rpc *r = &m->rpc_types[i];

		printf("\t%-40s(%5u) count:%-6u ave_time:%-6" PRIu64 " total_time:%" PRIu64 "\n",
		       msg_type_name((uint16_t)r->id), r->id, r->count, ave(r), r->time_us);
	}
	printf("\nRemote Procedure Call statistics by user\n");
	for (uint32_t i = 0; i < m->rpc_user_count; i++) {
		const struct stats_rpc *r = &m->rpc_users[i];
		char name[64];

		if (!id_name_uid(r->id, name, sizeof(name)))
			snprintf(name, sizeof(name), "%u", r->id);
		printf("\t%-16s(%8u) count:%-6u ave_time:%-6" PRIu64 " total_time:%" PRIu64 "\n",
		       name, r->id, r->count, ave(r), r->time_us);
	}
	printf("\nPending RPC statistics\n\tNo pending RPCs\n");
}

static int reset(const struct sl_conf *conf)
{
	struct stats_info_req req = {.command = STATS_CMD_RESET};
	void *resp = NULL;
	int r = ctld_fetch(conf, REQUEST_STATS_INFO, &req, RESPONSE_SLURM_RC, &resp);

	if (r == 0 && ((struct rc_msg *)resp)->rc)
		r = -(int)((struct rc_msg *)resp)->rc;
	msg_free(msg_lookup(RESPONSE_SLURM_RC), resp);
	if (r < 0) {
		cli_perror("slurm_reset_statistics", r);
		return 255; /* Slurm's sdiag exits with its rc, SLURM_ERROR (-1) */
	}
	printf("Reset scheduling statistics\n");
	return CLI_EXIT_OK;
}

/* --json / --yaml: argv as typed goes into meta.command. */
struct sdiag_doc {
	enum cli_mime mime;
	int argc;
	char **argv;
};

static int show(const struct sl_conf *conf, const struct sdiag_doc *doc)
{
	struct stats_info_req req = {.command = STATS_CMD_GET};
	struct stats_info_msg *m = NULL;
	int r = ctld_fetch(conf, REQUEST_STATS_INFO, &req, RESPONSE_STATS_INFO, (void **)&m);

	if (r < 0) {
		cli_perror("slurm_get_statistics", r);
		return 255; /* exit(SLURM_ERROR), as for -r */
	}
	if (doc->mime) {
		struct dout *d = cli_data_new(doc->mime);

		if (d)
			data_diag_doc(d, m, doc->argc, doc->argv);
		r = cli_data_print(d);
		msg_free(msg_lookup(RESPONSE_STATS_INFO), m);
		return r < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
	}
	print_head(m);
	print_main(m);
	print_bf(m);
	print_rpcs(m);
	msg_free(msg_lookup(RESPONSE_STATS_INFO), m);
	return CLI_EXIT_OK;
}

static const struct option long_opts[] = {
    {"all", no_argument, 0, 'a'},
    {"cluster", required_argument, 0, 'M'},
    {"clusters", required_argument, 0, 'M'},
    {"reset", no_argument, 0, 'r'},
    {"sort-by-id", no_argument, 0, 'i'},
    {"sort-by-time", no_argument, 0, 't'},
    {"sort-by-time2", no_argument, 0, 'T'},
    {"version", no_argument, 0, 'V'},
    {"help", no_argument, 0, 'h'},
    {"usage", no_argument, 0, 'u'},
    {"json", no_argument, 0, 0x100},
    {"yaml", no_argument, 0, 0x101},
    {0, 0, 0, 0},
};

int main(int argc, char **argv)
{
	/* meta.command is the command line as typed: getopt reorders argv */
	_cleanup_free_ char **typed = calloc((size_t)argc + 1, sizeof(*typed));
	struct sdiag_doc doc = {.mime = CLI_MIME_TEXT, .argc = typed ? argc : 0, .argv = typed};
	struct sl_conf *conf = NULL;
	bool is_reset = false;
	const char *cluster = NULL;
	int ch, r;

	if (typed)
		memcpy(typed, argv, (size_t)argc * sizeof(*typed));
	cli_init(argv[0]);
	while ((ch = getopt_long(argc, argv, "aM:ritTVh", long_opts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			break;
		case 'M':
			cluster = optarg;
			break;
		case 'r':
			is_reset = true;
			break;
		case 'i':
			sort_key = SORT_ID;
			break;
		case 't':
			sort_key = SORT_TIME;
			break;
		case 'T':
			sort_key = SORT_AVE;
			break;
		case 'V':
			cli_print_version();
			return CLI_EXIT_OK;
		case 'h':
			fputs(help_text, stdout);
			return CLI_EXIT_OK;
		case 'u':
			fputs(usage_text, stdout);
			return CLI_EXIT_OK;
		case 0x100:
		case 0x101:
			doc.mime = ch == 0x100 ? CLI_MIME_JSON : CLI_MIME_YAML;
			break;
		default:
			fprintf(stderr, "Try \"sdiag --help\" for more information\n");
			return CLI_EXIT_ERROR;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "Try \"sdiag --help\" for more information\n");
		return CLI_EXIT_ERROR;
	}
	r = cli_conf_load(&conf);
	if (r < 0)
		return CLI_EXIT_ERROR;
	if (cluster && (!conf->cluster_name || strcmp(cluster, conf->cluster_name))) {
		cli_error("'%s' can't be reached now, or it is an invalid entry for --cluster.  "
			  "Use 'sacctmgr list clusters' to see available clusters.",
			  cluster);
		conf_free(conf);
		return CLI_EXIT_ERROR;
	}
	r = is_reset ? reset(conf) : show(conf, &doc);
	conf_free(conf);
	return r;
}
