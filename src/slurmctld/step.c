/* step.c - job steps: records, REQUEST_JOB_STEP_CREATE,
 * REQUEST_STEP_COMPLETE, steps ending with their job, step time limits.
 * See step.h. Cancel and info are in step_rpc.c.
 */
#include "step.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_async.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "common/step_cred.h"
#include "acct.h"
#include "ctld.h"
#include "durable.h"
#include "job.h"
#include "job_launch.h"
#include "node.h"
#include "rpc.h"
#include "step_layout.h"

static char *sdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

#define STEP_ID_MAX 0xfffffff0u /* Slurm's normal steps stay below the special ids */

/* ---- records ---- */

static void step_rec_done(struct step *s)
{
	free(s->name);
	free(s->command);
	free(s->nodes);
	free(s->nodes_str);
	free(s->srun_host);
	free(s->max_rss_node);
	free(s->max_vm_node);
}

void step_job_free(struct job *job)
{
	for (uint32_t i = 0; i < job->step_count; i++)
		step_rec_done(&job->steps[i]);
	free(job->steps);
	job->steps = NULL;
	job->step_count = 0;
}

struct step *step_find(struct job *job, uint32_t step_id)
{
	uint32_t lo = 0, hi = job->step_count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (job->steps[mid].step_id == step_id)
			return &job->steps[mid];
		if (job->steps[mid].step_id < step_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool step_job_had_oom(const struct job *job)
{
	for (uint32_t i = 0; i < job->step_count; i++)
		if (job->steps[i].is_oom)
			return true;
	return false;
}

bool step_is_running(const struct step *s)
{
	return s->state == JOB_RUNNING;
}

uint32_t step_running_count(const struct job *job)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < job->step_count; i++)
		n += step_is_running(&job->steps[i]);
	return n;
}

static bool step_is_over(const struct step *s)
{
	return !step_is_running(s) && s->nodes_done >= s->node_count;
}

bool step_is_of_this_run(const struct job *job, const struct step *s)
{
	return job->start_time && s->start_time >= job->start_time;
}

void step_mark_recorded(struct job *job, uint64_t seq)
{
	for (uint32_t i = 0; i < job->step_count; i++) {
		struct step *s = &job->steps[i];

		if (step_is_over(s) && !s->acct_seq && step_is_of_this_run(job, s))
			s->acct_seq = seq;
	}
}

/* Steps that are over and whose final accounting row is on disk leave the
 * job, as Slurm drops a step record when the step ends: the journal
 * record, the accounting snapshot and every scan of the job's steps then
 * cost what its running steps cost, not what all its steps ever did (a
 * job running 10,000 sruns one after the other). A step killed for memory
 * stays: it decides the job's end (step_job_had_oom). Moves the records:
 * only called where no step pointer is held (step_append). */
static void step_retire_recorded(struct ctld *c, struct job *job)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < job->step_count; i++) {
		struct step *s = &job->steps[i];

		if (step_is_over(s) && !s->is_oom && acct_seq_is_written(c, s->acct_seq)) {
			step_rec_done(s);
			continue;
		}
		if (k != i)
			job->steps[k] = *s;
		k++;
	}
	job->step_count = k;
}

/* Takes s (its strings) even on error. Returns the stored record; every
 * earlier step pointer of the job is invalid after it. */
static struct step *step_append(struct ctld *c, struct job *job, struct step *s)
{
	struct step *steps;

	step_retire_recorded(c, job);
	steps = realloc(job->steps, (job->step_count + 1) * sizeof(*steps));

	if (!steps) {
		step_rec_done(s);
		return NULL;
	}
	job->steps = steps;
	steps[job->step_count] = *s;
	return &steps[job->step_count++];
}

/* ---- notices and signals ---- */

static void notice_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	(void)type;
	(void)msg;
	if (rc < 0)
		debug("SRUN_JOB_COMPLETE for %s not delivered: %s", (char *)arg, sl_strerror(rc));
	free(arg);
}

void step_notify_srun(struct ctld *c, const struct job *job, const struct step *s, uint16_t reason)
{
	struct srun_notice_msg m = {.job_id = job->job_id, .step_id = s->step_id, .reason = reason};
	char *id = NULL;

	if (!s->srun_host || !s->srun_port)
		return;
	if (asprintf(&id, "StepId=%u.%u", job->job_id, s->step_id) < 0)
		return;
	if (rpc_async_call(c->base, c->conf->munge_socket, s->srun_host, s->srun_port,
			   SRUN_JOB_COMPLETE, &m, job->uid, c->conf->message_timeout,
			   notice_done_cb, id)
	    < 0) {
		debug("%s: cannot reach srun at %s:%u", id, s->srun_host, s->srun_port);
		free(id);
	}
}

static void step_signal_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	if (rc == 0 && type == RESPONSE_SLURM_RC)
		rc = -(int)((struct rc_msg *)msg)->rc;
	if (rc == -ESLURM_INVALID_JOB_ID || rc == -ESLURM_ALREADY_DONE)
		debug("%s: no such step on the node (done already)", (char *)arg);
	else if (rc < 0)
		error("%s: signal not delivered: %s", (char *)arg, sl_strerror(rc));
	free(arg);
}

void step_send_nodes(struct ctld *c, const struct job *job, const struct step *s, uint16_t type,
		     uint16_t sig)
{
	struct signal_job_msg m = {.job_id = job->job_id, .step_id = s->step_id, .signal = sig};

	for (uint32_t i = 0; i < s->node_count; i++) {
		const struct node *n;
		char *id = NULL;

		if (s->nodes[i].is_done || s->nodes[i].node >= c->node_count)
			continue;
		n = &c->nodes[s->nodes[i].node];
		if (asprintf(&id, "StepId=%u.%u on %s", job->job_id, s->step_id, node_name(n)) < 0)
			continue;
		if (rpc_async_call(c->base, c->conf->munge_socket, n->cfg->node_addr, n->cfg->port,
				   type, &m, c->conf->slurm_user_id, c->conf->message_timeout,
				   step_signal_done_cb, id)
		    < 0) {
			error("%s: cannot send %s", id, msg_type_name(type));
			free(id);
		}
	}
}

/* ---- ending ---- */

static void step_set_end(struct ctld *c, struct step *s, uint32_t state, time_t now)
{
	s->state = state;
	s->end_time = now;
	c->job_last_update = now;
}

/* The job whose steps array holds s. */
static struct job *step_owner(struct ctld *c, const struct step *s)
{
	uintptr_t p = (uintptr_t)s;

	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];
		uintptr_t first = (uintptr_t)job->steps;

		if (job->step_count && p >= first
		    && p < first + job->step_count * sizeof(*job->steps))
			return job;
	}
	return NULL;
}

void step_end(struct ctld *c, struct step *s, uint32_t state, time_t now)
{
	struct job *job = step_owner(c, s);

	step_set_end(c, s, state, now);
	if (job)
		job_touch(c, job); /* journal and accounting see the step's end */
}

uint32_t step_job_ending(struct ctld *c, struct job *job, uint32_t step_state, uint16_t srun_reason)
{
	time_t now = time(NULL);
	uint32_t n = 0;

	for (uint32_t i = 0; i < job->step_count; i++) {
		struct step *s = &job->steps[i];

		if (!step_is_running(s))
			continue;
		info("StepId=%u.%u ends with its job: %s", job->job_id, s->step_id,
		     job_state_string(step_state));
		step_set_end(c, s, step_state, now); /* the caller touches the job */
		step_notify_srun(c, job, s, srun_reason);
		n++;
	}
	return n;
}

void step_timer(struct ctld *c, time_t now)
{
	for (uint32_t j = 0; j < c->job_count; j++) {
		struct job *job = c->jobs[j];

		if (!job->step_count || (job->state & JOB_STATE_BASE) != JOB_RUNNING
		    || (job->state & JOB_COMPLETING))
			continue;
		for (uint32_t i = 0; i < job->step_count; i++) {
			struct step *s = &job->steps[i];

			if (!step_is_running(s) || s->time_limit == INFINITE || s->is_timed_out
			    || s->is_cancelled || now < s->start_time + (time_t)s->time_limit * 60)
				continue;
			info("Time limit exhausted for StepId=%u.%u", job->job_id, s->step_id);
			s->is_timed_out = true;
			step_send_nodes(c, job, s, REQUEST_KILL_TIMELIMIT, SIGKILL);
		}
	}
	step_ping_sruns(c, now);
}

/* ---- REQUEST_STEP_COMPLETE ---- */

static uint32_t step_final_state(const struct job *job, const struct step *s)
{
	int status = (int)s->exit_code;

	if (s->is_cancelled)
		return JOB_CANCELLED;
	if (s->is_timed_out)
		return JOB_TIMEOUT; /* its own limit */
	if (job->is_timed_out)
		return JOB_CANCELLED; /* Slurm's steps of a timed-out job end CANCELLED */
	if (job->is_cancelled)
		return JOB_CANCELLED;
	if (s->is_oom)
		return JOB_OOM;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return JOB_COMPLETE;
	return JOB_FAILED;
}

/* Keep the node name where a maximum was (MaxRSSNode / MaxVMSizeNode). */
static void step_max_node(char **dst, const char *node_name)
{
	char *s = node_name ? strdup(node_name) : NULL;

	if (node_name && !s)
		return; /* out of memory: the older name stays */
	free(*dst);
	*dst = s;
}

static void step_record_node(struct step *s, struct step_node_rec *sn,
			     const struct step_complete_msg *m)
{
	unsigned maxima;

	sn->is_done = true;
	s->nodes_done++;
	if (m->step_rc > s->exit_code)
		s->exit_code = m->step_rc;
	maxima = acct_usage_merge(&s->usage, &m->usage);
	if (maxima & ACCT_MERGE_RSS)
		step_max_node(&s->max_rss_node, m->node_name);
	if (maxima & ACCT_MERGE_VM)
		step_max_node(&s->max_vm_node, m->node_name);
	if (m->is_oom)
		s->is_oom = true;
}

int rpc_step_complete(struct ctld *c, struct rpc_req *req)
{
	const struct step_complete_msg *m = req->body;
	struct job *job = job_find(c, m->job_id);
	struct step *s = job ? step_find(job, m->step_id) : NULL;
	struct step_node_rec *sn = NULL;
	struct rc_msg *rc;

	for (uint32_t i = 0; s && m->node_name && i < s->node_count && !sn; i++)
		if (s->nodes[i].node < c->node_count
		    && streq(node_name(&c->nodes[s->nodes[i].node]), m->node_name))
			sn = &s->nodes[i];
	if (!sn || sn->is_done) {
		/* unknown (controller restarted, purged), or a retry: the
		 * stepd only needs to stop retrying */
		debug("REQUEST_STEP_COMPLETE StepId=%u.%u from %s: %s", m->job_id, m->step_id,
		      m->node_name ? m->node_name : "?", !s ? "unknown step" : "ignored");
		rpc_reply_rc(req, 0);
		return 0;
	}
	step_record_node(s, sn, m);
	c->job_last_update = time(NULL);
	if (s->nodes_done == s->node_count && step_is_running(s)) {
		step_set_end(c, s, step_final_state(job, s), time(NULL));
		info("StepId=%u.%u done: %s exit %u", job->job_id, s->step_id,
		     job_state_string(s->state), s->exit_code);
	}
	/* every node's report and usage is journaled (and accounted) before the
	 * stepd is told to stop retrying: a kill -9 now loses none of them */
	job_touch(c, job);
	rc = calloc(1, sizeof(*rc));
	if (!rc)
		return -ENOMEM;
	rpc_reply_durable(c, req, RESPONSE_SLURM_RC, rc);
	return 0;
}

/* ---- REQUEST_JOB_STEP_CREATE ---- */

/* The job's nodes with what running steps hold of them. */
static struct step_avail *avail_build(const struct job *job)
{
	struct step_avail *a = calloc(job->alloc.count ? job->alloc.count : 1, sizeof(*a));

	if (!a)
		return NULL;
	for (uint32_t i = 0; i < job->alloc.count; i++) {
		a[i].cpus = job->alloc.nodes[i].cpus;
		a[i].mem = job->alloc.nodes[i].mem;
		a[i].gpus = job->alloc.nodes[i].gpus;
	}
	for (uint32_t i = 0; i < job->step_count; i++) {
		const struct step *s = &job->steps[i];

		if (!step_is_running(s) || (s->flags & STEP_FLAG_OVERLAP))
			continue;
		for (uint32_t k = 0; k < s->node_count; k++) {
			struct step_avail *x = &a[s->nodes[k].job_node];

			x->cpus_held += s->nodes[k].cpus;
			if (s->is_gpus_held)
				x->gpus_held |= s->nodes[k].gpus;
		}
	}
	return a;
}

/* Mark -w / -x on the job's nodes. A name that is no node at all is
 * ESLURM_INVALID_NODE_NAME; a required node outside the job is
 * ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE (excluded ones are ignored). */
static int mark_nodes(struct ctld *c, const struct job *job, const char *expr, bool is_required,
		      struct step_avail *a)
{
	struct hostlist *hl = NULL;
	int r;

	if (!expr || !*expr)
		return 0;
	r = hostlist_new(expr, &hl);
	if (r < 0)
		return r == -ENOMEM ? r : -ESLURM_INVALID_NODE_NAME;
	for (size_t i = 0; i < hostlist_count(hl) && r == 0; i++) {
		struct node *n = node_find(c, hostlist_nth(hl, i));
		uint32_t k = 0;

		if (!n) {
			r = -ESLURM_INVALID_NODE_NAME;
			break;
		}
		while (k < job->alloc.count && &c->nodes[job->alloc.nodes[k].node] != n)
			k++;
		if (k == job->alloc.count) {
			if (is_required)
				r = -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
			continue;
		}
		if (is_required)
			a[k].is_required = true;
		else
			a[k].is_excluded = true;
	}
	hostlist_free(hl);
	return r;
}

/* tres_per_node: NULL (all the job's GPUs there, shared), or a comma list
 * of "gres/gpu:N", "gres/gpu:type:N", "gpu:N". */
static int parse_gres(const struct step_create_req *m, struct step_layout_req *lr)
{
	_cleanup_free_ char *copy = NULL;
	char *save = NULL;

	lr->gpu_mode = (m->flags & STEP_FLAG_NO_GRES) ? STEP_GPUS_NONE : STEP_GPUS_ALL;
	if (!m->tres_per_node || !*m->tres_per_node || lr->gpu_mode == STEP_GPUS_NONE)
		return 0;
	copy = strdup(m->tres_per_node);
	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *count, *end;
		unsigned long v = 1;

		if (!strncmp(t, "gres/", 5))
			t += 5;
		if (streq(t, "none")) {
			lr->gpu_mode = STEP_GPUS_NONE;
			continue;
		}
		if (strncmp(t, "gpu", 3) || (t[3] != '\0' && t[3] != ':' && t[3] != '='))
			return -ESLURM_INVALID_GRES;
		count = strrchr(t, ':');
		if (!count)
			count = strrchr(t, '=');
		if (count) { /* "gpu" alone is one */
			v = strtoul(count + 1, &end, 10);
			if (end == count + 1 || *end || v > 64)
				return -ESLURM_INVALID_GRES;
		}
		lr->gpu_mode = v ? STEP_GPUS_COUNT : STEP_GPUS_NONE;
		lr->gpus_per_node = (uint16_t)v;
	}
	return 0;
}

static int layout_errno(int r)
{
	switch (r) {
	case -EAGAIN:
		return -ESLURM_NODES_BUSY;
	case -ENOSPC:
		return -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	case -ERANGE:
		return -ESLURM_INVALID_NODE_COUNT;
	case -EINVAL:
		return -ESLURM_BAD_TASK_COUNT;
	default:
		return r;
	}
}

static int step_place(struct ctld *c, const struct job *job, const struct step_create_req *m,
		      struct step_layout *ret)
{
	struct step_layout_req lr = {
	    .num_tasks = m->num_tasks,
	    .min_nodes = m->min_nodes,
	    .max_nodes = m->max_nodes,
	    .cpus_per_task = m->cpus_per_task,
	    .ntasks_per_node = m->ntasks_per_node,
	    .mem_per_node = m->mem_per_node,
	    .mem_per_cpu = m->mem_per_cpu,
	    .is_overlap = (m->flags & STEP_FLAG_OVERLAP) != 0,
	};
	_cleanup_free_ struct step_avail *a = avail_build(job);
	int r;

	if (!a)
		return -ENOMEM;
	if (!job->alloc.count)
		return -ESLURM_ALREADY_DONE;
	r = parse_gres(m, &lr);
	if (r == 0)
		r = mark_nodes(c, job, m->req_nodes, true, a);
	if (r == 0)
		r = mark_nodes(c, job, m->exc_nodes, false, a);
	if (r == 0)
		r = layout_errno(step_layout_place(a, job->alloc.count, &lr, ret));
	return r;
}

static char *nodes_string(struct ctld *c, const struct job *job, const struct step_layout *l)
{
	struct hostlist *hl = NULL;
	char *s = NULL;

	if (hostlist_new(NULL, &hl) < 0)
		return NULL;
	for (uint32_t i = 0; i < l->count; i++) {
		uint32_t node = job->alloc.nodes[l->nodes[i].job_node].node;

		if (hostlist_push_host(hl, node_name(&c->nodes[node])) < 0)
			goto out;
	}
	s = hostlist_ranged_string(hl);
out:
	hostlist_free(hl);
	return s;
}

/* The record for a placed step (takes nothing from l). */
static int step_build(struct ctld *c, const struct job *job, const struct step_create_req *m,
		      const struct step_layout *l, struct step *s)
{
	*s = (struct step){
	    .step_id = job->next_step_id,
	    .name = strdup(m->name && *m->name ? m->name : "step"),
	    .command = sdup(m->command),
	    .state = JOB_RUNNING,
	    .nodes = calloc(l->count, sizeof(*s->nodes)),
	    .node_count = l->count,
	    .nodes_str = nodes_string(c, job, l),
	    .num_tasks = l->num_tasks,
	    .num_cpus = l->num_cpus,
	    .cpus_per_task =
		m->cpus_per_task == NO_VAL16 || !m->cpus_per_task ? 1 : m->cpus_per_task,
	    .flags = m->flags,
	    .is_gpus_held =
		m->tres_per_node && !(m->flags & (STEP_FLAG_NO_GRES | STEP_FLAG_OVERLAP)),
	    .time_limit = m->time_limit == NO_VAL || !m->time_limit ? INFINITE : m->time_limit,
	    .start_time = time(NULL),
	    .kill_requid = NO_VAL,
	    .srun_host = m->srun_port ? sdup(m->srun_host) : NULL,
	    .srun_port = m->srun_host ? m->srun_port : 0,
	    .srun_pid = m->srun_pid,
	};
	if (!s->name || !s->nodes || !s->nodes_str) {
		step_rec_done(s);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < l->count; i++)
		s->nodes[i] = (struct step_node_rec){
		    .job_node = l->nodes[i].job_node,
		    .node = job->alloc.nodes[l->nodes[i].job_node].node,
		    .tasks = l->nodes[i].tasks,
		    .cpus = l->nodes[i].cpus,
		    .mem = l->nodes[i].mem,
		    .gpus = l->nodes[i].gpus,
		};
	return 0;
}

static int resp_fill(struct ctld *c, const struct job *job, const struct step *s,
		     struct step_create_resp *resp)
{
	const struct job_desc *d = job->desc;

	*resp = (struct step_create_resp){
	    .job_id = job->job_id,
	    .step_id = s->step_id,
	    .step_nodes = sdup(s->nodes_str),
	    .num_tasks = s->num_tasks,
	    .node_count = s->node_count,
	    .nodes = calloc(s->node_count, sizeof(*resp->nodes)),
	    .uid = job->uid,
	    .gid = job->gid,
	    .user_name = sdup(job->user_name),
	    .job_name = sdup(d ? d->name : NULL),
	    .job_nodes = sdup(job->nodes),
	    .job_num_nodes = job->alloc.count,
	    .job_cpus_per_node = job_counts_string(&job->alloc, false),
	    .partition = sdup(job->partition),
	    .account = sdup(d ? d->account : NULL),
	    .qos = sdup(d ? d->qos : NULL),
	    .time_limit = s->time_limit,
	};
	if (!resp->nodes || !resp->step_nodes || !resp->job_cpus_per_node)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->node_count; i++) {
		const struct node *n = &c->nodes[s->nodes[i].node];
		struct step_node *o = &resp->nodes[i];

		o->name = strdup(node_name(n));
		o->addr = sdup(n->cfg->node_addr);
		o->port = n->cfg->port;
		o->tasks = s->nodes[i].tasks;
		o->cpus = s->nodes[i].cpus;
		o->mem = s->nodes[i].mem;
		o->gpus = job_gpu_indexes(s->nodes[i].gpus);
		if (!o->name || !o->addr)
			return -ENOMEM;
	}
	return step_cred_create(c->conf->munge_socket, job->job_id, s->step_id, job->uid,
				s->nodes_str, &resp->cred);
}

/* Errors go back in the step_create_resp (error_code), as srun expects. */
static int reply_create_error(struct rpc_req *req, uint32_t job_id, int r)
{
	struct step_create_resp resp = {
	    .job_id = job_id, .step_id = NO_VAL, .error_code = (uint32_t)(r < 0 ? -r : r)};

	rpc_reply(req, RESPONSE_JOB_STEP_CREATE, &resp);
	return 0;
}

static int job_check_for_step(struct ctld *c, const struct job *job, uid_t uid)
{
	if (!job)
		return -ESLURM_INVALID_JOB_ID;
	if (uid != job->uid && !ctld_is_admin(c, uid))
		return -ESLURM_ACCESS_DENIED;
	if (job_is_pending(job))
		return -ESLURM_JOB_PENDING;
	if ((job->state & JOB_STATE_BASE) != JOB_RUNNING || (job->state & JOB_COMPLETING))
		return -ESLURM_ALREADY_DONE;
	if (job->next_step_id >= STEP_ID_MAX)
		return -ESLURM_DISABLED;
	return 0;
}

int rpc_step_create(struct ctld *c, struct rpc_req *req)
{
	const struct step_create_req *m = req->body;
	struct job *job = job_find(c, m->job_id);
	struct step_layout l = {0};
	struct step rec, *s;
	struct step_create_resp *resp;
	int r;

	r = job_check_for_step(c, job, req->uid);
	if (r == -ESLURM_ACCESS_DENIED)
		error("Security violation, REQUEST_JOB_STEP_CREATE for JobId=%u from uid=%u",
		      m->job_id, (unsigned)req->uid);
	if (r == 0)
		r = step_place(c, job, m, &l);
	if (r == 0)
		r = step_build(c, job, m, &l, &rec);
	step_layout_done(&l);
	if (r < 0) {
		if (r == -ESLURM_NODES_BUSY)
			debug("JobId=%u: step creation waits: %s", m->job_id, sl_strerror(r));
		else
			info("JobId=%u: step creation refused: %s", m->job_id, sl_strerror(r));
		return reply_create_error(req, m->job_id, r);
	}
	resp = calloc(1, sizeof(*resp));
	if (!resp) {
		step_rec_done(&rec);
		return -ENOMEM;
	}
	r = resp_fill(c, job, &rec, resp);
	s = r == 0 ? step_append(c, job, &rec) : (step_rec_done(&rec), NULL);
	if (!s) {
		msg_free(msg_lookup(RESPONSE_JOB_STEP_CREATE), resp);
		return reply_create_error(req, m->job_id, r < 0 ? r : -ENOMEM);
	}
	job->next_step_id++;
	job_touch(c, job); /* the id must not come again after a crash */
	info("STEP_CREATE: StepId=%u.%u %s tasks=%u nodes=%s", job->job_id, s->step_id, s->name,
	     s->num_tasks, s->nodes_str);
	rpc_reply_durable(c, req, RESPONSE_JOB_STEP_CREATE, resp);
	return 0;
}
