/* srun.c - the srun command: run a parallel job step, creating the job
 * first when srun is not inside an allocation.
 *
 * Purpose: Slurm 22.05's srun flow: options (alloc_opt/srun_opt), then
 * without SLURM_JOB_ID/--jobid an interactive allocation (alloc_client,
 * waiting for a pending grant), the step (srun_step: create, retrying
 * while nodes are busy, and launch on every node), the task I/O loop
 * (srun_io) and, for an allocation srun made, its completion with the
 * highest task status. srun's exit code is the highest task exit code
 * (128 + signal for a signalled task).
 * --mpi=pmi2 (or MpiDefault=pmi2) gives the tasks a PMI server in their
 * stepds (slurmstepd/pmi.c), --mpi=pmix a libpmix one (pmix_srv.c); srun
 * joins their fences (srun_io.c).
 * --pty runs task 0 on a pseudo-terminal in its stepd: our terminal goes
 * raw (keys, Ctrl-C and Ctrl-Z reach the remote line discipline as
 * bytes), its size follows ours (SIGWINCH), and only task 0's output and
 * input go through, as Slurm's --pty does.
 * Caveats: -I, -r, -T, --bcast, --prolog and the like are parsed and
 * ignored.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "cli/alloc_client.h"
#include "cli/alloc_sig.h"
#include "cli/cli.h"
#include "cli/srun_env.h"
#include "cli/srun_io.h"
#include "cli/srun_opt.h"
#include "cli/srun_step.h"
#include "common/conf.h"
#include "common/job_env.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"

extern char **environ;

struct srun {
	struct srun_opts o;
	struct sl_conf *conf;
	struct alloc_listener l;
	struct job_env env;	/* --export'ed environment, then the step's variables */
	uint32_t job_id;
	bool own_alloc;		/* srun created the job: it completes it */
	struct step_create_resp *step;
	struct srun_layout lay;
	const char *mpi; /* "none" or "pmi2" (mpi_type) */
};

static void die_opt(const struct job_opt_err *e)
{
	fflush(stdout);
	fputs(e->text, stderr);
	exit(e->exit_code == JOB_OPT_EXIT_ERROR ? CLI_EXIT_ERROR : e->exit_code);
}

/* Leave, giving back the allocation srun made. */
static _Noreturn void leave(struct srun *s, int code, uint32_t status)
{
	if (s->own_alloc)
		(void)alloc_complete(s->conf, s->job_id, status);
	exit(code);
}

static void parse(struct srun *s, int argc, char **argv)
{
	struct job_opt_err err = {0};
	char info[256] = "";
	int r = srun_opt_parse(&s->o, argc, argv, environ, info, sizeof(info), &err);

	if (r == JOB_OPT_STOP) {
		srun_opt_print_stop(&s->o);
		exit(CLI_EXIT_OK);
	}
	if (r < 0)
		die_opt(&err);
	if (!s->o.job.quiet)
		fputs(info, stderr);
	if (s->o.job.quiet)
		log_set_level(LOG_LEVEL_ERROR);
	else if (s->o.job.verbose)
		log_set_level((enum log_level)(LOG_LEVEL_INFO + s->o.job.verbose));
	if (s->o.pty)
		s->o.unbuffered = true; /* as Slurm: implied */
}

static struct termios tty_saved;
static bool is_tty_raw;

static void tty_restore(void)
{
	if (is_tty_raw)
		(void)tcsetattr(STDIN_FILENO, TCSADRAIN, &tty_saved);
	is_tty_raw = false;
}

/* --pty from a terminal: ours raw until task 0 ends (or srun exits). */
static void tty_raw(void)
{
	struct termios raw;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &tty_saved) < 0)
		return;
	raw = tty_saved;
	cfmakeraw(&raw); /* the remote terminal does the output processing */
	if (tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) == 0) {
		is_tty_raw = true;
		atexit(tty_restore);
	}
}

/* --mpi (or SLURM_MPI_TYPE), else MpiDefault: none or pmi2 (with Slurm's
 * lines for a type it has no plugin for); list prints the types. */
static const char *mpi_type(const struct srun *s)
{
	const char *t = s->o.mpi ? s->o.mpi : conf_get_raw(s->conf, "MpiDefault");

	if (!t || !*t || strcaseeq(t, "none"))
		return "none";
	if (strcaseeq(t, "pmi2"))
		return "pmi2";
	if (strcaseeq(t, "list")) {
#ifdef SL_HAVE_PMIX
		fputs("MPI plugin types are...\n\tnone\n\tpmi2\n\tpmix\n"
		      "specific pmix plugin versions available: pmix_v4\n",
		      stdout);
#else
		fputs("MPI plugin types are...\n\tnone\n\tpmi2\n", stdout);
#endif
		exit(CLI_EXIT_OK);
	}
#ifdef SL_HAVE_PMIX
	if (strcaseeq(t, "pmix") || strcaseeq(t, "pmix_v4"))
		return "pmix";
#endif
	if (strncasecmp(t, "pmix", 4) == 0) {
		cli_error("MPI: Cannot create context for mpi/%s", t);
		cli_error("MPI type '%s' has no server in this cluster yet; --mpi=pmi2 serves "
			  "PMI-1 and PMI-2 clients (MPICH)",
			  t);
		exit(CLI_EXIT_ERROR);
	}
	cli_error("Couldn't find the specified plugin name for mpi/%s looking at all files", t);
	cli_error("cannot find mpi plugin for mpi/%s", t);
	cli_error("MPI: Cannot create context for mpi/%s", t);
	cli_error("MPI: Unable to load any plugin");
	cli_error("Invalid MPI type '%s', --mpi=list for acceptable types", t);
	exit(CLI_EXIT_ERROR);
}

/* Without an allocation: ask for one and wait for it. */
static void allocate(struct srun *s)
{
	struct alloc_response *a = NULL;
	const char *base = strrchr(s->o.argv[0], '/');
	char *user_msg = NULL;
	struct job_desc d;
	int r;

	r = job_opt_fill_desc(&s->o.job, &d);
	if (r == 0 && !d.name)
		d.name = strdup(base ? base + 1 : s->o.argv[0]);
	d.argv = s->o.argv; /* borrowed for the request */
	d.argc = (uint32_t)s->o.argc;
	d.env = s->env.v;
	d.env_count = (uint32_t)s->env.n;
	d.alloc_host = s->l.host;
	d.alloc_port = s->l.port;
	if (r == 0 && d.name)
		r = alloc_request(s->conf, &d, &a, &user_msg);
	else
		r = -ENOMEM;
	d.argv = NULL;
	d.argc = 0;
	d.env = NULL;
	d.env_count = 0;
	d.alloc_host = NULL;
	job_desc_done(&d);
	if (r < 0) {
		cli_error_lines(user_msg);
		free(user_msg);
		cli_error("Unable to allocate resources: %s", sl_strerror(r));
		exit(CLI_EXIT_ERROR);
	}
	s->job_id = a->job_id;
	s->own_alloc = true;
	cli_info_lines(a->user_msg); /* job_submit.lua's slurm.log_user */
	if (!a->node_list) {
		info("job %u queued and waiting for resources", s->job_id);
		alloc_grant_free(TAKE_PTR(a));
		switch (alloc_wait_grant(s->conf, &s->l, s->job_id,
					 s->o.immediate ? s->o.immediate * 1000 : -1, &a)) {
		case ALLOC_GRANTED:
			info("job %u has been allocated resources", s->job_id);
			break;
		case ALLOC_TIMED_OUT: /* -I: not granted in time, the job is given back */
			(void)alloc_complete(s->conf, s->job_id, 1);
			cli_error("Unable to allocate resources: %s",
				  sl_strerror(-ESLURM_NODES_BUSY));
			exit(CLI_EXIT_ERROR);
		case ALLOC_SIGNALLED:
			info("Job allocation %u has been revoked", s->job_id);
			leave(s, CLI_EXIT_ERROR, 0);
		case ALLOC_REVOKED:
			info("Job allocation %u has been revoked", s->job_id);
			exit(CLI_EXIT_ERROR);
		}
	}
	verbose("allocated job %u on %s", s->job_id, a->node_list);
	alloc_grant_free(a);
}

static void create_step(struct srun *s)
{
	int r = srun_step_create(s->conf, &s->o, s->job_id, &s->l, &s->step);

	if (r == -EINTR)
		leave(s, CLI_EXIT_ERROR, 1u << 8);
	if (r < 0) {
		cli_error("Unable to create step for job %u: %s", s->job_id, sl_strerror(r));
		leave(s, CLI_EXIT_ERROR, 1u << 8);
	}
	if (srun_layout_init(&s->lay, s->step) < 0) {
		cli_error("Unable to create step for job %u: %s", s->job_id,
			  "inconsistent step layout from the controller");
		(void)srun_step_signal(s->conf, s->job_id, s->step->step_id, SIGKILL);
		leave(s, CLI_EXIT_ERROR, 1u << 8);
	}
	verbose("StepId=%u.%u: %u tasks on %s", s->job_id, s->step->step_id, s->step->num_tasks,
		s->step->step_nodes);
}

static bool all_digits(const char *v)
{
	if (!*v)
		return false;
	for (; *v; v++)
		if (*v < '0' || *v > '9')
			return false;
	return true;
}

/* -o/-e/-i: what the stepd gets (NULL: streamed) and which task srun
 * serves (SRUN_ALL_TASKS, one task, or SRUN_IN_NONE for stdin). */
static const char *io_route(const char *v, const char *base, bool is_in, int *ret_task,
			    char **owned)
{
	*ret_task = SRUN_ALL_TASKS;
	if (!v || !strcasecmp(v, "all"))
		return NULL;
	if (all_digits(v)) {
		*ret_task = atoi(v);
		return NULL;
	}
	if (is_in)
		*ret_task = SRUN_IN_NONE;
	if (!strcasecmp(v, "none"))
		return "/dev/null";
	if (v[0] == '/' || !base)
		return v;
	if (asprintf(owned, "%s/%s", base, v) < 0)
		return v;
	return *owned;
}

static void io_key(char *buf, size_t n)
{
	uint8_t raw[16] = {0};
	size_t i;

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		for (i = 0; i < sizeof(raw); i++)
			raw[i] = (uint8_t)(random() ^ getpid());
	for (i = 0; i < sizeof(raw) && 2 * i + 2 < n; i++)
		snprintf(buf + 2 * i, 3, "%02x", raw[i]);
}

static int step_env(struct srun *s)
{
	char host[256], cwd[4096];
	mode_t mask = umask(0);
	struct srun_env_ctx c = {
	    .in_alloc = !s->own_alloc,
	    .comm_host = s->l.host,
	    .comm_port = s->l.port,
	    .cluster_name = s->conf->cluster_name,
	    .submit_host = host,
	    .submit_dir = getcwd(cwd, sizeof(cwd)) ? cwd : s->o.job.cwd,
	    .umask = (unsigned)mask,
	};

	umask(mask);
	errno = 0;
	c.nice = getpriority(PRIO_PROCESS, 0);
	if (errno)
		c.nice = 0;
	alloc_short_hostname(host, sizeof(host));
	if (!streq(s->mpi, "none") && job_env_set(&s->env, "SLURM_MPI_TYPE", "%s", s->mpi) < 0)
		return -ENOMEM;
	return srun_env_step(&s->env, &s->o, s->step, &c);
}

/* --prolog / --epilog (or SrunProlog / SrunEpilog; "none": nothing):
 * path with the step's command as its arguments and the step's
 * environment; its wait status (0 when there is none). */
static int srun_script(struct srun *s, const char *opt, const char *conf, const char *context)
{
	const char *path = opt ? opt : conf;
	_cleanup_free_ char **argv = NULL;
	int status = 0;
	pid_t pid;

	if (!path || !*path || strcaseeq(path, "none"))
		return 0;
	/* made before the fork: srun's threads may hold malloc's locks */
	argv = calloc((size_t)s->o.argc + 2, sizeof(*argv));
	if (!argv || job_env_set(&s->env, "SLURM_SCRIPT_CONTEXT", "%s", context) < 0)
		return -1;
	argv[0] = (char *)path;
	for (int i = 0; i < s->o.argc; i++)
		argv[i + 1] = s->o.argv[i];
	pid = fork();
	if (pid == 0) {
		execve(path, argv, s->env.v);
		dprintf(STDERR_FILENO, "srun: error: execve(): %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	job_env_unset(&s->env, "SLURM_SCRIPT_CONTEXT");
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

static int run_step(struct srun *s, uint32_t *ret_status)
{
	const char *base = s->o.job.chdir ? s->o.job.chdir : s->o.job.cwd;
	char *own_o = NULL, *own_e = NULL, *own_i = NULL, key[40] = "";
	struct srun_io_cfg io = {
	    .conf = s->conf,
	    .notice = &s->l,
	    .listen_fd = -1,
	    .key = key,
	    .resp = s->step,
	    .lay = &s->lay,
	    .label = s->o.label,
	    .unbuffered = s->o.unbuffered,
	    .kill_bad_exit = s->o.kill_bad_exit,
	    .disable_status = s->o.disable_status,
	    .quit_on_interrupt = s->o.quit_on_interrupt,
	    .max_wait = s->o.max_wait,
	    .pty = s->o.pty,
	    .tty_restore = s->o.pty ? tty_restore : NULL,
	};
	struct srun_launch how = {.cwd = base, .io_host = s->l.host, .io_key = key};
	bool *ok = calloc(s->lay.nnodes, sizeof(*ok));
	int r, rc;

	io_key(key, sizeof(key));
	how.ofname = io_route(s->o.ofname, base, false, &io.out_task, &own_o);
	how.efname = io_route(s->o.efname, base, false, &io.err_task, &own_e);
	how.ifname = io_route(s->o.ifname, base, true, &io.in_task, &own_i);
	if (!s->o.efname) { /* stderr follows stdout */
		how.efname = how.ofname;
		io.err_task = io.out_task;
	}
	if (s->o.pty) { /* task 0's terminal is the step's only stdio */
		io.in_task = io.in_task == SRUN_ALL_TASKS ? 0 : io.in_task;
		io.out_task = io.out_task == SRUN_ALL_TASKS ? 0 : io.out_task;
		io.err_task = io.err_task == SRUN_ALL_TASKS ? 0 : io.err_task;
		tty_raw();
	}
	r = ok ? step_env(s) : -ENOMEM;
	if (r == 0)
		r = alloc_tcp_listen(s->l.host, &io.listen_fd, &how.io_port);
	if (r < 0) {
		cli_error("Unable to launch StepId=%u.%u: %s", s->job_id, s->step->step_id,
			  strerror(-r));
		(void)srun_step_signal(s->conf, s->job_id, s->step->step_id, SIGKILL);
		leave(s, CLI_EXIT_ERROR, 1u << 8);
	}
	r = srun_script(s, s->o.prolog, s->conf->srun_prolog, "prolog_srun");
	if (r != 0) {
		cli_error("srun prolog failed rc = %d. Aborting step.", r);
		(void)srun_step_signal(s->conf, s->job_id, s->step->step_id, SIGKILL);
		close(io.listen_fd);
		leave(s, CLI_EXIT_ERROR, 1u << 8);
	}
	how.env = s->env.v;
	how.env_count = (uint32_t)s->env.n;
	io.launched = ok;
	r = srun_step_launch(s->conf, &s->o, s->step, &s->lay, &how, ok);
	if (r < 0) {
		(void)srun_step_signal(s->conf, s->job_id, s->step->step_id, SIGKILL);
		close(io.listen_fd);
		leave(s, CLI_EXIT_ERROR, 1u << 8);
	}
	rc = srun_io_run(&io, ret_status);
	close(io.listen_fd);
	r = srun_script(s, s->o.epilog, s->conf->srun_epilog, "epilog_srun");
	if (r != 0)
		cli_error("srun epilog failed status=%d", r);
	free(ok);
	free(own_o);
	free(own_e);
	free(own_i);
	return rc;
}

int main(int argc, char **argv)
{
	static const int sigs[] = {SIGINT,  SIGTERM, SIGHUP,   SIGQUIT, SIGUSR1,
				   SIGUSR2, SIGCONT, SIGWINCH, 0};
	struct srun s = {.l = {.fd = -1}};
	struct job_opt_err err = {0};
	uint32_t status = 0;
	int rc, r;

	cli_init(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	parse(&s, argc, argv);
	if (cli_conf_load(&s.conf) < 0)
		return CLI_EXIT_ERROR;
	if (job_opt_check_gres(&s.o.job, s.conf, &err) < 0)
		die_opt(&err);
	s.mpi = mpi_type(&s);
	if ((s.o.cpu_bind || s.o.hint) && !(s.conf->task_plugins & TASK_PLUGIN_AFFINITY))
		info("cluster configuration lacks support for cpu binding");
	s.job_id = s.o.jobid;
	r = alloc_sig_init(sigs);
	if (r == 0)
		r = alloc_listener_open(s.conf, &s.l);
	if (r == 0)
		r = srun_env_export(&s.env, s.o.job.export_env, environ);
	if (r < 0) {
		cli_error("Unable to start: %s", strerror(-r));
		return CLI_EXIT_ERROR;
	}
	if (!s.job_id)
		allocate(&s);
	create_step(&s);
	rc = run_step(&s, &status);
	if (s.own_alloc) {
		r = alloc_complete(s.conf, s.job_id, status);
		if (r < 0 && r != -ESLURM_ALREADY_DONE && r != -ESLURM_INVALID_JOB_ID)
			verbose("Unable to complete job allocation %u: %s", s.job_id,
				sl_strerror(r));
	}
	alloc_listener_close(&s.l);
	msg_free(msg_lookup(RESPONSE_JOB_STEP_CREATE), s.step);
	srun_layout_done(&s.lay);
	job_env_done(&s.env);
	srun_opts_done(&s.o);
	conf_free(s.conf);
	return rc;
}
