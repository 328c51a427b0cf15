/* sha256.h - SHA-256 (FIPS 180-4) with no outside dependency.
 *
 * Used to bind an auth credential to a digest of the frame header and body
 * (auth.c). Streaming: sha256_init(), any number of sha256_update(), then
 * sha256_final(). sha256_iov() is the one-shot form over scattered buffers.
 * The context holds no pointers and needs no cleanup.
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_BLOCK_LEN 64

struct iovec;

struct sha256_ctx {
	uint32_t h[8];                  /* chaining state */
	uint64_t total;                 /* bytes hashed so far */
	uint8_t buf[SHA256_BLOCK_LEN];  /* partial block */
	size_t buf_len;
};

void sha256_init(struct sha256_ctx *c);
/* Feed len bytes; data may be NULL when len is 0. */
void sha256_update(struct sha256_ctx *c, const void *data, size_t len);
/* Write the digest to out and wipe c; c must be re-initialised before reuse. */
void sha256_final(struct sha256_ctx *c, uint8_t out[SHA256_DIGEST_LEN]);

/* Digest of the concatenation of n buffers (n may be 0: digest of ""). */
void sha256_iov(const struct iovec *iov, int n, uint8_t out[SHA256_DIGEST_LEN]);
