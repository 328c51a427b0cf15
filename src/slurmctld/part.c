/* part.c - partition records; see part.h. */
#include "part.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/gres_detect.h"
#include "common/hostlist.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_mem.h"
#include "common/tres.h"
#include "ctld.h"
#include "node.h"

static int append_name(char **list, const char *name)
{
	char *s;

	if (asprintf(&s, "%s%s%s", *list ? *list : "", *list ? "," : "", name) < 0)
		return -ENOMEM;
	free(*list);
	*list = s;
	return 0;
}

static int part_resolve(struct ctld *c, struct part *p)
{
	struct hostlist *hl = NULL;
	int r;

	r = hostlist_new(p->cfg->nodes, &hl);
	if (r < 0)
		return r;
	p->node_idx = calloc(hostlist_count(hl) + 1, sizeof(*p->node_idx));
	if (!p->node_idx) {
		hostlist_free(hl);
		return -ENOMEM;
	}
	/* node order follows the node table, as Slurm's bitmaps do */
	for (uint32_t i = 0; i < c->node_count; i++) {
		struct node *n = &c->nodes[i];

		if (hostlist_find(hl, node_name(n)) < 0)
			continue;
		p->node_idx[p->node_count++] = i;
		p->total_cpus += n->cfg->cpus;
		p->total_mem += n->cfg->real_memory;
		p->total_gpus += gres_count(n->cfg->gres, "gpu");
		r = append_name(&n->partitions, p->cfg->name);
		if (r < 0)
			break;
	}
	hostlist_free(hl);
	return r;
}

int part_table_resolve(struct ctld *c)
{
	int r = 0;

	for (uint32_t i = 0; i < c->node_count; i++) {
		free(c->nodes[i].partitions);
		c->nodes[i].partitions = NULL;
	}
	for (uint32_t i = 0; i < c->part_count && r == 0; i++) {
		struct part *p = &c->parts[i];

		free(p->node_idx);
		*p = (struct part){.cfg = p->cfg};
		r = part_resolve(c, p);
	}
	c->part_last_update = time(NULL);
	return r;
}

int part_table_build(struct ctld *c)
{
	int r = 0;

	part_table_free(c);
	c->parts = calloc(c->conf->part_count + 1, sizeof(*c->parts));
	if (!c->parts)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->conf->part_count && r == 0; i++) {
		c->parts[i].cfg = calloc(1, sizeof(*c->parts[i].cfg));
		if (!c->parts[i].cfg)
			r = -ENOMEM;
		c->part_count++; /* freed whole by part_table_free, even half made */
		if (r == 0)
			r = conf_part_copy(c->parts[i].cfg, &c->conf->parts[i]);
	}
	return r < 0 ? r : part_table_resolve(c);
}

void part_table_free(struct ctld *c)
{
	for (uint32_t i = 0; c->parts && i < c->part_count; i++) {
		free(c->parts[i].node_idx);
		if (c->parts[i].cfg)
			conf_part_free(c->parts[i].cfg);
		free(c->parts[i].cfg);
	}
	free(c->parts);
	c->parts = NULL;
	c->part_count = 0;
}

struct part *part_find(const struct ctld *c, const char *name)
{
	for (uint32_t i = 0; name && i < c->part_count; i++)
		if (streq(c->parts[i].cfg->name, name))
			return &c->parts[i];
	return NULL;
}

int part_info_fill(const struct ctld *c, const struct part *p, struct part_info *ret)
{
	const struct conf_part *cfg = p->cfg;
	struct tres t = {
	    .cpus = p->total_cpus,
	    .mem_mb = p->total_mem,
	    .nodes = p->node_count,
	    .billing = p->total_cpus,
	    .gpus = p->total_gpus,
	};
	char *tres = tres_string(&t), *defaults = NULL;
	uint16_t flags = 0;

	(void)c;
	if (!tres)
		return -ENOMEM;
	/* JobDefaults= as Slurm prints it: the partition's own GPU defaults */
	if (cfg->def_cpu_per_gpu || cfg->def_mem_per_gpu) {
		char cpu[32] = "", mem[48] = "";

		if (cfg->def_cpu_per_gpu)
			snprintf(cpu, sizeof(cpu), "DefCpuPerGPU=%u", cfg->def_cpu_per_gpu);
		if (cfg->def_mem_per_gpu)
			snprintf(mem, sizeof(mem), "DefMemPerGPU=%llu",
				 (unsigned long long)cfg->def_mem_per_gpu);
		if (asprintf(&defaults, "%s%s%s", cpu, *cpu && *mem ? "," : "", mem) < 0) {
			free(tres);
			return -ENOMEM;
		}
	}
	flags |= cfg->is_default ? PART_FLAG_DEFAULT : 0;
	flags |= cfg->hidden ? PART_FLAG_HIDDEN : 0;
	flags |= cfg->disable_root_jobs ? PART_FLAG_NO_ROOT : 0;
	flags |= cfg->root_only ? PART_FLAG_ROOT_ONLY : 0;
	flags |= cfg->req_resv ? PART_FLAG_REQ_RESV : 0;
	flags |= cfg->lln ? PART_FLAG_LLN : 0;
	flags |= cfg->exclusive_user ? PART_FLAG_EXCLUSIVE_USER : 0;
	*ret = (struct part_info){
	    .name = sdup(cfg->name),
	    .nodes = sdup(cfg->nodes),
	    .allow_groups = sdup(cfg->allow_groups),
	    .allow_accounts = sdup(cfg->allow_accounts),
	    .allow_qos = sdup(cfg->allow_qos),
	    .alloc_nodes = sdup(cfg->alloc_nodes),
	    .qos = sdup(cfg->qos),
	    .tres = tres,
	    .job_defaults = defaults,
	    .flags = flags,
	    .state_up = cfg->state_up,
	    .max_time = cfg->max_time,
	    .default_time = cfg->default_time,
	    .max_nodes = cfg->max_nodes,
	    .min_nodes = cfg->min_nodes,
	    .max_cpus_per_node = cfg->max_cpus_per_node,
	    .total_cpus = p->total_cpus,
	    .total_nodes = p->node_count,
	    .grace_time = cfg->grace_time,
	    .priority_job_factor = cfg->priority_job_factor,
	    .priority_tier = cfg->priority_tier,
	    .over_time_limit = cfg->over_time_limit,
	    .def_mem_per_cpu = cfg->def_mem_per_cpu,
	    .def_mem_per_node = cfg->def_mem_per_node,
	    .max_mem_per_cpu = cfg->max_mem_per_cpu,
	    .max_mem_per_node = cfg->max_mem_per_node,
	};
	return 0;
}
