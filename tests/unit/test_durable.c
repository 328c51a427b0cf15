/* test_durable.c - the controller's journal when StateSaveLocation fails
 * and when its files are damaged (durable.c, node_state.c): a failed
 * commit refuses state changes and keeps reads going, retries, and
 * recovers by itself; a corrupt journal stops the start unless -i, which
 * keeps what it could read and sets the file aside. The failures are
 * injected through journal_set_syscalls(). */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "common/conf.h"
#include "common/job_states.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld_fixture.h"
#include "slurmctld/durable.h"
#include "slurmctld/job.h"
#include "slurmctld/job_sched.h"
#include "slurmctld/job_state.h"
#include "slurmctld/journal.h"
#include "slurmctld/node_state.h"

static int fail_errno; /* writev and fdatasync fail with it (0: they work) */

static ssize_t fail_writev(int fd, const struct iovec *iov, int n)
{
	if (fail_errno) {
		errno = fail_errno;
		return -1;
	}
	return writev(fd, iov, n);
}

static int fail_fdatasync(int fd)
{
	if (fail_errno) {
		errno = fail_errno;
		return -1;
	}
	return fdatasync(fd);
}

static const struct journal_syscalls failing = {
    .writev = fail_writev,
    .fdatasync = fail_fdatasync,
    .fsync = fsync,
    .ftruncate = ftruncate,
};

/* A fixture with an event loop and the journal in its directory. */
static struct ctld_fixture *start(bool ignore_state_errors, int want)
{
	struct ctld_fixture *f = fixture_new(NULL);

	f->c.base = event_base_new();
	assert_non_null(f->c.base);
	assert_int_equal(event_base_priority_init(f->c.base, 3), 0);
	f->c.ignore_state_errors = ignore_state_errors;
	assert_int_equal(durable_init(&f->c), want);
	return f;
}

/* Remove the state files, then the fixture. */
static void stop(struct ctld_fixture *f)
{
	char pattern[128];
	glob_t g;

	durable_fini(&f->c);
	event_base_free(f->c.base);
	snprintf(pattern, sizeof(pattern), "%s/*_*", f->dir);
	if (glob(pattern, 0, NULL, &g) == 0)
		for (size_t i = 0; i < g.gl_pathc; i++)
			unlink(g.gl_pathv[i]);
	globfree(&g);
	fixture_free(f);
}

static void run_turn(struct ctld_fixture *f)
{
	assert_true(event_base_loop(f->c.base, EVLOOP_NONBLOCK) >= 0); /* 1: nothing to run */
}

static int count_job(void *arg, const uint8_t *data, size_t len)
{
	uint32_t *n = arg;

	(void)len;
	*n += data[0] == JOURNAL_REC_JOB;
	return 0;
}

/* Job records in dir's job_journal, read as a restart would (each job is
 * one record after its submission's commit, or after a compaction). */
static uint32_t jobs_on_disk(const char *dir)
{
	struct journal *j = NULL;
	uint32_t n = 0;

	assert_int_equal(journal_open(dir, &j), 0);
	assert_int_equal(journal_replay(j, false, count_job, &n), 0);
	journal_free(j);
	return n;
}

static void test_a_full_disk_refuses_changes_serves_reads_and_recovers(void **state)
{
	struct ctld_fixture *f = start(false, 0);
	struct ctld *c = &f->c;

	(void)state;
	fixture_submit(f, fixture_desc());
	run_turn(f);
	assert_int_equal(c->state_save_err, 0);
	assert_int_equal(jobs_on_disk(f->dir), 1);

	journal_set_syscalls(durable_journal(c), &failing);
	fail_errno = ENOSPC;
	fixture_submit(f, fixture_desc()); /* in this turn's batch */
	run_turn(f);
	assert_int_equal(c->state_save_err, -ENOSPC);
	assert_int_equal(jobs_on_disk(f->dir), 1); /* nothing half-written either */

	/* what would add to the batch is refused; reads and pings go on */
	assert_int_equal(durable_admit(c, REQUEST_SUBMIT_BATCH_JOB), -ESLURM_WRITING_TO_FILE);
	assert_int_equal(durable_admit(c, REQUEST_RESOURCE_ALLOCATION), -ESLURM_WRITING_TO_FILE);
	assert_int_equal(durable_admit(c, REQUEST_KILL_JOB), -ESLURM_WRITING_TO_FILE);
	assert_int_equal(durable_admit(c, REQUEST_UPDATE_JOB), -ESLURM_WRITING_TO_FILE);
	assert_int_equal(durable_admit(c, REQUEST_UPDATE_NODE), -ESLURM_WRITING_TO_FILE);
	assert_int_equal(durable_admit(c, REQUEST_JOB_INFO), 0);
	assert_int_equal(durable_admit(c, REQUEST_NODE_INFO), 0);
	assert_int_equal(durable_admit(c, REQUEST_PARTITION_INFO), 0);
	assert_int_equal(durable_admit(c, REQUEST_PING), 0);
	/* a stepd's report gets an errno, which it retries (a code >= 2000 is final) */
	assert_int_equal(durable_admit(c, REQUEST_COMPLETE_BATCH_SCRIPT), -ENOSPC);
	assert_int_equal(durable_admit(c, REQUEST_STEP_COMPLETE), -ENOSPC);

	/* still full: the retry fails the same way */
	durable_commit_now(c);
	run_turn(f);
	assert_int_equal(c->state_save_err, -ENOSPC);

	fail_errno = 0; /* space is back: the next retry writes the held batch */
	durable_commit_now(c);
	run_turn(f);
	assert_int_equal(c->state_save_err, 0);
	assert_int_equal(durable_admit(c, REQUEST_SUBMIT_BATCH_JOB), 0);
	assert_int_equal(jobs_on_disk(f->dir), 2);
	stop(f);
}

static void test_eio_from_fdatasync_is_a_failure_too(void **state)
{
	struct ctld_fixture *f = start(false, 0);
	struct ctld *c = &f->c;

	(void)state;
	journal_set_syscalls(durable_journal(c), &failing);
	fail_errno = EIO;
	fixture_submit(f, fixture_desc());
	run_turn(f);
	assert_int_equal(c->state_save_err, -EIO);
	assert_int_equal(durable_admit(c, REQUEST_JOB_STEP_CREATE), -ESLURM_WRITING_TO_FILE);
	assert_int_equal(jobs_on_disk(f->dir), 0);
	fail_errno = 0;
	durable_commit_now(c);
	run_turn(f);
	assert_int_equal(c->state_save_err, 0);
	assert_int_equal(jobs_on_disk(f->dir), 1);
	stop(f);
}

/* The scheduler starts no batch job whose submission is not on disk: a
 * crash could make the controller forget a job already running. */
static void test_a_batch_job_starts_only_once_its_record_is_on_disk(void **state)
{
	struct ctld_fixture *f = start(false, 0);
	struct ctld *c = &f->c;
	struct job *job;

	(void)state;
	assert_int_equal(job_sched_init(c), 0);
	journal_set_syscalls(durable_journal(c), &failing);
	fail_errno = ENOSPC;
	job = fixture_submit(f, fixture_desc());
	assert_true(job->saved_seq > journal_committed_seq(durable_journal(c)));
	job_sched_pass(c);
	assert_true(job_is_pending(job));
	run_turn(f); /* the commit fails: still not on disk, still pending */
	assert_int_equal(c->state_save_err, -ENOSPC);
	job_sched_pass(c);
	assert_true(job_is_pending(job));
	assert_int_equal(fixture_count(f, REQUEST_BATCH_JOB_LAUNCH, job->job_id), 0);

	fail_errno = 0; /* the commit works: the pass it asks for starts the job */
	durable_commit_now(c);
	run_turn(f);
	run_turn(f);
	assert_int_equal(c->state_save_err, 0);
	assert_true(job_is_running(job));
	assert_int_equal(fixture_count(f, REQUEST_BATCH_JOB_LAUNCH, job->job_id), 1);
	job_sched_fini(c);
	stop(f);
}

/* A record that cannot be appended (here: over JOURNAL_REC_MAX) is not
 * ignored: the new job is marked never saved, and never starts. */
static void test_a_job_that_cannot_be_journaled_never_starts(void **state)
{
	struct ctld_fixture *f = start(false, 0);
	struct ctld *c = &f->c;
	struct job_desc *d = fixture_desc();
	struct job *job;

	(void)state;
	assert_int_equal(job_sched_init(c), 0);
	c->conf->max_script_size = UINT32_MAX; /* past the submit check's cap */
	free(d->script);
	d->script = malloc(JOURNAL_REC_MAX + 2);
	assert_non_null(d->script);
	memset(d->script, '#', JOURNAL_REC_MAX + 1);
	d->script[JOURNAL_REC_MAX + 1] = '\0';
	job = fixture_submit(f, d);
	assert_true(job->saved_seq == DURABLE_SEQ_NEVER);
	run_turn(f);
	run_turn(f);
	job_sched_pass(c);
	assert_true(job_is_pending(job));
	assert_int_equal(fixture_count(f, REQUEST_BATCH_JOB_LAUNCH, job->job_id), 0);
	assert_int_equal(jobs_on_disk(f->dir), 0);
	job_sched_fini(c);
	stop(f);
}

/* A job purged after MinJobAge is not brought back by a restart, though
 * its records are still in the log (a JOURNAL_REC_GONE follows them). */
static void test_a_purged_job_stays_gone_after_a_restart(void **state)
{
	struct ctld_fixture *f = start(false, 0);
	struct ctld *c = &f->c;
	struct job *a = fixture_submit(f, fixture_desc());
	uint32_t a_id = a->job_id, b_id = fixture_submit(f, fixture_desc())->job_id;

	(void)state;
	run_turn(f);
	a->state = JOB_COMPLETE;
	a->end_time = time(NULL) - 3600;
	a->acct_seq = 1;
	f->recorded_upto = 1; /* its accounting row is written */
	job_changed(c, a);
	run_turn(f);
	job_table_purge(c, time(NULL));
	assert_null(job_find(c, a_id));
	run_turn(f); /* the purge's record */
	assert_false(journal_has_pending(durable_journal(c)));

	durable_fini(c);
	job_table_free(c);
	fixture_hooks_reset(f); /* durable_init registers its hook again */
	assert_int_equal(durable_init(c), 0);
	assert_null(job_find(c, a_id));
	assert_non_null(job_find(c, b_id));
	assert_int_equal(jobs_on_disk(f->dir), 1); /* and the start's rewrite left it out */
	stop(f);
}

/* node_state cannot be saved (the directory is gone): the same refusal,
 * and the same event saves it once it can. */
static void test_a_failed_node_state_save_is_retried_until_it_works(void **state)
{
	struct ctld_fixture *f = start(false, 0);
	struct ctld *c = &f->c;
	char *saved = c->conf->state_save_location;
	char path[128];

	(void)state;
	c->conf->state_save_location = "/nonexistent/state";
	assert_int_equal(node_state_save(c), -ENOENT);
	assert_true(c->is_node_state_dirty);
	assert_int_equal(durable_admit(c, REQUEST_SUBMIT_BATCH_JOB), -ESLURM_WRITING_TO_FILE);
	durable_commit_now(c);
	run_turn(f);
	assert_true(c->is_node_state_dirty);
	c->conf->state_save_location = saved;
	durable_commit_now(c);
	run_turn(f);
	assert_false(c->is_node_state_dirty);
	assert_int_equal(c->state_save_err, 0);
	snprintf(path, sizeof(path), "%s/%s", f->dir, NODE_STATE_FILE);
	assert_int_equal(access(path, F_OK), 0);
	stop(f);
}

/* Three jobs committed, then a byte of the second job's record flipped;
 * path gets the journal's path. */
static void corrupt_second_job(struct ctld_fixture *f, char *path, size_t len)
{
	struct stat st;
	uint8_t *bytes;
	FILE *fp;
	size_t second = 0;

	for (int i = 0; i < 3; i++)
		fixture_submit(f, fixture_desc());
	run_turn(f);
	durable_fini(&f->c);
	snprintf(path, len, "%s/%s", f->dir, JOURNAL_FILE);
	assert_int_equal(stat(path, &st), 0);
	bytes = malloc((size_t)st.st_size);
	assert_non_null(bytes);
	fp = fopen(path, "r+b");
	assert_non_null(fp);
	assert_int_equal(fread(bytes, 1, (size_t)st.st_size, fp), (size_t)st.st_size);
	/* walk the records (u32 length, u32 CRC, body) to the second job's */
	for (int jobs = 0;;) {
		uint32_t rec_len = (uint32_t)bytes[second] << 24 | (uint32_t)bytes[second + 1] << 16
				   | (uint32_t)bytes[second + 2] << 8 | bytes[second + 3];

		assert_true(second + JOURNAL_HDR_LEN + rec_len <= (size_t)st.st_size);
		if (bytes[second + JOURNAL_HDR_LEN] == 1 && ++jobs == 2)
			break;
		second += JOURNAL_HDR_LEN + rec_len;
	}
	bytes[second + JOURNAL_HDR_LEN + 20] ^= 0x01;
	rewind(fp);
	assert_int_equal(fwrite(bytes, 1, (size_t)st.st_size, fp), (size_t)st.st_size);
	fclose(fp);
	free(bytes);
}

static void test_a_corrupt_journal_stops_the_start_and_is_left_alone(void **state)
{
	struct ctld_fixture *f = start(false, 0);
	char path[128];
	struct stat before, after;

	(void)state;
	corrupt_second_job(f, path, sizeof(path));
	assert_int_equal(stat(path, &before), 0);
	job_table_free(&f->c);
	fixture_hooks_reset(f); /* durable_init registers its hook again */
	assert_int_equal(durable_init(&f->c), -EBADMSG);
	assert_int_equal(stat(path, &after), 0);
	assert_int_equal(after.st_size, before.st_size);
	stop(f);
}

static void test_with_i_a_corrupt_journal_is_set_aside_and_the_rest_recovered(void **state)
{
	struct ctld_fixture *f = start(false, 0);
	char path[128], pattern[160];
	glob_t g;

	(void)state;
	corrupt_second_job(f, path, sizeof(path));
	job_table_free(&f->c);
	fixture_hooks_reset(f);
	f->c.ignore_state_errors = true;
	assert_int_equal(durable_init(&f->c), 0);
	assert_int_equal(f->c.job_count, 1); /* the job before the damage */
	snprintf(pattern, sizeof(pattern), "%s/%s.bad.*", f->dir, JOURNAL_FILE);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 1);
	globfree(&g);
	assert_int_equal(jobs_on_disk(f->dir), 1); /* the new log holds what was recovered */
	/* ids are never reused: the next job is past the ids seen in the
	 * unreadable part too (jobs 2 and 3) */
	assert_int_equal(fixture_submit(f, fixture_desc())->job_id, 4);
	stop(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_a_full_disk_refuses_changes_serves_reads_and_recovers),
	    cmocka_unit_test(test_eio_from_fdatasync_is_a_failure_too),
	    cmocka_unit_test(test_a_batch_job_starts_only_once_its_record_is_on_disk),
	    cmocka_unit_test(test_a_job_that_cannot_be_journaled_never_starts),
	    cmocka_unit_test(test_a_purged_job_stays_gone_after_a_restart),
	    cmocka_unit_test(test_a_failed_node_state_save_is_retried_until_it_works),
	    cmocka_unit_test(test_a_corrupt_journal_stops_the_start_and_is_left_alone),
	    cmocka_unit_test(test_with_i_a_corrupt_journal_is_set_aside_and_the_rest_recovered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
