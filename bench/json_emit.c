/* json_emit.c - the v0.0.38 job document alone: N synthetic held jobs
 * (the records squeue --json gets from the controller) written as JSON
 * and as YAML to /dev/null through the same sink the commands use, R
 * times; prints bytes and the p50/min milliseconds of one document.
 * What squeue --json costs beyond fetching the jobs.
 *
 * Usage: build/bench_json_emit [N (5000)] [R (20)]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/data_job.h"
#include "common/data_out.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void fill(struct job_info *j, uint32_t id)
{
	*j = (struct job_info){
	    .job_id = id, .array_task_id = NO_VAL, .name = "wrap", .user_id = 0,
	    .user_name = "root", .group_id = 0, .account = "root", .qos = "normal",
	    .job_state = JOB_PENDING, .state_reason = WAIT_HELD_USER, .time_limit = INFINITE,
	    .time_min = NO_VAL, .submit_time = 1796201190, .eligible_time = 1796201190,
	    .partition = "cpu-queue", .num_nodes = 1, .num_cpus = 1, .num_tasks = 1,
	    .max_nodes = NO_VAL, .cpus_per_task = NO_VAL16, .ntasks_per_node = NO_VAL16,
	    .pn_min_memory = MEM_PER_CPU | 500, .nice = NICE_OFFSET, .requeue = 1,
	    .batch_flag = 1, .shared = NO_VAL16,
	    .command = "/tmp/slurm-bench/submit.sh", .work_dir = "/tmp/slurm-bench",
	    .std_out = "/tmp/slurm-bench/slurm-%j.out", .std_err = "/tmp/slurm-bench/slurm-%j.out",
	    .std_in = "/dev/null", .tres_req_str = "cpu=1,mem=500M,node=1,billing=1",
	};
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 5000;
	int r = argc > 2 ? atoi(argv[2]) : 20;
	struct job_info_msg m = {.count = n, .jobs = calloc(n, sizeof(struct job_info))};
	int null_fd = open("/dev/null", O_WRONLY);
	double *t = calloc((size_t)r, sizeof(double));

	if (!m.jobs || null_fd < 0 || !t || r <= 0)
		return 1;
	for (uint32_t i = 0; i < n; i++)
		fill(&m.jobs[i], 1000 + i);
	for (int k = 0; k < 2; k++) {
		size_t bytes = 0;
		for (int i = 0; i < r; i++) {
			struct dout *d = dout_new(k ? DOUT_YAML : DOUT_JSON);
			double t0 = now_ms();
			dout_sink_fd(d, null_fd);
			data_jobs_doc(d, &m, NULL, NULL, 0, NULL);
			dout_flush(d);
			t[i] = now_ms() - t0;
			dout_free(d);
			if (i == 0) { /* size once, without the sink */
				d = dout_new(k ? DOUT_YAML : DOUT_JSON);
				data_jobs_doc(d, &m, NULL, NULL, 0, NULL);
				dout_text(d, &bytes);
				dout_free(d);
			}
		}
		qsort(t, (size_t)r, sizeof(*t), cmp);
		printf("%s %u jobs: %zu bytes, p50 %.2f ms, min %.2f ms\n", k ? "yaml" : "json", n,
		       bytes, t[r / 2], t[0]);
	}
	free(t);
	free(m.jobs);
	close(null_fd);
	return 0;
}
