/* assoc_usage.c - see assoc_usage.h. */
#include "assoc_usage.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assoc.h"
#include "common/conf.h"
#include "common/conf_prio.h"
#include "common/crc32c.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/pack.h"
#include "ctld.h"
#include "job.h"

#define USAGE_MAGIC	  "SL_ASSOC_USAGE"
#define USAGE_VERSION	  1
#define USAGE_MAX_RECORDS (1u << 22)
#define USAGE_MAX_BYTES	  (64u << 20)

double assoc_usage_decay(uint32_t half_life_secs, double elapsed)
{
	if (!half_life_secs || elapsed <= 0)
		return 1;
	return exp2(-elapsed / (double)half_life_secs);
}

void assoc_usage_scale(struct assoc_table *t, double factor)
{
	for (uint32_t i = 0; i < t->assoc_count; i++)
		if (t->assocs[i])
			t->assocs[i]->usage_raw *= factor;
	for (uint32_t i = 0; i < t->qos_count; i++)
		if (t->qos[i])
			t->qos[i]->usage_raw *= factor;
}

void assoc_usage_add(struct assoc *a, struct qos *q, double amount)
{
	for (int depth = 0; a && depth < 64; a = a->parent, depth++)
		a->usage_raw += amount;
	if (q)
		q->usage_raw += amount;
}

time_t assoc_usage_next_reset(uint16_t period, time_t t)
{
	struct tm tm;

	if (period == PRIO_RESET_NONE || period == PRIO_RESET_NOW || !localtime_r(&t, &tm))
		return 0;
	tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
	tm.tm_isdst = -1;
	switch (period) {
	case PRIO_RESET_DAILY:
		tm.tm_mday++;
		break;
	case PRIO_RESET_WEEKLY: /* the next Sunday */
		tm.tm_mday += 7 - tm.tm_wday;
		break;
	case PRIO_RESET_MONTHLY:
		tm.tm_mday = 1;
		tm.tm_mon++;
		break;
	case PRIO_RESET_QUARTERLY:
		tm.tm_mday = 1;
		tm.tm_mon = (tm.tm_mon / 3 + 1) * 3;
		break;
	default: /* YEARLY */
		tm.tm_mday = 1;
		tm.tm_mon = 0;
		tm.tm_year++;
		break;
	}
	return mktime(&tm);
}

static void usage_zero(struct assoc_table *t)
{
	assoc_usage_scale(t, 0);
}

/* PriorityUsageResetPeriod: true when usage was reset. */
static bool reset_due(const struct sl_conf *conf, struct assoc_usage *u, struct assoc_table *t,
		      time_t now)
{
	if (conf->prio_reset_period == PRIO_RESET_NOW && !u->is_reset_now_done) {
		u->is_reset_now_done = true;
		usage_zero(t);
		return true;
	}
	if (!u->next_reset)
		u->next_reset = assoc_usage_next_reset(conf->prio_reset_period, now);
	if (!u->next_reset || now < u->next_reset)
		return false;
	usage_zero(t);
	u->next_reset = assoc_usage_next_reset(conf->prio_reset_period, now);
	return true;
}

static double job_billing(const struct ctld *c, const struct job *job)
{
	struct qos *q = qos_of_job(c, job);
	double billing = job->alloc.total_cpus;

	return q && q->usage_factor >= 0 ? billing * q->usage_factor : billing;
}

bool assoc_usage_tick(struct ctld *c, struct assoc_usage *u, time_t now)
{
	struct assoc_table *t = &c->assoc;
	bool is_changed;
	time_t since = u->last_charge;

	if (u->pending)
		assoc_usage_apply_pending(u, t);
	is_changed = reset_due(c->conf, u, t, now);
	u->last_charge = now;
	if (!since || now <= since)
		return is_changed; /* the clock starts (or went back): nothing to charge */
	assoc_usage_scale(
	    t, assoc_usage_decay(c->conf->prio_decay_half_life * 60u, (double)(now - since)));
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *job = c->jobs[i];
		time_t from = since;
		struct assoc *a;

		if ((job->state & JOB_STATE_BASE) != JOB_RUNNING)
			continue;
		a = assoc_of_job(c, job);
		if (!a)
			continue;
		if (job->start_time > from)
			from = job->start_time;
		if (now > from) {
			assoc_usage_add(a, qos_of_job(c, job),
					job_billing(c, job) * (double)(now - from));
			is_changed = true;
		}
	}
	return is_changed;
}

void assoc_usage_decay_all(struct ctld *c, struct assoc_usage *u, time_t now)
{
	uint32_t hl = c->conf->prio_decay_half_life; /* minutes; UNLIMITED: no decay */
	uint32_t half_life = hl < UINT32_MAX / 60 ? hl * 60u : 0;

	if (u->pending)
		return; /* not applied yet: decayed once it is */
	if (u->last_decay && now > u->last_decay)
		assoc_usage_scale(&c->assoc,
				  assoc_usage_decay(half_life, (double)(now - u->last_decay)));
	if (!u->last_decay || now > u->last_decay)
		u->last_decay = now;
}

/* ---- the file ---- */

static void pack_usage(struct pack_buf *b, const struct assoc_table *t, time_t last_decay)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->assoc_count; i++)
		n += t->assocs[i] != NULL;
	for (uint32_t i = 0; i < t->qos_count; i++)
		n += t->qos[i] != NULL;
	pack_str(b, USAGE_MAGIC);
	pack_u16(b, USAGE_VERSION);
	pack_time(b, last_decay);
	pack_u32(b, n);
	for (uint32_t i = 0; i < t->assoc_count; i++)
		if (t->assocs[i]) {
			pack_u8(b, 0);
			pack_u32(b, t->assocs[i]->id);
			pack_double(b, t->assocs[i]->usage_raw);
		}
	for (uint32_t i = 0; i < t->qos_count; i++)
		if (t->qos[i]) {
			pack_u8(b, 1);
			pack_u32(b, t->qos[i]->id);
			pack_double(b, t->qos[i]->usage_raw);
		}
}

int assoc_usage_save(const struct assoc_table *t, time_t last_decay, const char *dir)
{
	_cleanup_free_ char *path = NULL, *tmp = NULL;
	struct pack_buf b = {0};
	FILE *f;
	int r = 0;

	pack_usage(&b, t, last_decay);
	if (!b.err)
		pack_u32(&b, crc32c(0, b.data, b.len));
	if (b.err || asprintf(&path, "%s/%s", dir, ASSOC_USAGE_FILE) < 0
	    || asprintf(&tmp, "%s/%s.new", dir, ASSOC_USAGE_FILE) < 0) {
		pack_buf_done(&b);
		return -ENOMEM;
	}
	f = fopen(tmp, "we");
	if (!f)
		r = -errno;
	else if (fwrite(b.data, 1, b.len, f) != b.len || fflush(f) || fsync(fileno(f)))
		r = -errno ? -errno : -EIO;
	if (f && fclose(f) && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r)
		unlink(tmp);
	pack_buf_done(&b);
	return r;
}

static int unpack_usage(struct assoc_usage *u, const uint8_t *data, size_t len)
{
	struct pack_buf b;
	_cleanup_free_ char *magic = NULL;
	uint16_t version = 0;
	uint32_t n = 0, crc = 0;
	time_t last_decay = 0;
	struct usage_saved *v;

	if (len < 4)
		return -EINVAL;
	b = pack_buf_view(data + len - 4, 4);
	unpack_u32(&b, &crc);
	if (b.err || crc != crc32c(0, data, len - 4))
		return -EINVAL;
	b = pack_buf_view(data, len - 4);
	unpack_str(&b, &magic, 32);
	unpack_u16(&b, &version);
	unpack_time(&b, &last_decay);
	unpack_count(&b, &n, USAGE_MAX_RECORDS, 13);
	if (b.err || !magic || strcmp(magic, USAGE_MAGIC) || version != USAGE_VERSION)
		return -EINVAL;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t kind = 0;

		unpack_u8(&b, &kind);
		unpack_u32(&b, &v[i].id);
		unpack_double(&b, &v[i].usage);
		v[i].is_qos = kind == 1;
		if (kind > 1 || !isfinite(v[i].usage) || v[i].usage < 0)
			b.err = -EINVAL;
	}
	if (b.err || pack_remaining(&b)) {
		free(v);
		return -EINVAL;
	}
	free(u->pending);
	u->pending = v;
	u->pending_count = n;
	u->last_decay = last_decay > 0 ? last_decay : 0;
	return 0;
}

int assoc_usage_load(struct assoc_usage *u, const char *dir)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_free_ uint8_t *data = NULL;
	struct stat st;
	FILE *f;
	size_t got;
	int r;

	if (asprintf(&path, "%s/%s", dir, ASSOC_USAGE_FILE) < 0)
		return -ENOMEM;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fileno(f), &st) < 0 || st.st_size <= 0 || st.st_size > USAGE_MAX_BYTES
	    || !(data = malloc((size_t)st.st_size))) {
		fclose(f);
		return -EINVAL;
	}
	got = fread(data, 1, (size_t)st.st_size, f);
	fclose(f);
	r = got == (size_t)st.st_size ? unpack_usage(u, data, got) : -EIO;
	if (r < 0)
		error("assoc_usage: %s is damaged (%s); usage starts at 0", path, strerror(-r));
	return r;
}

void assoc_usage_apply_pending(struct assoc_usage *u, struct assoc_table *t)
{
	if (!t->assoc_count && !t->qos_count)
		return; /* the table is not loaded yet: keep them */
	for (uint32_t i = 0; i < u->pending_count; i++) {
		const struct usage_saved *s = &u->pending[i];

		if (s->is_qos) {
			for (uint32_t k = 0; k < t->qos_count; k++)
				if (t->qos[k] && t->qos[k]->id == s->id)
					t->qos[k]->usage_raw = s->usage;
			continue;
		}
		for (uint32_t k = 0; k < t->assoc_count; k++)
			if (t->assocs[k] && t->assocs[k]->id == s->id)
				t->assocs[k]->usage_raw = s->usage;
	}
	assoc_usage_done(u);
}

void assoc_usage_done(struct assoc_usage *u)
{
	free(u->pending);
	u->pending = NULL;
	u->pending_count = 0;
}
