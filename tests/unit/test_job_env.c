/* test_job_env.c - the batch environment against Slurm 22.05's
 * (reference/env_batch_plain.txt and env_batch_array_gres.txt): for a launch
 * message describing the same job, the same SLURM_*, CUDA_* and GPU_*
 * names with the same values (SLURM_TASK_PID aside: the script's pid).
 * Likewise a step task's (env_batch_srun_tasks.txt). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/job_env.h"
#include "common/macros.h"
#include "common/msg.h"

/* env_batch_plain.txt, as printed (sorted), without SLURM_TASK_PID. */
static const char *const plain_ref[] = {
	"CUDA_HOME=/usr/local/cuda",
	"SLURMD_NODENAME=n1",
	"SLURM_CLUSTER_NAME=anchor",
	"SLURM_CONF=/etc/slurm/slurm.conf",
	"SLURM_CPUS_ON_NODE=1",
	"SLURM_GTIDS=0",
	"SLURM_JOBID=11224",
	"SLURM_JOB_ACCOUNT=root",
	"SLURM_JOB_CPUS_PER_NODE=1",
	"SLURM_JOB_GID=0",
	"SLURM_JOB_ID=11224",
	"SLURM_JOB_NAME=envjob_plain",
	"SLURM_JOB_NODELIST=n1",
	"SLURM_JOB_NUM_NODES=1",
	"SLURM_JOB_PARTITION=cpu-queue",
	"SLURM_JOB_QOS=normal",
	"SLURM_JOB_UID=0",
	"SLURM_JOB_USER=root",
	"SLURM_LOCALID=0",
	"SLURM_MEM_PER_CPU=100",
	"SLURM_NNODES=1",
	"SLURM_NODEID=0",
	"SLURM_NODELIST=n1",
	"SLURM_NODE_ALIASES=(null)",
	"SLURM_PRIO_PROCESS=0",
	"SLURM_PROCID=0",
	"SLURM_SUBMIT_DIR=/var/lib/slurm/jobs/golden",
	"SLURM_SUBMIT_HOST=vm",
	"SLURM_TASKS_PER_NODE=1",
	"SLURM_TOPOLOGY_ADDR=n1",
	"SLURM_TOPOLOGY_ADDR_PATTERN=node",
	"SLURM_WORKING_CLUSTER=anchor:127.0.0.1:6817:9728:109",
	NULL,
};

/* env_batch_array_gres.txt, first task, without SLURM_TASK_PID. */
static const char *const array_ref[] = {
	"CUDA_HOME=/usr/local/cuda",
	"CUDA_VISIBLE_DEVICES=0",
	"GPU_DEVICE_ORDINAL=0",
	"SLURMD_NODENAME=g1",
	"SLURM_ARRAY_JOB_ID=11223",
	"SLURM_ARRAY_TASK_COUNT=2",
	"SLURM_ARRAY_TASK_ID=0",
	"SLURM_ARRAY_TASK_MAX=1",
	"SLURM_ARRAY_TASK_MIN=0",
	"SLURM_ARRAY_TASK_STEP=1",
	"SLURM_CLUSTER_NAME=anchor",
	"SLURM_CONF=/etc/slurm/slurm.conf",
	"SLURM_CPUS_ON_NODE=4",
	"SLURM_CPUS_PER_TASK=2",
	"SLURM_GPUS_ON_NODE=1",
	"SLURM_GTIDS=0",
	"SLURM_JOBID=11227",
	"SLURM_JOB_ACCOUNT=root",
	"SLURM_JOB_CPUS_PER_NODE=4(x2)",
	"SLURM_JOB_GID=0",
	"SLURM_JOB_GPUS=0",
	"SLURM_JOB_ID=11227",
	"SLURM_JOB_NAME=envjob",
	"SLURM_JOB_NODELIST=g[1-2]",
	"SLURM_JOB_NUM_NODES=2",
	"SLURM_JOB_PARTITION=gpu-queue",
	"SLURM_JOB_QOS=normal",
	"SLURM_JOB_UID=0",
	"SLURM_JOB_USER=root",
	"SLURM_LOCALID=0",
	"SLURM_MEM_PER_CPU=100",
	"SLURM_NNODES=2",
	"SLURM_NODEID=0",
	"SLURM_NODELIST=g[1-2]",
	"SLURM_NODE_ALIASES=(null)",
	"SLURM_NPROCS=4",
	"SLURM_NTASKS=4",
	"SLURM_PRIO_PROCESS=0",
	"SLURM_PROCID=0",
	"SLURM_SUBMIT_DIR=/var/lib/slurm/jobs/golden",
	"SLURM_SUBMIT_HOST=vm",
	"SLURM_TASKS_PER_NODE=2(x2)",
	"SLURM_TOPOLOGY_ADDR=g1",
	"SLURM_TOPOLOGY_ADDR_PATTERN=node",
	"SLURM_WORKING_CLUSTER=anchor:127.0.0.1:6817:9728:109",
	NULL,
};

static char *plain_env[] = { "CUDA_HOME=/usr/local/cuda", "HOME=/root", "PATH=/usr/bin:/bin" };

static struct batch_launch_msg plain_msg(void)
{
	return (struct batch_launch_msg){
		.job_id = 11224,
		.array_job_id = NO_VAL,
		.array_task_id = NO_VAL,
		.uid = 0,
		.gid = 0,
		.user_name = "root",
		.job_name = "envjob_plain",
		.env = plain_env,
		.env_count = ARRAY_SIZE(plain_env),
		.work_dir = "/var/lib/slurm/jobs/golden",
		.nodes = "n1",
		.num_nodes = 1,
		.num_tasks = NO_VAL,
		.cpus_per_task = NO_VAL16,
		.ntasks_per_node = NO_VAL16,
		.cpus_per_node = "1",
		.tasks_per_node = "1",
		.cpus_on_node = 1,
		.mem_per_cpu = 100,
		.mem_limit = 100,
		.partition = "cpu-queue",
		.account = "root",
		.qos = "normal",
		.cluster_name = "anchor",
		.submit_host = "vm",
		.submit_dir = "/var/lib/slurm/jobs/golden",
	};
}

static const struct job_env_node n1 = {
	.node_name = "n1",
	.host_name = "vm",
	.conf_path = "/etc/slurm/slurm.conf",
	.ctld_addr = "127.0.0.1",
	.ctld_port = 6817,
};

static bool is_compared(const char *entry)
{
	return (strncmp(entry, "SLURM", 5) == 0 || strncmp(entry, "CUDA", 4) == 0
		|| strncmp(entry, "GPU", 3) == 0)
	       && strncmp(entry, "SLURM_TASK_PID=", 15) != 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The compared entries of e, sorted as `env | sort` prints them, must be ref. */
static void assert_env_is(const struct job_env *e, const char *const *ref)
{
	const char **got = calloc(e->n + 1, sizeof(*got));
	size_t n = 0, i;

	assert_non_null(got);
	for (i = 0; i < e->n; i++)
		if (is_compared(e->v[i]))
			got[n++] = e->v[i];
	qsort(got, n, sizeof(*got), str_cmp);
	for (i = 0; i < n && ref[i]; i++)
		if (strcmp(got[i], ref[i]) != 0)
			fail_msg("entry %zu: got '%s', want '%s'", i, got[i], ref[i]);
	if (i < n)
		fail_msg("extra entry '%s'", got[i]);
	if (ref[i])
		fail_msg("missing entry '%s'", ref[i]);
	assert_null(e->v[e->n]);
	free(got);
}

static void test_plain_job_env_matches_the_reference(void **state)
{
	struct batch_launch_msg m = plain_msg();
	struct job_env e = { 0 };

	(void)state;
	assert_int_equal(job_env_batch(&e, &m, &n1), 0);
	assert_env_is(&e, plain_ref);
	assert_string_equal(job_env_get(&e, "PATH"), "/usr/bin:/bin");
	assert_string_equal(job_env_get(&e, "ENVIRONMENT"), "BATCH");
	job_env_done(&e);
}

static void test_array_gpu_job_env_matches_the_reference(void **state)
{
	char *env[] = {
		"CUDA_HOME=/usr/local/cuda",
		"SLURM_ARRAY_TASK_COUNT=2", "SLURM_ARRAY_TASK_MAX=1",
		"SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_STEP=1",
		"SLURM_JOB_ID=1", /* stale, from the submitting shell */
	};
	struct batch_launch_msg m = plain_msg();
	struct job_env_node g1 = n1;
	struct job_env e = { 0 };

	(void)state;
	m.job_id = 11227;
	m.array_job_id = 11223;
	m.array_task_id = 0;
	m.job_name = "envjob";
	m.env = env;
	m.env_count = ARRAY_SIZE(env);
	m.nodes = "g1,g2";
	m.num_nodes = 2;
	m.num_tasks = 4;
	m.cpus_per_task = 2;
	m.cpus_per_node = "4(x2)";
	m.tasks_per_node = "2(x2)";
	m.cpus_on_node = 4;
	m.gpus = "0";
	m.partition = "gpu-queue";
	g1.node_name = "g1";
	g1.has_gpu_files = true;
	assert_int_equal(job_env_batch(&e, &m, &g1), 0);
	assert_env_is(&e, array_ref);
	assert_string_equal(job_env_get(&e, "ROCR_VISIBLE_DEVICES"), "0");
	job_env_done(&e);
}

static void test_counts_memory_and_gpus_appear_only_when_given(void **state)
{
	struct batch_launch_msg m = plain_msg();
	struct job_env_node node = n1;
	struct job_env e = { 0 };

	(void)state;
	m.mem_per_cpu = 0;
	m.mem_per_node = 2000;
	m.ntasks_per_node = 3;
	m.gpus = "1,3";
	m.cpus_per_node = NULL;
	node.ctld_addr = NULL;
	assert_int_equal(job_env_batch(&e, &m, &node), 0);
	assert_null(job_env_get(&e, "SLURM_NTASKS"));
	assert_null(job_env_get(&e, "SLURM_CPUS_PER_TASK"));
	assert_null(job_env_get(&e, "SLURM_MEM_PER_CPU"));
	assert_null(job_env_get(&e, "SLURM_WORKING_CLUSTER"));
	assert_string_equal(job_env_get(&e, "SLURM_MEM_PER_NODE"), "2000");
	assert_string_equal(job_env_get(&e, "SLURM_NTASKS_PER_NODE"), "3");
	assert_string_equal(job_env_get(&e, "SLURM_JOB_CPUS_PER_NODE"), "1");
	/* no device files in gres.conf: no GPU variables, as Slurm */
	assert_null(job_env_get(&e, "CUDA_VISIBLE_DEVICES"));
	assert_null(job_env_get(&e, "SLURM_JOB_GPUS"));
	job_env_done(&e);
	node.has_gpu_files = true;
	assert_int_equal(job_env_batch(&e, &m, &node), 0);
	assert_string_equal(job_env_get(&e, "CUDA_VISIBLE_DEVICES"), "1,3");
	assert_string_equal(job_env_get(&e, "SLURM_GPUS_ON_NODE"), "2");
	job_env_done(&e);
}

/* env_batch_srun_tasks.txt, task 3 (node 1 of n[1-2], gtids 1,2,3), without
 * SLURM_TASK_PID. */
static const char *const step_ref[] = {
	"CUDA_HOME=/usr/local/cuda",
	"SLURMD_NODENAME=n2",
	"SLURM_CLUSTER_NAME=anchor",
	"SLURM_CONF=/etc/slurm/slurm.conf",
	"SLURM_CPUS_ON_NODE=3",
	"SLURM_DISTRIBUTION=block",
	"SLURM_GTIDS=1,2,3",
	"SLURM_JOBID=11225",
	"SLURM_JOB_ACCOUNT=root",
	"SLURM_JOB_CPUS_PER_NODE=1,3",
	"SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0=1,3",
	"SLURM_JOB_GID=0",
	"SLURM_JOB_ID=11225",
	"SLURM_JOB_NAME=envjob_srun",
	"SLURM_JOB_NODELIST=n[1-2]",
	"SLURM_JOB_NUM_NODES=2",
	"SLURM_JOB_PARTITION=cpu-queue",
	"SLURM_JOB_QOS=normal",
	"SLURM_JOB_UID=0",
	"SLURM_JOB_USER=root",
	"SLURM_LABELIO=1",
	"SLURM_LAUNCH_NODE_IPADDR=127.0.0.1",
	"SLURM_LOCALID=2",
	"SLURM_MEM_PER_CPU=100",
	"SLURM_NNODES=2",
	"SLURM_NODEID=1",
	"SLURM_NODELIST=n[1-2]",
	"SLURM_NODE_ALIASES=(null)",
	"SLURM_NPROCS=4",
	"SLURM_NTASKS=4",
	"SLURM_PRIO_PROCESS=0",
	"SLURM_PROCID=3",
	"SLURM_SRUN_COMM_HOST=127.0.0.1",
	"SLURM_SRUN_COMM_PORT=34611",
	"SLURM_STEPID=0",
	"SLURM_STEP_ID=0",
	"SLURM_STEP_LAUNCHER_PORT=34611",
	"SLURM_STEP_NODELIST=n[1-2]",
	"SLURM_STEP_NUM_NODES=2",
	"SLURM_STEP_NUM_TASKS=4",
	"SLURM_STEP_TASKS_PER_NODE=1,3",
	"SLURM_SUBMIT_DIR=/var/lib/slurm/jobs/golden",
	"SLURM_SUBMIT_HOST=vm",
	"SLURM_TASKS_PER_NODE=1,3",
	"SLURM_TOPOLOGY_ADDR=n2",
	"SLURM_TOPOLOGY_ADDR_PATTERN=node",
	"SLURM_UMASK=0022",
	"SLURM_WORKING_CLUSTER=anchor:127.0.0.1:6817:9728:109",
	NULL,
};

/* What srun sends for that step: the reference less what the stepd adds,
 * plus stale per-node values inherited from the batch script. */
static char *step_srun_env[] = {
	"CUDA_HOME=/usr/local/cuda",
	"SLURM_CLUSTER_NAME=anchor",
	"SLURM_DISTRIBUTION=block",
	"SLURM_JOBID=11225",
	"SLURM_JOB_ACCOUNT=root",
	"SLURM_JOB_CPUS_PER_NODE=1,3",
	"SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0=1,3",
	"SLURM_JOB_GID=0",
	"SLURM_JOB_ID=11225",
	"SLURM_JOB_NAME=envjob_srun",
	"SLURM_JOB_NODELIST=n[1-2]",
	"SLURM_JOB_NUM_NODES=2",
	"SLURM_JOB_PARTITION=cpu-queue",
	"SLURM_JOB_QOS=normal",
	"SLURM_JOB_UID=0",
	"SLURM_JOB_USER=root",
	"SLURM_LABELIO=1",
	"SLURM_LAUNCH_NODE_IPADDR=127.0.0.1",
	"SLURM_MEM_PER_CPU=100",
	"SLURM_NNODES=2",
	"SLURM_NODELIST=n[1-2]",
	"SLURM_NODE_ALIASES=(null)",
	"SLURM_NPROCS=4",
	"SLURM_NTASKS=4",
	"SLURM_PRIO_PROCESS=0",
	"SLURM_SRUN_COMM_HOST=127.0.0.1",
	"SLURM_SRUN_COMM_PORT=34611",
	"SLURM_STEPID=0",
	"SLURM_STEP_ID=0",
	"SLURM_STEP_LAUNCHER_PORT=34611",
	"SLURM_STEP_NODELIST=n[1-2]",
	"SLURM_STEP_NUM_NODES=2",
	"SLURM_STEP_NUM_TASKS=4",
	"SLURM_STEP_TASKS_PER_NODE=1,3",
	"SLURM_SUBMIT_DIR=/var/lib/slurm/jobs/golden",
	"SLURM_SUBMIT_HOST=vm",
	"SLURM_TASKS_PER_NODE=1,3",
	"SLURM_UMASK=0022",
	"SLURMD_NODENAME=n1",
	"SLURM_NODEID=0",
	"SLURM_PROCID=0",
	"SLURM_LOCALID=0",
	"SLURM_GTIDS=0",
	"SLURM_CPUS_ON_NODE=1",
	"PATH=/usr/bin:/bin",
};

static struct launch_tasks_msg step_msg(uint32_t *gtids)
{
	return (struct launch_tasks_msg){
		.job_id = 11225,
		.step_id = 0,
		.node_name = "n2",
		.env = step_srun_env,
		.env_count = ARRAY_SIZE(step_srun_env),
		.step_nodes = "n[1-2]",
		.num_nodes = 2,
		.node_id = 1,
		.num_tasks = 4,
		.gtids = gtids,
		.ntasks_here = 3,
		.cpus_on_node = 3,
	};
}

static void test_step_task_env_matches_the_reference(void **state)
{
	uint32_t gtids[] = { 1, 2, 3 };
	struct launch_tasks_msg m = step_msg(gtids);
	struct job_env_node n2 = n1;
	struct job_env e = { 0 };

	(void)state;
	n2.node_name = "n2";
	n2.cluster_name = "anchor";
	assert_int_equal(job_env_step(&e, &m, &n2), 0);
	assert_int_equal(job_env_step_task(&e, &m, 2), 0);
	assert_env_is(&e, step_ref);
	assert_string_equal(job_env_get(&e, "PATH"), "/usr/bin:/bin");
	assert_null(job_env_get(&e, "ENVIRONMENT"));
	assert_null(job_env_get(&e, "HOSTNAME"));
	/* the other local tasks of the node */
	assert_int_equal(job_env_step_task(&e, &m, 0), 0);
	assert_string_equal(job_env_get(&e, "SLURM_PROCID"), "1");
	assert_string_equal(job_env_get(&e, "SLURM_LOCALID"), "0");
	assert_int_equal(job_env_step_task(&e, &m, 3), -EINVAL);
	job_env_done(&e);
}

static void test_step_gpus_only_with_device_files(void **state)
{
	uint32_t gtids[] = { 0 };
	struct launch_tasks_msg m = step_msg(gtids);
	struct job_env_node g1 = n1;
	struct job_env e = { 0 };

	(void)state;
	m.ntasks_here = 1;
	m.node_id = 0;
	m.gpus = "0,2";
	m.env_count = 0;
	assert_int_equal(job_env_step(&e, &m, &g1), 0);
	assert_null(job_env_get(&e, "CUDA_VISIBLE_DEVICES"));
	assert_null(job_env_get(&e, "SLURM_STEP_GPUS"));
	assert_string_equal(job_env_get(&e, "SLURM_GTIDS"), "0");
	/* no cluster name given: empty first field, as the batch one */
	assert_string_equal(job_env_get(&e, "SLURM_WORKING_CLUSTER"),
			    ":127.0.0.1:6817:9728:109");
	job_env_done(&e);
	g1.has_gpu_files = true;
	assert_int_equal(job_env_step(&e, &m, &g1), 0);
	assert_string_equal(job_env_get(&e, "CUDA_VISIBLE_DEVICES"), "0,2");
	assert_string_equal(job_env_get(&e, "SLURM_STEP_GPUS"), "0,2");
	assert_string_equal(job_env_get(&e, "SLURM_GPUS_ON_NODE"), "2");
	assert_null(job_env_get(&e, "SLURM_JOB_GPUS"));
	job_env_done(&e);
}

static void test_set_replaces_and_unset_removes(void **state)
{
	struct job_env e = { 0 };

	(void)state;
	assert_int_equal(job_env_put(&e, "A=1"), 0);
	assert_int_equal(job_env_put(&e, "AB=2"), 0);
	assert_int_equal(job_env_set(&e, "A", "%d", 3), 0);
	assert_int_equal(e.n, 2);
	assert_string_equal(job_env_get(&e, "A"), "3");
	assert_string_equal(job_env_get(&e, "AB"), "2");
	assert_int_equal(job_env_put(&e, "novalue"), -EINVAL);
	assert_int_equal(job_env_put(&e, "=x"), -EINVAL);
	assert_int_equal(job_env_put(&e, "EMPTY="), 0);
	assert_string_equal(job_env_get(&e, "EMPTY"), "");
	job_env_unset(&e, "A");
	job_env_unset(&e, "missing");
	assert_null(job_env_get(&e, "A"));
	assert_int_equal(e.n, 2);
	assert_null(e.v[2]);
	job_env_done(&e);
	assert_int_equal(e.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_job_env_matches_the_reference),
		cmocka_unit_test(test_array_gpu_job_env_matches_the_reference),
		cmocka_unit_test(test_counts_memory_and_gpus_appear_only_when_given),
		cmocka_unit_test(test_step_task_env_matches_the_reference),
		cmocka_unit_test(test_step_gpus_only_with_device_files),
		cmocka_unit_test(test_set_replaces_and_unset_removes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
