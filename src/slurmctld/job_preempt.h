/* job_preempt.h - PreemptType=preempt/qos: a pending job that does not fit
 * takes the place of running jobs whose QOS its own QOS may preempt
 * (sacctmgr's Preempt=).
 *
 * The fewest such jobs are chosen (preempt.c), the lowest QOS priority
 * first and, among equals, the one that started last. Each is requeued or
 * cancelled (state PREEMPTED) as its QOS's PreemptMode says (Cluster: the
 * PreemptMode of slurm.conf), at once or, with the QOS's GraceTime, after
 * SIGTERM and that many seconds. The preemptor waits (Resources) and starts
 * in the pass after their resources are back.
 */
#pragma once
#include <stdbool.h>
#include <time.h>

struct ctld;
struct job;
struct part;

/* job (pending, placed -EAGAIN on p) may preempt: true when jobs are on
 * their way out for it (now or already), false when none would help. */
bool job_preempt_try(struct ctld *c, struct job *job, const struct part *p, time_t now);
/* Jobs whose GraceTime is over are requeued or cancelled (the 1 s timer). */
void job_preempt_timer(struct ctld *c, time_t now);
