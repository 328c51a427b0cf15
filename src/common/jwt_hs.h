/* jwt_hs.h - HS256 JSON Web Tokens as Slurm's auth/jwt makes and checks
 * them: claims iat (issued), exp (expires) and sun (the Slurm user name),
 * signed with the key file named by AuthAltParameters=jwt_key=PATH.
 *
 * Only slurmctld (signs, `scontrol token`) and slurmrestd (checks) link
 * libjwt; the commands never pull this file in.
 */
#pragma once
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

struct sl_conf;
struct sl_error;

#define JWT_KEY_MAX	  (64u * 1024u) /* bytes of key file read */
#define JWT_KEY_MIN	  32u		/* HS256's 256 bits; Slurm's docs make a 32-byte key */
#define JWT_TOKEN_MAX	  8192u		/* a longer header or token is refused unread */
#define JWT_LIFESPAN_DFLT 1800u		/* scontrol token without lifespan= */

struct jwt_key {
	unsigned char *data;
	size_t len;
};

/* Whether AuthAltTypes names auth/jwt; then *ret_path (owned) is the
 * jwt_key= of AuthAltParameters (NULL when none is given). */
int jwt_conf_key_path(const struct sl_conf *conf, char **ret_path);

/* Read the key file. Refused (-EPERM, err says why) when it is readable
 * or writable by group or others, not a regular file, or owned by anyone
 * but root, slurm_uid (SlurmUser) or ourselves (a key a user could write
 * lets that user sign tokens for anyone); -EFBIG over JWT_KEY_MAX,
 * -EINVAL when shorter than JWT_KEY_MIN. */
int jwt_key_load(const char *path, uid_t slurm_uid, struct jwt_key *ret, struct sl_error *err);
void jwt_key_done(struct jwt_key *k);

/* A token for user, valid from iat to exp. *ret owned by the caller. */
int jwt_token_sign(const struct jwt_key *k, const char *user, time_t iat, time_t exp, char **ret);

/* Check token's signature (HS256 only), its exp against now and that it
 * names a user: 0 and *ret_user (owned), or -ESLURM_AUTH_CRED_INVALID with
 * err saying what was wrong (for the log, never for the client). */
int jwt_token_check(const struct jwt_key *k, const char *token, time_t now, char **ret_user,
		    struct sl_error *err);
