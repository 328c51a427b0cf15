/* test_resv.c - advanced reservations on the controller: create checks,
 * NodeCnt picks, overlap and busy nodes, update and delete, windows that
 * end or repeat, the nodes' flags, and what they do to placement; the
 * ResvID; FLEX; the pending jobs of a reservation that goes (held, or
 * free with NO_HOLD_JOBS_AFTER). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/states.h"
#include "ctld_fixture.h"
#include "slurmctld/job.h"
#include "slurmctld/job_sched.h"
#include "slurmctld/job_update.h"
#include "slurmctld/node.h"
#include "slurmctld/node_state.h"
#include "slurmctld/resv.h"
#include "slurmctld/resv_mask.h"

#define NOW ((time_t)1800000000)

static int setup(void **state)
{
	*state = fixture_new(NULL);
	return 0;
}

static int teardown(void **state)
{
	fixture_free(*state);
	return 0;
}

static struct resv_desc_msg desc(const char *name, const char *nodes, time_t start,
				 uint32_t minutes)
{
	return (struct resv_desc_msg){
	    .name = (char *)name,
	    .start_time = start,
	    .duration = minutes,
	    .node_list = (char *)nodes,
	    .node_cnt = NO_VAL,
	    .users = "root",
	};
}

static int create_at(struct ctld_fixture *f, struct resv_desc_msg m, time_t now)
{
	char *name = NULL;
	int r = resv_create(&f->c, &m, now, &name);

	free(name);
	return r;
}

static int create(struct ctld_fixture *f, struct resv_desc_msg m)
{
	return create_at(f, m, NOW);
}

static void test_create_checks(void **state)
{
	struct ctld_fixture *f = *state;
	struct resv_desc_msg m = desc("a", "n1", NOW, 60);

	assert_int_equal(create(f, m), 0);
	assert_int_equal(create(f, m), -ESLURM_RESERVATION_NAME_DUP);
	m = desc("b", "n1", NOW + 1800, 60); /* meets a's window on n1 */
	assert_int_equal(create(f, m), -ESLURM_RESERVATION_OVERLAP);
	m.flags = RESV_FLAG_OVERLAP;
	assert_int_equal(create(f, m), 0);
	m = desc("c", "n1", NOW + 3600, 60);			     /* a ends as c starts */
	assert_int_equal(create(f, m), -ESLURM_RESERVATION_OVERLAP); /* b runs to +90 min */
	m = desc("d", "n9", NOW, 60);
	assert_int_equal(create(f, m), -ESLURM_INVALID_NODE_NAME);
	m = desc("e", "n2", NOW, 60);
	m.users = NULL;
	assert_int_equal(create(f, m), -ESLURM_RESERVATION_EMPTY);
	m.accounts = "acme";
	assert_int_equal(create(f, m), 0);
	assert_int_equal(resv_find(&f->c, "e")->flags, RESV_FLAG_SPEC_NODES);
}

static void test_nodecnt_picks_free_nodes_and_names_it(void **state)
{
	struct ctld_fixture *f = *state;
	struct resv_desc_msg m = desc(NULL, NULL, NOW, 60);
	char *name = NULL;
	struct resv *r;

	assert_int_equal(create(f, desc("x", "n1", NOW, 60)), 0);
	m.node_cnt = 2;
	assert_int_equal(resv_create(&f->c, &m, NOW, &name), 0);
	assert_string_equal(name, "root_2"); /* the second create */
	r = resv_find(&f->c, name);
	assert_string_equal(r->node_list, "n[2-3]");
	assert_string_equal(r->partition, "cpu"); /* the default partition */
	assert_int_equal(r->core_count, 8);
	free(name);
	m.node_cnt = 1; /* every node of cpu is reserved now */
	assert_int_equal(resv_create(&f->c, &m, NOW, &name), -ESLURM_NODES_BUSY);
}

static void test_running_jobs_make_nodes_busy(void **state)
{
	struct ctld_fixture *f = *state;
	struct job_desc *d = fixture_desc();
	time_t now = time(NULL);
	struct job *job;
	struct resv_desc_msg m;

	job_desc_set_str(d, &d->req_nodes, "n1");
	job = fixture_submit(f, d);
	job_sched_pass(&f->c);
	assert_true(job_is_running(job));
	m = desc("m", "n1", job->end_time - 60, 60);
	assert_int_equal(create_at(f, m, now), -ESLURM_NODES_BUSY);
	m.flags = RESV_FLAG_IGNORE_JOBS;
	assert_int_equal(create_at(f, m, now), 0);
	m = desc("later", "n2", job->end_time, 60); /* another node: free */
	assert_int_equal(create_at(f, m, now), 0);
	m = desc("after", "n1", job->end_time + 3600, 60); /* after the job and "m" */
	assert_int_equal(create_at(f, m, now), 0);
}

static void test_update_and_delete(void **state)
{
	struct ctld_fixture *f = *state;
	struct resv_desc_msg m = desc("u", "n2", NOW + 600, 60);
	struct resv_desc_msg up = {.name = "u", .duration = 120, .node_cnt = NO_VAL};

	assert_int_equal(create(f, m), 0);
	assert_int_equal(resv_update(&f->c, &up, NOW), 0);
	assert_int_equal(resv_find(&f->c, "u")->end, NOW + 600 + 7200);
	up = (struct resv_desc_msg){
	    .name = "u", .duration = NO_VAL, .node_cnt = NO_VAL, .node_list = "n9"};
	assert_int_equal(resv_update(&f->c, &up, NOW), -ESLURM_INVALID_NODE_NAME);
	assert_string_equal(resv_find(&f->c, "u")->node_list, "n2"); /* unchanged */
	up.node_list = NULL;
	up.flags = RESV_FLAG_MAINT;
	assert_int_equal(resv_update(&f->c, &up, NOW), 0);
	assert_int_equal(resv_find(&f->c, "u")->flags, RESV_FLAG_MAINT | RESV_FLAG_SPEC_NODES);
	up.flags = 0;
	up.start_time = NOW + 60;
	assert_int_equal(resv_update(&f->c, &up, NOW + 700), -ESLURM_RSV_ALREADY_STARTED);
	assert_int_equal(resv_delete(&f->c, "nope"), -ESLURM_RESERVATION_INVALID);
	assert_int_equal(resv_delete(&f->c, "u"), 0);
	assert_null(resv_find(&f->c, "u"));
}

static void test_windows_end_or_repeat_and_flag_nodes(void **state)
{
	struct ctld_fixture *f = *state;
	struct resv_desc_msg m = desc("once", "n1", NOW, 60);
	struct resv_desc_msg d = desc("daily", "n2", NOW, 60);
	struct node *n1 = node_find(&f->c, "n1"), *n2 = node_find(&f->c, "n2");

	m.flags = RESV_FLAG_MAINT;
	d.flags = RESV_FLAG_DAILY;
	assert_int_equal(create(f, m), 0);
	assert_int_equal(create(f, d), 0);
	resv_tick(&f->c, NOW + 10);
	assert_true(n1->state & NODE_STATE_MAINT);
	assert_true(n1->state & NODE_STATE_RES);
	assert_true(n2->state & NODE_STATE_RES);
	assert_false(n2->state & NODE_STATE_MAINT);
	assert_true(resv_tick(&f->c, NOW + 3600)); /* both windows ended */
	assert_null(resv_find(&f->c, "once"));
	assert_int_equal(resv_find(&f->c, "daily")->start, NOW + 86400);
	assert_false(n1->state & NODE_STATE_MAINT);
	assert_false(n2->state & NODE_STATE_RES);
}

static void test_masks_keep_other_jobs_off(void **state)
{
	struct ctld_fixture *f = *state;
	struct job_desc *d = fixture_desc();
	struct resv_mask_why why;
	struct job *job;
	bool *exc = NULL;

	d->time_limit = 30;
	d->flags |= JOB_DESC_HOLD;
	job = fixture_submit(f, d);
	assert_int_equal(create(f, desc("soon", "n1", NOW + 1200, 60)), 0);
	assert_int_equal(create(f, desc("late", "n2", NOW + 7200, 60)), 0);
	resv_find(&f->c, "soon")->flags |= RESV_FLAG_MAINT;
	/* 30 minutes from now meet "soon" (in 20), not "late" (in 2 h) */
	assert_int_equal(resv_mask_exclude(&f->c, job, NOW, &exc, &why), 0);
	assert_non_null(exc);
	assert_true(exc[0]);
	assert_false(exc[1]);
	assert_int_equal(why.excluded, 1);
	assert_true(why.is_maint_ahead);
	free(exc);
	exc = NULL;
	/* a job of "late" may use only n2 */
	job_desc_set_str(job->desc, &job->desc->reservation, "late");
	assert_int_equal(resv_mask_exclude(&f->c, job, NOW, &exc, NULL), 0);
	assert_true(exc[0] && !exc[1] && exc[2] && exc[3]);
	free(exc);
	exc = NULL;
	/* ... unless "late" is FLEX: then anything the others leave it */
	resv_find(&f->c, "late")->flags |= RESV_FLAG_FLEX;
	assert_int_equal(resv_mask_exclude(&f->c, job, NOW, &exc, NULL), 0);
	assert_true(exc[0] && !exc[1] && !exc[2] && !exc[3]);
	free(exc);
}

/* A pending job of reservation name (set after the submission: the test
 * user need not be listed), not held, limit minutes, at least nodes. */
static struct job *resv_job(struct ctld_fixture *f, const char *name, uint32_t minutes,
			    uint32_t nodes)
{
	struct job_desc *d = fixture_desc();
	struct job *job;

	d->time_limit = minutes;
	d->min_nodes = nodes;
	job = fixture_submit(f, d);
	if (name)
		assert_int_equal(job_desc_set_str(job->desc, &job->desc->reservation, name), 0);
	return job;
}

static void test_ids_count_every_create_and_stay_on_update(void **state)
{
	struct ctld_fixture *f = *state;
	struct resv_desc_msg up = {.name = "a", .duration = 120, .node_cnt = NO_VAL};

	assert_int_equal(create(f, desc("a", "n1", NOW, 60)), 0);
	assert_int_equal(create(f, desc("a", "n2", NOW, 60)), -ESLURM_RESERVATION_NAME_DUP);
	assert_int_equal(create(f, desc("b", "n2", NOW, 60)), 0);
	assert_int_equal(resv_find(&f->c, "a")->id, 1);
	assert_int_equal(resv_find(&f->c, "b")->id, 3); /* the refused create counted */
	assert_int_equal(resv_update(&f->c, &up, NOW), 0);
	assert_int_equal(resv_find(&f->c, "a")->id, 1);
	/* after a wrap the next free number: 1 is taken */
	f->c.resv_seq = 0;
	assert_int_equal(create(f, desc("c", "n3", NOW, 60)), 0);
	assert_int_equal(resv_find(&f->c, "c")->id, 2);
}

static void test_a_deleted_reservations_pending_jobs_are_held_until_released(void **state)
{
	struct ctld_fixture *f = *state;
	time_t now = time(NULL);
	struct update_job_msg rel = {.time_limit = NO_VAL,
				     .min_nodes = NO_VAL,
				     .max_nodes = NO_VAL,
				     .nice = NO_VAL,
				     .priority = INFINITE};
	struct job *job, *held;
	uint32_t changed;

	assert_int_equal(create_at(f, desc("r", "n1", now + 3600, 60), now), 0);
	job = resv_job(f, "r", 10, 1);
	held = resv_job(f, "r", 10, 1);
	held->priority = 0; /* an admin's hold */
	held->reason = WAIT_HELD;
	job_sched_pass(&f->c);
	assert_int_equal(job->reason, WAIT_RESERVATION); /* it waits for the start */
	assert_int_equal(held->reason, WAIT_HELD);
	changed = f->changed;
	assert_int_equal(resv_delete(&f->c, "r"), 0);
	assert_int_equal(f->changed, changed + 2); /* both journaled */
	assert_null(job->desc->reservation);
	assert_null(held->desc->reservation);
	assert_int_equal(job->priority, 0);
	assert_true(job->state & JOB_RESV_DEL_HOLD);
	assert_int_equal(job->reason, WAIT_RESV_DELETED);
	assert_string_equal(job->state_desc, "Reservation r was deleted");
	assert_false(held->state & JOB_RESV_DEL_HOLD); /* the admin's hold says so still */
	assert_int_equal(held->reason, WAIT_HELD);
	job_sched_pass(&f->c); /* the pass keeps what it says */
	assert_true(job_is_pending(job));
	assert_int_equal(job->reason, WAIT_RESV_DELETED);
	assert_string_equal(job->state_desc, "Reservation r was deleted");
	/* released by an admin: a job like any other */
	assert_int_equal(job_update(&f->c, job, &rel, 0, true), 0);
	assert_false(job->state & JOB_RESV_DEL_HOLD);
	assert_null(job->state_desc);
	assert_true(job->priority > 0);
	job_sched_pass(&f->c);
	assert_true(job_is_running(job));
}

static void test_at_its_end_pending_jobs_are_held_or_with_the_flag_let_go(void **state)
{
	struct ctld_fixture *f = *state;
	time_t now = time(NULL), then = now - 7200; /* both windows are over */
	struct resv_desc_msg m = desc("free", "n2", then, 60);
	struct job *held, *freed;

	m.flags = RESV_FLAG_NO_HOLD_JOBS_AFTER;
	assert_int_equal(create_at(f, desc("hold", "n1", then, 60), then), 0);
	assert_int_equal(create_at(f, m, then), 0);
	held = resv_job(f, "hold", 10, 1);
	freed = resv_job(f, "free", 10, 1);
	job_sched_pass(&f->c); /* past their ends: they wait for the tick */
	assert_true(job_is_pending(held) && job_is_pending(freed));
	assert_true(resv_tick(&f->c, now));
	assert_null(resv_find(&f->c, "hold"));
	assert_null(resv_find(&f->c, "free"));
	assert_int_equal(held->reason, WAIT_RESV_DELETED);
	assert_int_equal(held->priority, 0);
	assert_null(freed->desc->reservation);
	assert_false(freed->state & JOB_RESV_DEL_HOLD);
	assert_true(freed->priority > 0);
	job_sched_pass(&f->c);
	assert_true(job_is_running(freed)); /* anywhere */
	assert_true(job_is_pending(held));
}

static void test_flex_jobs_start_early_outside_and_outlive_it(void **state)
{
	struct ctld_fixture *f = *state;
	time_t now = time(NULL);
	struct resv_desc_msg fx = desc("fx", "n1", now + 60, 10);
	struct job *flex, *plain;

	fx.flags = RESV_FLAG_FLEX;
	assert_int_equal(create_at(f, fx, now), 0);
	assert_int_equal(create_at(f, desc("nf", "n3", now, 10), now), 0);
	/* before its start, on its node and one outside it */
	flex = resv_job(f, "fx", 30, 2);
	plain = resv_job(f, "nf", 30, 1);
	job_sched_pass(&f->c);
	assert_true(job_is_running(flex));
	assert_string_equal(flex->nodes, "n[1-2]");
	assert_int_equal(flex->resv_id, resv_find(&f->c, "fx")->id);
	assert_int_equal(flex->end_time, flex->start_time + 30 * 60); /* past fx's end */
	assert_true(job_is_running(plain));
	assert_string_equal(plain->nodes, "n3");
	assert_int_equal(plain->end_time, resv_find(&f->c, "nf")->end); /* ends with nf */
	/* the end of fx leaves its running job as it is */
	resv_tick(&f->c, now + 11 * 60);
	assert_null(resv_find(&f->c, "fx"));
	assert_true(job_is_running(flex));
	assert_string_equal(flex->desc->reservation, "fx");
	assert_int_equal(flex->end_time, flex->start_time + 30 * 60);
}

/* Saved with the nodes' state: the ResvID and the count come back. */
static void test_ids_survive_a_restart(void **state)
{
	struct ctld_fixture *f = *state;
	struct resv_desc_msg m = desc("b", "n2", NOW, 60);

	m.flags = RESV_FLAG_FLEX | RESV_FLAG_NO_HOLD_JOBS_AFTER;
	assert_int_equal(create(f, desc("a", "n1", NOW, 60)), 0);
	assert_int_equal(create(f, m), 0);
	assert_int_equal(resv_delete(&f->c, "a"), 0);
	assert_int_equal(node_state_save(&f->c), 0);
	resv_table_free(&f->c);
	f->c.resv_seq = 0;
	assert_int_equal(node_state_load(&f->c), 0);
	assert_int_equal(resv_table_resolve(&f->c), 0);
	assert_int_equal(f->c.resv_count, 1);
	assert_int_equal(resv_find(&f->c, "b")->id, 2);
	assert_int_equal(resv_find(&f->c, "b")->flags,
			 RESV_FLAG_FLEX | RESV_FLAG_NO_HOLD_JOBS_AFTER | RESV_FLAG_SPEC_NODES);
	assert_int_equal(create(f, desc("c", "n3", NOW, 60)), 0);
	assert_int_equal(resv_find(&f->c, "c")->id, 3);
}

/* Slurm's words: NO_HOLD_JOBS_AFTER_END printed last, either word taken. */
static void test_flag_words(void **state)
{
	char buf[128];
	uint32_t set, clear;

	(void)state;
	assert_string_equal(
	    resv_flags_string(RESV_FLAG_NO_HOLD_JOBS_AFTER | RESV_FLAG_SPEC_NODES | RESV_FLAG_FLEX,
			      buf, sizeof(buf)),
	    "FLEX,SPEC_NODES,NO_HOLD_JOBS_AFTER_END");
	assert_int_equal(resv_flags_parse("flex,NO_HOLD_JOBS_AFTER", false, &set, &clear), 0);
	assert_int_equal(set, RESV_FLAG_FLEX | RESV_FLAG_NO_HOLD_JOBS_AFTER);
	assert_int_equal(resv_flags_parse("-no_hold_jobs_after_end", true, &set, &clear), 0);
	assert_int_equal(clear, RESV_FLAG_NO_HOLD_JOBS_AFTER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_create_checks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_nodecnt_picks_free_nodes_and_names_it, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_running_jobs_make_nodes_busy, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_update_and_delete, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_windows_end_or_repeat_and_flag_nodes, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_masks_keep_other_jobs_off, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ids_count_every_create_and_stay_on_update, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		test_a_deleted_reservations_pending_jobs_are_held_until_released, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_at_its_end_pending_jobs_are_held_or_with_the_flag_let_go, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_flex_jobs_start_early_outside_and_outlive_it,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ids_survive_a_restart, setup, teardown),
	    cmocka_unit_test(test_flag_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
