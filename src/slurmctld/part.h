/* part.h - partitions as the controller sees them: the configured record
 * plus the resolved node set and totals.
 */
#pragma once
#include <stdint.h>

struct conf_part;
struct ctld;
struct part_info;

struct part {
	struct conf_part *cfg;       /* owned: slurm.conf's copy, with scontrol's edits */
	uint32_t *node_idx;          /* into ctld->nodes, config order */
	uint32_t node_count;
	uint32_t total_cpus;
	uint64_t total_mem;          /* MB */
	uint64_t total_gpus;
};

/* Every partition from slurm.conf (copies), its nodes resolved and each
 * node's partition list set. Call after the node table is built or
 * rebuilt. */
int part_table_build(struct ctld *c);
/* Resolve the nodes of every partition again (after an edit). */
int part_table_resolve(struct ctld *c);
void part_table_free(struct ctld *c);
/* The partition called name, or NULL. */
struct part *part_find(const struct ctld *c, const char *name);
int part_info_fill(const struct ctld *c, const struct part *p, struct part_info *ret);
