/* jwt_hs.c - HS256 tokens with libjwt; see jwt_hs.h. */
#include "jwt_hs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jwt.h>

#include "conf.h"
#include "errprintf.h"
#include "macros.h"
#include "sl_errno.h"

static void jwt_freep(jwt_t **j)
{
	if (*j)
		jwt_free(*j);
}

int jwt_conf_key_path(const struct sl_conf *conf, char **ret_path)
{
	_cleanup_free_ char *copy = NULL;
	char *save = NULL;

	*ret_path = NULL;
	if (!conf->auth_alt_types || !strstr(conf->auth_alt_types, "auth/jwt"))
		return -ENOENT;
	if (!conf->auth_alt_params)
		return 0;
	copy = strdup(conf->auth_alt_params);
	if (!copy)
		return -ENOMEM;
	for (char *o = strtok_r(copy, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (strncasecmp(o, "jwt_key=", 8) != 0 || !o[8])
			continue;
		*ret_path = strdup(o + 8);
		return *ret_path ? 0 : -ENOMEM;
	}
	return 0;
}

static int key_read(int fd, const char *path, size_t size, struct jwt_key *ret,
		    struct sl_error *err)
{
	unsigned char *buf = malloc(size ? size : 1);
	size_t got = 0;

	if (!buf)
		return -ENOMEM;
	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			return errprintf(err, n < 0 ? -errno : -EIO, "cannot read jwt key %s", path);
		}
		got += (size_t)n;
	}
	ret->data = buf;
	ret->len = got;
	return 0;
}

int jwt_key_load(const char *path, uid_t slurm_uid, struct jwt_key *ret, struct sl_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	*ret = (struct jwt_key){ 0 };
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return errprintf(err, -errno, "cannot open jwt key %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0)
		return errprintf(err, -errno, "cannot stat jwt key %s", path);
	if (!S_ISREG(st.st_mode))
		return errprintf(err, -EPERM, "jwt key %s is not a regular file", path);
	if (st.st_mode & (S_IRWXG | S_IRWXO))
		return errprintf(err, -EPERM,
				 "jwt key %s is accessible by group or others (mode %04o): "
				 "it must be readable by SlurmUser only (chmod 0600)",
				 path, (unsigned)(st.st_mode & 07777));
	if (st.st_uid != 0 && st.st_uid != slurm_uid && st.st_uid != geteuid())
		return errprintf(err, -EPERM,
				 "jwt key %s is owned by uid %u: it must be owned by root or "
				 "SlurmUser (uid %u)",
				 path, (unsigned)st.st_uid, (unsigned)slurm_uid);
	if (st.st_size <= 0)
		return errprintf(err, -EINVAL, "jwt key %s is empty", path);
	if (st.st_size < JWT_KEY_MIN)
		return errprintf(err, -EINVAL,
				 "jwt key %s is %lld bytes: it must have at least %u (an HS256 "
				 "key of 256 bits)",
				 path, (long long)st.st_size, JWT_KEY_MIN);
	if ((unsigned long long)st.st_size > JWT_KEY_MAX)
		return errprintf(err, -EFBIG, "jwt key %s is larger than %u bytes", path,
				 JWT_KEY_MAX);
	return key_read(fd, path, (size_t)st.st_size, ret, err);
}

void jwt_key_done(struct jwt_key *k)
{
	if (k->data)
		explicit_bzero(k->data, k->len);
	free(k->data);
	*k = (struct jwt_key){ 0 };
}

int jwt_token_sign(const struct jwt_key *k, const char *user, time_t iat, time_t exp, char **ret)
{
	_cleanup_(jwt_freep) jwt_t *j = NULL;
	int r;

	*ret = NULL;
	if (!k->data || !user || !*user)
		return -EINVAL;
	r = jwt_new(&j);
	if (r)
		return -r;
	if (jwt_add_grant_int(j, "iat", (long)iat) || jwt_add_grant_int(j, "exp", (long)exp)
	    || jwt_add_grant(j, "sun", user)
	    || jwt_set_alg(j, JWT_ALG_HS256, k->data, (int)k->len))
		return -ENOMEM;
	*ret = jwt_encode_str(j);
	return *ret ? 0 : -ENOMEM;
}

int jwt_token_check(const struct jwt_key *k, const char *token, time_t now, char **ret_user,
		    struct sl_error *err)
{
	_cleanup_(jwt_freep) jwt_t *j = NULL;
	const char *sun;
	long exp;

	*ret_user = NULL;
	if (!k->data)
		return errprintf(err, -ESLURM_AUTH_CRED_INVALID, "no jwt key loaded");
	if (!token || strnlen(token, JWT_TOKEN_MAX + 1) > JWT_TOKEN_MAX)
		return errprintf(err, -ESLURM_AUTH_CRED_INVALID, "token missing or too long");
	if (jwt_decode(&j, token, k->data, (int)k->len) != 0 || !j)
		return errprintf(err, -ESLURM_AUTH_CRED_INVALID,
				 "token malformed or its signature does not match the key");
	if (jwt_get_alg(j) != JWT_ALG_HS256)
		return errprintf(err, -ESLURM_AUTH_CRED_INVALID, "token not signed with HS256");
	errno = 0;
	exp = jwt_get_grant_int(j, "exp");
	if (errno == ENOENT || exp <= 0)
		return errprintf(err, -ESLURM_AUTH_CRED_INVALID, "token has no exp claim");
	if ((time_t)exp < now)
		return errprintf(err, -ESLURM_AUTH_CRED_INVALID, "token expired at %ld", exp);
	sun = jwt_get_grant(j, "sun");
	if (!sun || !*sun || strlen(sun) > 255)
		return errprintf(err, -ESLURM_AUTH_CRED_INVALID, "token has no sun claim");
	*ret_user = strdup(sun);
	return *ret_user ? 0 : -ENOMEM;
}
