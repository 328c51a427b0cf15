/* rpc_server.h - accept authenticated requests on a libevent loop.
 *
 * One request per connection, as Slurm: the server reads one frame,
 * verifies the munge credential and its binding to the message, unpacks
 * the body and hands a struct rpc_req to the daemon's dispatch function.
 * The daemon answers exactly once with rpc_reply() or rpc_reply_rc(), now
 * or later (deferred); the connection closes after the reply is written.
 * Malformed frames, oversized lengths, wrong versions and bad credentials
 * are refused, logged at error with the peer address, and never reach
 * the daemon; what a peer may cost in time, descriptors, memory and munge
 * calls is bounded (rpc_server.c says how).
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct event_base;
struct rpc_conn;
struct rpc_server;

struct rpc_req {
	struct rpc_conn *conn; /* private */
	uint16_t type;
	void *body;            /* decoded message, freed with the req */
	uid_t uid;             /* from the credential, never from the body; or the
				* on-behalf mark's user when root/SlurmUser signed
				* a marked frame (frame.h, slurmrestd) */
	gid_t gid;
	uid_t auth_uid;        /* who signed: uid itself, or root/SlurmUser */
	char peer[64];         /* "127.0.0.1:45678" */
};

typedef void rpc_dispatch_fn(void *arg, struct rpc_req *req);

/* Move the decoded body (size bytes) out of req, so that what it points to
 * can be kept past the reply: a malloc'd copy, req's own left zeroed (its
 * free then frees nothing). NULL on ENOMEM, req unchanged. */
void *rpc_req_take_body(struct rpc_req *req, size_t size);

struct rpc_server_opts {
	const char *munge_socket; /* NULL: munge's default */
	uint32_t max_frame;       /* MaxMessageSize */
	uint32_t timeout_s;	  /* MessageTimeout: the whole frame must be in by then */
	uid_t admin_uid;	  /* SlurmUser: like root, not held to max_per_uid */
	/* Caps (conn_limit.h), 0: the default. */
	uint32_t max_conns;   /* open connections; default from RLIMIT_NOFILE */
	uint32_t max_per_uid; /* requests of one user being served at once */
	size_t max_buffered;  /* bytes of frames being read, all conns together */
	size_t max_out_per_uid; /* reply bytes not yet taken by one user's peers */
	size_t max_out;		/* reply bytes not yet taken, all conns together */
};

/* Listen on addr:port (addr NULL: all IPv4 addresses). Returns -errno
 * when the port cannot be bound. */
int rpc_server_new(struct event_base *base, const char *addr, uint16_t port,
		   const struct rpc_server_opts *opts, rpc_dispatch_fn *fn, void *arg,
		   struct rpc_server **ret);
struct rpc_server *rpc_server_free(struct rpc_server *s); /* NULL-safe; drops open conns */

/* Send msg as the reply, then free req. Returns 0 or a negative code (req
 * is freed either way). */
int rpc_reply(struct rpc_req *req, uint16_t type, const void *msg);
/* A reply in several frames (a long listing, docs/protocol.md): send msg
 * as one part and keep req. Once the socket has taken the part, fn(arg,
 * req) is called from the loop to send the next part (rpc_reply_part) or
 * the last (rpc_reply / rpc_reply_rc, which free req). fn is called also
 * when the peer went away or did not take the part within MessageTimeout:
 * rpc_req_is_gone(req) is then true and any reply only frees req, so fn
 * always gets the chance to free arg. Returns 0, or a negative code with
 * req freed and fn never called. */
typedef void rpc_more_fn(void *arg, struct rpc_req *req);
int rpc_reply_part(struct rpc_req *req, uint16_t type, const void *msg, rpc_more_fn *fn,
		   void *arg);
/* The peer of req is gone (its replies would go nowhere). */
bool rpc_req_is_gone(const struct rpc_req *req);
/* The reply to req comes late (a wait of up to an hour, REQUEST_JOB_WAIT):
 * watch the peer meanwhile, so that fn(arg, req) is called from the loop
 * when it closes its end or sends anything more (then rpc_req_is_gone(req)
 * is true and a reply only frees req; fn must reply, the daemon's chance
 * to free what it keeps). The request no longer counts against its user's
 * requests being served (the daemon bounds its waits itself), and
 * MessageTimeout no longer applies until the reply is written. fn is not
 * called once the daemon replied. */
typedef void rpc_gone_fn(void *arg, struct rpc_req *req);
void rpc_req_hold(struct rpc_req *req, rpc_gone_fn *fn, void *arg);
/* RESPONSE_SLURM_RC with rc (0 or negative code). Frees req. */
int rpc_reply_rc(struct rpc_req *req, int rc);

/* Handler tables (docs/style.md R17): each daemon has one, a row per message type
 * with the privilege it needs and its handler, and serves it with
 * rpc_table_dispatch(). An unknown type is answered
 * SLURM_UNEXPECTED_MSG_ERROR, a privilege the sender lacks
 * ESLURM_USER_ID_MISSING ("Security violation" in the log, as Slurm),
 * both before any handler runs. A handler returns <0 to have
 * RESPONSE_SLURM_RC sent with that code, or 0 when it replied or kept req
 * to reply later: there is no path on which a request goes unanswered. */
enum rpc_priv {
	PRIV_ANY,    /* any authenticated user; the handler may check more */
	PRIV_ADMIN,  /* root or SlurmUser */
	PRIV_SLURMD, /* root or SlurmUser: a message of a daemon of ours */
};

/* A handler as a row holds it: a function of the daemon's own type (its
 * context first, then req), which the table's call hook converts back.
 * RPC_HANDLER makes a row, and refuses to compile for a function that is
 * not of fn_type. */
typedef void rpc_handler_any_fn(void);

struct rpc_handler {
	uint16_t type;
	enum rpc_priv priv;
	rpc_handler_any_fn *fn;
	const char *fn_name; /* "rpc_job_submit": for the docs' test and logs */
};

#define RPC_HANDLER(type, priv, fn_type, fn)                                                       \
	{                                                                                          \
		(type), (priv), (rpc_handler_any_fn *)(1 ? (fn) : (fn_type *)0), #fn               \
	}

struct rpc_table {
	const struct rpc_handler *rows;
	size_t count;
	/* root or SlurmUser of this daemon: who passes PRIV_ADMIN and PRIV_SLURMD */
	bool (*is_admin)(void *ctx, uid_t uid);
	/* row->fn(ctx, req), called as the daemon's own type */
	int (*call)(void *ctx, const struct rpc_handler *row, struct rpc_req *req);
	/* NULL, or told after each request how long it took here, from the
	 * lookup to the handler's return (type and uid are copies: req may be
	 * answered and gone by then) */
	void (*timed)(void *ctx, uint16_t type, uid_t uid, uint64_t usec);
};

/* The row for type; NULL when the table has none. */
const struct rpc_handler *rpc_table_find(const struct rpc_table *t, uint16_t type);
/* What the table decides for a request of type from uid, before any
 * handler: 0 and the row, -SLURM_UNEXPECTED_MSG_ERROR for a type it has
 * no row for, -ESLURM_USER_ID_MISSING for a privilege uid lacks. No I/O,
 * no log; *ret_row is set only on success. */
int rpc_table_check(const struct rpc_table *t, void *ctx, uint16_t type, uid_t uid,
		    const struct rpc_handler **ret_row);
/* Serve req with t: check it, log a refusal, run the handler, answer
 * RESPONSE_SLURM_RC for a refusal or a handler's error, call t->timed. */
void rpc_table_dispatch(const struct rpc_table *t, void *ctx, struct rpc_req *req);
