/* job_res.h - what a job holds of its nodes: charging a started job's
 * allocation to the node records and giving it back, and the TRES strings
 * of what it asked for and what it got.
 */
#pragma once
#include <stdint.h>

struct ctld;
struct job;

/* The job's allocation counts against its nodes (a started or recovered
 * job). */
void job_res_charge(struct ctld *c, struct job *job);
/* A finished job gives its resources back; a scheduling pass is asked for. */
void job_res_release(struct ctld *c, struct job *job);
/* A running job gives back node k of its allocation (a failed node of a
 * --no-kill job): alloc.nodes[k] leaves the array, the later ones move
 * down one place. */
void job_res_release_node(struct ctld *c, struct job *job, uint32_t k);
/* CPUs asked for: tasks x cpus per task, at least one per node. */
uint32_t job_res_req_cpus(const struct job *job);
/* The TRES strings as Slurm prints them ("cpu=2,mem=200M,node=1,billing=2,
 * gres/gpu=2"), malloc'd; req NULL on ENOMEM, alloc NULL also while
 * nothing is allocated. */
char *job_res_tres_req(const struct job *job);
char *job_res_tres_alloc(const struct job *job);
