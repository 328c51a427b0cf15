/* container.h - JobContainerType=job_container/tmpfs on the node: each
 * job gets a mount namespace of its own in which the directories of
 * job_container.conf's Dirs= (default /tmp and /dev/shm) are private.
 *
 * slurmd makes it before the job's first stepd starts here (its extern
 * step, or its first launch): <BasePath>/<job>/ (root's, 0700) holds a
 * directory per private directory (".tmp" for /tmp: 1777 like /tmp
 * itself, bind-mounted there) and ".ns", on which the namespace is kept
 * (a bind mount of the maker's /proc/<pid>/ns/mnt); /dev/shm is a fresh
 * tmpfs in it. Every stepd of the job makes its tasks join it before they
 * run (setns), so every step, and the extern step with what
 * pam_slurm_adopt puts there, sees the same private /tmp. BasePath itself
 * is made a private mount of its own (the kernel refuses a namespace
 * file bound where it would propagate), and AutoBasePath creates it.
 * InitScript runs (as root, SLURM_JOB_ID, SLURM_CONF, SLURMD_NODENAME and
 * SLURM_JOB_MOUNTPOINT_SRC set) before the namespace is built; it failing
 * fails the job's launch here. When the job's stepds are gone, its
 * namespace is released and its directory removed (safe_fs.h: what the
 * job left in its /tmp is removed without following a link).
 */
#pragma once
#include <stdint.h>
#include <sys/types.h>

struct slurmd;

#define CONTAINER_INIT_TIMEOUT_S 60 /* InitScript and the namespace's maker */

/* With tmpfs: BasePath for this node (made with AutoBasePath), a private
 * mount. -EINVAL when job_container.conf gives this node none. */
int slurmd_container_init(struct slurmd *d);
void slurmd_container_fini(struct slurmd *d);

/* The job's namespace, made now unless it is there. 0 (also without
 * tmpfs), or a negative code (-ESLURMD_SETUP_ENVIRONMENT_ERROR). */
int slurmd_container_create(struct slurmd *d, uint32_t job_id);
/* The job's stepds are gone: its namespace and directory go. */
void slurmd_container_delete(struct slurmd *d, uint32_t job_id);
