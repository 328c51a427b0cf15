/* test_job_gpu.c - a job's GPU options resolved for the scheduler, and
 * the GPU types of the nodes (job_gpu.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "slurmctld/ctld.h"
#include "slurmctld/job_gpu.h"
#include "slurmctld/node.h"

static struct job_desc desc(void)
{
	return (struct job_desc){
	    .cpus_per_task = NO_VAL16, .mem_per_cpu = NO_VAL64, .mem_per_node = NO_VAL64};
}

static void test_counts_and_type(void **state)
{
	struct job_desc d = desc();
	struct job_gpu g;

	(void)state;
	d.tres_per_node = "gres/gpu:a100:2";
	assert_int_equal(job_gpu_parse(&d, &g), 0);
	assert_int_equal(g.per_node, 2);
	assert_string_equal(g.type, "a100");
	/* Slurm's own spelling, as REST clients send it; a bare type is one */
	d.tres_per_node = NULL;
	d.tres_per_task = "gres:gpu:v100";
	assert_int_equal(job_gpu_parse(&d, &g), 0);
	assert_int_equal(g.per_task, 1);
	assert_string_equal(g.type, "v100");
	/* --gpus with --gpus-per-task: the tasks carry the GPUs */
	d.tres_per_task = "gres/gpu:2";
	d.tres_per_job = "gres/gpu:4";
	assert_int_equal(job_gpu_parse(&d, &g), 0);
	assert_int_equal(g.per_task, 2);
	assert_int_equal(g.total, 0);
	assert_string_equal(g.type, "");
	/* per socket: times the sockets asked */
	d = desc();
	d.tres_per_socket = "gres/gpu:2";
	d.sockets_per_node = 2;
	assert_int_equal(job_gpu_parse(&d, &g), 0);
	assert_int_equal(g.per_node, 4);
	assert_int_equal(job_gpu_parse(NULL, &g), 0);
	assert_int_equal(g.per_node, 0);
}

static void test_refusals(void **state)
{
	static const struct {
		const char *node, *job, *task, *socket;
		uint16_t sockets, ntasks_per_gpu;
	} bad[] = {
	    {"gres/gpu:a100:1", "gres/gpu:v100:1", NULL, NULL, 0, 0}, /* two types */
	    {"gres/gpu:1", "gres/gpu:2", NULL, NULL, 0, 0},	      /* per node and per job */
	    {NULL, NULL, "gres/gpu:1", NULL, 0, 2},	    /* per task and tasks per GPU */
	    {NULL, NULL, NULL, "gres/gpu:1", 0, 0},	    /* per socket, no sockets */
	    {NULL, "gres/gpu:3", "gres/gpu:2", NULL, 0, 0}, /* not a multiple */
	    {"gres/mps:10", NULL, NULL, NULL, 0, 0},	    /* only GPUs are scheduled */
	    {"gres/gpu:1,gres/mps:10", NULL, NULL, NULL, 0, 0},
	    {"gres/gpu:a:b:2", NULL, NULL, NULL, 0, 0},
	    {"gres/gpu:a100:x", NULL, NULL, NULL, 0, 0},
	    {"gres/gpu:99999", NULL, NULL, NULL, 0, 0},
	};
	struct job_gpu g;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct job_desc d = desc();

		d.tres_per_node = (char *)bad[i].node;
		d.tres_per_job = (char *)bad[i].job;
		d.tres_per_task = (char *)bad[i].task;
		d.tres_per_socket = (char *)bad[i].socket;
		d.sockets_per_node = bad[i].sockets;
		d.ntasks_per_gpu = bad[i].ntasks_per_gpu;
		if (job_gpu_parse(&d, &g) != -ESLURM_INVALID_GRES)
			fail_msg("case %zu accepted", i);
	}
}

static void test_defaults(void **state)
{
	struct sl_conf conf = {.def_cpu_per_gpu = 2, .def_mem_per_gpu = 500};
	struct job_desc d = desc();
	struct job_gpu g;

	(void)state;
	d.tres_per_node = "gres/gpu:1";
	assert_int_equal(job_gpu_parse(&d, &g), 0);
	job_gpu_defaults(&conf, NULL, &d, &g);
	assert_int_equal(g.cpus_per_gpu, 2);
	assert_int_equal(g.mem_per_gpu, 500);
	/* the partition's own win; one it leaves unset is slurm.conf's */
	assert_int_equal(job_gpu_parse(&d, &g), 0);
	job_gpu_defaults(&conf, &(struct conf_part){.def_cpu_per_gpu = 3}, &d, &g);
	assert_int_equal(g.cpus_per_gpu, 3);
	assert_int_equal(g.mem_per_gpu, 500);
	assert_int_equal(job_gpu_parse(&d, &g), 0);
	job_gpu_defaults(&conf, &(struct conf_part){.def_mem_per_gpu = 700}, &d, &g);
	assert_int_equal(g.cpus_per_gpu, 2);
	assert_int_equal(g.mem_per_gpu, 700);
	/* -c and --mem keep their own */
	d.cpus_per_task = 1;
	d.mem_per_node = 100;
	assert_int_equal(job_gpu_parse(&d, &g), 0);
	job_gpu_defaults(&conf, NULL, &d, &g);
	assert_int_equal(g.cpus_per_gpu, 0);
	assert_int_equal(g.mem_per_gpu, 0);
	/* no GPUs: no defaults */
	d = desc();
	assert_int_equal(job_gpu_parse(&d, &g), 0);
	job_gpu_defaults(&conf, NULL, &d, &g);
	assert_int_equal(g.cpus_per_gpu, 0);
}

static void test_node_types(void **state)
{
	struct conf_node cfg[3] = {{.name = "g1", .gres = "gpu:a100:2,gpu:v100:2"},
				   {.name = "g2", .gres = "gpu:2,gpu:v100:1"},
				   {.name = "c1"}};
	struct node nodes[3] = {{.cfg = &cfg[0]}, {.cfg = &cfg[1]}, {.cfg = &cfg[2]}};
	struct ctld c = {.nodes = nodes, .node_count = 3};
	int a100, v100;

	(void)state;
	job_gpu_types_build(&c);
	assert_int_equal(c.gpu_type_count, 2);
	a100 = job_gpu_type_id(&c, "a100");
	v100 = job_gpu_type_id(&c, "v100");
	assert_int_equal(a100, 1);
	assert_int_equal(v100, 2);
	assert_int_equal(job_gpu_type_id(&c, ""), 0);
	assert_int_equal(job_gpu_type_id(&c, "h100"), -1);
	assert_int_equal(nodes[0].gpu_type_mask[a100 - 1], 0x3);
	assert_int_equal(nodes[0].gpu_type_mask[v100 - 1], 0xc);
	/* untyped GPUs take indexes too: g2's v100 is its third GPU */
	assert_int_equal(nodes[1].gpu_type_mask[a100 - 1], 0);
	assert_int_equal(nodes[1].gpu_type_mask[v100 - 1], 0x4);
	assert_int_equal(nodes[2].gpu_type_mask[v100 - 1], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_counts_and_type),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_node_types),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
