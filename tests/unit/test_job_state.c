/* test_job_state.c - journal records for jobs and the id counter: a job
 * with every field set, its steps and usage included, round-trips (and
 * re-packs to the same bytes), every truncation fails cleanly, allocations
 * and step nodes follow node names across a slurm.conf change, a version 1
 * record still reads, and bad records are refused with the right code. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/msg.h"
#include "common/pack.h"
#include "slurmctld/blob_store.h"
#include "slurmctld/job.h"
#include "slurmctld/job_state.h"
#include "slurmctld/step.h"

/* A node table as a slurm.conf defines it: index -> name. */
struct names {
	const char *const *v;
	uint32_t n;
};

static const char *const conf_a[] = { "n1", "n2", "n3", "n4" };
static const char *const conf_b[] = { "n4", "n0", "n3", "n1" }; /* n2 gone, order changed */
static const char *const conf_dup[] = { "dup", "dup" };
static const struct names names_a = { conf_a, ARRAY_SIZE(conf_a) };
static const struct names names_b = { conf_b, ARRAY_SIZE(conf_b) };
static const struct names names_dup = { conf_dup, ARRAY_SIZE(conf_dup) };

static const char *name_of(void *arg, uint32_t index)
{
	const struct names *t = arg;

	return index < t->n ? t->v[index] : NULL;
}

static int index_of(void *arg, const char *name, uint32_t *ret_index)
{
	const struct names *t = arg;

	for (uint32_t i = 0; i < t->n; i++) {
		if (streq(t->v[i], name)) {
			*ret_index = i;
			return 0;
		}
	}
	return -ENOENT;
}

static char **strv_new(const char *a, const char *b)
{
	char **v = calloc(2, sizeof(*v));

	assert_non_null(v);
	v[0] = strdup(a);
	v[1] = strdup(b);
	return v;
}

static struct job_desc *full_desc(void)
{
	struct job_desc *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	*d = (struct job_desc){
		.name = strdup("train"), .partition = strdup("gpu,cpu"),
		.script = strdup("#!/bin/sh\nsrun hostname\n"),
		.argv = strv_new("/home/u/train.sh", "--epochs=3"), .argc = 2,
		.env = strv_new("PATH=/bin", "HOME=/home/u"), .env_count = 2,
		.work_dir = strdup("/home/u"), .std_in = strdup("/dev/null"),
		.std_out = strdup("out-%j.txt"), .std_err = strdup("err-%j.txt"),
		.comment = strdup("a comment"), .account = strdup("acct"), .qos = strdup("normal"),
		.dependency = strdup("afterok:7"), .array_spec = strdup("1-10%2"),
		.req_nodes = strdup("n[1,3]"), .exc_nodes = strdup("n2"),
		.mail_user = strdup("u@example.org"), .tres_per_node = strdup("gres/gpu:2"),
		.tres_per_job = strdup("gres/gpu:4"), .submit_host = strdup("login1"),
		.min_nodes = 2, .max_nodes = 3, .num_tasks = 8, .ntasks_per_node = 4,
		.cpus_per_task = 2, .time_limit = 90, .time_min = 30, .mem_per_node = 4096,
		.mem_per_cpu = 512, .mail_type = MAIL_JOB_END, .open_mode = OPEN_MODE_APPEND,
		.requeue = 1, .warn_signal = 10, .warn_time = 60, .flags = JOB_DESC_EXCLUSIVE,
		.nice = NICE_OFFSET + 5, .begin_time = 1700000100, .user_id = 1000,
		.group_id = 100,
	};
	return d;
}

static struct acct_usage usage_of(uint64_t base)
{
	return (struct acct_usage){
		.user_usec = base + 1, .sys_usec = base + 2, .max_rss_kb = base + 3,
		.tot_rss_kb = base + 4, .max_vm_kb = base + 5, .tot_vm_kb = base + 6,
		.max_rss_task = (uint32_t)base + 7, .max_vm_task = (uint32_t)base + 8,
		.ntasks = (uint32_t)base + 9,
	};
}

/* Step 0 runs on n1 and n4 (job nodes 0 and 2); step 3 has ended on n3. */
static struct step *full_steps(void)
{
	struct step *v = calloc(2, sizeof(*v));
	struct step_node_rec *n0 = calloc(2, sizeof(*n0));
	struct step_node_rec *n1 = calloc(1, sizeof(*n1));

	assert_true(v && n0 && n1);
	n0[0] = (struct step_node_rec){ .job_node = 2, .node = 3, .tasks = 4, .cpus = 8,
					.mem = 1024, .gpus = 0x10, .is_done = true };
	n0[1] = (struct step_node_rec){ .job_node = 0, .node = 0, .tasks = 2, .cpus = 4,
					.mem = 512, .gpus = 0x1 };
	n1[0] = (struct step_node_rec){ .job_node = 1, .node = 2, .tasks = 3, .cpus = 6,
					.mem = 3000, .gpus = 0x4, .is_done = true };
	v[0] = (struct step){
		.step_id = 0, .name = strdup("train"), .command = strdup("python3"),
		.state = JOB_RUNNING, .nodes = n0, .node_count = 2, .nodes_str = strdup("n[1,4]"),
		.num_tasks = 6, .num_cpus = 12, .cpus_per_task = 2,
		.flags = STEP_FLAG_EXCLUSIVE | STEP_FLAG_NO_GRES, .is_gpus_held = true,
		.time_limit = 30, .start_time = 1700000010, .end_time = 1700000011,
		.exit_code = 9, .nodes_done = 1, .usage = usage_of(100),
		.max_rss_node = strdup("n4"), .max_vm_node = strdup("n1"), .kill_requid = 1001,
		.is_oom = true, .is_cancelled = true, .is_timed_out = true,
		.srun_host = strdup("login1"), .srun_port = 40001, .srun_pid = 4242,
		.last_srun_ping = 1700000012,
	};
	v[1] = (struct step){
		.step_id = 3, .name = strdup("post"), .command = strdup("/bin/false"),
		.state = JOB_FAILED, .nodes = n1, .node_count = 1, .nodes_str = strdup("n3"),
		.num_tasks = 3, .num_cpus = 6, .cpus_per_task = 1, .flags = STEP_FLAG_OVERLAP,
		.time_limit = INFINITE, .start_time = 1700000020, .end_time = 1700000021,
		.exit_code = 1 << 8, .nodes_done = 1, .usage = usage_of(200),
		.max_rss_node = strdup("n3"), .max_vm_node = strdup("n3"), .kill_requid = NO_VAL,
		.srun_host = strdup("login2"), .srun_port = 40002, .srun_pid = 4343,
		.last_srun_ping = 1700000022,
	};
	return v;
}

/* Every field set, each to a distinct value, allocated on n1, n3, n4. */
/* Blobs of a store in memory, for the references in a record. */
static struct blob *blob_of(const char *text)
{
	static struct blob_store *store;

	if (!store)
		assert_int_equal(blob_store_open(NULL, &store), 0);
	return blob_put(store, text, strlen(text));
}

static struct job *full_job(void)
{
	struct job *j = calloc(1, sizeof(*j));
	struct sel_alloc *a = calloc(3, sizeof(*a));
	uint32_t *gids = calloc(3, sizeof(*gids));
	struct acct_usage usage;

	assert_true(j && a && gids);
	a[0] = (struct sel_alloc){ .node = 0, .cpus = 4, .tasks = 2, .mem = 2048, .gpus = 0x3 };
	a[1] = (struct sel_alloc){ .node = 2, .cpus = 6, .tasks = 3, .mem = 3072, .gpus = 0xc };
	a[2] = (struct sel_alloc){ .node = 3, .cpus = 8, .tasks = 4, .mem = 4096, .gpus = 0x30 };
	gids[0] = 100, gids[1] = 27, gids[2] = 1001;
	uint32_t *pending = calloc(3, sizeof(*pending));

	assert_non_null(pending);
	pending[0] = 8, pending[1] = 9, pending[2] = 12;
	*j = (struct job){
		.job_id = 42, .desc = full_desc(), .uid = 1000, .gid = 100,
		.user_name = strdup("u"), .gids = gids, .ngids = 3,
		.state = JOB_RUNNING | JOB_COMPLETING, .reason = FAIL_TIMEOUT,
		.state_desc = strdup("why it is so"), .priority = 4294901759u,
		.is_user_hold = true, .partition = strdup("gpu"), .time_limit = 90,
		.min_nodes = 2, .max_nodes = 3, .num_tasks = 9, .cpus_per_task = 2,
		.mem_per_cpu = 512, .mem_per_node = 4097, .gpus_per_node = 2, .gpus_total = 6,
		.submit_time = 1700000000, .eligible_time = 1700000001,
		.start_time = 1700000002, .end_time = 1700000003, .last_sched_eval = 1700000004,
		.alloc = { .nodes = a, .count = 3, .total_cpus = 18 },
		.nodes = strdup("n[1,3-4]"), .batch_host = strdup("n1"), .exit_code = 15 << 8, .resv_id = 42,
		.restart_cnt = 3, .is_cancelled = true, .is_timed_out = true, .cancelled_by = 7,
		.is_requeued = true, .is_requeue_hold = true, .is_warned = true,
		.array_job_id = 40, .array_task_id = 7, .array_throttle = 2,
		.array_pending = pending, .array_pending_count = 3,
		.steps = full_steps(), .step_count = 2, .next_step_id = 4,
	};
	j->script_blob = blob_of("#!/bin/sh\ntrue\n");
	j->env_blob = blob_of("PATH=/bin");
	j->epilog_nodes = calloc(2, sizeof(*j->epilog_nodes));
	assert_non_null(j->epilog_nodes);
	j->epilog_nodes[0] = 3, j->epilog_nodes[1] = 0; /* n4, n1 still owe their Epilog */
	j->epilog_count = 2;
	j->is_epilog_ctld = true;
	usage = usage_of(0);
	assert_int_equal(job_set_batch_usage(j, &(struct acct_usage){0}), 0);
	assert_null(j->batch_usage); /* none: no room taken */
	assert_int_equal(job_set_batch_usage(j, &usage), 0);
	return j;
}

DEFINE_FREEP(struct job, job_free)

static void assert_str_eq(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void assert_usage_equal(const struct acct_usage *a, const struct acct_usage *b)
{
	assert_int_equal(a->user_usec, b->user_usec);
	assert_int_equal(a->sys_usec, b->sys_usec);
	assert_int_equal(a->max_rss_kb, b->max_rss_kb);
	assert_int_equal(a->tot_rss_kb, b->tot_rss_kb);
	assert_int_equal(a->max_vm_kb, b->max_vm_kb);
	assert_int_equal(a->tot_vm_kb, b->tot_vm_kb);
	assert_int_equal(a->max_rss_task, b->max_rss_task);
	assert_int_equal(a->max_vm_task, b->max_vm_task);
	assert_int_equal(a->ntasks, b->ntasks);
}

static void assert_step_node_equal(const struct step_node_rec *a, const struct step_node_rec *b)
{
	assert_int_equal(a->job_node, b->job_node);
	assert_int_equal(a->node, b->node);
	assert_int_equal(a->tasks, b->tasks);
	assert_int_equal(a->cpus, b->cpus);
	assert_int_equal(a->mem, b->mem);
	assert_int_equal(a->gpus, b->gpus);
	assert_int_equal(a->is_done, b->is_done);
}

/* Everything but the node records. */
static void assert_step_fields_equal(const struct step *a, const struct step *b)
{
	assert_int_equal(a->step_id, b->step_id);
	assert_str_eq(a->name, b->name);
	assert_str_eq(a->command, b->command);
	assert_int_equal(a->state, b->state);
	assert_str_eq(a->nodes_str, b->nodes_str);
	assert_int_equal(a->num_tasks, b->num_tasks);
	assert_int_equal(a->num_cpus, b->num_cpus);
	assert_int_equal(a->cpus_per_task, b->cpus_per_task);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->is_gpus_held, b->is_gpus_held);
	assert_int_equal(a->time_limit, b->time_limit);
	assert_int_equal(a->start_time, b->start_time);
	assert_int_equal(a->end_time, b->end_time);
	assert_int_equal(a->exit_code, b->exit_code);
	assert_int_equal(a->nodes_done, b->nodes_done);
	assert_usage_equal(&a->usage, &b->usage);
	assert_str_eq(a->max_rss_node, b->max_rss_node);
	assert_str_eq(a->max_vm_node, b->max_vm_node);
	assert_int_equal(a->kill_requid, b->kill_requid);
	assert_int_equal(a->is_oom, b->is_oom);
	assert_int_equal(a->is_cancelled, b->is_cancelled);
	assert_int_equal(a->is_timed_out, b->is_timed_out);
	assert_str_eq(a->srun_host, b->srun_host);
	assert_int_equal(a->srun_port, b->srun_port);
	assert_int_equal(a->srun_pid, b->srun_pid);
	assert_int_equal(a->last_srun_ping, b->last_srun_ping);
}

static void assert_step_equal(const struct step *a, const struct step *b)
{
	assert_step_fields_equal(a, b);
	assert_int_equal(a->node_count, b->node_count);
	for (uint32_t i = 0; i < a->node_count; i++)
		assert_step_node_equal(&a->nodes[i], &b->nodes[i]);
}

/* Field by field: what the byte comparison cannot name. */
static void assert_job_equal(const struct job *a, const struct job *b)
{
	assert_int_equal(a->job_id, b->job_id);
	assert_int_equal(!a->script_blob, !b->script_blob);
	assert_int_equal(!a->env_blob, !b->env_blob);
	if (a->script_blob)
		assert_int_equal(blob_len(a->script_blob), blob_len(b->script_blob));
	if (a->env_blob)
		assert_int_equal(blob_len(a->env_blob), blob_len(b->env_blob));
	assert_int_equal(a->uid, b->uid);
	assert_int_equal(a->gid, b->gid);
	assert_str_eq(a->user_name, b->user_name);
	assert_int_equal(a->ngids, b->ngids);
	if (a->ngids)
		assert_memory_equal(a->gids, b->gids, a->ngids * sizeof(*a->gids));
	assert_int_equal(a->state, b->state);
	assert_int_equal(a->reason, b->reason);
	assert_str_eq(a->state_desc, b->state_desc);
	assert_int_equal(a->priority, b->priority);
	assert_int_equal(a->is_user_hold, b->is_user_hold);
	assert_str_eq(a->partition, b->partition);
	assert_int_equal(a->time_limit, b->time_limit);
	assert_int_equal(a->min_nodes, b->min_nodes);
	assert_int_equal(a->max_nodes, b->max_nodes);
	assert_int_equal(a->num_tasks, b->num_tasks);
	assert_int_equal(a->cpus_per_task, b->cpus_per_task);
	assert_int_equal(a->mem_per_cpu, b->mem_per_cpu);
	assert_int_equal(a->mem_per_node, b->mem_per_node);
	assert_int_equal(a->gpus_per_node, b->gpus_per_node);
	assert_int_equal(a->gpus_total, b->gpus_total);
	assert_int_equal(a->submit_time, b->submit_time);
	assert_int_equal(a->eligible_time, b->eligible_time);
	assert_int_equal(a->start_time, b->start_time);
	assert_int_equal(a->end_time, b->end_time);
	assert_int_equal(a->last_sched_eval, b->last_sched_eval);
	assert_int_equal(a->alloc.count, b->alloc.count);
	assert_int_equal(a->alloc.total_cpus, b->alloc.total_cpus);
	if (a->alloc.count)
		assert_memory_equal(a->alloc.nodes, b->alloc.nodes,
				    a->alloc.count * sizeof(*a->alloc.nodes));
	assert_str_eq(a->nodes, b->nodes);
	assert_str_eq(a->batch_host, b->batch_host);
	assert_int_equal(a->exit_code, b->exit_code);
	assert_int_equal(a->resv_id, b->resv_id);
	assert_int_equal(a->restart_cnt, b->restart_cnt);
	assert_int_equal(a->is_cancelled, b->is_cancelled);
	assert_int_equal(a->is_timed_out, b->is_timed_out);
	assert_int_equal(a->is_requeued, b->is_requeued);
	assert_int_equal(a->is_requeue_hold, b->is_requeue_hold);
	assert_int_equal(a->is_warned, b->is_warned);
	assert_int_equal(a->epilog_count, b->epilog_count);
	assert_int_equal(a->is_epilog_ctld, b->is_epilog_ctld);
	for (uint32_t i = 0; i < a->epilog_count; i++)
		assert_int_equal(a->epilog_nodes[i], b->epilog_nodes[i]);
	assert_int_equal(a->array_job_id, b->array_job_id);
	assert_int_equal(a->array_task_id, b->array_task_id);
	assert_int_equal(a->array_throttle, b->array_throttle);
	assert_int_equal(a->array_pending_count, b->array_pending_count);
	if (a->array_pending_count)
		assert_memory_equal(a->array_pending, b->array_pending,
				    a->array_pending_count * sizeof(uint32_t));
	assert_int_equal(a->cancelled_by, b->cancelled_by);
	assert_int_equal(a->next_step_id, b->next_step_id);
	assert_usage_equal(job_batch_usage(a), job_batch_usage(b));
	assert_int_equal(a->step_count, b->step_count);
	for (uint32_t i = 0; i < a->step_count; i++)
		assert_step_equal(&a->steps[i], &b->steps[i]);
	assert_int_equal(a->desc != NULL, b->desc != NULL);
	if (a->desc) {
		assert_str_eq(a->desc->script, b->desc->script);
		assert_str_eq(a->desc->env[1], b->desc->env[1]);
		assert_int_equal(a->desc->nice, b->desc->nice);
		assert_int_equal(a->desc->group_id, b->desc->group_id);
	}
}

static void pack_job(const struct job *job, const struct names *names, struct pack_buf *b)
{
	*b = (struct pack_buf){ 0 };
	assert_int_equal(job_state_pack(job, name_of, (void *)names, b), 0);
}

/* A new field in struct job needs a line in job_state.c and a value in
 * full_job(); this size check is the reminder (LP64 layout). Runtime-only
 * fields (acct_seq, saved_seq, is_prio_fixed, prio_time, is_launching,
 * is_kill_deferred, info_kept, info_gen, is_str_shared, epilog_asked,
 * is_prolog_ctld, prolog_nodes, prolog_count) are said so in job.h;
 * alloc.share and alloc.is_exclusive are select.h's (not kept: a restart
 * works them out again, job_place_restore()). */
static void test_struct_job_has_no_field_the_record_misses(void **state)
{
	(void)state;
	if (sizeof(long) == 8 && sizeof(struct job) != 464)
		fail_msg("struct job is %zu bytes, was 464: pack the new field in "
			 "job_state.c, set it in full_job(), then update this size",
			 sizeof(struct job));
}

static void test_a_job_with_every_field_set_round_trips_to_the_same_bytes(void **state)
{
	_cleanup_(job_freep) struct job *job = full_job();
	_cleanup_(job_freep) struct job *back = NULL;
	struct pack_buf b1, b2;

	(void)state;
	pack_job(job, &names_a, &b1);
	assert_int_equal(job_state_rec_type(b1.data, b1.len), JOURNAL_REC_JOB);
	assert_int_equal(job_state_unpack(b1.data, b1.len, index_of, (void *)&names_a, &back), 0);
	assert_job_equal(job, back);
	pack_job(back, &names_a, &b2);
	assert_int_equal(b1.len, b2.len);
	assert_memory_equal(b1.data, b2.data, b1.len);
	pack_buf_done(&b1);
	pack_buf_done(&b2);
}

static void test_a_pending_job_without_desc_or_allocation_round_trips(void **state)
{
	_cleanup_(job_freep) struct job *job = calloc(1, sizeof(*job));
	_cleanup_(job_freep) struct job *back = NULL;
	struct pack_buf b;

	(void)state;
	assert_non_null(job);
	job->job_id = 7;
	job->reason = WAIT_PRIORITY;
	pack_job(job, &names_a, &b);
	/* no allocation: neither callback is needed */
	assert_int_equal(job_state_unpack(b.data, b.len, NULL, NULL, &back), 0);
	assert_job_equal(job, back);
	assert_null(back->desc);
	pack_buf_done(&b);
}

static void test_every_truncation_fails_cleanly(void **state)
{
	_cleanup_(job_freep) struct job *job = full_job();
	struct pack_buf b;

	(void)state;
	pack_job(job, &names_a, &b);
	for (size_t len = 0; len < b.len; len++) {
		/* a private copy, so ASan sees any read past len */
		uint8_t *copy = malloc(len ? len : 1);
		struct job *back = NULL;
		int r;

		assert_non_null(copy);
		memcpy(copy, b.data, len);
		r = job_state_unpack(copy, len, index_of, (void *)&names_a, &back);
		if (r >= 0 || back)
			fail_msg("a record cut to %zu of %zu bytes was accepted", len, b.len);
		free(copy);
	}
	pack_buf_done(&b);
}

static void test_allocated_nodes_follow_their_names_into_a_new_conf(void **state)
{
	_cleanup_(job_freep) struct job *job = full_job();
	_cleanup_(job_freep) struct job *back = NULL;
	struct pack_buf b;

	(void)state;
	pack_job(job, &names_a, &b); /* n1, n3, n4 */
	assert_int_equal(job_state_unpack(b.data, b.len, index_of, (void *)&names_b, &back), 0);
	assert_int_equal(back->alloc.count, 3);
	/* conf_b: n4 = 0, n3 = 2, n1 = 3, and the allocation stays in index order */
	assert_int_equal(back->alloc.nodes[0].node, 0);
	assert_int_equal(back->alloc.nodes[0].gpus, 0x30);
	assert_int_equal(back->alloc.nodes[1].node, 2);
	assert_int_equal(back->alloc.nodes[1].cpus, 6);
	assert_int_equal(back->alloc.nodes[2].node, 3);
	assert_int_equal(back->alloc.nodes[2].mem, 2048);
	/* the nodes owing an Epilog follow their names too */
	assert_int_equal(back->epilog_count, 2);
	assert_int_equal(back->epilog_nodes[0], 0);
	assert_int_equal(back->epilog_nodes[1], 3);
	pack_buf_done(&b);
}

static int index_of_gone(void *arg, const char *name, uint32_t *ret_index)
{
	(void)arg;
	if (streq(name, "n3"))
		return -ENOENT;
	*ret_index = name[1] == '1' ? 0 : 3;
	return 0;
}

static void test_a_node_gone_from_the_conf_is_enoent(void **state)
{
	_cleanup_(job_freep) struct job *job = full_job();
	struct job *back = NULL;
	struct pack_buf b;

	(void)state;
	pack_job(job, &names_a, &b);
	assert_int_equal(job_state_unpack(b.data, b.len, index_of_gone, NULL, &back), -ENOENT);
	assert_null(back);
	pack_buf_done(&b);
}

static void test_packing_a_node_without_a_name_is_enoent(void **state)
{
	_cleanup_(job_freep) struct job *job = full_job();
	const struct names short_conf = { conf_a, 3 }; /* index 3 unknown */
	struct pack_buf b = { 0 };

	(void)state;
	assert_int_equal(job_state_pack(job, name_of, (void *)&short_conf, &b), -ENOENT);
	assert_int_equal(b.err, -ENOENT);
	pack_buf_done(&b);
	assert_int_equal(job_state_pack(job, NULL, NULL, &b), -EINVAL);
	pack_buf_done(&b);
}

/* A job made bad on purpose, or its packed bytes patched. */
static const struct bad_case {
	const char *name;
	enum { BAD_REASON, BAD_DUP_NODE, PATCH_TYPE, PATCH_VERSION0, PATCH_VERSION_NEW,
	       PATCH_TRAILING, PATCH_BOOL } how;
	int want;
} bad_cases[] = {
	{ "a reason past the table", BAD_REASON, -EBADMSG },
	{ "two nodes that map to one index", BAD_DUP_NODE, -EBADMSG },
	{ "a SEQ record", PATCH_TYPE, -EBADMSG },
	{ "version 0", PATCH_VERSION0, -EBADMSG },
	{ "a newer version", PATCH_VERSION_NEW, -EPROTONOSUPPORT },
	{ "a trailing byte", PATCH_TRAILING, -EBADMSG },
	{ "a bool that is 2", PATCH_BOOL, -EBADMSG },
};

static void test_bad_records_are_refused(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];
		_cleanup_(job_freep) struct job *job = full_job();
		struct job *back = NULL;
		const struct names *names = c->how == BAD_DUP_NODE ? &names_dup : &names_a;
		struct pack_buf b;
		int r;

		if (c->how == BAD_REASON)
			job->reason = _JOB_REASON_MAX;
		if (c->how == BAD_DUP_NODE) {
			step_job_free(job); /* conf_dup has no name for their n4 */
			job->alloc.count = 2; /* both named "dup" in conf_dup */
			job->alloc.nodes[1].node = 1;
		}
		pack_job(job, names, &b);
		switch (c->how) {
		case PATCH_TYPE: b.data[0] = JOURNAL_REC_SEQ; break;
		case PATCH_VERSION0: b.data[1] = b.data[2] = 0; break;
		case PATCH_VERSION_NEW: b.data[2] = JOB_STATE_VERSION + 1; break;
		case PATCH_TRAILING: pack_u8(&b, 0); break;
		case PATCH_BOOL: {
			/* is_requeue_hold, after is_cancelled, is_timed_out,
			 * cancelled_by 7, is_requeued */
			static const uint8_t pat[] = { 1, 1, 0, 0, 0, 7, 1, 1 };
			uint8_t *p = memmem(b.data, b.len, pat, sizeof(pat));

			assert_non_null(p);
			p[sizeof(pat) - 1] = 2;
			break;
		}
		default: break;
		}
		r = job_state_unpack(b.data, b.len, index_of, (void *)names, &back);
		if (r != c->want || back)
			fail_msg("%s: got %d, want %d", c->name, r, c->want);
		pack_buf_done(&b);
	}
}

/* The smallest step (no strings, no nodes) is accepted: the count check
 * of unpack must not ask more bytes per step than a step can take. */
static void test_an_empty_step_round_trips(void **state)
{
	_cleanup_(job_freep) struct job *job = calloc(1, sizeof(*job));
	_cleanup_(job_freep) struct job *back = NULL;
	struct pack_buf b0, b1;

	(void)state;
	assert_non_null(job);
	job->job_id = 8;
	pack_job(job, &names_a, &b0);
	job->steps = calloc(1, sizeof(*job->steps));
	assert_non_null(job->steps);
	job->step_count = 1;
	pack_job(job, &names_a, &b1);
	/* ids, strings (u32 each), counts, times, usage (60), bools ... */
	assert_int_equal(b1.len - b0.len, 158);
	assert_int_equal(job_state_unpack(b1.data, b1.len, NULL, NULL, &back), 0);
	assert_job_equal(job, back);
	pack_buf_done(&b0);
	pack_buf_done(&b1);
}

static void test_steps_follow_their_node_names_into_a_new_conf(void **state)
{
	_cleanup_(job_freep) struct job *job = full_job();
	_cleanup_(job_freep) struct job *back = NULL;
	struct pack_buf b;

	(void)state;
	pack_job(job, &names_a, &b);
	assert_int_equal(job_state_unpack(b.data, b.len, index_of, (void *)&names_b, &back), 0);
	/* conf_b: n4 = 0, n3 = 2, n1 = 3; the allocation is n4, n3, n1 */
	assert_int_equal(back->step_count, 2);
	assert_step_fields_equal(&job->steps[0], &back->steps[0]);
	assert_int_equal(back->steps[0].node_count, 2);
	assert_int_equal(back->steps[0].nodes[0].node, 0); /* n4, step node order kept */
	assert_int_equal(back->steps[0].nodes[0].job_node, 0);
	assert_int_equal(back->steps[0].nodes[0].tasks, 4);
	assert_true(back->steps[0].nodes[0].is_done);
	assert_int_equal(back->steps[0].nodes[1].node, 3); /* n1 */
	assert_int_equal(back->steps[0].nodes[1].job_node, 2);
	assert_int_equal(back->steps[0].nodes[1].mem, 512);
	assert_false(back->steps[0].nodes[1].is_done);
	assert_int_equal(back->steps[1].nodes[0].node, 2); /* n3 */
	assert_int_equal(back->steps[1].nodes[0].job_node, 1);
	assert_int_equal(back->steps[1].nodes[0].gpus, 0x4);
	pack_buf_done(&b);
}

/* No node owes job an Epilog, no EpilogSlurmctld runs, no ResvID:
 * version 4 then appends a zero u32 and a zero bool, version 5 a zero u32. */
static void drop_epilogs(struct job *job)
{
	free(job->epilog_nodes);
	job->epilog_nodes = NULL;
	job->epilog_count = 0;
	job->is_epilog_ctld = false;
	job->resv_id = 0;
}

static void test_a_version_1_record_reads_without_steps_or_usage(void **state)
{
	_cleanup_(job_freep) struct job *job = full_job();
	_cleanup_(job_freep) struct job *back = NULL;
	/* version 2 appends the batch usage (six u64, three u32) and a u32
	 * step count, version 3 two bools (no blob references), version 4 a
	 * u32 (no Epilog owed) and a bool, version 5 a u32 (no ResvID) */
	const size_t v2_tail = 6 * 8 + 3 * 4 + 4 + 2 + 4 + 1 + 4;
	struct pack_buf b;

	(void)state;
	drop_epilogs(job);
	step_job_free(job);
	assert_int_equal(job_set_batch_usage(job, NULL), 0);
	blob_unref(job->script_blob);
	blob_unref(job->env_blob);
	job->script_blob = job->env_blob = NULL;
	pack_job(job, &names_a, &b);
	for (size_t i = b.len - v2_tail; i < b.len; i++)
		assert_int_equal(b.data[i], 0);
	/* the same body as version 1 packed it */
	b.data[1] = 0;
	b.data[2] = 1;
	assert_int_equal(job_state_unpack(b.data, b.len - v2_tail, index_of, (void *)&names_a,
					  &back),
			 0);
	assert_job_equal(job, back);
	assert_null(back->steps);
	assert_int_equal(back->step_count, 0);
	assert_null(back->batch_usage);
	back = job_free(back);
	/* a version 1 record with the version 2 tail has leftover bytes */
	assert_int_equal(job_state_unpack(b.data, b.len, index_of, (void *)&names_a, &back),
			 -EBADMSG);
	assert_null(back);
	pack_buf_done(&b);
}

static void test_a_version_2_record_reads_without_blob_references(void **state)
{
	_cleanup_(job_freep) struct job *job = full_job();
	_cleanup_(job_freep) struct job *back = NULL;
	struct pack_buf b;

	(void)state;
	drop_epilogs(job);
	blob_unref(job->script_blob);
	blob_unref(job->env_blob);
	job->script_blob = job->env_blob = NULL;
	pack_job(job, &names_a, &b);
	for (size_t i = b.len - 11; i < b.len; i++)
		assert_int_equal(b.data[i], 0); /* no script, environment, Epilog owed, ResvID */
	b.data[2] = 2;
	assert_int_equal(job_state_unpack(b.data, b.len - 11, index_of, (void *)&names_a, &back),
			 0);
	assert_job_equal(job, back);
	assert_null(back->script_blob);
	back = job_free(back);
	/* with references: each one's length is checked */
	job->script_blob = blob_of("x");
	pack_buf_done(&b);
	pack_job(job, &names_a, &b);
	assert_int_equal(job_state_unpack(b.data, b.len, index_of, (void *)&names_a, &back), 0);
	assert_non_null(back->script_blob);
	assert_int_equal(blob_len(back->script_blob), 1);
	pack_buf_done(&b);
}

static void test_a_version_3_record_reads_without_epilogs_owed(void **state)
{
	_cleanup_(job_freep) struct job *job = full_job();
	_cleanup_(job_freep) struct job *back = NULL;
	struct pack_buf b;

	(void)state;
	drop_epilogs(job);
	pack_job(job, &names_a, &b);
	b.data[2] = 3;
	assert_int_equal(job_state_unpack(b.data, b.len - 9, index_of, (void *)&names_a, &back),
			 0);
	assert_job_equal(job, back);
	assert_null(back->epilog_nodes);
	back = job_free(back);
	/* a version 3 record with the version 4 tail has leftover bytes */
	assert_int_equal(job_state_unpack(b.data, b.len, index_of, (void *)&names_a, &back),
			 -EBADMSG);
	pack_buf_done(&b);
}

static void test_a_version_4_record_reads_without_a_resv_id(void **state)
{
	_cleanup_(job_freep) struct job *job = full_job();
	_cleanup_(job_freep) struct job *back = NULL;
	struct pack_buf b;

	(void)state;
	pack_job(job, &names_a, &b);
	b.data[2] = 4;
	assert_int_equal(job_state_unpack(b.data, b.len - 4, index_of, (void *)&names_a, &back),
			 0);
	assert_int_equal(back->resv_id, 0);
	back->resv_id = job->resv_id;
	assert_job_equal(job, back);
	back = job_free(back);
	/* a version 4 record with the version 5 tail has leftover bytes */
	assert_int_equal(job_state_unpack(b.data, b.len, index_of, (void *)&names_a, &back),
			 -EBADMSG);
	pack_buf_done(&b);
}

/* n2 is gone from conf_b. */
static struct job *requeued_job_with_a_step_on_n2(uint32_t step_state)
{
	struct job *job = full_job();
	struct step *s = &job->steps[1];

	/* back in the queue: no allocation, the old steps stay */
	sel_result_done(&job->alloc);
	job->state = JOB_PENDING;
	job->steps[0].state = JOB_COMPLETE;
	s->state = step_state;
	s->nodes[0].node = 1; /* n2 */
	free(s->nodes_str);
	s->nodes_str = strdup("n2");
	return job;
}

static void test_a_finished_step_on_a_node_gone_is_kept_without_its_nodes(void **state)
{
	_cleanup_(job_freep) struct job *job = requeued_job_with_a_step_on_n2(JOB_FAILED);
	_cleanup_(job_freep) struct job *back = NULL;
	struct pack_buf b;

	(void)state;
	pack_job(job, &names_a, &b);
	assert_int_equal(job_state_unpack(b.data, b.len, index_of, (void *)&names_b, &back), 0);
	assert_int_equal(back->alloc.count, 0);
	assert_int_equal(back->step_count, 2);
	/* step 0 ran on n1 and n4, still configured, outside today's (empty) allocation */
	assert_int_equal(back->steps[0].node_count, 2);
	assert_int_equal(back->steps[0].nodes[0].node, 0);
	assert_int_equal(back->steps[0].nodes[0].job_node, NO_VAL);
	assert_int_equal(back->steps[0].nodes[1].node, 3);
	assert_int_equal(back->steps[0].nodes[1].job_node, NO_VAL);
	/* step 3 ran on n2 alone, which is gone: kept, without node records */
	assert_step_fields_equal(&job->steps[1], &back->steps[1]);
	assert_int_equal(back->steps[1].node_count, 0);
	assert_null(back->steps[1].nodes);
	assert_string_equal(back->steps[1].nodes_str, "n2");
	pack_buf_done(&b);
}

static void test_a_running_step_on_a_node_gone_is_enoent(void **state)
{
	_cleanup_(job_freep) struct job *job = requeued_job_with_a_step_on_n2(JOB_RUNNING);
	struct job *back = NULL;
	struct pack_buf b;

	(void)state;
	pack_job(job, &names_a, &b);
	assert_int_equal(job_state_unpack(b.data, b.len, index_of, (void *)&names_b, &back),
			 -ENOENT);
	assert_null(back);
	/* with the node still there it is outside the allocation: refused too */
	assert_int_equal(job_state_unpack(b.data, b.len, index_of, (void *)&names_a, &back),
			 -EBADMSG);
	assert_null(back);
	pack_buf_done(&b);
}

static void test_packing_a_step_node_without_a_name_is_enoent(void **state)
{
	_cleanup_(job_freep) struct job *job = full_job();
	struct pack_buf b = { 0 };

	(void)state;
	job->steps[1].nodes[0].node = 9;
	assert_int_equal(job_state_pack(job, name_of, (void *)&names_a, &b), -ENOENT);
	pack_buf_done(&b);
}

/* Steps made bad on purpose: each refused, nothing leaked. */
static const struct bad_step_case {
	const char *name;
	enum { STEPS_OUT_OF_ORDER, STEPS_SAME_ID, STEP_NODE_TWICE, STEP_OUTSIDE_ALLOC } how;
} bad_step_cases[] = {
	{ "steps out of id order", STEPS_OUT_OF_ORDER },
	{ "two steps with one id", STEPS_SAME_ID },
	{ "a step on one node twice", STEP_NODE_TWICE },
	{ "a running step outside the allocation", STEP_OUTSIDE_ALLOC },
};

static void test_bad_steps_are_refused(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad_step_cases); i++) {
		const struct bad_step_case *c = &bad_step_cases[i];
		_cleanup_(job_freep) struct job *job = full_job();
		struct job *back = NULL;
		struct pack_buf b;
		int r;

		switch (c->how) {
		case STEPS_OUT_OF_ORDER: job->steps[0].step_id = 5; break;
		case STEPS_SAME_ID: job->steps[1].step_id = 0; break;
		case STEP_NODE_TWICE: job->steps[0].nodes[1].node = 3; break;
		case STEP_OUTSIDE_ALLOC: job->steps[0].nodes[1].node = 1; break; /* n2 */
		}
		pack_job(job, &names_a, &b);
		r = job_state_unpack(b.data, b.len, index_of, (void *)&names_a, &back);
		if (r != -EBADMSG || back)
			fail_msg("%s: got %d, want %d", c->name, r, -EBADMSG);
		pack_buf_done(&b);
	}
}

static void test_the_seq_record_round_trips_and_truncations_fail(void **state)
{
	const struct job_state_seq seq = { .next_job_id = 1234, .lowest_prio = 0xfffe0001 };
	struct job_state_seq back = { 0 };
	struct job *job = NULL;
	struct pack_buf b = { 0 };

	(void)state;
	assert_int_equal(job_state_seq_pack(&seq, &b), 0);
	assert_int_equal(b.len, 1 + 2 + 4 + 4);
	assert_int_equal(job_state_rec_type(b.data, b.len), JOURNAL_REC_SEQ);
	assert_int_equal(job_state_seq_unpack(b.data, b.len, &back), 0);
	assert_int_equal(back.next_job_id, seq.next_job_id);
	assert_int_equal(back.lowest_prio, seq.lowest_prio);
	for (size_t len = 0; len < b.len; len++) {
		back = (struct job_state_seq){ 0 };
		assert_true(job_state_seq_unpack(b.data, len, &back) < 0);
		assert_int_equal(back.next_job_id, 0); /* untouched on failure */
	}
	/* records are not mistaken for each other */
	assert_int_equal(job_state_unpack(b.data, b.len, NULL, NULL, &job), -EBADMSG);
	assert_null(job);
	b.data[0] = JOURNAL_REC_JOB;
	assert_int_equal(job_state_seq_unpack(b.data, b.len, &back), -EBADMSG);
	assert_int_equal(job_state_rec_type(NULL, 0), -EBADMSG);
	pack_buf_done(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_struct_job_has_no_field_the_record_misses),
		cmocka_unit_test(test_a_job_with_every_field_set_round_trips_to_the_same_bytes),
		cmocka_unit_test(test_a_pending_job_without_desc_or_allocation_round_trips),
		cmocka_unit_test(test_every_truncation_fails_cleanly),
		cmocka_unit_test(test_allocated_nodes_follow_their_names_into_a_new_conf),
		cmocka_unit_test(test_a_node_gone_from_the_conf_is_enoent),
		cmocka_unit_test(test_packing_a_node_without_a_name_is_enoent),
		cmocka_unit_test(test_bad_records_are_refused),
		cmocka_unit_test(test_an_empty_step_round_trips),
		cmocka_unit_test(test_steps_follow_their_node_names_into_a_new_conf),
		cmocka_unit_test(test_a_version_1_record_reads_without_steps_or_usage),
		cmocka_unit_test(test_a_version_2_record_reads_without_blob_references),
		cmocka_unit_test(test_a_version_3_record_reads_without_epilogs_owed),
		cmocka_unit_test(test_a_version_4_record_reads_without_a_resv_id),
		cmocka_unit_test(test_a_finished_step_on_a_node_gone_is_kept_without_its_nodes),
		cmocka_unit_test(test_a_running_step_on_a_node_gone_is_enoent),
		cmocka_unit_test(test_packing_a_step_node_without_a_name_is_enoent),
		cmocka_unit_test(test_bad_steps_are_refused),
		cmocka_unit_test(test_the_seq_record_round_trips_and_truncations_fail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
