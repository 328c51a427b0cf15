/* test_job_info_kept.c - the brief records the controller keeps for squeue
 * (job_info_pack_job) are what a fresh pack gives after every kind of
 * change: random sequences of submissions (plain, held, later start,
 * dependency, array, GPU), scheduling passes, backfill plans, launches
 * answered, completions, cancels, requeues, holds and releases, updates of
 * name, time limit, nice and partition, time passing and priority
 * recalculations; after each one every job's kept record is compared byte
 * for byte with a fresh one. The test also counts the kept records used,
 * so that it fails if none ever is.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/msg.h"
#include "common/msg_family.h"
#include "common/pack.h"
#include "ctld_fixture.h"
#include "slurmctld/job.h"
#include "slurmctld/job_cancel.h"
#include "slurmctld/job_end.h"
#include "slurmctld/job_info.h"
#include "slurmctld/job_prio.h"
#include "slurmctld/job_sched.h"
#include "slurmctld/job_update.h"
#include "slurmctld/sched_bf.h"

#define MF                                                                                         \
	"PriorityType=priority/multifactor\nPriorityWeightJobSize=1000\n"                          \
	"PriorityWeightAge=1000\nPriorityMaxAge=01:00:00\nPriorityWeightPartition=1000\n"

static unsigned rnd(unsigned *seed, unsigned n)
{
	return (unsigned)rand_r(seed) % n;
}

/* A job want() takes, looked for from a random place in the table, or
 * NULL. */
static struct job *any_job(struct ctld_fixture *f, unsigned *seed, bool (*want)(const struct job *))
{
	uint32_t n = f->c.job_count;

	for (uint32_t k = 0, i = n ? rnd(seed, n) : 0; k < n; k++, i = (i + 1) % n)
		if (want(f->c.jobs[i]))
			return f->c.jobs[i];
	return NULL;
}

static bool is_any(const struct job *job)
{
	return !job_is_finished(job);
}

static bool is_running_batch(const struct job *job)
{
	return job_is_running(job) && !(job->state & JOB_COMPLETING);
}

static void submit_one(struct ctld_fixture *f, unsigned *seed)
{
	struct job_desc *d = fixture_desc();
	struct job *first = f->c.job_count ? f->c.jobs[0] : NULL;

	d->num_tasks = 1 + rnd(seed, 6);
	d->time_limit = 1 + rnd(seed, 60);
	switch (rnd(seed, 7)) {
	case 0:
		d->flags |= JOB_DESC_HOLD;
		break;
	case 1:
		d->begin_time = time(NULL) + 3600; /* eligible later */
		break;
	case 2:
		if (first && asprintf(&d->dependency, "afterany:%u", first->job_id) < 0)
			fail();
		break;
	case 3:
		d->array_spec = strdup("1-4%2");
		break;
	case 4:
		d->partition = strdup("gpu"); /* g1: 4 cpus */
		d->tres_per_node = strdup("gres/gpu:2");
		d->num_tasks = 1 + rnd(seed, 4);
		break;
	case 5:
		d->comment = strdup("kept");
		d->nice = NICE_OFFSET + 10;
		break;
	default:
		break;
	}
	fixture_submit(f, d);
}

static void update_one(struct ctld_fixture *f, unsigned *seed)
{
	struct job *job = any_job(f, seed, is_any);
	struct update_job_msg m = {.time_limit = NO_VAL,
				   .min_nodes = NO_VAL,
				   .max_nodes = NO_VAL,
				   .nice = NO_VAL,
				   .priority = NO_VAL};
	char id[16];

	if (!job)
		return;
	snprintf(id, sizeof(id), "%u", job->job_id);
	m.sjob_id = id;
	switch (rnd(seed, 6)) {
	case 0:
		m.priority = 0; /* hold */
		m.hold_user = rnd(seed, 2);
		break;
	case 1:
		m.priority = INFINITE; /* release */
		break;
	case 2:
		m.name = "renamed";
		break;
	case 3:
		m.time_limit = 1 + rnd(seed, 90);
		break;
	case 4:
		m.nice = NICE_OFFSET + rnd(seed, 100);
		break;
	default:
		m.partition = rnd(seed, 2) ? "gpu" : "cpu";
		break;
	}
	(void)job_update(&f->c, job, &m, 0, true); /* refusals change nothing */
}

static void end_one(struct ctld_fixture *f, unsigned *seed)
{
	struct job *job = any_job(f, seed, is_running_batch);
	struct complete_batch_msg done = {0};

	if (!job)
		return;
	done.job_id = job->job_id;
	done.job_rc = rnd(seed, 2) ? 0 : 1 << 8;
	(void)job_end_complete(&f->c, &done);
}

static void cancel_one(struct ctld_fixture *f, unsigned *seed)
{
	struct job *job = any_job(f, seed, is_any);
	char id[16];

	if (!job)
		return;
	snprintf(id, sizeof(id), "%u", job->job_id);
	(void)job_cancel_target(&f->c, id, 9, 0, 0);
}

static void requeue_one(struct ctld_fixture *f, unsigned *seed)
{
	struct job *job = any_job(f, seed, is_running_batch);

	if (job)
		(void)job_end_requeue(&f->c, job, rnd(seed, 2), 0, true);
}

/* A minute passes: every job's times a minute earlier (touched, as a
 * fresh start would show them), so that ages grow for the next
 * recalculation of priorities. */
static void minute_passes(struct ctld_fixture *f)
{
	for (uint32_t i = 0; i < f->c.job_count; i++) {
		struct job *job = f->c.jobs[i];
		time_t *ts[] = {&job->submit_time, &job->eligible_time, &job->start_time,
				&job->end_time};

		for (size_t k = 0; k < sizeof(ts) / sizeof(ts[0]); k++)
			*ts[k] -= *ts[k] ? 60 : 0;
		job_info_touch(job);
	}
}

static void mutate(struct ctld_fixture *f, unsigned *seed)
{
	switch (rnd(seed, 11)) {
	case 0:
	case 1:
		submit_one(f, seed);
		break;
	case 2:
		job_sched_pass(&f->c);
		break;
	case 3:
		assert_int_equal(sched_bf_cycle_sync(&f->c, NULL), 0);
		break;
	case 4:
		fixture_deliver(f, rnd(seed, 4) ? 0 : -ECONNREFUSED);
		fixture_clear(f);
		break;
	case 5:
		end_one(f, seed);
		break;
	case 6:
		cancel_one(f, seed);
		break;
	case 7:
		requeue_one(f, seed);
		break;
	case 8:
		update_one(f, seed);
		break;
	case 9:
		minute_passes(f);
		break;
	default:
		job_prio_recalc(&f->c, time(NULL));
		break;
	}
}

/* job's record as listed (kept or not) equals a fresh one; false when
 * they differ. */
static bool kept_is_fresh(struct ctld_fixture *f, struct job *job, time_t now)
{
	struct pack_buf got = {0}, fresh = {0};
	struct job_info j;
	bool is_same;

	assert_int_equal(job_info_pack_job(&f->c, job, true, now, &got), 0);
	assert_int_equal(job_info_fill(&f->c, job, true, now, &j), 0);
	job_info_pack(&j, &fresh);
	job_info_fill_done(&j);
	is_same = got.len == fresh.len && !memcmp(got.data, fresh.data, got.len);
	pack_buf_done(&got);
	pack_buf_done(&fresh);
	return is_same;
}

/* Every job's kept record equals a fresh one made at the same time (a
 * listing's records are all made at its start); the number taken as
 * kept. */
static uint32_t check_all(struct ctld_fixture *f, unsigned step)
{
	time_t now = time(NULL);
	uint32_t kept = 0;

	for (uint32_t i = 0; i < f->c.job_count; i++) {
		struct job *job = f->c.jobs[i];
		uint32_t gen = job->info_gen;
		bool was_kept = job->info_kept != NULL;

		if (!kept_is_fresh(f, job, now)) {
			print_error("step %u: JobId=%u state 0x%x: kept record differs\n", step,
				    job->job_id, job->state);
			fail();
		}
		kept += was_kept && job->info_gen == gen;
	}
	return kept;
}

static void test_kept_records_equal_fresh_ones_after_every_change(void **state)
{
	(void)state;
	for (unsigned run = 0; run < 8; run++) {
		struct ctld_fixture *f = fixture_new(MF);
		unsigned seed = 1234 + run;
		uint32_t kept = 0;

		for (unsigned step = 0; step < 300; step++) {
			mutate(f, &seed);
			kept += check_all(f, step);
		}
		assert_true(kept > 1000); /* the kept records were used */
		fixture_free(f);
	}
}

/* A change made behind the record's back (no job_info_touch) is what the
 * kept record does not see, and what check mode reports: shown here so
 * that the test above cannot pass by packing afresh every time. A touch or
 * a new epoch (reconfigure) makes it packed again. */
static void test_a_change_without_touch_is_not_seen(void **state)
{
	struct ctld_fixture *f = fixture_new(NULL);
	struct job *job = fixture_submit(f, fixture_desc());
	struct pack_buf a = {0}, b = {0};
	time_t now = time(NULL) + 1;
	enum job_state_reason was = job->reason;

	(void)state;
	assert_int_equal(job_info_pack_job(&f->c, job, true, now, &a), 0);
	job->reason = WAIT_DEPENDENCY; /* behind its back */
	assert_int_equal(job_info_pack_job(&f->c, job, true, now, &b), 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len); /* the stale one */
	pack_buf_done(&b);
	job_info_touch(job);
	assert_int_equal(job_info_pack_job(&f->c, job, true, now, &b), 0);
	assert_true(a.len != b.len || memcmp(a.data, b.data, a.len));
	pack_buf_done(&b);

	job->reason = was;     /* behind its back again */
	f->c.job_info_epoch++; /* reconfigure */
	assert_int_equal(job_info_pack_job(&f->c, job, true, now, &b), 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len); /* fresh: as at first */
	pack_buf_done(&a);
	pack_buf_done(&b);
	fixture_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kept_records_equal_fresh_ones_after_every_change),
	    cmocka_unit_test(test_a_change_without_touch_is_not_seen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
