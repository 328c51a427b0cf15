/* srun_step.h - a job step from srun's side: create it (retrying while
 * the controller says the nodes are busy), check its layout, and launch
 * its tasks on every node (REQUEST_LAUNCH_TASKS, one per node, sent in
 * parallel).
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct sl_conf;
struct srun_opts;
struct alloc_listener;
struct step_create_resp;

/* The step's layout from the response's task map: task t runs on node
 * node_of[t] as its local task ltid_of[t]; node n holds the tasks
 * ids[first[n] .. first[n] + resp->nodes[n].tasks - 1], ascending. */
struct srun_layout {
	uint32_t ntasks, nnodes;
	uint32_t *node_of; /* per task */
	uint32_t *ltid_of; /* per task */
	uint32_t *ids;	   /* per node, from first[n] */
	uint32_t *first;   /* per node */
};

/* The i-th task (ascending) of node n. */
static inline uint32_t srun_layout_task(const struct srun_layout *l, uint32_t n, uint32_t i)
{
	return l->ids[l->first[n] + i];
}

/* Fill the layout; -EINVAL when the response is inconsistent (no node,
 * no task, counts that do not add up or differ from the task map's, over
 * 65535 tasks, a nameless node). */
int srun_layout_init(struct srun_layout *l, const struct step_create_resp *r);
void srun_layout_done(struct srun_layout *l);

/* REQUEST_JOB_STEP_CREATE for job_id with srun's notice listener in it.
 * Retries ESLURM_NODES_BUSY (and the other "try again" codes) with a
 * backoff, printing Slurm's notes. Returns 0 with *ret, the negative code,
 * or -EINTR when a signal or the job's end interrupted the wait. */
int srun_step_create(const struct sl_conf *conf, const struct srun_opts *o, uint32_t job_id,
		     struct alloc_listener *l, struct step_create_resp **ret);

/* Where the tasks' I/O goes (srun_io.h) and their environment. */
struct srun_launch {
	char **env;
	uint32_t env_count;
	const char *cwd;
	const char *io_host;
	uint16_t io_port;
	const char *io_key;
	const char *ofname, *efname, *ifname; /* patterns for the stepd, NULL: streamed */
};

/* Launch on every node. Returns 0, or the first failure's negative code
 * after printing "Task launch for StepId=N.M failed on node X: <text>"
 * for each failed node; ok[] (nnodes entries) tells which nodes started. */
int srun_step_launch(const struct sl_conf *conf, const struct srun_opts *o,
		     const struct step_create_resp *r, const struct srun_layout *lay,
		     const struct srun_launch *how, bool *ok);

/* REQUEST_CANCEL_JOB_STEP with signal; 0 or a negative code. */
int srun_step_signal(const struct sl_conf *conf, uint32_t job_id, uint32_t step_id, int sig);
