/* step.c - slurmstepd's step mode, see step.h.
 *
 * Setup (before slurmd hears "started"): the user's groups, the control
 * socket <spool>/<node>_<job>.<step> (refused when a stepd answers there),
 * the step's environment, the connection to srun (IO_INIT first), the
 * tasks' pipes and files. Run: fork the tasks, then the loop until every
 * task was reported to srun and the output written; what the tasks left
 * behind is killed, the connection closed. main.c then reports
 * REQUEST_STEP_COMPLETE (complete.c) and exits.
 */
#include "step.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/io_proto.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "stepd.h"

#define STEP_TASKS_MAX 65536 /* gtids travel as u16 in I/O frames */

int step_status_max(int a, int b)
{
	/* exit codes compare by value; a signal ranks above every exit code */
	int ka = WIFSIGNALED(a) ? 0x10000 + WTERMSIG(a) : WEXITSTATUS(a);
	int kb = WIFSIGNALED(b) ? 0x10000 + WTERMSIG(b) : WEXITSTATUS(b);

	return kb > ka ? b : a;
}

void step_message(struct stepd *s, const char *fmt, ...)
{
	char line[1100];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = io_error_line(line, sizeof(line), NULL, "", fmt, ap);
	va_end(ap);
	if (s->step && n > 0) {
		step_io_frame(s, IO_MESSAGE, 0, 0, line, n);
		/* on its way before the stepd answers whoever made it say this:
		 * a cancel line must reach srun before the batch script (and
		 * srun with it) is signalled (slurmd's relay_all) */
		step_io_flush(s);
	}
}

static int check_launch(const struct stepd *s)
{
	const struct launch_tasks_msg *m = s->launch;

	if (m->argc == 0 || !m->argv || !m->argv[0] || !*m->argv[0])
		return log_errno(-ESLURMD_EXECVE_FAILED, "StepId=%u.%u: no command", s->job_id,
				 s->step_id);
	if (m->ntasks_here == 0 || m->ntasks_here > STEP_TASKS_MAX || !m->gtids)
		return log_errno(-ESLURM_BAD_TASK_COUNT, "StepId=%u.%u: %u tasks on this node",
				 s->job_id, s->step_id, (unsigned)m->ntasks_here);
	return 0;
}

static int step_new(struct stepd *s)
{
	const struct launch_tasks_msg *m = s->launch;
	struct step *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	s->step = st;
	st->io_fd = -1;
	st->tasks = calloc(m->ntasks_here, sizeof(*st->tasks));
	st->pfd_cap = 2 + 1 + 3 * (size_t)m->ntasks_here;
	st->pfd = calloc(st->pfd_cap, sizeof(*st->pfd));
	if (!st->tasks || !st->pfd)
		return -ENOMEM;
	st->ntasks = m->ntasks_here;
	for (uint32_t i = 0; i < st->ntasks; i++)
		st->tasks[i] = (struct step_task){
		    .gtid = m->gtids[i],
		    .ltid = i,
		    .pid = -1,
		    .child_fd = {-1, -1, -1},
		    .in_fd = -1,
		    .out_fd = -1,
		    .err_fd = -1,
		};
	return 0;
}

int step_setup(struct stepd *s)
{
	struct job_env_node node = stepd_env_node(s);
	int r;

	node.cluster_name = s->conf->cluster_name;

	r = check_launch(s);
	if (r == 0)
		r = step_new(s);
	if (r == 0)
		r = privs_init(s);
	if (r == 0)
		r = sock_open(s);
	if (r == 0)
		r = job_env_step(&s->env, s->launch, &node);
	if (r == 0)
		r = step_io_connect(s);
	if (r == 0)
		r = step_task_files(s);
	return r == -ENOMEM ? -ESLURMD_SETUP_ENVIRONMENT_ERROR : r;
}

void step_run(struct stepd *s)
{
	int r;

	info("StepId=%u.%u: %u task(s) launched on %s for uid %u", s->job_id, s->step_id,
	     s->step->ntasks, s->node_name, s->uid);
	r = step_task_start(s);
	if (r < 0)
		s->slurm_rc = (uint32_t)-r;
	stepd_sampling_start(s);
	for (;;) {
		int next = step_io_report_exits(s), t;

		if (step_io_is_done(s))
			break;
		t = stepd_loop_timeout_ms(s);
		if (next >= 0 && next < t)
			t = next;
		stepd_poll(s, t);
	}
	stepd_kill_leftovers(s);
	/* The srun connection stays open until the controller took the step's
	 * completion (main.c): srun waits for its EOF, so a next srun never
	 * finds this step's cpus still held. */
}

void step_free(struct stepd *s)
{
	struct step *st = s->step;

	if (!st)
		return;
	step_io_close(s);
	for (uint32_t i = 0; i < st->ntasks; i++) {
		struct step_task *t = &st->tasks[i];
		int fds[] = {t->child_fd[0], t->child_fd[1], t->child_fd[2],
			     t->in_fd,	     t->out_fd,	     t->err_fd};

		for (size_t k = 0; k < ARRAY_SIZE(fds); k++) {
			bool is_shared = false;

			for (size_t j = 0; j < st->nshared; j++)
				is_shared |= st->shared_fds[j] == fds[k];
			if (fds[k] >= 0 && !is_shared)
				close(fds[k]);
		}
		free(t->in.data);
	}
	for (size_t j = 0; j < st->nshared; j++)
		close(st->shared_fds[j]);
	free(st->shared_fds);
	free(st->tasks);
	free(st->pfd);
	free(st);
	s->step = NULL;
}
