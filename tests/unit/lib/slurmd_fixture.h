/* slurmd_fixture.h - a slurmd context for the unit tests of slurmd's
 * library (test_slurmd_*.c): no loop, no listener, a SlurmdSpoolDir made
 * with mkdtemp and removed with what the test left in it.
 *
 * The node name carries the test's pid, so the orphan killer of spool.c
 * (a dead socket's job's processes, found by SLURMD_NODENAME) can match no
 * process but a test's own. Header-only: the .c files of tests/unit/lib
 * are the controller's fixture library.
 */
#pragma once
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/conf.h"
#include "slurmd/slurmd.h"

#define FIX_SLURM_UID 4242u /* SlurmUser, neither root nor the test's user */

struct slurmd_fix {
	struct slurmd d;
	struct sl_conf conf;
	struct conf_node cfg;
	char dir[64];
	char node[32];
	char munge[96];
};

static inline int slurmd_fix_setup(void **state)
{
	struct slurmd_fix *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/slurmd_ut.XXXXXX");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	snprintf(f->node, sizeof(f->node), "ut%d", (int)getpid());
	snprintf(f->munge, sizeof(f->munge), "%s/no-munged", f->dir);
	f->conf.proctrack = PROCTRACK_PGID; /* no cgroups to clean */
	f->conf.slurm_user_id = FIX_SLURM_UID;
	f->conf.message_timeout = 10;
	f->conf.munge_socket = f->munge;
	f->cfg = (struct conf_node){ .name = f->node, .port = 6818, .cpus = 48, .boards = 1,
				     .sockets = 2, .cores_per_socket = 12, .threads_per_core = 2,
				     .real_memory = 190000, .tmp_disk = 1000, .gres = "gpu:4" };
	f->d.conf = &f->conf;
	f->d.cfg = &f->cfg;
	f->d.node_name = f->node;
	f->d.hostname = "uthost";
	f->d.spool_dir = f->dir;
	*state = f;
	return 0;
}

static inline int slurmd_fix_teardown(void **state)
{
	struct slurmd_fix *f = *state;
	DIR *dir = opendir(f->dir);
	struct dirent *e;

	while (dir && (e = readdir(dir)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(dir), e->d_name, 0);
	if (dir)
		closedir(dir);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* "<spool>/<name>" into buf. */
static inline void slurmd_fix_path(const struct slurmd_fix *f, const char *name, char *buf,
				   size_t size)
{
	if ((size_t)snprintf(buf, size, "%s/%s", f->dir, name) >= size)
		abort();
}

/* A unix socket bound at <spool>/<name>: listening (a live stepd) or
 * not (a stepd that died). Returns its fd, the caller closes it. */
static inline int slurmd_fix_socket(const struct slurmd_fix *f, const char *name, bool is_live)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	slurmd_fix_path(f, name, sa.sun_path, sizeof(sa.sun_path));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0
	    || (is_live && listen(fd, 4) < 0))
		abort();
	return fd;
}

/* A regular file <spool>/<name> holding text. */
static inline void slurmd_fix_file(const struct slurmd_fix *f, const char *name, const char *text)
{
	char path[256];
	FILE *fp;

	slurmd_fix_path(f, name, path, sizeof(path));
	fp = fopen(path, "w");
	if (!fp)
		abort();
	fputs(text, fp);
	fclose(fp);
}

/* Does <spool>/<name> exist (as itself, a link not followed)? */
static inline bool slurmd_fix_exists(const struct slurmd_fix *f, const char *name)
{
	char path[256];
	struct stat st;

	slurmd_fix_path(f, name, path, sizeof(path));
	return lstat(path, &st) == 0;
}
