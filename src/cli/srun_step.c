/* srun_step.c - create a step, check its layout, launch its tasks; see
 * srun_step.h.
 * Caveat: the launch uses one thread per node for the blocking RPCs
 * (rpc_client.h); nothing else in srun runs in threads.
 */
#include "cli/srun_step.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "api/ctld_fetch.h"
#include "cli/alloc_client.h"
#include "cli/alloc_sig.h"
#include "cli/cli.h"
#include "cli/srun_opt.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"

#define STEP_TASKS_MAX 65535u /* the I/O stream's gtid is 16 bits */

int srun_layout_init(struct srun_layout *l, const struct step_create_resp *r)
{
	uint64_t sum = 0;
	uint32_t *fill = NULL;

	*l = (struct srun_layout){0};
	if (!r->node_count || !r->nodes || !r->num_tasks || r->num_tasks > STEP_TASKS_MAX)
		return -EINVAL;
	for (uint32_t n = 0; n < r->node_count; n++) {
		if (!r->nodes[n].name || !r->nodes[n].addr || !r->nodes[n].tasks)
			return -EINVAL;
		sum += r->nodes[n].tasks;
	}
	if (sum != r->num_tasks)
		return -EINVAL;
	l->node_of = calloc(r->num_tasks, sizeof(*l->node_of));
	l->ltid_of = calloc(r->num_tasks, sizeof(*l->ltid_of));
	l->ids = calloc(r->num_tasks, sizeof(*l->ids));
	l->first = calloc(r->node_count, sizeof(*l->first));
	fill = calloc(r->node_count, sizeof(*fill));
	if (!l->node_of || !l->ltid_of || !l->ids || !l->first || !fill) {
		free(fill);
		srun_layout_done(l);
		return -ENOMEM;
	}
	l->ntasks = r->num_tasks;
	l->nnodes = r->node_count;
	for (uint32_t n = 1; n < r->node_count; n++)
		l->first[n] = l->first[n - 1] + r->nodes[n - 1].tasks;
	/* the controller's map must give each node the tasks it counts */
	if (task_map_expand(&r->map, r->node_count, r->num_tasks, l->node_of) < 0)
		goto bad;
	for (uint32_t t = 0; t < l->ntasks; t++) {
		uint32_t n = l->node_of[t];

		if (fill[n] >= r->nodes[n].tasks)
			goto bad;
		l->ltid_of[t] = fill[n];
		l->ids[l->first[n] + fill[n]++] = t;
	}
	free(fill);
	return 0;
bad:
	free(fill);
	srun_layout_done(l);
	return -EINVAL;
}

void srun_layout_done(struct srun_layout *l)
{
	free(l->node_of);
	free(l->ltid_of);
	free(l->ids);
	free(l->first);
	*l = (struct srun_layout){0};
}

static char *join_argv(char **argv, int argc)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	for (int i = 0; s && i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static char *step_tres(const struct srun_opts *o)
{
	const struct job_opts *j = &o->job;
	char *s = NULL;

	if (j->gpus_per_node && asprintf(&s, "gres/gpu:%s%s%s", j->gpus_per_node,
					 j->gres ? "," : "", j->gres ? j->gres : "") < 0)
		return NULL;
	if (!s && j->gres)
		s = strdup(j->gres);
	return s;
}

static void fill_req(const struct srun_opts *o, uint32_t job_id, const struct alloc_listener *l,
		     struct step_create_req *q)
{
	const struct job_opts *j = &o->job;
	const char *base = strrchr(o->argv[0], '/');
	const char *gres_raw = j->raw[JOPT_GRES];

	*q = (struct step_create_req){
	    .job_id = job_id,
	    .num_tasks = j->ntasks_set ? (uint32_t)j->ntasks : NO_VAL,
	    .min_nodes = j->nodes_set ? (uint32_t)j->min_nodes : NO_VAL,
	    .max_nodes = j->nodes_set ? (uint32_t)(j->max_nodes ? j->max_nodes : j->min_nodes)
				      : NO_VAL,
	    .cpus_per_task = j->cpus_set ? (uint16_t)j->cpus_per_task : NO_VAL16,
	    .ntasks_per_node = j->ntasks_per_node > 0 ? (uint16_t)j->ntasks_per_node : NO_VAL16,
	    .mem_per_node = j->mem,
	    .mem_per_cpu = j->mem_per_cpu,
	    .time_limit = o->jobid ? j->time_limit : NO_VAL,
	    .srun_port = l->port,
	    .srun_pid = (uint32_t)getpid(),
	};
	if (o->exact || (o->jobid && j->exclusive))
		q->flags |= STEP_FLAG_EXCLUSIVE;
	if (o->overlap)
		q->flags |= STEP_FLAG_OVERLAP;
	if (gres_raw && !strcasecmp(gres_raw, "none"))
		q->flags |= STEP_FLAG_NO_GRES;
	if (j->no_kill) /* --no-kill or SLURM_NO_KILL */
		q->flags |= STEP_FLAG_NO_KILL;
	q->name = strdup(j->job_name ? j->job_name : base ? base + 1 : o->argv[0]);
	q->tres_per_node = step_tres(o);
	q->req_nodes = j->nodelist ? strdup(j->nodelist) : NULL;
	q->exc_nodes = j->exclude ? strdup(j->exclude) : NULL;
	q->srun_host = strdup(l->host);
	q->command = join_argv(o->argv, o->argc);
	q->task_dist = (uint16_t)o->task_dist;
	q->plane_size = o->plane_size;
	q->task_nodes = o->task_nodes ? strdup(o->task_nodes) : NULL;
	/* --gpus-per-task and --gpus of the step ("[type:]N" as given) */
	if (j->gpus_per_task && asprintf(&q->tres_per_task, "gres/gpu:%s", j->gpus_per_task) < 0)
		q->tres_per_task = NULL;
	if (j->gpus && asprintf(&q->tres_per_step, "gres/gpu:%s", j->gpus) < 0)
		q->tres_per_step = NULL;
}

static bool retry_code(int r)
{
	return r == -ESLURM_NODES_BUSY || r == -ESLURM_DISABLED || r == -EAGAIN;
}

static int create_once(const struct sl_conf *conf, const struct step_create_req *q,
		       struct step_create_resp **ret)
{
	struct step_create_resp *resp = NULL;
	int r =
	    ctld_fetch(conf, REQUEST_JOB_STEP_CREATE, q, RESPONSE_JOB_STEP_CREATE, (void **)&resp);

	if (r == 0 && resp->error_code) {
		r = -(int)resp->error_code;
		if (resp->user_msg && !retry_code(r))
			cli_error("%s", resp->user_msg);
		msg_free(msg_lookup(RESPONSE_JOB_STEP_CREATE), resp);
		resp = NULL;
	}
	*ret = resp;
	return r;
}

/* Sleep ms while answering the listener; -EINTR on a signal or the job's end. */
static int backoff(const struct sl_conf *conf, struct alloc_listener *l, uint32_t job_id, int ms)
{
	struct pollfd p = {.fd = l->fd, .events = POLLIN};
	int n = alloc_sig_poll(&p, 1, ms);
	uint16_t type;
	void *m;

	if (n < 0 && errno == EINTR)
		return -EINTR;
	if (n > 0 && alloc_listener_recv(conf, l, &type, &m) == 0) {
		bool end = type == SRUN_JOB_COMPLETE
			   && ((struct srun_notice_msg *)m)->job_id == job_id;

		msg_free(msg_lookup(type), m);
		if (end)
			return -EINTR;
	}
	return 0;
}

int srun_step_create(const struct sl_conf *conf, const struct srun_opts *o, uint32_t job_id,
		     struct alloc_listener *l, struct step_create_resp **ret)
{
	struct step_create_req q;
	time_t give_up = o->immediate ? time(NULL) + o->immediate : 0; /* -I */
	bool waited = false;
	int ms = 100, r;

	fill_req(o, job_id, l, &q);
	if (!q.name || !q.srun_host || !q.command) {
		r = -ENOMEM;
		goto out;
	}
	for (;;) {
		r = create_once(conf, &q, ret);
		if (!retry_code(r) || (give_up && time(NULL) >= give_up))
			break;
		if (!waited)
			info("Job %u step creation temporarily disabled, retrying (%s)", job_id,
			     sl_strerror(r));
		waited = true;
		if (backoff(conf, l, job_id, ms) < 0) {
			r = -EINTR;
			break;
		}
		ms = ms * 2 > 1000 ? 1000 : ms * 2;
	}
	if (r == 0 && waited)
		info("Step created for StepId=%u.%u", job_id, (*ret)->step_id);
out:
	free(q.name);
	free(q.tres_per_node);
	free(q.req_nodes);
	free(q.exc_nodes);
	free(q.srun_host);
	free(q.command);
	free(q.task_nodes);
	free(q.tres_per_task);
	free(q.tres_per_step);
	return r;
}

int srun_step_signal(const struct sl_conf *conf, uint32_t job_id, uint32_t step_id, int sig)
{
	struct step_signal_msg m = {.job_id = job_id, .step_id = step_id, .signal = (uint16_t)sig};

	return rpc_call_ctld_rc(conf, REQUEST_CANCEL_JOB_STEP, &m);
}

/* ---- launch ---- */

struct launch_one {
	const struct sl_conf *conf;
	const struct step_node *node;
	struct launch_tasks_msg msg;
	int rc;
};

static void *launch_thread(void *arg)
{
	struct launch_one *one = arg;
	uint16_t type = 0;
	void *resp = NULL;
	int r;

	r = rpc_call_addr(one->conf, one->node->addr, one->node->port, REQUEST_LAUNCH_TASKS,
			  &one->msg, &type, &resp);
	if (r == 0 && type == RESPONSE_SLURM_RC)
		r = -(int)((struct rc_msg *)resp)->rc;
	else if (r == 0)
		r = -SLURM_UNEXPECTED_MSG_ERROR;
	if (resp)
		msg_free(msg_lookup(type), resp);
	one->rc = r;
	return NULL;
}

static uint16_t launch_flags(const struct srun_opts *o)
{
	return (uint16_t)((o->unbuffered ? LAUNCH_UNBUFFERED : 0)
			  | (o->kill_bad_exit ? LAUNCH_KILL_BAD_EXIT : 0)
			  | (o->label ? LAUNCH_LABEL : 0) | (o->pty ? LAUNCH_PTY : 0)
			  | (o->multi_prog ? LAUNCH_MULTI_PROG : 0));
}

static void fill_launch(struct launch_one *one, const struct srun_opts *o,
			const struct step_create_resp *r, const struct srun_layout *lay,
			const struct srun_launch *how, uint32_t n)
{
	const struct step_node *node = &r->nodes[n];

	one->node = node;
	one->msg = (struct launch_tasks_msg){
	    .job_id = r->job_id,
	    .step_id = r->step_id,
	    .uid = r->uid,
	    .gid = r->gid,
	    .user_name = r->user_name,
	    .cred = r->cred,
	    .node_name = node->name,
	    .argv = o->argv,
	    .argc = (uint32_t)o->argc,
	    .env = how->env,
	    .env_count = how->env_count,
	    .cwd = (char *)how->cwd,
	    .step_nodes = r->step_nodes,
	    .num_nodes = r->node_count,
	    .node_id = n,
	    .num_tasks = r->num_tasks,
	    .gtids = lay->ids + lay->first[n],
	    .ntasks_here = node->tasks,
	    .map = r->map,
	    .cpus_on_node = node->cpus,
	    .mem_limit = node->mem,
	    .gpus = node->gpus,
	    .io_host = (char *)how->io_host,
	    .io_port = how->io_port,
	    .io_key = (char *)how->io_key,
	    .ofname = (char *)how->ofname,
	    .efname = (char *)how->efname,
	    .ifname = (char *)how->ifname,
	    .task_prolog = o->task_prolog,
	    .task_epilog = o->task_epilog,
	    .open_mode = o->job.open_mode,
	    .flags = launch_flags(o),
	    .time_limit = r->time_limit,
	};
}

int srun_step_launch(const struct sl_conf *conf, const struct srun_opts *o,
		     const struct step_create_resp *r, const struct srun_layout *lay,
		     const struct srun_launch *how, bool *ok)
{
	struct launch_one *one = calloc(lay->nnodes, sizeof(*one));
	pthread_t *th = calloc(lay->nnodes, sizeof(*th));
	bool *started = calloc(lay->nnodes, sizeof(*started));
	int rc = 0;

	if (!one || !th || !started) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t n = 0; n < lay->nnodes; n++) {
		one[n].conf = conf;
		fill_launch(&one[n], o, r, lay, how, n);
		started[n] = pthread_create(&th[n], NULL, launch_thread, &one[n]) == 0;
		if (!started[n])
			launch_thread(&one[n]);
	}
	for (uint32_t n = 0; n < lay->nnodes; n++) {
		if (started[n])
			pthread_join(th[n], NULL);
		ok[n] = one[n].rc == 0;
		if (one[n].rc < 0) {
			cli_error("Task launch for StepId=%u.%u failed on node %s: %s", r->job_id,
				  r->step_id, r->nodes[n].name, sl_strerror(one[n].rc));
			if (!rc)
				rc = one[n].rc;
		} else {
			verbose("launched StepId=%u.%u tasks on %s", r->job_id, r->step_id,
				r->nodes[n].name);
		}
	}
out:
	free(one);
	free(th);
	free(started);
	return rc;
}
