/* launch.c - the launch message (REQUEST_BATCH_JOB_LAUNCH or
 * REQUEST_LAUNCH_TASKS, read from slurmd's pipe) and what each kind
 * needs before "started" is reported. The two kinds differ here and
 * hardly anywhere else: a batch script is a step of one task (gtid 0)
 * whose argv[0] is the script in the spool and whose stdio are files;
 * a step's tasks get pipes (or srun's -o/-e/-i files) and srun's I/O.
 *
 * Batch: groups, socket, script, environment, files. Step: a sane
 * command and task count, groups, socket, environment, srun connection
 * (IO_INIT first), pipes and files. Both: the task table first, usage
 * and the loop entries of the task I/O last.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "common/conf.h"
#include "common/limits.h"
#include "common/macros.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/stepd_proto.h"
#include "env.h"
#include "frame.h"
#include "io.h"
#include "privs.h"
#include "script.h"
#include "sock.h"
#include "step.h"
#include "step_io.h"
#include "stepd.h"
#include "task_stdio.h"
#include "usage.h"

#define LAUNCH_READ_TIMEOUT_MS 30000 /* slurmd writes the frame right after exec */
#define LAUNCH_TASKS_MAX       65536 /* gtids travel as u16 in I/O frames */
#define LAUNCH_EXEC_FAIL_BATCH 127   /* the shell's "command not found" */
#define LAUNCH_EXEC_FAIL_TASK  2     /* Slurm's exit code for a task that could not exec */
#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

/* What both launch messages carry, under the same names. */
#define LAUNCH_COMMON(s, m)                                                                        \
	do {                                                                                       \
		(s)->job_id = (m)->job_id;                                                         \
		(s)->uid = (m)->uid;                                                               \
		(s)->gid = (m)->gid;                                                               \
		(s)->user_name = (m)->user_name;                                                   \
		(s)->mem_limit = (m)->mem_limit;                                                   \
		(s)->umask = env_umask((m)->env, (m)->env_count);                                  \
	} while (0)

static void launch_batch_msg(struct stepd *s, struct batch_launch_msg *b)
{
	s->msg = b;
	LAUNCH_COMMON(s, b);
	s->step_id = STEPD_BATCH_STEP_ID;
	snprintf(s->label, sizeof(s->label), "JobId=%u", s->job_id);
	snprintf(s->cancel_name, sizeof(s->cancel_name), "JOB %u", s->job_id);
}

static void launch_step_msg(struct stepd *s, struct launch_tasks_msg *l)
{
	s->launch = l;
	LAUNCH_COMMON(s, l);
	s->step_id = l->step_id;
	s->is_extern = l->step_id == SL_EXTERN_STEP;
	if (s->is_extern)
		snprintf(s->label, sizeof(s->label), "StepId=%u.extern", s->job_id);
	else
		snprintf(s->label, sizeof(s->label), "StepId=%u.%u", s->job_id, s->step_id);
	if (s->is_extern)
		snprintf(s->cancel_name, sizeof(s->cancel_name), "STEP %u.extern", s->job_id);
	else
		snprintf(s->cancel_name, sizeof(s->cancel_name), "STEP %u.%u", s->job_id,
			 s->step_id);
}

int launch_read(struct stepd *s, int fd)
{
	static const uint16_t types[] = {REQUEST_BATCH_JOB_LAUNCH, REQUEST_LAUNCH_TASKS};
	uint16_t type = 0;
	void *msg = NULL;
	int r;

	r = frame_read(fd, SL_FRAME_MAX_DEFAULT, LAUNCH_READ_TIMEOUT_MS, types, ARRAY_SIZE(types),
		       &type, &msg);
	if (r < 0)
		return r;
	s->is_batch = type == REQUEST_BATCH_JOB_LAUNCH;
	if (s->is_batch)
		launch_batch_msg(s, msg);
	else
		launch_step_msg(s, msg);
	return 0;
}

typedef int launch_fn(struct stepd *s);

/* job_container/tmpfs: the job's namespace, which slurmd made before it
 * started us; the tasks join it (child.c). */
static int launch_container(struct stepd *s)
{
	_cleanup_free_ char *base = NULL, *path = NULL;
	struct statfs sf;

	if (s->conf->job_container != CONTAINER_TMPFS)
		return 0;
	base = conf_container_base(s->conf, s->node_name, s->hostname);
	if (!base || asprintf(&path, "%s/%u/.ns", base, s->job_id) < 0) {
		path = NULL;
		return log_errno(-ESLURMD_SETUP_ENVIRONMENT_ERROR,
				 "%s: job_container/tmpfs: no BasePath", s->label);
	}
	s->ns_fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (s->ns_fd < 0 || fstatfs(s->ns_fd, &sf) < 0 || sf.f_type != NSFS_MAGIC)
		return log_errno(-ESLURMD_SETUP_ENVIRONMENT_ERROR,
				 "%s: job_container/tmpfs: %s is no namespace", s->label, path);
	return 0;
}

/* Each set-up step in order, until one fails. */
static int launch_run(struct stepd *s, launch_fn *const *fns, size_t n)
{
	int r = 0;

	for (size_t i = 0; i < n && r == 0; i++)
		r = fns[i](s);
	return r;
}

static int launch_batch_task(struct stepd *s)
{
	static const uint32_t gtid0;

	return step_new(s, 1, &gtid0);
}

/* The script: argv[0] its spool path (Slurm's $0), then sbatch's
 * arguments (the first NULL one ends them). */
static int launch_batch_exec(struct stepd *s)
{
	const struct batch_launch_msg *m = s->msg;

	s->exec.argv = calloc((size_t)m->argc + 2, sizeof(*s->exec.argv));
	if (!s->exec.argv)
		return -ENOMEM;
	s->exec.argv[0] = s->script_path;
	for (uint32_t i = 1; i < m->argc; i++)
		s->exec.argv[i] = m->argv[i];
	snprintf(s->exec.prefix, sizeof(s->exec.prefix), "slurmstepd-%s", s->node_name);
	s->exec.cwd = m->work_dir;
	s->exec.exec_fail_exit = LAUNCH_EXEC_FAIL_BATCH;
	return 0;
}

static launch_fn *const launch_batch[] = {
    launch_batch_task, /* first: the files become the task's fds */
    launch_container,
    privs_init,	       /* the groups, before anything is done as the user */
    sock_open,	       /* refuses a second stepd of the same job */
    script_write,      env_setup, io_open_batch, /* as the user, with the job's umask */
    launch_batch_exec,
};

static int launch_step_check(struct stepd *s)
{
	const struct launch_tasks_msg *m = s->launch;

	if (m->argc == 0 || !m->argv || !m->argv[0] || !*m->argv[0])
		return log_errno(-ESLURMD_EXECVE_FAILED, "%s: no command", s->label);
	if (m->ntasks_here == 0 || m->ntasks_here > LAUNCH_TASKS_MAX || !m->gtids)
		return log_errno(-ESLURM_BAD_TASK_COUNT, "%s: %u tasks on this node", s->label,
				 (unsigned)m->ntasks_here);
	return 0;
}

static int launch_step_tasks(struct stepd *s)
{
	return step_new(s, s->launch->ntasks_here, s->launch->gtids);
}

/* The tasks: srun's command (a NULL argument is ""), searched in the
 * task's PATH. */
static int launch_step_exec(struct stepd *s)
{
	const struct launch_tasks_msg *m = s->launch;

	s->exec.argv = calloc((size_t)m->argc + 1, sizeof(*s->exec.argv));
	if (!s->exec.argv) /* unpacked without the NULL */
		return -ENOMEM;
	for (uint32_t i = 0; i < m->argc; i++)
		s->exec.argv[i] = m->argv[i] ? m->argv[i] : "";
	snprintf(s->exec.prefix, sizeof(s->exec.prefix), "slurmstepd");
	s->exec.cwd = m->cwd;
	s->exec.is_path_search = true;
	s->exec.has_nice = true;
	s->exec.exec_fail_exit = LAUNCH_EXEC_FAIL_TASK;
	return 0;
}

static launch_fn *const launch_step[] = {
    launch_step_check, /* a command and a sane task count, before anything is made */
    launch_step_tasks, launch_container, privs_init, sock_open,
    env_setup,	       step_io_connect, /* IO_INIT first on srun's connection */
    task_stdio_open,			/* pipes, or srun's files as the user */
    launch_step_exec,
};

/* The extern step's one task, as Slurm's: a sleeper, as the user, with
 * nothing open, that keeps the step (and what pam_slurm_adopt puts in
 * it) until the job ends. */
static int launch_extern_stdio(struct stepd *s)
{
	int *fd = s->step->tasks[0].child_fd;

	for (int i = 0; i < 3; i++) {
		fd[i] = open("/dev/null", (i ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
		if (fd[i] < 0)
			return -errno;
	}
	return 0;
}

static int launch_extern_exec(struct stepd *s)
{
	static char sleeper[] = "/bin/sleep", forever[] = "100000000";

	s->exec.argv = calloc(3, sizeof(*s->exec.argv));
	if (!s->exec.argv)
		return -ENOMEM;
	s->exec.argv[0] = sleeper;
	s->exec.argv[1] = forever;
	snprintf(s->exec.prefix, sizeof(s->exec.prefix), "slurmstepd");
	s->exec.cwd = "/";
	s->exec.exec_fail_exit = LAUNCH_EXEC_FAIL_TASK;
	return 0;
}

static launch_fn *const launch_extern[] = {
    launch_step_tasks,	 launch_container,   privs_init, sock_open,
    env_setup,		 launch_extern_stdio, launch_extern_exec,
};

int launch_setup(struct stepd *s)
{
	int r;

	umask(s->umask); /* the job's files are created with it */
	if (s->is_batch) {
		r = launch_run(s, launch_batch, ARRAY_SIZE(launch_batch));
	} else if (s->is_extern) {
		r = launch_run(s, launch_extern, ARRAY_SIZE(launch_extern));
		if (r == -ENOMEM)
			r = -ESLURMD_SETUP_ENVIRONMENT_ERROR;
	} else {
		r = launch_run(s, launch_step, ARRAY_SIZE(launch_step));
		if (r == -ENOMEM)
			r = -ESLURMD_SETUP_ENVIRONMENT_ERROR;
	}
	if (r == 0 && (usage_init(s) < 0 || step_io_register(s) < 0))
		r = -ESLURMD_SETUP_ENVIRONMENT_ERROR;
	return r;
}

void launch_free(struct stepd *s)
{
	free(s->exec.argv);
	s->exec.argv = NULL;
	msg_free(msg_lookup(REQUEST_BATCH_JOB_LAUNCH), s->msg);
	msg_free(msg_lookup(REQUEST_LAUNCH_TASKS), s->launch);
	s->msg = NULL;
	s->launch = NULL;
}
