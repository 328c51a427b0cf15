/* test_acct_store.c - the SQLite accounting store in a mkdtemp directory:
 * upserts keep the row index, steps round-trip with every usage field and
 * sort batch first, one row per run, every filter and window rule, paging,
 * -X, reopening, bad files, and the time to read 100,000 jobs. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "common/job_states.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg_acct.h"
#include "common/msg_step.h"
#include "common/sl_errno.h"
#include "slurmctld/acct_store.h"

struct fixture {
	char dir[64];
	char path[128];
	struct acct_store *st;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/test_acct_store.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/job_accounting.db", f->dir);
	if (acct_store_open(f->path, &f->st) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char p[160];

	acct_store_close(f->st);
	unlink(f->path);
	snprintf(p, sizeof(p), "%s-wal", f->path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", f->path);
	unlink(p);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* A job row with every field set from its id; strings are literals. */
static struct acct_job_rec job_rec(uint32_t id, uint32_t restart_cnt)
{
	return (struct acct_job_rec){
	    .job_id = id,
	    .array_job_id = 0,
	    .array_task_id = NO_VAL,
	    .array_task_str = NULL,
	    .restart_cnt = restart_cnt,
	    .name = "alpha",
	    .uid = 1000,
	    .gid = 100,
	    .user = "alice",
	    .account = "acct_a",
	    .partition = "p1",
	    .qos = "normal",
	    .state = JOB_COMPLETE,
	    .reason = WAIT_NO_REASON,
	    .exit_code = 3 << 8,
	    .derived_ec = 9,
	    .kill_requid = NO_VAL,
	    .nodes = "n[1-2]",
	    .nnodes = 2,
	    .ncpus = 4,
	    .req_cpus = 4,
	    .req_nodes = 2,
	    .req_mem_mb = NO_VAL64 - 1,
	    .mem_per_cpu = 1,
	    .time_limit = INFINITE,
	    .submit = 100,
	    .eligible = 100,
	    .start = 200,
	    .end = 300,
	    .work_dir = "/home/alice",
	    .comment = NULL,
	    .tres_req = "cpu=4,mem=200M,node=2,billing=4",
	    .tres_alloc = "cpu=4,mem=200M,node=2,billing=4",
	    .resv_name = "maint",
	    .resv_id = 7 + id,
	};
}

static struct acct_step_rec step_rec(uint32_t step_id, uint32_t seed)
{
	return (struct acct_step_rec){
	    .step_id = step_id,
	    .name = step_id == SL_BATCH_STEP ? "batch" : "hostname",
	    .state = JOB_FAILED,
	    .exit_code = seed + 1,
	    .kill_requid = seed + 2,
	    .nodes = "n1",
	    .nnodes = seed + 3,
	    .ntasks = seed + 4,
	    .ncpus = seed + 5,
	    .start = 1000 + seed,
	    .end = 2000 + seed,
	    .tres_alloc = "cpu=2,mem=100M,node=1",
	    .usage =
		{
		    .user_usec = 10000000000ull + seed,
		    .sys_usec = 20000000000ull + seed,
		    .max_rss_kb = 30 + seed,
		    .tot_rss_kb = 40 + seed,
		    .max_vm_kb = 50 + seed,
		    .tot_vm_kb = 60 + seed,
		    .max_rss_task = 7 + seed,
		    .max_vm_task = 8 + seed,
		    .ntasks = 9 + seed,
		},
	    .max_rss_node = "n1",
	    .max_vm_node = seed ? "n2" : NULL,
	};
}

static void assert_str_eq(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void assert_job_eq(const struct acct_job_rec *a, const struct acct_job_rec *b)
{
	assert_int_equal(a->job_id, b->job_id);
	assert_int_equal(a->array_job_id, b->array_job_id);
	assert_int_equal(a->array_task_id, b->array_task_id);
	assert_str_eq(a->array_task_str, b->array_task_str);
	assert_int_equal(a->restart_cnt, b->restart_cnt);
	assert_str_eq(a->name, b->name);
	assert_int_equal(a->uid, b->uid);
	assert_int_equal(a->gid, b->gid);
	assert_str_eq(a->user, b->user);
	assert_str_eq(a->account, b->account);
	assert_str_eq(a->partition, b->partition);
	assert_str_eq(a->qos, b->qos);
	assert_int_equal(a->state, b->state);
	assert_int_equal(a->reason, b->reason);
	assert_int_equal(a->exit_code, b->exit_code);
	assert_int_equal(a->derived_ec, b->derived_ec);
	assert_int_equal(a->kill_requid, b->kill_requid);
	assert_str_eq(a->nodes, b->nodes);
	assert_int_equal(a->nnodes, b->nnodes);
	assert_int_equal(a->ncpus, b->ncpus);
	assert_int_equal(a->req_cpus, b->req_cpus);
	assert_int_equal(a->req_nodes, b->req_nodes);
	assert_int_equal(a->req_mem_mb, b->req_mem_mb);
	assert_int_equal(a->mem_per_cpu, b->mem_per_cpu);
	assert_int_equal(a->time_limit, b->time_limit);
	assert_int_equal(a->submit, b->submit);
	assert_int_equal(a->eligible, b->eligible);
	assert_int_equal(a->start, b->start);
	assert_int_equal(a->end, b->end);
	assert_str_eq(a->work_dir, b->work_dir);
	assert_str_eq(a->comment, b->comment);
	assert_str_eq(a->tres_req, b->tres_req);
	assert_str_eq(a->tres_alloc, b->tres_alloc);
	assert_str_eq(a->resv_name, b->resv_name);
	assert_int_equal(a->resv_id, b->resv_id);
}

static void assert_step_eq(const struct acct_step_rec *a, const struct acct_step_rec *b)
{
	assert_int_equal(a->step_id, b->step_id);
	assert_str_eq(a->name, b->name);
	assert_int_equal(a->state, b->state);
	assert_int_equal(a->exit_code, b->exit_code);
	assert_int_equal(a->kill_requid, b->kill_requid);
	assert_str_eq(a->nodes, b->nodes);
	assert_int_equal(a->nnodes, b->nnodes);
	assert_int_equal(a->ntasks, b->ntasks);
	assert_int_equal(a->ncpus, b->ncpus);
	assert_int_equal(a->start, b->start);
	assert_int_equal(a->end, b->end);
	assert_str_eq(a->tres_alloc, b->tres_alloc);
	assert_int_equal(a->usage.user_usec, b->usage.user_usec);
	assert_int_equal(a->usage.sys_usec, b->usage.sys_usec);
	assert_int_equal(a->usage.max_rss_kb, b->usage.max_rss_kb);
	assert_int_equal(a->usage.tot_rss_kb, b->usage.tot_rss_kb);
	assert_int_equal(a->usage.max_vm_kb, b->usage.max_vm_kb);
	assert_int_equal(a->usage.tot_vm_kb, b->usage.tot_vm_kb);
	assert_int_equal(a->usage.max_rss_task, b->usage.max_rss_task);
	assert_int_equal(a->usage.max_vm_task, b->usage.max_vm_task);
	assert_int_equal(a->usage.ntasks, b->usage.ntasks);
	assert_str_eq(a->max_rss_node, b->max_rss_node);
	assert_str_eq(a->max_vm_node, b->max_vm_node);
}

static void resp_done(struct acct_query_resp *r)
{
	for (uint32_t i = 0; r->jobs && i < r->count; i++)
		acct_job_rec_done(&r->jobs[i]);
	free(r->jobs);
	memset(r, 0, sizeof(*r));
}

static int query(struct acct_store *st, const struct acct_query_req *q,
		 struct acct_query_resp *resp)
{
	memset(resp, 0, sizeof(*resp));
	return acct_store_query(st, q, resp);
}

/* Every page of q (limit taken from q), job ids in order into ids[]. */
static uint32_t query_ids(struct acct_store *st, struct acct_query_req q, uint32_t *ids,
			  uint32_t max)
{
	struct acct_query_resp resp;
	uint32_t n = 0;

	if (!q.limit)
		q.limit = 1000;
	do {
		assert_int_equal(query(st, &q, &resp), 0);
		for (uint32_t i = 0; i < resp.count; i++) {
			assert_true(n < max);
			ids[n++] = resp.jobs[i].job_id;
		}
		if (resp.count)
			assert_true(resp.last > q.after);
		q.after = resp.last;
		bool more = resp.is_more;
		resp_done(&resp);
		if (!more)
			break;
	} while (1);
	return n;
}

static void test_put_again_keeps_the_row_index_and_updates_fields(void **state)
{
	struct fixture *f = *state;
	struct acct_job_rec a = job_rec(10, 0), b = job_rec(11, 0);
	struct acct_query_req q = {.limit = 10};
	struct acct_query_resp resp;

	assert_int_equal(acct_store_put(f->st, &a), 0);
	assert_int_equal(acct_store_put(f->st, &b), 0);
	a.state = JOB_CANCELLED;
	a.kill_requid = 0;
	a.end = 999;
	a.comment = "now with a comment";
	a.nodes = NULL;
	a.inx = 77; /* ignored */
	assert_int_equal(acct_store_put(f->st, &a), 0);

	assert_int_equal(query(f->st, &q, &resp), 0);
	assert_int_equal(resp.count, 2);
	assert_false(resp.is_more);
	assert_int_equal(resp.jobs[0].job_id, 10);
	assert_int_equal(resp.jobs[1].job_id, 11);
	assert_true(resp.jobs[0].inx < resp.jobs[1].inx);
	assert_int_equal(resp.last, resp.jobs[1].inx);
	assert_job_eq(&resp.jobs[0], &a);
	assert_job_eq(&resp.jobs[1], &b);
	assert_int_equal(resp.jobs[0].step_count, 0);
	resp_done(&resp);
}

/* A step whose row is written leaves the controller's job record, so a
 * later row of the job may carry a lower derived exit: the highest stays. */
static void test_derived_exit_code_only_grows_within_a_run(void **state)
{
	struct fixture *f = *state;
	struct acct_job_rec j = job_rec(13, 0);
	struct acct_query_req q = {.limit = 10};
	struct acct_query_resp resp;

	j.derived_ec = 7 << 8;
	assert_int_equal(acct_store_put(f->st, &j), 0);
	j.derived_ec = 0;
	j.state = JOB_COMPLETE;
	assert_int_equal(acct_store_put(f->st, &j), 0);
	j.restart_cnt = 1; /* a new run starts from its own */
	j.derived_ec = 1 << 8;
	assert_int_equal(acct_store_put(f->st, &j), 0);

	assert_int_equal(query(f->st, &q, &resp), 0);
	assert_int_equal(resp.count, 2);
	assert_int_equal(resp.jobs[0].derived_ec, 7 << 8);
	assert_int_equal(resp.jobs[0].state, JOB_COMPLETE);
	assert_int_equal(resp.jobs[1].derived_ec, 1 << 8);
	resp_done(&resp);
}

static void test_steps_round_trip_every_field_and_batch_sorts_first(void **state)
{
	struct fixture *f = *state;
	struct acct_step_rec steps[] = {step_rec(1, 30), step_rec(SL_BATCH_STEP, 0),
					step_rec(0, 20)};
	struct acct_job_rec j = job_rec(12, 0);
	struct acct_query_req q = {.limit = 10};
	struct acct_query_resp resp;

	j.steps = steps;
	j.step_count = 1; /* step 1 first, alone */
	assert_int_equal(acct_store_put(f->st, &j), 0);
	j.steps = &steps[1];
	j.step_count = 2; /* the others later: step 1 stays */
	assert_int_equal(acct_store_put(f->st, &j), 0);
	steps[2].state = JOB_COMPLETE; /* and an update of one */
	steps[2].usage.max_rss_kb = 123456789012ull;
	assert_int_equal(acct_store_put(f->st, &j), 0);

	assert_int_equal(query(f->st, &q, &resp), 0);
	assert_int_equal(resp.count, 1);
	assert_int_equal(resp.jobs[0].step_count, 3);
	assert_step_eq(&resp.jobs[0].steps[0], &steps[1]);
	assert_int_equal(resp.jobs[0].steps[0].step_id, SL_BATCH_STEP);
	assert_step_eq(&resp.jobs[0].steps[1], &steps[2]);
	assert_step_eq(&resp.jobs[0].steps[2], &steps[0]);
	resp_done(&resp);
}

static void test_each_restart_count_is_a_row_of_its_own(void **state)
{
	struct fixture *f = *state;
	struct acct_job_rec r0 = job_rec(12, 0), r1 = job_rec(12, 1);
	struct acct_step_rec s0 = step_rec(SL_BATCH_STEP, 1), s1 = step_rec(SL_BATCH_STEP, 2);
	struct acct_query_req q = {.limit = 10, .job_ids = "12"};
	struct acct_query_resp resp;

	r0.state = JOB_PENDING | JOB_REQUEUE;
	r0.steps = &s0;
	r0.step_count = 1;
	r1.steps = &s1;
	r1.step_count = 1;
	assert_int_equal(acct_store_put(f->st, &r0), 0);
	assert_int_equal(acct_store_put(f->st, &r1), 0);
	assert_int_equal(query(f->st, &q, &resp), 0);
	assert_int_equal(resp.count, 2);
	assert_job_eq(&resp.jobs[0], &r0);
	assert_job_eq(&resp.jobs[1], &r1);
	assert_int_equal(resp.jobs[0].step_count, 1);
	assert_step_eq(&resp.jobs[0].steps[0], &s0);
	assert_step_eq(&resp.jobs[1].steps[0], &s1);
	resp_done(&resp);
}

/* The filter data set, put in this order (inx order). */
static void put_filter_jobs(struct acct_store *st)
{
	static const struct {
		uint32_t id, restart, array_job, task, uid, state;
		const char *acct, *part, *name;
		time_t submit, eligible, start, end;
	} rows[] = {
	    {10, 0, 0, NO_VAL, 1000, JOB_COMPLETE, "a", "p1", "alpha", 100, 100, 200, 300},
	    {11, 0, 0, NO_VAL, 1001, JOB_FAILED, "b", "p2", "beta", 100, 100, 400, 500},
	    {12, 0, 0, NO_VAL, 1000, JOB_PENDING | JOB_REQUEUE, "a", "p1", "gamma", 100, 100, 320,
	     350},
	    {12, 1, 0, NO_VAL, 1000, JOB_COMPLETE, "a", "p1", "gamma", 100, 360, 400, 450},
	    {13, 0, 0, NO_VAL, 1000, JOB_PENDING, "a", "p1", "held", 100, 0, 0, 0},
	    {20, 0, 20, 1, 1000, JOB_COMPLETE, "a", "p1", "arr", 100, 100, 1000, 1100},
	    {21, 0, 20, 2, 1000, JOB_CANCELLED, "a", "p1", "arr", 100, 100, 1000, 1100},
	    {22, 0, 20, 3, 1000, JOB_COMPLETE, "a", "p1", "arr", 100, 100, 1000, 1100},
	    {30, 0, 0, NO_VAL, 1000, JOB_PENDING, "a", "p1", "later", 600, 600, 0, 0},
	    {31, 0, 0, NO_VAL, 1001, JOB_RUNNING, "b", "p2", "run", 100, 100, 700, 0},
	};

	assert_int_equal(acct_store_begin(st), 0);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct acct_job_rec j = job_rec(rows[i].id, rows[i].restart);

		j.array_job_id = rows[i].array_job;
		j.array_task_id = rows[i].task;
		j.uid = rows[i].uid;
		j.state = rows[i].state;
		j.account = (char *)rows[i].acct;
		j.partition = (char *)rows[i].part;
		j.name = (char *)rows[i].name;
		j.submit = rows[i].submit;
		j.eligible = rows[i].eligible;
		j.start = rows[i].start;
		j.end = rows[i].end;
		/* sacct -g, -q, -N, -i, -I, -k: 10 and 12 keep job_rec's
		 * n[1-2], 2 nodes, 4 cpus, no time limit */
		j.gid = rows[i].uid == 1001 ? 200 : 100;
		j.qos = rows[i].id == 11 ? "high" : "normal";
		if (rows[i].id == 11 || rows[i].id == 31) {
			j.nodes = rows[i].id == 11 ? "n3" : "n[3-4]";
			j.nnodes = rows[i].id == 11 ? 1 : 2;
			j.ncpus = rows[i].id == 11 ? 1 : 8;
			j.time_limit = rows[i].id == 11 ? 60 : 120;
		} else if (rows[i].array_job) {
			j.nodes = "n5";
			j.nnodes = 1;
			j.ncpus = 2;
		} else if (!rows[i].start) {
			j.nodes = NULL;
			j.nnodes = j.ncpus = 0;
		}
		assert_int_equal(acct_store_put(st, &j), 0);
	}
	assert_int_equal(acct_store_commit(st), 0);
}

#define S(x) (1u << (x))
#define IDS(...)                                                                                   \
	{                                                                                          \
		__VA_ARGS__, 0                                                                     \
	}

static const struct filter_case {
	const char *what;
	struct acct_query_req q;
	uint32_t ids[12]; /* 0-terminated */
} filter_cases[] = {
    {"no filter", {0}, IDS(10, 11, 12, 12, 13, 20, 21, 22, 30, 31)},
    {"a job", {.job_ids = "10"}, IDS(10)},
    {"an array, every task", {.job_ids = "20"}, IDS(20, 21, 22)},
    {"an array task", {.job_ids = "20_2"}, IDS(21)},
    {"the task whose own id is the array's", {.job_ids = "20_1"}, IDS(20)},
    {"a list, steps ignored", {.job_ids = " 11.batch, 10.0 ,,"}, IDS(10, 11)},
    {"every run of a job", {.job_ids = "12"}, IDS(12, 12)},
    {"unknown job", {.job_ids = "99"}, IDS(0)},
    {"a uid", {.uids = "1001"}, IDS(11, 31)},
    {"uids", {.uids = "1001,5"}, IDS(11, 31)},
    {"an account", {.accounts = "b"}, IDS(11, 31)},
    {"a partition", {.partitions = "p2,none"}, IDS(11, 31)},
    {"names", {.names = "alpha,later"}, IDS(10, 30)},
    {"name is exact", {.names = "alph"}, IDS(0)},
    {"filters are ANDed", {.uids = "1000", .names = "arr", .job_ids = "20_3,10"}, IDS(22)},
    {"window", {.start = 250, .end = 310}, IDS(10, 11, 12, 20, 21, 22, 31)},
    {"late window", {.start = 510, .end = 900}, IDS(20, 21, 22, 30, 31)},
    {"start alone ends now", {.start = 1050}, IDS(20, 21, 22, 30, 31)},
    {"completed", {.state_mask = S(JOB_COMPLETE)}, IDS(10, 12, 20, 22)},
    {"completed in window", {.state_mask = S(JOB_COMPLETE), .start = 250, .end = 310}, IDS(10)},
    {"completed, window edges count",
     {.state_mask = S(JOB_COMPLETE), .start = 300, .end = 450},
     IDS(10, 12)},
    {"pending (not the requeued run)", {.state_mask = S(JOB_PENDING)}, IDS(13, 30)},
    {"pending in window", {.state_mask = S(JOB_PENDING), .start = 250, .end = 310}, IDS(13)},
    {"pending until it started",
     {.state_mask = S(JOB_PENDING), .start = 250, .end = 700},
     IDS(13, 30)},
    {"running in window", {.state_mask = S(JOB_RUNNING), .start = 650, .end = 800}, IDS(31)},
    {"running, window before it", {.state_mask = S(JOB_RUNNING), .start = 100, .end = 150}, IDS(0)},
    {"requeued", {.state_mask = S(ACCT_STATE_REQUEUED_BIT)}, IDS(12)},
    {"requeued in window",
     {.state_mask = S(ACCT_STATE_REQUEUED_BIT), .start = 340, .end = 360},
     IDS(12)},
    {"requeued, window after it",
     {.state_mask = S(ACCT_STATE_REQUEUED_BIT), .start = 400, .end = 500},
     IDS(0)},
    {"requeued or failed", {.state_mask = S(ACCT_STATE_REQUEUED_BIT) | S(JOB_FAILED)}, IDS(11, 12)},
    {"states and window mixed",
     {.state_mask = S(JOB_PENDING) | S(JOB_CANCELLED) | S(JOB_RUNNING), .start = 1050, .end = 1200},
     IDS(13, 21, 30, 31)},
    {"unknown state bit", {.state_mask = S(20)}, IDS(0)},
    {"uid and state", {.uids = "1000", .state_mask = S(JOB_COMPLETE)}, IDS(10, 12, 20, 22)},
    {"a gid", {.gids = "200"}, IDS(11, 31)},
    {"gids", {.gids = "7, 100"}, IDS(10, 12, 12, 13, 20, 21, 22, 30)},
    {"a qos", {.qos = "high"}, IDS(11)},
    {"a node", {.nodes = "n3"}, IDS(11, 31)},
    {"any node of a range", {.nodes = "n[2,5]"}, IDS(10, 12, 12, 20, 21, 22)},
    {"a node list", {.nodes = "n4,n9"}, IDS(31)},
    {"an unparsable node list", {.nodes = "n["}, IDS(0)},
    {"one node exactly",
     {.flags = ACCT_Q_NODES, .nodes_min = 1, .nodes_max = 1},
     IDS(11, 20, 21, 22)},
    {"no node (never ran)", {.flags = ACCT_Q_NODES}, IDS(13, 30)},
    {"a range without its flag",
     {.nodes_min = 1, .nodes_max = 1},
     IDS(10, 11, 12, 12, 13, 20, 21, 22, 30, 31)},
    {"cpus in a range", {.flags = ACCT_Q_CPUS, .cpus_min = 4, .cpus_max = 8}, IDS(10, 12, 12, 31)},
    {"a time limit",
     {.flags = ACCT_Q_TIME_LIMIT, .time_limit_min = 60, .time_limit_max = 60},
     IDS(11)},
    {"time limits in a range",
     {.flags = ACCT_Q_TIME_LIMIT, .time_limit_min = 60, .time_limit_max = 120},
     IDS(11, 31)},
    {"node and uid", {.nodes = "n[1-5]", .uids = "1001"}, IDS(11, 31)},
};

static void test_every_filter_and_window_rule(void **state)
{
	struct fixture *f = *state;

	put_filter_jobs(f->st);
	for (size_t i = 0; i < ARRAY_SIZE(filter_cases); i++) {
		const struct filter_case *c = &filter_cases[i];
		uint32_t got[16], want = 0;
		uint32_t n = query_ids(f->st, c->q, got, ARRAY_SIZE(got));

		while (c->ids[want])
			want++;
		if (n != want || memcmp(got, c->ids, n * sizeof(got[0]))) {
			fprintf(stderr, "case '%s': got", c->what);
			for (uint32_t k = 0; k < n; k++)
				fprintf(stderr, " %u", got[k]);
			fprintf(stderr, "\n");
			fail();
		}
	}
}

static void test_a_malformed_list_is_einval(void **state)
{
	struct fixture *f = *state;
	static const char *const bad_ids[] = {"abc",	     "12_", "12x",    "",   ",",  " , ",
					      "99999999999", "-1",  "12_3_4", ".0", "1+0"};
	struct acct_query_resp resp;

	put_filter_jobs(f->st);
	for (size_t i = 0; i < ARRAY_SIZE(bad_ids); i++) {
		struct acct_query_req q = {.limit = 10, .job_ids = (char *)bad_ids[i]};

		assert_int_equal(query(f->st, &q, &resp), -EINVAL);
		assert_int_equal(resp.count, 0);
		assert_null(resp.jobs);
	}
	struct acct_query_req q = {.limit = 10, .uids = "1000,bob"};
	assert_int_equal(query(f->st, &q, &resp), -EINVAL);
	q = (struct acct_query_req){.limit = 10, .accounts = ","};
	assert_int_equal(query(f->st, &q, &resp), -EINVAL);
}

/* Steps 0 and batch of job i, with seeds from i, so a step on the wrong job shows. */
static void put_numbered_jobs(struct acct_store *st, uint32_t n)
{
	assert_int_equal(acct_store_begin(st), 0);
	for (uint32_t i = 1; i <= n; i++) {
		struct acct_step_rec steps[] = {step_rec(0, i), step_rec(SL_BATCH_STEP, i)};
		struct acct_job_rec j = job_rec(i, 0);

		j.uid = i % 10;
		j.steps = steps;
		j.step_count = 2;
		assert_int_equal(acct_store_put(st, &j), 0);
	}
	assert_int_equal(acct_store_commit(st), 0);
}

static void page_all(struct acct_store *st, struct acct_query_req q, uint32_t n, uint32_t step)
{
	_cleanup_free_ uint8_t *seen = calloc(n + 1, 1);
	struct acct_query_resp resp;
	uint32_t total = 0, pages = 0;

	assert_non_null(seen);
	do {
		assert_int_equal(query(st, &q, &resp), 0);
		assert_true(resp.count <= q.limit);
		pages++;
		for (uint32_t i = 0; i < resp.count; i++) {
			const struct acct_job_rec *j = &resp.jobs[i];

			assert_true(j->job_id >= 1 && j->job_id <= n);
			assert_int_equal(seen[j->job_id], 0);
			seen[j->job_id] = 1;
			total++;
			assert_int_equal(j->step_count, 2);
			assert_int_equal(j->steps[0].step_id, SL_BATCH_STEP);
			assert_int_equal(j->steps[0].exit_code, j->job_id + 1);
			assert_int_equal(j->steps[1].step_id, 0);
			assert_int_equal(j->steps[1].usage.ntasks, j->job_id + 9);
		}
		q.after = resp.last;
		bool more = resp.is_more;
		resp_done(&resp);
		if (!more)
			break;
	} while (1);
	assert_int_equal(total, n / step);
	assert_int_equal(pages, (n / step + q.limit - 1) / q.limit);
}

static void test_paging_gives_every_row_once(void **state)
{
	struct fixture *f = *state;

	put_numbered_jobs(f->st, 250);
	page_all(f->st, (struct acct_query_req){.limit = 7}, 250, 1);
	page_all(f->st, (struct acct_query_req){.limit = 250}, 250, 1);
	/* sparse pages (one job in ten): steps looked up job by job */
	page_all(f->st, (struct acct_query_req){.limit = 7, .uids = "3"}, 250, 10);
	/* limit 0 is clamped to 1 */
	struct acct_query_resp resp;
	struct acct_query_req q = {.limit = 0};
	assert_int_equal(query(f->st, &q, &resp), 0);
	assert_int_equal(resp.count, 1);
	assert_true(resp.is_more);
	resp_done(&resp);
	/* past the end: empty, last stays */
	q = (struct acct_query_req){.limit = 10, .after = 1000};
	assert_int_equal(query(f->st, &q, &resp), 0);
	assert_int_equal(resp.count, 0);
	assert_int_equal(resp.last, 1000);
	assert_false(resp.is_more);
	resp_done(&resp);
}

static void test_no_steps_gives_job_rows_only(void **state)
{
	struct fixture *f = *state;
	struct acct_query_req q = {.limit = 100, .flags = ACCT_Q_NO_STEPS};
	struct acct_query_resp resp;

	put_numbered_jobs(f->st, 20);
	assert_int_equal(query(f->st, &q, &resp), 0);
	assert_int_equal(resp.count, 20);
	for (uint32_t i = 0; i < resp.count; i++) {
		assert_int_equal(resp.jobs[i].step_count, 0);
		assert_null(resp.jobs[i].steps);
	}
	resp_done(&resp);
}

static void test_reopening_keeps_everything(void **state)
{
	struct fixture *f = *state;
	struct acct_step_rec s = step_rec(SL_BATCH_STEP, 5);
	struct acct_job_rec j = job_rec(40, 0);
	struct acct_query_req q = {.limit = 10};
	struct acct_query_resp resp;
	struct stat sb;
	uint64_t inx;

	j.steps = &s;
	j.step_count = 1;
	assert_int_equal(acct_store_put(f->st, &j), 0);
	/* an uncommitted batch is lost, the committed one stays */
	assert_int_equal(acct_store_begin(f->st), 0);
	struct acct_job_rec lost = job_rec(41, 0);
	assert_int_equal(acct_store_put(f->st, &lost), 0);
	acct_store_close(f->st);
	f->st = NULL;
	assert_int_equal(acct_store_open(f->path, &f->st), 0);

	assert_int_equal(stat(f->path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_int_equal(query(f->st, &q, &resp), 0);
	assert_int_equal(resp.count, 1);
	assert_job_eq(&resp.jobs[0], &j);
	assert_step_eq(&resp.jobs[0].steps[0], &s);
	inx = resp.jobs[0].inx;
	resp_done(&resp);

	/* the index keeps growing after a reopen */
	struct acct_job_rec next = job_rec(42, 0);
	assert_int_equal(acct_store_put(f->st, &next), 0);
	q.after = inx;
	assert_int_equal(query(f->st, &q, &resp), 0);
	assert_int_equal(resp.count, 1);
	assert_int_equal(resp.jobs[0].job_id, 42);
	resp_done(&resp);
}

/* A file of schema version 1 (no reservation columns) is brought up to
 * date when opened: its rows read with no reservation, new rows keep one. */
static void test_a_version_1_file_gains_the_reservation_columns(void **state)
{
	struct fixture *f = *state;
	struct acct_job_rec old = job_rec(50, 0), now = job_rec(51, 0);
	struct acct_query_req q = {.limit = 10};
	struct acct_query_resp resp;
	sqlite3 *db;

	assert_int_equal(acct_store_put(f->st, &old), 0);
	acct_store_close(f->st);
	f->st = NULL;
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "ALTER TABLE job DROP COLUMN resv_name;"
				      "ALTER TABLE job DROP COLUMN resv_id;"
				      "PRAGMA user_version = 1",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);

	assert_int_equal(acct_store_open(f->path, &f->st), 0);
	assert_int_equal(acct_store_put(f->st, &now), 0);
	assert_int_equal(query(f->st, &q, &resp), 0);
	assert_int_equal(resp.count, 2);
	old.resv_name = NULL;
	old.resv_id = 0;
	assert_job_eq(&resp.jobs[0], &old);
	assert_job_eq(&resp.jobs[1], &now);
	resp_done(&resp);
	/* and it says version 2 from now on */
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	sqlite3_stmt *s = NULL;
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(s, 0), 2);
	sqlite3_finalize(s);
	sqlite3_close(db);
}

static void test_bad_files_give_an_error_not_a_crash(void **state)
{
	struct fixture *f = *state;
	char bad[160], newer[160], dir_path[160];
	struct acct_store *st = (void *)1;
	sqlite3 *db;
	int fd;

	/* garbage */
	snprintf(bad, sizeof(bad), "%s/garbage.db", f->dir);
	fd = open(bad, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(write(fd, "this is not an SQLite database at all...........", 48),
				 48);
	close(fd);
	assert_true(acct_store_open(bad, &st) < 0);
	assert_ptr_equal(st, (void *)1);

	/* a newer schema than ours (2) */
	snprintf(newer, sizeof(newer), "%s/newer.db", f->dir);
	assert_int_equal(sqlite3_open(newer, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 3", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(acct_store_open(newer, &st), -ESLURM_DB_CONNECTION);

	/* a directory, and a path that cannot be created */
	snprintf(dir_path, sizeof(dir_path), "%s/sub", f->dir);
	assert_int_equal(mkdir(dir_path, 0700), 0);
	assert_true(acct_store_open(dir_path, &st) < 0);
	assert_true(acct_store_open("/nonexistent-dir/x.db", &st) < 0);
	assert_ptr_equal(st, (void *)1);

	acct_store_close(NULL);
	unlink(bad);
	unlink(newer);
	rmdir(dir_path);
}

/* Many jobs written in one transaction all come back, with and without
 * steps. How fast is bench/sacct_query.py's business, not a unit test's. */
static void test_many_jobs_in_one_transaction_come_back(void **state)
{
	struct fixture *f = *state;
	const uint32_t n = 5000;
	uint32_t ids_n;

	put_numbered_jobs(f->st, n);
	page_all(f->st, (struct acct_query_req){.limit = ACCT_Q_LIMIT_MAX}, n, 1);
	_cleanup_free_ uint32_t *ids = calloc(n, sizeof(*ids));
	assert_non_null(ids);
	ids_n = query_ids(
	    f->st,
	    (struct acct_query_req){
		.limit = ACCT_Q_LIMIT_MAX, .flags = ACCT_Q_NO_STEPS, .start = 1, .end = 2000000000},
	    ids, n);
	assert_int_equal(ids_n, n);
}

/* 20 jobs with a 1 MiB comment each: a page stops near 16 MB (at least
 * one job), and paging still brings every job once. */
static void test_big_rows_cut_the_page_by_size(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *comment = malloc(1u << 20);
	struct acct_query_req q = {.limit = 1000};
	struct acct_query_resp resp;
	uint32_t seen = 0, pages = 0;

	assert_non_null(comment);
	memset(comment, 'c', (1u << 20) - 1);
	comment[(1u << 20) - 1] = '\0';
	assert_int_equal(acct_store_begin(f->st), 0);
	for (uint32_t i = 1; i <= 20; i++) {
		struct acct_job_rec j = job_rec(i, 0);

		j.comment = comment;
		assert_int_equal(acct_store_put(f->st, &j), 0);
	}
	assert_int_equal(acct_store_commit(f->st), 0);
	do {
		assert_int_equal(query(f->st, &q, &resp), 0);
		assert_true(resp.count >= 1 && resp.count <= 16);
		for (uint32_t i = 0; i < resp.count; i++)
			assert_int_equal(resp.jobs[i].job_id, ++seen);
		q.after = resp.last;
		pages++;
		bool more = resp.is_more;
		resp_done(&resp);
		if (!more)
			break;
	} while (1);
	assert_int_equal(seen, 20);
	assert_int_equal(pages, 2);
}

/* A -j list of 600 ids with array tasks, and every other list at once. */
static void test_long_id_list_and_every_list_together(void **state)
{
	struct fixture *f = *state;
	char list[8192] = "";
	uint32_t ids[8];
	size_t len = 0;

	put_numbered_jobs(f->st, 20);
	for (uint32_t i = 1000; i < 1600; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%u,", i);
	snprintf(list + len, sizeof(list) - len, "7,9_3,12.batch");
	assert_int_equal(query_ids(f->st,
				   (struct acct_query_req){.job_ids = list, .uids = "2,7,1000",
							   .accounts = "acct_a", .partitions = "p1",
							   .names = "alpha"},
				   ids, ARRAY_SIZE(ids)),
			 2);
	assert_int_equal(ids[0], 7);
	assert_int_equal(ids[1], 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_put_again_keeps_the_row_index_and_updates_fields,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_derived_exit_code_only_grows_within_a_run, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_steps_round_trip_every_field_and_batch_sorts_first,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_each_restart_count_is_a_row_of_its_own, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_every_filter_and_window_rule, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_a_malformed_list_is_einval, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_paging_gives_every_row_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_steps_gives_job_rows_only, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reopening_keeps_everything, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_a_version_1_file_gains_the_reservation_columns,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_files_give_an_error_not_a_crash, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_big_rows_cut_the_page_by_size, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_long_id_list_and_every_list_together, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_many_jobs_in_one_transaction_come_back, setup,
					    teardown),
	};

	log_init("test_acct_store", LOG_LEVEL_ERROR, NULL, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
