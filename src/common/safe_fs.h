/* safe_fs.h - root's file operations in places a user can reach.
 *
 * Everything here works on directory descriptors, never on a path string
 * below a directory a user can write: a name is looked up in a directory
 * already open, links are never followed (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW),
 * and before a directory is entered its device and owner are checked on
 * the descriptor itself. A user who renames a directory or puts a symlink
 * in its place while root works in it changes nothing root does: root
 * keeps working on the inodes it opened. docs/security.md lists where the
 * daemons use it.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* No owner besides root: for trees nobody else should own any part of. */
#define SAFE_FS_NO_USER ((uid_t)-1)
/* Whoever owns a directory listed in one of root's (the owner of a dead
 * stepd's leftovers is not known); below it, still only that owner's. */
#define SAFE_FS_ANY_USER ((uid_t)-2)

/* Deepest tree rmtree_at() descends into (it holds a descriptor per level). */
#define SAFE_FS_DEPTH_MAX 32

enum {
	/* rmdir only (cgroupfs: its files go with their directory). */
	SAFE_RM_DIRS_ONLY = 1 << 0,
	/* Keep the top directory itself, emptied. */
	SAFE_RM_KEEP_TOP = 1 << 1,
};

/*
 * Remove `name` in the directory open at `dir_fd`, and everything below
 * it when it is a directory. A symlink is removed, never followed. A
 * directory is entered only when it is on dir_fd's device and owned by
 * root or `user` (SAFE_FS_NO_USER: root only); inside a directory that
 * `user` owns, only directories `user` owns are entered (a root one there
 * was moved in by the user). Anything not entered is left, logged once.
 * Goes on past failures; returns 0 when `name` is gone (or was never
 * there), else the first -errno (-ENOTEMPTY when something was left).
 */
int safe_rmtree_at(int dir_fd, const char *name, uid_t user, unsigned flags);

/* safe_rmtree_at() on `name` in `parent`, a directory only root can write
 * (the spool, a cgroup mount): its path is opened once, O_NOFOLLOW. */
int safe_rmtree(const char *parent, const char *name, uid_t user, unsigned flags);

/*
 * Make `name` in dir_fd a new directory and return a descriptor of it
 * (O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC), owned uid:gid with exactly `mode`
 * (fchown/fchmod on the descriptor, after checking it is the directory
 * just made: root's, on dir_fd's device). One already there (a stepd that
 * died left it) is logged, removed with safe_rmtree_at(..., `user`) and
 * made again, once. Returns -errno on failure (nothing left behind).
 */
int safe_mkdir_at(int dir_fd, const char *name, mode_t mode, uid_t uid, gid_t gid, uid_t user);

/* Open a directory by a path only root can change (configuration:
 * SlurmdSpoolDir), for the *_at calls. -errno on failure. */
int safe_open_dir(const char *path);
