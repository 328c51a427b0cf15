/* step_create.c - where a new step of srun goes inside its job's
 * allocation (step_layout.c places it), its record and srun's reply;
 * see step_create.h.
 */
#include "step_create.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "job_gpu.h"
#include "node.h"
#include "select.h"
#include "step.h"
#include "step_layout.h"

#define STEP_ID_MAX 0xfffffff0u /* Slurm's normal steps stay below the special ids */

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

/* A typed request (gpu:a100:1) sees only the job's GPUs of that type on
 * each node; a type no node has is ESLURM_INVALID_GRES. */
static int gpus_of_type(const struct ctld *c, const struct job *job, const char *type,
			struct step_avail *a)
{
	int t = job_gpu_type_id(c, type);

	if (t <= 0)
		return -ESLURM_INVALID_GRES;
	for (uint32_t i = 0; i < job->alloc.count; i++)
		a[i].gpus &= c->nodes[job->alloc.nodes[i].node].gpu_type_mask[t - 1];
	return 0;
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

/* One GPU string of the request: a comma list of "gres/gpu:N",
 * "gres/gpu:type:N", "gpu:N" (or "none"). Sets the mode (mode, or NONE
 * for a count of 0), the count (at most max) and the type (one per step:
 * another one is ESLURM_INVALID_GRES). */
static int parse_gpu_str(const char *str, enum step_gpu_mode mode, unsigned long max,
			 struct step_layout_req *lr, unsigned long *ret, char *type, size_t type_n)
{
	_cleanup_free_ char *copy = NULL;
	char *save = NULL;

	if (!str || !*str)
		return 0;
	copy = strdup(str);
	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *count, *end, *typ;
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
			if (end == count + 1 || *end || v > max)
				return -ESLURM_INVALID_GRES;
			*count = '\0';
		}
		typ = t[3] == ':' ? t + 4 : ""; /* "gpu:a100" once the count is cut */
		if (*typ && *type && !streq(typ, type))
			return -ESLURM_INVALID_GRES; /* one GPU type per step */
		if (*typ && snprintf(type, type_n, "%s", typ) >= (int)type_n)
			return -ESLURM_INVALID_GRES;
		lr->gpu_mode = v ? mode : STEP_GPUS_NONE;
		*ret = v;
	}
	return 0;
}

/* The step's GPUs: tres_per_node (per node), tres_per_task (per task) or
 * tres_per_step (for the whole step), of one type (type, "" any); none of
 * them: all the job's GPUs there, shared. */
static int parse_gres(const struct step_create_req *m, struct step_layout_req *lr, char *type,
		      size_t type_n)
{
	unsigned long v = 0;
	int r;

	*type = '\0';
	lr->gpu_mode = (m->flags & STEP_FLAG_NO_GRES) ? STEP_GPUS_NONE : STEP_GPUS_ALL;
	if (lr->gpu_mode == STEP_GPUS_NONE)
		return 0;
	r = parse_gpu_str(m->tres_per_node, STEP_GPUS_COUNT, 64, lr, &v, type, type_n);
	if (r == 0 && lr->gpu_mode == STEP_GPUS_COUNT)
		lr->gpus_per_node = (uint16_t)v;
	if (r == 0 && m->tres_per_task && lr->gpu_mode == STEP_GPUS_ALL)
		r = parse_gpu_str(m->tres_per_task, STEP_GPUS_PER_TASK, 64, lr, &v, type, type_n);
	if (r == 0 && lr->gpu_mode == STEP_GPUS_PER_TASK)
		lr->gpus_per_task = (uint16_t)v;
	if (r == 0 && m->tres_per_step && lr->gpu_mode == STEP_GPUS_ALL)
		r = parse_gpu_str(m->tres_per_step, STEP_GPUS_TOTAL, 1u << 20, lr, &v, type, type_n);
	if (r == 0 && lr->gpu_mode == STEP_GPUS_TOTAL)
		lr->gpus_total = (uint32_t)v;
	return r;
}

/* -m arbitrary: the job node of each task from m->task_nodes (a list in
 * task order); as many as -n asks, all of the list without -n. *ret_n is
 * the task count. */
static int arb_nodes(struct ctld *c, const struct job *job, const struct step_create_req *m,
		     uint32_t **ret, uint32_t *ret_n)
{
	struct hostlist *hl = NULL;
	uint32_t *arb = NULL, n;
	size_t count = 0;
	int r;

	if (!m->task_nodes || !*m->task_nodes)
		return -ESLURM_BAD_DIST;
	r = hostlist_count_expr(m->task_nodes, TASK_MAP_TASKS_MAX, &count);
	if (r == 0 && count == 0)
		r = -ESLURM_BAD_DIST;
	if (r == 0 && m->num_tasks != NO_VAL && (m->num_tasks == 0 || m->num_tasks > count))
		r = -ESLURM_BAD_TASK_COUNT;
	if (r == 0)
		r = hostlist_new(m->task_nodes, &hl);
	if (r < 0)
		return r == -ENOMEM || r <= -1000 ? r : -ESLURM_INVALID_NODE_NAME;
	n = m->num_tasks != NO_VAL ? m->num_tasks : (uint32_t)count;
	arb = calloc(n, sizeof(*arb));
	for (uint32_t t = 0; arb && t < n && r == 0; t++) {
		struct node *x = node_find(c, hostlist_nth(hl, t));
		uint32_t k = 0;

		while (x && k < job->alloc.count && &c->nodes[job->alloc.nodes[k].node] != x)
			k++;
		if (!x)
			r = -ESLURM_INVALID_NODE_NAME;
		else if (k == job->alloc.count)
			r = -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
		arb[t] = k;
	}
	hostlist_free(hl);
	if (!arb)
		return -ENOMEM;
	if (r < 0) {
		free(arb);
		return r;
	}
	*ret = arb;
	*ret_n = n;
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
	_cleanup_free_ uint32_t *arb = NULL;
	char type[64];
	int r;

	if (!a)
		return -ENOMEM;
	if (!job->alloc.count)
		return -ESLURM_ALREADY_DONE;
	if (m->task_dist > TASK_DIST_ARBITRARY
	    || (m->task_dist == TASK_DIST_PLANE && !m->plane_size))
		return -ESLURM_BAD_DIST;
	lr.dist = (enum task_dist)m->task_dist;
	lr.plane_size = m->plane_size;
	r = lr.dist == TASK_DIST_ARBITRARY ? arb_nodes(c, job, m, &arb, &lr.num_tasks) : 0;
	lr.arb_node = arb;
	if (r == 0)
		r = parse_gres(m, &lr, type, sizeof(type));
	if (r == 0 && *type)
		r = gpus_of_type(c, job, type, a);
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
	    .is_gpus_held = (m->tres_per_node || m->tres_per_task || m->tres_per_step)
			    && !(m->flags & (STEP_FLAG_NO_GRES | STEP_FLAG_OVERLAP)),
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
	    .job_cpus_per_node = select_counts_string(&job->alloc, false),
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
		o->gpus = select_gpu_list(s->nodes[i].gpus);
		if (!o->name || !o->addr)
			return -ENOMEM;
	}
	return 0;
}

int step_create_check(struct ctld *c, const struct job *job, uid_t uid)
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

int step_create_build(struct ctld *c, const struct job *job, const struct step_create_req *m,
		      struct step *ret, struct step_create_resp *resp)
{
	struct step_layout l = {0};
	int r = step_place(c, job, m, &l);

	if (r == 0)
		r = step_build(c, job, m, &l, ret);
	if (r < 0) {
		step_layout_done(&l);
		return r;
	}
	r = resp_fill(c, job, ret, resp);
	if (r == 0)
		r = task_map_build(l.node_of, l.num_tasks, &resp->map);
	step_layout_done(&l);
	if (r < 0)
		step_rec_done(ret);
	return r;
}

struct step *step_create_commit(struct ctld *c, struct job *job, struct step *rec)
{
	struct step *s = step_append(c, job, rec);

	if (!s)
		return NULL;
	job->next_step_id++;
	job_changed(c, job); /* the id must not come again after a crash */
	return s;
}
