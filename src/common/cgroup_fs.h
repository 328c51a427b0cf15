/* cgroup_fs.h - what slurmstepd (cgroup.c) and slurmd (spool.c) both do
 * with a step's cgroup directories: which hierarchy the mount is,
 * signalling every process below a directory, and removing a tree.
 */
#pragma once

struct cgroup_conf;

/* 1 or 2 for cgroup.conf's CgroupPlugin (autodetect: the mount's file
 * system), or -errno when the mount point cannot be read. */
int cgroup_fs_version(const struct cgroup_conf *g);
/* Send sig (0: count only) to every process listed in dir's cgroup.procs
 * and those of the directories below it (at most 4 deep; never the
 * caller). Returns how many there were. */
int cgroup_fs_signal_tree(const char *dir, int sig);
/* Remove dir and every directory below it, deepest first (a cgroup with
 * processes stays, and so do its parents). */
void cgroup_fs_rmdir_tree(const char *dir);
