/* user_db.c - see user_db.h.
 *
 * Entries live in a hash of (uid, gid) on the loop's side only. A fetch
 * is a struct fetch queued to the threads under db->lock; a thread asks
 * NSS, moves it to the done list and wakes the loop through an eventfd;
 * the loop swaps the answer into the entry and serves the requests that
 * waited for it, in their order. An entry being fetched for the first
 * time is a placeholder (at 0) that user_db_get does not return.
 *
 * Bounds: USER_DB_WAIT_MAX held requests, USER_DB_ENTRIES_MAX entries
 * (past it, every entry nobody waits for is dropped), groups up to
 * USER_DB_GIDS_MAX, NSS buffers up to USER_DB_BUF_MAX.
 */
#include "user_db.h"

#include <errno.h>
#include <event2/event.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"

#define USER_DB_BUCKETS	    1024
#define USER_DB_ENTRIES_MAX 65536
#define USER_DB_WAIT_MAX    4096
#define USER_DB_THREADS	    2
#define USER_DB_MISSING_TTL 5 /* s: a uid NSS did not know is asked again soon */
#define USER_DB_BUF_MAX	    (16u << 20)

struct waiter {
	struct waiter *prev, *next;
	struct user_db *db;
	struct entry *e;
	struct rpc_req *req;
	user_db_ready_fn *fn;
	void *arg;
};

struct entry {
	struct entry *next; /* bucket chain */
	struct user_info info;
	bool is_fetching;
	struct waiter *first, *last;
};

struct fetch {
	struct fetch *next;
	uid_t uid;
	gid_t gid;
	struct user_info result;
	int rc;
};

struct user_db {
	struct entry *buckets[USER_DB_BUCKETS];
	uint32_t nentries, nwaiters;
	unsigned ttl_s;
	struct event *done_ev;
	int efd;
	pthread_t threads[USER_DB_THREADS];
	int nthreads;
	pthread_mutex_t lock; /* todo, done, is_stopping */
	pthread_cond_t cond;
	struct fetch *todo, *todo_last, *done;
	bool is_stopping;
};

/* ---- NSS, on the threads ---- */

void user_info_done(struct user_info *u)
{
	free(u->name);
	free(u->gid_name);
	free(u->gids);
	*u = (struct user_info){0};
}

int user_db_fetch(uid_t uid, gid_t gid, struct user_info *ret)
{
	size_t cap = 1024;
	char *buf = NULL;
	int r, n = 64;

	*ret = (struct user_info){.uid = uid, .gid = gid};
	do { /* the passwd entry */
		struct passwd pw, *res = NULL;
		char *b = realloc(buf, cap);

		if (!b)
			goto enomem;
		buf = b;
		r = getpwuid_r(uid, &pw, buf, cap, &res);
		if (r == 0 && res && !(ret->name = strdup(pw.pw_name)))
			goto enomem;
		cap *= 2;
	} while (r == ERANGE && cap <= USER_DB_BUF_MAX);
	ret->is_found = ret->name != NULL;
	do { /* the name of gid (a group's member list may be long) */
		struct group gr, *res = NULL;
		char *b = realloc(buf, cap);

		if (!b)
			goto enomem;
		buf = b;
		r = getgrgid_r(gid, &gr, buf, cap, &res);
		if (r == 0 && res && !(ret->gid_name = strdup(gr.gr_name)))
			goto enomem;
		cap *= 2;
	} while (r == ERANGE && cap <= USER_DB_BUF_MAX);
	free(buf);
	buf = NULL;
	if (!ret->is_found)
		return 0;
	for (;;) { /* every group: getgrouplist says how many when short */
		int want = n;
		gid_t *g = realloc(ret->gids, (size_t)n * sizeof(*g));

		if (!g)
			goto enomem;
		ret->gids = g;
		if (getgrouplist(ret->name, gid, ret->gids, &want) >= 0) {
			ret->ngids = (uint32_t)want;
			return 0;
		}
		if (want <= n) /* no count given: grow */
			want = n * 2;
		if ((unsigned)n >= USER_DB_GIDS_MAX) {
			error("user %s is in more than %u groups: only the first %u are used",
			      ret->name, USER_DB_GIDS_MAX, USER_DB_GIDS_MAX);
			ret->ngids = (uint32_t)n;
			return 0;
		}
		n = (unsigned)want > USER_DB_GIDS_MAX ? (int)USER_DB_GIDS_MAX : want;
	}
enomem:
	free(buf);
	user_info_done(ret);
	return -ENOMEM;
}

static void *fetch_thread(void *arg)
{
	struct user_db *db = arg;
	uint64_t one = 1;

	pthread_mutex_lock(&db->lock);
	for (;;) {
		struct fetch *f;

		while (!db->todo && !db->is_stopping)
			pthread_cond_wait(&db->cond, &db->lock);
		if (db->is_stopping)
			break;
		f = db->todo;
		db->todo = f->next;
		if (!db->todo)
			db->todo_last = NULL;
		pthread_mutex_unlock(&db->lock);
		f->rc = user_db_fetch(f->uid, f->gid, &f->result);
		pthread_mutex_lock(&db->lock);
		f->next = db->done;
		db->done = f;
		if (write(db->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			error("user_db: eventfd: %s", strerror(errno));
	}
	pthread_mutex_unlock(&db->lock);
	return NULL;
}

/* ---- the cache, on the loop ---- */

unsigned user_db_ttl(const struct sl_conf *conf)
{
	const char *v = conf_get_raw(conf, "GroupUpdateTime");
	unsigned long n;
	char *end;

	if (!v)
		return 600;
	n = strtoul(v, &end, 10);
	return end == v || *end || n > 86400 * 365 ? 600 : (unsigned)n;
}

static unsigned bucket_of(uid_t uid, gid_t gid)
{
	return ((unsigned)uid * 2654435761u ^ (unsigned)gid * 40503u) % USER_DB_BUCKETS;
}

static struct entry *entry_find(struct user_db *db, uid_t uid, gid_t gid)
{
	for (struct entry *e = db->buckets[bucket_of(uid, gid)]; e; e = e->next)
		if (e->info.uid == uid && e->info.gid == gid)
			return e;
	return NULL;
}

/* Drop every entry that nobody waits for and that is not being fetched. */
static void entries_trim(struct user_db *db)
{
	for (unsigned b = 0; b < USER_DB_BUCKETS; b++) {
		struct entry **pp = &db->buckets[b];

		while (*pp) {
			struct entry *e = *pp;

			if (e->is_fetching || e->first) {
				pp = &e->next;
				continue;
			}
			*pp = e->next;
			user_info_done(&e->info);
			free(e);
			db->nentries--;
		}
	}
}

/* Queue a fetch of e; false when out of memory. */
static bool fetch_queue(struct user_db *db, struct entry *e)
{
	struct fetch *f = calloc(1, sizeof(*f));

	if (!f)
		return false;
	f->uid = e->info.uid;
	f->gid = e->info.gid;
	e->is_fetching = true;
	pthread_mutex_lock(&db->lock);
	if (db->todo_last)
		db->todo_last->next = f;
	else
		db->todo = f;
	db->todo_last = f;
	pthread_cond_signal(&db->cond);
	pthread_mutex_unlock(&db->lock);
	return true;
}

static bool entry_is_stale(const struct user_db *db, const struct entry *e, time_t now)
{
	unsigned ttl = e->info.is_found || db->ttl_s < USER_DB_MISSING_TTL ? db->ttl_s
									 : USER_DB_MISSING_TTL;

	return e->info.at && now - e->info.at >= (time_t)ttl;
}

/* The entry of (uid, gid), made (a placeholder, fetched) when missing. */
static struct entry *entry_get(struct user_db *db, uid_t uid, gid_t gid)
{
	struct entry *e = entry_find(db, uid, gid);
	unsigned b;

	if (e) {
		/* never fetched (the last try ran out of memory) or stale: the
		 * old one serves meanwhile */
		if (!e->is_fetching && (!e->info.at || entry_is_stale(db, e, time(NULL))))
			fetch_queue(db, e);
		return e;
	}
	if (db->nentries >= USER_DB_ENTRIES_MAX)
		entries_trim(db);
	if (!(e = calloc(1, sizeof(*e))))
		return NULL;
	e->info.uid = uid;
	e->info.gid = gid;
	if (!fetch_queue(db, e)) {
		free(e);
		return NULL;
	}
	b = bucket_of(uid, gid);
	e->next = db->buckets[b];
	db->buckets[b] = e;
	db->nentries++;
	return e;
}

const struct user_info *user_db_get(struct user_db *db, uid_t uid, gid_t gid)
{
	struct entry *e = entry_get(db, uid, gid);

	return e && e->info.at ? &e->info : NULL;
}

static void waiter_unlink(struct user_db *db, struct waiter *w)
{
	struct entry *e = w->e;

	if (w->prev)
		w->prev->next = w->next;
	else
		e->first = w->next;
	if (w->next)
		w->next->prev = w->prev;
	else
		e->last = w->prev;
	db->nwaiters--;
}

/* The peer of a held request went away: it is answered (freed) now. */
static void waiter_gone(void *arg, struct rpc_req *req)
{
	struct waiter *w = arg;

	waiter_unlink(w->db, w);
	w->fn(w->arg, req, -SLURM_COMMUNICATIONS_CONNECTION_ERROR);
	free(w);
}

int user_db_hold(struct user_db *db, uid_t uid, gid_t gid, struct rpc_req *req,
		 user_db_ready_fn *fn, void *arg)
{
	struct entry *e;
	struct waiter *w;

	if (db->nwaiters >= USER_DB_WAIT_MAX)
		return -EAGAIN;
	if (!(e = entry_get(db, uid, gid)) || !(w = calloc(1, sizeof(*w))))
		return -ENOMEM;
	*w = (struct waiter){.db = db, .e = e, .req = req, .fn = fn, .arg = arg, .prev = e->last};
	if (e->last)
		e->last->next = w;
	else
		e->first = w;
	e->last = w;
	db->nwaiters++;
	rpc_req_hold(req, waiter_gone, w);
	return 0;
}

/* The threads' answers: into their entries, then the waiters served. */
static void fetch_done(evutil_socket_t fd, short what, void *arg)
{
	struct user_db *db = arg;
	struct fetch *done, *f;
	uint64_t n;

	(void)what;
	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		error("user_db: eventfd: %s", strerror(errno));
	pthread_mutex_lock(&db->lock);
	done = db->done;
	db->done = NULL;
	pthread_mutex_unlock(&db->lock);
	while ((f = done)) {
		struct entry *e = entry_find(db, f->uid, f->gid);
		struct waiter *w;

		done = f->next;
		if (e) {
			e->is_fetching = false;
			if (f->rc == 0) {
				user_info_done(&e->info);
				e->info = f->result;
				e->info.at = time(NULL);
			} else {
				error("user_db: uid %u: %s", (unsigned)f->uid, strerror(-f->rc));
			}
			/* every waiter: served from the entry, or told why not */
			while ((w = e->first)) {
				waiter_unlink(db, w);
				w->fn(w->arg, w->req, e->info.at ? 0 : f->rc);
				free(w);
			}
		} else {
			user_info_done(&f->result); /* flushed meanwhile */
		}
		free(f);
	}
}

int user_db_new(struct event_base *base, unsigned ttl_s, struct user_db **ret)
{
	struct user_db *db = calloc(1, sizeof(*db));
	sigset_t all, old;
	int r = 0;

	*ret = NULL;
	if (!db)
		return -ENOMEM;
	db->ttl_s = ttl_s;
	db->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (db->efd < 0) {
		free(db);
		return -errno;
	}
	pthread_mutex_init(&db->lock, NULL);
	pthread_cond_init(&db->cond, NULL);
	db->done_ev = event_new(base, db->efd, EV_READ | EV_PERSIST, fetch_done, db);
	if (!db->done_ev || event_add(db->done_ev, NULL) < 0) {
		user_db_free(db);
		return -ENOMEM;
	}
	/* the threads take no signals: the loop's handlers run on the loop */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (int i = 0; i < USER_DB_THREADS && r == 0; i++) {
		r = pthread_create(&db->threads[i], NULL, fetch_thread, db);
		if (r == 0)
			db->nthreads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		user_db_free(db);
		return -r;
	}
	*ret = db;
	return 0;
}

void user_db_set_ttl(struct user_db *db, unsigned ttl_s)
{
	db->ttl_s = ttl_s;
}

void user_db_flush(struct user_db *db)
{
	entries_trim(db); /* those being fetched stay: their answer is coming */
}

void user_db_free(struct user_db *db)
{
	struct fetch *f;

	if (!db)
		return;
	pthread_mutex_lock(&db->lock);
	db->is_stopping = true;
	pthread_cond_broadcast(&db->cond);
	pthread_mutex_unlock(&db->lock);
	for (int i = 0; i < db->nthreads; i++)
		pthread_join(db->threads[i], NULL);
	while ((f = db->todo)) {
		db->todo = f->next;
		free(f);
	}
	while ((f = db->done)) {
		db->done = f->next;
		user_info_done(&f->result);
		free(f);
	}
	for (unsigned b = 0; b < USER_DB_BUCKETS; b++) {
		struct entry *e;

		while ((e = db->buckets[b])) {
			struct waiter *w;

			db->buckets[b] = e->next;
			while ((w = e->first)) {
				waiter_unlink(db, w);
				w->fn(w->arg, w->req, -SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR);
				free(w);
			}
			user_info_done(&e->info);
			free(e);
		}
	}
	if (db->done_ev)
		event_free(db->done_ev);
	close(db->efd);
	pthread_cond_destroy(&db->cond);
	pthread_mutex_destroy(&db->lock);
	free(db);
}
