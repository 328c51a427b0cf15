/* fuzz_frame.c - libFuzzer target: what a daemon's RPC server does with
 * the bytes of a connection before and after authentication, munge
 * aside. The input is a frame as on the wire (u32 frame_len, then
 * header, credential, body). As rpc_server.c: the credential is peeked
 * for a large frame as the bytes come in (frame_peek_cred, -EAGAIN and
 * the bytes needed), then the whole frame is split (frame_parse), its
 * digest checked against a credential's (frame_auth_check, here the
 * frame's own digest so the body is reached, and a wrong one), and the
 * body unpacked for its type (msg_unpack_body). Nothing may crash, leak,
 * over-read or ask for more bytes than the frame can hold.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "common/errprintf.h"
#include "common/frame.h"
#include "common/limits.h"
#include "common/msg.h"
#include "common/sha256.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* frame_peek_cred as the bytes arrive: each call gets what the last one
 * said it needs, until it has the credential or the frame ends. */
static void peek(const uint8_t *p, size_t len)
{
	size_t avail = 0, need = 0;
	char *cred = NULL;
	int r;

	for (;;) {
		r = frame_peek_cred(p, avail, &need, &cred);
		free(cred);
		cred = NULL;
		if (r != -EAGAIN)
			return;
		if (need <= avail || need > FRAME_HDR_LEN + 4 + SL_CRED_MAX)
			abort(); /* no progress, or more than a credential's worth */
		if (need > len)
			return;
		avail = need;
	}
}

static void open_frame(const uint8_t *p, size_t len)
{
	struct sl_error err = {""};
	struct frame_auth a = {0};
	struct frame f;
	void *body = NULL;
	struct iovec iov[2];

	if (frame_parse(p, len, &f) < 0) {
		frame_done(&f);
		return;
	}
	if (f.body + f.body_len != p + len)
		abort();
	if (frame_auth_check(&f, &a, &err) == 0)
		abort(); /* a zero digest never matches */
	iov[0] = (struct iovec){.iov_base = (void *)f.hdr, .iov_len = FRAME_HDR_LEN};
	iov[1] = (struct iovec){.iov_base = (void *)f.body, .iov_len = f.body_len};
	if (sha256_iov(iov, 2, a.digest) < 0 || frame_auth_check(&f, &a, &err) < 0)
		abort();
	if (msg_unpack_body(f.type, f.body, f.body_len, f.version, &body) == 0)
		msg_free(msg_lookup(f.type), body);
	frame_done(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t frame_len;
	uint8_t *p;

	if (size < sizeof(frame_len))
		return 0;
	memcpy(&frame_len, data, sizeof(frame_len));
	frame_len = be32toh(frame_len);
	/* the server reads frame_len bytes: fewer is a short read (closed) */
	if (frame_len > size - sizeof(frame_len))
		frame_len = (uint32_t)(size - sizeof(frame_len));
	p = malloc(frame_len ? frame_len : 1); /* exact size: ASan sees any over-read */
	if (!p)
		return 0;
	memcpy(p, data + sizeof(frame_len), frame_len);
	peek(p, frame_len);
	open_frame(p, frame_len);
	free(p);
	return 0;
}
