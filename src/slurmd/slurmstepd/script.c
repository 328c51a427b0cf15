/* script.c - the batch script in the spool: <SlurmdSpoolDir>/job%05u/slurm_script
 * (Slurm's place and modes).
 *
 * The directory is root's, 0750 with the job's group, and the script the
 * user's, 0500: the job reads and runs it, but cannot add, rename or
 * replace anything beside it, so nothing of the user's is ever below a
 * directory root walks, and the spool's disk takes only the script. The
 * file is written while it is still root's (O_EXCL, O_NOFOLLOW) and handed
 * over with fchown/fchmod on its descriptor. A directory of the same name
 * (a stepd of this job id that died) is removed whole first, and the
 * directory goes whole at the end (safe_rmtree_at: fd-relative, no link
 * followed).
 */
#include "script.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/safe_fs.h"
#include "common/sl_errno.h"
#include "common/stepd_proto.h"
#include "stepd.h"

#define SCRIPT_NAME "slurm_script"

static int script_write_file(int dir_fd, const char *text, uid_t uid, gid_t gid)
{
	_cleanup_close_ int fd = -1;
	int r;

	fd =
	    openat(dir_fd, SCRIPT_NAME, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0500);
	if (fd < 0)
		return -errno;
	r = stepd_write_all(fd, text, strlen(text));
	if (r < 0)
		return r;
	if (fchown(fd, uid, gid) < 0 || fchmod(fd, 0500) < 0)
		return -errno;
	return 0;
}

static void script_dir_remove(struct stepd *s)
{
	const char *name = strrchr(s->script_dir, '/') + 1;
	int r = safe_rmtree(s->spool_dir, name, SAFE_FS_NO_USER, 0);

	if (r < 0)
		error("cannot remove %s: %s", s->script_dir, strerror(-r));
}

int script_write(struct stepd *s)
{
	const struct batch_launch_msg *m = s->msg;
	_cleanup_close_ int spool = -1, dir = -1;
	char name[32];
	int r;

	snprintf(name, sizeof(name), "job%05u", m->job_id);
	if (asprintf(&s->script_dir, "%s/%s", s->spool_dir, name) < 0) {
		s->script_dir = NULL;
		return -ENOMEM;
	}
	if (asprintf(&s->script_path, "%s/" SCRIPT_NAME, s->script_dir) < 0) {
		s->script_path = NULL;
		return -ENOMEM;
	}
	spool = safe_open_dir(s->spool_dir);
	dir = spool < 0 ? spool : safe_mkdir_at(spool, name, 0750, 0, m->gid, SAFE_FS_ANY_USER);
	if (dir < 0) {
		error("JobId=%u: mkdir %s: %s", m->job_id, s->script_dir, strerror(-dir));
		return -ESLURMD_CREATE_BATCH_DIR_ERROR;
	}
	r = script_write_file(dir, m->script ? m->script : "", m->uid, m->gid);
	if (r < 0) {
		error("JobId=%u: cannot write %s: %s", m->job_id, s->script_path, strerror(-r));
		script_dir_remove(s);
		return -ESLURMD_CREATE_BATCH_DIR_ERROR;
	}
	return 0;
}

void script_remove(struct stepd *s)
{
	if (s->script_dir && s->script_path)
		script_dir_remove(s);
	/* once: a later call must not remove the next run's script */
	free(s->script_dir);
	free(s->script_path);
	s->script_dir = s->script_path = NULL;
}
