/* auth.c - who a request is from, as Slurm's slurmrestd decides it:
 * rest_auth/local on the unix socket (the peer's uid from SO_PEERCRED,
 * taken by http.c), auth/jwt on TCP (X-SLURM-USER-NAME and
 * X-SLURM-USER-TOKEN, an HS256 token whose sun claim names the user; a
 * token of root or SlurmUser may name another user in the header). Every
 * refusal is a 401 with Slurm's error list and a log line saying why.
 */
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/conf.h"
#include "common/errprintf.h"
#include "common/jwt_hs.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/sl_errno.h"
#include "reply.h"
#include "req_log.h"
#include "restd.h"

static int refuse(struct rest_req *r, const char *why)
{
	req_log(LOG_LEVEL_ERROR, "%s: %s %s: authentication refused: %s", r->peer,
		r->method == RM_GET	 ? "GET"
		: r->method == RM_POST	 ? "POST"
		: r->method == RM_DELETE ? "DELETE"
					 : "other",
		r->path, why);
	rest_reply_error(r, 401, ESLURM_AUTH_CRED_INVALID, "Authentication failure");
	return -1;
}

/* name -> uid, gid, the name; -ENOENT for no such user. */
static int user_lookup(const char *name, uid_t *uid, gid_t *gid)
{
	struct passwd pw, *res = NULL;
	char buf[2048];

	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return -ENOENT;
	*uid = res->pw_uid;
	*gid = res->pw_gid;
	return 0;
}

static int user_name(uid_t uid, char **ret)
{
	struct passwd pw, *res = NULL;
	char buf[2048];

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return -ENOENT;
	*ret = strdup(res->pw_name);
	return *ret ? 0 : -ENOMEM;
}

static int auth_local(struct rest_req *r)
{
	if (!(r->rd->auth & RESTD_AUTH_LOCAL))
		return refuse(r, "rest_auth/local is not enabled (-a)");
	if (r->peer_uid == (uid_t)-1)
		return refuse(r, "no peer credentials on the unix socket");
	if (user_name(r->peer_uid, &r->user) < 0)
		return refuse(r, "the socket's peer uid has no user name");
	r->uid = r->peer_uid;
	r->gid = r->peer_gid;
	return 0;
}

static bool uid_is_admin(const struct restd *rd, uid_t uid)
{
	return uid == 0 || uid == rd->conf->slurm_user_id;
}

static int auth_jwt(struct rest_req *r)
{
	struct sl_error err = { { 0 } };
	_cleanup_free_ char *sun = NULL;
	const char *name;
	uid_t sun_uid;
	gid_t sun_gid;
	char why[600];

	if (!(r->rd->auth & RESTD_AUTH_JWT) || !r->rd->has_jwt)
		return refuse(r, "auth/jwt is not enabled or has no key");
	if (!r->hdr_token)
		return refuse(r, "no X-SLURM-USER-TOKEN header");
	if (jwt_token_check(&r->rd->jwt, r->hdr_token, time(NULL), &sun, &err) < 0)
		return refuse(r, err.text);
	name = r->hdr_user ? r->hdr_user : sun;
	if (strcmp(name, sun) != 0) {
		/* Slurm lets the token of root or SlurmUser act as another user */
		if (user_lookup(sun, &sun_uid, &sun_gid) < 0 || !uid_is_admin(r->rd, sun_uid)) {
			snprintf(why, sizeof(why),
				 "X-SLURM-USER-NAME %.255s does not match the token's user %.255s",
				 name, sun);
			return refuse(r, why);
		}
	}
	if (user_lookup(name, &r->uid, &r->gid) < 0) {
		snprintf(why, sizeof(why), "no such user %.255s", name);
		return refuse(r, why);
	}
	r->user = strdup(name);
	return r->user ? 0 : refuse(r, "out of memory");
}

int rest_auth(struct rest_req *r)
{
	int rc = r->is_unix ? auth_local(r) : auth_jwt(r);

	if (rc == 0)
		req_log(LOG_LEVEL_DEBUG, "%s: authenticated as %s (uid=%u)", r->peer, r->user,
			(unsigned)r->uid);
	return rc;
}
