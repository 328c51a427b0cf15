/* privs.c - the job's identity: its groups, a temporary switch to it
 * (to open files as the user) and the final drop before exec. The only
 * file of slurmstepd that changes uids or gids.
 *
 * A stepd started by a non-root slurmd (test clusters run as one user)
 * can only run jobs of its own uid and changes nothing.
 */
#include "privs.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/msg.h"
#include "common/sl_errno.h"
#include "stepd.h"

#define GROUPS_MAX 65536

static bool privs_is_root(void)
{
	return geteuid() == 0;
}

/* Supplementary groups from the user database, primary gid first. */
static int privs_groups_lookup(struct stepd *s, const char *name)
{
	int n = 64;

	for (int tries = 0; tries < 8; tries++) {
		gid_t *g = calloc((size_t)n, sizeof(*g));
		int want = n;

		if (!g)
			return -ENOMEM;
		if (getgrouplist(name, s->gid, g, &want) >= 0) {
			free(s->gids);
			s->gids = g;
			s->ngids = want;
			return 0;
		}
		free(g);
		if (want <= n || want > GROUPS_MAX)
			return -EINVAL;
		n = want;
	}
	return -EINVAL;
}

int privs_init(struct stepd *s)
{
	const struct batch_launch_msg *m = s->msg; /* NULL for a step */
	/* a step's user_name comes from srun: the uid alone is trusted */
	const char *name = s->is_batch ? s->user_name : NULL;
	struct passwd *pw = NULL;
	int r;

	if (!privs_is_root()) {
		if (s->uid != geteuid())
			return log_errno(
			    -ESLURMD_SET_UID_OR_GID_ERROR,
			    "JobId=%u: cannot run as uid %u, slurmstepd runs as uid %u", s->job_id,
			    s->uid, (unsigned)geteuid());
		return 0;
	}
	if (m && m->ngids > 0 && m->ngids <= GROUPS_MAX) {
		s->gids = calloc(m->ngids + 1, sizeof(*s->gids));
		if (!s->gids)
			return -ENOMEM;
		s->gids[s->ngids++] = m->gid;
		for (uint32_t i = 0; i < m->ngids; i++)
			if (m->gids[i] != m->gid)
				s->gids[s->ngids++] = m->gids[i];
		return 0;
	}
	if (!name || !*name) {
		pw = getpwuid(s->uid);
		name = pw ? pw->pw_name : NULL;
	}
	r = name ? privs_groups_lookup(s, name) : -ENOENT;
	if (r < 0) { /* unknown to this node's user database: the primary group alone */
		s->gids = calloc(1, sizeof(*s->gids));
		if (!s->gids)
			return -ENOMEM;
		s->gids[0] = s->gid;
		s->ngids = 1;
	}
	return 0;
}

int privs_drop_temp(const struct stepd *s, struct privs_saved *sv)
{
	*sv = (struct privs_saved){.egid = getegid()};
	if (!privs_is_root())
		return 0;
	sv->ngroups = getgroups(0, NULL);
	if (sv->ngroups < 0)
		return -errno;
	sv->groups = calloc((size_t)sv->ngroups + 1, sizeof(*sv->groups));
	if (!sv->groups)
		return -ENOMEM;
	if (getgroups(sv->ngroups, sv->groups) < 0 || setgroups((size_t)s->ngids, s->gids) < 0
	    || setegid(s->gid) < 0 || seteuid(s->uid) < 0) {
		int r = -errno;

		sv->is_dropped = true;
		privs_restore(sv);
		return r;
	}
	sv->is_dropped = true;
	return 0;
}

void privs_restore(struct privs_saved *sv)
{
	if (sv->is_dropped) {
		/* Failing to become root again would leave us as the user:
		 * nothing safe remains to do but stop. */
		if (seteuid(0) < 0 || setegid(sv->egid) < 0
		    || setgroups((size_t)sv->ngroups, sv->groups) < 0)
			fatal("cannot regain privileges: %s", strerror(errno));
	}
	free(sv->groups);
	*sv = (struct privs_saved){0};
}

int privs_drop_final(const struct stepd *s)
{
	if (!privs_is_root())
		return 0;
	if (setgroups((size_t)s->ngids, s->gids) < 0 || setgid(s->gid) < 0 || setuid(s->uid) < 0)
		return -errno;
	/* A job of uid 0 keeps root; any other must not be able to get it back. */
	if (s->uid != 0 && (setuid(0) == 0 || geteuid() == 0))
		return -EPERM;
	return 0;
}
