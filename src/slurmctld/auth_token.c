/* auth_token.c - JWT signing for `scontrol token`; see auth_token.h. */
#include "auth_token.h"

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
#include "common/msg.h"
#include "common/msg_auth.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "ctld.h"

#define TOKEN_LIFESPAN_MAX (366u * 24 * 3600) /* a year */

void auth_token_fini(struct ctld *c)
{
	if (!c->jwt_key)
		return;
	jwt_key_done(c->jwt_key);
	free(c->jwt_key);
	c->jwt_key = NULL;
}

int auth_token_init(struct ctld *c)
{
	_cleanup_free_ char *path = NULL;
	struct sl_error err = { { 0 } };
	struct jwt_key *k;
	int r;

	r = jwt_conf_key_path(c->conf, &path);
	if (r == -ENOENT)
		return 0; /* auth/jwt not configured */
	if (r < 0)
		return r;
	if (!path) {
		error("AuthAltTypes=auth/jwt without AuthAltParameters=jwt_key=PATH: "
		      "scontrol token is disabled");
		return 0;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	r = jwt_key_load(path, c->conf->slurm_user_id, k, &err);
	if (r < 0) {
		error("auth/jwt: %s: scontrol token is disabled", err.text);
		free(k);
		return 0;
	}
	c->jwt_key = k;
	info("auth/jwt: signing tokens with the key in %s", path);
	return 0;
}

void auth_token_reload(struct ctld *c)
{
	auth_token_fini(c);
	(void)auth_token_init(c);
}

/* The name the token is for: the caller's own, or (admins) any. */
static int token_user(struct ctld *c, const struct rpc_req *req, const char *asked,
		      char **ret)
{
	struct passwd pw, *res = NULL;
	char buf[1024];

	if (getpwuid_r(req->uid, &pw, buf, sizeof(buf), &res) != 0 || !res) {
		if (!asked || !ctld_is_admin(c, req->uid))
			return -ESLURM_USER_ID_MISSING;
	}
	if (asked && (!res || strcmp(asked, res->pw_name) != 0)
	    && !ctld_is_admin(c, req->uid)) {
		error("Security violation, REQUEST_AUTH_TOKEN for user %s from uid=%u", asked,
		      (unsigned)req->uid);
		return -ESLURM_USER_ID_MISSING;
	}
	*ret = strdup(asked ? asked : res->pw_name);
	return *ret ? 0 : -ENOMEM;
}

int rpc_auth_token(struct ctld *c, struct rpc_req *req)
{
	const struct auth_token_req *m = req->body;
	struct auth_token_resp resp = { 0 };
	_cleanup_free_ char *user = NULL;
	uint32_t life = m->lifespan ? m->lifespan : JWT_LIFESPAN_DFLT;
	time_t now = time(NULL);
	int r;

	if (!c->jwt_key) {
		error("REQUEST_AUTH_TOKEN from uid=%u: auth/jwt is not configured (AuthAltTypes, "
		      "AuthAltParameters=jwt_key=)",
		      (unsigned)req->uid);
		return -ESLURM_NOT_SUPPORTED;
	}
	if (c->conf->auth_alt_params && strstr(c->conf->auth_alt_params, "disable_token_creation")
	    && !ctld_is_admin(c, req->uid)) {
		error("REQUEST_AUTH_TOKEN from uid=%u refused: disable_token_creation",
		      (unsigned)req->uid);
		return -ESLURM_ACCESS_DENIED;
	}
	if (m->username && (!*m->username || strpbrk(m->username, " \t\n,:/")))
		return -ESLURM_USER_ID_MISSING;
	if (life > TOKEN_LIFESPAN_MAX)
		return -EINVAL;
	r = token_user(c, req, m->username, &user);
	if (r < 0)
		return r;
	r = jwt_token_sign(c->jwt_key, user, now, now + (time_t)life, &resp.token);
	if (r < 0)
		return r;
	info("REQUEST_AUTH_TOKEN: token for %s (lifespan %us) to uid=%u", user, (unsigned)life,
	     (unsigned)req->uid);
	rpc_reply(req, RESPONSE_AUTH_TOKEN, &resp);
	free(resp.token);
	return 0;
}
