/* data_node.h - nodes as Slurm 22.05's v0.0.38 documents (sinfo --json,
 * scontrol show node --json, GET /slurm/v0.0.38/nodes).
 *
 * One record per node_info (msg.h); "state" is the lower-case base state
 * ("idle", "mixed", "allocated", "down", ...) and "state_flags" the flags
 * ("DRAIN", "NOT_RESPONDING", ...). Fields without data here: docs/json.md.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "common/data_out.h"

struct node_info;
struct node_info_msg;
struct part_info_msg;

/* The v0.0.38_node record (for the OpenAPI spec). */
extern const struct dfield_table data_node_table;

/* true: the node goes into the document. */
typedef bool data_node_keep_fn(const struct node_info *n, void *arg);

/* The state Slurm shows: MIXED when only part of the CPUs (or only other
 * resources) is allocated, flags kept. */
uint32_t data_node_state(const struct node_info *n);

/* {"meta", "errors": [], "nodes": [...]}: the nodes of m keep() keeps
 * (NULL: all), in m's order; argv into meta.command (argc 0: left out). */
void data_nodes_doc(struct dout *d, const struct node_info_msg *m, data_node_keep_fn *keep,
		    void *arg, int argc, char **argv);

/* The "nodes" member alone (inside an open object), for documents that
 * carry more than nodes (sinfo --json adds "partitions"). */
void data_nodes_member(struct dout *d, const struct node_info_msg *m, data_node_keep_fn *keep,
		       void *arg);
