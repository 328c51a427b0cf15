/* step.c - the task table of a slurmstepd (step.h): one task per local
 * rank of a step, or the one task of a batch script; each task's end and
 * the step's status, the highest of the tasks'.
 *
 * Owns the tasks' fds until they are handed to the children (child.c)
 * or to step_io.c's loop entries; step_free() closes what is left, each
 * output file shared by several tasks once.
 */
#include "step.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "iobuf.h"
#include "loop.h"
#include "stepd.h"

int step_status_max(int a, int b)
{
	/* exit codes compare by value; a signal ranks above every exit code */
	int ka = WIFSIGNALED(a) ? 0x10000 + WTERMSIG(a) : WEXITSTATUS(a);
	int kb = WIFSIGNALED(b) ? 0x10000 + WTERMSIG(b) : WEXITSTATUS(b);

	return kb > ka ? b : a;
}

int step_new(struct stepd *s, uint32_t ntasks, const uint32_t *gtids)
{
	struct step *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	s->step = st;
	st->io_fd = -1;
	st->tasks = calloc(ntasks, sizeof(*st->tasks));
	if (!st->tasks)
		return -ENOMEM;
	st->ntasks = ntasks;
	for (uint32_t i = 0; i < st->ntasks; i++)
		st->tasks[i] = (struct step_task){
		    .gtid = gtids[i],
		    .ltid = i,
		    .pid = -1,
		    .child_fd = {-1, -1, -1},
		    .in_fd = -1,
		    .out_fd = -1,
		    .err_fd = -1,
		};
	return 0;
}

static bool step_is_shared(const struct step *st, int fd)
{
	for (size_t j = 0; j < st->nshared; j++)
		if (st->shared_fds[j] == fd)
			return true;
	return false;
}

/* Close fd unless it is a shared output file (closed once, at the end). */
static void step_close_fd(const struct step *st, int fd)
{
	if (fd >= 0 && !step_is_shared(st, fd))
		close(fd);
}

static void step_close_shared(struct step *st)
{
	for (size_t j = 0; j < st->nshared; j++)
		close(st->shared_fds[j]);
	st->nshared = 0;
}

void step_close_child_fds(struct step *st)
{
	for (uint32_t i = 0; i < st->ntasks; i++)
		for (int k = 0; k < 3; k++) {
			step_close_fd(st, st->tasks[i].child_fd[k]);
			st->tasks[i].child_fd[k] = -1;
		}
	step_close_shared(st);
}

void step_free(struct stepd *s)
{
	struct step *st = s->step;

	if (!st)
		return;
	for (uint32_t i = 0; i < st->ntasks; i++) {
		struct step_task *t = &st->tasks[i];

		step_close_fd(st, t->in_fd);
		step_close_fd(st, t->out_fd);
		step_close_fd(st, t->err_fd);
		iobuf_done(&t->in);
	}
	step_close_child_fds(st);
	free(st->shared_fds);
	free(st->srcs);
	free(st->tasks);
	free(st);
	s->step = NULL;
}

bool step_reaped(struct stepd *s, pid_t pid, int status)
{
	struct step *st = s->step;
	bool is_all = true, is_task = false;

	for (uint32_t i = 0; i < st->ntasks; i++) {
		struct step_task *t = &st->tasks[i];

		if (t->pid == pid && !t->has_exited) {
			t->has_exited = true;
			t->status = status;
			t->exit_ms = loop_now_ms();
			is_task = true;
			verbose("%s: task %u exited, status 0x%x", s->label, t->gtid,
				(unsigned)status);
		}
		is_all &= t->has_exited;
	}
	if (is_all && !s->has_exited) {
		s->has_exited = true;
		s->status = 0;
		for (uint32_t i = 0; i < st->ntasks; i++)
			s->status = step_status_max(s->status, st->tasks[i].status);
	}
	return is_task;
}
