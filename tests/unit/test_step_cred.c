/* test_step_cred.c - the step credential's payload (pack/unpack), the
 * check of a launch against it, and slurmd's list of used credentials and
 * ended jobs (src/slurmd/cred_state.c, in slurmd's library). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/sl_errno.h"
#include "common/step_cred.h"
#include "slurmd/cred_state.h"

#define CTIME_US 1700000000123456ull
#define NOW	 ((time_t)(CTIME_US / 1000000))

/* Step 7.3 of uid 1000: n1 and n2 with 2 tasks, 4 cpus, 500 MB, GPU 0;
 * n3 with 1 task, 2 cpus, 250 MB, no GPU; tasks laid out cyclic (-m
 * cyclic): n1 runs 0 and 3, n2 1 and 4, n3 2. */
static struct task_block cyclic3[] = {{.start = 0, .count = 3, .per = 1}};
static struct step_node nodes[] = {
    {.name = "n1", .tasks = 2, .cpus = 4, .mem = 500, .gpus = "0"},
    {.name = "n2", .tasks = 2, .cpus = 4, .mem = 500, .gpus = "0"},
    {.name = "n3", .tasks = 1, .cpus = 2, .mem = 250},
};
static const struct step_create_resp resp = {
    .job_id = 7,
    .step_id = 3,
    .uid = 1000,
    .gid = 100,
    .step_nodes = "n[1-3]",
    .num_tasks = 5,
    .node_count = 3,
    .nodes = nodes,
    .map = {.nblocks = 1, .blocks = cyclic3},
};

static void make_cred(struct step_cred *c)
{
	assert_int_equal(step_cred_from_resp(&resp, CTIME_US, c), 0);
}

/* What srun sends node n (srun_step.c fill_launch). */
static void make_launch(struct launch_tasks_msg *m, uint32_t n, uint32_t *gtids)
{
	for (uint32_t k = 0; k < nodes[n].tasks; k++)
		gtids[k] = n + 3 * k;
	*m = (struct launch_tasks_msg){
	    .job_id = 7,
	    .step_id = 3,
	    .uid = 1000,
	    .gid = 100,
	    .node_name = nodes[n].name,
	    .step_nodes = "n[1-3]",
	    .num_nodes = 3,
	    .node_id = n,
	    .num_tasks = 5,
	    .gtids = gtids,
	    .ntasks_here = nodes[n].tasks,
	    .cpus_on_node = nodes[n].cpus,
	    .mem_limit = nodes[n].mem,
	    .gpus = nodes[n].gpus,
	    .map = resp.map,
	};
}

static void test_runs_join_nodes_with_one_grant(void **state)
{
	struct step_cred c;

	(void)state;
	make_cred(&c);
	assert_int_equal(c.run_count, 2);
	assert_int_equal(c.runs[0].count, 2);
	assert_string_equal(c.runs[0].gpus, "0");
	assert_int_equal(c.runs[1].count, 1);
	assert_null(c.runs[1].gpus);
	assert_int_equal(c.expire, NOW + STEP_CRED_EXPIRE_S);
	step_cred_done(&c);
}

static void test_pack_unpack_round_trip(void **state)
{
	struct pack_buf b = {0};
	struct step_cred c, d, e;

	(void)state;
	make_cred(&c);
	step_cred_pack(&c, &b);
	assert_int_equal(b.err, 0);
	assert_int_equal(step_cred_unpack(b.data, b.len, &d), 0);
	assert_int_equal(d.job_id, 7);
	assert_int_equal(d.step_id, 3);
	assert_int_equal(d.uid, 1000);
	assert_int_equal(d.gid, 100);
	assert_true(d.ctime_us == CTIME_US);
	assert_int_equal(d.expire, c.expire);
	assert_string_equal(d.step_nodes, "n[1-3]");
	assert_int_equal(d.num_tasks, 5);
	assert_int_equal(d.run_count, 2);
	assert_int_equal(d.runs[1].mem, 250);
	assert_true(task_map_equal(&d.map, &resp.map));
	/* every truncation, a trailing byte and another version are refused */
	for (size_t len = 0; len < b.len; len++) {
		assert_int_equal(step_cred_unpack(b.data, len, &e),
				 -ESLURMD_INVALID_JOB_CREDENTIAL);
		assert_null(e.runs);
	}
	pack_u8(&b, 0);
	assert_int_equal(step_cred_unpack(b.data, b.len, &e), -ESLURMD_INVALID_JOB_CREDENTIAL);
	((uint8_t *)b.data)[1] ^= 0x7f; /* the version (u16, big endian) */
	assert_int_equal(step_cred_unpack(b.data, b.len - 1, &e), -ESLURMD_INVALID_JOB_CREDENTIAL);
	step_cred_done(&c);
	step_cred_done(&d);
	pack_buf_done(&b);
}

/* ...until the credential expires. */
static void test_launch_as_granted_is_accepted_on_each_node(void **state)
{
	struct launch_tasks_msg m;
	struct step_cred c;
	uint32_t gtids[2];
	const char *why;

	(void)state;
	make_cred(&c);
	for (uint32_t n = 0; n < 3; n++) {
		make_launch(&m, n, gtids);
		assert_int_equal(step_cred_check_launch(&c, &m, nodes[n].name, NOW, &why), 0);
		assert_int_equal(step_cred_check_launch(&c, &m, nodes[n].name, c.expire, &why), 0);
		assert_int_equal(step_cred_check_launch(&c, &m, nodes[n].name, c.expire + 1, &why),
				 -ESLURMD_CREDENTIAL_EXPIRED);
	}
	step_cred_done(&c);
}

/* Each field srun could change, changed: refused, naming the field. */
static void test_launch_differing_from_the_grant_is_refused(void **state)
{
	static const char *const whys[] = {
	    "job or step", "job or step",  "user or group", "user or group", "step nodes",
	    "step nodes",  "step nodes",   "task count",    "task count",    "task ids",
	    "cpus",	   "memory limit", "GPUs",	    "GPUs",	     "task map",
	    "task ids",	   "task map",
	};
	/* block's map: n1 0-1, n2 2-3, n3 4 */
	static struct task_block block[] = {{0, 2, 2}, {2, 1, 1}};
	struct step_cred c;

	(void)state;
	make_cred(&c);
	for (size_t i = 0; i < ARRAY_SIZE(whys); i++) {
		struct launch_tasks_msg m;
		uint32_t gtids[2];
		const char *why = NULL;

		make_launch(&m, 0, gtids);
		switch (i) {
		case 0:
			m.job_id = 8;
			break;
		case 1:
			m.step_id = 4;
			break;
		case 2:
			m.uid = 0;
			break;
		case 3:
			m.gid = 0;
			break;
		case 4:
			m.step_nodes = "n[1-4]";
			break;
		case 5:
			m.num_nodes = 4;
			break;
		case 6:
			m.node_id = 1;
			break;
		case 7:
			m.num_tasks = 6;
			break;
		case 8:
			m.ntasks_here = 1;
			break;
		case 9:
			gtids[1] = 4;
			break;
		case 10:
			m.cpus_on_node = 8;
			break;
		case 11:
			m.mem_limit = 0;
			break; /* "no limit" */
		case 12:
			m.gpus = "0,1";
			break;
		case 13:
			m.gpus = NULL;
			break;
		case 14: /* block's ids under block's map: not what was granted */
			m.map = (struct task_map){.nblocks = 2, .blocks = block};
			gtids[0] = 0;
			gtids[1] = 1;
			break;
		case 15: /* block's ids under the granted map */
			gtids[0] = 0;
			gtids[1] = 1;
			break;
		case 16:
			m.map.nblocks = 0;
			break;
		}
		assert_int_equal(step_cred_check_launch(&c, &m, "n1", NOW, &why),
				 -ESLURMD_INVALID_JOB_CREDENTIAL);
		assert_non_null(why);
		assert_string_equal(why, whys[i]);
	}
	step_cred_done(&c);
}

static void test_launch_on_a_node_outside_the_step_is_refused(void **state)
{
	struct launch_tasks_msg m;
	struct step_cred c;
	uint32_t gtids[2];
	const char *why;

	(void)state;
	make_cred(&c);
	make_launch(&m, 0, gtids);
	m.node_name = "n4"; /* srun's copy names it; slurmd checks its own name */
	assert_int_equal(step_cred_check_launch(&c, &m, "n4", NOW, &why),
			 -ESLURMD_INVALID_JOB_CREDENTIAL);
	assert_string_equal(why, "node not in the step");
	/* n1's launch taken to n2 */
	make_launch(&m, 0, gtids);
	assert_int_equal(step_cred_check_launch(&c, &m, "n2", NOW, &why),
			 -ESLURMD_INVALID_JOB_CREDENTIAL);
	/* runs that do not cover the hostlist: nothing matches */
	c.runs[1].count = 2;
	make_launch(&m, 2, gtids);
	assert_int_equal(step_cred_check_launch(&c, &m, "n3", NOW, &why),
			 -ESLURMD_INVALID_JOB_CREDENTIAL);
	step_cred_done(&c);
}

static void test_cred_state_refuses_replay_and_revoked(void **state)
{
	struct cred_state *cs;
	struct step_cred c, later;

	(void)state;
	make_cred(&c);
	make_cred(&later);
	later.ctime_us += 2000000;
	later.step_id = 4;
	assert_int_equal(cred_state_open(NULL, NOW, &cs), 0);
	assert_int_equal(cred_state_use(cs, &c, NOW), 0);
	assert_int_equal(cred_state_use(cs, &c, NOW + 1), -ESLURMD_CREDENTIAL_REPLAYED);
	/* the job ends here: older credentials are revoked, newer ones (a
	 * requeued job's) are not */
	assert_int_equal(cred_state_revoke_job(cs, 7, CTIME_US + 1000000, NOW + 1), 0);
	c.step_id = 9; /* unused, but made before the end */
	assert_int_equal(cred_state_use(cs, &c, NOW + 1), -ESLURMD_CREDENTIAL_REVOKED);
	assert_int_equal(cred_state_use(cs, &later, NOW + 2), 0);
	assert_int_equal(cred_state_use(cs, &later, NOW + 2), -ESLURMD_CREDENTIAL_REPLAYED);
	/* entries go when what they stop has expired */
	assert_int_equal(cred_state_count(cs), 3);
	assert_int_equal(cred_state_use(cs, &c, NOW + 2 + STEP_CRED_EXPIRE_S), 0);
	assert_int_equal(cred_state_count(cs), 1);
	cred_state_free(cs);
	step_cred_done(&c);
	step_cred_done(&later);
}

static void test_cred_state_survives_a_restart(void **state)
{
	char dir[] = "/tmp/test_step_cred.XXXXXX", path[64];
	struct cred_state *cs;
	struct step_cred c;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/n1_cred_state", dir);
	make_cred(&c);
	assert_int_equal(cred_state_open(path, NOW, &cs), 0);
	assert_int_equal(cred_state_use(cs, &c, NOW), 0);
	assert_int_equal(cred_state_revoke_job(cs, 99, CTIME_US, NOW), 0);
	cred_state_free(cs);
	/* garbage appended to the file is skipped, the entries kept */
	f = fopen(path, "a");
	assert_non_null(f);
	fputs("U 1 2 x 4\nZ 1 2 3 4\nU 1 2 3\n", f);
	for (int i = 0; i < 300; i++)
		fputc('9', f);
	fputs("\nR 5\n", f);
	fclose(f);
	assert_int_equal(cred_state_open(path, NOW + 1, &cs), 0);
	assert_int_equal(cred_state_count(cs), 2);
	assert_int_equal(cred_state_use(cs, &c, NOW + 1), -ESLURMD_CREDENTIAL_REPLAYED);
	c.job_id = 99;
	assert_int_equal(cred_state_use(cs, &c, NOW + 1), -ESLURMD_CREDENTIAL_REVOKED);
	cred_state_free(cs);
	/* reopened past every expiry: empty */
	assert_int_equal(cred_state_open(path, NOW + 10 * STEP_CRED_EXPIRE_S, &cs), 0);
	assert_int_equal(cred_state_count(cs), 0);
	cred_state_free(cs);
	step_cred_done(&c);
	unlink(path);
	rmdir(dir);
}

static unsigned file_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned n = 0;
	int ch;

	assert_non_null(f);
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

/* A launch appends one line; the file is rewritten to the live entries
 * once most of its lines are dead, and a reload sees exactly those. */
static void test_cred_state_file_stays_small(void **state)
{
	char dir[] = "/tmp/test_step_cred.XXXXXX", path[64];
	struct cred_state *cs;
	struct step_cred c;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/n1_cred_state", dir);
	make_cred(&c);
	assert_int_equal(cred_state_open(path, NOW, &cs), 0);
	for (uint32_t i = 0; i < 1000; i++) { /* one launch a second */
		c.step_id = i;
		c.ctime_us = CTIME_US + (uint64_t)i * 1000000;
		c.expire = NOW + i + STEP_CRED_EXPIRE_S;
		assert_int_equal(cred_state_use(cs, &c, NOW + i), 0);
		assert_true(file_lines(path) <= 2 * cred_state_count(cs) + 64 + 1);
	}
	assert_int_equal(cred_state_count(cs), STEP_CRED_EXPIRE_S + 1);
	cred_state_free(cs);
	assert_int_equal(cred_state_open(path, NOW + 999, &cs), 0);
	assert_int_equal(cred_state_count(cs), STEP_CRED_EXPIRE_S + 1);
	assert_int_equal(cred_state_use(cs, &c, NOW + 999), -ESLURMD_CREDENTIAL_REPLAYED);
	cred_state_free(cs);
	/* a torn last line (a crash in the middle of an append) is not appended to */
	f = fopen(path, "a");
	assert_non_null(f);
	fputs("U 7 1 1", f);
	fclose(f);
	assert_int_equal(cred_state_open(path, NOW + 999, &cs), 0);
	c.step_id = 5000;
	c.ctime_us += 1;
	assert_int_equal(cred_state_use(cs, &c, NOW + 999), 0);
	cred_state_free(cs);
	assert_int_equal(cred_state_open(path, NOW + 999, &cs), 0);
	assert_int_equal(cred_state_use(cs, &c, NOW + 999), -ESLURMD_CREDENTIAL_REPLAYED);
	cred_state_free(cs);
	step_cred_done(&c);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_runs_join_nodes_with_one_grant),
	    cmocka_unit_test(test_pack_unpack_round_trip),
	    cmocka_unit_test(test_launch_as_granted_is_accepted_on_each_node),
	    cmocka_unit_test(test_launch_differing_from_the_grant_is_refused),
	    cmocka_unit_test(test_launch_on_a_node_outside_the_step_is_refused),
	    cmocka_unit_test(test_cred_state_refuses_replay_and_revoked),
	    cmocka_unit_test(test_cred_state_survives_a_restart),
	    cmocka_unit_test(test_cred_state_file_stays_small),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
