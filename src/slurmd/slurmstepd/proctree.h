/* proctree.h - the job's processes: which local task each
 * belongs to, and signalling them all.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_entry;
struct stepd;

int proctree_init(struct stepd *s); /* 0 or -ENOMEM; proctree_free() is NULL-safe */
void proctree_free(struct stepd *s);
struct proc_entry;
/* The job's processes, sorted by pid, each with the local task it belongs
 * to: those of the task cgroups, else this stepd's descendants (on a
 * kernel without children lists every process of the node, -1 for those
 * not the job's). NULL (and 0) when none could be read. */
struct proc_entry *proctree_scan(const struct stepd *s, size_t *ret_n);
/* Remember the tasks of a scan: an orphan keeps its task from then on. */
void proctree_keep(struct stepd *s, const struct proc_entry *v, size_t n);
/* The local task of a process being reaped, or -1. */
int32_t proctree_task_of(const struct stepd *s, pid_t pid);
/* Send sig to the live tasks' process groups and every other process of
 * the job (found in /proc) that the job's user could signal itself or that
 * is our child, through a pidfd once it is checked to be the process
 * scanned. Returns how many processes were signalled. */
int proctree_signal(const struct stepd *s, int sig);
