/* cred_state.c - see cred_state.h.
 *
 * File: one entry a line, "U <job> <step> <ctime_us> <expire>" for a
 * credential used here, "R <job> 0 <revoke_us> <expire>" for a job that
 * ended here; anything else is skipped (and logged). Each change appends
 * its line; the file is rewritten to the live entries only once it holds
 * more than twice as many lines as there are (so a launch costs one short
 * write, not a rewrite of every entry). A job revoked again appends a
 * later "R" line: the latest one wins, an earlier one only refuses less.
 */
#include "cred_state.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macros.h"
#include "common/sl_errno.h"
#include "common/step_cred.h"

#define LINE_MAX_LEN 128

struct cred_entry {
	char kind; /* 'U' used credential, 'R' revoked job */
	uint32_t job_id, step_id;
	uint64_t time_us; /* the credential's ctime, or when the job was revoked */
	int64_t expire;	  /* dropped after */
};

struct cred_state {
	char *path; /* NULL: memory only */
	struct cred_entry *e;
	uint32_t n, cap;
	uint32_t file_lines; /* entries in the file, live or not */
};

#define REWRITE_SLACK 64 /* lines: small files are never rewritten for space */

static void purge(struct cred_state *cs, time_t now)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < cs->n; i++)
		if (cs->e[i].expire >= (int64_t)now)
			cs->e[k++] = cs->e[i];
	cs->n = k;
}

static int add(struct cred_state *cs, const struct cred_entry *e)
{
	if (cs->n >= CRED_STATE_MAX)
		return -ENOSPC;
	if (cs->n == cs->cap) {
		uint32_t cap = cs->cap ? cs->cap * 2 : 64;
		struct cred_entry *v = reallocarray(cs->e, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		cs->e = v;
		cs->cap = cap;
	}
	cs->e[cs->n++] = *e;
	return 0;
}

static bool parse_line(const char *line, struct cred_entry *e)
{
	char kind, end;
	uint64_t time_us;
	int64_t expire;
	unsigned job, step;

	if (sscanf(line, "%c %u %u %" SCNu64 " %" SCNd64 "%c", &kind, &job, &step, &time_us,
		   &expire, &end)
		!= 6
	    || end != '\n' || (kind != 'U' && kind != 'R'))
		return false;
	*e = (struct cred_entry){
	    .kind = kind, .job_id = job, .step_id = step, .time_us = time_us, .expire = expire};
	return true;
}

static void load(struct cred_state *cs, time_t now)
{
	FILE *f = fopen(cs->path, "re");
	char line[LINE_MAX_LEN];
	unsigned bad = 0;

	if (!f) {
		if (errno != ENOENT)
			error("%s: %s", cs->path, strerror(errno));
		return;
	}
	bool is_torn = false; /* a last line without its newline: rewrite, never append to it */

	while (fgets(line, sizeof(line), f)) {
		struct cred_entry e;

		cs->file_lines++;
		is_torn = !strchr(line, '\n');
		if (!parse_line(line, &e)) {
			bad++;
			if (!strchr(line, '\n')) /* the rest of an over-long line */
				while (fgets(line, sizeof(line), f) && !strchr(line, '\n'))
					;
			continue;
		}
		if (e.expire >= (int64_t)now && add(cs, &e) < 0)
			bad++;
	}
	fclose(f);
	if (is_torn)
		cs->file_lines = UINT32_MAX / 4;
	if (bad)
		error("%s: %u unreadable entries skipped", cs->path, bad);
}

static void put_line(FILE *f, const struct cred_entry *e)
{
	fprintf(f, "%c %u %u %" PRIu64 " %" PRId64 "\n", e->kind, (unsigned)e->job_id,
		(unsigned)e->step_id, e->time_us, e->expire);
}

/* Write the list to path.new and rename it over path. */
static int save(struct cred_state *cs)
{
	_cleanup_free_ char *tmp = NULL;
	FILE *f;
	int fd, r = 0;

	if (!cs->path)
		return 0;
	if (asprintf(&tmp, "%s.new", cs->path) < 0) {
		tmp = NULL;
		return -ENOMEM;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return log_errno(r, "%s", tmp);
	}
	for (uint32_t i = 0; i < cs->n; i++)
		put_line(f, &cs->e[i]);
	if (fflush(f) != 0 || ferror(f))
		r = errno ? -errno : -EIO;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, cs->path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return log_errno(r, "%s", cs->path);
	}
	cs->file_lines = cs->n;
	return 0;
}

/* e was added: one line appended, or the whole file rewritten once most
 * of its lines are dead. */
static int save_one(struct cred_state *cs, const struct cred_entry *e)
{
	_cleanup_close_ int fd = -1;
	FILE *f;
	int r = 0;

	if (!cs->path)
		return 0;
	if (cs->file_lines > 2 * cs->n + REWRITE_SLACK)
		return save(cs);
	fd = open(cs->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || !(f = fdopen(fd, "a")))
		return log_errno(-errno, "%s", cs->path);
	fd = -1; /* f owns it */
	put_line(f, e);
	if (fflush(f) != 0 || ferror(f))
		r = errno ? -errno : -EIO;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r < 0)
		return log_errno(r, "%s", cs->path);
	cs->file_lines++;
	return 0;
}

int cred_state_open(const char *path, time_t now, struct cred_state **ret)
{
	struct cred_state *cs = calloc(1, sizeof(*cs));

	*ret = NULL;
	if (!cs || (path && !(cs->path = strdup(path)))) {
		free(cs);
		return -ENOMEM;
	}
	if (cs->path)
		load(cs, now);
	*ret = cs;
	return 0;
}

void cred_state_free(struct cred_state *cs)
{
	if (!cs)
		return;
	free(cs->path);
	free(cs->e);
	free(cs);
}

static int check(const struct cred_state *cs, const struct step_cred *c)
{
	for (uint32_t i = 0; i < cs->n; i++) {
		const struct cred_entry *e = &cs->e[i];

		if (e->job_id != c->job_id)
			continue;
		if (e->kind == 'R' && c->ctime_us <= e->time_us)
			return -ESLURMD_CREDENTIAL_REVOKED;
		if (e->kind == 'U' && e->step_id == c->step_id && e->time_us == c->ctime_us)
			return -ESLURMD_CREDENTIAL_REPLAYED;
	}
	return 0;
}

int cred_state_use(struct cred_state *cs, const struct step_cred *c, time_t now)
{
	struct cred_entry e = {.kind = 'U',
			       .job_id = c->job_id,
			       .step_id = c->step_id,
			       .time_us = c->ctime_us,
			       .expire = (int64_t)c->expire};
	int r;

	purge(cs, now);
	r = check(cs, c);
	if (r < 0)
		return r;
	r = add(cs, &e);
	if (r < 0) {
		error("StepId=%u.%u: credential list full (%u entries): launch refused", c->job_id,
		      c->step_id, (unsigned)cs->n);
		return -ESLURMD_INVALID_JOB_CREDENTIAL;
	}
	(void)save_one(cs, &e); /* logged; memory still holds it while we run */
	return 0;
}

int cred_state_revoke_job(struct cred_state *cs, uint32_t job_id, uint64_t now_us, time_t now)
{
	struct cred_entry e = {.kind = 'R',
			       .job_id = job_id,
			       .time_us = now_us,
			       .expire = (int64_t)now + STEP_CRED_EXPIRE_S};
	int r;

	purge(cs, now);
	for (uint32_t i = 0; i < cs->n; i++)
		if (cs->e[i].kind == 'R' && cs->e[i].job_id == job_id) {
			cs->e[i].time_us = now_us; /* a requeued job ends again */
			cs->e[i].expire = e.expire;
			return save_one(cs, &e);
		}
	r = add(cs, &e);
	if (r < 0)
		return log_errno(r, "JobId=%u: cannot revoke its credentials", job_id);
	return save_one(cs, &e);
}

uint32_t cred_state_count(const struct cred_state *cs)
{
	return cs->n;
}
