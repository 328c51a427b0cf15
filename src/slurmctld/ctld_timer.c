/* ctld_timer.c - the controller's 1 s timer: the periodic work that no
 * message triggers, in this order:
 *
 *   1. job time limits and --signal warnings   (job_end.c),
 *      preempted jobs whose GraceTime is over   (job_preempt.c)
 *   2. steps' own time limits                   (step.c)
 *   3. SRUN_PING to each running step's srun    (step_ping.c)
 *   4. interactive allocations: grants, pings,
 *      SRUN_TIMEOUT                             (job_alloc.c)
 *   5. nodes to ask again what they run, once
 *      a launch grace ended                     (node_ping.c)
 *   6. accounting rows to write again           (acct.c)
 *   7. MinJobAge purge of finished jobs         (job.c)
 *   8. multifactor priority: usage charged every
 *      second, fairshare and priorities every
 *      PriorityCalcPeriod                       (job_prio.c)
 *   9. a scheduling pass every 5 s over the
 *      queue's head: BeginTime and the like come
 *      by no event; every sched_interval over
 *      the whole queue                          (job_sched.c)
 *
 * Ends first (1-5), so that what they free is written (6) and can be
 * purged (7), weighed (8) and used (9) in the same turn. The floor above every file it
 * calls; nothing calls it but main.c.
 */
#include "ctld_timer.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include <event2/event.h>

#include "acct.h"
#include "common/conf.h"
#include "common/log.h"
#include "ctld.h"
#include "job.h"
#include "job_alloc.h"
#include "job_end.h"
#include "job_preempt.h"
#include "job_prio.h"
#include "job_sched.h"
#include "node_ping.h"
#include "node_state.h"
#include "resv.h"
#include "step.h"
#include "step_ping.h"

#define SCHED_EVERY 5 /* s between the timer's scheduling passes */

struct ctld_timer {
	struct event *ev;
	time_t last_sched_pass; /* last scheduling pass run by the timer */
	time_t last_sched_all;	/* last pass over every pending job */
};

void ctld_timer_run(struct ctld *c, time_t now)
{
	job_view_take(c); /* the jobs 1-7 look at, in one pass */
	job_end_time_limits(c, now);
	job_preempt_timer(c, now);
	step_timer(c, now);
	step_ping_sruns(c, now);
	job_alloc_timer(c, now);
	node_ping_rechecks(c, now);
	acct_retry_lost(c, now);
	job_table_purge(c, now);
	job_view_drop(c);
	job_prio_timer(c, now);
	if (resv_tick(c, now) && node_state_save(c) < 0)
		error("reservations: the change is not saved yet");
	if (!c->timer)
		return;
	if (now - c->timer->last_sched_all >= (time_t)c->conf->sched_interval) {
		c->timer->last_sched_all = c->timer->last_sched_pass = now;
		job_sched_pass_all(c);
	} else if (now - c->timer->last_sched_pass >= SCHED_EVERY) {
		c->timer->last_sched_pass = now;
		job_sched_pass(c);
	}
}

static void ctld_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	ctld_timer_run(arg, time(NULL));
}

int ctld_timer_start(struct ctld *c)
{
	struct timeval one = {.tv_sec = 1};
	struct ctld_timer *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	c->timer = t; /* ctld_timer_stop frees what a failed start left */
	t->ev = event_new(c->base, -1, EV_PERSIST, ctld_timer_cb, c);
	if (!t->ev)
		return -ENOMEM;
	return event_add(t->ev, &one);
}

void ctld_timer_stop(struct ctld *c)
{
	if (!c->timer)
		return;
	if (c->timer->ev)
		event_free(c->timer->ev);
	free(c->timer);
	c->timer = NULL;
}
