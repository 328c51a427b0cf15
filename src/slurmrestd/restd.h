/* restd.h - slurmrestd: Slurm's REST API v0.0.38 over libevent's evhttp.
 *
 * The loop (main.c, http.c) only accepts, reads bounded requests and
 * writes replies. Each request is handed whole to a small pool of worker
 * threads (pool.c, given http.c's function to run), which authenticate it (auth.c), route it (route.c)
 * and make the controller RPCs, munge-signed by slurmrestd (root or
 * SlurmUser) and marked "on behalf of" the authenticated user (frame.h),
 * so that slurmctld applies every permission rule to that user. The reply
 * goes back to the loop (event_active), which sends it.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/jwt_hs.h"

struct event;
struct event_base;
struct evhttp;
struct evhttp_request;
struct sl_conf;
struct pool;
struct conn_cap;
struct www;

#define RESTD_AUTH_LOCAL 0x1 /* rest_auth/local: the unix socket's peer */
#define RESTD_AUTH_JWT	 0x2 /* auth/jwt: X-SLURM-USER-NAME/-TOKEN */

#define RESTD_MAX_BODY	   (1u << 20) /* bigger: 413, nothing read further */
#define RESTD_MAX_HEADERS  (16u << 10)
#define RESTD_TIMEOUT_S	   10	      /* a connection idle this long is closed */
#define RESTD_REQUEST_S	   20	      /* a request not whole this long after its start */
#define RESTD_MAX_CONNS	   256	      /* open connections, all listeners */
#define RESTD_WORKERS	   4
#define RESTD_MAX_QUEUED   256	      /* requests waiting for a worker; more: 503 */
#define RESTD_MAX_LISTEN   8

struct restd {
	struct event_base *base;
	struct sl_conf *conf;
	unsigned auth; /* RESTD_AUTH_* allowed */
	struct jwt_key jwt;
	bool has_jwt;
	struct evhttp *http;
	struct pool *pool; /* the workers (pool.h) */
	struct conn_cap *cap;
	struct www *www; /* the dashboard's files; NULL: not served */
};

enum rest_method {
	RM_GET = 1,
	RM_POST = 2,
	RM_DELETE = 4,
	RM_OTHER = 8,
};

/* One HTTP request, owned by the worker while it runs. */
struct rest_req {
	struct restd *rd;
	struct evhttp_request *http; /* NULL once the client went away (loop only) */
	struct event *done_ev;
	enum rest_method method;
	char *path;  /* without the query */
	char *query; /* NULL when none */
	char *body;  /* NUL-terminated copy; NULL when empty */
	size_t body_len;
	char *hdr_user, *hdr_token; /* X-SLURM-USER-NAME, X-SLURM-USER-TOKEN */
	bool is_unix;
	uid_t peer_uid;
	gid_t peer_gid;
	char peer[64];
	/* set by auth.c */
	uid_t uid;
	gid_t gid;
	char *user;
	/* set by route.c: the {id} or {name} of the path */
	char arg[256];
	/* the answer */
	int status;
	char *out;
	size_t out_len;
};

void rest_req_free(struct rest_req *r);

/* auth.c: 0, or -1 after setting a 401 reply. Runs on a worker. */
int rest_auth(struct rest_req *r);

/* route.c: find the endpoint and run it (worker). */
void rest_route(struct rest_req *r);

/* http.c: the loop's side */
int restd_http_init(struct restd *rd);
void restd_http_fini(struct restd *rd);
/* Listen on "host:port" or "unix:/path". */
int restd_listen(struct restd *rd, const char *spec);
/* The workers (rd->pool) that authenticate and route each request, at
 * most RESTD_MAX_QUEUED waiting (more: 503). Freed with pool_free(). */
int restd_http_workers(struct restd *rd, unsigned workers);
