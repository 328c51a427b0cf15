/* cgroup_fs.c - see cgroup_fs.h. */
#include "cgroup_fs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "conf.h"
#include "macros.h"
#include "safe_fs.h"

#define TREE_DEPTH_MAX 4 /* job/step/user/task below the node's directory */

int cgroup_fs_version(const struct cgroup_conf *g)
{
	struct statfs f;

	if (g->plugin == CGROUP_PLUGIN_V1)
		return 1;
	if (g->plugin == CGROUP_PLUGIN_V2)
		return 2;
	if (statfs(g->mountpoint, &f) < 0)
		return -errno;
	return f.f_type == CGROUP2_SUPER_MAGIC ? 2 : 1;
}

static int signal_tree(const char *dir, int sig, int depth)
{
	char path[PATH_MAX];
	struct dirent *e;
	int count = 0, pid;
	DIR *d;
	FILE *f;

	if (depth > TREE_DEPTH_MAX
	    || snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= (int)sizeof(path))
		return 0;
	f = fopen(path, "re");
	if (f) {
		while (fscanf(f, "%d", &pid) == 1)
			if (pid > 0 && pid != getpid() && kill(pid, sig) == 0)
				count++;
		fclose(f);
	}
	d = opendir(dir);
	if (!d)
		return count;
	while ((e = readdir(d)))
		if (e->d_type == DT_DIR && e->d_name[0] != '.'
		    && snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path))
			count += signal_tree(path, sig, depth + 1);
	closedir(d);
	return count;
}

int cgroup_fs_signal_tree(const char *dir, int sig)
{
	return signal_tree(dir, sig, 0);
}

/* The one tree removal (safe_fs.c), in its rmdir-only form: a cgroup's
 * files go with its directory. */
void cgroup_fs_rmdir_tree(const char *dir)
{
	_cleanup_free_ char *parent = strdup(dir);
	char *slash = parent ? strrchr(parent, '/') : NULL;

	if (!slash || slash == parent || !slash[1])
		return;
	*slash = '\0';
	(void)safe_rmtree(parent, slash + 1, SAFE_FS_NO_USER, SAFE_RM_DIRS_ONLY);
}
