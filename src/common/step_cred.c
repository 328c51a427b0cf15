/* step_cred.c - see step_cred.h. */
#include "step_cred.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "auth_munge.h"
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

int step_cred_create(const char *munge_socket, uint32_t job_id, uint32_t step_id, uint32_t uid,
		     const char *nodes, char **ret)
{
	uint8_t digest[SHA256_DIGEST_LEN];
	munge_err_t e;
	int r;

	*ret = NULL;
	r = cred_digest(job_id, step_id, uid, nodes, digest);
	if (r < 0)
		return r;
	e = auth_munge_encode(munge_socket, digest, sizeof(digest), ret, NULL);
	if (e == EMUNGE_SUCCESS)
		return 0;
	return auth_munge_cause(e).code;
}

int step_cred_verify(const char *munge_socket, const char *cred, uint32_t job_id,
		     uint32_t step_id, uint32_t uid, const char *nodes, uid_t slurm_uid)
{
	uint8_t digest[SHA256_DIGEST_LEN];
	void *payload = NULL;
	int len = 0, r = -ESLURMD_INVALID_JOB_CREDENTIAL;
	uid_t cred_uid = (uid_t)-1;
	gid_t cred_gid;
	munge_err_t e;

	if (!cred || !*cred)
		return r;
	e = auth_munge_decode(munge_socket, cred, &payload, &len, &cred_uid, &cred_gid, NULL);
	/* A step on several nodes of one munged decodes the same credential
	 * once per node: munged calls that a replay, but it is still ours. */
	if (e == EMUNGE_CRED_EXPIRED)
		r = -ESLURMD_CREDENTIAL_EXPIRED;
	else if (auth_munge_cause(e).is_local)
		r = auth_munge_cause(e).code; /* our munged failed, not the credential */
	if ((e == EMUNGE_SUCCESS || e == EMUNGE_CRED_REPLAYED) && payload
	    && len == SHA256_DIGEST_LEN && (cred_uid == 0 || cred_uid == slurm_uid)) {
		if (cred_digest(job_id, step_id, uid, nodes, digest) == 0
		    && memcmp(digest, payload, sizeof(digest)) == 0)
			r = 0;
	}
	free(payload);
	return r;
}
