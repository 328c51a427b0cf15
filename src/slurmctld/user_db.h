/* user_db.h - who a uid is: its name, its groups and its group's name,
 * cached for GroupUpdateTime and resolved off the event loop.
 *
 * A submission needs the user's name and every group (AllowGroups, the
 * job's credential). With LDAP or SSSD behind NSS, getpwuid_r,
 * getgrouplist and getgrgid_r can each take milliseconds or hang, so
 * the loop never calls them: it reads this cache, and a request from a
 * user it does not know yet is held (rpc_req_hold) while a thread of
 * this file asks NSS, then served again. A stale entry is used as it is
 * while a fresh one is fetched; scontrol reconfigure forgets them all.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct event_base;
struct rpc_req;
struct user_db;

/* What NSS said of (uid, gid): gid is the request's (munge) group, the
 * one getgrouplist starts from. */
struct user_info {
	uid_t uid;
	gid_t gid;
	bool is_found;	/* the uid has a passwd entry */
	char *name;	/* its login name */
	char *gid_name; /* the name of gid, NULL when it has none */
	gid_t *gids;	/* every group of the user, gid included */
	uint32_t ngids;
	time_t at; /* when it was fetched */
};

/* The longest group list kept (Linux's NGROUPS_MAX). */
#define USER_DB_GIDS_MAX 65536u

struct sl_conf;

/* GroupUpdateTime: how long a user's groups are kept (Slurm's 600 s). */
unsigned user_db_ttl(const struct sl_conf *conf);
/* A cache on base, entries fresh for ttl_s (GroupUpdateTime). 0 or -errno. */
int user_db_new(struct event_base *base, unsigned ttl_s, struct user_db **ret);
/* Stops the thread; held requests are answered with an error. NULL-safe. */
void user_db_free(struct user_db *db);
void user_db_set_ttl(struct user_db *db, unsigned ttl_s);
/* Forget every entry (scontrol reconfigure: the next request asks NSS). */
void user_db_flush(struct user_db *db);

/* The entry of (uid, gid), or NULL when it was never fetched. A stale
 * one is returned and fetched again behind it. Valid until the loop
 * runs again. */
const struct user_info *user_db_get(struct user_db *db, uid_t uid, gid_t gid);

/* Hold req until (uid, gid) is fetched, then call fn(arg, req, 0) from
 * the loop: the request may be served now (user_db_get finds it). fn is
 * called exactly once, and must answer req: with rc < 0 (the fetch
 * failed, the controller stops, or the peer went away, when
 * rpc_req_is_gone(req) and the answer only frees it) it answers rc. 0,
 * or -EAGAIN when too many requests wait already (req and fn untouched). */
typedef void user_db_ready_fn(void *arg, struct rpc_req *req, int rc);
int user_db_hold(struct user_db *db, uid_t uid, gid_t gid, struct rpc_req *req,
		 user_db_ready_fn *fn, void *arg);

/* NSS, blocking: fill ret for (uid, gid) with any number of groups up to
 * USER_DB_GIDS_MAX. 0 (is_found false for an unknown uid) or -ENOMEM.
 * What the thread calls; for tests. */
int user_db_fetch(uid_t uid, gid_t gid, struct user_info *ret);
void user_info_done(struct user_info *u);
