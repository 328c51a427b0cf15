/* pmi.h - the PMI server of a step launched with --mpi=pmi2 (Slurm's
 * mpi/pmi2): each local task gets one end of a socket pair as PMI_FD and
 * speaks PMI-1 (the "simple" wire protocol of MPICH: "cmd=init ...\n"
 * lines) or PMI-2 (length-prefixed "cmd=fullinit;..." commands), told
 * apart by the first bytes. The key-value space is exchanged across the
 * step's nodes through srun at each fence (IO_PMI_FENCE up, IO_PMI_KVS
 * down, io_proto.h): srun answers once every node's stepd has sent its
 * part, so a barrier is a barrier of the whole step.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct io_hdr;
struct stepd;

/* Before the tasks start: the socket pairs, when the launch's
 * SLURM_MPI_TYPE is pmi2. 0 (also when it is not), or -errno. */
int pmi_init(struct stepd *s);
#define PMI_TASK_FD 3 /* the fd a task finds its end on (PMI_FD) */

/* The child's end of task ltid's pair, or -1 (no PMI). */
int pmi_child_fd(const struct stepd *s, uint32_t ltid);
/* In the child: PMI_FD, PMI_RANK, PMI_SIZE, PMI_JOBID for task ltid. */
int pmi_task_env(struct stepd *s, uint32_t ltid);
/* After the forks: close the children's ends, serve ours in the loop. */
void pmi_started(struct stepd *s);
/* A PMI frame from srun (IO_PMI_KVS). */
void pmi_frame_in(struct stepd *s, const struct io_hdr *h, const uint8_t *p);
void pmi_free(struct stepd *s); /* NULL-safe */
