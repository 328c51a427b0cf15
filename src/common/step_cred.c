/* step_cred.c - see step_cred.h. */
#include "step_cred.h"

#include <errno.h>
#include <munge.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "sha256.h"
#include "sl_errno.h"

static int cred_digest(uint32_t job_id, uint32_t step_id, uint32_t uid, const char *nodes,
		       uint8_t out[SHA256_DIGEST_LEN])
{
	char head[64];
	int n = snprintf(head, sizeof(head), "%u.%u:%u:", (unsigned)job_id, (unsigned)step_id,
			 (unsigned)uid);
	struct iovec iov[2] = {
	    {.iov_base = head, .iov_len = (size_t)n},
	    {.iov_base = (void *)nodes, .iov_len = nodes ? strlen(nodes) : 0},
	};

	return sha256_iov(iov, 2, out);
}

static munge_ctx_t cred_ctx(const char *munge_socket)
{
	munge_ctx_t ctx = munge_ctx_create();

	if (ctx && munge_socket
	    && munge_ctx_set(ctx, MUNGE_OPT_SOCKET, munge_socket) != EMUNGE_SUCCESS) {
		munge_ctx_destroy(ctx);
		return NULL;
	}
	return ctx;
}

int step_cred_create(const char *munge_socket, uint32_t job_id, uint32_t step_id, uint32_t uid,
		     const char *nodes, char **ret)
{
	uint8_t digest[SHA256_DIGEST_LEN];
	munge_ctx_t ctx = cred_ctx(munge_socket);
	munge_err_t e;
	int r;

	*ret = NULL;
	if (!ctx)
		return -SLURM_PROTOCOL_AUTHENTICATION_ERROR;
	r = cred_digest(job_id, step_id, uid, nodes, digest);
	if (r < 0) {
		munge_ctx_destroy(ctx);
		return r;
	}
	e = munge_encode(ret, ctx, digest, sizeof(digest));
	munge_ctx_destroy(ctx);
	if (e != EMUNGE_SUCCESS) {
		free(*ret);
		*ret = NULL;
		return -SLURM_PROTOCOL_AUTHENTICATION_ERROR;
	}
	return 0;
}

int step_cred_verify(const char *munge_socket, const char *cred, uint32_t job_id,
		     uint32_t step_id, uint32_t uid, const char *nodes, uid_t slurm_uid)
{
	uint8_t digest[SHA256_DIGEST_LEN];
	void *payload = NULL;
	int len = 0, r = -ESLURMD_INVALID_JOB_CREDENTIAL;
	uid_t cred_uid = (uid_t)-1;
	gid_t cred_gid;
	munge_ctx_t ctx;
	munge_err_t e;

	if (!cred)
		return r;
	ctx = cred_ctx(munge_socket);
	if (!ctx)
		return r;
	e = munge_decode(cred, ctx, &payload, &len, &cred_uid, &cred_gid);
	munge_ctx_destroy(ctx);
	/* A step on several nodes of one munged decodes the same credential
	 * once per node: munged calls that a replay, but it is still ours. */
	if (e == EMUNGE_CRED_EXPIRED)
		r = -ESLURMD_CREDENTIAL_EXPIRED;
	if ((e == EMUNGE_SUCCESS || e == EMUNGE_CRED_REPLAYED) && payload
	    && len == SHA256_DIGEST_LEN && (cred_uid == 0 || cred_uid == slurm_uid)) {
		if (cred_digest(job_id, step_id, uid, nodes, digest) == 0
		    && memcmp(digest, payload, sizeof(digest)) == 0)
			r = 0;
	}
	free(payload);
	return r;
}
