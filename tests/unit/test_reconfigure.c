/* test_reconfigure.c - scontrol reconfigure against live jobs (admin.c,
 * node_table_rebuild): a slurm.conf that removes a node a running job
 * holds, or a partition with a live job, is refused and changes nothing;
 * one that removes or adds other nodes renumbers the node table, and every
 * index jobs and steps keep follows its node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/job_states.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld_fixture.h"
#include "slurmctld/admin.h"
#include "slurmctld/job.h"
#include "slurmctld/job_end.h"
#include "slurmctld/job_sched.h"
#include "slurmctld/node.h"
#include "slurmctld/part.h"
#include "slurmctld/step_rec.h"

/* The fixture's slurm.conf with other nodes and partitions. */
#define CONF_HEAD                                                                                  \
	"ClusterName=t\n"                                                                          \
	"SlurmctldHost=localhost(127.0.0.1)\n"                                                     \
	"StateSaveLocation=%s\n"                                                                   \
	"SlurmdParameters=config_overrides\n"                                                      \
	"DefMemPerCPU=100\n"                                                                       \
	"NodeName=DEFAULT CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=4000\n"

static const char without_n2[] = "NodeName=n[1,3] NodeAddr=127.0.0.1 Port=7001\n"
				 "NodeName=g1 NodeAddr=127.0.0.1 Port=7004 Gres=gpu:4\n"
				 "PartitionName=cpu Nodes=n[1,3] Default=YES MaxTime=60\n"
				 "PartitionName=gpu Nodes=g1\n";
static const char without_gpu[] = "NodeName=n[1-3] NodeAddr=127.0.0.1 Port=7001\n"
				  "PartitionName=cpu Nodes=n[1-3] Default=YES MaxTime=60\n";
static const char a0_in_front[] = "NodeName=a0 NodeAddr=127.0.0.1 Port=7000\n"
				  "NodeName=n[1-3] NodeAddr=127.0.0.1 Port=7001\n"
				  "NodeName=g1 NodeAddr=127.0.0.1 Port=7004 Gres=gpu:4\n"
				  "PartitionName=cpu Nodes=a0,n[1-3] Default=YES MaxTime=60\n"
				  "PartitionName=gpu Nodes=g1\n";

static char conf_path[128];

static int setup(void **state)
{
	struct ctld_fixture *f = fixture_new(NULL);

	snprintf(conf_path, sizeof(conf_path), "%s/slurm.conf", f->dir);
	f->c.conf_path = conf_path;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture_free(*state);
	return 0;
}

static void write_conf(const struct ctld_fixture *f, const char *body)
{
	FILE *fp = fopen(conf_path, "w");

	assert_non_null(fp);
	fprintf(fp, CONF_HEAD "%s", f->dir, body);
	fclose(fp);
}

/* A job of one task started on node (-w). */
static struct job *running_on(struct ctld_fixture *f, const char *node, const char *part)
{
	struct job_desc *d = fixture_desc();
	struct job *job;

	d->num_tasks = 1;
	d->req_nodes = strdup(node);
	d->partition = part ? strdup(part) : NULL;
	job = fixture_submit(f, d);
	job_sched_pass(&f->c);
	assert_int_equal(job->state & JOB_STATE_BASE, JOB_RUNNING);
	return job;
}

static const char *node_of(const struct ctld_fixture *f, const struct job *job, uint32_t k)
{
	assert_true(k < job->alloc.count);
	assert_true(job->alloc.nodes[k].node < f->c.node_count);
	return node_name(&f->c.nodes[job->alloc.nodes[k].node]);
}

/* A running step of job on its first node, by the current numbering. */
static struct step *add_step(struct job *job)
{
	struct step *s;

	job->steps = calloc(1, sizeof(*job->steps));
	assert_non_null(job->steps);
	job->step_count = 1;
	s = &job->steps[0];
	s->state = JOB_RUNNING;
	s->nodes = calloc(1, sizeof(*s->nodes));
	assert_non_null(s->nodes);
	s->node_count = 1;
	s->nodes[0] = (struct step_node_rec){
	    .job_node = 0, .node = job->alloc.nodes[0].node, .tasks = 1, .cpus = 1};
	return s;
}

static void test_removing_a_node_a_running_job_holds_is_refused(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running_on(f, "n2", NULL);
	const struct sl_conf *conf = f->c.conf;
	const struct node *nodes = f->c.nodes;

	write_conf(f, without_n2);
	assert_int_equal(admin_reconfigure(&f->c), -ESLURM_NODES_BUSY);
	/* nothing changed: the same conf, table, job */
	assert_ptr_equal(f->c.conf, conf);
	assert_ptr_equal(f->c.nodes, nodes);
	assert_int_equal(f->c.node_count, 4);
	assert_string_equal(node_of(f, job, 0), "n2");
	assert_int_equal(job->state & JOB_STATE_BASE, JOB_RUNNING);
	assert_int_equal(node_find(&f->c, "n2")->cpus_used, 1);

	/* once the job has ended the same file is taken */
	job_end_alloc(&f->c, job, JOB_CANCELLED, 0, 0, ALLOC_NO_NOTICE);
	assert_int_equal(admin_reconfigure(&f->c), 0);
	assert_int_equal(f->c.node_count, 3);
	assert_null(node_find(&f->c, "n2"));
	assert_int_equal(job->alloc.count, 0); /* the finished job lets go of n2 */
	assert_string_equal(job->nodes, "n2"); /* and still says where it ran */
}

static void test_removing_a_partition_with_a_pending_job_is_refused(void **state)
{
	struct ctld_fixture *f = *state;
	struct job_desc *d = fixture_desc();
	struct job *job;

	d->partition = strdup("gpu");
	job = fixture_submit(f, d); /* no scheduling pass: it stays pending */
	assert_true(job_is_pending(job));
	write_conf(f, without_gpu);
	assert_int_equal(admin_reconfigure(&f->c), -ESLURM_PARTITION_IN_USE);
	assert_int_equal(f->c.part_count, 2);
	assert_non_null(part_find(&f->c, "gpu"));
	assert_true(job_is_pending(job));
}

/* n2 (index 1) goes: n3 and g1 move down by one. A running job on n3 with
 * a running step, a finished one on n2, and the usage of n3 follow. */
static void test_removing_an_idle_node_remaps_every_index(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *done = running_on(f, "n2", NULL);
	struct job *job = running_on(f, "n3", NULL);
	struct job *gpu = running_on(f, "g1", "gpu");
	struct step *s = add_step(job);

	job_end_alloc(&f->c, done, JOB_CANCELLED, 0, 0, ALLOC_NO_NOTICE);
	write_conf(f, without_n2);
	assert_int_equal(admin_reconfigure(&f->c), 0);
	assert_string_equal(node_of(f, job, 0), "n3");
	assert_string_equal(node_of(f, gpu, 0), "g1");
	assert_int_equal(s->nodes[0].node, job->alloc.nodes[0].node);
	assert_int_equal(s->nodes[0].job_node, 0);
	assert_int_equal(node_find(&f->c, "n3")->cpus_used, 1);
	assert_int_equal(done->alloc.count, 0);

	/* the ends give back what the jobs hold on the right nodes */
	job_end_alloc(&f->c, job, JOB_CANCELLED, 0, 0, ALLOC_NO_NOTICE);
	job_end_alloc(&f->c, gpu, JOB_CANCELLED, 0, 0, ALLOC_NO_NOTICE);
	for (uint32_t i = 0; i < f->c.node_count; i++)
		assert_int_equal(f->c.nodes[i].cpus_used, 0);
}

/* A node added before the others shifts every index up. */
static void test_adding_a_node_in_front_remaps_running_jobs(void **state)
{
	struct ctld_fixture *f = *state;
	struct job *job = running_on(f, "n1", NULL);

	write_conf(f, a0_in_front);
	assert_int_equal(admin_reconfigure(&f->c), 0);
	assert_int_equal(f->c.node_count, 5);
	assert_string_equal(node_name(&f->c.nodes[0]), "a0");
	assert_string_equal(node_of(f, job, 0), "n1");
	assert_int_equal(job->alloc.nodes[0].node, 1);
	assert_int_equal(f->c.nodes[1].cpus_used, 1);
	assert_int_equal(f->c.nodes[0].cpus_used, 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_removing_a_node_a_running_job_holds_is_refused),
	    T(test_removing_a_partition_with_a_pending_job_is_refused),
	    T(test_removing_an_idle_node_remaps_every_index),
	    T(test_adding_a_node_in_front_remaps_running_jobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
