/* sha256.c - see sha256.h. */
#include "sha256.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include <openssl/evp.h>

int sha256_iov(const struct iovec *iov, int n, uint8_t out[SHA256_DIGEST_LEN])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int len = 0;
	int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;

	for (int i = 0; ok && i < n; i++)
		ok = EVP_DigestUpdate(ctx, iov[i].iov_base, iov[i].iov_len) == 1;
	ok = ok && EVP_DigestFinal_ex(ctx, out, &len) == 1 && len == SHA256_DIGEST_LEN;
	EVP_MD_CTX_free(ctx);
	if (!ok) {
		memset(out, 0, SHA256_DIGEST_LEN);
		return -ENOMEM;
	}
	return 0;
}
