/* safe_fs.c - see safe_fs.h.
 *
 * The walk holds one descriptor per level and never builds a path: each
 * name is looked up in the descriptor of the directory that listed it.
 * The owner and device checked are those of the directory actually
 * opened (fstat on the new descriptor), so a swap between the look-up
 * and the open cannot lead root anywhere it did not check.
 */
#include "safe_fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "macros.h"

/* Passes over one directory: a user still adding files to a directory of
 * theirs cannot keep root in it. */
#define RM_PASSES 3

struct rm_walk {
	dev_t dev;  /* the device of the directory the walk started in */
	uid_t user; /* besides root, who may own a directory entered */
	unsigned flags;
	int err;       /* the first failure */
	unsigned left; /* entries left on purpose (owner, device, depth) */
};

static void rm_fail(struct rm_walk *w, int err)
{
	if (!w->err)
		w->err = err;
}

/* May the walk enter this directory, listed in one owned by parent_uid? */
static bool rm_may_enter(const struct rm_walk *w, const struct stat *st, uid_t parent_uid)
{
	if (st->st_dev != w->dev)
		return false; /* a mount point: not ours to empty */
	if (parent_uid != 0)
		return st->st_uid == parent_uid; /* in the user's: only the user's */
	if (w->user == SAFE_FS_ANY_USER)
		return true;
	return st->st_uid == 0 || (w->user != SAFE_FS_NO_USER && st->st_uid == w->user);
}

static int rm_entry(struct rm_walk *w, int dfd, const char *name, uid_t parent_uid, unsigned depth);

/* Empty the directory open at fd (owned by uid); closes fd. */
static void rm_contents(struct rm_walk *w, int fd, uid_t uid, unsigned depth)
{
	DIR *d = fdopendir(fd);

	if (!d) {
		rm_fail(w, -errno);
		close(fd);
		return;
	}
	for (int pass = 0, left = w->left; pass < RM_PASSES; pass++) {
		unsigned removed = 0, seen = 0;
		struct dirent *e;

		w->left = left; /* what the last pass left */
		rewinddir(d);
		while ((e = readdir(d))) {
			if (streq(e->d_name, ".") || streq(e->d_name, ".."))
				continue;
			seen++;
			if (rm_entry(w, dirfd(d), e->d_name, uid, depth + 1) == 0)
				removed++;
		}
		if (!seen || !removed)
			break;
	}
	closedir(d);
}

static int rm_dir(struct rm_walk *w, int dfd, const char *name, uid_t parent_uid, unsigned depth)
{
	struct stat st;
	int fd;

	if (depth >= SAFE_FS_DEPTH_MAX) {
		w->left++;
		return -ELOOP;
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &st) < 0 || !rm_may_enter(w, &st, parent_uid)) {
		close(fd);
		w->left++;
		return -EPERM;
	}
	rm_contents(w, fd, st.st_uid, depth);
	if (depth == 0 && (w->flags & SAFE_RM_KEEP_TOP))
		return 0;
	if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

static int rm_entry(struct rm_walk *w, int dfd, const char *name, uid_t parent_uid, unsigned depth)
{
	struct stat st;
	int r;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode))
		r = rm_dir(w, dfd, name, parent_uid, depth);
	else if (w->flags & SAFE_RM_DIRS_ONLY)
		return -EEXIST; /* goes with its directory */
	else
		r = unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	if (r < 0 && r != -EPERM && r != -ELOOP)
		rm_fail(w, r);
	return r;
}

int safe_rmtree_at(int dir_fd, const char *name, uid_t user, unsigned flags)
{
	struct rm_walk w = {.user = user, .flags = flags};
	struct stat st;
	int r;

	if (!name || !name[0] || strchr(name, '/') || streq(name, ".") || streq(name, ".."))
		return -EINVAL;
	if (fstat(dir_fd, &st) < 0)
		return -errno;
	w.dev = st.st_dev;
	r = rm_entry(&w, dir_fd, name, st.st_uid, 0);
	if (w.left)
		info("%s: %u entr%s left in place (another owner, another device, or deeper than "
		     "%d)",
		     name, w.left, w.left == 1 ? "y" : "ies", SAFE_FS_DEPTH_MAX);
	if (r == 0 && w.err)
		r = w.err;
	if (r == 0 && w.left)
		r = -ENOTEMPTY;
	return r;
}

int safe_open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int safe_rmtree(const char *parent, const char *name, uid_t user, unsigned flags)
{
	_cleanup_close_ int fd = safe_open_dir(parent);

	if (fd < 0)
		return fd;
	return safe_rmtree_at(fd, name, user, flags);
}

/* The directory just made at dir_fd/name, checked to be the one made. */
static int mkdir_open(int dir_fd, const char *name)
{
	struct stat parent, st;
	int fd;

	if (fstat(dir_fd, &parent) < 0)
		return -errno;
	fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || st.st_dev != parent.st_dev) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int safe_mkdir_at(int dir_fd, const char *name, mode_t mode, uid_t uid, gid_t gid, uid_t user)
{
	int fd, r;

	if (!name || !name[0] || strchr(name, '/'))
		return -EINVAL;
	if (mkdirat(dir_fd, name, 0700) < 0) {
		if (errno != EEXIST)
			return -errno;
		error("%s: already there (left by a stepd that died?): removed and made again",
		      name);
		r = safe_rmtree_at(dir_fd, name, user, 0);
		if (r < 0)
			return r;
		if (mkdirat(dir_fd, name, 0700) < 0)
			return -errno;
	}
	fd = mkdir_open(dir_fd, name);
	if (fd < 0)
		return fd;
	if (fchown(fd, uid, gid) < 0 || fchmod(fd, mode) < 0) {
		r = -errno;
		close(fd);
		(void)unlinkat(dir_fd, name, AT_REMOVEDIR);
		return r;
	}
	return fd;
}
