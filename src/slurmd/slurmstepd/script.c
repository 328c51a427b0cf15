/* script.c - the batch script in the spool: <SlurmdSpoolDir>/job%05u/slurm_script
 * (Slurm's place), the directory and the file 0700 and the user's.
 *
 * The spool is root's, so the directory is created and the file written
 * while they are still root's (O_EXCL, O_NOFOLLOW), and only then handed
 * to the user; nothing is written as root into a directory a user owns.
 * A directory left by an earlier stepd of the same job id is removed first.
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
#include "common/msg.h"
#include "common/sl_errno.h"
#include "stepd.h"
#include "stepd_proto.h"

static void script_dir_remove(const char *dir, const char *file)
{
	if (unlink(file) < 0 && errno != ENOENT)
		debug("cannot remove %s: %s", file, strerror(errno));
	if (rmdir(dir) < 0 && errno != ENOENT)
		debug("cannot remove %s: %s", dir, strerror(errno));
}

static int script_write_file(const char *path, const char *text, uid_t uid, gid_t gid)
{
	_cleanup_close_ int fd = -1;
	int r;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700);
	if (fd < 0)
		return -errno;
	r = stepd_write_all(fd, text, strlen(text));
	if (r < 0)
		return r;
	if (fchown(fd, uid, gid) < 0 || fchmod(fd, 0700) < 0)
		return -errno;
	return 0;
}

int script_write(struct stepd *s)
{
	const struct batch_launch_msg *m = s->msg;
	int r;

	if (asprintf(&s->script_dir, "%s/job%05u", s->spool_dir, m->job_id) < 0) {
		s->script_dir = NULL;
		return -ENOMEM;
	}
	if (asprintf(&s->script_path, "%s/slurm_script", s->script_dir) < 0) {
		s->script_path = NULL;
		return -ENOMEM;
	}
	script_dir_remove(s->script_dir, s->script_path);
	if (mkdir(s->script_dir, 0700) < 0) {
		r = -errno;
		error("JobId=%u: mkdir %s: %s", m->job_id, s->script_dir, strerror(-r));
		return -ESLURMD_CREATE_BATCH_DIR_ERROR;
	}
	r = script_write_file(s->script_path, m->script ? m->script : "", m->uid, m->gid);
	if (r == 0 && chown(s->script_dir, m->uid, m->gid) < 0)
		r = -errno;
	if (r < 0) {
		error("JobId=%u: cannot write %s: %s", m->job_id, s->script_path, strerror(-r));
		script_dir_remove(s->script_dir, s->script_path);
		return -ESLURMD_CREATE_BATCH_DIR_ERROR;
	}
	return 0;
}

void script_remove(struct stepd *s)
{
	if (s->script_dir && s->script_path)
		script_dir_remove(s->script_dir, s->script_path);
	/* once: a later call must not remove the next run's script */
	free(s->script_dir);
	free(s->script_path);
	s->script_dir = s->script_path = NULL;
}
