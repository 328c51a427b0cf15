/* pmix_srv.h - the PMIx server of a step launched with --mpi=pmix (Slurm's
 * mpi/pmix, for Open MPI), on Debian's libpmix: the step's namespace and
 * its local clients registered before the fork, each task's PMIx
 * variables set in its child, and fences across the step's nodes through
 * srun (the IO_PMI_FENCE/IO_PMI_KVS exchange of pmi.c, with PMIx's opaque
 * blobs: srun concatenates every node's). libpmix calls back from its own
 * thread; those calls are queued to the stepd's loop through a pipe.
 * Built only with SL_HAVE_PMIX; without it pmix_srv_init() refuses the type.
 */
#pragma once
#include <stdint.h>

struct stepd;

/* When SLURM_MPI_TYPE is pmix: start the server, register the step and
 * its local tasks. 0 (also when another type), or -errno. */
int pmix_srv_init(struct stepd *s);
/* In task ltid's child: the variables PMIx_server_setup_fork gave. */
int pmix_srv_task_env(struct stepd *s, uint32_t ltid);
void pmix_srv_free(struct stepd *s); /* finalizes the server; NULL-safe */
