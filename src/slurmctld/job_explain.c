/* job_explain.c - "why is my job not running?" in plain words: the text
 * scontrol show job adds as Explanation= for a pending job, derived from
 * its reason and the job and partition it concerns (nothing stored).
 */
#include "job_explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/conf.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_time.h"
#include "ctld.h"
#include "job.h"
#include "job_array.h"
#include "part.h"

static char *explain_part_config(const struct job *job, const struct part *p)
{
	char a[32], b[32], *s = NULL;
	int n = -1;

	if (!p)
		n = asprintf(&s, "partition %s no longer exists; move the job with "
				 "scontrol update JobId=%u Partition=<name>", job->partition, job->job_id);
	else if (job->min_nodes > p->node_count)
		n = asprintf(&s, "it asks for %u nodes but partition %s has %u, so it can never "
				 "start there; lower -N or choose another partition",
			     job->min_nodes, p->cfg->name, p->node_count);
	else if (p->cfg->max_time != INFINITE && job->time_limit > p->cfg->max_time)
		n = asprintf(&s, "its time limit %s is over partition %s's MaxTime %s, so it can "
				 "never start there; lower it with scontrol update JobId=%u "
				 "TimeLimit=...",
			     mins2time_str(job->time_limit, a, sizeof(a)), p->cfg->name,
			     mins2time_str(p->cfg->max_time, b, sizeof(b)), job->job_id);
	else if (p->cfg->max_nodes != INFINITE && job->min_nodes > p->cfg->max_nodes)
		n = asprintf(&s, "it asks for %u nodes but partition %s allows at most %u per job",
			     job->min_nodes, p->cfg->name, p->cfg->max_nodes);
	return n < 0 ? NULL : s;
}

/* Backfill's plan in words: "; expected to start at 14:05 on g1 when job
 * 812 ends" (the date too when not today), "" when there is none. */
static void plan_words(const struct job *job, char *buf, size_t size)
{
	char when[32], after[48] = "";
	time_t now = time(NULL);
	struct tm tn, ts;

	*buf = 0;
	if (!job->sched_start && job->sched_by == JOB_SCHED_BF_PLAN)
		snprintf(buf, size, "; backfill found no start for it within bf_window");
	if (!job->sched_start || !localtime_r(&now, &tn) || !localtime_r(&job->sched_start, &ts))
		return;
	strftime(when, sizeof(when),
		 tn.tm_yday == ts.tm_yday && tn.tm_year == ts.tm_year ? "%H:%M" : "%Y-%m-%d %H:%M",
		 &ts);
	if (job->sched_after)
		snprintf(after, sizeof(after), " when job %u ends", job->sched_after);
	snprintf(buf, size, "; expected to start at %s on %s%s", when,
		 job->sched_nodes ? job->sched_nodes : "?", after);
}

char *job_explain(const struct ctld *c, const struct job *job)
{
	char plan[160];

	const struct part *p = part_find(c, job->partition);
	char t[64], *s = NULL;
	int n = -1;

	if (!job_is_pending(job))
		return NULL;
	switch (job->reason) {
	case WAIT_PART_CONFIG:
		return explain_part_config(job, p);
	case WAIT_RESOURCES:
		plan_words(job, plan, sizeof(plan));
		n = asprintf(&s,
			     "it is next in partition %s but no set of its nodes has %u cpus "
			     "and the memory and GPUs it asks for free now; it starts when running "
			     "jobs end%s",
			     job->partition, job->num_tasks * job->cpus_per_task, plan);
		break;
	case WAIT_PRIORITY:
		plan_words(job, plan, sizeof(plan));
		n = asprintf(&s,
			     "jobs of higher priority in partition %s wait for resources "
			     "first%s",
			     job->partition, plan);
		break;
	case WAIT_DEPENDENCY:
		n = asprintf(&s, "it waits for its dependency (%s)",
			     job->desc && job->desc->dependency ? job->desc->dependency : "?");
		break;
	case WAIT_DEP_INVALID:
		n = asprintf(&s, "its dependency (%s) can never be satisfied; cancel it or change "
				 "it with scontrol update JobId=%u Dependency=...",
			     job->desc && job->desc->dependency ? job->desc->dependency : "?",
			     job->job_id);
		break;
	case WAIT_HELD_USER:
		n = asprintf(&s, "it is held by its owner; scontrol release %u lets it run",
			     job->job_id);
		break;
	case WAIT_HELD:
		n = asprintf(&s, "it is held by an administrator, who must release it");
		break;
	case WAIT_TIME:
		n = asprintf(&s, "it may not start before %s (--begin)",
			     time_to_iso(job->eligible_time, t, sizeof(t)));
		break;
	case WAIT_ARRAY_TASK_LIMIT:
		n = asprintf(&s, "%u tasks of the array run and its throttle (%%%u) allows no "
				 "more", job_array_running(c, job), job->array_throttle);
		break;
	case WAIT_NODE_NOT_AVAIL:
		n = asprintf(&s, "a node it requires with -w is down, drained or not responding "
				 "(%s); it starts when that node is back, or remove it with "
				 "scontrol update JobId=%u ReqNodeList=...",
			     job->state_desc ? job->state_desc : "?", job->job_id);
		break;
	case WAIT_PART_DOWN:
	case WAIT_PART_INACTIVE:
		n = asprintf(&s, "partition %s is not up", job->partition);
		break;
	default:
		return NULL;
	}
	return n < 0 ? NULL : s;
}
