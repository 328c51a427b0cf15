/* sha256.c - SHA-256 as specified in FIPS 180-4 section 6.2; see sha256.h.
 *
 * Written from the specification: big-endian message schedule of 64 words,
 * the eight working variables a..h, and padding with 0x80, zeros and the
 * 64-bit bit length. Speed is not a goal (a frame is hashed once).
 */
#include "sha256.h"

#include <string.h>
#include <sys/uio.h>

/* First 32 bits of the fractional parts of the cube roots of the first 64
 * primes (FIPS 180-4 4.2.2). */
static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static inline uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static inline uint32_t load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void store_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void sha256_block(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64], s[8], t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = load_be32(p + 4 * i);
	for (; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}

	memcpy(s, h, sizeof(s));
	for (i = 0; i < 64; i++) {
		/* s[] is a..h of the specification */
		t1 = s[7] + (ror(s[4], 6) ^ ror(s[4], 11) ^ ror(s[4], 25))
		     + ((s[4] & s[5]) ^ (~s[4] & s[6])) + k[i] + w[i];
		t2 = (ror(s[0], 2) ^ ror(s[0], 13) ^ ror(s[0], 22))
		     + ((s[0] & s[1]) ^ (s[0] & s[2]) ^ (s[1] & s[2]));
		memmove(s + 1, s, 7 * sizeof(s[0]));
		s[4] += t1;
		s[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		h[i] += s[i];
}

void sha256_init(struct sha256_ctx *c)
{
	/* First 32 bits of the fractional parts of the square roots of the
	 * first 8 primes (FIPS 180-4 5.3.3). */
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(c->h, h0, sizeof(h0));
	c->total = 0;
	c->buf_len = 0;
}

void sha256_update(struct sha256_ctx *c, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (!len) /* data may be NULL; memcpy must not see it */
		return;
	c->total += len;
	if (c->buf_len) {
		size_t n = SHA256_BLOCK_LEN - c->buf_len;

		if (n > len)
			n = len;
		memcpy(c->buf + c->buf_len, p, n);
		c->buf_len += n;
		p += n;
		len -= n;
		if (c->buf_len < SHA256_BLOCK_LEN)
			return;
		sha256_block(c->h, c->buf);
		c->buf_len = 0;
	}
	for (; len >= SHA256_BLOCK_LEN; p += SHA256_BLOCK_LEN, len -= SHA256_BLOCK_LEN)
		sha256_block(c->h, p);
	if (len) {
		memcpy(c->buf, p, len);
		c->buf_len = len;
	}
}

void sha256_final(struct sha256_ctx *c, uint8_t out[SHA256_DIGEST_LEN])
{
	uint64_t bits = c->total * 8;
	int i;

	c->buf[c->buf_len++] = 0x80;
	if (c->buf_len > SHA256_BLOCK_LEN - 8) { /* no room for the length */
		memset(c->buf + c->buf_len, 0, SHA256_BLOCK_LEN - c->buf_len);
		sha256_block(c->h, c->buf);
		c->buf_len = 0;
	}
	memset(c->buf + c->buf_len, 0, SHA256_BLOCK_LEN - 8 - c->buf_len);
	store_be32(c->buf + 56, (uint32_t)(bits >> 32));
	store_be32(c->buf + 60, (uint32_t)bits);
	sha256_block(c->h, c->buf);

	for (i = 0; i < 8; i++)
		store_be32(out + 4 * i, c->h[i]);
	memset(c, 0, sizeof(*c));
}

void sha256_iov(const struct iovec *iov, int n, uint8_t out[SHA256_DIGEST_LEN])
{
	struct sha256_ctx c;
	int i;

	sha256_init(&c);
	for (i = 0; i < n; i++)
		sha256_update(&c, iov[i].iov_base, iov[i].iov_len);
	sha256_final(&c, out);
}
