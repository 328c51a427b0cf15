/* test_job_depend.c - --dependency grammar, evaluation against a fake job
 * table for every type, ',' versus '?', arrays, singleton, rendering.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/errprintf.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/sl_errno.h"
#include "slurmctld/job_depend.h"

/* ---- parsing ---- */

static const struct {
	const char *in;
	const char *shown; /* job_depend_format() right after parsing */
	uint32_t n;
} good[] = {
    {"12", "afterany:12(unfulfilled)", 1},
    {"12_*", "afterany:12_*(unfulfilled)", 1},
    {"afterok:12", "afterok:12(unfulfilled)", 1},
    {"AfterOK:7", "afterok:7(unfulfilled)", 1},
    {"afterok:12:13", "afterok:12(unfulfilled),afterok:13(unfulfilled)", 2},
    {"after:12+5", "after:12+5(unfulfilled)", 1},
    {"after:12_3+1:14", "after:12_3+1(unfulfilled),after:14(unfulfilled)", 2},
    {"afterany:12_3", "afterany:12_3(unfulfilled)", 1},
    {"afterok:12_*,afterany:13", "afterok:12_*(unfulfilled),afterany:13(unfulfilled)", 2},
    {"afternotok:4", "afternotok:4(unfulfilled)", 1},
    {"aftercorr:4", "aftercorr:4(unfulfilled)", 1},
    {"afterburstbuffer:4", "afterburstbuffer:4(unfulfilled)", 1},
    {"singleton", "singleton(unfulfilled)", 1},
    {"SINGLETON,afterok:3", "singleton(unfulfilled),afterok:3(unfulfilled)", 2},
    {"afterok:1?afternotok:2", "afterok:1(unfulfilled)?afternotok:2(unfulfilled)", 2},
    {"afterok:4294967293", "afterok:4294967293(unfulfilled)", 1},
};

static void test_parse_good(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		struct job_depend *d = NULL;
		struct sl_error err = {""};
		char *s = NULL;

		assert_int_equal(job_depend_parse(good[i].in, 0, &d, &err), 0);
		assert_non_null(d);
		assert_int_equal(d->n, good[i].n);
		assert_int_equal(job_depend_format(d, &s), 0);
		assert_string_equal(s, good[i].shown);
		free(s);
		d = job_depend_free(d);
	}
}

static const char *const bad[] = {
    "afterok",
    "afterok:",
    "afterok:x",
    "afterok:0",
    "afterok:-1",
    "afterok:1,",
    ",afterok:1",
    "afterok:1,,afterok:2",
    "afterok:1,afterany:2?afterok:3",
    "expand:5",
    "afterfoo:1",
    "afterok:1+5",
    "after:1+",
    "after:1+x",
    "afterok:1_",
    "afterok:1_x",
    "afterok:1_*x",
    "singleton:3",
    "afterok:1::2",
    "afterok:1:",
    "afterok:4294967294",
    "afterok:99999999999",
    "12:13",
    "afterok:1(unfulfilled)",
    "after:1 ",
    " afterok:1",
    "-d",
};

static void test_parse_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct job_depend *d = (struct job_depend *)&bad; /* untouched on error */
		struct sl_error err = {""};

		assert_int_equal(job_depend_parse(bad[i], 0, &d, &err), -ESLURM_DEPENDENCY);
		assert_ptr_equal(d, (struct job_depend *)&bad);
		assert_true(err.text[0] != '\0');
	}
}

static void test_parse_messages(void **state)
{
	struct job_depend *d = NULL;
	struct sl_error err = {""};

	(void)state;
	assert_int_equal(job_depend_parse("expand:5", 0, &d, &err), -ESLURM_DEPENDENCY);
	assert_non_null(strstr(err.text, "not supported"));
	assert_int_equal(job_depend_parse("afterok:1?after:2,after:3", 0, &d, &err),
			 -ESLURM_DEPENDENCY);
	assert_non_null(strstr(err.text, "mix"));
}

static void test_parse_empty_and_cap(void **state)
{
	struct job_depend *d = (struct job_depend *)&bad;
	char *big;

	(void)state;
	assert_int_equal(job_depend_parse(NULL, 0, &d, NULL), 0);
	assert_null(d);
	d = (struct job_depend *)&bad;
	assert_int_equal(job_depend_parse("", 0, &d, NULL), 0);
	assert_null(d);

	/* "afterok" then ":1" times the cap: one id too many. */
	big = malloc(8 + 2 * (JOB_DEPEND_MAX_ITEMS + 1) + 1);
	assert_non_null(big);
	strcpy(big, "afterok");
	for (int i = 0; i <= JOB_DEPEND_MAX_ITEMS; i++)
		strcat(big, ":1");
	assert_int_equal(job_depend_parse(big, 0, &d, NULL), -ESLURM_DEPENDENCY);
	big[strlen(big) - 2] = '\0';
	assert_int_equal(job_depend_parse(big, 0, &d, NULL), 0);
	assert_int_equal(d->n, JOB_DEPEND_MAX_ITEMS);
	d = job_depend_free(d);
	/* "1,1,...": bare ids, one more than the cap */
	strcpy(big, "1");
	for (int i = 0; i < JOB_DEPEND_MAX_ITEMS; i++)
		strcat(big, ",1");
	assert_int_equal(job_depend_parse(big, 0, &d, NULL), -ESLURM_DEPENDENCY);
	big[strlen(big) - 2] = '\0';
	assert_int_equal(job_depend_parse(big, 0, &d, NULL), 0);
	assert_int_equal(d->n, JOB_DEPEND_MAX_ITEMS);
	d = job_depend_free(d);
	free(big);
}

/* ---- a fake job table ---- */

struct fake_job {
	uint32_t job_id, array_job_id, task_id;
	uint32_t state;
	time_t start;
	int exit_status;
};

static struct fake_job jobs[32];
static size_t n_jobs;
static bool singleton_busy;

static void add(uint32_t id, uint32_t array_id, uint32_t task, uint32_t st, time_t start, int ex)
{
	jobs[n_jobs++] = (struct fake_job){id, array_id, task, st, start, ex};
}

static void fill_table(void)
{
	n_jobs = 0;
	singleton_busy = false;
	add(10, 0, NO_VAL, JOB_PENDING, 0, 0);
	add(11, 0, NO_VAL, JOB_RUNNING, 1000, 0);
	add(12, 0, NO_VAL, JOB_COMPLETE, 500, 0);
	add(13, 0, NO_VAL, JOB_FAILED, 500, 3 << 8);
	add(14, 0, NO_VAL, JOB_CANCELLED, 900, 0); /* cancelled while pending */
	add(15, 0, NO_VAL, JOB_TIMEOUT, 500, 15);
	add(16, 0, NO_VAL, JOB_COMPLETE | JOB_COMPLETING, 500, 0);
	add(17, 0, NO_VAL, JOB_OOM, 500, 9);
	add(18, 0, NO_VAL, JOB_NODE_FAIL, 500, 0);
	add(19, 0, NO_VAL, JOB_PENDING | JOB_REQUEUE, 0, 0);
	/* array 100: task 0 ok, task 1 failed, task 2 running */
	add(101, 100, 0, JOB_COMPLETE, 600, 0);
	add(102, 100, 1, JOB_FAILED, 600, 1 << 8);
	add(100, 100, 2, JOB_RUNNING, 700, 0);
	/* array 200: every task ok */
	add(201, 200, 0, JOB_COMPLETE, 600, 0);
	add(200, 200, 1, JOB_COMPLETE, 650, 0);
	/* array 300: task 0 still in the meta record, task 1 running */
	add(301, 300, 1, JOB_RUNNING, 800, 0);
	add(300, 300, 0, JOB_PENDING, 0, 0);
}

static bool fake_job(void *arg, uint32_t job_id, uint32_t task_id, struct job_depend_job *ret)
{
	(void)arg;
	for (size_t i = 0; i < n_jobs; i++) {
		const struct fake_job *j = &jobs[i];
		bool is_match = task_id == NO_VAL
				    ? j->job_id == job_id
				    : j->array_job_id == job_id && j->task_id == task_id;

		if (is_match) {
			*ret = (struct job_depend_job){j->state, j->start, j->exit_status};
			return true;
		}
	}
	return false;
}

static bool fake_array(void *arg, uint32_t array_job_id, struct job_depend_array *ret)
{
	(void)arg;
	*ret = (struct job_depend_array){0};
	for (size_t i = 0; i < n_jobs; i++) {
		const struct fake_job *j = &jobs[i];
		bool is_done = job_state_is_finished(j->state) && !(j->state & JOB_COMPLETING);

		if (j->array_job_id != array_job_id)
			continue;
		ret->total++;
		if ((j->state & JOB_STATE_BASE) == JOB_PENDING)
			ret->pending++;
		else if (is_done && (j->state & JOB_STATE_BASE) == JOB_COMPLETE && !j->exit_status)
			ret->done_ok++;
		else if (is_done)
			ret->done_notok++;
		if (j->start > ret->last_start)
			ret->last_start = j->start;
	}
	return ret->total > 0;
}

static bool fake_singleton(void *arg)
{
	(void)arg;
	return singleton_busy;
}

static const struct job_depend_ops ops = {fake_job, fake_array, fake_singleton, NULL};

/* ---- evaluation ---- */

#define W  JOB_DEPEND_WAIT
#define OK JOB_DEPEND_OK
#define NV JOB_DEPEND_NEVER

static const struct {
	const char *spec;
	uint32_t self_task;
	time_t now;
	enum job_depend_result want;
	const char *shown; /* NULL: Dependency=(null) */
} evals[] = {
    /* after: started or cancelled, plus minutes from then */
    {"after:10", NO_VAL, 2000, W, "after:10(unfulfilled)"},
    {"after:19", NO_VAL, 2000, W, "after:19(unfulfilled)"},
    {"after:11", NO_VAL, 2000, OK, NULL},
    {"after:11+5", NO_VAL, 1299, W, "after:11+5(unfulfilled)"},
    {"after:11+5", NO_VAL, 1300, OK, NULL},
    {"after:14", NO_VAL, 2000, OK, NULL},
    {"after:12", NO_VAL, 2000, OK, NULL},
    /* afterany: ended in any state, and done completing */
    {"afterany:10", NO_VAL, 2000, W, "afterany:10(unfulfilled)"},
    {"afterany:11", NO_VAL, 2000, W, "afterany:11(unfulfilled)"},
    {"afterany:12:13:14:15:17:18", NO_VAL, 2000, OK, NULL},
    {"afterany:16", NO_VAL, 2000, W, "afterany:16(unfulfilled)"},
    {"afterburstbuffer:13", NO_VAL, 2000, OK, NULL},
    {"afterburstbuffer:11", NO_VAL, 2000, W, "afterburstbuffer:11(unfulfilled)"},
    /* afterok: COMPLETED with exit 0 */
    {"afterok:12", NO_VAL, 2000, OK, NULL},
    {"afterok:11", NO_VAL, 2000, W, "afterok:11(unfulfilled)"},
    {"afterok:10", NO_VAL, 2000, W, "afterok:10(unfulfilled)"},
    {"afterok:13", NO_VAL, 2000, NV, "afterok:13(failed)"},
    {"afterok:14", NO_VAL, 2000, NV, "afterok:14(failed)"},
    {"afterok:15", NO_VAL, 2000, NV, "afterok:15(failed)"},
    {"afterok:17", NO_VAL, 2000, NV, "afterok:17(failed)"},
    {"afterok:16", NO_VAL, 2000, W, "afterok:16(unfulfilled)"},
    /* afternotok: any other end */
    {"afternotok:12", NO_VAL, 2000, NV, "afternotok:12(failed)"},
    {"afternotok:13:14:15:17:18", NO_VAL, 2000, OK, NULL},
    {"afternotok:11", NO_VAL, 2000, W, "afternotok:11(unfulfilled)"},
    /* unknown or purged ids are lifted */
    {"afterok:99999999", NO_VAL, 2000, OK, NULL},
    {"afternotok:99", NO_VAL, 2000, OK, NULL},
    {"afterok:99_*", NO_VAL, 2000, OK, NULL},
    /* ',' needs all, satisfied ones disappear from the text */
    {"afterok:12,afterany:11", NO_VAL, 2000, W, "afterany:11(unfulfilled)"},
    {"afterok:13,afterany:11", NO_VAL, 2000, NV, "afterok:13(failed),afterany:11(unfulfilled)"},
    {"afterok:12,afterany:13", NO_VAL, 2000, OK, NULL},
    /* '?' needs one, never only when every one failed */
    {"afterok:13?afterany:11", NO_VAL, 2000, W, "afterok:13(failed)?afterany:11(unfulfilled)"},
    {"afterok:13?afterok:12", NO_VAL, 2000, OK, NULL},
    {"afterany:11?after:11", NO_VAL, 2000, OK, NULL},
    {"afterok:13?afternotok:12", NO_VAL, 2000, NV, "afterok:13(failed)?afternotok:12(failed)"},
    /* arrays: N_*, N_M, and a plain array id meaning every task */
    {"afterany:100_*", NO_VAL, 2000, W, "afterany:100_*(unfulfilled)"},
    {"afterany:100", NO_VAL, 2000, W, "afterany:100_*(unfulfilled)"},
    {"afterok:200_*", NO_VAL, 2000, OK, NULL},
    {"afterok:200", NO_VAL, 2000, OK, NULL},
    {"afternotok:200_*", NO_VAL, 2000, NV, "afternotok:200_*(failed)"},
    {"afterok:100_0", NO_VAL, 2000, OK, NULL},
    {"afterok:100_1", NO_VAL, 2000, NV, "afterok:100_1(failed)"},
    {"afternotok:100_1", NO_VAL, 2000, OK, NULL},
    {"afterok:100_2", NO_VAL, 2000, W, "afterok:100_2(unfulfilled)"},
    {"afterok:100_7", NO_VAL, 2000, OK, NULL},
    {"after:300_*", NO_VAL, 2000, W, "after:300_*(unfulfilled)"},
    {"after:300_1", NO_VAL, 2000, OK, NULL},
    {"after:200_*+10", NO_VAL, 1000, W, "after:200_*+10(unfulfilled)"},
    {"after:200_*+10", NO_VAL, 1250, OK, NULL},
    {"afterany:200_1", NO_VAL, 2000, OK, NULL},
    /* aftercorr: the task with our own index */
    {"aftercorr:100", 0, 2000, OK, NULL},
    {"aftercorr:100", 1, 2000, NV, "aftercorr:100_*(failed)"},
    {"aftercorr:100", 2, 2000, W, "aftercorr:100_*(unfulfilled)"},
    {"aftercorr:100", 9, 2000, OK, NULL},
    {"aftercorr:100", NO_VAL, 2000, OK, NULL},
    {"aftercorr:12", 0, 2000, OK, NULL},
    /* singleton (the fake answers "not busy") */
    {"singleton", NO_VAL, 2000, OK, NULL},
    {"singleton,afterany:11", NO_VAL, 2000, W, "afterany:11(unfulfilled)"},
};

static struct job_depend *parse_valid(const char *spec)
{
	struct job_depend *d = NULL;

	assert_int_equal(job_depend_parse(spec, 0, &d, NULL), 0);
	assert_int_equal(job_depend_validate(d, &ops, 5000, NO_VAL, NULL), 0);
	return d;
}

static void test_evaluate(void **state)
{
	(void)state;
	fill_table();
	for (size_t i = 0; i < ARRAY_SIZE(evals); i++) {
		struct job_depend *d = parse_valid(evals[i].spec);
		enum job_depend_result r =
		    job_depend_evaluate(d, &ops, evals[i].self_task, evals[i].now);
		char *s = (char *)"x";

		assert_int_equal(job_depend_format(d, &s), 0);
		if (r != evals[i].want || (s && !evals[i].shown)
		    || (evals[i].shown && (!s || strcmp(s, evals[i].shown) != 0)))
			print_message("case %zu '%s': got %d '%s'\n", i, evals[i].spec, r,
				      s ? s : "(null)");
		assert_int_equal(r, evals[i].want);
		if (evals[i].shown)
			assert_string_equal(s, evals[i].shown);
		else
			assert_null(s);
		free(s);
		d = job_depend_free(d);
	}
}

static void test_singleton(void **state)
{
	struct job_depend *d;
	char *s = NULL;

	(void)state;
	fill_table();
	singleton_busy = true;
	d = parse_valid("singleton");
	assert_int_equal(job_depend_evaluate(d, &ops, NO_VAL, 0), JOB_DEPEND_WAIT);
	assert_int_equal(job_depend_format(d, &s), 0);
	assert_string_equal(s, "singleton(unfulfilled)");
	free(s);
	singleton_busy = false;
	assert_int_equal(job_depend_evaluate(d, &ops, NO_VAL, 0), JOB_DEPEND_OK);
	d = job_depend_free(d);
}

/* Fulfilled and failed stay so, whatever the job does next (requeue). */
static void test_sticky_states(void **state)
{
	struct job_depend *d;

	(void)state;
	fill_table();
	d = parse_valid("afterok:11,after:10");
	assert_int_equal(job_depend_evaluate(d, &ops, NO_VAL, 2000), JOB_DEPEND_WAIT);
	jobs[0].state = JOB_RUNNING; /* 10 starts: after:10 fulfilled */
	jobs[1].state = JOB_FAILED;  /* 11 fails: afterok:11 failed */
	assert_int_equal(job_depend_evaluate(d, &ops, NO_VAL, 2000), JOB_DEPEND_NEVER);
	jobs[0].state = JOB_PENDING | JOB_REQUEUE;
	jobs[1].state = JOB_COMPLETE;
	assert_int_equal(job_depend_evaluate(d, &ops, NO_VAL, 2000), JOB_DEPEND_NEVER);
	assert_int_equal(d->items[0].state, JOB_DEPEND_FAILED);
	assert_int_equal(d->items[1].state, JOB_DEPEND_FULFILLED);
	d = job_depend_free(d);
}

static void test_validate(void **state)
{
	struct job_depend *d = NULL;
	struct sl_error err = {""};
	char *s = (char *)"x";

	(void)state;
	fill_table();
	/* on itself, or on its own array */
	assert_int_equal(job_depend_parse("afterok:12:5000", 0, &d, NULL), 0);
	assert_int_equal(job_depend_validate(d, &ops, 5000, NO_VAL, &err), -ESLURM_DEPENDENCY);
	assert_non_null(strstr(err.text, "itself"));
	d = job_depend_free(d);
	assert_int_equal(job_depend_parse("afterany:300_*", 0, &d, NULL), 0);
	assert_int_equal(job_depend_validate(d, &ops, 300, 300, NULL), -ESLURM_DEPENDENCY);
	assert_int_equal(job_depend_validate(d, &ops, 5001, 0, NULL), 0);
	d = job_depend_free(d);

	/* unknown ids are accepted and do not hold the job (22.05 reference) */
	assert_int_equal(job_depend_parse("afterok:99999999", 0, &d, NULL), 0);
	assert_int_equal(job_depend_validate(d, &ops, 0, NO_VAL, NULL), 0);
	assert_int_equal(job_depend_format(d, &s), 0);
	assert_null(s);
	d = job_depend_free(d);

	assert_int_equal(job_depend_validate(NULL, &ops, 1, NO_VAL, NULL), 0);
	assert_int_equal(job_depend_evaluate(NULL, &ops, NO_VAL, 0), JOB_DEPEND_OK);
	assert_int_equal(job_depend_format(NULL, &s), 0);
	assert_null(s);
}

/* The rendered text, states included, reads back the same way. */
static void test_state_round_trip(void **state)
{
	struct job_depend *d, *back = NULL;
	char *s = NULL, *s2 = NULL;

	(void)state;
	fill_table();
	singleton_busy = true;
	d = parse_valid("afterok:13,afterany:11,afterok:12,singleton,after:300_*+3");
	assert_int_equal(job_depend_evaluate(d, &ops, NO_VAL, 2000), JOB_DEPEND_NEVER);
	assert_int_equal(job_depend_format(d, &s), 0);
	assert_string_equal(s, "afterok:13(failed),afterany:11(unfulfilled),"
			       "singleton(unfulfilled),after:300_*+3(unfulfilled)");
	assert_int_equal(job_depend_parse(s, JOB_DEPEND_PARSE_STATE, &back, NULL), 0);
	assert_int_equal(back->n, 4);
	assert_int_equal(back->items[0].state, JOB_DEPEND_FAILED);
	assert_int_equal(job_depend_format(back, &s2), 0);
	assert_string_equal(s, s2);
	assert_int_equal(job_depend_evaluate(back, &ops, NO_VAL, 2000), JOB_DEPEND_NEVER);
	free(s);
	free(s2);
	d = job_depend_free(d);
	back = job_depend_free(back);
}

static void test_reason(void **state)
{
	(void)state;
	assert_int_equal(job_depend_reason(JOB_DEPEND_WAIT), WAIT_DEPENDENCY);
	assert_int_equal(job_depend_reason(JOB_DEPEND_NEVER), WAIT_DEP_INVALID);
	assert_int_equal(job_depend_reason(JOB_DEPEND_OK), WAIT_NO_REASON);
	assert_string_equal(job_reason_string(job_depend_reason(JOB_DEPEND_NEVER)),
			    "DependencyNeverSatisfied");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_good),	     cmocka_unit_test(test_parse_bad),
	    cmocka_unit_test(test_parse_messages),   cmocka_unit_test(test_parse_empty_and_cap),
	    cmocka_unit_test(test_evaluate),	     cmocka_unit_test(test_singleton),
	    cmocka_unit_test(test_sticky_states),    cmocka_unit_test(test_validate),
	    cmocka_unit_test(test_state_round_trip), cmocka_unit_test(test_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
