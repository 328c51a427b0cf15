/* job_epilog.c - see job_epilog.h. */
#include "job_epilog.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/states.h"
#include "ctld.h"
#include "job.h"
#include "node.h"

void job_epilog_facts(const struct job *job, struct signal_job_msg *m)
{
	m->uid = (uint32_t)job->uid;
	m->gid = (uint32_t)job->gid;
	m->exit_code = job->exit_code;
	m->user_name = job->user_name;
	m->partition = job->partition;
	m->account = job->desc ? job->desc->account : NULL;
	m->nodes = job->nodes;
}

static void node_epilogs(struct node *n, int delta)
{
	if (delta < 0 && n->epilogs == 0)
		return;
	n->epilogs = (uint16_t)(n->epilogs + delta);
	if (n->epilogs)
		n->state |= NODE_STATE_COMPLETING;
	else
		n->state &= ~NODE_STATE_COMPLETING;
}

static void terminate_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	uint32_t job_id = (uint32_t)(uintptr_t)arg;

	if (rc == 0 && type == RESPONSE_SLURM_RC)
		rc = -(int)((struct rc_msg *)msg)->rc;
	if (rc < 0 && rc != -ESLURM_INVALID_JOB_ID)
		debug("JobId=%u: terminate for the epilog not delivered: %s", job_id,
		      sl_strerror(rc));
}

/* REQUEST_TERMINATE_JOB to one node: its stepds of the job end, then its
 * Epilog runs (or, when it ran, its result is sent again). */
static void epilog_ask(struct ctld *c, struct job *job, uint32_t node_index)
{
	struct signal_job_msg m = {
	    .job_id = job->job_id, .step_id = SL_ALL_STEPS, .signal = SIGKILL};

	job_epilog_facts(job, &m);
	if (ctld_send_node(c, &c->nodes[node_index], REQUEST_TERMINATE_JOB, &m, terminate_done_cb,
			   (void *)(uintptr_t)job->job_id)
	    < 0)
		debug("JobId=%u: cannot ask node %s for its epilog", job->job_id,
		      node_name(&c->nodes[node_index]));
}

void job_epilog_start(struct ctld *c, struct job *job)
{
	uint32_t *v;

	if (!c->conf->epilog || !job->alloc.count || job->epilog_count)
		return;
	v = calloc(job->alloc.count, sizeof(*v));
	if (!v) {
		error("JobId=%u: no memory to wait for its epilogs", job->job_id);
		return;
	}
	for (uint32_t i = 0; i < job->alloc.count; i++) {
		const struct node *n = &c->nodes[job->alloc.nodes[i].node];

		/* a node that is down runs nothing, and owes nothing */
		if ((n->state & NODE_STATE_BASE) != NODE_STATE_DOWN
		    && !(n->state & NODE_STATE_NO_RESPOND))
			v[job->epilog_count++] = job->alloc.nodes[i].node;
	}
	if (!job->epilog_count) {
		free(v);
		return;
	}
	job->epilog_nodes = v;
	job->epilog_asked = time(NULL);
	job->state |= JOB_COMPLETING;
	for (uint32_t i = 0; i < job->epilog_count; i++) {
		node_epilogs(&c->nodes[v[i]], 1);
		epilog_ask(c, job, v[i]);
	}
}

/* The node (index) owes job no epilog any more; the job is done with
 * them when it was the last. */
static void epilog_drop(struct ctld *c, struct job *job, uint32_t k)
{
	node_epilogs(&c->nodes[job->epilog_nodes[k]], -1);
	job->epilog_nodes[k] = job->epilog_nodes[--job->epilog_count];
	if (job->epilog_count == 0) {
		free(job->epilog_nodes);
		job->epilog_nodes = NULL;
		if (!job->is_epilog_ctld) /* else when EpilogSlurmctld ends */
			job->state &= ~JOB_COMPLETING;
		debug("JobId=%u: every epilog is done", job->job_id);
		ctld_sched_request(c);
	}
	job_changed(c, job);
}

int job_node_report(struct ctld *c, const struct epilog_complete_msg *m, bool is_prolog,
		    struct job **ret_job, uint32_t *ret_k)
{
	struct job *job = job_find(c, m->job_id);
	struct node *n = m->node_name ? node_find(c, m->node_name) : NULL;
	const uint32_t *v = job ? (is_prolog ? job->prolog_nodes : job->epilog_nodes) : NULL;
	uint32_t count = job ? (is_prolog ? job->prolog_count : job->epilog_count) : 0;

	for (uint32_t k = 0; n && k < count; k++)
		if (v[k] == (uint32_t)(n - c->nodes)) {
			*ret_job = job;
			*ret_k = k;
			return 0;
		}
	return -ESLURM_INVALID_JOB_ID;
}

int job_epilog_complete(struct ctld *c, const struct epilog_complete_msg *m)
{
	struct job *job;
	uint32_t k;
	int r = job_node_report(c, m, false, &job, &k);

	if (r < 0)
		return r;
	if (m->rc) {
		struct node *n = &c->nodes[job->epilog_nodes[k]];

		error("JobId=%u: epilog error on %s, draining the node", job->job_id, node_name(n));
		node_drain(c, n, "Epilog error", time(NULL));
	}
	epilog_drop(c, job, k);
	return 0;
}

void job_epilog_node_down(struct ctld *c, uint32_t node_index)
{
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];

		for (uint32_t k = 0; k < job->epilog_count; k++)
			if (job->epilog_nodes[k] == node_index) {
				info("JobId=%u: node %s is down, its epilog is not waited for",
				     job->job_id, node_name(&c->nodes[node_index]));
				epilog_drop(c, job, k);
				break;
			}
	}
}

void job_epilog_node_alive(struct ctld *c, uint32_t node_index, time_t now)
{
	time_t wait = (time_t)c->conf->message_timeout * 2;

	if (!c->nodes[node_index].epilogs)
		return;
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];

		if (!job->epilog_count || now - job->epilog_asked < wait)
			continue;
		for (uint32_t k = 0; k < job->epilog_count; k++)
			if (job->epilog_nodes[k] == node_index) {
				debug("JobId=%u: node %s owes its epilog; asking again",
				      job->job_id, node_name(&c->nodes[node_index]));
				job->epilog_asked = now;
				epilog_ask(c, job, node_index);
			}
	}
}

void job_epilog_recover(struct ctld *c)
{
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];

		job->epilog_asked = 0; /* asked when each node first answers */
		for (uint32_t k = 0; k < job->epilog_count; k++)
			node_epilogs(&c->nodes[job->epilog_nodes[k]], 1);
	}
}
