/* msg_wait.c - pack/unpack/free of REQUEST_JOB_WAIT and RESPONSE_JOB_WAIT.
 * Both counts are capped at SL_WAIT_JOBS_MAX on unpack: a reply has one
 * entry per asked id.
 */
#include "msg_wait.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "limits.h"
#include "msg_family.h"
#include "pack.h"

void job_wait_req_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct job_wait_req *m = msg;

	(void)ver;
	pack_u32(b, m->job_id_count);
	for (uint32_t i = 0; i < m->job_id_count; i++)
		pack_u32(b, m->job_ids[i]);
	pack_u32(b, m->states);
	pack_u32(b, m->flags);
	pack_u32(b, m->timeout_s);
}

int job_wait_req_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct job_wait_req *m = msg;
	uint32_t n = 0;

	(void)ver;
	unpack_count(b, &n, SL_WAIT_JOBS_MAX, 4);
	if (!b->err && n && !(m->job_ids = calloc(n, sizeof(*m->job_ids))))
		b->err = -ENOMEM;
	if (b->err)
		return b->err;
	m->job_id_count = n;
	for (uint32_t i = 0; i < n; i++)
		unpack_u32(b, &m->job_ids[i]);
	unpack_u32(b, &m->states);
	unpack_u32(b, &m->flags);
	unpack_u32(b, &m->timeout_s);
	return b->err;
}

void job_wait_req_free(void *msg)
{
	struct job_wait_req *m = msg;

	free(m->job_ids);
}

void job_wait_resp_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct job_wait_resp *m = msg;

	(void)ver;
	pack_u32(b, m->count);
	for (uint32_t i = 0; i < m->count; i++) {
		pack_u32(b, m->jobs[i].job_id);
		pack_u32(b, m->jobs[i].state);
		pack_u32(b, m->jobs[i].exit_code);
		pack_u32(b, m->jobs[i].result);
	}
}

int job_wait_resp_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct job_wait_resp *m = msg;
	uint32_t n = 0;

	(void)ver;
	unpack_count(b, &n, SL_WAIT_JOBS_MAX, 16);
	if (!b->err && n && !(m->jobs = calloc(n, sizeof(*m->jobs))))
		b->err = -ENOMEM;
	if (b->err)
		return b->err;
	m->count = n;
	for (uint32_t i = 0; i < n; i++) {
		unpack_u32(b, &m->jobs[i].job_id);
		unpack_u32(b, &m->jobs[i].state);
		unpack_u32(b, &m->jobs[i].exit_code);
		unpack_u32(b, &m->jobs[i].result);
	}
	return b->err;
}

void job_wait_resp_free(void *msg)
{
	struct job_wait_resp *m = msg;

	free(m->jobs);
}

int job_wait_exit_code(uint32_t status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

const char *job_wait_result_name(uint32_t result)
{
	static const char *const names[] = {
	    [JOB_WAIT_REACHED] = "REACHED", [JOB_WAIT_ENDED] = "ENDED",
	    [JOB_WAIT_TIMEOUT] = "TIMEOUT", [JOB_WAIT_UNKNOWN] = "UNKNOWN",
	    [JOB_WAIT_PURGED] = "PURGED",   [JOB_WAIT_PENDING] = "PENDING",
	};
	_Static_assert(sizeof(names) / sizeof(names[0]) == _JOB_WAIT_RESULT_MAX,
		       "names[] must name every job_wait_result");

	return result < _JOB_WAIT_RESULT_MAX ? names[result] : "?";
}
