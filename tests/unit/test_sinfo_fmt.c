/* test_sinfo_fmt.c - sinfo's text for the reference cluster, byte for byte.
 *
 * The records equal the cluster behind tests/reference (n1-n4 in the
 * default cpu-queue, g1-g2 with gpu:4 in gpu-queue, 4 CPUs and 4000 MB
 * each); each case sets the node states of one reference file and compares
 * sinfo_print()'s output with that file's stdout (the -N -l date line
 * aside, which sinfo.c prints). Times are UTC.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "render.h"

#include "cli/sinfo_fmt.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/states.h"

#define OS "Linux 6.18.44-fc-v1045 #1 SMP PREEMPT_DYNAMIC @0"

static struct node_info nodes[6];
static struct part_info parts[2];
static struct node_info_msg node_msg = {.count = 6, .nodes = nodes};
static struct part_info_msg part_msg = {.count = 2, .parts = parts};

static void set_node(struct node_info *n, const char *name, uint16_t port, bool gpu)
{
	*n = (struct node_info){
	    .name = (char *)name,
	    .node_addr = "127.0.0.1",
	    .node_hostname = "localhost",
	    .arch = "x86_64",
	    .os = OS,
	    .version = "22.05.8",
	    .gres = gpu ? "gpu:4" : NULL,
	    .partitions = gpu ? "gpu-queue" : "cpu-queue",
	    .cfg_tres = gpu ? "cpu=4,mem=4000M,billing=4,gres/gpu=4" : "cpu=4,mem=4000M,billing=4",
	    .state = NODE_STATE_IDLE,
	    .reason_uid = NO_VAL,
	    .port = port,
	    .cpus = 4,
	    .boards = 1,
	    .sockets = 1,
	    .cores = 4,
	    .threads = 1,
	    .real_memory = 4000,
	    .free_mem = 23188,
	    .weight = 1,
	    .cpu_load = 814,
	};
}

/* The reference cluster, all idle. */
static void cluster_reset(void)
{
	static const char *names[] = {"n1", "n2", "n3", "n4", "g1", "g2"};

	for (int i = 0; i < 6; i++)
		set_node(&nodes[i], names[i], (uint16_t)(17001 + i), i >= 4);
	for (int i = 0; i < 2; i++) {
		parts[i] = (struct part_info){
		    .name = i ? "gpu-queue" : "cpu-queue",
		    .nodes = i ? "g[1-2]" : "n[1-4]",
		    .flags = i ? 0 : PART_FLAG_DEFAULT,
		    .state_up = PART_STATE_UP,
		    .max_time = 1440,
		    .default_time = NO_VAL,
		    .max_nodes = INFINITE,
		    .max_cpus_per_node = INFINITE,
		    .total_cpus = i ? 8 : 16,
		    .total_nodes = i ? 2 : 4,
		    .priority_job_factor = 1,
		    .priority_tier = 1,
		    .over_time_limit = NO_VAL16,
		};
	}
}

static void set_mixed(struct node_info *n, uint16_t cpus)
{
	n->state = NODE_STATE_MIXED;
	n->alloc_cpus = cpus;
	n->alloc_mem = 100u * cpus;
}

static void set_drained(struct node_info *n)
{
	n->state = NODE_STATE_IDLE | NODE_STATE_DRAIN;
	n->reason = "golden: maintenance";
	n->reason_uid = 0;
	n->reason_time = utc(2026, 12, 2, 8, 52, 3);
}

/* sinfo_print() into a string; asserts it succeeded. */
static char *render(const struct sinfo_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(sinfo_print(f, o, &node_msg, &part_msg), 0);
	fclose(f);
	return buf;
}

static void check(const struct sinfo_opts *o, const char *want)
{
	char *got = render(o);

	assert_string_equal(got, want);
	free(got);
}

static void test_default(void **state)
{
	struct sinfo_opts o = {.format = NULL};

	(void)state;
	cluster_reset();
	set_mixed(&nodes[0], 3);
	nodes[1].state = NODE_STATE_IDLE | NODE_STATE_COMPLETING;
	check(&o, "PARTITION  AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
		  "cpu-queue*    up 1-00:00:00      1   comp n2\n"
		  "cpu-queue*    up 1-00:00:00      1    mix n1\n"
		  "cpu-queue*    up 1-00:00:00      2   idle n[3-4]\n"
		  "gpu-queue     up 1-00:00:00      2   idle g[1-2]\n");
}

static void test_with_drain(void **state)
{
	struct sinfo_opts o = {.format = NULL};

	(void)state;
	cluster_reset();
	set_mixed(&nodes[0], 3);
	set_drained(&nodes[3]);
	check(&o, "PARTITION  AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
		  "cpu-queue*    up 1-00:00:00      1  drain n4\n"
		  "cpu-queue*    up 1-00:00:00      1    mix n1\n"
		  "cpu-queue*    up 1-00:00:00      2   idle n[2-3]\n"
		  "gpu-queue     up 1-00:00:00      2   idle g[1-2]\n");
}

static void test_node_long(void **state)
{
	struct sinfo_opts o = {.node_flag = true, .long_flag = true};
	const char *row = "   1:4:1   4000        0      1   (null) none                \n";
	char want[2048];

	(void)state;
	cluster_reset();
	set_mixed(&nodes[0], 3);
	snprintf(want, sizeof(want),
		 "NODELIST   NODES  PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT "
		 "AVAIL_FE REASON              \n"
		 "g1             1  gpu-queue        idle 4    %s"
		 "g2             1  gpu-queue        idle 4    %s"
		 "n1             1 cpu-queue*       mixed 4    %s"
		 "n2             1 cpu-queue*        idle 4    %s"
		 "n3             1 cpu-queue*        idle 4    %s"
		 "n4             1 cpu-queue*        idle 4    %s",
		 row, row, row, row, row, row);
	check(&o, want);
}

static void test_reasons(void **state)
{
	struct sinfo_opts o = {.list_reasons = true, .n_states = 3};

	(void)state;
	/* sinfo.c gives -R the states "down,fail,drain" */
	assert_int_equal(sinfo_state_parse("down", &o.states[0]), 0);
	assert_int_equal(sinfo_state_parse("fail", &o.states[1]), 0);
	assert_int_equal(sinfo_state_parse("drain", &o.states[2]), 0);
	cluster_reset();
	set_mixed(&nodes[0], 3);
	set_drained(&nodes[3]);
	check(&o, "REASON               USER      TIMESTAMP           NODELIST\n"
		  "golden: maintenance  root      2026-12-02T08:52:03 n4\n");
}

static void test_custom(void **state)
{
	struct sinfo_opts o = {.format = "%P %a %l %D %t %N %c %m %G"};

	(void)state;
	cluster_reset();
	set_mixed(&nodes[0], 3);
	nodes[3].state = NODE_STATE_IDLE | NODE_STATE_NO_RESPOND;
	check(&o, "PARTITION AVAIL TIMELIMIT NODES STATE NODELIST CPUS MEMORY GRES\n"
		  "cpu-queue* up 1-00:00:00 1 idle* n4 4 4000 (null)\n"
		  "cpu-queue* up 1-00:00:00 1 mix n1 4 4000 (null)\n"
		  "cpu-queue* up 1-00:00:00 2 idle n[2-3] 4 4000 (null)\n"
		  "gpu-queue up 1-00:00:00 2 idle g[1-2] 4 4000 gpu:4\n");
}

/* A node in two partitions: once on a line that merges them (no %P),
 * once on each partition's line with %P. */
static void test_node_in_two_partitions(void **state)
{
	struct sinfo_opts merged = {.format = "%D %t %N"}, each = {.format = "%P %D %N"};

	(void)state;
	cluster_reset();
	parts[1].nodes = "n[3-4],g[1-2]";
	check(&merged, "NODES STATE NODELIST\n"
		       "6 idle g[1-2],n[1-4]\n");
	check(&each, "PARTITION NODES NODELIST\n"
		     "cpu-queue* 4 n[1-4]\n"
		     "gpu-queue 4 g[1-2],n[3-4]\n");
}

/* Widths cut, right-justify, prefix text, no header, A/I/O/T counts. */
static void test_widths_and_counts(void **state)
{
	struct sinfo_opts o = {.format = "x%5P|%.3D|%F|%C", .no_header = true};

	(void)state;
	cluster_reset();
	set_mixed(&nodes[0], 3);
	set_drained(&nodes[3]);
	check(&o, "xcpu-*|  4|1/2/1/4|3/9/4/16\n"
		  "xgpu-q|  2|0/2/0/2|0/8/0/8\n");
}

/* -s, -e off: differing memory prints "min+"; -p filters partitions. */
static void test_summarize_and_minmax(void **state)
{
	struct sinfo_opts o = {.summarize = true};
	struct sinfo_opts m = {.format = "%R %m %c", .partitions = "cpu-queue"};

	(void)state;
	cluster_reset();
	set_mixed(&nodes[0], 3);
	check(&o, "PARTITION  AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\n"
		  "cpu-queue*    up 1-00:00:00          1/3/0/4 n[1-4]\n"
		  "gpu-queue     up 1-00:00:00          0/2/0/2 g[1-2]\n");
	nodes[2].real_memory = 2000;
	check(&m, "PARTITION MEMORY CPUS\ncpu-queue 2000+ 4\n");
	m.exact = true;
	check(&m, "PARTITION MEMORY CPUS\ncpu-queue 4000 4\ncpu-queue 2000 4\n");
}

/* -t filters and an empty partition still prints a line. */
static void test_states_filter(void **state)
{
	struct sinfo_opts o = {.n_states = 1};

	(void)state;
	cluster_reset();
	set_mixed(&nodes[0], 3);
	assert_int_equal(sinfo_state_parse("mix", &o.states[0]), 0);
	check(&o, "PARTITION  AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
		  "cpu-queue*    up 1-00:00:00      1    mix n1\n"
		  "gpu-queue     up 1-00:00:00      0    n/a \n");
	assert_int_equal(sinfo_state_parse("bogus", &o.states[0]), -22);
}

static void test_date(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	sinfo_print_date(f, utc(2026, 12, 2, 8, 52, 3));
	fclose(f);
	assert_string_equal(buf, "Wed Dec 02 08:52:03 2026\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default),
	    cmocka_unit_test(test_with_drain),
	    cmocka_unit_test(test_node_long),
	    cmocka_unit_test(test_reasons),
	    cmocka_unit_test(test_custom),
	    cmocka_unit_test(test_node_in_two_partitions),
	    cmocka_unit_test(test_widths_and_counts),
	    cmocka_unit_test(test_summarize_and_minmax),
	    cmocka_unit_test(test_states_filter),
	    cmocka_unit_test(test_date),
	};

	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
