/* pmi.c - see pmi.h.
 *
 * What a task may say is bounded: a PMI-1 line or a PMI-2 command over
 * PMI_BUF_MAX, a key over PMI_KEY_MAX or a value over PMI_VAL_MAX (the
 * maxes a client is told) ends that task's PMI connection; a task cannot
 * read another job's space (there is one per step) and can only add to
 * its own. The space is kept sorted by key after each fence; puts since
 * the last fence wait in `pending` and are sent to srun with the fence.
 *
 * Replies go through a per-task iobuf written when the fd takes them, so
 * a task that never reads cannot block the stepd.
 *
 * What the stepd holds for the job is bounded too (limits.h, SL_PMI_*):
 * the replies a task left unread, the step's key space (the store and this
 * node's puts since the last fence: keys, values and PMI_KV_OVERHEAD per
 * entry, counted before duplicates are merged), the node attributes, and
 * what srun sends, which is taken only while a fence of ours is in flight.
 * Over a bound, the user is told and the step's tasks are killed
 * (pmi_fail): the stepd is root and, on cgroup v1, outside the job's
 * memory limit, so this memory would be the node's.
 */
#include "pmi.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/io_proto.h"
#include "common/job_env.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "env.h"
#include "iobuf.h"
#include "loop.h"
#include "proctree.h"
#include "step.h"
#include "step_io.h"
#include "stepd.h"
#include "user_error.h"

#define PMI_BUF_MAX	8192
#define PMI_KVSNAME_MAX 256
#define PMI_KEY_MAX	256
#define PMI_VAL_MAX	1024
#define PMI2_LEN_DIGITS 6
#define PMI_KV_OVERHEAD 64 /* an entry beyond its bytes: its record, two allocations */

struct pmi_kv {
	char *key, *val;
	uint64_t seq; /* order of the adds: the later of equal keys wins */
};

struct pmi_kvs {
	struct pmi_kv *v;
	size_t n, cap;
	size_t bytes; /* kv_cost() of the entries */
};

struct pmi_client {
	struct stepd *s;
	uint32_t ltid, rank;
	int fd, child_fd, id;
	int version; /* 0: not known yet, 1 or 2 */
	uint8_t rbuf[PMI_BUF_MAX];
	size_t rlen;
	struct iobuf out;
	bool in_fence;
	char *wait_key; /* PMI-2 info-getnodeattr wait=TRUE, until it is put */
};

struct pmi {
	struct pmi_client *c;
	uint32_t n;
	uint32_t size; /* tasks in the step */
	char kvsname[64];
	char mapping[1024];
	struct pmi_kvs store;	 /* the step's space, sorted by key */
	struct pmi_kvs pending;	 /* local puts since the last fence */
	struct pmi_kvs nodeattr; /* PMI-2 node attributes (this node only) */
	uint32_t in_fence;	 /* local tasks waiting in the fence */
	bool is_fence_sent;	 /* our puts went to srun: its IO_PMI_KVS is due */
	bool has_failed;	 /* over a bound: the tasks were killed (pmi_fail) */
	uint8_t *kvs_in;	 /* IO_PMI_KVS chunks so far */
	size_t kvs_in_len;
};

/* ---- key-value sets ---- */

static size_t kv_cost(size_t klen, size_t vlen)
{
	return klen + vlen + PMI_KV_OVERHEAD;
}

static int kvs_add(struct pmi_kvs *k, const char *key, size_t klen, const char *val, size_t vlen)
{
	static uint64_t seq;
	struct pmi_kv kv = {strndup(key, klen), strndup(val, vlen), ++seq};

	if (kv.key && kv.val && k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 16;
		struct pmi_kv *v = realloc(k->v, cap * sizeof(*v));

		if (v) {
			k->v = v;
			k->cap = cap;
		}
	}
	if (!kv.key || !kv.val || k->n == k->cap) {
		free(kv.key);
		free(kv.val);
		return -ENOMEM;
	}
	k->v[k->n++] = kv;
	k->bytes += kv_cost(klen, vlen);
	return 0;
}

static void kvs_done(struct pmi_kvs *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->v[i].key);
		free(k->v[i].val);
	}
	free(k->v);
	*k = (struct pmi_kvs){0};
}

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pmi_kv *)a)->key, ((const struct pmi_kv *)b)->key);
}

static int kv_cmp_seq(const void *a, const void *b)
{
	const struct pmi_kv *x = a, *y = b;
	int r = strcmp(x->key, y->key);

	return r ? r : x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort by key; of equal keys the one added last is kept. */
static void kvs_sort(struct pmi_kvs *k)
{
	size_t out = 0;

	qsort(k->v, k->n, sizeof(*k->v), kv_cmp_seq);
	for (size_t i = 0; i < k->n; i++) {
		if (out && streq(k->v[out - 1].key, k->v[i].key)) {
			k->bytes -= kv_cost(strlen(k->v[out - 1].key), strlen(k->v[out - 1].val));
			free(k->v[out - 1].key);
			free(k->v[out - 1].val);
			k->v[out - 1] = k->v[i];
			continue;
		}
		k->v[out++] = k->v[i];
	}
	k->n = out;
}

static const char *kvs_find_sorted(const struct pmi_kvs *k, const char *key)
{
	struct pmi_kv want = {.key = (char *)key}, *hit;

	hit = k->n ? bsearch(&want, k->v, k->n, sizeof(*k->v), kv_cmp) : NULL;
	return hit ? hit->val : NULL;
}

static const char *kvs_find_linear(const struct pmi_kvs *k, const char *key)
{
	for (size_t i = k->n; i-- > 0;)
		if (streq(k->v[i].key, key))
			return k->v[i].val;
	return NULL;
}

/* ---- replies ---- */

static void client_close(struct pmi_client *c)
{
	if (c->fd >= 0) {
		loop_fd_set(c->s->loop, c->id, -1, 0);
		close(c->fd);
		c->fd = -1;
	}
	iobuf_done(&c->out);
}

/* The job went over a bound of what we hold for it, or srun broke the
 * protocol: the user is told (the log too), the step's tasks are killed.
 * Once; from then on every task's connection is closed as it speaks. */
static void pmi_fail(struct stepd *s, const char *fmt, ...) _printf_(2, 3);
static void pmi_fail(struct stepd *s, const char *fmt, ...)
{
	struct pmi *p = s->pmi;
	char why[512];
	va_list ap;

	if (p->has_failed)
		return;
	p->has_failed = true;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	user_error(s, "%s: PMI: %s: killing the step's tasks", s->label, why);
	proctree_signal(s, SIGKILL);
}

static void client_flush(struct pmi_client *c)
{
	int r;

	if (c->fd < 0)
		return;
	r = iobuf_flush(&c->out, c->fd);
	if (r < 0) {
		debug("%s: task %u: PMI connection: %s", c->s->label, c->rank, strerror(-r));
		client_close(c);
		return;
	}
	loop_fd_set(c->s->loop, c->id, c->fd, POLLIN | (iobuf_pending(&c->out) ? POLLOUT : 0));
}

static void reply(struct pmi_client *c, const char *fmt, ...) _printf_(2, 3);
static void reply(struct pmi_client *c, const char *fmt, ...)
{
	char body[PMI_BUF_MAX], hdr[PMI2_LEN_DIGITS + 1];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(body) || c->fd < 0)
		return;
	if (iobuf_pending(&c->out) + PMI2_LEN_DIGITS + (size_t)n > SL_PMI_OUT_MAX) {
		client_close(c); /* it does not read: no more of its commands */
		pmi_fail(c->s, "task %u left over %u KiB of replies unread", c->rank,
			 SL_PMI_OUT_MAX >> 10);
		return;
	}
	if (c->version == 2) {
		snprintf(hdr, sizeof(hdr), "%-6d", n);
		if (iobuf_append(&c->out, hdr, PMI2_LEN_DIGITS) < 0)
			return;
	}
	if (iobuf_append(&c->out, body, (size_t)n) < 0)
		client_close(c);
	client_flush(c);
}

/* ---- the fence ---- */

static void put_u32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

/* Every local task is in the fence: send our puts to srun in chunks
 * (ltid 1: more follow, 0: the last). */
static void fence_send(struct stepd *s)
{
	struct pmi *p = s->pmi;
	size_t len = 0, off = 0;
	uint8_t *buf;

	for (size_t i = 0; i < p->pending.n; i++)
		len += 8 + strlen(p->pending.v[i].key) + strlen(p->pending.v[i].val);
	buf = calloc(1, len ? len : 1);
	if (!buf) {
		error("%s: PMI fence: out of memory", s->label);
		return;
	}
	for (size_t i = 0; i < p->pending.n; i++) {
		size_t kl = strlen(p->pending.v[i].key), vl = strlen(p->pending.v[i].val);

		put_u32(buf + off, (uint32_t)kl);
		memcpy(buf + off + 4, p->pending.v[i].key, kl);
		put_u32(buf + off + 4 + kl, (uint32_t)vl);
		memcpy(buf + off + 8 + kl, p->pending.v[i].val, vl);
		off += 8 + kl + vl;
	}
	off = 0;
	do {
		size_t n = len - off > IO_PAYLOAD_MAX ? IO_PAYLOAD_MAX : len - off;

		step_io_frame(s, IO_PMI_FENCE, 0, off + n < len, buf + off, n);
		off += n;
	} while (off < len);
	step_io_flush(s);
	free(buf);
	kvs_done(&p->pending);
	p->is_fence_sent = true;
	debug("%s: PMI fence: %zu bytes of puts to srun", s->label, len);
}

static void fence_enter(struct pmi_client *c)
{
	struct pmi *p = c->s->pmi;

	if (c->in_fence)
		return;
	c->in_fence = true;
	if (++p->in_fence == p->n)
		fence_send(c->s);
}

/* srun's merged space arrived whole: into the store, then every local
 * task leaves the fence. */
static void fence_done(struct stepd *s)
{
	struct pmi *p = s->pmi;
	size_t off = 0;

	while (p->kvs_in_len - off >= 8) {
		uint32_t kl = get_u32(p->kvs_in + off), vl;

		if (kl > PMI_KEY_MAX || p->kvs_in_len - off - 4 < (size_t)kl + 4)
			break;
		vl = get_u32(p->kvs_in + off + 4 + kl);
		if (vl > PMI_VAL_MAX || p->kvs_in_len - off - 8 - kl < vl)
			break;
		if (p->store.n >= SL_PMI_KVS_KEYS_MAX
		    || p->store.bytes + kv_cost(kl, vl) > SL_PMI_KVS_BYTES_MAX) {
			pmi_fail(s, "the step's key space is over %u keys or %u MiB",
				 SL_PMI_KVS_KEYS_MAX, SL_PMI_KVS_BYTES_MAX >> 20);
			break;
		}
		if (kvs_add(&p->store, (const char *)p->kvs_in + off + 4, kl,
			    (const char *)p->kvs_in + off + 8 + kl, vl)
		    < 0) {
			error("%s: PMI fence: out of memory", s->label);
			break;
		}
		off += 8 + kl + vl;
	}
	kvs_sort(&p->store);
	free(p->kvs_in);
	p->kvs_in = NULL;
	p->kvs_in_len = 0;
	p->in_fence = 0;
	p->is_fence_sent = false;
	for (uint32_t i = 0; i < p->n; i++) {
		struct pmi_client *c = &p->c[i];

		if (!c->in_fence)
			continue;
		c->in_fence = false;
		if (c->version == 2)
			reply(c, "cmd=kvs-fence-response;rc=0;");
		else
			reply(c, "cmd=barrier_out\n");
	}
}

void pmi_frame_in(struct stepd *s, const struct io_hdr *h, const uint8_t *data)
{
	struct pmi *p = s->pmi;
	uint8_t *v;

	if (!p || h->type != IO_PMI_KVS || p->has_failed)
		return;
	if (!p->is_fence_sent) { /* nothing asked for it: not from a real srun */
		pmi_fail(s, "srun sent keys (IO_PMI_KVS) with no fence in flight");
		return;
	}
	if (p->kvs_in_len + h->len > SL_PMI_KVS_BYTES_MAX) {
		pmi_fail(s, "srun sent over %u MiB of keys for one fence",
			 SL_PMI_KVS_BYTES_MAX >> 20);
		free(p->kvs_in);
		p->kvs_in = NULL;
		p->kvs_in_len = 0;
		return;
	}
	v = realloc(p->kvs_in, p->kvs_in_len + h->len + 1);
	if (!v) {
		error("%s: PMI fence: out of memory", s->label);
		return;
	}
	p->kvs_in = v;
	memcpy(v + p->kvs_in_len, data, h->len);
	p->kvs_in_len += h->len;
	if (h->ltid == 0)
		fence_done(s);
}

/* ---- PMI-1 ("cmd=get kvsname=K key=k\n") ---- */

/* The value of name in tokens "a=b c=d" (NULL when absent). */
static const char *tok(char **t, size_t n, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < n; i++)
		if (strncmp(t[i], name, len) == 0 && t[i][len] == '=')
			return t[i] + len + 1;
	return NULL;
}

static void do_abort(struct pmi_client *c, const char *code, const char *msg)
{
	uint32_t be = htobe32(code ? (uint32_t)strtoul(code, NULL, 10) : 1);

	error("%s: task %u called PMI abort (exit code %s)%s%s", c->s->label, c->rank,
	      code ? code : "?", msg ? ": " : "", msg ? msg : "");
	step_io_frame(c->s, IO_PMI_ABORT, c->rank, c->ltid, &be, sizeof(be)); /* srun ends it all */
	step_io_flush(c->s);
	proctree_signal(c->s, SIGKILL);
}

/* A put fits in the step's space with what it holds and this node's puts
 * since the last fence (which all go into it). */
static bool space_has_room(const struct pmi *p, size_t klen, size_t vlen)
{
	return p->store.n + p->pending.n < SL_PMI_KVS_KEYS_MAX
	       && p->store.bytes + p->pending.bytes + kv_cost(klen, vlen) <= SL_PMI_KVS_BYTES_MAX;
}

static void put_value(struct pmi_client *c, const char *key, const char *val)
{
	struct pmi *p = c->s->pmi;
	size_t kl = key ? strlen(key) : 0, vl = val ? strlen(val) : 0;
	int rc = -1;

	if (key && val && kl <= PMI_KEY_MAX && vl <= PMI_VAL_MAX) {
		if (space_has_room(p, kl, vl))
			rc = kvs_add(&p->pending, key, kl, val, vl) < 0 ? -1 : 0;
		else
			pmi_fail(c->s, "task %u put over %u keys or %u MiB in the key space",
				 c->rank, SL_PMI_KVS_KEYS_MAX, SL_PMI_KVS_BYTES_MAX >> 20);
	}
	if (c->version == 2)
		reply(c, "cmd=kvs-put-response;rc=%d;", rc);
	else
		reply(c, "cmd=put_result rc=%d%s\n", rc,
		      rc ? " msg=bad_key_or_value" : " msg=success");
}

static const char *get_value(const struct pmi *p, const char *key)
{
	const char *v = kvs_find_sorted(&p->store, key);

	return v ? v : kvs_find_linear(&p->pending, key);
}

static void pmi1_line(struct pmi_client *c, char *line)
{
	struct pmi *p = c->s->pmi;
	char *t[16], *save = NULL, *w;
	const char *cmd, *key;
	size_t n = 0;

	for (w = strtok_r(line, " \t", &save); w && n < ARRAY_SIZE(t);
	     w = strtok_r(NULL, " \t", &save))
		t[n++] = w;
	cmd = tok(t, n, "cmd");
	if (!cmd) {
		debug("%s: task %u: PMI-1 line without cmd=", c->s->label, c->rank);
		return;
	}
	if (streq(cmd, "init"))
		reply(c, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
	else if (streq(cmd, "initack"))
		reply(c, "cmd=initack rc=0\ncmd=set size=%u\ncmd=set rank=%u\ncmd=set debug=0\n",
		      p->size, c->rank);
	else if (streq(cmd, "get_maxes"))
		reply(c, "cmd=maxes rc=0 kvsname_max=%d keylen_max=%d vallen_max=%d\n",
		      PMI_KVSNAME_MAX, PMI_KEY_MAX, PMI_VAL_MAX);
	else if (streq(cmd, "get_appnum"))
		reply(c, "cmd=appnum rc=0 appnum=0\n");
	else if (streq(cmd, "get_universe_size"))
		reply(c, "cmd=universe_size rc=0 size=%u\n", p->size);
	else if (streq(cmd, "get_my_kvsname"))
		reply(c, "cmd=my_kvsname rc=0 kvsname=%s\n", p->kvsname);
	else if (streq(cmd, "put"))
		put_value(c, tok(t, n, "key"), tok(t, n, "value"));
	else if (streq(cmd, "get")) {
		const char *v = (key = tok(t, n, "key")) ? get_value(p, key) : NULL;

		if (v)
			reply(c, "cmd=get_result rc=0 msg=success value=%s\n", v);
		else
			reply(c, "cmd=get_result rc=-1 msg=key_%s_not_found\n", key ? key : "");
	} else if (streq(cmd, "barrier_in"))
		fence_enter(c);
	else if (streq(cmd, "finalize"))
		reply(c, "cmd=finalize_ack rc=0\n");
	else if (streq(cmd, "abort"))
		do_abort(c, tok(t, n, "exitcode"), NULL);
	else
		debug("%s: task %u: PMI-1 command %s not supported", c->s->label, c->rank, cmd);
}

/* ---- PMI-2 ("cmd=kvs-get;jobid=J;srcid=-1;key=k;", ";;" is a ';') ---- */

/* Split "a=b;c=d;" in place (";;" kept as one ';'); names and values. */
static size_t pmi2_split(char *s, char **names, char **vals, size_t max)
{
	size_t n = 0;
	char *r = s;

	while (*r && n < max) {
		char *w = r, *eq = NULL;

		names[n] = w;
		for (;;) {
			if (*r == '\0')
				break;
			if (*r == ';' && r[1] == ';') {
				*w++ = ';';
				r += 2;
				continue;
			}
			if (*r == ';') {
				r++;
				break;
			}
			if (*r == '=' && !eq) {
				*w++ = '\0';
				eq = w;
				r++;
				continue;
			}
			*w++ = *r++;
		}
		*w = '\0';
		vals[n++] = eq ? eq : w;
	}
	return n;
}

static const char *pmi2_get(char **names, char **vals, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (streq(names[i], name))
			return vals[i];
	return NULL;
}

/* A value with its ';' doubled, for a reply. */
static void pmi2_escape(const char *v, char *buf, size_t size)
{
	size_t k = 0;

	for (; *v && k + 2 < size; v++) {
		if (*v == ';')
			buf[k++] = ';';
		buf[k++] = *v;
	}
	buf[k] = '\0';
}

static void pmi2_found(struct pmi_client *c, const char *cmd, const char *v)
{
	char esc[2 * PMI_VAL_MAX + 1];

	if (!v) {
		reply(c, "cmd=%s;rc=0;found=FALSE;", cmd);
		return;
	}
	pmi2_escape(v, esc, sizeof(esc));
	reply(c, "cmd=%s;rc=0;found=TRUE;value=%s;", cmd, esc);
}

static void nodeattr_put(struct pmi_client *c, const char *key, const char *val)
{
	struct pmi *p = c->s->pmi;
	int rc = -1;

	if (key && val && strlen(key) <= PMI_KEY_MAX && strlen(val) <= PMI_VAL_MAX) {
		if (p->nodeattr.n < SL_PMI_NODEATTR_MAX)
			rc = kvs_add(&p->nodeattr, key, strlen(key), val, strlen(val)) < 0 ? -1 : 0;
		else
			pmi_fail(c->s, "task %u put over %u node attributes", c->rank,
				 SL_PMI_NODEATTR_MAX);
	}
	reply(c, "cmd=info-putnodeattr-response;rc=%d;", rc);
	for (uint32_t i = 0; rc == 0 && i < p->n; i++) { /* the ones waiting for it */
		struct pmi_client *w = &p->c[i];

		if (w->wait_key && streq(w->wait_key, key)) {
			free(w->wait_key);
			w->wait_key = NULL;
			pmi2_found(w, "info-getnodeattr-response", val);
		}
	}
}

static void pmi2_command(struct pmi_client *c, char *msg)
{
	struct pmi *p = c->s->pmi;
	char *names[16], *vals[16];
	size_t n = pmi2_split(msg, names, vals, ARRAY_SIZE(names));
	const char *cmd = pmi2_get(names, vals, n, "cmd"), *key = pmi2_get(names, vals, n, "key");

	if (!cmd) {
		debug("%s: task %u: PMI-2 command without cmd=", c->s->label, c->rank);
		return;
	}
	if (streq(cmd, "fullinit"))
		reply(c,
		      "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=%u;size=%u;"
		      "appnum=0;debugged=FALSE;pmiverbose=FALSE;",
		      c->rank, p->size);
	else if (streq(cmd, "job-getid"))
		reply(c, "cmd=job-getid-response;rc=0;jobid=%s;", p->kvsname);
	else if (streq(cmd, "info-getjobattr"))
		pmi2_found(c, "info-getjobattr-response",
			   key && streq(key, "PMI_process_mapping") ? p->mapping : NULL);
	else if (streq(cmd, "info-putnodeattr"))
		nodeattr_put(c, key, pmi2_get(names, vals, n, "value"));
	else if (streq(cmd, "info-getnodeattr")) {
		const char *v = key ? kvs_find_linear(&p->nodeattr, key) : NULL;
		const char *wait = pmi2_get(names, vals, n, "wait");

		if (!v && key && wait && streq(wait, "TRUE") && strlen(key) <= PMI_KEY_MAX) {
			free(c->wait_key);
			c->wait_key = strdup(key); /* answered by the put */
			if (c->wait_key)
				return;
		}
		pmi2_found(c, "info-getnodeattr-response", v);
	} else if (streq(cmd, "kvs-put"))
		put_value(c, key, pmi2_get(names, vals, n, "value"));
	else if (streq(cmd, "kvs-get"))
		pmi2_found(c, "kvs-get-response", key ? get_value(p, key) : NULL);
	else if (streq(cmd, "kvs-fence"))
		fence_enter(c);
	else if (streq(cmd, "finalize"))
		reply(c, "cmd=finalize-response;rc=0;");
	else if (streq(cmd, "abort"))
		do_abort(c, NULL, pmi2_get(names, vals, n, "msg"));
	else
		reply(c, "cmd=%s-response;rc=-1;errmsg=not supported;", cmd);
}

/* ---- reading a task's commands ---- */

/* The complete commands at the front of rbuf; -1 on a protocol error. */
static int client_parse(struct pmi_client *c)
{
	size_t used = 0;

	if (!c->version && c->rlen >= 4)
		c->version =
		    memcmp(c->rbuf, "cmd=", 4) == 0 || memcmp(c->rbuf, "mcmd", 4) == 0 ? 1 : 2;
	while (c->version == 1 && c->fd >= 0) {
		uint8_t *nl = memchr(c->rbuf + used, '\n', c->rlen - used);

		if (!nl)
			break;
		*nl = '\0';
		pmi1_line(c, (char *)c->rbuf + used);
		used = (size_t)(nl - c->rbuf) + 1;
	}
	while (c->version == 2 && c->fd >= 0 && c->rlen - used >= PMI2_LEN_DIGITS) {
		char digits[PMI2_LEN_DIGITS + 1], *end;
		unsigned long len;

		memcpy(digits, c->rbuf + used, PMI2_LEN_DIGITS);
		digits[PMI2_LEN_DIGITS] = '\0';
		len = strtoul(digits, &end, 10);
		if (end == digits || (*end && *end != ' ')
		    || len > PMI_BUF_MAX - PMI2_LEN_DIGITS - 1)
			return -1;
		if (c->rlen - used < PMI2_LEN_DIGITS + len)
			break;
		{
			char msg[PMI_BUF_MAX];

			memcpy(msg, c->rbuf + used + PMI2_LEN_DIGITS, len);
			msg[len] = '\0';
			pmi2_command(c, msg);
		}
		used += PMI2_LEN_DIGITS + len;
	}
	if (used && c->fd >= 0) {
		memmove(c->rbuf, c->rbuf + used, c->rlen - used);
		c->rlen -= used;
	}
	return c->rlen >= sizeof(c->rbuf) ? -1 : 0; /* a full buffer holds no command */
}

static void client_ready(void *arg, short revents)
{
	struct pmi_client *c = arg;
	ssize_t n;

	if (c->s->pmi->has_failed) { /* the tasks are being killed */
		client_close(c);
		return;
	}
	if (revents & POLLOUT)
		client_flush(c);
	if (c->fd < 0 || !(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	n = read(c->fd, c->rbuf + c->rlen, sizeof(c->rbuf) - c->rlen);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) { /* the task closed PMI_FD or exited */
		client_close(c);
		return;
	}
	c->rlen += (size_t)n;
	if (client_parse(c) < 0 && c->fd >= 0) { /* not closed over a bound already */
		info("%s: task %u: malformed or oversized PMI command: PMI connection closed",
		     c->s->label, c->rank);
		client_close(c);
	}
}

/* ---- set-up ---- */

int pmi_init(struct stepd *s)
{
	const char *type = env_launch_get(s, "SLURM_MPI_TYPE");
	struct pmi *p;

	if (!s->launch || !type || !streq(type, "pmi2"))
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->pmi = p;
	p->size = s->launch->num_tasks;
	snprintf(p->kvsname, sizeof(p->kvsname), "%u.%u", s->job_id, s->step_id);
	/* the real layout (task_map.h is that form); none when too long */
	if (task_map_string(&s->launch->map, p->mapping, sizeof(p->mapping)) < 0)
		p->mapping[0] = '\0';
	if (p->mapping[0]
	    && kvs_add(&p->store, "PMI_process_mapping", 19, p->mapping, strlen(p->mapping)) < 0)
		return -ENOMEM;
	p->c = calloc(s->step->ntasks, sizeof(*p->c));
	if (!p->c)
		return -ENOMEM;
	p->n = s->step->ntasks;
	for (uint32_t i = 0; i < p->n; i++) {
		struct pmi_client *c = &p->c[i];
		int sv[2];

		*c = (struct pmi_client){.s = s,
					 .ltid = i,
					 .rank = s->step->tasks[i].gtid,
					 .fd = -1,
					 .child_fd = -1,
					 .id = -1};
		/* the task's end blocks, as PMI clients expect; ours does not */
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
			return -errno;
		if (fcntl(sv[0], F_SETFL, O_NONBLOCK) < 0) {
			close(sv[0]);
			close(sv[1]);
			return -errno;
		}
		c->fd = sv[0];
		c->child_fd = sv[1];
		c->id = loop_fd_add(s->loop, STEPD_PRIO_IO, -1, 0, client_ready, c);
		if (c->id < 0)
			return -ENOMEM;
	}
	s->step->on_pmi_frame = pmi_frame_in;
	debug("%s: PMI server for %u local task(s) of %u, mapping %s", s->label, p->n, p->size,
	      p->mapping);
	return 0;
}

int pmi_task_env(struct stepd *s, uint32_t ltid)
{
	const struct pmi *p = s->pmi;
	int r = 0;

	if (!p || ltid >= p->n)
		return 0;
	r |= job_env_set(&s->env, "PMI_FD", "%d", PMI_TASK_FD);
	r |= job_env_set(&s->env, "PMI_RANK", "%u", p->c[ltid].rank);
	r |= job_env_set(&s->env, "PMI_SIZE", "%u", p->size);
	r |= job_env_set(&s->env, "PMI_JOBID", "%s", p->kvsname);
	return r ? -ENOMEM : 0;
}

int pmi_child_fd(const struct stepd *s, uint32_t ltid)
{
	const struct pmi *p = s->pmi;

	return p && ltid < p->n ? p->c[ltid].child_fd : -1;
}

void pmi_started(struct stepd *s)
{
	struct pmi *p = s->pmi;

	for (uint32_t i = 0; p && i < p->n; i++) {
		struct pmi_client *c = &p->c[i];

		if (c->child_fd >= 0)
			close(c->child_fd);
		c->child_fd = -1;
		if (c->fd >= 0)
			loop_fd_set(s->loop, c->id, c->fd, POLLIN);
	}
}

void pmi_free(struct stepd *s)
{
	struct pmi *p = s->pmi;

	if (!p)
		return;
	for (uint32_t i = 0; i < p->n; i++) {
		struct pmi_client *c = &p->c[i];

		client_close(c);
		if (c->child_fd >= 0)
			close(c->child_fd);
		iobuf_done(&c->out);
		free(c->wait_key);
	}
	free(p->c);
	kvs_done(&p->store);
	kvs_done(&p->pending);
	kvs_done(&p->nodeattr);
	free(p->kvs_in);
	free(p);
	s->pmi = NULL;
}
