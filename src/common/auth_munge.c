/* auth_munge.c - see auth_munge.h.
 *
 * Why we retry on top of libmunge, and how much. libmunge 0.5 already
 * retries two things by itself, with no option to change either (there is
 * no MUNGE_OPT_* for it): a connect() refused with ECONNREFUSED, up to 10
 * times with a linear 50 ms backoff (up to ~2.3 s), and a request that
 * fails after connecting, 5 times with 10..40 ms pauses. It does not retry
 * a missing socket file (munged restarting) nor EAGAIN from connect(),
 * which is what Linux answers a non-blocking AF_UNIX connect (libmunge's)
 * when munged's listen queue is full: the overloaded-munged case. So we
 * try EMUNGE_SOCKET and EMUNGE_TIMEOUT failures again, 3 times after 10,
 * 50 and 200 ms, and only while the whole call stays within
 * AUTH_MUNGE_RETRY_BUDGET_MS (300 ms): a call in which libmunge already
 * spent its own seconds is not repeated.
 *
 * Caveat: the event loops call this, and a pause blocks the loop. Besides
 * the 300 ms cap per call, a thread whose last call gave up tries only
 * once for the next AUTH_MUNGE_QUIET_MS, so a stopped munged costs each
 * message one quick failure, not 260 ms of pauses. That memory is the one
 * piece of mutable static state here (thread-local, so no locking): it
 * describes munged, which is shared by the whole process, not any object
 * we could hang it on.
 */
#include "auth_munge.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "errprintf.h"
#include "log.h"
#include "macros.h"
#include "sl_errno.h"

/* The credential's faults (the peer's doing) and the local munged's. */
#define BAD_CRED  (-SLURM_PROTOCOL_AUTHENTICATION_ERROR)
#define NO_MUNGED (-ESLURM_AUTH_NET_ERROR)

static const struct auth_munge_cause causes[] = {
    /* {code, what, is_local, is_transient} */
    [EMUNGE_SUCCESS] = {0, "success", false, false},
    [EMUNGE_SNAFU] = {NO_MUNGED, "munged internal error", true, false},
    [EMUNGE_BAD_ARG] = {-ESLURM_AUTH_BADARG, "bad argument to libmunge", true, false},
    [EMUNGE_BAD_LENGTH] = {BAD_CRED, "credential or payload too long", false, false},
    [EMUNGE_OVERFLOW] = {NO_MUNGED, "libmunge buffer overflow", true, false},
    [EMUNGE_NO_MEMORY] = {-ENOMEM, "out of memory in munge", true, false},
    [EMUNGE_SOCKET] = {NO_MUNGED, "munged unreachable", true, true},
    [EMUNGE_TIMEOUT] = {NO_MUNGED, "munged timed out", true, true},
    [EMUNGE_BAD_CRED] = {BAD_CRED, "malformed credential", false, false},
    [EMUNGE_BAD_VERSION] = {BAD_CRED, "credential of an unsupported munge version", false, false},
    [EMUNGE_BAD_CIPHER] = {BAD_CRED, "credential with an unsupported cipher", false, false},
    [EMUNGE_BAD_MAC] = {BAD_CRED, "credential with an unsupported MAC", false, false},
    [EMUNGE_BAD_ZIP] = {BAD_CRED, "credential with an unsupported compression", false, false},
    [EMUNGE_BAD_REALM] = {BAD_CRED, "credential of another munge realm", false, false},
    [EMUNGE_CRED_INVALID] = {BAD_CRED, "invalid credential (not made with our munge key?)", false,
			     false},
    [EMUNGE_CRED_EXPIRED] = {BAD_CRED, "expired credential", false, false},
    [EMUNGE_CRED_REWOUND] = {BAD_CRED, "rewound credential (made in the future: clock skew?)",
			     false, false},
    [EMUNGE_CRED_REPLAYED] = {BAD_CRED, "replayed credential", false, false},
    [EMUNGE_CRED_UNAUTHORIZED] = {BAD_CRED, "credential not meant for this user", false, false},
};
_Static_assert(ARRAY_SIZE(causes) == EMUNGE_CRED_UNAUTHORIZED + 1,
	       "causes[] must cover every munge_err_t");

static const unsigned backoff_ms[] = {10, 50, 200};

/* Monotonic ms until which this thread tries munged once only. */
static __thread uint64_t quiet_until_ms;

struct auth_munge_cause auth_munge_cause(munge_err_t e)
{
	const struct auth_munge_cause unknown = {NO_MUNGED, "unknown munge error", true, false};

	if ((unsigned)e >= ARRAY_SIZE(causes) || !causes[e].what)
		return unknown;
	return causes[e];
}

int auth_munge_backoff_ms(unsigned tries_done, unsigned elapsed_ms)
{
	unsigned pause;

	if (tries_done == 0 || tries_done > ARRAY_SIZE(backoff_ms))
		return -1;
	pause = backoff_ms[tries_done - 1];
	if (elapsed_ms + pause > AUTH_MUNGE_RETRY_BUDGET_MS)
		return -1;
	return (int)pause;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void pause_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* libmunge's text for the last error: it names the socket and errno. */
static const char *ctx_error(munge_ctx_t ctx, munge_err_t e)
{
	const char *s = munge_ctx_strerror(ctx);

	return s ? s : munge_strerror(e);
}

/* One munge_encode or munge_decode, with its outputs. */
struct munge_call {
	bool is_decode;
	const char *doing; /* "cannot sign: ", "cannot check the credential: " */
	const char *cred;
	const void *payload;
	int len;
	char **ret_cred;
	void **ret_payload;
	int *ret_len;
	uid_t *ret_uid;
	gid_t *ret_gid;
};

static munge_err_t munge_call_once(munge_ctx_t ctx, const struct munge_call *m)
{
	munge_err_t e;

	if (!m->is_decode) {
		e = munge_encode(m->ret_cred, ctx, m->payload, m->len);
		if (e != EMUNGE_SUCCESS) {
			free(*m->ret_cred);
			*m->ret_cred = NULL;
		}
		return e;
	}
	e = munge_decode(m->cred, ctx, m->ret_payload, m->ret_len, m->ret_uid, m->ret_gid);
	if (auth_munge_cause(e).is_transient) {
		free(*m->ret_payload); /* only EXPIRED/REWOUND/REPLAYED keep one */
		*m->ret_payload = NULL;
	}
	return e;
}

/* "cannot sign: munged unreachable: Failed to connect to "/run/munge.sock":
 * Resource temporarily unavailable (4 tries in 262 ms; first: ...)"; the
 * socket is named where libmunge's own text does not. */
static void describe(struct sl_error *err, const struct munge_call *m, munge_err_t e,
		     const char *detail, const char *socket, unsigned tries, unsigned ms,
		     const char *first)
{
	struct auth_munge_cause cause = auth_munge_cause(e);
	size_t n;

	if (!err)
		return;
	if (cause.is_local && strstr(detail, socket)) /* libmunge named it already */
		errprintf(err, 0, "%s%s: %s", m->doing, cause.what, detail);
	else if (cause.is_local)
		errprintf(err, 0, "%s%s at %s: %s", m->doing, cause.what, socket, detail);
	else /* a decoded credential's fault speaks for itself */
		errprintf(err, 0, "%s%s (munge: %s)", m->is_decode ? "" : m->doing, cause.what,
			  detail);
	n = strlen(err->text);
	if (tries > 1 && n < sizeof(err->text))
		snprintf(err->text + n, sizeof(err->text) - n, " (%u tries in %u ms%s%s)", tries,
			 ms, strcmp(first, detail) ? "; first: " : "",
			 strcmp(first, detail) ? first : "");
}

static munge_err_t auth_munge_call(const char *munge_socket, const struct munge_call *m,
				   struct sl_error *err)
{
	uint64_t start = now_ms();
	bool is_quiet = start < quiet_until_ms;
	char first[192] = "", detail[192];
	const char *socket = munge_socket;
	munge_ctx_t ctx = munge_ctx_create();
	unsigned tries = 0;
	munge_err_t e;
	int pause;

	if (ctx && munge_socket
	    && munge_ctx_set(ctx, MUNGE_OPT_SOCKET, munge_socket) != EMUNGE_SUCCESS) {
		munge_ctx_destroy(ctx);
		ctx = NULL;
	}
	if (!ctx) {
		errprintf(err, 0, "%sout of memory for a munge context", m->doing);
		return EMUNGE_NO_MEMORY;
	}
	if (!socket && munge_ctx_get(ctx, MUNGE_OPT_SOCKET, &socket) != EMUNGE_SUCCESS)
		socket = "munge's default socket";
	for (;;) {
		e = munge_call_once(ctx, m);
		tries++;
		if (!auth_munge_cause(e).is_transient)
			break;
		if (tries == 1)
			snprintf(first, sizeof(first), "%s", ctx_error(ctx, e));
		pause = is_quiet ? -1 : auth_munge_backoff_ms(tries, (unsigned)(now_ms() - start));
		if (pause < 0)
			break;
		debug("munge: %s, trying again in %d ms", ctx_error(ctx, e), pause);
		pause_ms((unsigned)pause);
	}
	if (auth_munge_cause(e).is_transient)
		quiet_until_ms = now_ms() + AUTH_MUNGE_QUIET_MS;
	else
		quiet_until_ms = 0;
	if (e != EMUNGE_SUCCESS) {
		snprintf(detail, sizeof(detail), "%s", ctx_error(ctx, e));
		describe(err, m, e, detail, socket, tries, (unsigned)(now_ms() - start), first);
	}
	munge_ctx_destroy(ctx);
	return e;
}

munge_err_t auth_munge_encode(const char *munge_socket, const void *payload, int len,
			      char **ret_cred, struct sl_error *err)
{
	const struct munge_call m = {
	    .doing = "cannot sign: ", .payload = payload, .len = len, .ret_cred = ret_cred};

	*ret_cred = NULL;
	return auth_munge_call(munge_socket, &m, err);
}

munge_err_t auth_munge_decode(const char *munge_socket, const char *cred, void **ret_payload,
			      int *ret_len, uid_t *ret_uid, gid_t *ret_gid, struct sl_error *err)
{
	const struct munge_call m = {.is_decode = true,
				     .doing = "cannot check the credential: ",
				     .cred = cred,
				     .ret_payload = ret_payload,
				     .ret_len = ret_len,
				     .ret_uid = ret_uid,
				     .ret_gid = ret_gid};

	*ret_payload = NULL;
	return auth_munge_call(munge_socket, &m, err);
}
