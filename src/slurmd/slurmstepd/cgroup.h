/* cgroup.h - the step's cgroups: proctrack/cgroup (every process of the
 * step found and signalled through its cgroup) and task/cgroup (the
 * allocated cores, memory and GPUs enforced by the kernel), on cgroup v1
 * or v2 (CgroupPlugin=, autodetect by CgroupMountpoint's file system).
 *
 * The layout, as Slurm builds it (a node name in the top directory, as
 * Slurm's multiple-slurmd builds do, so several slurmd on one host never
 * share a tree):
 *   v1: <mnt>/<controller>/slurm_<node>/uid_<uid>/job_<job>/step_<step>/task_<n>
 *       for freezer (proctrack/cgroup), cpuset (ConstrainCores), memory
 *       (ConstrainRAMSpace or ConstrainSwapSpace), devices (ConstrainDevices);
 *   v2: <mnt>/system.slice/<node>_slurmstepd.scope/job_<job>/step_<step>/user/task_<n>
 * with step_batch for a batch script. The stepd itself goes where Slurm
 * puts it: v2 <step>/slurm (its memory counts in the job's and the step's
 * memory.max), v1 the freezer's job_<job> (never in a v1 memory cgroup);
 * it goes back where it was before the directories are removed. The v2
 * kill is the step's user/ part, so never the stepd. Without usable cgroups (not root,
 * read-only, no such controller) the stepd says so in its log once and
 * falls back to /proc tracking and memory sampling.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct stepd;

/* Build the step's hierarchy and write its limits (the CPUs picked under
 * a lock in the node's spool: free cores first, lowest first). 0, also
 * when falling back (s->cg stays NULL); -ENOMEM. */
int cgroup_create(struct stepd *s);
/* In the task's child before exec (still root): join task_<ltid> in every
 * hierarchy. 0 or -errno. */
int cgroup_task_join(const struct stepd *s, uint32_t ltid);
/* pam_slurm_adopt: move process pid (all its threads) into task 0's
 * cgroups of the step. 0, -ENOTSUP without cgroup tracking, or -errno
 * (-ESRCH: no such process). */
int cgroup_adopt(const struct stepd *s, pid_t pid);
/* The step's processes are tracked by cgroup (proctrack/cgroup). */
bool cgroup_is_tracking(const struct stepd *s);
/* Every process in the step's task cgroups, fn(arg, pid, ltid) for each
 * with the task of its directory. How many, or -ENOENT when the step has
 * no task cgroups (the caller looks in /proc). */
int cgroup_task_pids(const struct stepd *s, void (*fn)(void *arg, pid_t pid, uint32_t ltid),
		     void *arg);
/* The kernel enforces the memory limit (ConstrainRAMSpace). */
bool cgroup_is_limiting_ram(const struct stepd *s);
/* Send sig to every process in the step's cgroups (SIGKILL with the
 * freezer or cgroup.kill, so nothing forks away). Returns how many
 * processes there were. */
int cgroup_signal(const struct stepd *s, int sig);
/* OOM kills the kernel counted in the step's memory cgroups. */
uint64_t cgroup_oom_kills(const struct stepd *s);
/* The cpuset of the step, "0-1,4", for the log and tests; "" without. */
const char *cgroup_cpus(const struct stepd *s);
/* Remove the step's directories, and the job's and user's when empty. */
void cgroup_destroy(struct stepd *s);
