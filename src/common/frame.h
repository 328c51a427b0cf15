/* frame.h - one message on the wire:
 *
 *   u32 frame_len | u16 version | u16 flags | u16 msg_type | u32 body_len
 *                 | str munge credential | body
 *
 * frame_len covers everything after itself. The credential's payload is
 * the SHA-256 of the 10 header bytes followed by the body, so a credential
 * cannot be moved onto another message. Signing and checking go through
 * auth_munge.h.
 *
 * flags bit FRAME_F_ON_BEHALF: the body starts with u32 uid | u32 gid, the
 * user the request is made for (slurmrestd's verified user), then the
 * message. Flag and ids are inside the digest, so the mark can be neither
 * added, altered nor moved onto another message; the receiver honours it
 * only when the credential is root's or SlurmUser's (rpc_server.c).
 */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FRAME_HDR_LEN 10u                  /* version, flags, type, body_len */
#define FRAME_MIN (FRAME_HDR_LEN + 4u)     /* header + an empty credential */

#define FRAME_F_ON_BEHALF 0x0001u
#define FRAME_F_KNOWN	  FRAME_F_ON_BEHALF

struct pack_buf;
struct sl_error;

/* The on-behalf mark's fields. */
struct frame_as {
	uid_t uid;
	gid_t gid;
};

struct frame {
	uint16_t version;
	uint16_t flags;
	uint16_t type;
	uint32_t body_len;
	const uint8_t *hdr;  /* the 10 header bytes, borrowed */
	char *cred;          /* owned; NULL when the sender sent none */
	const uint8_t *body; /* borrowed */
};

/* Pack msg (of type) and append the whole frame, length included, to out.
 * Signs with munge through munge_socket (NULL: munge's default). When the
 * local munged cannot sign: -ESLURM_AUTH_NET_ERROR (or another code of
 * auth_munge_cause()); err (may be NULL) says why, naming munged's socket. */
int frame_build(uint16_t type, const void *msg, const char *munge_socket, struct pack_buf *out,
		struct sl_error *err);

/* frame_build with the on-behalf mark for as->uid/as->gid (as NULL: none). */
int frame_build_as(uint16_t type, const void *msg, const char *munge_socket,
		   const struct frame_as *as, struct pack_buf *out, struct sl_error *err);

/* After the credential was checked: when f carries the on-behalf mark,
 * take its ids off the front of the body (f->body and f->body_len then
 * cover the message alone) and return 1; 0 when unmarked; -EBADMSG when
 * the body is too short for the mark. */
int frame_take_as(struct frame *f, struct frame_as *ret);

/* The same frame with an empty credential and no call to munged: the
 * answer to a peer that did not authenticate (a wrong version, a bad
 * credential), so that junk costs us no munge_encode. A reader counts it
 * as not authenticated (frame_verify: "missing credential"); only its
 * header (a version mismatch) tells anything. */
int frame_build_unsigned(uint16_t type, const void *msg, struct pack_buf *out);

/* Split the bytes after the length into a frame. Checks the version
 * (-SLURM_PROTOCOL_VERSION_ERROR), the credential's size and that
 * body_len matches the bytes left, and that no unknown flag is set
 * (-EBADMSG). f->cred must be freed (frame_done). */
int frame_parse(const uint8_t *data, size_t len, struct frame *f);
void frame_done(struct frame *f);

/* Verify the credential and its binding to header+body; sets the caller's
 * uid/gid from the credential alone. On refusal, err (may be NULL) says
 * why and the code says whose fault it is: -SLURM_PROTOCOL_AUTHENTICATION_ERROR
 * for the credential (bad, replayed, expired, not matching the message),
 * -ESLURM_AUTH_NET_ERROR (or another local code of auth_munge_cause())
 * when the local munged could not check it. */
int frame_verify(const struct frame *f, const char *munge_socket, uid_t *ret_uid, gid_t *ret_gid,
		 struct sl_error *err);

/* The two halves of frame_verify, for a server that authenticates a large
 * frame's credential before buffering its body: decode the credential
 * (munged refuses replays, so this can be done once only), later check
 * the digest it carries against the whole frame. */
struct frame_auth {
	uint8_t digest[32];
	uid_t uid;
	gid_t gid;
};
int frame_cred_decode(const char *cred, const char *munge_socket, struct frame_auth *ret,
		      struct sl_error *err);
int frame_auth_check(const struct frame *f, const struct frame_auth *a, struct sl_error *err);
/* From the first avail bytes of a frame (after its length), take the
 * credential once header and credential are in: 0 and *ret_cred (owned),
 * -EAGAIN with *ret_need the bytes needed, or a protocol error. */
int frame_peek_cred(const uint8_t *data, size_t avail, size_t *ret_need, char **ret_cred);

/* A verified frame's message, not unpacked: body points into the frame's
 * bytes. */
struct frame_body {
	uint16_t type;
	uint16_t version;
	const uint8_t *body;
	uint32_t len;
};
/* Parse and verify a whole reply frame (bytes after the length), leaving
 * the body to the caller (msg_unpack_body, or an unpacking that keeps
 * pointers into it). Codes and err as frame_open; *ret_uid may be NULL. */
int frame_open_raw(const uint8_t *data, size_t len, const char *munge_socket,
		   struct frame_body *ret, uid_t *ret_uid, struct sl_error *err);
/* Parse, verify and unpack a whole frame (bytes after the length) in one
 * call, as reply readers need. On success *ret_msg is owned by the caller
 * (free with msg_free(msg_lookup(*ret_type), m)). Codes and err as in
 * frame_verify. */
int frame_open(const uint8_t *data, size_t len, const char *munge_socket, uint16_t *ret_type,
	       void **ret_msg, uid_t *ret_uid, struct sl_error *err);
