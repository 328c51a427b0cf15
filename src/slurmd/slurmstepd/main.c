/* main.c - slurmstepd: supervise one batch script or one job step's tasks.
 *
 *   slurmstepd -f <slurm.conf> -N <NodeName>
 *
 * Started by slurmd (double fork + setsid, so it outlives slurmd), with
 * the launch frame on stdin and the status pipe on stdout (stepd_proto.h).
 * Order: read the launch, load the config, socket, script, environment,
 * output files; tell slurmd "started" (rc 0) or why not; run the script;
 * serve the socket, sample usage (0.1 s after the start, then every
 * JobAcctGatherFrequency), enforce the memory limit and the kill
 * sequence until the script exits; sample once more and kill what it
 * left; report the usage totals to the controller (retrying); remove
 * socket and script; exit. A step
 * (REQUEST_LAUNCH_TASKS) follows the same order with step.c's setup and
 * loop in place of the script's.
 *
 * SIGTERM or SIGINT to the stepd (an admin, a test harness wiping a node)
 * kills the job at once, tries the report once and exits.
 */
#include "stepd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "step.h"
#include "stepd_proto.h"

#define LAUNCH_READ_TIMEOUT_MS 30000 /* slurmd writes the frame right after exec */
#define ACCT_FREQ_DEFAULT 30          /* JobAcctGatherFrequency task=30 */
#define KILL_WAIT_MIN 5               /* slurmd waits max(KillWait, 5) */
#define STATUS_FD STDOUT_FILENO

static const char *arg_conf;
static const char *arg_node;

static void usage(FILE *f)
{
	fprintf(f, "Usage: slurmstepd -f slurm.conf -N node_name < launch-frame\n"
		   "  (started by slurmd; not meant to be run by hand)\n");
}

static void parse_args(int argc, char **argv)
{
	int ch;

	while ((ch = getopt(argc, argv, "f:hN:V")) != -1) {
		switch (ch) {
		case 'f':
			arg_conf = optarg;
			break;
		case 'N':
			arg_node = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("slurm %s\n", SL_VERSION);
			exit(0);
		default:
			usage(stderr);
			exit(1);
		}
	}
	if (!arg_node) {
		usage(stderr);
		exit(1);
	}
}

int64_t stepd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int read_launch(struct stepd *s)
{
	uint8_t hdr[STEPD_HDR_LEN];
	_cleanup_free_ uint8_t *body = NULL;
	uint32_t len = 0;
	uint16_t type = 0;
	void *msg = NULL;
	int r;

	r = stepd_read_all(STDIN_FILENO, hdr, sizeof(hdr), LAUNCH_READ_TIMEOUT_MS);
	if (r == 0)
		r = stepd_frame_header(hdr, SL_FRAME_MAX_DEFAULT, &len, &type);
	if (r == 0 && type != REQUEST_BATCH_JOB_LAUNCH && type != REQUEST_LAUNCH_TASKS)
		r = -EBADMSG;
	if (r < 0)
		return r;
	body = malloc(len ? len : 1);
	if (!body)
		return -ENOMEM;
	r = stepd_read_all(STDIN_FILENO, body, len, LAUNCH_READ_TIMEOUT_MS);
	if (r == 0)
		r = msg_unpack_body(type, body, len, PROTOCOL_VERSION, &msg);
	if (r < 0)
		return r;
	s->is_batch = type == REQUEST_BATCH_JOB_LAUNCH;
	if (s->is_batch) {
		struct batch_launch_msg *b = msg;

		s->msg = b;
		s->job_id = b->job_id;
		s->step_id = STEPD_BATCH_STEP_ID;
		s->uid = b->uid;
		s->gid = b->gid;
		s->user_name = b->user_name;
		s->mem_limit = b->mem_limit;
	} else {
		struct launch_tasks_msg *l = msg;

		s->launch = l;
		s->job_id = l->job_id;
		s->step_id = l->step_id;
		s->uid = l->uid;
		s->gid = l->gid;
		s->user_name = l->user_name;
		s->mem_limit = l->mem_limit;
	}
	return 0;
}

static char *short_hostname(void)
{
	char buf[256] = "";

	gethostname(buf, sizeof(buf) - 1);
	buf[strcspn(buf, ".")] = '\0';
	return strdup(buf);
}

/* JobAcctGatherFrequency: "30", "task=30" or "task=30,energy=0". */
static unsigned acct_freq(const struct sl_conf *c)
{
	const char *v = conf_get_raw(c, "JobAcctGatherFrequency"), *t;
	unsigned long n;
	char *end;

	if (!v)
		return ACCT_FREQ_DEFAULT;
	t = strcasestr(v, "task=");
	n = strtoul(t ? t + 5 : v, &end, 10);
	if (end == (t ? t + 5 : v) || n > 86400)
		return ACCT_FREQ_DEFAULT;
	return (unsigned)n;
}

/* GPU variables are exported only when gres.conf names device files. */
static bool has_gpu_files(const struct stepd *s)
{
	for (uint32_t i = 0; i < s->conf->gres_count; i++) {
		const struct gres_conf *g = &s->conf->gres[i];
		struct hostlist *hl = NULL;
		bool is_here;

		if (!g->name || !streq(g->name, "gpu") || !g->file)
			continue;
		if (!g->node_name)
			return true;
		if (hostlist_new(g->node_name, &hl) < 0)
			continue;
		is_here = hostlist_find(hl, s->node_name) >= 0;
		hostlist_free(hl);
		if (is_here)
			return true;
	}
	return false;
}

/* SLURM_UMASK as submitted (octal), else 022. */
static mode_t job_umask(char *const *env, uint32_t env_count)
{
	static const char key[] = "SLURM_UMASK=";

	for (uint32_t i = 0; env && i < env_count; i++) {
		char *end;
		unsigned long v;

		if (!env[i] || strncmp(env[i], key, sizeof(key) - 1) != 0)
			continue;
		v = strtoul(env[i] + sizeof(key) - 1, &end, 8);
		if (*end == '\0' && v <= 0777)
			return (mode_t)v;
	}
	return 022;
}

static int setup_conf(struct stepd *s)
{
	struct sl_error err = { { 0 } };
	char abs[PATH_MAX];
	_cleanup_free_ char *logfile = NULL;
	int level;

	s->conf_path = strdup(realpath(arg_conf, abs) ? abs : arg_conf);
	if (!s->conf_path)
		return -ENOMEM;
	if (conf_load(s->conf_path, &s->conf, &err) < 0) {
		error("%s", err.text);
		return -ESLURMD_SETUP_ENVIRONMENT_ERROR;
	}
	s->node_name = strdup(arg_node);
	s->hostname = short_hostname();
	s->spool_dir = conf_expand_path(s->conf->slurmd_spool_dir, s->node_name, s->hostname);
	if (!s->node_name || !s->hostname || !s->spool_dir)
		return -ENOMEM;
	level = s->conf->slurmd_debug;
	if (s->conf->slurmd_logfile)
		logfile = conf_expand_path(s->conf->slurmd_logfile, s->node_name, s->hostname);
	if (log_init("slurmstepd", level, logfile, 1) < 0)
		error("cannot open log file %s", logfile);
	s->acct_freq_s = acct_freq(s->conf);
	return 0;
}

struct job_env_node stepd_env_node(const struct stepd *s)
{
	const struct sl_conf *c = s->conf;

	return (struct job_env_node){
		.node_name = s->node_name,
		.host_name = s->hostname,
		.conf_path = s->conf_path,
		.ctld_addr = c->control_addr ? c->control_addr : c->control_machine,
		.ctld_port = c->slurmctld_port,
		.has_gpu_files = has_gpu_files(s),
	};
}

static int setup_job(struct stepd *s)
{
	struct job_env_node node = stepd_env_node(s);
	int r;

	if (s->is_batch)
		s->umask = job_umask(s->msg->env, s->msg->env_count);
	else
		s->umask = job_umask(s->launch->env, s->launch->env_count);
	umask(s->umask); /* the job's files are created with it */
	if (!s->is_batch) {
		r = step_setup(s);
	} else {
		r = privs_init(s);
		if (r == 0)
			r = sock_open(s);
		if (r == 0)
			r = script_write(s);
		if (r == 0)
			r = job_env_batch(&s->env, s->msg, &node);
		if (r == 0)
			r = io_open(s);
	}
	if (r == 0 && usage_init(s) < 0)
		r = -ESLURMD_SETUP_ENVIRONMENT_ERROR;
	return r;
}

/* Drain the signalfd; SIGTERM/SIGINT kill the job and make us stop. */
static void signals_read(struct stepd *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigchld_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD || s->is_stopping)
			continue;
		s->is_stopping = true;
		info("JobId=%u: slurmstepd got signal %u: killing the job", s->job_id,
		     (unsigned)si.ssi_signo);
		if (!s->has_exited)
			usage_signal_job(s, SIGKILL);
	}
	task_reap(s);
}

void stepd_poll(struct stepd *s, int timeout_ms)
{
	struct pollfd base[2], *p = s->step ? s->step->pfd : base;
	size_t n = 2;
	int64_t now;

	p[0] = (struct pollfd){ .fd = s->listen_fd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = s->sigchld_fd, .events = POLLIN };
	if (s->step) /* srun's socket (or -1 once gone) and the task pipes */
		n += step_io_poll_fill(s, p + 2);
	if (poll(p, (nfds_t)n, timeout_ms) > 0) {
		if (p[1].revents & POLLIN)
			signals_read(s);
		if (n > 2)
			step_io_poll_handle(s, p + 2, n - 2);
		if (p[0].revents & POLLIN)
			sock_handle(s);
	}
	now = stepd_now_ms();
	if (!s->has_exited && s->kill_at_ms && now >= s->kill_at_ms) {
		usage_signal_job(s, SIGKILL);
		s->kill_at_ms = now + 1000; /* again until the script is gone */
	}
	if (!s->has_exited && s->next_sample_ms && now >= s->next_sample_ms) {
		usage_sample(s);
		s->next_sample_ms = stepd_now_ms() + (int64_t)s->acct_freq_s * 1000;
	}
}

void stepd_terminate(struct stepd *s, const char *why)
{
	unsigned wait_s = s->conf->kill_wait > KILL_WAIT_MIN ? s->conf->kill_wait : KILL_WAIT_MIN;
	time_t t = time(NULL);
	char when[32];
	struct tm tm;

	if (s->is_terminating || s->has_exited)
		return;
	s->is_terminating = true;
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	if (s->is_batch)
		io_job_error(s, "*** JOB %u ON %s CANCELLED AT %s%s%s ***", s->job_id,
			     s->node_name, when, why ? " DUE TO " : "", why ? why : "");
	else
		step_message(s, "*** STEP %u.%u ON %s CANCELLED AT %s%s%s ***", s->job_id,
			     s->step_id, s->node_name, when, why ? " DUE TO " : "", why ? why : "");
	usage_signal_job(s, SIGCONT);
	usage_signal_job(s, SIGTERM);
	s->kill_at_ms = stepd_now_ms() + (int64_t)wait_s * 1000;
}

void stepd_sampling_start(struct stepd *s)
{
	s->next_sample_ms = s->acct_freq_s ? stepd_now_ms() + USAGE_FIRST_SAMPLE_MS : 0;
}

int stepd_loop_timeout_ms(const struct stepd *s)
{
	int64_t now = stepd_now_ms(), next = now + 10000;

	if (s->next_sample_ms && s->next_sample_ms < next)
		next = s->next_sample_ms;
	if (s->kill_at_ms && s->kill_at_ms < next)
		next = s->kill_at_ms;
	return next <= now ? 0 : (int)(next - now);
}

/* The script is gone: so goes whatever it left (Slurm ends the batch
 * step's whole container). When the job is being ended, what is left got
 * SIGTERM with the script and may take until KillWait to finish: an srun
 * still reporting its step's end must not lose its last lines. Bounded:
 * a process stuck in the kernel is left to init. */
void stepd_kill_leftovers(struct stepd *s)
{
	int64_t end;

	s->next_sample_ms = 0;
	usage_gather(s); /* the last sample: what is left still counts */
	while (s->is_terminating && !s->is_stopping && s->kill_at_ms
	       && stepd_now_ms() < s->kill_at_ms && usage_signal_job(s, 0) > 0)
		stepd_poll(s, 100); /* requests from slurmd are still answered */
	end = stepd_now_ms() + 2000;
	while (usage_signal_job(s, SIGKILL) > 0 && stepd_now_ms() < end) {
		struct pollfd p = { .fd = s->sigchld_fd, .events = POLLIN };

		poll(&p, 1, 100);
		signals_read(s);
	}
	signals_read(s);
}

static void stepd_cleanup(struct stepd *s)
{
	sock_close(s);
	script_remove(s);
	io_close(s);
	step_free(s);
	usage_free(s);
	job_env_done(&s->env);
	msg_free(msg_lookup(REQUEST_BATCH_JOB_LAUNCH), s->msg);
	msg_free(msg_lookup(REQUEST_LAUNCH_TASKS), s->launch);
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
static void detach_stdio(void)
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
static void step_failed(struct stepd *s)
{
	if (s->is_batch)
		return;
	detach_stdio();
	if (s->step)
		step_io_close(s);
	s->has_exited = true;
	s->status = 1 << 8; /* exit code 1 */
	complete_send(s);
}

static int signals_init(struct stepd *s)
{
	sigset_t set;

	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	s->sigchld_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	/* Orphans of the job come back to us, so we can find and reap them. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	return s->sigchld_fd < 0 ? -errno : 0;
}

int main(int argc, char **argv)
{
	struct stepd sd = { .listen_fd = -1, .in_fd = -1, .out_fd = -1, .err_fd = -1,
			    .sigchld_fd = -1 },
		     *s = &sd;
	int r;

	parse_args(argc, argv);
	if (!arg_conf)
		arg_conf = conf_default_path();
	log_init("slurmstepd", LOG_LEVEL_INFO, NULL, 1);
	r = signals_init(s);
	if (r == 0)
		r = read_launch(s);
	if (r < 0) {
		error("cannot read the launch message: %s", sl_strerror(r));
		(void)stepd_write_rc(STATUS_FD, r == -EBADMSG ? SLURM_PROTOCOL_VERSION_ERROR
							     : SLURM_COMMUNICATIONS_RECEIVE_ERROR);
		return 1;
	}
	r = setup_conf(s);
	if (r == 0)
		r = setup_job(s);
	if (r < 0) {
		error("StepId=%u.%u: launch failed: %s", s->job_id, s->step_id, sl_strerror(r));
		(void)stepd_write_rc(STATUS_FD, r);
		if (s->conf && r != -ESLURMD_STEP_EXISTS)
			step_failed(s);
		stepd_cleanup(s);
		return 1;
	}
	/* The script starts only if slurmd heard "started": one that timed out
	 * told the controller the launch failed. */
	if (stepd_write_rc(STATUS_FD, 0) < 0) {
		error("JobId=%u: slurmd gave up on the launch; not starting", s->job_id);
		step_failed(s);
		stepd_cleanup(s);
		return 1;
	}
	detach_stdio();
	if (chdir("/") < 0)
		debug("chdir /: %s", strerror(errno));
	if (!s->is_batch) {
		step_run(s);
		info("StepId=%u.%u: done, status 0x%x%s", s->job_id, s->step_id,
		     (unsigned)s->status, s->is_oom ? ", killed for memory" : "");
		complete_send(s);
		step_io_close(s);
		stepd_cleanup(s);
		return 0;
	}
	info("JobId=%u: batch script launched on %s for uid %u", s->msg->job_id, s->node_name,
	     s->msg->uid);
	r = task_start(s);
	if (r < 0)
		s->slurm_rc = (uint32_t)-r;
	stepd_sampling_start(s);
	while (r == 0 && !s->has_exited)
		stepd_poll(s, stepd_loop_timeout_ms(s));
	stepd_kill_leftovers(s);
	info("JobId=%u: done, status 0x%x%s", s->msg->job_id, (unsigned)s->status,
	     s->is_oom ? ", killed for memory" : "");
	complete_send(s);
	stepd_cleanup(s);
	return 0;
}
