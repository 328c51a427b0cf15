/* job_opt_place.c - see job_opt_place.h.
 *
 * Purpose: no option that changes where or how a job runs is silently
 * ignored. Each is acted on:
 *   --tmp, --mincpus, --sockets-per-node, --cores-per-socket, -B S[:C]
 *       node choice (and cpus per node) on the controller;
 *   --priority      a fixed priority (operators only: the controller checks);
 *   --uid/--gid     root submits for a user (Slurm's checks and texts);
 *   --nodefile      its hosts become the job's -w (when -w is not given);
 *   --ntasks-per-core=1, --mem-bind=none, --use-min-nodes
 *       what placement does anyway (tasks get whole cores, memory is not
 *       bound, a node range gets the fewest nodes that hold the job);
 * or refused with an error that names it, after Slurm's own value check.
 */
#include "cli/job_opt_place.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "api/id_name.h"
#include "cli/job_opt.h"
#include "common/macros.h"
#include "common/parse_mem.h"
#include "common/read_bounded.h"

static int refuse(struct job_opts *o, const char *name, struct job_opt_err *e)
{
	return job_opt_refuse(e, o->prog, name);
}

/* A count: digits only, 0..max. */
static int count(struct job_opts *o, const char *name, const char *arg, uint32_t max, uint32_t *ret,
		 struct job_opt_err *e)
{
	char *end = NULL;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (!isdigit((unsigned char)*arg) || *end || errno || v > max)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_FATAL,
				    "Invalid numeric value \"%s\" for %s.", arg, name);
	*ret = (uint32_t)v;
	return 0;
}

int job_opt_p_tmp(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	uint64_t mb;

	if (mem_str2mb(arg, &mb) < 0 || mb > UINT32_MAX - 2)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG, "Invalid --tmp specification");
	o->tmp_mb = (uint32_t)mb;
	return 0;
}

#define U16_OPT(fn, field, name)                                                                   \
	int fn(struct job_opts *o, const char *arg, struct job_opt_err *e)                         \
	{                                                                                          \
		uint32_t v;                                                                        \
		int r = count(o, name, arg, UINT16_MAX - 2, &v, e);                                \
		if (r == 0)                                                                        \
			o->field = (uint16_t)v;                                                    \
		return r;                                                                          \
	}
U16_OPT(job_opt_p_mincpus, mincpus, "--mincpus")
U16_OPT(job_opt_p_sockets_per_node, sockets_per_node, "--sockets-per-node")
U16_OPT(job_opt_p_cores_per_socket, cores_per_socket, "--cores-per-socket")

/* One field of -B: '*' (any), N, or a range N-M (at least N). */
static int b_field(const char *s, size_t len, uint16_t *ret)
{
	char buf[16];
	char *end = NULL;
	unsigned long v;

	if (len == 1 && s[0] == '*') {
		*ret = 0;
		return 0;
	}
	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtoul(buf, &end, 10);
	if (end == buf || (*end && (*end != '-' || !isdigit((unsigned char)end[1]))) || v > 65533)
		return -EINVAL;
	*ret = (uint16_t)v;
	return 0;
}

/* -B sockets[:cores[:threads]]: the first two choose nodes; threads per
 * core would change the task layout, so only '*' is accepted there. */
int job_opt_p_extra_node_info(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	uint16_t v[3] = {0, 0, 0};
	const char *p = arg;

	for (int i = 0; i < 3; i++) {
		size_t len = strcspn(p, ":");

		if (b_field(p, len, &v[i]) < 0)
			return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
					    "invalid resource allocation -B `%s'", arg);
		p += len;
		if (!*p)
			break;
		p++;
		if (i == 2)
			return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
					    "invalid resource allocation -B `%s'", arg);
	}
	if (v[2])
		return refuse(o, "-B's threads per core (--threads-per-core)", e);
	o->sockets_per_node = v[0];
	o->cores_per_socket = v[1];
	return 0;
}

/* --priority=N|TOP: sent as is; the controller refuses it from a user
 * who is not an operator. 0 holds the job, as Slurm. */
int job_opt_p_priority(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	char *end = NULL;
	unsigned long v;

	if (!strcasecmp(arg, "TOP")) {
		o->priority = NO_VAL - 1;
		return 0;
	}
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (!isdigit((unsigned char)*arg) || *end || errno || v >= NO_VAL)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
				    "Invalid --priority specification");
	o->priority = (uint32_t)v;
	if (v == 0)
		o->hold = true;
	return 0;
}

int job_opt_p_uid(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	if (getuid() != 0)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
				    "--uid only permitted by root user");
	if (!id_name_uid_of(arg, &o->uid))
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG, "Invalid --uid specification");
	return 0;
}

int job_opt_p_gid(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	if (getuid() != 0)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
				    "--gid only permitted by root user");
	if (!id_name_gid_of(arg, &o->gid))
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG, "Invalid --gid specification");
	return 0;
}

int job_opt_read_nodefile(const char *path, char **ret)
{
	char *buf = NULL, *out;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	*ret = NULL;
	if (fd < 0)
		return -errno;
	r = read_bounded(fd, JOB_OPT_NODEFILE_MAX, &buf, NULL);
	close(fd);
	if (r < 0)
		return r;
	out = buf; /* in place: words joined by single commas */
	for (char *w = strtok(buf, " \t\r\n,"); w; w = strtok(NULL, " \t\r\n,")) {
		size_t wl = strlen(w);

		if (n)
			out[n++] = ',';
		memmove(out + n, w, wl);
		n += wl;
	}
	out[n] = '\0';
	if (!n) {
		free(buf);
		return -EINVAL;
	}
	*ret = buf;
	return 0;
}

int job_opt_p_nodefile(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	char *list = NULL;
	int r = job_opt_read_nodefile(arg, &list);

	if (r < 0)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG, "Invalid --nodefile node file");
	free(o->nodefile_list);
	o->nodefile_list = list;
	return 0;
}

int job_opt_p_ntasks_per_core(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	uint32_t v;
	int r = count(o, "--ntasks-per-core", arg, INT32_MAX, &v, e);

	if (r == 0 && v != 1)
		return refuse(o, "--ntasks-per-core other than 1", e);
	return r;
}

int job_opt_p_mem_bind(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	if (!strcasecmp(arg, "none") || !strcasecmp(arg, "no"))
		return 0;
	return refuse(o, "--mem-bind (other than none)", e);
}

int job_opt_p_use_min_nodes(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	(void)o;
	(void)arg;
	(void)e;
	return 0; /* placement already takes the fewest nodes of a range */
}

#define REFUSED(fn, name)                                                                          \
	int fn(struct job_opts *o, const char *arg, struct job_opt_err *e)                         \
	{                                                                                          \
		(void)arg;                                                                         \
		return refuse(o, name, e);                                                         \
	}
REFUSED(job_opt_p_contiguous, "--contiguous")
REFUSED(job_opt_p_overcommit, "--overcommit")
REFUSED(job_opt_p_spread_job, "--spread-job")
REFUSED(job_opt_p_cpu_freq, "--cpu-freq")
REFUSED(job_opt_p_gpu_freq, "--gpu-freq")
REFUSED(job_opt_p_batch, "--batch")
REFUSED(job_opt_p_reboot, "--reboot (nodes are rebooted by scontrol reboot)")
REFUSED(job_opt_p_container, "--container (OCI containers)")
REFUSED(job_opt_p_context, "--context (SELinux)")

/* Slurm checks these values first: a bad one gets its error, a good one ours. */
#define CHECKED_REFUSED(fn, name)                                                                  \
	int fn(struct job_opts *o, const char *arg, struct job_opt_err *e)                         \
	{                                                                                          \
		uint32_t v;                                                                        \
		int r = count(o, name, arg, INT32_MAX, &v, e);                                     \
		return r < 0 ? r : refuse(o, name, e);                                             \
	}
CHECKED_REFUSED(job_opt_p_core_spec, "--core-spec")
CHECKED_REFUSED(job_opt_p_thread_spec, "--thread-spec")
CHECKED_REFUSED(job_opt_p_threads_per_core, "--threads-per-core")

int job_opt_p_switches(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	char num[32];
	size_t len = strcspn(arg, "@");
	uint32_t v;
	int r;

	snprintf(num, sizeof(num), "%.*s", (int)(len < sizeof(num) ? len : sizeof(num) - 1), arg);
	r = count(o, "--switches", num, INT32_MAX, &v, e);
	return r < 0 ? r : refuse(o, "--switches (no topology plugin)", e);
}

int job_opt_p_deadline(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	int pos = 0;
	time_t t = job_opt_parse_begin(arg, time(NULL), &pos);

	if (t == (time_t)-1)
		job_opt_raw(e, "Invalid time specification (pos=%d): %s\n", pos, arg);
	if (t == (time_t)-1 || t == 0)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
				    "Invalid --deadline specification");
	return refuse(o, "--deadline", e);
}
