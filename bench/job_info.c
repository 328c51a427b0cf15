/* job_info.c - what the controller spends answering squeue: for N held
 * jobs, the job_info record of each (job_info_fill: the strings, the
 * reason's explanation, the output paths) and the reply's packing
 * (job_info_msg_pack), with no daemons; full records, then brief ones
 * (JOB_SHOW_BRIEF, as squeue asks for its usual formats). The median of
 * the runs.
 *
 *   build/bench_job_info [jobs [runs]]
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/msg.h"
#include "common/msg_family.h"
#include "common/pack.h"
#include "ctld_fixture.h"
#include "slurmctld/job.h"
#include "slurmctld/job_info.h"

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 5000;
	int runs = argc > 2 ? atoi(argv[2]) : 20;
	struct ctld_fixture *f;
	double fill_ms[256], pack_ms[256];
	size_t bytes = 0;

	if (runs < 1 || runs > 256)
		return 2;
	/* as slurmctld's main(): freed memory is kept, not faulted in again */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	f = fixture_new("MaxJobCount=100000\n");
	for (uint32_t i = 0; i < n; i++) {
		struct job_desc *d = fixture_desc();

		d->name = strdup("wrap");
		d->flags |= JOB_DESC_HOLD; /* held, as bench/squeue_json.py's sbatch -H */
		fixture_submit(f, d);
	}
	for (int brief = 0; brief < 2; brief++) {
		for (int r = 0; r < runs; r++) {
			struct job_info_msg m = {.jobs = calloc(f->c.job_count, sizeof(*m.jobs))};
			struct pack_buf b = {0};
			struct timespec t0;

			clock_gettime(CLOCK_MONOTONIC, &t0);
			for (uint32_t i = 0; i < f->c.job_count; i++)
				job_info_fill(&f->c, f->c.jobs[i], brief, time(NULL),
					      &m.jobs[m.count++]);
			fill_ms[r] = ms_since(&t0);
			clock_gettime(CLOCK_MONOTONIC, &t0);
			job_info_msg_pack(&m, &b, PROTOCOL_VERSION);
			pack_ms[r] = ms_since(&t0);
			bytes = b.len;
			pack_buf_done(&b);
			for (uint32_t i = 0; i < m.count; i++)
				job_info_fill_done(&m.jobs[i]);
			free(m.jobs);
		}
		qsort(fill_ms, (size_t)runs, sizeof(double), dbl_cmp);
		qsort(pack_ms, (size_t)runs, sizeof(double), dbl_cmp);
		printf("%s records: jobs %u, runs %d, reply %zu bytes\n", brief ? "brief" : "full",
		       f->c.job_count, runs, bytes);
		printf("  job_info_fill      p50 %7.2f ms  (%.2f us/job)\n", fill_ms[runs / 2],
		       fill_ms[runs / 2] * 1e3 / n);
		printf("  job_info_msg_pack  p50 %7.2f ms  (%.2f us/job)\n", pack_ms[runs / 2],
		       pack_ms[runs / 2] * 1e3 / n);
	}
	fixture_free(f);
	return 0;
}
