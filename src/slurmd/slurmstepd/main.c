/* main.c - slurmstepd: supervise one batch script or one job step's tasks.
 *
 *   slurmstepd -f <slurm.conf> -N <NodeName>
 *
 * Spawned by slurmd in a session of its own (it outlives slurmd), with
 * the launch frame on stdin and the status pipe on stdout (stepd_proto.h).
 * Order: the loop and the stepd's signals; read the launch, load the
 * config; set up the job (launch.c: socket, script or srun connection,
 * environment, files); tell slurmd "started" (rc 0) or why not; start
 * the tasks (a batch script is the one task of its step); run the loop
 * until every task ended and was reported (the subsystems serve the
 * socket, sample usage, enforce the memory limit and the kill sequence
 * from their loop entries and timers); kill what the tasks left; report
 * the usage totals to the controller (retrying); remove socket and
 * script; exit. Nothing calls back into this file.
 */
#include "stepd.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/daemon.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "common/stepd_proto.h"
#include "cgroup.h"
#include "child.h"
#include "complete.h"
#include "io.h"
#include "kill.h"
#include "launch.h"
#include "affinity.h"
#include "loop.h"
#include "pmi.h"
#include "pmix_srv.h"
#include "proctree.h"
#include "reap.h"
#include "script.h"
#include "sock.h"
#include "step.h"
#include "task_script.h"
#include "step_io.h"
#include "usage.h"

#define STATUS_FD STDOUT_FILENO

static struct daemon_args arg_common; /* -f -L -v (-D: it never detaches anyway) */
static const char *arg_node;

static const char usage_text[] =
    "Usage: slurmstepd [OPTIONS]\n"
    "  Started by slurmd for each step, with -N and the launch frame on stdin;\n"
    "  not meant to be run by hand.\n"
    "  -D            Run in the foreground (always).\n"
    "  -f file       Read configuration from the specified file.\n"
    "  -h            Print this help message.\n"
    "  -L logfile    Log messages to the file logfile (default: SlurmdLogFile).\n"
    "  -N node_name  The node this step runs on (as slurmd -N).\n"
    "  -v            Verbose mode. Multiple -v's increase verbosity.\n"
    "  -V            Print version information and exit.\n";

static void stepd_own_opt(int ch, const char *optarg_, void *arg)
{
	(void)arg;
	(void)ch; /* 'N' */
	arg_node = optarg_;
}

/* The shared daemon flags (daemon.h) plus -N, which is required. */
static void stepd_parse_args(int argc, char **argv)
{
	static const struct daemon_cmdline cl = {"N:", usage_text, stepd_own_opt, NULL};

	daemon_parse_args(&cl, argc, argv, &arg_common);
	if (!arg_node) {
		fputs(usage_text, stderr);
		exit(1);
	}
}

static char *stepd_hostname(void)
{
	char buf[256] = "";

	gethostname(buf, sizeof(buf) - 1);
	buf[strcspn(buf, ".")] = '\0';
	return strdup(buf);
}

static int stepd_conf(struct stepd *s)
{
	struct sl_error err = {{0}};
	char abs[PATH_MAX];
	_cleanup_free_ char *logfile = NULL;
	int level;

	s->conf_path = strdup(realpath(arg_common.conf, abs) ? abs : arg_common.conf);
	if (!s->conf_path)
		return -ENOMEM;
	if (conf_load(s->conf_path, &s->conf, &err) < 0) {
		error("%s", err.text);
		return -ESLURMD_SETUP_ENVIRONMENT_ERROR;
	}
	s->node_name = strdup(arg_node);
	s->hostname = stepd_hostname();
	s->spool_dir = conf_expand_path(s->conf->slurmd_spool_dir, s->node_name, s->hostname);
	if (!s->node_name || !s->hostname || !s->spool_dir)
		return -ENOMEM;
	level = s->conf->slurmd_debug + arg_common.verbose;
	if (level >= _LOG_LEVEL_MAX)
		level = _LOG_LEVEL_MAX - 1;
	if (arg_common.logfile)
		logfile = strdup(arg_common.logfile);
	else if (s->conf->slurmd_logfile)
		logfile = conf_expand_path(s->conf->slurmd_logfile, s->node_name, s->hostname);
	if (log_init("slurmstepd", level, logfile, 1) < 0)
		error("cannot open log file %s", logfile);
	return 0;
}

/* In reverse of the set-up: the socket first, so slurmd stops finding
 * the job; the loop last, every fd in it is closed by then. */
static void stepd_cleanup(struct stepd *s)
{
	sock_close(s);
	script_remove(s);
	io_close(s);
	step_io_close(s);
	step_free(s);
	usage_free(s);
	pmi_free(s);
	pmix_srv_free(s);
	affinity_free(s);
	cgroup_destroy(s);
	proctree_free(s);
	job_env_done(&s->env);
	launch_free(s);
	if (s->ns_fd >= 0)
		close(s->ns_fd);
	s->ns_fd = -1;
	reap_close(s);
	s->loop = loop_free(s->loop);
	conf_free(s->conf);
	free(s->gids);
	free(s->script_dir);
	free(s->script_path);
	free(s->spool_dir);
	free(s->hostname);
	free(s->node_name);
	free(s->conf_path);
}

/* stdin/stdout were slurmd's pipes: point them at /dev/null. */
static void stepd_detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STATUS_FD);
	close(fd);
}

/* A step that never ran on this node still ends there for the
 * controller (as Slurm's stepd does), so its cpus come back even when
 * srun is gone. Batch launch failures are reported by slurmd's answer. */
static void stepd_failed(struct stepd *s)
{
	if (s->is_batch)
		return;
	stepd_detach_stdio();
	if (s->step)
		step_io_close(s);
	s->has_exited = true;
	s->status = 1 << 8; /* exit code 1 */
	script_remove(s);
	complete_send(s);
}

/* The loop and what registers in it before the launch is known. */
static int stepd_init(struct stepd *s)
{
	int r;

	s->loop = loop_new();
	if (!s->loop)
		return -ENOMEM;
	r = reap_init(s);
	if (r == 0)
		r = kill_init(s);
	if (r == 0)
		r = proctree_init(s);
	return r;
}

/* Start the tasks, serve the loop until each was reported (to srun, for
 * a step), kill what they left. The caller then reports the completion. */
static void stepd_run(struct stepd *s)
{
	struct rusage ru;
	int r;

	info("%s: %u task(s) launched on %s for uid %u", s->label, s->step->ntasks, s->node_name,
	     s->uid);
	if (cgroup_create(s) < 0) /* out of memory: the tasks run unconfined */
		error("%s: cannot build the step's cgroups: out of memory", s->label);
	if (affinity_init(s) < 0) /* after the cpuset: it binds within it */
		error("%s: cannot work out the tasks' CPU binding: out of memory", s->label);
	r = pmi_init(s);
	if (r < 0) { /* MPI_Init will fail in the tasks: say why here */
		error("%s: cannot start the PMI server: %s", s->label, strerror(-r));
		pmi_free(s);
	}
	r = pmix_srv_init(s);
	if (r < 0) { /* the same: MPI_Init fails, the log says why */
		error("%s: cannot start the PMIx server: %s", s->label, strerror(-r));
		pmix_srv_free(s);
	}
	r = child_start(s);
	pmi_started(s);
	if (r < 0)
		s->slurm_rc = (uint32_t)-r;
	usage_sampling_start(s);
	for (;;) {
		int next = step_io_report_exits(s);

		if (step_io_is_done(s))
			break;
		loop_once(s->loop, next);
	}
	s->end_time = time(NULL);
	usage_check_oom(s);
	if (s->is_extern && !s->is_oom)
		s->status = 0; /* its sleeper is killed with the job: that is its end */
	task_script_epilog(s); /* before what the tasks left is killed */
	kill_leftovers(s);
	cgroup_destroy(s);
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		ru = (struct rusage){0};
	/* the stepd's own CPU so far (its tasks' is their step's): bench/ reads it */
	info("%s: done, status 0x%x%s, stepd CPU %lld us", s->label, (unsigned)s->status,
	     s->is_oom ? ", killed for memory" : "",
	     (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000
		 + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

int main(int argc, char **argv)
{
	struct stepd sd = {.listen_fd = -1,
			   .listen_id = -1,
			   .err_fd = -1,
			   .ns_fd = -1,
			   .sig_fd = -1,
			   .sample_timer = -1,
			   .kill_timer = -1,
			   .done_fd = -1},
		     *s = &sd;
	int r;

	stepd_parse_args(argc, argv);
	if (!arg_common.conf)
		arg_common.conf = conf_default_path();
	log_init("slurmstepd", LOG_LEVEL_INFO, NULL, 1);
	r = stepd_init(s);
	if (r == 0)
		r = launch_read(s, STDIN_FILENO);
	if (r < 0) {
		error("cannot read the launch message: %s", sl_strerror(r));
		(void)stepd_write_rc(STATUS_FD, r == -EBADMSG ? SLURM_PROTOCOL_VERSION_ERROR
							      : SLURM_COMMUNICATIONS_RECEIVE_ERROR);
		return 1;
	}
	r = stepd_conf(s);
	if (r == 0)
		r = launch_setup(s);
	if (r < 0) {
		error("StepId=%u.%u: launch failed: %s", s->job_id, s->step_id, sl_strerror(r));
		(void)stepd_write_rc(STATUS_FD, r);
		if (s->conf && r != -ESLURMD_STEP_EXISTS)
			stepd_failed(s);
		stepd_cleanup(s);
		return 1;
	}
	/* The tasks start only if slurmd heard "started": one that timed out
	 * told the controller the launch failed. */
	r = stepd_write_rc(STATUS_FD, 0);
	if (r < 0) {
		error("%s: slurmd gave up on the launch (%s); not starting", s->label,
		      strerror(-r));
		stepd_failed(s);
		stepd_cleanup(s);
		return 1;
	}
	stepd_detach_stdio();
	if (chdir("/") < 0)
		debug("chdir /: %s", strerror(errno));
	stepd_run(s);
	/* Nothing of this run may be left for the next one (a requeued job
	 * may start here as soon as the controller has this completion): the
	 * script goes now, the socket in complete_send(). The srun connection
	 * stays open until the controller took the step's completion: srun
	 * waits for its EOF, so a next srun never finds this step's cpus
	 * still held. */
	script_remove(s);
	complete_send(s);
	step_io_close(s);
	stepd_cleanup(s);
	return 0;
}
