/* sha256.c - see sha256.h.
 *
 * OpenSSL's direct SHA-256 functions, not EVP: EVP's first digest in a
 * process loads the default provider (1-2 ms), which every short-lived
 * command (sinfo, squeue -j) would pay on each run; these run at once
 * and use the CPU's SHA extensions all the same. OpenSSL 3 marks them
 * deprecated (they stay in 3.x); OPENSSL_API_COMPAT names the API level we
 * use, so the build stays warning-free. Should they go, EVP with a fetched
 * EVP_MD kept for the process is the replacement.
 */
#define OPENSSL_API_COMPAT 0x10100000L
#include "sha256.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include <openssl/sha.h>

int sha256_iov(const struct iovec *iov, int n, uint8_t out[SHA256_DIGEST_LEN])
{
	SHA256_CTX ctx;
	int ok = SHA256_Init(&ctx) == 1;

	for (int i = 0; ok && i < n; i++)
		ok = SHA256_Update(&ctx, iov[i].iov_base, iov[i].iov_len) == 1;
	ok = SHA256_Final(out, &ctx) == 1 && ok;
	if (!ok) {
		memset(out, 0, SHA256_DIGEST_LEN);
		return -EINVAL;
	}
	return 0;
}
