/* test_squeue_fmt.c - squeue's text for the reference jobs, byte for byte.
 *
 * The records equal the jobs behind tests/reference/squeue*.txt
 * (ids 11198-11211 at 2026-12-02 08:52:12, times in UTC): a job past its
 * 1-minute limit, an array 11209 with tasks 1-2 running and 3-20 pending
 * under a %2 throttle, two held jobs, three pending GPU jobs and their
 * running blocker. The controller lists them by job id; 11208 keeps the
 * expected start the backfill planned before it was held, which is what
 * puts it before 11207 in Slurm's start-time pre-sort.
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

#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/squeue_cell.h"
#include "cli/squeue_fmt.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"

static time_t utc(int h, int mi, int s)
{
	struct tm tm = {
	    .tm_year = 126, .tm_mon = 11, .tm_mday = 2, .tm_hour = h, .tm_min = mi, .tm_sec = s};

	return timegm(&tm);
}

#define PRIO(n) (4294895600u + (n))

static struct job_info job(uint32_t id, const char *part, const char *name, uint32_t state,
			   uint32_t prio, uint32_t limit)
{
	return (struct job_info){
	    .job_id = id,
	    .array_task_id = NO_VAL,
	    .name = (char *)name,
	    .user_name = "root",
	    .partition = (char *)part,
	    .job_state = state,
	    .priority = prio,
	    .nice = NICE_OFFSET,
	    .time_limit = limit,
	    .num_nodes = 1,
	    .num_cpus = 1,
	    .batch_flag = 1,
	    .submit_time = utc(8, 52, 5),
	};
}

static struct job_info running(struct job_info j, const char *nodes, time_t start)
{
	j.nodes = (char *)nodes;
	j.start_time = start;
	return j;
}

static struct job_info pending(struct job_info j, enum job_state_reason why)
{
	j.state_reason = (uint16_t)why;
	return j;
}

static struct job_info task(uint32_t id, uint32_t task_id)
{
	struct job_info j =
	    running(job(id, "cpu-queue", "arr", JOB_RUNNING, PRIO(36), 1440), "n1", utc(8, 52, 6));

	j.array_job_id = 11209;
	j.array_task_id = task_id;
	return j;
}

/* The active jobs, in the controller's (job id) order. */
static struct job_info jobs[12];
static struct job_info_msg msg = {.jobs = jobs};

static void reference_jobs(void)
{
	size_t n = 0;
	struct job_info j;

	jobs[n++] = running(job(11198, "cpu-queue", "timeout_job", JOB_RUNNING, PRIO(46), 1), "n1",
			    utc(8, 52, 2));
	j = running(job(11203, "gpu-queue", "blocker", JOB_RUNNING, PRIO(41), 10), "g[1-2]",
		    utc(8, 52, 5));
	j.num_nodes = 2;
	jobs[n++] = j;
	j = pending(job(11204, "gpu-queue", "wants_res", JOB_PENDING, PRIO(40), 5), WAIT_RESOURCES);
	j.num_nodes = 2;
	j.start_time = utc(9, 2, 5);
	jobs[n++] = j;
	j = pending(job(11205, "gpu-queue", "wants_pri", JOB_PENDING, PRIO(39), 5), WAIT_PRIORITY);
	j.start_time = utc(9, 7, 0);
	jobs[n++] = j;
	jobs[n++] = pending(job(11206, "gpu-queue", "wants_dep", JOB_PENDING, PRIO(38), 1440),
			    WAIT_DEPENDENCY);
	jobs[n++] =
	    pending(job(11207, "cpu-queue", "held_user", JOB_PENDING, 0, 1440), WAIT_HELD_USER);
	j = pending(job(11208, "cpu-queue", "held_admin", JOB_PENDING, 0, 1440), WAIT_HELD);
	j.start_time = utc(9, 12, 0);
	jobs[n++] = j;
	j = pending(job(11209, "cpu-queue", "arr", JOB_PENDING, PRIO(36), 1440),
		    WAIT_ARRAY_TASK_LIMIT);
	j.array_job_id = 11209;
	j.array_task_str = "3-20";
	j.array_max_tasks = 2;
	jobs[n++] = j;
	jobs[n++] = task(11210, 1);
	jobs[n++] = task(11211, 2);
	msg.count = (uint32_t)n;
}

static char *render(const struct squeue_opts *o, const struct job_info_msg *m, int want_r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_int_equal(squeue_print(out, o, m), want_r);
	fclose(out);
	return buf;
}

static void check(const struct squeue_opts *o, const char *want)
{
	char *got = render(o, &msg, 0);

	assert_string_equal(got, want);
	free(got);
}

static const struct squeue_opts base = {.now = 0};

static struct squeue_opts at_now(void)
{
	struct squeue_opts o = base;

	o.now = utc(8, 52, 12);
	return o;
}

static void test_default_view_matches_squeue_txt(void **state)
{
	struct squeue_opts o = at_now();

	(void)state;
	check(
	    &o,
	    "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
	    "    11209_[3-20%2] cpu-queue      arr     root PD       0:00      1 "
	    "(JobArrayTaskLimit)\n"
	    "             11208 cpu-queue held_adm     root PD       0:00      1 (JobHeldAdmin)\n"
	    "             11207 cpu-queue held_use     root PD       0:00      1 (JobHeldUser)\n"
	    "             11198 cpu-queue timeout_     root  R       0:10      1 n1\n"
	    "           11209_1 cpu-queue      arr     root  R       0:06      1 n1\n"
	    "           11209_2 cpu-queue      arr     root  R       0:06      1 n1\n"
	    "             11204 gpu-queue wants_re     root PD       0:00      2 (Resources)\n"
	    "             11205 gpu-queue wants_pr     root PD       0:00      1 (Priority)\n"
	    "             11206 gpu-queue wants_de     root PD       0:00      1 (Dependency)\n"
	    "             11203 gpu-queue  blocker     root  R       0:07      2 g[1-2]\n");
}

static void test_long_view_matches_squeue_l_txt(void **state)
{
	struct squeue_opts o = at_now();
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	o.long_flag = true;
	check(&o, "             JOBID PARTITION     NAME     USER    STATE       TIME TIME_LIMI  "
		  "NODES NODELIST(REASON)\n"
		  "    11209_[3-20%2] cpu-queue      arr     root  PENDING       0:00 1-00:00:00   "
		  "   1 (JobArrayTaskLimit)\n"
		  "             11208 cpu-queue held_adm     root  PENDING       0:00 1-00:00:00   "
		  "   1 (JobHeldAdmin)\n"
		  "             11207 cpu-queue held_use     root  PENDING       0:00 1-00:00:00   "
		  "   1 (JobHeldUser)\n"
		  "             11198 cpu-queue timeout_     root  RUNNING       0:10      1:00    "
		  "  1 n1\n"
		  "           11209_1 cpu-queue      arr     root  RUNNING       0:06 1-00:00:00   "
		  "   1 n1\n"
		  "           11209_2 cpu-queue      arr     root  RUNNING       0:06 1-00:00:00   "
		  "   1 n1\n"
		  "             11204 gpu-queue wants_re     root  PENDING       0:00      5:00    "
		  "  2 (Resources)\n"
		  "             11205 gpu-queue wants_pr     root  PENDING       0:00      5:00    "
		  "  1 (Priority)\n"
		  "             11206 gpu-queue wants_de     root  PENDING       0:00 1-00:00:00   "
		  "   1 (Dependency)\n"
		  "             11203 gpu-queue  blocker     root  RUNNING       0:07     10:00    "
		  "  2 g[1-2]\n");
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	fmt_print_date(out, o.now);
	fclose(out);
	assert_string_equal(buf, "Wed Dec 02 08:52:12 2026\n");
	free(buf);
}

static void test_format_it_matches_squeue_o_it_txt(void **state)
{
	struct squeue_opts o = at_now();

	(void)state;
	o.format = "%i %t";
	check(&o, "JOBID ST\n11209_[3-20%2] PD\n11208 PD\n11207 PD\n11198 R\n11209_1 R\n"
		  "11209_2 R\n11204 PD\n11205 PD\n11206 PD\n11203 R\n");
}

/* squeue -u alice: a known user without jobs; an unknown one ends the
 * same (Slurm reports it and filters with an empty list). */
static void test_user_without_jobs_prints_only_the_header(void **state)
{
	struct squeue_opts o = at_now();
	uint32_t alice = 1234;

	(void)state;
	o.has_users = true;
	o.users = &alice;
	o.n_users = 1;
	check(&o, "             JOBID PARTITION     NAME     USER ST       TIME  NODES "
		  "NODELIST(REASON)\n");
	o.n_users = 0;
	check(&o, "             JOBID PARTITION     NAME     USER ST       TIME  NODES "
		  "NODELIST(REASON)\n");
}

/* squeue -j 11201 after it completed: still known, not an active state. */
static void test_finished_job_is_not_shown_by_default(void **state)
{
	struct job_info done = job(11201, "cpu-queue", "ok_job", JOB_COMPLETE, PRIO(43), 1440);
	struct job_info_msg m = {.count = 1, .jobs = &done};
	struct squeue_job_id id = {11201, NO_VAL};
	struct squeue_opts o = at_now();
	char *got;

	(void)state;
	o.jobs = &id;
	o.n_jobs = 1;
	got = render(&o, &m, 0);
	assert_string_equal(got, "             JOBID PARTITION     NAME     USER ST       TIME  "
				 "NODES NODELIST(REASON)\n");
	free(got);
	o.all_states = true;
	o.format = "%i %T";
	got = render(&o, &m, 0);
	assert_string_equal(got, "JOBID STATE\n11201 COMPLETED\n");
	free(got);
}

static void test_reason_column_and_release(void **state)
{
	struct job_info j[3] = {
	    pending(job(11217, "gpu-queue", "bad1", JOB_PENDING, PRIO(20), 1440), WAIT_PART_CONFIG),
	    pending(job(11219, "gpu-queue", "bad2", JOB_PENDING, PRIO(18), 1440), WAIT_PART_CONFIG),
	    pending(job(11221, "gpu-queue", "ok", JOB_PENDING, PRIO(16), 1440), WAIT_PRIORITY),
	};
	struct job_info_msg m = {.count = 3, .jobs = j};
	struct squeue_job_id ids[3] = {{11217, NO_VAL}, {11219, NO_VAL}, {11221, NO_VAL}};
	struct squeue_opts o = at_now();
	char *got;

	(void)state;
	o.jobs = ids;
	o.n_jobs = 3;
	o.format = "%i %t %r";
	got = render(&o, &m, 0);
	assert_string_equal(got, "JOBID ST REASON\n11217 PD PartitionConfig\n"
				 "11219 PD PartitionConfig\n11221 PD Priority\n");
	free(got);
	/* scontrol release 11207 11208: priority back, reason None */
	reference_jobs();
	jobs[5].priority = PRIO(35), jobs[5].state_reason = WAIT_NO_REASON;
	jobs[6].priority = PRIO(34), jobs[6].state_reason = WAIT_NO_REASON;
	ids[0].job_id = 11207, ids[1].job_id = 11208;
	o.n_jobs = 2;
	got = render(&o, &msg, 0);
	assert_string_equal(got, "JOBID ST REASON\n11207 PD None\n11208 PD None\n");
	free(got);
}

static void test_array_flag_prints_one_line_per_task(void **state)
{
	struct squeue_opts o = at_now();
	struct squeue_job_id id = {11209, NO_VAL};
	char *got;

	(void)state;
	o.array_flag = true;
	o.no_header = true;
	o.format = "%i %K %F %A";
	o.jobs = &id;
	o.n_jobs = 1;
	jobs[7].array_task_str = "3-5,20";
	got = render(&o, &msg, 0);
	assert_string_equal(got, "11209_3 3 11209 11209\n11209_4 4 11209 11209\n"
				 "11209_5 5 11209 11209\n11209_20 20 11209 11209\n"
				 "11209_1 1 11209 11210\n11209_2 2 11209 11211\n");
	free(got);
	jobs[7].array_task_str = "3-20";
}

static void test_job_task_id_narrows_the_meta_record(void **state)
{
	struct squeue_opts o = at_now();
	struct squeue_job_id ids[3] = {{11209, 5}, {11209, 7}, {11209, 1}};
	char *got;

	(void)state;
	o.no_header = true;
	o.format = "%i|%r";
	o.jobs = ids;
	o.n_jobs = 1;
	got = render(&o, &msg, 0);
	assert_string_equal(got, "11209_5|JobArrayTaskLimit\n");
	free(got);
	o.n_jobs = 3;
	got = render(&o, &msg, 0);
	assert_string_equal(got, "11209_[5,7%2]|JobArrayTaskLimit\n11209_1|None\n");
	free(got);
}

/* A pending task split off (say requeued) folds back into the meta record,
 * with both reasons. */
static void test_split_pending_task_folds_into_meta(void **state)
{
	struct squeue_opts o = at_now();
	struct job_info split = task(11230, 21);
	char *got;

	(void)state;
	reference_jobs();
	split.job_state = JOB_PENDING;
	split.state_reason = WAIT_PRIORITY;
	jobs[msg.count++] = split;
	o.no_header = true;
	o.format = "%i %R";
	o.partitions = "cpu-queue";
	o.states = (uint32_t[]){JOB_PENDING};
	o.n_states = 1;
	got = render(&o, &msg, 0);
	assert_string_equal(got, "11209_[3-21%2] (JobArrayTaskLimit,Priority)\n"
				 "11208 (JobHeldAdmin)\n11207 (JobHeldUser)\n");
	free(got);
	msg.count--;
}

static void test_sort_keys_and_bad_key(void **state)
{
	struct squeue_opts o = at_now();
	char *got;

	(void)state;
	o.no_header = true;
	o.format = "%i";
	o.sort = "-i";
	o.nodes = "g2";
	got = render(&o, &msg, 0);
	assert_string_equal(got, "11203\n");
	free(got);
	o.nodes = NULL;
	o.sort = "D,-M";
	o.names = "ARR,blocker";
	got = render(&o, &msg, 0);
	assert_string_equal(got, "11209_1\n11209_2\n11209_[3-20%2]\n11203\n");
	free(got);
	o.sort = "P,k";
	o.no_header = false;
	got = render(&o, &msg, -EINVAL);
	assert_string_equal(got, "JOBID\n"); /* Slurm fails after the header */
	free(got);
}

/* Keys computed once a record (t, p, S) mixed with keys compared as they
 * are (j, P, u): each expected order is the one comparing every key of
 * both records in every comparison gives. */
static void test_sort_mixing_keys_computed_once_and_compared_each_time(void **state)
{
	struct squeue_opts o = at_now();
	static const struct {
		const char *spec, *want;
	} cases[] = {
	    {"t,j,-p",
	     "11209_[3-20%2]\n11208\n11207\n11206\n11205\n11204\n11209_1\n11209_2\n11203\n11198\n"},
	    {"-j,t,S",
	     "11204\n11205\n11206\n11198\n11207\n11208\n11203\n11209_[3-20%2]\n11209_1\n11209_2\n"},
	    {"P,-t,u,-p",
	     "11198\n11209_1\n11209_2\n11209_[3-20%2]\n11208\n11207\n11203\n11204\n11205\n11206\n"},
	    {"u,-S,t",
	     "11208\n11205\n11204\n11206\n11207\n11209_[3-20%2]\n11209_1\n11209_2\n11203\n11198\n"},
	    {"-p,j,i",
	     "11198\n11203\n11204\n11205\n11206\n11209_1\n11209_2\n11209_[3-20%2]\n11208\n11207\n"},
	};
	char *got;

	(void)state;
	o.no_header = true;
	o.format = "%i";
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		o.sort = cases[i].spec;
		got = render(&o, &msg, 0);
		assert_string_equal(got, cases[i].want);
		free(got);
	}
}

/* What squeue asks the controller for (squeue_pick_states) holds every
 * job its own -t filter keeps, for every state and flag, so filtering
 * before packing changes nothing it shows; and without -t the finished
 * jobs are not asked for. */
static void test_the_states_asked_for_hold_every_job_the_filter_keeps(void **state)
{
	static const uint32_t flags[] = {0, JOB_COMPLETING, JOB_STAGE_OUT, JOB_CONFIGURING,
					 JOB_REQUEUE_HOLD, JOB_COMPLETING | JOB_SPECIAL_EXIT};
	static uint32_t lists[][3] = {
	    {JOB_RUNNING},
	    {JOB_PENDING, JOB_RUNNING},
	    {JOB_COMPLETING},
	    {JOB_COMPLETE, JOB_COMPLETING, JOB_FAILED},
	    {JOB_CONFIGURING, JOB_TIMEOUT},
	};
	static const size_t counts[] = {1, 2, 1, 3, 2};
	struct squeue_opts o = at_now();
	uint32_t bases, fl;
	size_t asked = 0;

	(void)state;
	for (int l = -2; l < (int)ARRAY_SIZE(lists); l++) {
		o.all_states = l == -2;
		o.states = l >= 0 ? lists[l] : NULL;
		o.n_states = l >= 0 ? counts[l] : 0;
		squeue_pick_states(&o, &bases, &fl);
		assert_int_equal(o.all_states, !bases && !fl);
		for (uint32_t b = 0; b < _JOB_STATE_BASE_MAX; b++) {
			for (size_t f = 0; f < ARRAY_SIZE(flags); f++) {
				struct job_info j = {.job_id = 7, .job_state = b | flags[f]};
				bool is_asked = (!bases && !fl) || (bases & (1u << b))
						|| (j.job_state & fl);

				if (squeue_job_keep(&o, NULL, &j))
					assert_true(is_asked);
				asked += is_asked;
			}
		}
	}
	/* the default (l == -1) leaves out a finished job */
	o.all_states = false;
	o.states = NULL;
	o.n_states = 0;
	squeue_pick_states(&o, &bases, &fl);
	assert_false(bases & (1u << JOB_COMPLETE));
	assert_false(fl & JOB_REQUEUE_HOLD);
	assert_true(asked < (ARRAY_SIZE(lists) + 2) * _JOB_STATE_BASE_MAX * ARRAY_SIZE(flags));
}

static void test_long_format_names_and_widths(void **state)
{
	struct squeue_opts o = at_now();
	struct squeue_job_id id = {11203, NO_VAL};
	char *got;

	(void)state;
	o.format_long = "JobID:8,Name:.10,StateCompact,NodeList:3|,bogus:4x";
	o.jobs = &id;
	o.n_jobs = 1;
	got = render(&o, &msg, 0);
	assert_string_equal(got, "JOBID         NAMEST                  NOD|x\n"
				 "11203      blockerR                   g[1|x\n");
	free(got);
	o.format_long = NULL;
	o.format = "x%5j|%.3P|%10E|%.4v|%3v|%Z";
	got = render(&o, &msg, 0);
	assert_string_equal(got, "xNAME |PAR|DEPENDENCY|RESE|RES|WORK_DIR\n"
				 "xblock|gpu|(null)    |(nul|   |(null)\n");
	free(got);
}

static void test_task_sets_round_trip(void **state)
{
	uint32_t *v = NULL;
	size_t n = 0;
	char *s;

	(void)state;
	assert_int_equal(fmt_idset_parse("7,1-3,5-9:2", &v, &n), 0);
	assert_int_equal(n, 7);
	s = fmt_idset_format(v, n);
	assert_string_equal(s, "1-3,5,7,9");
	free(s);
	free(v);
	assert_int_equal(fmt_idset_parse("3-x", &v, &n), -EINVAL);
	assert_int_equal(fmt_idset_parse("9-3", &v, &n), -EINVAL);
	assert_int_equal(fmt_idset_parse("0-99999999", &v, &n), -EINVAL);
}

/* ---- the step view (squeue -s) ---- */

/* The controller's order: a batch step, an array task's step, a running
 * step and a pending one (never shown). Now is 13:05:01. */
static struct step_info steps[4];
static struct step_info_msg step_msg = {.steps = steps, .count = 4};

static struct step_info step(uint32_t job, uint32_t id, const char *name, const char *part,
			     const char *nodes, time_t start)
{
	return (struct step_info){.job_id = job,
				  .step_id = id,
				  .array_task_id = NO_VAL,
				  .name = (char *)name,
				  .partition = (char *)part,
				  .nodes = (char *)nodes,
				  .user_id = 0,
				  .state = JOB_RUNNING,
				  .start_time = start,
				  .time_limit = INFINITE,
				  .num_nodes = 1,
				  .num_cpus = 1,
				  .num_tasks = 1};
}

static void reference_steps(void)
{
	steps[0] = step(12, SL_BATCH_STEP, "batch", "debug", "n1", utc(12, 59, 0));
	steps[1] = step(15, 1, "sleep", "cpu", "n3", utc(13, 4, 0));
	steps[1].array_job_id = 14;
	steps[1].array_task_id = 3;
	steps[1].time_limit = 10;
	steps[2] = step(12, 0, "hostname", "debug", "n1,n2", utc(13, 0, 0));
	steps[2].num_tasks = 4;
	steps[2].num_cpus = 4;
	steps[3] = step(13, 0, "pend", "debug", NULL, 0);
	steps[3].state = JOB_PENDING;
}

static struct squeue_opts step_now(void)
{
	struct squeue_opts o = base;

	o.step_flag = true;
	o.now = utc(13, 5, 1);
	return o;
}

static void check_steps(const struct squeue_opts *o, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_int_equal(squeue_print_steps(out, o, &step_msg), 0);
	fclose(out);
	assert_string_equal(buf, want);
	free(buf);
}

static void test_steps_default_view(void **state)
{
	struct squeue_opts o = step_now();

	(void)state;
	reference_steps();
	check_steps(&o, "         STEPID     NAME PARTITION     USER      TIME NODELIST\n"
			"         14_3.1    sleep       cpu     root      1:01 n3\n"
			"           12.0 hostname     debug     root      5:01 n[1-2]\n"
			"       12.batch    batch     debug     root      6:01 n1\n");
	o.no_header = true;
	o.sort = "-i";
	check_steps(&o, "         14_3.1    sleep       cpu     root      1:01 n3\n"
			"       12.batch    batch     debug     root      6:01 n1\n"
			"           12.0 hostname     debug     root      5:01 n[1-2]\n");
}

static void test_steps_filters(void **state)
{
	static const struct squeue_step_id want[] = {{12, NO_VAL, 0}, {14, 3, 1}, {14, 4, 1}};
	static const struct squeue_job_id jobs14[] = {{14, NO_VAL}};
	static const uint32_t nobody[] = {65534};
	struct squeue_opts o = step_now();

	(void)state;
	reference_steps();
	o.format = "%i";
	o.no_header = true;
	o.steps = want;
	o.n_steps = 3;
	check_steps(&o, "14_3.1\n12.0\n");
	o.steps = NULL;
	o.jobs = jobs14;
	o.n_jobs = 1;
	check_steps(&o, "14_3.1\n");
	o.jobs = NULL;
	o.partitions = "debug";
	o.nodes = "n2";
	check_steps(&o, "12.0\n");
	o.partitions = NULL;
	o.nodes = NULL;
	o.has_users = true;
	o.users = nobody;
	o.n_users = 1;
	check_steps(&o, "");
}

static void test_steps_other_letters(void **state)
{
	struct squeue_opts o = step_now();
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	reference_steps();
	o.format = "%.6i|%A|%.10l|%S|%U|%b|%t|%.6j";
	check_steps(&o, "STEPID|TASKS|TIME_LIMIT|START_TIME|UID|TRES_PER_JOB||  NAME\n"
			"14_3.1|1|     10:00|2026-12-02T13:04:00|0|(null)|| sleep\n"
			"  12.0|4| UNLIMITED|2026-12-02T13:00:00|0|(null)||hostna\n"
			"12.bat|1| UNLIMITED|2026-12-02T12:59:00|0|(null)|| batch\n");
	o.format = NULL;
	o.format_long = "StepId:8,NumCPUs:.4,StepState:9,ArrayJobId:6,ArrayTaskId:5,Nodes";
	o.sort = "S";
	/* ArrayJobId is 0 for a step of a plain job, as Slurm prints it */
	check_steps(&o, "STEPID  NUM_STATE    ARRAY_ARRAYNODELIST            \n"
			"12.batch   1RUNNING  0     N/A  n1                  \n"
			"12.0       4RUNNING  0     N/A  n[1-2]              \n"
			"14_3.1     1RUNNING  14    3    n3                  \n");
	/* an unknown name is reported on stderr and prints nothing */
	o.format_long = "StepId:5,Bogus:3";
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	assert_int_equal(squeue_print_steps(out, &o, &step_msg), 0);
	fclose(out);
	assert_string_equal(buf, "STEPI\n12.ba\n12.0 \n14_3.\n");
	free(buf);
}

/* Every string of a record set, so that a field reading one a brief
 * record leaves out prints differently from it. */
static struct job_info every_string(struct job_info j)
{
	char **strs[] = {&j.reason_detail, &j.dependency,    &j.alloc_node,	&j.req_nodes,
			 &j.exc_nodes,	   &j.batch_host,    &j.tres_req_str,	&j.tres_alloc_str,
			 &j.features,	   &j.licenses,	     &j.network,	&j.command,
			 &j.work_dir,	   &j.std_err,	     &j.std_in,		&j.std_out,
			 &j.comment,	   &j.tres_per_node, &j.mail_user,	&j.cpus_per_node,
			 &j.gres_detail,   &j.nodes,	     &j.sched_nodes,	&j.account,
			 &j.qos,	   &j.state_desc};

	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		if (!*strs[i])
			*strs[i] = "x1";
	return j;
}

/* squeue asks for brief records (JOB_SHOW_BRIEF) only when what it
 * prints and sorts on is all in one: every field it calls brief prints
 * the same from a brief record as from the full one, for every job. */
static void test_brief_fields_print_the_same_from_a_brief_record(void **state)
{
	struct job_info full[ARRAY_SIZE(jobs)], brief[ARRAY_SIZE(jobs)];
	struct job_info_msg fm = {.jobs = full, .count = msg.count};
	struct job_info_msg bm = {.jobs = brief, .count = msg.count};
	size_t n_brief = 0, n_full = 0;
	const char *name;

	(void)state;
	for (uint32_t i = 0; i < msg.count; i++) {
		full[i] = brief[i] = every_string(jobs[i]);
		job_info_brief(&brief[i]);
	}
	for (size_t i = 0; (name = squeue_field_name(i)); i++) {
		struct squeue_opts o = at_now();
		char *a, *b;

		o.format_long = name;
		o.array_flag = true; /* no folding: every record prints */
		if (!squeue_wants_brief(&o)) {
			n_full++;
			continue;
		}
		n_brief++;
		a = render(&o, &fm, 0);
		b = render(&o, &bm, 0);
		if (strcmp(a, b) != 0)
			fail_msg("-O %s is called brief but prints differently from a brief record:"
				 "\n%s---\n%s", name, a, b);
		free(a);
		free(b);
	}
	assert_true(n_brief > 40 && n_full > 10);
	/* the formats squeue prints by default are brief; a sort on B is not */
	{
		struct squeue_opts o = at_now();

		assert_true(squeue_wants_brief(&o));
		o.long_flag = true;
		assert_true(squeue_wants_brief(&o));
		o.start_flag = true;
		assert_true(squeue_wants_brief(&o));
		o.sort = "B";
		assert_false(squeue_wants_brief(&o));
		o.sort = NULL;
		o.format = "%i %Z";
		assert_false(squeue_wants_brief(&o));
	}
}

/* What Slurm's _print_secs formats print for v seconds. */
static void secs_by_printf(long v, char *buf, size_t n)
{
	if (v < 0 || v > 365L * 24 * 3600)
		snprintf(buf, n, "INVALID");
	else if (v >= 86400)
		snprintf(buf, n, "%ld-%2.2ld:%2.2ld:%2.2ld", v / 86400, v / 3600 % 24, v / 60 % 60,
			 v % 60);
	else if (v >= 3600)
		snprintf(buf, n, "%ld:%2.2ld:%2.2ld", v / 3600, v / 60 % 60, v % 60);
	else
		snprintf(buf, n, "%ld:%2.2ld", v / 60 % 60, v % 60);
}

/* The hand-written number and time cells print what the formats they
 * replace print. */
static void test_number_and_time_cells_match_printf(void **state)
{
	static const long edges[] = {-1,    0,	   1,	   59,	   60,	    61,	     599,
				     600,   3599,  3600,   3601,   35999,   36000,   86399,
				     86400, 86401, 90061,  863999, 864000,  31535999, 31536000,
				     31536001};
	static const long long ints[] = {0, 1, -1, 9, 10, 4294967295LL, -2147483648LL,
					 2147483647LL, 65535, 1000000};
	char want[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(edges) + 60000; i++) {
		long v = i < ARRAY_SIZE(edges) ? edges[i] : (long)(i - ARRAY_SIZE(edges)) * 523;
		struct cell c = {.cut = true};

		secs_by_printf(v, want, sizeof(want));
		assert_string_equal(squeue_secs_str(v, &c), want);
	}
	for (size_t i = 0; i < ARRAY_SIZE(ints); i++) {
		struct cell c = {.cut = true};

		snprintf(want, sizeof(want), "%lld", ints[i]);
		assert_string_equal(squeue_cell_int(&c, ints[i]), want);
	}
}

static int setup(void **state)
{
	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	reference_jobs();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_default_view_matches_squeue_txt, setup),
	    cmocka_unit_test_setup(test_long_view_matches_squeue_l_txt, setup),
	    cmocka_unit_test_setup(test_format_it_matches_squeue_o_it_txt, setup),
	    cmocka_unit_test_setup(test_user_without_jobs_prints_only_the_header, setup),
	    cmocka_unit_test_setup(test_finished_job_is_not_shown_by_default, setup),
	    cmocka_unit_test_setup(test_reason_column_and_release, setup),
	    cmocka_unit_test_setup(test_array_flag_prints_one_line_per_task, setup),
	    cmocka_unit_test_setup(test_job_task_id_narrows_the_meta_record, setup),
	    cmocka_unit_test_setup(test_split_pending_task_folds_into_meta, setup),
	    cmocka_unit_test_setup(test_sort_keys_and_bad_key, setup),
	    cmocka_unit_test_setup(test_sort_mixing_keys_computed_once_and_compared_each_time,
				   setup),
	    cmocka_unit_test_setup(test_the_states_asked_for_hold_every_job_the_filter_keeps,
				   setup),
	    cmocka_unit_test_setup(test_long_format_names_and_widths, setup),
	    cmocka_unit_test_setup(test_task_sets_round_trip, setup),
	    cmocka_unit_test_setup(test_steps_default_view, setup),
	    cmocka_unit_test_setup(test_steps_filters, setup),
	    cmocka_unit_test_setup(test_steps_other_letters, setup),
	    cmocka_unit_test_setup(test_brief_fields_print_the_same_from_a_brief_record, setup),
	    cmocka_unit_test_setup(test_number_and_time_cells_match_printf, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
