/* kill.c - ending the job's processes: the terminate sequence (the cancel
 * line for the user, SIGCONT + SIGTERM, SIGKILL after max(KillWait, 5 s)
 * and again every second until the tasks are gone) and the leftovers a
 * finished job leaves.
 *
 * The tasks are gone: so goes whatever they left (Slurm ends the step's
 * whole container). When the job is being ended, what is left got SIGTERM
 * with the tasks and may take until KillWait to finish: an srun still
 * reporting its step's end must not lose its last lines. Bounded: a
 * process stuck in the kernel is left to init.
 */
#include "kill.h"

#include <signal.h>
#include <time.h>

#include "common/conf.h"
#include "loop.h"
#include "proctree.h"
#include "reap.h"
#include "stepd.h"
#include "usage.h"
#include "user_error.h"

#define KILL_WAIT_MIN	 5    /* slurmd waits max(KillWait, 5) */
#define KILL_REPEAT_MS	 1000 /* SIGKILL again until the tasks are gone */
#define KILL_LEFTOVER_MS 2000 /* what survives SIGKILL this long is left to init */

static void kill_timer_fired(void *arg)
{
	struct stepd *s = arg;

	if (s->has_exited)
		return;
	proctree_signal(s, SIGKILL);
	s->kill_at_ms = loop_now_ms() + KILL_REPEAT_MS;
	loop_timer_arm(s->loop, s->kill_timer, s->kill_at_ms);
}

int kill_init(struct stepd *s)
{
	s->kill_timer = loop_timer_add(s->loop, kill_timer_fired, s);
	return s->kill_timer < 0 ? s->kill_timer : 0;
}

void kill_terminate(struct stepd *s, const char *why)
{
	unsigned wait_s = s->conf->kill_wait > KILL_WAIT_MIN ? s->conf->kill_wait : KILL_WAIT_MIN;
	time_t t = time(NULL);
	char when[32];
	struct tm tm;

	if (s->is_terminating || s->has_exited)
		return;
	s->is_terminating = true;
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	if (s->is_extern) /* adopted logins: their CPU before they go */
		usage_adopted(s);
	else /* the cancel line (no reader for the extern step's) */
		user_error(s, "*** %s ON %s CANCELLED AT %s%s%s ***", s->cancel_name,
			   s->node_name, when, why ? " DUE TO " : "", why ? why : "");
	proctree_signal(s, SIGCONT);
	proctree_signal(s, SIGTERM);
	s->kill_at_ms = loop_now_ms() + (int64_t)wait_s * 1000;
	loop_timer_arm(s->loop, s->kill_timer, s->kill_at_ms);
}

void kill_leftovers(struct stepd *s)
{
	int64_t end;

	usage_sampling_stop(s);
	usage_gather(s); /* the last sample: what is left still counts */
	while (s->is_terminating && !s->is_stopping && s->kill_at_ms
	       && loop_now_ms() < s->kill_at_ms && proctree_signal(s, 0) > 0)
		loop_once(s->loop, 100); /* requests from slurmd are still answered */
	end = loop_now_ms() + KILL_LEFTOVER_MS;
	while (proctree_signal(s, SIGKILL) > 0 && loop_now_ms() < end)
		reap_wait(s, 100);
	reap_now(s);
}
