/* test_msg_table.c - the message table is sorted; every message packs,
 * unpacks and packs again to the same bytes; every truncated prefix of
 * every message is refused cleanly (run under ASan/UBSan); leftover bytes
 * are refused; hostile counts do not allocate.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/msg.h"
#include "common/msg_wait.h"
#include "common/pack.h"

static char *s(const char *v)
{
	return strdup(v);
}

static void sample_node_info(struct node_info *n, int i)
{
	*n = (struct node_info){
		.name = s(i ? "n2" : "n1"), .node_addr = s("127.0.0.1"), .node_hostname = s("localhost"),
		.arch = s("x86_64"), .os = s("Linux 6"), .version = s("22.05.8"), .features = s("f"),
		.features_act = s("f"), .gres = s("gpu:4"), .gres_used = s("gpu:0"),
		.partitions = s("cpu-queue"), .reason = s("maint"), .cfg_tres = s("cpu=4"),
		.alloc_tres = s("cpu=1"), .comment = s("c"), .extra = s("e"), .state = 0x202,
		.reason_uid = 1, .reason_time = 1700000000, .port = 17001, .cpus = 4, .boards = 1,
		.sockets = 1, .cores = 4, .threads = 1, .alloc_cpus = 1, .real_memory = 4000,
		.alloc_mem = 100, .free_mem = 2000, .tmp_disk = 7, .weight = 1, .cpu_load = 814,
		.boot_time = 1, .slurmd_start_time = 2, .last_busy = 3,
	};
}

static void sample_part_info(struct part_info *p)
{
	*p = (struct part_info){
		.name = s("cpu-queue"), .nodes = s("n[1-4]"), .allow_groups = s("g"),
		.allow_accounts = s("a"), .allow_qos = s("q"), .alloc_nodes = s("ALL"),
		.qos = s("normal"), .tres = s("cpu=16"), .job_defaults = s("x"), .flags = 1,
		.state_up = 3, .max_time = 1440, .default_time = 60, .max_nodes = 4, .min_nodes = 1,
		.max_cpus_per_node = 4, .total_cpus = 16, .total_nodes = 4, .grace_time = 5,
		.priority_job_factor = 1, .priority_tier = 1, .over_subscribe = 0,
		.over_time_limit = 0, .preempt_mode = 0, .def_mem_per_cpu = 100,
		.def_mem_per_node = 0, .max_mem_per_cpu = 0, .max_mem_per_node = 0,
	};
}

/* A message of type t with every field set (strings non-NULL, counts > 0). */
static void *sample_new(const struct msg_type *t)
{
	void *m = msg_alloc(t);

	switch (t->type) {
	case RESPONSE_SLURM_RC:
		((struct rc_msg *)m)->rc = 2010;
		break;
	case REQUEST_SHUTDOWN:
		((struct shutdown_msg *)m)->options = 1;
		break;
	case REQUEST_TERMINATE_JOB: {
		struct signal_job_msg *q = m;

		q->job_id = 7;
		q->step_id = 0xffffffffu;
		q->signal = 9;
		q->reason = s("TIME LIMIT");
		q->uid = 1000;
		q->gid = 100;
		q->exit_code = 256;
		q->user_name = s("alice");
		q->partition = s("debug");
		q->account = s("physics");
		q->nodes = s("n[1-2]");
		break;
	}
	case REQUEST_JOB_INFO: {
		struct job_info_req *q = m;

		q->job_ids = s("12,13_4");
		q->after_job_id = 11;
		q->user_ids = calloc(2, sizeof(*q->user_ids));
		q->user_ids[0] = 1000;
		q->user_ids[1] = 0;
		q->n_user_ids = 2;
		q->state_bases = 1u << 1 | 1u << 0; /* running, pending */
		q->state_flags = 0x8000;
		q->partitions = s("debug,gpu");
		break;
	}
	case RESPONSE_BUILD_INFO: {
		struct build_info_msg *b = m;

		b->last_update = 5;
		b->boot_time = 6;
		b->count = 2;
		b->pairs = calloc(2, sizeof(*b->pairs));
		b->pairs[0] = (struct key_pair){ s("ClusterName"), s("anchor") };
		b->pairs[1] = (struct key_pair){ s("SlurmctldPort"), s("6817") };
		break;
	}
	case MESSAGE_NODE_REGISTRATION_STATUS: {
		struct node_reg_msg *r = m;

		*r = (struct node_reg_msg){
		    .node_name = s("n1"),
		    .hostname = s("vm"),
		    .arch = s("x86_64"),
		    .os = s("Linux"),
		    .version = s("22.05.8"),
		    .gres = s("gpu:4"),
		    .cpus = 4,
		    .boards = 1,
		    .sockets = 1,
		    .cores = 4,
		    .threads = 1,
		    .real_memory = 4000,
		    .tmp_disk = 1,
		    .cpu_load = 2,
		    .free_mem = 3,
		    .boot_time = 4,
		    .slurmd_start_time = 5,
		    .port = 17001,
		    .step_count = 2,
		    .steps = calloc(2, sizeof(*r->steps)),
		};
		r->steps[0] = (struct node_step_ref){12, SL_BATCH_STEP, 0};
		r->steps[1] = (struct node_step_ref){12, 0, NODE_STEP_DONE};
		break;
	}
	case RESPONSE_PING_SLURMD: {
		struct ping_slurmd_msg *p = m;

		*p = (struct ping_slurmd_msg){814, 23188, 1, calloc(1, sizeof(*p->steps))};
		p->steps[0] = (struct node_step_ref){7, 3, 0};
		break;
	}
	case REQUEST_NODE_INFO:
		*(struct node_info_req *)m = (struct node_info_req){ 7, 1, s("n1") };
		break;
	case RESPONSE_NODE_INFO: {
		struct node_info_msg *n = m;

		n->last_update = 9;
		n->count = 2;
		n->nodes = calloc(2, sizeof(*n->nodes));
		sample_node_info(&n->nodes[0], 0);
		sample_node_info(&n->nodes[1], 1);
		break;
	}
	case REQUEST_PARTITION_INFO:
		*(struct part_info_req *)m = (struct part_info_req){ 7, 1 };
		break;
	case RESPONSE_PARTITION_INFO: {
		struct part_info_msg *p = m;

		p->last_update = 9;
		p->count = 1;
		p->parts = calloc(1, sizeof(*p->parts));
		sample_part_info(&p->parts[0]);
		break;
	}
	case REQUEST_UPDATE_NODE:
		*(struct update_node_msg *)m = (struct update_node_msg){
			s("n[1-2]"), 2, s("maintenance"), 5, s("feat"), s("comment"), s("act"),
		};
		break;
	case RESPONSE_JOB_STEP_CREATE: {
		struct step_create_resp *r = m;

		r->job_id = 12;
		r->step_id = 3;
		r->step_nodes = s("n[1-2]");
		r->num_tasks = 4;
		r->node_count = 2;
		r->nodes = calloc(2, sizeof(*r->nodes));
		r->nodes[0] = (struct step_node){ s("n1"), s("127.0.0.1"), 17001, 3, 3, 300, s("0,1") };
		r->nodes[1] = (struct step_node){ s("n2"), s("127.0.0.1"), 17002, 1, 1, 100, NULL };
		r->map.nblocks = 2; /* n1: 0 2 3, n2: 1 */
		r->map.blocks = calloc(2, sizeof(*r->map.blocks));
		r->map.blocks[0] = (struct task_block){ 0, 2, 1 };
		r->map.blocks[1] = (struct task_block){ 0, 1, 2 };
		r->cred = s("MUNGE:abc");
		r->job_cpus_per_node = s("3,1");
		break;
	}
	case REQUEST_LAUNCH_TASKS: {
		struct launch_tasks_msg *l = m;

		l->job_id = 12;
		l->argc = 1;
		l->argv = calloc(2, sizeof(char *));
		l->argv[0] = s("hostname");
		l->ntasks_here = 3;
		l->gtids = calloc(3, sizeof(uint32_t));
		l->gtids[1] = 1;
		l->gtids[2] = 2;
		l->map.nblocks = 1;
		l->map.blocks = calloc(1, sizeof(*l->map.blocks));
		l->map.blocks[0] = (struct task_block){ 0, 1, 3 };
		l->io_key = s("key");
		l->task_prolog = s("/home/u/tp");
		l->task_epilog = s("/home/u/te");
		break;
	}
	case REQUEST_ACCT_QUERY: {
		struct acct_query_req *q = m;

		*q = (struct acct_query_req){ .flags = 3, .job_ids = s("12,13_2"), .uids = s("0"),
					      .accounts = s("a"), .partitions = s("p"),
					      .names = s("n"), .gids = s("0,100"), .qos = s("normal"),
					      .nodes = s("n[1-2]"), .nodes_min = 1, .nodes_max = 2,
					      .cpus_min = 3, .cpus_max = 4, .time_limit_min = 5,
					      .time_limit_max = 6, .state_mask = 8, .start = 1,
					      .end = 2, .after = 3, .limit = 4 };
		break;
	}
	case RESPONSE_ACCT_QUERY: {
		struct acct_query_resp *r = m;
		struct acct_job_rec *j;

		r->last = 7;
		r->is_more = true;
		r->count = 1;
		j = r->jobs = calloc(1, sizeof(*r->jobs));
		*j = (struct acct_job_rec){
			.inx = 7, .job_id = 12, .array_job_id = 10, .array_task_id = 2,
			.array_task_str = s("3-5"), .restart_cnt = 1, .name = s("ok"), .uid = 1,
			.gid = 2, .user = s("u"), .account = s("a"), .partition = s("p"),
			.qos = s("normal"), .state = 3, .reason = 1, .exit_code = 256,
			.derived_ec = 9, .kill_requid = 0, .nodes = s("n1"), .nnodes = 1, .ncpus = 2,
			.req_cpus = 2, .req_nodes = 1, .req_mem_mb = 200, .mem_per_cpu = 1, .time_limit = 60,
			.submit = 1, .eligible = 2, .start = 3, .end = 4, .work_dir = s("/tmp"),
			.comment = s("c"), .tres_req = s("cpu=2"), .tres_alloc = s("cpu=2"),
			.resv_name = s("maint"), .resv_id = 3, .step_count = 1,
		};
		j->steps = calloc(1, sizeof(*j->steps));
		j->steps[0] = (struct acct_step_rec){
			.step_id = 0xfffffffbu, .name = s("batch"), .state = 3, .nodes = s("n1"),
			.nnodes = 1, .ntasks = 1, .ncpus = 2, .start = 3, .end = 4,
			.tres_alloc = s("cpu=2"), .usage = { .user_usec = 5, .max_rss_kb = 6,
							     .ntasks = 1 },
			.max_rss_node = s("n1"), .max_vm_node = s("n1"),
		};
		break;
	}
	case RESPONSE_JOB_STEP_INFO: {
		struct step_info_msg *i = m;

		i->count = 2;
		i->steps = calloc(2, sizeof(*i->steps));
		i->steps[0] = (struct step_info){ .job_id = 12, .step_id = 0, .name = s("hostname"),
						  .nodes = s("n1"), .num_tasks = 4 };
		i->steps[1] = (struct step_info){ .job_id = 12, .step_id = 0xfffffffbu,
						  .name = s("batch") };
		break;
	}
	case REQUEST_PRIORITY_FACTORS: {
		struct prio_factors_req *r = m;

		r->job_ids = calloc(2, sizeof(*r->job_ids));
		r->job_ids[0] = 12, r->job_ids[1] = 13;
		r->job_id_count = 2;
		r->uids = calloc(1, sizeof(*r->uids));
		r->uids[0] = 1000;
		r->uid_count = 1;
		break;
	}
	case RESPONSE_PRIORITY_FACTORS: {
		struct prio_factors_resp *r = m;

		r->w_age = 1000, r->w_fairshare = 2000, r->w_qos = 7, r->flags = 3;
		r->tres_count = 2;
		r->tres_names = calloc(2, sizeof(char *));
		r->tres_names[0] = s("cpu"), r->tres_names[1] = s("gres/gpu");
		r->tres_weights = calloc(2, sizeof(double));
		r->tres_weights[0] = 100, r->tres_weights[1] = 0.5;
		r->count = 2;
		r->jobs = calloc(2, sizeof(*r->jobs));
		r->jobs[0] = (struct prio_job_factors){.job_id = 12,
						       .user_id = 1000,
						       .partition = s("debug"),
						       .account = s("a"),
						       .priority = 1656,
						       .nice = 0x80000000u,
						       .age = 0.5,
						       .job_size = 0.15625,
						       .part = 1};
		r->jobs[0].tres = calloc(2, sizeof(double));
		r->jobs[0].tres[0] = 0.25;
		r->jobs[1] = (struct prio_job_factors){.job_id = 13, .qos = s("high"), .qos_f = 1};
		break;
	}
	case REQUEST_JOB_WAIT: {
		struct job_wait_req *r = m;

		r->job_ids = calloc(2, sizeof(*r->job_ids));
		r->job_ids[0] = 12, r->job_ids[1] = 13;
		r->job_id_count = 2;
		r->states = JOB_WAIT_STARTED | 1u << 3;
		r->flags = JOB_WAIT_ALL;
		r->timeout_s = 60;
		break;
	}
	case RESPONSE_JOB_WAIT: {
		struct job_wait_resp *r = m;

		r->count = 2;
		r->jobs = calloc(2, sizeof(*r->jobs));
		r->jobs[0] = (struct job_wait_job){ .job_id = 12, .state = 3, .exit_code = 768 };
		r->jobs[1] = (struct job_wait_job){ .job_id = 13, .result = JOB_WAIT_TIMEOUT };
		break;
	}
	default:
		break; /* empty messages */
	}
	return m;
}

static void test_table_is_sorted_and_named(void **state)
{
	(void)state;
	for (size_t i = 0; i < msg_table_len; i++) {
		assert_non_null(msg_table[i].name);
		assert_ptr_equal(msg_lookup(msg_table[i].type), &msg_table[i]);
		if (i > 0)
			assert_true(msg_table[i - 1].type < msg_table[i].type);
	}
	assert_null(msg_lookup(1));
	assert_string_equal(msg_type_name(REQUEST_PING), "REQUEST_PING");
	assert_string_equal(msg_type_name(4242), "MSG_4242");
}

static void test_every_message_round_trips_to_the_same_bytes(void **state)
{
	(void)state;
	for (size_t i = 0; i < msg_table_len; i++) {
		const struct msg_type *t = &msg_table[i];
		struct pack_buf out = { 0 }, again = { 0 };
		void *sample = sample_new(t), *m = NULL;

		t->pack(sample, &out, PROTOCOL_VERSION);
		assert_int_equal(out.err, 0);
		assert_int_equal(msg_unpack_body(t->type, out.data, out.len, PROTOCOL_VERSION, &m), 0);
		t->pack(m, &again, PROTOCOL_VERSION);
		assert_int_equal(again.len, out.len);
		if (out.len)
			assert_memory_equal(again.data, out.data, out.len);
		msg_free(t, m);
		msg_free(t, sample);
		pack_buf_done(&out);
		pack_buf_done(&again);
	}
}

static void test_every_message_rejects_every_truncation(void **state)
{
	(void)state;
	for (size_t i = 0; i < msg_table_len; i++) {
		const struct msg_type *t = &msg_table[i];
		struct pack_buf out = { 0 };
		void *sample = sample_new(t);

		t->pack(sample, &out, PROTOCOL_VERSION);
		for (size_t n = 0; n < out.len; n++) {
			/* a copy of exactly n bytes, so ASan sees any over-read */
			uint8_t *copy = malloc(n ? n : 1);
			void *m = (void *)1;

			memcpy(copy, out.data, n);
			assert_true(msg_unpack_body(t->type, copy, n, PROTOCOL_VERSION, &m) < 0);
			assert_null(m);
			free(copy);
		}
		msg_free(t, sample);
		pack_buf_done(&out);
	}
}

static void test_leftover_bytes_are_refused(void **state)
{
	struct pack_buf out = { 0 };
	void *m = NULL;

	(void)state;
	pack_u32(&out, 0);
	pack_u8(&out, 1);
	assert_int_equal(msg_unpack_body(RESPONSE_SLURM_RC, out.data, out.len, PROTOCOL_VERSION, &m),
			 -EBADMSG);
	assert_null(m);
	pack_buf_done(&out);
}

static void test_hostile_count_does_not_allocate(void **state)
{
	struct pack_buf out = { 0 };
	void *m = NULL;

	(void)state;
	pack_time(&out, 1);
	pack_u32(&out, 0xffffffffu); /* a count of 4 billion nodes in 12 bytes */
	assert_true(msg_unpack_body(RESPONSE_NODE_INFO, out.data, out.len, PROTOCOL_VERSION, &m) < 0);
	assert_null(m);
	pack_buf_done(&out);
}

static void test_unknown_type_is_refused(void **state)
{
	void *m = NULL;

	(void)state;
	assert_int_equal(msg_unpack_body(4242, "", 0, PROTOCOL_VERSION, &m), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_is_sorted_and_named),
		cmocka_unit_test(test_every_message_round_trips_to_the_same_bytes),
		cmocka_unit_test(test_every_message_rejects_every_truncation),
		cmocka_unit_test(test_leftover_bytes_are_refused),
		cmocka_unit_test(test_hostile_count_does_not_allocate),
		cmocka_unit_test(test_unknown_type_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
