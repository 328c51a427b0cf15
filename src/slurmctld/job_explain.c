/* job_explain.c - "why is my job not running?" in plain words: the text
 * scontrol show job adds as Explanation= for a pending job, derived from
 * its reason and the job and partition it concerns (nothing stored).
 */
#include "job_explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

char *job_explain(const struct ctld *c, const struct job *job)
{
	const struct part *p = part_find(c, job->partition);
	char t[64], *s = NULL;
	int n = -1;

	if (!job_is_pending(job))
		return NULL;
	switch (job->reason) {
	case WAIT_PART_CONFIG:
		return explain_part_config(job, p);
	case WAIT_RESOURCES:
		n = asprintf(&s, "it is next in partition %s but no set of its nodes has %u cpus "
				 "and the memory and GPUs it asks for free now; it starts when running "
				 "jobs end",
			     job->partition, job->num_tasks * job->cpus_per_task);
		break;
	case WAIT_PRIORITY:
		n = asprintf(&s, "jobs of higher priority in partition %s wait for resources "
				 "first", job->partition);
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
