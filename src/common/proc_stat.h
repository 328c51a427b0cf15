/* proc_stat.h - /proc/<pid>/stat as data: the parse of one line, the read
 * of one process, and the attribution of a process table to tasks (a
 * process belongs to the task it descends from). Pure but for
 * proc_stat_read(), so slurmstepd's usage gathering is unit tested here.
 */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_stat {
	pid_t pid, ppid, pgrp, session;
	uint64_t utime, stime; /* clock ticks (sysconf(_SC_CLK_TCK)) */
	uint64_t start;	       /* start time, clock ticks since boot: never reused with the pid */
	uint64_t vsize;	       /* virtual memory size, bytes */
	uint64_t rss;	       /* resident set size, pages */
};

/* Parse one /proc/<pid>/stat line (NUL-terminated; a trailing newline is
 * fine). The command between '(' and the last ')' may hold anything,
 * spaces and ')' included. Returns 0, or -EINVAL for a line that is
 * truncated before rss or not of that shape; *ret is untouched then. */
int proc_stat_parse(const char *line, struct proc_stat *ret);

/* Read and parse /proc/<pid>/stat. 0, -errno of open(2) (-ENOENT: the
 * process is gone), or -EIO / -EINVAL for an unreadable or bad line. */
int proc_stat_read(pid_t pid, struct proc_stat *ret);

/* The real and saved uid of a /proc/<pid>/status text (its "Uid:" line:
 * real, effective, saved, filesystem). 0, or -EINVAL without a whole Uid
 * line; the outputs are untouched then. */
int proc_status_parse_uids(const char *text, uid_t *ret_real, uid_t *ret_saved);

/* Read /proc/<pid>/status and parse its uids: 0, -errno of open(2), or
 * -EIO / -EINVAL. */
int proc_status_read_uids(pid_t pid, uid_t *ret_real, uid_t *ret_saved);

/* One process of a scan, attributed to a task (an index chosen by the
 * caller) or to none (-1). */
struct proc_entry {
	struct proc_stat st;
	int32_t task;
};

/* v[0..n) sorted by pid (proc_entry_cmp): every process whose task is -1
 * takes its parent's task, repeated until nothing changes, so the whole
 * descent of an attributed process is attributed. A parent that started
 * after the process passes nothing on: its pid was reused while the scan
 * read /proc, it is not the parent. Entries whose pid is self (the
 * caller) are left alone and pass nothing on. Returns how many entries it
 * attributed. */
size_t proc_entry_inherit(struct proc_entry *v, size_t n, pid_t self);

/* qsort/bsearch comparator: by st.pid. */
int proc_entry_cmp(const void *a, const void *b);
