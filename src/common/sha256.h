/* sha256.h - SHA-256 of scattered buffers, through OpenSSL's libcrypto
 * (which uses the CPU's SHA extensions where it has them: hashing every
 * frame was over half of the controller's time answering squeue with our
 * own implementation).
 *
 * Used to bind an auth credential to a digest of the frame header and body
 * (frame.c), a step credential to what it grants (step_cred.c), and to
 * check the node_state file (node_state.c).
 */
#pragma once
#include <stdint.h>

#define SHA256_DIGEST_LEN 32

struct iovec;

/* Digest of the concatenation of n buffers (n may be 0: digest of "").
 * Returns 0, or a negative code if OpenSSL fails (it does not for SHA-256
 * in memory; out is then zeroed and callers fail closed). */
int sha256_iov(const struct iovec *iov, int n, uint8_t out[SHA256_DIGEST_LEN]);
