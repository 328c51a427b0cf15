/* frame.c - build, split and authenticate frames; see frame.h.
 *
 * Caveat: signing and checking talk to the local munged over a unix socket
 * (auth_munge.c); that round trip, with its short retries when munged is
 * busy (at most AUTH_MUNGE_RETRY_BUDGET_MS), is the one blocking call the
 * event loops accept, as Slurm does.
 */
#include "frame.h"

#include <errno.h>
#include <munge.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "auth_munge.h"
#include "errprintf.h"
#include "limits.h"
#include "msg.h"
#include "pack.h"
#include "sha256.h"
#include "sl_errno.h"

static int frame_digest(const uint8_t *hdr, const uint8_t *body, uint32_t body_len, uint8_t out[32])
{
	struct iovec iov[2] = {
		{ .iov_base = (void *)hdr, .iov_len = FRAME_HDR_LEN },
		{ .iov_base = (void *)body, .iov_len = body_len },
	};

	return sha256_iov(iov, 2, out);
}

/* The whole frame of msg appended to out; is_signed false: with an empty
 * credential, and no call to munged. */
static int frame_make(uint16_t type, const void *msg, const char *munge_socket, bool is_signed,
		      const struct frame_as *as, struct pack_buf *out, struct sl_error *err)
{
	const struct msg_type *t = msg_lookup(type);
	struct pack_buf body = { 0 }, hdr = { 0 };
	uint8_t digest[32];
	char *cred = NULL;
	munge_err_t e;
	int r = 0;

	if (!t)
		return errprintf(err, -EINVAL, "unknown message type %u", (unsigned)type);
	if (as) {
		pack_u32(&body, (uint32_t)as->uid);
		pack_u32(&body, (uint32_t)as->gid);
	}
	t->pack(msg, &body, PROTOCOL_VERSION);
	pack_u16(&hdr, PROTOCOL_VERSION);
	pack_u16(&hdr, as ? FRAME_F_ON_BEHALF : 0);
	pack_u16(&hdr, type);
	pack_u32(&hdr, (uint32_t)body.len);
	if (body.err || hdr.err) {
		r = errprintf(err, body.err ? body.err : hdr.err, "cannot pack the message");
		goto out;
	}
	if (is_signed) {
		r = frame_digest(hdr.data, body.data, (uint32_t)body.len, digest);
		if (r < 0) {
			errprintf(err, r, "cannot digest the message");
			goto out;
		}
		e = auth_munge_encode(munge_socket, digest, sizeof(digest), &cred, err);
		if (e != EMUNGE_SUCCESS) {
			r = auth_munge_cause(e).code;
			goto out;
		}
	}
	pack_u32(out, (uint32_t)(hdr.len + 4 + (cred ? strlen(cred) + 1 : 0) + body.len));
	pack_raw(out, hdr.data, hdr.len);
	pack_str(out, cred);
	pack_raw(out, body.data, body.len);
	r = out->err;
	if (r < 0)
		errprintf(err, r, "cannot pack the frame");
out:
	free(cred);
	pack_buf_done(&body);
	pack_buf_done(&hdr);
	return r;
}

int frame_build(uint16_t type, const void *msg, const char *munge_socket, struct pack_buf *out,
		struct sl_error *err)
{
	return frame_make(type, msg, munge_socket, true, NULL, out, err);
}

int frame_build_as(uint16_t type, const void *msg, const char *munge_socket,
		   const struct frame_as *as, struct pack_buf *out, struct sl_error *err)
{
	return frame_make(type, msg, munge_socket, true, as, out, err);
}

int frame_take_as(struct frame *f, struct frame_as *ret)
{
	struct pack_buf b;
	uint32_t uid, gid;

	if (!(f->flags & FRAME_F_ON_BEHALF))
		return 0;
	b = pack_buf_view(f->body, f->body_len);
	unpack_u32(&b, &uid);
	unpack_u32(&b, &gid);
	if (b.err || uid == (uint32_t)-1 || gid == (uint32_t)-1)
		return -EBADMSG;
	ret->uid = (uid_t)uid;
	ret->gid = (gid_t)gid;
	f->body += b.pos;
	f->body_len -= (uint32_t)b.pos;
	f->flags &= (uint16_t)~FRAME_F_ON_BEHALF;
	return 1;
}

int frame_build_unsigned(uint16_t type, const void *msg, struct pack_buf *out)
{
	return frame_make(type, msg, NULL, false, NULL, out, NULL);
}

int frame_parse(const uint8_t *data, size_t len, struct frame *f)
{
	struct pack_buf b = pack_buf_view(data, len);

	*f = (struct frame){ .hdr = data };
	unpack_u16(&b, &f->version);
	unpack_u16(&b, &f->flags);
	unpack_u16(&b, &f->type);
	unpack_u32(&b, &f->body_len);
	if (b.err)
		return -SLURM_PROTOCOL_INSUFFICIENT_SPACE;
	if (f->version != PROTOCOL_VERSION)
		return -SLURM_PROTOCOL_VERSION_ERROR;
	if (f->flags & ~FRAME_F_KNOWN)
		return -EBADMSG;
	unpack_str(&b, &f->cred, SL_CRED_MAX);
	if (b.err)
		return -SLURM_PROTOCOL_AUTHENTICATION_ERROR;
	if (pack_remaining(&b) != f->body_len)
		return -EBADMSG;
	f->body = data + b.pos;
	return 0;
}

void frame_done(struct frame *f)
{
	free(f->cred);
	f->cred = NULL;
}

int frame_cred_decode(const char *cred, const char *munge_socket, struct frame_auth *ret,
		      struct sl_error *err)
{
	void *payload = NULL;
	int payload_len = 0;
	munge_err_t e;

	if (!cred || !*cred)
		return errprintf(err, -SLURM_PROTOCOL_AUTHENTICATION_ERROR, "missing credential");
	e = auth_munge_decode(munge_socket, cred, &payload, &payload_len, &ret->uid, &ret->gid,
			      err);
	if (e == EMUNGE_SUCCESS && payload_len != (int)sizeof(ret->digest)) {
		free(payload);
		return errprintf(err, -SLURM_PROTOCOL_AUTHENTICATION_ERROR,
				 "credential payload of %d bytes, not a digest", payload_len);
	}
	if (e != EMUNGE_SUCCESS) {
		free(payload);
		return auth_munge_cause(e).code;
	}
	memcpy(ret->digest, payload, sizeof(ret->digest));
	free(payload);
	return 0;
}

int frame_auth_check(const struct frame *f, const struct frame_auth *a, struct sl_error *err)
{
	uint8_t digest[32];

	if (frame_digest(f->hdr, f->body, f->body_len, digest) < 0
	    || memcmp(a->digest, digest, sizeof(digest)) != 0)
		return errprintf(err, -SLURM_PROTOCOL_AUTHENTICATION_ERROR,
				 "credential does not match the message");
	return 0;
}

int frame_verify(const struct frame *f, const char *munge_socket, uid_t *ret_uid, gid_t *ret_gid,
		 struct sl_error *err)
{
	struct frame_auth a;
	int r;

	r = frame_cred_decode(f->cred, munge_socket, &a, err);
	if (r == 0)
		r = frame_auth_check(f, &a, err);
	if (r < 0)
		return r;
	*ret_uid = a.uid;
	*ret_gid = a.gid;
	return 0;
}

int frame_peek_cred(const uint8_t *data, size_t avail, size_t *ret_need, char **ret_cred)
{
	struct pack_buf b = pack_buf_view(data, avail);
	uint16_t version, flags, type;
	uint32_t body_len, cred_len;

	*ret_cred = NULL;
	*ret_need = FRAME_HDR_LEN + 4;
	if (avail < *ret_need)
		return -EAGAIN;
	unpack_u16(&b, &version);
	unpack_u16(&b, &flags);
	unpack_u16(&b, &type);
	unpack_u32(&b, &body_len);
	unpack_u32(&b, &cred_len);
	if (version != PROTOCOL_VERSION)
		return -SLURM_PROTOCOL_VERSION_ERROR;
	if (cred_len == 0 || cred_len > SL_CRED_MAX)
		return -SLURM_PROTOCOL_AUTHENTICATION_ERROR;
	*ret_need += cred_len;
	if (avail < *ret_need)
		return -EAGAIN;
	b.pos = FRAME_HDR_LEN;
	unpack_str(&b, ret_cred, SL_CRED_MAX);
	return b.err ? -SLURM_PROTOCOL_AUTHENTICATION_ERROR : 0;
}

int frame_open_raw(const uint8_t *data, size_t len, const char *munge_socket,
		   struct frame_body *ret, uid_t *ret_uid, struct sl_error *err)
{
	struct frame f;
	gid_t gid;
	uid_t uid;
	int r;

	r = frame_parse(data, len, &f);
	if (r < 0) {
		errprintf(err, r, "%s",
			  r == -SLURM_PROTOCOL_VERSION_ERROR ? "protocol version mismatch"
							     : "malformed frame");
		frame_done(&f);
		return r;
	}
	r = frame_verify(&f, munge_socket, &uid, &gid, err);
	if (r == 0 && (f.flags & FRAME_F_ON_BEHALF))
		r = errprintf(err, -EBADMSG, "a reply cannot be made on behalf of a user");
	if (r == 0) {
		*ret = (struct frame_body){
		    .type = f.type, .version = f.version, .body = f.body, .len = f.body_len};
		if (ret_uid)
			*ret_uid = uid;
	}
	frame_done(&f);
	return r;
}

int frame_open(const uint8_t *data, size_t len, const char *munge_socket, uint16_t *ret_type,
	       void **ret_msg, uid_t *ret_uid, struct sl_error *err)
{
	struct frame_body b;
	int r;

	r = frame_open_raw(data, len, munge_socket, &b, ret_uid, err);
	if (r < 0)
		return r;
	r = msg_unpack_body(b.type, b.body, b.len, b.version, ret_msg);
	if (r < 0)
		return errprintf(err, r, "%s",
				 msg_lookup(b.type) ? "malformed message body"
						    : "unknown message type");
	*ret_type = b.type;
	return 0;
}
