/* usage.h - what the job's processes use, sampled on a loop timer,
 * the memory limit, the totals the completion carries.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct acct_usage;
struct rusage;
struct sl_conf;
struct stepd;

/* One usage slot per task, the sampling timer. 0 or -ENOMEM. usage_free()
 * is NULL-safe and leaves s->usage NULL. */
int usage_init(struct stepd *s);
void usage_free(struct stepd *s);
/* JobAcctGatherFrequency task=: "30", "task=30" or "task=30,energy=0". */
unsigned usage_freq(const struct sl_conf *c);
/* The tasks started: a sample every acct_freq_s from now (none when it
 * is 0), and the last one at the end. */
void usage_sampling_start(struct stepd *s);
void usage_sampling_stop(struct stepd *s);
/* One /proc scan: per task RSS and VMSize and their peaks. Returns the sum
 * of the RSS of every process of the job, in bytes. */
uint64_t usage_gather(struct stepd *s);
/* A process reaped by wait4: its CPU time counts for the job, and a
 * task's ru_maxrss raises that task's RSS peak. */
void usage_reaped(struct stepd *s, pid_t pid, const struct rusage *ru);
/* The extern step, about to be killed: the CPU time so far of the
 * processes adopted into it (not ours: no wait4 will count them). */
void usage_adopted(struct stepd *s);
/* The totals the completion carries: CPU time, the largest task peaks
 * with their global ranks, the sums of the peaks; ntasks 0 when no task
 * was ever started. All zero before usage_init(). */
void usage_total(const struct stepd *s, struct acct_usage *ret);
/* sstat: the usage so far (peaks after a fresh sample, the CPU time of
 * live processes added to that of ended ones) and the task with the
 * least CPU time. */
void usage_live(struct stepd *s, struct acct_usage *ret, uint64_t *ret_min_cpu_usec,
		uint32_t *ret_min_task);
/* The tasks ended: OOM kills the kernel counted in the step's memory
 * cgroup give Slurm's line for the user and the OUT_OF_MEMORY mark. */
void usage_check_oom(struct stepd *s);
