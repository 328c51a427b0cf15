/* gpu_task.c - see gpu_task.h.
 *
 * A task's GPUs under --gpu-bind (or the binding --gpus-per-task and
 * --ntasks-per-gpu imply, as Slurm): its CUDA_VISIBLE_DEVICES,
 * GPU_DEVICE_ORDINAL and ROCR_VISIBLE_DEVICES, out of the step's GPUs on
 * this node, and the verbose line. closest and single:N look at gres.conf's
 * Cores= against the cores the task is bound to (task/affinity).
 */
#include "gpu_task.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/gpu_bind.h"
#include "common/gres_detect.h"
#include "common/job_env.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "affinity.h"
#include "env.h"
#include "stepd.h"

/* The step's GPUs here ("0,1,3") as a mask. */
static uint64_t gpu_mask_of(const char *list)
{
	uint64_t m = 0;

	for (const char *p = list; p && *p;) {
		char *end;
		unsigned long i = strtoul(p, &end, 10);

		if (end == p)
			break;
		if (i < GPU_BIND_MAX)
			m |= UINT64_C(1) << i;
		p = *end == ',' ? end + 1 : end;
	}
	return m;
}

/* The binding asked: --gpu-bind (SLURM_GPU_BIND), else what
 * --gpus-per-task (per_task:N) or --ntasks-per-gpu (single:N) imply, as
 * in Slurm. Returns false when there is none. */
static bool gpu_bind_of(const struct stepd *s, struct gpu_bind *b, char *buf, size_t len)
{
	const char *v = env_launch_get(s, "SLURM_GPU_BIND");
	const char *gpt = env_launch_get(s, "SLURM_GPUS_PER_TASK");
	const char *tpg = env_launch_get(s, "SLURM_NTASKS_PER_GPU");

	if (!v && gpt) { /* "[type:]N" */
		const char *n = strrchr(gpt, ':');

		snprintf(buf, len, "per_task:%s", n ? n + 1 : gpt);
		v = buf;
	} else if (!v && tpg) {
		snprintf(buf, len, "single:%s", tpg);
		v = buf;
	}
	if (!v || gpu_bind_parse(v, b) < 0) {
		if (v)
			error("%s: ignoring --gpu-bind=%s: not a valid binding", s->label, v);
		return false;
	}
	return true;
}

/* The step's GPUs here nearest the cores task ltid is bound to (gres.conf
 * Cores=); 0 when unknown (not bound, or no Cores= given). */
static uint64_t gpus_near_task(struct stepd *s, uint64_t step, uint32_t ltid)
{
	uint64_t cores = affinity_task_cores(s, ltid), near = 0;

	if (!cores)
		return 0;
	if (!s->has_gpu_cores) { /* once per step: the same for every task */
		if (gres_gpu_cores(s->conf->gres, s->conf->gres_count, s->node_name, s->gpu_cores,
				   ARRAY_SIZE(s->gpu_cores), &s->gpu_cores_n)
		    < 0)
			s->gpu_cores_n = 0;
		s->has_gpu_cores = true;
	}
	for (size_t g = 0; g < s->gpu_cores_n; g++)
		if ((step >> g & 1) && (s->gpu_cores[g] & cores))
			near |= UINT64_C(1) << g;
	return near;
}

/* A task's own GPUs when a binding asks for them (CUDA_VISIBLE_DEVICES and
 * friends), and its verbose line for the child to print. */
int gpu_task_env(struct stepd *s, uint32_t ltid)
{
	struct gpu_bind b;
	char buf[64], task[192];
	uint64_t all, mine;
	int r = 0;

	s->gpu_verbose[0] = '\0';
	if (!s->launch || !s->launch->gpus || !*s->launch->gpus || !env_has_gpu_files(s)
	    || !gpu_bind_of(s, &b, buf, sizeof(buf)))
		return 0;
	all = gpu_mask_of(s->launch->gpus);
	mine = gpu_bind_task(&b, all,
			     b.type == GPU_BIND_CLOSEST || b.type == GPU_BIND_SINGLE
				 ? gpus_near_task(s, all, ltid)
				 : 0,
			     ltid);
	gpu_bind_list(mine, task, sizeof(task));
	r |= job_env_set(&s->env, "CUDA_VISIBLE_DEVICES", "%s", task);
	r |= job_env_set(&s->env, "GPU_DEVICE_ORDINAL", "%s", task);
	r |= job_env_set(&s->env, "ROCR_VISIBLE_DEVICES", "%s", task);
	if (b.is_verbose)
		snprintf(s->gpu_verbose, sizeof(s->gpu_verbose),
			 "gpu-bind: usable_gres=0x%llx; bit_alloc=0x%llx; local_inx=%d; "
			 "global_list=%s; local_list=%s\n",
			 (unsigned long long)mine, (unsigned long long)all,
			 __builtin_popcountll(mine), task, task);
	return r ? -ENOMEM : 0;
}
