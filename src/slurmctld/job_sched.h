/* job_sched.h - the main scheduler: pending jobs in priority order, each
 * started where select_place() finds room, else given Slurm's reason.
 *
 * A pass runs after submissions and completions (coalesced through one
 * event, so a burst of submits costs one pass) and on the job timer. It
 * never blocks: launching is an asynchronous RPC. As Slurm's, a pass
 * after an event tests only the first jobs of the queue; the whole queue
 * is tested every sched_interval.
 */
#pragma once
#include <stdint.h>
#include <time.h>

struct ctld;
struct job;
struct part;
struct sel_result;

/* The pass event that ctld_sched_request() activates. */
int job_sched_init(struct ctld *c);
void job_sched_fini(struct ctld *c);
/* One pass now, as after an event: the first default_queue_depth pending
 * jobs in the scheduler's order (SchedulerParameters). */
void job_sched_pass(struct ctld *c);
/* One pass now over every pending job (every sched_interval). Both stop
 * at max_sched_time and sched_max_job_start, and test at most
 * partition_job_depth jobs of a partition. */
void job_sched_pass_all(struct ctld *c);
/* At submit: -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE when no node of p
 * could ever hold one node's share of the job. */
int job_sched_check_feasible(struct ctld *c, const struct job *job, const struct part *p);
/* --test-only: when (the earliest time the running jobs' ends make room,
 * as Slurm's will-run: pending jobs are not counted), where, and with how
 * many cpus the job would start. */
int job_sched_will_run(struct ctld *c, struct job *job, char **ret_nodes, uint32_t *ret_cpus,
		       time_t *ret_start);
/* Start job (an array's meta record: its next task) on res (taken) now,
 * by the main pass or backfill (JOB_SCHED_*). The job started, NULL when a
 * task could not be split off. */
struct job *job_sched_start(struct ctld *c, struct job *job, struct sel_result *res, time_t now,
			    uint8_t by);
