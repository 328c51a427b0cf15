/* test_sha256.c - SHA-256 (OpenSSL behind sha256_iov) against the FIPS
 * 180-4 / NIST example vectors, fed whole, in every two-piece split, and
 * as many iovecs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/sha256.h"

static const char msg448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const char msg896[] = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
			     "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

static const struct vector {
	const char *name;
	const char *msg;
	const char *hex;
} vectors[] = {
	{ "empty", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ "abc", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ "448 bits", msg448, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	{ "896 bits", msg896, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
};

static void to_hex(const uint8_t d[SHA256_DIGEST_LEN], char out[2 * SHA256_DIGEST_LEN + 1])
{
	for (int i = 0; i < SHA256_DIGEST_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void test_vectors_hash_to_the_published_digests(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(vectors); i++) {
		struct iovec iov = {.iov_base = (void *)vectors[i].msg,
				    .iov_len = strlen(vectors[i].msg)};
		uint8_t d[SHA256_DIGEST_LEN];
		char hex[2 * SHA256_DIGEST_LEN + 1];

		assert_int_equal(sha256_iov(&iov, 1, d), 0);
		to_hex(d, hex);
		if (strcmp(hex, vectors[i].hex))
			fail_msg("%s: got %s", vectors[i].name, hex);
	}
}

static void test_every_split_point_gives_the_same_digest(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(vectors); i++) {
		size_t len = strlen(vectors[i].msg);

		for (size_t cut = 0; cut <= len; cut++) {
			struct iovec iov[3] = {
			    {.iov_base = (void *)vectors[i].msg, .iov_len = cut},
			    {.iov_base = NULL, .iov_len = 0},
			    {.iov_base = (void *)(vectors[i].msg + cut), .iov_len = len - cut},
			};
			uint8_t d[SHA256_DIGEST_LEN];
			char hex[2 * SHA256_DIGEST_LEN + 1];

			assert_int_equal(sha256_iov(iov, 3, d), 0);
			to_hex(d, hex);
			if (strcmp(hex, vectors[i].hex))
				fail_msg("%s cut at %zu: got %s", vectors[i].name, cut, hex);
		}
	}
}

static void test_iov_hashes_the_concatenation(void **state)
{
	uint8_t d[SHA256_DIGEST_LEN];
	char hex[2 * SHA256_DIGEST_LEN + 1];
	struct iovec iov[] = {
		{ .iov_base = (void *)msg896, .iov_len = 3 },
		{ .iov_base = NULL, .iov_len = 0 },
		{ .iov_base = (void *)(msg896 + 3), .iov_len = 61 },
		{ .iov_base = (void *)(msg896 + 64), .iov_len = strlen(msg896) - 64 },
	};

	(void)state;
	assert_int_equal(sha256_iov(iov, (int)ARRAY_SIZE(iov), d), 0);
	to_hex(d, hex);
	assert_string_equal(hex, vectors[3].hex);

	assert_int_equal(sha256_iov(NULL, 0, d), 0);
	to_hex(d, hex);
	assert_string_equal(hex, vectors[0].hex);
}

static void test_a_million_a_hashes_to_the_published_digest(void **state)
{
	static char chunk[1000];
	static struct iovec iov[1004];
	uint8_t d[SHA256_DIGEST_LEN];
	char hex[2 * SHA256_DIGEST_LEN + 1];
	size_t done = 0;
	int n = 0;

	(void)state;
	memset(chunk, 'a', sizeof(chunk));
	/* 997 is prime, so block boundaries fall everywhere inside a piece */
	while (done < 1000000) {
		size_t len = 1000000 - done < 997 ? 1000000 - done : 997;

		iov[n++] = (struct iovec){.iov_base = chunk, .iov_len = len};
		done += len;
	}
	assert_int_equal(sha256_iov(iov, n, d), 0);
	to_hex(d, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors_hash_to_the_published_digests),
		cmocka_unit_test(test_every_split_point_gives_the_same_digest),
		cmocka_unit_test(test_iov_hashes_the_concatenation),
		cmocka_unit_test(test_a_million_a_hashes_to_the_published_digest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
