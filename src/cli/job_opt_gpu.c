/* job_opt_gpu.c - see job_opt_gpu.h.
 *
 * Purpose: the GPU options act as in Slurm 22.05 rather than being parsed
 * and dropped. The counts travel to the controller in the request
 * (tres_per_task, tres_per_socket, cpus_per_gpu, mem_per_gpu,
 * ntasks_per_gpu), which places the job by them; --gpu-bind travels in
 * the job's environment (SLURM_GPU_BIND), where the step supervisors
 * read it.
 * Checks: the value checks and the combination checks are Slurm's, with
 * its texts: a bad combination is "Failed to validate job spec..." then
 * "Invalid generic resource (gres) specification", exit 1.
 * Caveat: one GPU type per option ("a100:2"), not Slurm's lists of
 * several ("volta:3,kepler:1"); --gres-flags=enforce-binding is refused
 * (the scheduler does not choose which cores a job gets, so it cannot
 * keep them next to its GPUs).
 */
#include "cli/job_opt_gpu.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/job_opt.h"
#include "common/gpu_bind.h"
#include "common/job_env.h"
#include "common/macros.h"
#include "common/msg.h"

static int set_str(char **dst, const char *v)
{
	char *s = strdup(v);

	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

/* "[type:]N" or a bare "type" (one GPU of it): the count and the type's
 * length (0 untyped). -EINVAL when malformed. */
static int gpu_count(const char *s, uint32_t *ret_n, size_t *ret_type_len)
{
	const char *colon = strrchr(s, ':');
	const char *num = colon ? colon + 1 : s;
	char *end;
	unsigned long v;

	*ret_type_len = colon ? (size_t)(colon - s) : 0;
	if (!*s || (colon && (colon == s || !*num)))
		return -EINVAL;
	if (!isdigit((unsigned char)*num)) {
		if (colon) /* "a100:x" */
			return -EINVAL;
		*ret_type_len = strlen(s); /* "a100": one of that type */
		*ret_n = 1;
		return 0;
	}
	errno = 0;
	v = strtoul(num, &end, 10);
	if (*end || errno || v > UINT16_MAX)
		return -EINVAL;
	*ret_n = (uint32_t)v;
	return 0;
}

static int gres_invalid(struct job_opts *o, struct job_opt_err *e)
{
	return job_opt_fail(e, o->prog, JOB_OPT_EXIT_FATAL,
			    "Invalid generic resource (gres) specification");
}

/* Slurm's "Failed to validate job spec" refusal: its line, then the gres one. */
static int spec_fail(struct job_opts *o, struct job_opt_err *e, const char *what)
{
	job_opt_fail(e, o->prog, JOB_OPT_EXIT_FATAL, "%s", what);
	return gres_invalid(o, e);
}

static int gpus_opt(struct job_opts *o, const char *arg, char **field, struct job_opt_err *e)
{
	uint32_t n;
	size_t tl;

	if (gpu_count(arg, &n, &tl) < 0)
		return gres_invalid(o, e);
	return set_str(field, arg);
}

int job_opt_p_gpus_per_task(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	return gpus_opt(o, arg, &o->gpus_per_task, e);
}

int job_opt_p_gpus_per_socket(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	return gpus_opt(o, arg, &o->gpus_per_socket, e);
}

/* A positive count, Slurm's text for anything else (exit 1). */
static int positive(struct job_opts *o, const char *name, const char *arg, int *ret,
		    struct job_opt_err *e)
{
	char *end = NULL;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *end || errno || v <= 0 || v > UINT16_MAX)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_FATAL,
				    "Invalid numeric value \"%s\" for %s.", arg, name);
	*ret = (int)v;
	return 0;
}

int job_opt_p_cpus_per_gpu(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	return positive(o, "--cpus-per-gpu", arg, &o->cpus_per_gpu, e);
}

int job_opt_p_ntasks_per_gpu(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	return positive(o, "--ntasks-per-gpu", arg, &o->ntasks_per_gpu, e);
}

int job_opt_p_ntasks_per_tres(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	int v, r = positive(o, "--ntasks-per-tres", arg, &v, e);

	if (r < 0)
		return r;
	if (o->ntasks_per_gpu && o->ntasks_per_gpu != v)
		return job_opt_fatal(e, o->prog,
				     "Inconsistent values set to --ntasks-per-gpu=%d and "
				     "--ntasks-per-tres=%d ",
				     o->ntasks_per_gpu, v);
	o->ntasks_per_gpu = v;
	return 0;
}

int job_opt_p_gpu_bind(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	struct gpu_bind b;

	if (gpu_bind_parse(arg, &b) < 0 || !*arg)
		return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG,
				    "Invalid --gpu-bind argument: gpu:%s", arg);
	return set_str(&o->gpu_bind, arg);
}

int job_opt_p_gres_flags(struct job_opts *o, const char *arg, struct job_opt_err *e)
{
	if (!strcmp(arg, "disable-binding")) {
		o->gres_flags = GRES_FLAG_DISABLE_BINDING; /* what placement does anyway */
		return 0;
	}
	if (!strcmp(arg, "enforce-binding"))
		return job_opt_fail(
		    e, o->prog, JOB_OPT_EXIT_ARG,
		    "--gres-flags=enforce-binding is not supported by this cluster: "
		    "the scheduler does not choose which cores a job gets, so it "
		    "cannot keep them next to its GPUs; refused rather than ignored");
	return job_opt_fail(e, o->prog, JOB_OPT_EXIT_ARG, "Invalid --gres-flags specification");
}

/* The option's name as its source spells it (Slurm names the variable
 * when the value came from the environment). */
static const char *src_name(const struct job_opts *o, enum job_opt_id id, const char *opt,
			    const char *env)
{
	return o->src[id] == JOB_OPT_SRC_ENV ? env : opt;
}

static int check_ntasks_per_gpu(struct job_opts *o, struct job_opt_err *e)
{
	const char *other = NULL;

	if (!o->ntasks_per_gpu)
		return 0;
	if (o->gpus_per_task)
		other = src_name(o, JOPT_GPUS_PER_TASK, "--gpus-per-task", "SLURM_GPUS_PER_TASK");
	else if (o->gpus_per_socket)
		other =
		    src_name(o, JOPT_GPUS_PER_SOCKET, "--gpus-per-socket", "SLURM_GPUS_PER_SOCKET");
	else if (o->ntasks_per_node > 0)
		other =
		    src_name(o, JOPT_NTASKS_PER_NODE, "--ntasks-per-node", "SLURM_NTASKS_PER_NODE");
	if (other)
		return job_opt_fatal(e, o->prog,
				     "%s is mutually exclusive with --ntasks-per-gpu and "
				     "SLURM_NTASKS_PER_GPU",
				     other);
	return 0;
}

/* The GPUs per node --gpus-per-node or --gres=gpu asks, with the type's
 * text (NULL untyped); 0 when neither. */
static uint32_t per_node_gpus(const struct job_opts *o, const char **type, size_t *tl)
{
	uint32_t n = 0;

	*type = NULL;
	*tl = 0;
	if (o->gpus_per_node && gpu_count(o->gpus_per_node, &n, tl) == 0) {
		*type = o->gpus_per_node;
		return n;
	}
	for (const char *p = o->gres; p && *p;) { /* "gres/gpu[:type][:N],..." */
		size_t len = strcspn(p, ",");

		if (len >= 8 && !strncmp(p, "gres/gpu", 8) && (len == 8 || p[8] == ':')) {
			char one[128];

			if (len == 8)
				return 1;
			snprintf(one, sizeof(one), "%.*s", (int)(len - 9), p + 9);
			if (gpu_count(one, &n, tl) < 0)
				return 0;
			*type = p + 9;
			return n;
		}
		p += len + (p[len] == ',');
	}
	return 0;
}

static bool same_type(const char *a, size_t al, const char *b, size_t bl)
{
	return al == bl && (!al || !strncmp(a, b, al));
}

/* --gpus-per-task against --gpus, -n and the per-node count. */
static int check_per_task(struct job_opts *o, struct job_opt_err *e)
{
	uint32_t gpt, gpus = 0, gpn;
	size_t tl, gl = 0, nl;
	const char *nt;

	if (!o->gpus_per_task || gpu_count(o->gpus_per_task, &gpt, &tl) < 0 || !gpt)
		return 0;
	if (o->gpus
	    && (gpu_count(o->gpus, &gpus, &gl) < 0
		|| !same_type(o->gpus, gl, o->gpus_per_task, tl)))
		gpus = 0; /* another type: another GRES, as Slurm counts them */
	if (!gpus && !o->ntasks_set && !o->nodes_set)
		return spec_fail(o, e,
				 "Failed to validate job spec. --gpus-per-task used without either "
				 "--gpus or -n/--ntasks is not allowed.");
	if (gpus && gpus % gpt)
		return spec_fail(
		    o, e, "Failed to validate job spec, --gpus not multiple of --gpus-per-task");
	if (gpus && o->ntasks_set && (uint32_t)o->ntasks != gpus / gpt)
		return spec_fail(o, e,
				 "Failed to validate job spec. Based on --gpus and --gpus-per-task "
				 "number of requested tasks differ from -n/--ntasks.");
	if (gpus && !o->ntasks_set) {
		o->ntasks = (int)(gpus / gpt);
		o->ntasks_set = true;
	}
	gpn = per_node_gpus(o, &nt, &nl);
	if (gpn && gpn % gpt)
		return spec_fail(
		    o, e,
		    "Failed to validate job spec, --gres=gpu/--gpus-per-node not multiple "
		    "of --gpus-per-task.");
	if (gpn && o->ntasks_per_node > 0 && (uint32_t)o->ntasks_per_node != gpn / gpt)
		return spec_fail(
		    o, e,
		    "Failed to validate job spec. Based on --gres=gpu/--gpus-per-node and "
		    "--gpus-per-task requested number of tasks per node differ from "
		    "--ntasks-per-node.");
	if (o->cpus_per_gpu) { /* Slurm: each task gets the CPUs of its GPUs */
		o->cpus_per_task = o->cpus_per_gpu * (int)gpt;
		o->cpus_set = true;
	}
	return 0;
}

int job_opt_verify_gpu(struct job_opts *o, struct job_opt_err *e)
{
	uint32_t gpus;
	size_t tl;
	int r = check_ntasks_per_gpu(o, e);

	if (r < 0)
		return r;
	if (o->cpus_per_gpu && o->cpus_set) {
		job_opt_fail(e, o->prog, JOB_OPT_EXIT_FATAL,
			     "--cpus-per-gpu is mutually exclusive with --cpus-per-task");
		return gres_invalid(o, e);
	}
	if (o->gpus_per_socket && !o->sockets_per_node) {
		job_opt_fail(e, o->prog, JOB_OPT_EXIT_FATAL,
			     "--gpus-per-socket option requires --sockets-per-node specification");
		return gres_invalid(o, e);
	}
	r = check_per_task(o, e);
	if (r < 0)
		return r;
	if (o->ntasks_per_gpu && o->gpus && !o->ntasks_set && gpu_count(o->gpus, &gpus, &tl) == 0
	    && gpus) {
		o->ntasks = (int)gpus * o->ntasks_per_gpu;
		o->ntasks_set = true;
	}
	return 0;
}

static int gres_str(char **dst, const char *v)
{
	*dst = NULL;
	if (v && asprintf(dst, "gres/gpu:%s", v) < 0) {
		*dst = NULL;
		return -ENOMEM;
	}
	return 0;
}

int job_opt_fill_gpu(const struct job_opts *o, struct job_desc *d)
{
	int r = gres_str(&d->tres_per_task, o->gpus_per_task);

	r |= gres_str(&d->tres_per_socket, o->gpus_per_socket);
	if (o->gpu_bind && !(d->gpu_bind = strdup(o->gpu_bind)))
		r = -ENOMEM;
	d->cpus_per_gpu = (uint16_t)o->cpus_per_gpu;
	d->ntasks_per_gpu = (uint16_t)o->ntasks_per_gpu;
	d->gres_flags = o->gres_flags;
	d->mem_per_gpu = o->mem_per_gpu != NO_VAL64 ? o->mem_per_gpu : 0;
	return r ? -ENOMEM : 0;
}

int job_opt_gpu_env(const struct job_opts *o, struct job_env *e)
{
	int r = 0;

	if (o->gpus_per_task)
		r |= job_env_set(e, "SLURM_GPUS_PER_TASK", "%s", o->gpus_per_task);
	if (o->gpus_per_socket)
		r |= job_env_set(e, "SLURM_GPUS_PER_SOCKET", "%s", o->gpus_per_socket);
	if (o->cpus_per_gpu)
		r |= job_env_set(e, "SLURM_CPUS_PER_GPU", "%d", o->cpus_per_gpu);
	if (o->mem_per_gpu != NO_VAL64)
		r |=
		    job_env_set(e, "SLURM_MEM_PER_GPU", "%llu", (unsigned long long)o->mem_per_gpu);
	if (o->ntasks_per_gpu)
		r |= job_env_set(e, "SLURM_NTASKS_PER_GPU", "%d", o->ntasks_per_gpu);
	if (o->gpu_bind)
		r |= job_env_set(e, "SLURM_GPU_BIND", "%s", o->gpu_bind);
	return r ? -ENOMEM : 0;
}
