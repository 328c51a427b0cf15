/* step.c - the life of job steps: joining the job, completion reports,
 * ending with their job, time limits, scancel JOB.STEP; see step.h.
 * Placement is in step_create.c, records in step_rec.c, the srun pings in
 * step_ping.c, the RPC handlers in rpc_step.c.
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
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "node.h"

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

		if (step_is_over(s) && !s->is_oom && job_seq_is_recorded(c, s->acct_seq)) {
			step_rec_done(s);
			continue;
		}
		if (k != i)
			job->steps[k] = *s;
		k++;
	}
	job->step_count = k;
}

struct step *step_append(struct ctld *c, struct job *job, struct step *s)
{
	struct step *steps;
	uint32_t i;

	step_retire_recorded(c, job);
	steps = realloc(job->steps, (job->step_count + 1) * sizeof(*steps));

	if (!steps) {
		step_rec_done(s);
		return NULL;
	}
	job->steps = steps;
	/* id order (step_find searches): the extern step, made first, stays last */
	for (i = job->step_count; i > 0 && steps[i - 1].step_id > s->step_id; i--)
		;
	memmove(&steps[i + 1], &steps[i], (job->step_count - i) * sizeof(*steps));
	steps[i] = *s;
	job->step_count++;
	return &steps[i];
}

int step_extern_create(struct ctld *c, struct job *job, time_t now)
{
	struct step s = {
	    .step_id = SL_EXTERN_STEP,
	    .name = strdup("extern"),
	    .state = JOB_RUNNING,
	    .node_count = job->alloc.count,
	    .num_tasks = job->alloc.count,
	    .cpus_per_task = 1,
	    .flags = STEP_FLAG_OVERLAP, /* holds nothing against other steps */
	    .time_limit = INFINITE,
	    .start_time = now,
	    .kill_requid = NO_VAL,
	    .nodes_str = sdup(job->nodes),
	};
	struct step *old = step_find(job, SL_EXTERN_STEP);

	if (old && (step_is_running(old) || !step_is_over(old))) {
		free(s.name);
		free(s.nodes_str);
		return 0; /* this run's (a controller restart), or one still reporting */
	}
	s.nodes = calloc(job->alloc.count ? job->alloc.count : 1, sizeof(*s.nodes));
	if (!s.nodes || !s.name || (job->nodes && !s.nodes_str)) {
		step_rec_done(&s);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < job->alloc.count; i++) {
		const struct sel_alloc *a = &job->alloc.nodes[i];

		s.nodes[i] = (struct step_node_rec){.job_node = i, .node = a->node, .tasks = 1,
						    .cpus = a->cpus, .mem = a->mem, .gpus = a->gpus};
		s.num_cpus += a->cpus;
	}
	if (old) /* the run before a requeue, over and written: it goes */
		step_retire_recorded(c, job);
	if (step_find(job, SL_EXTERN_STEP)) {
		step_rec_done(&s);
		return 0;
	}
	if (!step_append(c, job, &s))
		return -ENOMEM;
	job_changed(c, job);
	return 0;
}

/* ---- notices and signals ---- */

static void notice_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	(void)type;
	(void)msg;
	if (rc < 0)
		debug("notice to the srun of %s not delivered: %s", (char *)arg, sl_strerror(rc));
	free(arg);
}

/* type {job, step, reason, node_name} to the step's srun (async; a failure
 * is only logged). */
static void notify_srun(struct ctld *c, const struct job *job, const struct step *s,
			uint16_t type, uint16_t reason, const char *node_name)
{
	struct srun_notice_msg m = {.job_id = job->job_id,
				    .step_id = s->step_id,
				    .reason = reason,
				    .node_name = (char *)node_name};
	char *id = NULL;

	if (!s->srun_host || !s->srun_port)
		return;
	if (asprintf(&id, "StepId=%u.%u", job->job_id, s->step_id) < 0)
		return;
	if (ctld_send(c, s->srun_host, s->srun_port, type, &m, job->uid, notice_done_cb, id) < 0) {
		debug("%s: cannot reach srun at %s:%u", id, s->srun_host, s->srun_port);
		free(id);
	}
}

void step_notify_srun(struct ctld *c, const struct job *job, const struct step *s, uint16_t reason)
{
	notify_srun(c, job, s, SRUN_JOB_COMPLETE, reason, NULL);
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
		if (ctld_send_node(c, n, type, &m, step_signal_done_cb, id) < 0) {
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
		job_changed(c, job); /* journal and accounting see the step's end */
}

uint32_t step_job_ending(struct ctld *c, struct job *job, uint32_t step_state, uint16_t srun_reason)
{
	time_t now = time(NULL);
	uint32_t n = 0;

	for (uint32_t i = 0; i < job->step_count; i++) {
		struct step *s = &job->steps[i];

		if (!step_is_running(s))
			continue;
		/* the extern step ends COMPLETED with any job, as Slurm's */
		uint32_t state = s->step_id == SL_EXTERN_STEP && step_state != JOB_NODE_FAIL
				     ? JOB_COMPLETE
				     : step_state;

		info("StepId=%u.%u ends with its job: %s", job->job_id, s->step_id,
		     job_state_string(state));
		step_set_end(c, s, state, now); /* the caller touches the job */
		step_notify_srun(c, job, s, srun_reason);
		n++;
	}
	return n;
}

/* The hostlist of the step's nodes. NULL on ENOMEM. */
static char *step_nodes_string(const struct ctld *c, const struct step *s)
{
	struct hostlist *hl = NULL;
	char *str = NULL;

	if (hostlist_new(NULL, &hl) < 0)
		return NULL;
	for (uint32_t k = 0; k < s->node_count; k++)
		if (s->nodes[k].node < c->node_count
		    && hostlist_push_host(hl, node_name(&c->nodes[s->nodes[k].node])) < 0)
			goto out;
	str = hostlist_ranged_string(hl);
out:
	hostlist_free(hl);
	return str;
}

void step_node_lost(struct ctld *c, struct job *job, uint32_t node, uint32_t job_node)
{
	const char *name = node_name(&c->nodes[node]);
	time_t now = time(NULL);

	for (uint32_t i = 0; i < job->step_count; i++) {
		struct step *s = &job->steps[i];
		struct step_node_rec *lost = NULL;

		if (!step_is_running(s))
			continue;
		for (uint32_t k = 0; k < s->node_count; k++) {
			struct step_node_rec *sn = &s->nodes[k];

			if (sn->node == node)
				lost = sn;
			else if (sn->job_node != NO_VAL && sn->job_node > job_node)
				sn->job_node--; /* the job's later nodes moved down */
		}
		if (!lost)
			continue;
		/* the extern step, and an srun --no-kill step on more than one
		 * node, go on without the node */
		if (s->step_id == SL_EXTERN_STEP
		    || ((s->flags & STEP_FLAG_NO_KILL) && s->node_count > 1)) {
			char *str;

			s->nodes_done -= lost->is_done && s->nodes_done;
			memmove(lost, lost + 1,
				(size_t)(&s->nodes[s->node_count] - (lost + 1)) * sizeof(*lost));
			s->node_count--;
			str = step_nodes_string(c, s);
			if (str) { /* out of memory: the old list stays, naming one node more */
				free(s->nodes_str);
				s->nodes_str = str;
			}
			if (s->step_id != SL_EXTERN_STEP) {
				info("StepId=%u.%u (--no-kill) goes on without node %s", job->job_id,
				     s->step_id, name);
				notify_srun(c, job, s, SRUN_NODE_FAIL, 0, name);
			}
			continue;
		}
		info("StepId=%u.%u ran on %s, which failed: the step ends NODE_FAIL", job->job_id,
		     s->step_id, name);
		if (!lost->is_done) {
			lost->is_done = true;
			s->nodes_done++;
		}
		lost->job_node = NO_VAL; /* no longer in the job's allocation */
		step_set_end(c, s, JOB_NODE_FAIL, now);
		step_send_nodes(c, job, s, REQUEST_TERMINATE_JOB, SIGKILL);
		step_notify_srun(c, job, s, SRUN_END_NODE_FAIL);
	}
}

void step_timer(struct ctld *c, time_t now)
{
	uint32_t n;
	struct job *const *jobs = job_view(c, &n);

	for (uint32_t j = 0; j < n; j++) {
		struct job *job = jobs[j];

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
	char *s = sdup(node_name);

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

int step_complete(struct ctld *c, const struct step_complete_msg *m)
{
	struct job *job = job_find(c, m->job_id);
	struct step *s = job ? step_find(job, m->step_id) : NULL;
	struct step_node_rec *sn = NULL;
	time_t end;

	for (uint32_t i = 0; s && m->node_name && i < s->node_count && !sn; i++)
		if (s->nodes[i].node < c->node_count
		    && streq(node_name(&c->nodes[s->nodes[i].node]), m->node_name))
			sn = &s->nodes[i];
	if (!sn || sn->is_done) {
		/* unknown (controller restarted, purged), or a retry: the
		 * stepd only needs to stop retrying */
		debug("REQUEST_STEP_COMPLETE StepId=%u.%u from %s: %s", m->job_id, m->step_id,
		      m->node_name ? m->node_name : "?", !s ? "unknown step" : "ignored");
		return 0;
	}
	step_record_node(s, sn, m);
	c->job_last_update = time(NULL);
	end = job_time_of_report(m->end_time, s->start_time, c->job_last_update);
	if (end > s->nodes_end_time)
		s->nodes_end_time = end;
	if (s->nodes_done == s->node_count && step_is_running(s)) {
		step_set_end(c, s, step_final_state(job, s), s->nodes_end_time);
		info("StepId=%u.%u done: %s exit %u", job->job_id, s->step_id,
		     job_state_string(s->state), s->exit_code);
	}
	job_changed(c, job);
	return 1;
}

/* ---- scancel JOB.STEP ---- */

static void batch_signal_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	uint32_t job_id = (uint32_t)(uintptr_t)arg;

	if (rc == 0 && type == RESPONSE_SLURM_RC)
		rc = -(int)((struct rc_msg *)msg)->rc;
	if (rc < 0)
		debug("JobId=%u: batch step signal: %s", job_id, sl_strerror(rc));
}

/* scancel -b / JOB.batch: the batch script's processes on the batch host. */
static int batch_signal(struct ctld *c, struct job *job, uint16_t sig)
{
	struct signal_job_msg m = {.job_id = job->job_id, .step_id = SL_BATCH_STEP, .signal = sig};
	const struct node *n;

	if (!job_has_script(job) || !job->alloc.count)
		return -ESLURM_INVALID_JOB_ID;
	n = &c->nodes[job->alloc.nodes[0].node];
	return ctld_send_node(c, n, sig == SIGKILL ? REQUEST_TERMINATE_JOB : REQUEST_SIGNAL_TASKS,
			      &m, batch_signal_done_cb, (void *)(uintptr_t)job->job_id);
}

static void step_signal_one(struct ctld *c, struct job *job, struct step *s, uint16_t sig, uid_t by)
{
	if (sig != SIGKILL) {
		info("Signal %u of StepId=%u.%u by uid %u", sig, job->job_id, s->step_id,
		     (unsigned)by);
		step_send_nodes(c, job, s, REQUEST_SIGNAL_TASKS, sig);
		return;
	}
	info("Cancel of StepId=%u.%u by uid %u", job->job_id, s->step_id, (unsigned)by);
	s->is_cancelled = true;
	s->kill_requid = (uint32_t)by; /* sacct: CANCELLED by <uid> */
	c->job_last_update = time(NULL);
	step_send_nodes(c, job, s, REQUEST_TERMINATE_JOB, SIGKILL);
	step_notify_srun(c, job, s, SRUN_END_CANCELLED);
}

int step_signal(struct ctld *c, const struct step_signal_msg *m, uid_t uid)
{
	struct job *job = job_find(c, m->job_id);
	uint16_t sig = m->signal ? m->signal : SIGKILL;
	struct step *s;

	if (!job)
		return -ESLURM_INVALID_JOB_ID;
	if (uid != job->uid && !ctld_is_admin(c, uid)) {
		error("Security violation, REQUEST_CANCEL_JOB_STEP for StepId=%u.%u from uid=%u",
		      m->job_id, m->step_id, (unsigned)uid);
		return -ESLURM_ACCESS_DENIED;
	}
	if (job_is_pending(job))
		return -ESLURM_JOB_PENDING;
	if (m->step_id == SL_BATCH_STEP) {
		if (job_is_finished(job) || (job->state & JOB_COMPLETING))
			return -ESLURM_ALREADY_DONE;
		return batch_signal(c, job, sig);
	}
	if (m->step_id == SL_ALL_STEPS) {
		for (uint32_t i = 0; i < job->step_count; i++)
			if (step_is_running(&job->steps[i]))
				step_signal_one(c, job, &job->steps[i], sig, uid);
		return 0;
	}
	s = step_find(job, m->step_id);
	if (!s)
		return -ESLURM_INVALID_JOB_ID;
	if (!step_is_running(s))
		return -ESLURM_ALREADY_DONE;
	step_signal_one(c, job, s, sig, uid);
	return 0;
}
