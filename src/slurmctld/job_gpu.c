/* job_gpu.c - see job_gpu.h. */
#include "job_gpu.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "node.h"

/* "gres/gpu[:type][:N]", Slurm's "gres:gpu[:type][:N]" (REST clients
 * send it) or "gpu[:type][:N]" (a bare type is one GPU):
 * the count, and the type into type (which must be "" or the same).
 * NULL or "" is 0. -1 when malformed or of another type. */
static long gpu_tres(const char *tres, char *type, size_t type_len)
{
	const char *p, *num;
	size_t tl = 0;
	char *end;
	long n = 1;

	if (!tres || !*tres)
		return 0;
	p = !strncmp(tres, "gres/", 5) || !strncmp(tres, "gres:", 5) ? tres + 5 : tres;
	if (strncmp(p, "gpu", 3) || (p[3] && p[3] != ':'))
		return -1;
	if (strchr(p, ',')) /* another GRES beside it: only GPUs are scheduled */
		return -1;
	p += p[3] ? 4 : 3;
	num = strrchr(p, ':') ? strrchr(p, ':') + 1 : p;
	if (isdigit((unsigned char)*num)) {
		n = strtol(num, &end, 10);
		if (*end || n < 0 || n > 65535)
			return -1;
		tl = num > p ? (size_t)(num - p - 1) : 0;
	} else {
		tl = strlen(p); /* "gpu:a100": one of them */
	}
	if (tl >= type_len || (tl && strchr(p, ':') && strchr(p, ':') != p + tl))
		return -1; /* "gpu:a:b:2" */
	if (tl && *type && (strlen(type) != tl || strncmp(type, p, tl)))
		return -1; /* two types in one request */
	if (tl && !*type) {
		memcpy(type, p, tl);
		type[tl] = '\0';
	}
	return n;
}

int job_gpu_parse(const struct job_desc *d, struct job_gpu *ret)
{
	char type[TRES_TYPE_MAX] = "";
	long per_node, total, per_task, per_socket;

	*ret = (struct job_gpu){0};
	if (!d)
		return 0;
	per_node = gpu_tres(d->tres_per_node, type, sizeof(type));
	total = gpu_tres(d->tres_per_job, type, sizeof(type));
	per_task = gpu_tres(d->tres_per_task, type, sizeof(type));
	per_socket = gpu_tres(d->tres_per_socket, type, sizeof(type));
	if (per_node < 0 || total < 0 || per_task < 0 || per_socket < 0)
		return -ESLURM_INVALID_GRES;
	if ((per_node && total) || (per_task && d->ntasks_per_gpu)
	    || (per_socket && (!d->sockets_per_node || per_node)))
		return -ESLURM_INVALID_GRES;
	if (per_socket)
		per_node = per_socket * d->sockets_per_node;
	if (per_node > 65535)
		return -ESLURM_INVALID_GRES;
	if (per_task && total) { /* --gpus with --gpus-per-task: the tasks' GPUs */
		if (total % per_task)
			return -ESLURM_INVALID_GRES;
		total = 0;
	}
	if (d->ntasks_per_gpu && total)
		total = 0; /* the tasks (--gpus x --ntasks-per-gpu) ask for them */
	*ret = (struct job_gpu){
	    .per_node = (uint16_t)per_node,
	    .total = (uint32_t)total,
	    .per_task = (uint16_t)per_task,
	    .ntasks_per_gpu = d->ntasks_per_gpu,
	    .cpus_per_gpu = d->cpus_per_gpu,
	    .mem_per_gpu = d->mem_per_gpu,
	};
	memcpy(ret->type, type, sizeof(type));
	return 0;
}

void job_gpu_defaults(const struct sl_conf *conf, const struct conf_part *pc,
		      const struct job_desc *d, struct job_gpu *g)
{
	uint16_t cpus = pc && pc->def_cpu_per_gpu ? pc->def_cpu_per_gpu : conf->def_cpu_per_gpu;
	uint64_t mem = pc && pc->def_mem_per_gpu ? pc->def_mem_per_gpu : conf->def_mem_per_gpu;

	if (!d || !(g->per_node || g->total || g->per_task || g->ntasks_per_gpu))
		return;
	if (!g->cpus_per_gpu && cpus && (d->cpus_per_task == NO_VAL16 || !d->cpus_per_task))
		g->cpus_per_gpu = cpus;
	if (!g->mem_per_gpu && mem && d->mem_per_cpu == NO_VAL64 && d->mem_per_node == NO_VAL64)
		g->mem_per_gpu = mem;
}

int job_gpu_type_id(const struct ctld *c, const char *type)
{
	if (!type || !*type)
		return 0;
	for (uint32_t i = 0; i < c->gpu_type_count; i++)
		if (streq(c->gpu_types[i], type))
			return (int)i + 1;
	return -1;
}

/* The id of a type (added to the table when new); -1 when it is full. */
static int type_add(struct ctld *c, const char *t, size_t len)
{
	for (uint32_t i = 0; i < c->gpu_type_count; i++)
		if (strlen(c->gpu_types[i]) == len && !strncmp(c->gpu_types[i], t, len))
			return (int)i;
	if (c->gpu_type_count >= GPU_TYPES_MAX || len >= TRES_TYPE_MAX)
		return -1;
	memcpy(c->gpu_types[c->gpu_type_count], t, len);
	c->gpu_types[c->gpu_type_count][len] = '\0';
	return (int)c->gpu_type_count++;
}

/* One node: its Gres= entries in order, GPUs numbered as they come. */
static void node_types(struct ctld *c, struct node *n)
{
	const char *p = n->cfg->gres;
	unsigned next = 0;

	memset(n->gpu_type_mask, 0, sizeof(n->gpu_type_mask));
	while (p && *p) {
		size_t len = strcspn(p, ","), tl = 0;
		const char *num = NULL;
		unsigned long cnt = 1;

		if (len > 4 && !strncmp(p, "gpu:", 4)) {
			const char *t = p + 4;
			const char *colon = memchr(t, ':', len - 4);

			if (colon) {
				tl = (size_t)(colon - t);
				num = colon + 1;
			} else if (isdigit((unsigned char)*t)) {
				num = t;
			} else {
				tl = len - 4;
			}
			cnt = num ? strtoul(num, NULL, 10) : 1;
			if (tl) {
				int id = type_add(c, t, tl);

				if (id < 0)
					error("node %s: GPU type %.*s past the %d types this "
					      "controller tells apart: not schedulable by type",
					      n->cfg->name, (int)tl, t, GPU_TYPES_MAX);
				for (unsigned long k = 0; id >= 0 && k < cnt && next + k < 64; k++)
					n->gpu_type_mask[id] |= UINT64_C(1) << (next + k);
			}
			next += (unsigned)cnt;
		} else if (len == 3 && !strncmp(p, "gpu", 3)) {
			next++;
		}
		p += len + (p[len] == ',');
	}
}

void job_gpu_types_build(struct ctld *c)
{
	c->gpu_type_count = 0;
	for (uint32_t i = 0; i < c->node_count; i++)
		node_types(c, &c->nodes[i]);
}
