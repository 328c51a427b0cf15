/* scontrol_wait.c - scontrol wait_job (scontrol_wait.h), one
 * REQUEST_JOB_WAIT held by the controller instead of polling it.
 */
#include "scontrol_wait.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

#include "common/job_states.h"
#include "common/limits.h"
#include "common/msg_wait.h"
#include "common/sl_errno.h"
#include "cli/cli.h"
#include "api/wait_client.h"

#define WAIT_EXIT_TIMEOUT 2

struct wait_args {
	uint32_t ids[SL_WAIT_JOBS_MAX];
	uint32_t n;
	uint32_t states, flags, timeout_s;
	bool is_extended; /* any of our options: print a line per job */
};

static int parse_ids(struct wait_args *a, const char *list)
{
	const char *p = list;

	while (*p) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (end == p || v == 0 || v > UINT32_MAX || (*end && *end != ',')
		    || a->n == SL_WAIT_JOBS_MAX)
			return -EINVAL;
		a->ids[a->n++] = (uint32_t)v;
		p = *end ? end + 1 : end;
	}
	return a->n ? 0 : -EINVAL;
}

static int parse_args(struct wait_args *a, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];

		if (!strncasecmp(w, "state=", 6)) {
			if (wait_client_parse_states(strchr(w, '=') + 1, &a->states) < 0) {
				cli_error("Invalid job state list: %s", strchr(w, '=') + 1);
				return -EINVAL;
			}
			a->is_extended = true;
		} else if (!strncasecmp(w, "timeout=", 8)) {
			char *end;
			unsigned long v = strtoul(strchr(w, '=') + 1, &end, 10);

			if (*end || v > UINT32_MAX) {
				cli_error("Invalid timeout: %s", strchr(w, '=') + 1);
				return -EINVAL;
			}
			a->timeout_s = (uint32_t)v;
			a->is_extended = true;
		} else if (!strcasecmp(w, "all")) {
			a->flags |= JOB_WAIT_ALL;
			a->is_extended = true;
		} else if (parse_ids(a, w) < 0) {
			cli_error("Invalid job id specified: %s", w);
			return -EINVAL;
		}
	}
	if (!a->n) {
		cli_error("wait_job requires a job id");
		return -EINVAL;
	}
	a->is_extended = a->is_extended || a->n > 1;
	return 0;
}

static void print_job(const struct job_wait_job *j)
{
	uint32_t st = j->exit_code;

	if (j->result == JOB_WAIT_UNKNOWN) {
		printf("JobId=%u Wait=UNKNOWN\n", j->job_id);
		return;
	}
	printf("JobId=%u JobState=%s ExitCode=%d:%d Wait=%s\n", j->job_id,
	       job_state_string(j->state), WIFEXITED(st) ? WEXITSTATUS(st) : 0,
	       WIFSIGNALED(st) ? WTERMSIG(st) : 0, job_wait_result_name(j->result));
}

/* 0 when the wait is satisfied (all reached, or any with no --all). */
static int exit_code(const struct wait_args *a, const struct job_wait_resp *m)
{
	uint32_t reached = 0, timeouts = 0;

	for (uint32_t i = 0; i < m->count; i++) {
		reached += m->jobs[i].result == JOB_WAIT_REACHED;
		timeouts += m->jobs[i].result == JOB_WAIT_TIMEOUT;
	}
	if (a->flags & JOB_WAIT_ALL ? reached == m->count : reached > 0)
		return CLI_EXIT_OK;
	return timeouts ? WAIT_EXIT_TIMEOUT : CLI_EXIT_ERROR;
}

int scontrol_wait_job(const struct sl_conf *conf, int argc, char **argv)
{
	struct wait_args *a = calloc(1, sizeof(*a));
	struct job_wait_resp *m = NULL;
	int r;

	if (!a)
		return CLI_EXIT_ERROR;
	a->states = 1u << JOB_RUNNING; /* Slurm's: ready for use, or ended */
	if (parse_args(a, argc, argv) < 0) {
		free(a);
		return CLI_EXIT_ERROR;
	}
	r = wait_client_jobs(conf, a->ids, a->n, a->states, a->flags, a->timeout_s, &m);
	if (r < 0) {
		cli_error("wait_job: %s", sl_strerror(r));
		free(a);
		return CLI_EXIT_ERROR;
	}
	for (uint32_t i = 0; i < m->count; i++) {
		if (a->is_extended)
			print_job(&m->jobs[i]);
		else if (m->jobs[i].result == JOB_WAIT_UNKNOWN)
			cli_error("Invalid job id specified");
	}
	r = exit_code(a, m);
	wait_client_free(m);
	free(a);
	return r;
}
