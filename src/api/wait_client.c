/* wait_client.c - see wait_client.h. */
#include "api/wait_client.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/job_states.h"
#include "common/limits.h"
#include "common/msg.h"
#include "common/msg_wait.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"

void wait_client_free(struct job_wait_resp *resp)
{
	msg_free(msg_lookup(RESPONSE_JOB_WAIT), resp);
}

static bool has_timeouts(const struct job_wait_resp *m)
{
	for (uint32_t i = 0; i < m->count; i++)
		if (m->jobs[i].result == JOB_WAIT_TIMEOUT)
			return true;
	return false;
}

/* One request of at most wait_s seconds. */
static int ask(const struct sl_conf *conf, struct job_wait_req *req, uint32_t wait_s,
	       struct job_wait_resp **ret)
{
	uint16_t type = 0;
	void *msg = NULL;
	int r;

	req->timeout_s = wait_s;
	r = rpc_call_ctld_wait(conf, REQUEST_JOB_WAIT, req, wait_s, &type, &msg);
	if (r < 0)
		return r;
	if (type == RESPONSE_SLURM_RC) {
		r = -(int)((struct rc_msg *)msg)->rc;
		msg_free(msg_lookup(type), msg);
		return r < 0 ? r : -SLURM_UNEXPECTED_MSG_ERROR;
	}
	if (type != RESPONSE_JOB_WAIT) {
		msg_free(msg_lookup(type), msg);
		return -SLURM_UNEXPECTED_MSG_ERROR;
	}
	*ret = msg;
	return 0;
}

int wait_client_jobs(const struct sl_conf *conf, const uint32_t *ids, uint32_t n,
		     uint32_t states, uint32_t flags, uint32_t timeout_s,
		     struct job_wait_resp **ret)
{
	struct job_wait_req req = {
	    .job_ids = (uint32_t *)ids, .job_id_count = n, .states = states, .flags = flags};
	time_t end = timeout_s ? time(NULL) + timeout_s : 0;
	struct job_wait_resp *m = NULL;

	for (;;) {
		time_t left = end ? end - time(NULL) : SL_WAIT_TIMEOUT_MAX;
		int r;

		if (left < 0)
			left = 0;
		r = ask(conf, &req, left < SL_WAIT_TIMEOUT_MAX ? (uint32_t)left
							      : SL_WAIT_TIMEOUT_MAX,
			&m);
		if (r < 0)
			return r;
		if (!has_timeouts(m) || (end && time(NULL) >= end)) {
			*ret = m;
			return 0;
		}
		wait_client_free(m);
		m = NULL;
	}
}

int wait_client_parse_states(const char *list, uint32_t *ret)
{
	char *copy = strdup(list), *save = NULL;
	uint32_t set = 0;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		uint32_t st = 0;
		bool is_state = job_state_from_string(w, &st) == 0 && st < _JOB_STATE_BASE_MAX;

		if (!strcasecmp(w, "started"))
			set |= JOB_WAIT_STARTED;
		else if (!strcasecmp(w, "finished") || !strcasecmp(w, "ended"))
			set |= JOB_WAIT_FINISHED;
		else if (is_state)
			set |= 1u << st;
		else
			r = -EINVAL;
	}
	free(copy);
	if (r == 0 && !set)
		r = -EINVAL;
	if (r == 0)
		*ret = set;
	return r;
}
