/* sched_pass.c - how long one scheduling round takes on synthetic state,
 * with no daemons: 1,000 nodes of 32 cpus filled by running jobs with
 * assorted time limits, and 10,000 pending jobs of assorted sizes behind
 * them. A round is what the controller does every bf_interval: the main
 * pass (after an event: the queue's head), then backfill (snapshot, plan,
 * apply); the main pass over every job runs every sched_interval. Times are wall clock on this
 * machine, the median of the rounds.
 *
 *   build/bench_sched_pass [pending-jobs [nodes [rounds]]]
 *
 * Prints the main passes alone, and the whole round with bf_max_job_test at
 * its default (500) and at the queue's length (every pending job planned).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/msg.h"
#include "ctld_fixture.h"
#include "slurmctld/job.h"
#include "slurmctld/job_sched.h"
#include "slurmctld/sched_bf.h"

static int no_send(struct ctld *c, const char *host, uint16_t port, uint16_t type, const void *msg,
		   uid_t peer_uid, rpc_async_done_fn *done, void *arg)
{
	(void)c, (void)host, (void)port, (void)type, (void)msg, (void)peer_uid, (void)done;
	(void)arg;
	return 0; /* never answered: launches stay in flight, which costs nothing here */
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static void submit(struct ctld_fixture *f, uint32_t nodes, uint32_t tasks, uint32_t minutes)
{
	struct job_desc *d = fixture_desc();

	d->partition = strdup("big");
	d->min_nodes = nodes;
	d->max_nodes = nodes;
	d->num_tasks = tasks;
	d->time_limit = minutes;
	fixture_submit(f, d);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), dbl_cmp);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	uint32_t pending = argc > 1 ? (uint32_t)atoi(argv[1]) : 10000;
	uint32_t nodes = argc > 2 ? (uint32_t)atoi(argv[2]) : 1000;
	int rounds = argc > 3 ? atoi(argv[3]) : 5;
	char extra[512];
	struct ctld_fixture *f;
	double main_ms[64], all_ms[64], bf_ms[2][64], loop_ms[2][64];
	uint32_t running = 0, tests[2];

	if (rounds < 1 || rounds > 64 || nodes < 1 || nodes > 9999)
		return 2;
	snprintf(extra, sizeof(extra),
		 "NodeName=c[0001-%04u] CPUs=32 Sockets=2 CoresPerSocket=16 ThreadsPerCore=1 "
		 "RealMemory=128000 NodeAddr=127.0.0.1 Port=7100\n"
		 "PartitionName=big Nodes=c[0001-%04u] MaxTime=INFINITE\n"
		 "MaxJobCount=%u\n",
		 nodes, nodes, pending + 2 * nodes + 1);
	f = fixture_new(extra);
	f->c.send = no_send;
	srand(42);
	/* fill every node: two 16-cpu jobs a node, ending over the next 10 h */
	for (uint32_t i = 0; i < nodes * 2; i++)
		submit(f, 1, 16, 10 + (uint32_t)(rand() % 600));
	job_sched_pass_all(&f->c);
	for (uint32_t i = 0; i < f->c.job_count; i++)
		running += job_is_running(f->c.jobs[i]);
	/* the queue: mostly small jobs, some wide ones */
	for (uint32_t i = 0; i < pending; i++) {
		uint32_t kind = (uint32_t)(rand() % 10);
		uint32_t n = kind < 7 ? 1 : kind < 9 ? 1 + (uint32_t)(rand() % 8) : 16;

		submit(f, n, n * (1 + (uint32_t)(rand() % 32)), 5 + (uint32_t)(rand() % 720));
	}
	tests[0] = f->c.conf->bf_max_job_test;
	tests[1] = pending;
	for (int r = 0; r < rounds; r++) {
		struct timespec t0;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		job_sched_pass(&f->c);
		main_ms[r] = ms_since(&t0);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		job_sched_pass_all(&f->c);
		all_ms[r] = ms_since(&t0);
		for (int k = 0; k < 2; k++) {
			f->c.conf->bf_max_job_test = tests[k];
			uint64_t plan_usec = 0;

			clock_gettime(CLOCK_MONOTONIC, &t0);
			if (sched_bf_cycle_sync(&f->c, &plan_usec) < 0)
				return 1;
			bf_ms[k][r] = ms_since(&t0);
			loop_ms[k][r] = bf_ms[k][r] - (double)plan_usec / 1e3;
		}
	}
	printf("nodes %u (32 cpus), running %u, pending %u, rounds %d\n", nodes, running, pending,
	       rounds);
	printf("main pass after an event (depth %u):     %8.1f ms\n",
	       f->c.conf->sched_queue_depth, median(main_ms, rounds));
	printf("main pass over every job:                %8.1f ms\n", median(all_ms, rounds));
	for (int k = 0; k < 2; k++)
		printf(
		    "main pass + backfill, bf_max_job_test=%-5u %6.1f ms (on the loop %.1f ms)\n",
		    tests[k], median(bf_ms[k], rounds), median(loop_ms[k], rounds));
	fixture_free(f);
	return 0;
}
