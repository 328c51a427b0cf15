/* test_rest_jwt.c - HS256 tokens as slurmctld signs and slurmrestd checks
 * them (src/common/jwt_hs.c): round trip, expiry, another key, alg none,
 * missing claims, and the key file's permission check. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/errprintf.h"
#include "common/jwt_hs.h"
#include "common/sl_errno.h"

static unsigned char key_bytes[] = "0123456789abcdef0123456789abcdef";
static const struct jwt_key key = { key_bytes, 32 };

static void test_round_trip(void **state)
{
	struct sl_error err = { { 0 } };
	char *tok = NULL, *user = NULL;

	(void)state;
	assert_int_equal(jwt_token_sign(&key, "alice", 1000, 5000, &tok), 0);
	assert_int_equal(jwt_token_check(&key, tok, 4999, &user, &err), 0);
	assert_string_equal(user, "alice");
	free(user);
	free(tok);
}

static void test_expired_is_refused(void **state)
{
	struct sl_error err = { { 0 } };
	char *tok = NULL, *user = NULL;

	(void)state;
	assert_int_equal(jwt_token_sign(&key, "alice", 1000, 5000, &tok), 0);
	assert_int_equal(jwt_token_check(&key, tok, 5001, &user, &err), -ESLURM_AUTH_CRED_INVALID);
	assert_null(user);
	assert_non_null(strstr(err.text, "expired"));
	free(tok);
}

static void test_other_key_and_tampering_are_refused(void **state)
{
	unsigned char other_bytes[] = "another key, another key, anoth";
	const struct jwt_key other = { other_bytes, 31 };
	struct sl_error err = { { 0 } };
	char *tok = NULL, *user = NULL;
	char *dot;

	(void)state;
	assert_int_equal(jwt_token_sign(&other, "root", 1000, 5000, &tok), 0);
	assert_int_equal(jwt_token_check(&key, tok, 2000, &user, &err), -ESLURM_AUTH_CRED_INVALID);
	free(tok);
	/* a claim changed after signing */
	assert_int_equal(jwt_token_sign(&key, "alice", 1000, 5000, &tok), 0);
	dot = strchr(tok, '.');
	dot[3] ^= 1;
	assert_int_equal(jwt_token_check(&key, tok, 2000, &user, &err), -ESLURM_AUTH_CRED_INVALID);
	free(tok);
}

static void test_garbage_none_and_missing_claims(void **state)
{
	struct sl_error err = { { 0 } };
	char *user = NULL;
	char big[JWT_TOKEN_MAX + 10];
	/* {"alg":"none"} . {"exp":99999999999,"sun":"root"} . (no signature) */
	const char *none = "eyJhbGciOiJub25lIn0.eyJleHAiOjk5OTk5OTk5OTk5LCJzdW4iOiJyb290In0.";

	(void)state;
	assert_int_equal(jwt_token_check(&key, "", 1, &user, &err), -ESLURM_AUTH_CRED_INVALID);
	assert_int_equal(jwt_token_check(&key, "a.b.c", 1, &user, &err),
			 -ESLURM_AUTH_CRED_INVALID);
	assert_int_equal(jwt_token_check(&key, none, 1, &user, &err), -ESLURM_AUTH_CRED_INVALID);
	assert_int_equal(jwt_token_check(&key, NULL, 1, &user, &err), -ESLURM_AUTH_CRED_INVALID);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(jwt_token_check(&key, big, 1, &user, &err), -ESLURM_AUTH_CRED_INVALID);
	assert_null(user);
}

static void write_key(const char *path, mode_t mode, const char *data)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

#define KEY32 "0123456789abcdef0123456789abcdef"

static void test_key_file_permissions(void **state)
{
	char dir[] = "/tmp/test_rest_jwt.XXXXXX", path[64];
	struct sl_error err = { { 0 } };
	struct jwt_key k;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/key", dir);
	write_key(path, 0600, KEY32);
	assert_int_equal(jwt_key_load(path, 0, &k, &err), 0);
	assert_int_equal(k.len, 32);
	jwt_key_done(&k);
	write_key(path, 0640, KEY32);
	assert_int_equal(jwt_key_load(path, 0, &k, &err), -EPERM);
	assert_non_null(strstr(err.text, "accessible by group or others (mode 0640)"));
	write_key(path, 0604, KEY32);
	assert_int_equal(jwt_key_load(path, 0, &k, &err), -EPERM);
	write_key(path, 0600, "");
	assert_int_equal(jwt_key_load(path, 0, &k, &err), -EINVAL);
	assert_int_equal(jwt_key_load(dir, 0, &k, &err), -EPERM); /* a directory */
	unlink(path);
	assert_int_equal(jwt_key_load(path, 0, &k, &err), -ENOENT);
	rmdir(dir);
}

/* A key anyone could guess or brute-force is no key: 32 bytes at least. */
static void test_short_key_is_refused(void **state)
{
	char dir[] = "/tmp/test_rest_jwt.XXXXXX", path[64];
	struct sl_error err = {{0}};
	struct jwt_key k;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/key", dir);
	write_key(path, 0600, "0123456789");
	assert_int_equal(jwt_key_load(path, 0, &k, &err), -EINVAL);
	assert_non_null(strstr(err.text, "is 10 bytes: it must have at least 32"));
	write_key(path, 0600, KEY32 + 1); /* 31 */
	assert_int_equal(jwt_key_load(path, 0, &k, &err), -EINVAL);
	unlink(path);
	rmdir(dir);
}

/* A key its owner could rewrite lets that owner sign tokens for anyone:
 * only root's, SlurmUser's or our own is taken. */
static void test_key_owned_by_a_user_is_refused(void **state)
{
	char dir[] = "/tmp/test_rest_jwt.XXXXXX", path[64];
	struct sl_error err = {{0}};
	struct jwt_key k;

	(void)state;
	if (geteuid() != 0)
		skip(); /* chown needs root */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/key", dir);
	write_key(path, 0600, KEY32);
	assert_int_equal(chown(path, 4242, 4242), 0);
	assert_int_equal(jwt_key_load(path, 0, &k, &err), -EPERM);
	assert_non_null(strstr(err.text, "is owned by uid 4242: it must be owned by root or "
					 "SlurmUser (uid 0)"));
	assert_int_equal(jwt_key_load(path, 4242, &k, &err), 0); /* SlurmUser's */
	jwt_key_done(&k);
	unlink(path);
	rmdir(dir);
}

static void test_conf_key_path(void **state)
{
	struct sl_conf c = { 0 };
	char *path = NULL;

	(void)state;
	assert_int_equal(jwt_conf_key_path(&c, &path), -ENOENT);
	c.auth_alt_types = "auth/jwt";
	assert_int_equal(jwt_conf_key_path(&c, &path), 0);
	assert_null(path);
	c.auth_alt_params = "disable_token_creation,jwt_key=/etc/slurm/jwt.key";
	assert_int_equal(jwt_conf_key_path(&c, &path), 0);
	assert_string_equal(path, "/etc/slurm/jwt.key");
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_expired_is_refused),
	    cmocka_unit_test(test_other_key_and_tampering_are_refused),
	    cmocka_unit_test(test_garbage_none_and_missing_claims),
	    cmocka_unit_test(test_key_file_permissions),
	    cmocka_unit_test(test_short_key_is_refused),
	    cmocka_unit_test(test_key_owned_by_a_user_is_refused),
	    cmocka_unit_test(test_conf_key_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
