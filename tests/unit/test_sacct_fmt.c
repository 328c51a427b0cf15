/* test_sacct_fmt.c - sacct's lines for rows shaped like the reference's
 * jobs (tests/reference/sacct_*.txt), byte for byte, and the pieces
 * behind them: value formats, TRES order, the -S time forms, the default
 * window, state names, -j selections and row order. Times are UTC.
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

#include "render.h"

#include "cli/sacct_fmt.h"
#include "cli/sacct_opt.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"

#define T0	  1796201521 /* the reference's submit time of job 11201 */
#define EXITED(c) ((uint32_t)(c) << 8)

static struct acct_step_rec steps[5][1];
static struct acct_job_rec jobs[5];

static struct acct_step_rec batch(uint32_t state, uint32_t status, uint32_t requid, int secs,
				  uint64_t rss_kb)
{
	return (struct acct_step_rec){
	    .step_id = SL_BATCH_STEP,
	    .name = "batch",
	    .state = state,
	    .exit_code = status,
	    .kill_requid = requid,
	    .nodes = "n1",
	    .nnodes = 1,
	    .ntasks = 1,
	    .ncpus = 1,
	    .start = T0 + 1,
	    .end = T0 + 1 + secs,
	    .tres_alloc = "cpu=1,mem=100M,node=1",
	    .usage = {.max_rss_kb = rss_kb,
		      .tot_rss_kb = rss_kb,
		      .max_vm_kb = rss_kb ? 5512 : 0,
		      .tot_vm_kb = rss_kb ? 5512 : 0,
		      .ntasks = rss_kb ? 1 : 0},
	    .max_rss_node = "n1",
	    .max_vm_node = "n1",
	};
}

static struct acct_job_rec job(uint32_t id, const char *name, uint32_t state, uint32_t status,
			       uint32_t requid, int secs, struct acct_step_rec *st)
{
	return (struct acct_job_rec){
	    .inx = id,
	    .job_id = id,
	    .array_task_id = NO_VAL,
	    .name = (char *)name,
	    .user = "root",
	    .account = "root",
	    .partition = "cpu-queue",
	    .qos = "normal",
	    .state = state,
	    .exit_code = status,
	    .derived_ec = 0,
	    .kill_requid = requid,
	    .nodes = "n1",
	    .nnodes = 1,
	    .ncpus = 1,
	    .req_cpus = 1,
	    .req_nodes = 1,
	    .req_mem_mb = 100,
	    .time_limit = 60,
	    .submit = T0,
	    .eligible = T0,
	    .start = T0 + 1,
	    .end = T0 + 1 + secs,
	    .tres_req = "cpu=1,mem=100M,node=1,billing=1",
	    .tres_alloc = "cpu=1,mem=100M,node=1,billing=1",
	    .step_count = 1,
	    .steps = st,
	};
}

/* The five jobs of sacct_default.txt, in store (submit) order. */
static void fill(void)
{
	steps[0][0] = batch(JOB_CANCELLED, 15, NO_VAL, 87, 2996);
	jobs[0] = job(11198, "timeout_job", JOB_TIMEOUT, 0, NO_VAL, 87, steps[0]);
	steps[1][0] = batch(JOB_FAILED, EXITED(3), NO_VAL, 0, 0);
	jobs[1] = job(11199, "fail_job", JOB_FAILED, EXITED(3), NO_VAL, 0, steps[1]);
	steps[2][0] = batch(JOB_CANCELLED, 9, 0, 1, 188804);
	jobs[2] = job(11200, "oom_job", JOB_FAILED, 9, NO_VAL, 1, steps[2]);
	jobs[2].req_mem_mb = 20;
	steps[3][0] = batch(JOB_COMPLETE, 0, NO_VAL, 2, 3044);
	jobs[3] = job(11201, "ok_job", JOB_COMPLETE, 0, NO_VAL, 2, steps[3]);
	steps[4][0] = batch(JOB_CANCELLED, 15, NO_VAL, 1, 3224);
	jobs[4] = job(11202, "cancel_job", JOB_CANCELLED, 0, 0, 1, steps[4]);
}

static char *render(const char *fields, const struct sacct_out *o, struct acct_job_rec *v, size_t n,
		    bool no_steps)
{
	struct sacct_cols c = {0};
	char *buf = NULL, *bad = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(sacct_cols_add(&c, fields, &bad), 0);
	sacct_print_header(f, &c, o);
	for (size_t i = 0; i < n; i++) {
		sacct_print_row(f, &c, o, &v[i], NULL);
		for (uint32_t k = 0; !no_steps && k < v[i].step_count; k++)
			sacct_print_row(f, &c, o, &v[i], &v[i].steps[k]);
	}
	fclose(f);
	sacct_cols_done(&c);
	return buf;
}

static void check(const char *fields, const struct sacct_out *o, struct acct_job_rec *v, size_t n,
		  bool no_steps, const char *want)
{
	char *got = render(fields, o, v, n, no_steps);

	assert_string_equal(got, want);
	free(got);
}

static void test_default_view(void **state)
{
	struct sacct_out o = {.now = T0 + 1000};

	(void)state;
	fill();
	check(SACCT_DEFAULT_FIELDS, &o, jobs, 5, false,
	      "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n"
	      "------------ ---------- ---------- ---------- ---------- ---------- -------- \n"
	      "11198        timeout_j+  cpu-queue       root          1    TIMEOUT      0:0 \n"
	      "11198.batch       batch                  root          1  CANCELLED     0:15 \n"
	      "11199          fail_job  cpu-queue       root          1     FAILED      3:0 \n"
	      "11199.batch       batch                  root          1     FAILED      3:0 \n"
	      "11200           oom_job  cpu-queue       root          1     FAILED      0:9 \n"
	      "11200.batch       batch                  root          1 CANCELLED+      0:9 \n"
	      "11201            ok_job  cpu-queue       root          1  COMPLETED      0:0 \n"
	      "11201.batch       batch                  root          1  COMPLETED      0:0 \n"
	      "11202        cancel_job  cpu-queue       root          1 CANCELLED+      0:0 \n"
	      "11202.batch       batch                  root          1  CANCELLED     0:15 \n");
}

static void test_brief(void **state)
{
	struct sacct_out o = {.now = T0};
	struct acct_job_rec v[2];

	(void)state;
	fill();
	v[0] = jobs[1], v[1] = jobs[3];
	check(SACCT_BRIEF_FIELDS, &o, v, 2, false,
	      "JobID             State ExitCode \n"
	      "------------ ---------- -------- \n"
	      "11199            FAILED      3:0 \n"
	      "11199.batch      FAILED      3:0 \n"
	      "11201         COMPLETED      0:0 \n"
	      "11201.batch   COMPLETED      0:0 \n");
}

/* Reservation and ReservationId on job rows only; none: blank. */
static void test_reservation_fields(void **state)
{
	struct sacct_out o = {.now = T0}, p = {.now = T0, .parsable = SACCT_PARSABLE2};
	struct acct_job_rec v[2];

	(void)state;
	fill();
	v[0] = jobs[1], v[1] = jobs[3];
	v[1].resv_name = "maint_window_of_the_week";
	v[1].resv_id = 12;
	check("JobID,Reservation,ReservationId", &o, v, 2, false,
	      "JobID                 Reservation Reservat \n"
	      "------------ -------------------- -------- \n"
	      "11199                                      \n"
	      "11199.batch                                \n"
	      "11201        maint_window_of_the+       12 \n"
	      "11201.batch                                \n");
	check("JobID,Reservation,ReservationId", &p, &v[1], 1, true,
	      "JobID|Reservation|ReservationId\n"
	      "11201|maint_window_of_the_week|12\n");
}

static void test_parsable_steps(void **state)
{
	struct sacct_out o = {.parsable = SACCT_PARSABLE2, .now = T0};
	const char *f = "JobID,JobName,State,ExitCode,Elapsed,MaxRSS,AllocCPUS";

	(void)state;
	fill();
	check(f, &o, jobs, 5, false,
	      "JobID|JobName|State|ExitCode|Elapsed|MaxRSS|AllocCPUS\n"
	      "11198|timeout_job|TIMEOUT|0:0|00:01:27||1\n"
	      "11198.batch|batch|CANCELLED|0:15|00:01:27|2996K|1\n"
	      "11199|fail_job|FAILED|3:0|00:00:00||1\n"
	      "11199.batch|batch|FAILED|3:0|00:00:00||1\n"
	      "11200|oom_job|FAILED|0:9|00:00:01||1\n"
	      "11200.batch|batch|CANCELLED by 0|0:9|00:00:01|188804K|1\n"
	      "11201|ok_job|COMPLETED|0:0|00:00:02||1\n"
	      "11201.batch|batch|COMPLETED|0:0|00:00:02|3044K|1\n"
	      "11202|cancel_job|CANCELLED by 0|0:0|00:00:01||1\n"
	      "11202.batch|batch|CANCELLED|0:15|00:00:01|3224K|1\n");
	o.parsable = SACCT_PARSABLE;
	check("jobid,state", &o, &jobs[3], 1, false,
	      "JobID|State|\n11201|COMPLETED|\n11201.batch|COMPLETED|\n");
	o.delim = ";;";
	check("jobid,state", &o, &jobs[3], 1, true, "JobID;;State;;\n11201;;COMPLETED;;\n");
}

/* An array of two tasks: 11223_0 has the raw id 11227, 11223_1 is 11223. */
static void array_rows(struct acct_job_rec v[3])
{
	for (int i = 0; i < 2; i++) {
		v[i] = job(i ? 11223 : 11227, "envjob", JOB_COMPLETE, 0, NO_VAL, 0, NULL);
		v[i].step_count = 0;
		v[i].array_job_id = 11223;
		v[i].array_task_id = (uint32_t)i;
		v[i].nodes = "g[1-2]";
		v[i].nnodes = 2;
		v[i].ncpus = 8;
		v[i].partition = "gpu-queue";
		v[i].tres_alloc = "cpu=8,mem=800M,node=2,billing=8,gres/gpu=2";
	}
	v[2] = v[1];
	v[2].job_id = 11230;
	v[2].array_task_id = NO_VAL;
	v[2].array_task_str = "2-5";
	v[2].state = JOB_PENDING;
	v[2].start = v[2].end = 0;
	v[2].nodes = NULL;
	v[2].tres_alloc = NULL;
}

static void test_array(void **state)
{
	struct sacct_out o = {.now = T0};
	struct acct_job_rec v[3];

	(void)state;
	array_rows(v);
	/* store order 11223 (task 1) first; sacct prints task 0 first */
	v[0].inx = 2, v[1].inx = 1;
	struct acct_job_rec store[3] = {v[1], v[0], v[2]};
	sacct_rows_sort(store, 2);
	check("JobID,JobIDRaw,JobName,State,NodeList,AllocTRES%60", &o, store, 2, true,
	      "JobID        JobIDRaw        JobName      State        NodeList                     "
	      "                               AllocTRES \n"
	      "------------ ------------ ---------- ---------- --------------- "
	      "------------------------------------------------------------ \n"
	      "11223_0      11227            envjob  COMPLETED          g[1-2]                   "
	      "billing=8,cpu=8,gres/gpu=2,mem=800M,node=2 \n"
	      "11223_1      11223            envjob  COMPLETED          g[1-2]                   "
	      "billing=8,cpu=8,gres/gpu=2,mem=800M,node=2 \n");
	o.parsable = SACCT_PARSABLE2;
	check("jobid,state,alloccpus,allocnodes,nodelist,start,end", &o, &v[2], 1, true,
	      "JobID|State|AllocCPUS|AllocNodes|NodeList|Start|End\n"
	      "11223_[2-5]|PENDING|0|0|None assigned|Unknown|Unknown\n");
}

static void test_failed_and_oom(void **state)
{
	struct sacct_out o = {.now = T0};

	(void)state;
	fill();
	check("JobID,JobName,State,ExitCode,DerivedExitCode", &o, &jobs[1], 1, false,
	      "JobID           JobName      State ExitCode DerivedExitCode \n"
	      "------------ ---------- ---------- -------- --------------- \n"
	      "11199          fail_job     FAILED      3:0             0:0 \n"
	      "11199.batch       batch     FAILED      3:0                 \n");
	check("JobID,JobName,State,ExitCode,ReqMem,MaxRSS", &o, &jobs[2], 1, false,
	      "JobID           JobName      State ExitCode     ReqMem     MaxRSS \n"
	      "------------ ---------- ---------- -------- ---------- ---------- \n"
	      "11200           oom_job     FAILED      0:9        20M            \n"
	      "11200.batch       batch CANCELLED+      0:9               188804K \n");
}

static void test_long(void **state)
{
	struct sacct_out o = {.now = T0};
	char *got, *line2, *line3;

	(void)state;
	fill();
	got = render(SACCT_LONG_FIELDS, &o, &jobs[3], 1, false);
	line2 = strchr(strchr(got, '\n') + 1, '\n') + 1;
	line3 = strchr(line2, '\n') + 1;
	assert_memory_equal(
	    got,
	    "JobID        JobIDRaw        JobName  Partition  MaxVMSize  MaxVMSizeNode"
	    "  MaxVMSizeTask  AveVMSize     MaxRSS MaxRSSNode MaxRSSTask     AveRSS "
	    "MaxPages MaxPagesNode   MaxPagesTask   AvePages     MinCPU MinCPUNode "
	    "MinCPUTask     AveCPU   NTasks  AllocCPUS    Elapsed      State ExitCode "
	    "AveCPUFreq ReqCPUFreqMin ReqCPUFreqMax ReqCPUFreqGov     ReqMem "
	    "ConsumedEnergy  MaxDiskRead MaxDiskReadNode MaxDiskReadTask    "
	    "AveDiskRead MaxDiskWrite MaxDiskWriteNode MaxDiskWriteTask   AveDiskWrite"
	    "    ReqTRES  AllocTRES TRESUsageInAve TRESUsageInMax TRESUsageInMaxNode "
	    "TRESUsageInMaxTask TRESUsageInMin TRESUsageInMinNode TRESUsageInMinTask "
	    "TRESUsageInTot TRESUsageOutMax TRESUsageOutMaxNode TRESUsageOutMaxTask "
	    "TRESUsageOutAve TRESUsageOutTot \n",
	    (size_t)(strchr(got, '\n') - got + 1));
	assert_memory_equal(
	    line2,
	    "11201        11201            ok_job  cpu-queue                                     "
	    "                                                                                    "
	    "                                                                                    "
	    "  1   00:00:02  COMPLETED      0:0                  Unknown       Unknown       Unkn"
	    "own       100M                                                                      "
	    "                                                                    billing=1+ billi"
	    "ng=1+                                                                               "
	    "                                                                                    "
	    "                                                              \n",
	    (size_t)(line3 - line2));
	/* the batch step: the columns we gather match the reference */
	assert_non_null(strstr(line3,
			       "11201.batch  11201.batch       batch                 5512K"
			       "             n1              0      5512K      3044K         n1"
			       "          0      3044K        0           n1              0     "
			       "     0   00:00:00         n1          0   00:00:00        1     "
			       "     1   00:00:02  COMPLETED      0:0 "));
	free(got);
}

static void test_width_and_cut(void **state)
{
	struct sacct_out o = {.now = T0};
	struct sacct_cols c = {0};
	char *bad = NULL;

	(void)state;
	fill();
	check("jobname%5,jobid%-8,state%14", &o, &jobs[4], 1, true,
	      "JobNa JobID             State \n"
	      "----- -------- -------------- \n"
	      "canc+ 11202    CANCELLED by 0 \n");
	check("JobID%8,start,elapsedraw%3", &o, &jobs[0], 1, true,
	      "   JobID               Start Ela \n"
	      "-------- ------------------- --- \n"
	      "   11198 2026-12-02T08:52:02  87 \n");
	/* prefixes and case; ALL; an unknown name */
	assert_int_equal(sacct_cols_add(&c, " ncpus , JOBN,all", &bad), 0);
	assert_true(c.n > 100);
	assert_int_equal(sacct_cols_add(&c, "jobid,nosuch%3", &bad), -EINVAL);
	assert_string_equal(bad, "nosuch");
	free(bad);
	sacct_cols_done(&c);
}

static void test_values(void **state)
{
	char b[64];

	(void)state;
	assert_string_equal(sacct_cpu_str(0, b, sizeof(b)), "00:00:00");
	assert_string_equal(sacct_cpu_str(5990000, b, sizeof(b)), "00:05.990");
	assert_string_equal(sacct_cpu_str(61000000, b, sizeof(b)), "00:01:01");
	assert_string_equal(sacct_cpu_str(3723456789ull, b, sizeof(b)), "01:02:03");
	assert_string_equal(sacct_cpu_str((86400ull * 2 + 3661) * 1000000 + 5, b, sizeof(b)),
			    "2-01:01:01");
	assert_string_equal(sacct_exit_str(EXITED(3), b, sizeof(b)), "3:0");
	assert_string_equal(sacct_exit_str(9, b, sizeof(b)), "0:9");
	assert_string_equal(sacct_exit_str(0, b, sizeof(b)), "0:0");
	assert_string_equal(sacct_exit_str(NO_VAL, b, sizeof(b)), "");
	assert_string_equal(sacct_state_str(JOB_CANCELLED, 0, b, sizeof(b)), "CANCELLED by 0");
	assert_string_equal(sacct_state_str(JOB_CANCELLED, 1000, b, sizeof(b)),
			    "CANCELLED by 1000");
	assert_string_equal(sacct_state_str(JOB_CANCELLED, NO_VAL, b, sizeof(b)), "CANCELLED");
	assert_string_equal(sacct_state_str(JOB_OOM, NO_VAL, b, sizeof(b)), "OUT_OF_MEMORY");
	assert_string_equal(sacct_state_str(JOB_NODE_FAIL, NO_VAL, b, sizeof(b)), "NODE_FAIL");
	assert_string_equal(sacct_state_str(JOB_COMPLETE | JOB_REQUEUE, NO_VAL, b, sizeof(b)),
			    "REQUEUED");
	assert_string_equal(sacct_size_str(3044 * 1024, 0, NULL, b, sizeof(b)), "3044K");
	assert_string_equal(sacct_size_str(2560 * 1024, 0, NULL, b, sizeof(b)), "2.50M");
	assert_string_equal(sacct_size_str(1024 * 1024, 0, NULL, b, sizeof(b)), "1M");
	assert_string_equal(sacct_size_str(100, 'M', NULL, b, sizeof(b)), "100M");
	assert_string_equal(sacct_size_str(4096, 'M', NULL, b, sizeof(b)), "4G");
	assert_string_equal(sacct_size_str(0, 0, NULL, b, sizeof(b)), "0");
	struct sacct_out g = {.units = 'G'}, nc = {.noconvert = true};
	assert_string_equal(sacct_size_str(1288490189ull, 0, &g, b, sizeof(b)), "1.20G");
	assert_string_equal(sacct_size_str(4096, 'M', &nc, b, sizeof(b)), "4096M");
	char *t = sacct_tres_sorted("cpu=8,mem=800M,node=2,billing=8,gres/gpu=2");
	assert_string_equal(t, "billing=8,cpu=8,gres/gpu=2,mem=800M,node=2");
	free(t);
	t = sacct_tres_sorted(NULL);
	assert_string_equal(t, "");
	free(t);
}

static void test_cpu_totals(void **state)
{
	struct sacct_out o = {.parsable = SACCT_PARSABLE2, .now = T0 + 100};
	struct acct_step_rec st[2];
	struct acct_job_rec j;

	(void)state;
	st[0] = batch(JOB_COMPLETE, 0, NO_VAL, 3, 1000);
	st[0].usage.user_usec = 5000000;
	st[0].usage.sys_usec = 990000;
	st[1] = batch(JOB_RUNNING, 0, NO_VAL, 3, 1000);
	st[1].step_id = 0;
	st[1].name = "python3";
	st[1].end = 0;
	st[1].usage.user_usec = 7000000;
	j = job(7, "burn", JOB_RUNNING, 0, NO_VAL, 0, st);
	j.end = 0;
	j.step_count = 2;
	j.ncpus = 2;
	j.tres_alloc = "cpu=2,node=1";
	check("jobid,totalcpu,usercpu,systemcpu,elapsed,cputime,cputimeraw,end,averss", &o, &j, 1,
	      false,
	      "JobID|TotalCPU|UserCPU|SystemCPU|Elapsed|CPUTime|CPUTimeRAW|End|AveRSS\n"
	      "7|00:05.990|00:00:05|00:00.990|00:01:39|00:03:18|198|Unknown|\n"
	      "7.batch|00:05.990|00:00:05|00:00.990|00:00:03|00:00:03|3|2026-12-02T08:52:05|1000K\n"
	      "7.0|00:00:07|00:00:07|00:00:00|00:01:39|00:01:39|99|Unknown|1000K\n");
}

static void test_time_forms(void **state)
{
	time_t now = utc(2026, 6, 15, 14, 30, 20), t = 0;
	int pos = 0;
	static const struct {
		const char *in;
		int y, mo, d, h, mi, s;
	} cases[] = {
	    {"2020-01-01", 2020, 1, 1, 0, 0, 0},
	    {"2020-01-01T10:20", 2020, 1, 1, 10, 20, 0},
	    {"2020-01-01T10:20:30", 2020, 1, 1, 10, 20, 30},
	    {"10:00", 2026, 6, 15, 10, 0, 0},
	    {"16:45:10", 2026, 6, 15, 16, 45, 10}, /* later today: still today */
	    {"3:05pm", 2026, 6, 15, 15, 5, 0},
	    {"12:00am", 2026, 6, 15, 0, 0, 0},
	    {"0102", 2026, 1, 2, 0, 0, 0},
	    {"0102-08:30", 2026, 1, 2, 8, 30, 0},
	    {"1224", 2025, 12, 24, 0, 0, 0}, /* December is to come: last year's */
	    {"010224", 2024, 1, 2, 0, 0, 0},
	    {"01/02", 2026, 1, 2, 0, 0, 0},
	    {"01/02/24-13:14:15", 2024, 1, 2, 13, 14, 15},
	    {"1.2.25", 2025, 1, 2, 0, 0, 0},
	    {"today", 2026, 6, 15, 0, 0, 0},
	    {"midnight", 2026, 6, 15, 0, 0, 0},
	    {"noon", 2026, 6, 15, 12, 0, 0},
	    {"teatime", 2026, 6, 15, 16, 0, 0},
	    {"fika", 2026, 6, 15, 15, 0, 0},
	    {"tomorrow", 2026, 6, 16, 0, 0, 0},
	    {"now", 2026, 6, 15, 14, 30, 20},
	    {"now-2hours", 2026, 6, 15, 12, 30, 20},
	    {"now+90", 2026, 6, 15, 14, 31, 50},
	    {"now-1days", 2026, 6, 14, 14, 30, 20},
	    {"NOW-1week", 2026, 6, 8, 14, 30, 20},
	};
	static const char *const bad[] = {"bogus",  "25:00", "13/01",	   "now-",
					  "now-3h", "10:7",  "2020-13-01", "now+1x"};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(sacct_parse_time(cases[i].in, now, &t, &pos), 0);
		if (t
		    != utc(cases[i].y, cases[i].mo, cases[i].d, cases[i].h, cases[i].mi,
			   cases[i].s))
			fail_msg("%s: got %ld", cases[i].in, (long)t);
	}
	assert_int_equal(sacct_parse_time("uts1700000000", now, &t, &pos), 0);
	assert_int_equal(t, 1700000000);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (sacct_parse_time(bad[i], now, &t, &pos) == 0)
			fail_msg("%s accepted", bad[i]);
}

static void test_ranges(void **state)
{
	uint32_t lo = 7, hi = 7;

	(void)state;
	assert_int_equal(sacct_parse_range("2", &lo, &hi), 0);
	assert_true(lo == 2 && hi == 2);
	assert_int_equal(sacct_parse_range("0-16", &lo, &hi), 0);
	assert_true(lo == 0 && hi == 16);
	assert_int_equal(sacct_parse_range("3-1", &lo, &hi), 0); /* matches nothing, as Slurm */
	assert_true(lo == 3 && hi == 1);
	for (const char *const *b = (const char *const[]){"", "abc", "2-", "-2", "2-x", "1,2", " 2",
							  "99999999999", "2-4294967295", NULL};
	     *b; b++)
		assert_int_equal(sacct_parse_range(*b, &lo, &hi), -EINVAL);
}

static void test_truncate(void **state)
{
	struct acct_step_rec st[2] = {{.start = 50, .end = 150}, {.start = 120, .end = 0}};
	struct acct_job_rec j = {.start = 50, .end = 0, .steps = st, .step_count = 2};
	struct acct_job_rec pending = {.start = 0, .end = 0}, before = {.start = 10, .end = 20};

	(void)state;
	sacct_truncate(&j, 100, 200);
	assert_true(j.start == 100 && j.end == 200); /* running: ends at the window's end */
	assert_true(st[0].start == 100 && st[0].end == 150);
	assert_true(st[1].start == 120 && st[1].end == 200);
	sacct_truncate(&pending, 100, 200);
	assert_true(pending.start == 0 && pending.end == 0);
	sacct_truncate(&before, 100, 200); /* never inside: no negative elapsed */
	assert_true(before.start == 100 && before.end == 100);
}

static void test_window_line(void **state)
{
	time_t now = utc(2026, 12, 2, 19, 17, 46);
	char *s;

	(void)state;
	s = sacct_window_line(NULL, utc(2026, 12, 2, 0, 0, 0), now, now);
	assert_string_equal(s, "Jobs Eligible in the time window from Wed Dec 02 00:00:00 2026 "
			       "to Wed Dec 02 19:17:46 2026");
	free(s);
	s = sacct_window_line(NULL, 0, 0, now);
	assert_string_equal(s, "Jobs Eligible in the time window from Epoch 0 to Wed Dec 02 "
			       "19:17:46 2026");
	free(s);
	s = sacct_window_line("R,pd,nosuch,RQ", utc(2026, 1, 1, 0, 0, 0), utc(2026, 1, 1, 0, 0, 0),
			      now);
	assert_string_equal(s, "Jobs RUNNING,PENDING,REQUEUED in the time window from Thu Jan 01 "
			       "00:00:00 2026 to Thu Jan 01 00:00:01 2026");
	free(s);
}

static void test_window(void **state)
{
	time_t now = utc(2026, 6, 15, 14, 30, 20), mid = utc(2026, 6, 15, 0, 0, 0), s, e;
	time_t S = utc(2026, 6, 1, 0, 0, 0), E = utc(2026, 6, 10, 0, 0, 0);

	(void)state;
	sacct_time_window(false, false, 0, 0, now, &s, &e);
	assert_true(s == mid && e == now);
	sacct_time_window(true, false, 0, 0, now, &s, &e);
	assert_true(s == 0 && e == 0);
	sacct_time_window(true, false, S, 0, now, &s, &e);
	assert_true(s == S && e == now);
	sacct_time_window(true, false, 0, E, now, &s, &e);
	assert_true(s == 0 && e == E);
	/* states at one moment: our bounds are inclusive, Slurm's end is
	 * exclusive and one second later (sacct_window_line prints it so) */
	sacct_time_window(false, true, 0, 0, now, &s, &e);
	assert_true(s == now && e == now);
	sacct_time_window(false, true, S, 0, now, &s, &e);
	assert_true(s == S && e == S);
	sacct_time_window(true, true, 0, 0, now, &s, &e);
	assert_true(s == 0 && e == now);
	sacct_time_window(true, true, S, 0, now, &s, &e);
	assert_true(s == S && e == S);
	sacct_time_window(false, false, S, E, now, &s, &e);
	assert_true(s == S && e == E);
}

static void test_states(void **state)
{
	uint32_t m = 0;
	char *bad = NULL;

	(void)state;
	assert_int_equal(sacct_state_mask("CD,f,Ca,TO,oom,NF,pd,r,RQ", &m, &bad), 0);
	assert_int_equal(m, (1u << JOB_COMPLETE) | (1u << JOB_FAILED) | (1u << JOB_CANCELLED)
				| (1u << JOB_TIMEOUT) | (1u << JOB_OOM) | (1u << JOB_NODE_FAIL)
				| (1u << JOB_PENDING) | (1u << JOB_RUNNING)
				| (1u << ACCT_STATE_REQUEUED_BIT));
	assert_int_equal(sacct_state_mask("completed,OUT_OF_MEMORY,requeued", &m, &bad), 0);
	assert_int_equal(m,
			 (1u << JOB_COMPLETE) | (1u << JOB_OOM) | (1u << ACCT_STATE_REQUEUED_BIT));
	assert_int_equal(sacct_state_mask("CD,done", &m, &bad), -EINVAL);
	assert_string_equal(bad, "done");
	free(bad);
}

static void test_job_selection(void **state)
{
	struct sacct_sel *v = NULL;
	size_t n = 0;
	char *ids = NULL, *bad = NULL;
	struct acct_job_rec a[3];
	struct acct_step_rec b = batch(JOB_COMPLETE, 0, NO_VAL, 1, 1), z = b;

	(void)state;
	z.step_id = 0;
	fill();
	assert_int_equal(sacct_parse_jobs("11201.batch,11199,11199.0,11223_1", &v, &n, &ids, &bad),
			 0);
	assert_int_equal(n, 4);
	assert_string_equal(ids, "11201,11199,11223_1");
	assert_false(sacct_job_shown(v, n, &jobs[3]));
	assert_true(sacct_step_shown(v, n, &jobs[3], &b));
	assert_false(sacct_step_shown(v, n, &jobs[3], &z));
	assert_true(sacct_job_shown(v, n, &jobs[1]));
	assert_true(sacct_step_shown(v, n, &jobs[1], &b));
	array_rows(a);
	assert_false(sacct_job_shown(v, n, &a[0]));
	assert_true(sacct_job_shown(v, n, &a[1]));
	free(v);
	free(ids);
	assert_int_equal(sacct_parse_jobs("11223,11227", &v, &n, &ids, &bad), 0);
	assert_true(sacct_job_shown(v, n, &a[0]) && sacct_job_shown(v, n, &a[1])
		    && sacct_job_shown(v, n, &a[2]));
	free(v);
	free(ids);
	assert_int_equal(sacct_parse_jobs("12,x3", &v, &n, &ids, &bad), -EINVAL);
	assert_string_equal(bad, "x3");
	free(bad);
	assert_true(sacct_job_shown(NULL, 0, &jobs[0]));
}

static void test_sort_dedup(void **state)
{
	struct acct_job_rec v[4];

	(void)state;
	fill();
	v[0] = jobs[3];
	v[1] = jobs[1];
	v[2] = jobs[3];
	v[2].restart_cnt = 1;
	v[2].inx = 99;
	v[0].state = JOB_COMPLETE | JOB_REQUEUE;
	v[3] = jobs[0];
	for (int i = 0; i < 4; i++)
		v[i].step_count = 0, v[i].steps = NULL, v[i].name = NULL, v[i].user = NULL,
		v[i].account = NULL, v[i].partition = NULL, v[i].qos = NULL, v[i].nodes = NULL,
		v[i].tres_req = NULL, v[i].tres_alloc = NULL;
	/* acct_job_rec_done frees strings: the dropped row must own none */
	sacct_rows_sort(v, 4);
	assert_int_equal(v[0].job_id, 11198);
	assert_int_equal(v[1].job_id, 11199);
	assert_int_equal(v[2].restart_cnt, 0);
	assert_int_equal(v[3].restart_cnt, 1);
	assert_int_equal(sacct_rows_dedup(v, 4), 3);
	assert_int_equal(v[2].job_id, 11201);
	assert_int_equal(v[2].restart_cnt, 1);
}

static void test_field_names(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	sacct_print_field_names(f);
	fclose(f);
	assert_memory_equal(buf,
			    "Account             AdminComment        AllocCPUS           AllocNodes"
			    "         \nAllocTRES           AssocID",
			    100);
	assert_non_null(strstr(buf, "\nUser                UserCPU             WCKey"
				    "               WCKeyID            \nWorkDir            \n"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_view),   cmocka_unit_test(test_brief),
	    cmocka_unit_test(test_parsable_steps), cmocka_unit_test(test_array),
	    cmocka_unit_test(test_failed_and_oom), cmocka_unit_test(test_long),
	    cmocka_unit_test(test_width_and_cut),  cmocka_unit_test(test_values),
	    cmocka_unit_test(test_cpu_totals),	   cmocka_unit_test(test_time_forms),
	    cmocka_unit_test(test_window),	   cmocka_unit_test(test_states),
	    cmocka_unit_test(test_job_selection),  cmocka_unit_test(test_sort_dedup),
	    cmocka_unit_test(test_field_names),	   cmocka_unit_test(test_ranges),
	    cmocka_unit_test(test_truncate),	   cmocka_unit_test(test_window_line),
	    cmocka_unit_test(test_reservation_fields),
	};

	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
