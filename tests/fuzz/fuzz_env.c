/* fuzz_env.c - libFuzzer target: the environment builder of the batch
 * script and the step's tasks (common/job_env.c). The input is lines: a
 * line starting "-" unsets the rest, "?" looks it up, any other is put
 * as a "NAME=value" entry; then the same lines are the env of a batch
 * launch (job_env_batch) and of a step launch (job_env_step). After
 * each, every entry is found by its own name at its own position and no
 * name appears twice. Inputs of many short lines catch a quadratic
 * import (libFuzzer's -timeout).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/job_env.h"
#include "common/msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct job_env *e)
{
	for (size_t i = 0; i < e->n; i++) {
		size_t len = strcspn(e->v[i], "=");
		char *name = strndup(e->v[i], len);

		if (!name)
			abort();
		if (e->v[i][len] != '=' || job_env_get(e, name) != e->v[i] + len + 1)
			abort(); /* lost from the index, or a second entry of the name */
		free(name);
	}
	if (e->n && e->v[e->n])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct job_env_node node = {.node_name = "n1",
				    .host_name = "h1",
				    .conf_path = "/etc/slurm/slurm.conf",
				    .ctld_addr = "127.0.0.1",
				    .ctld_port = 6817};
	uint32_t gtids[] = {0, 1};
	struct batch_launch_msg bm = {.job_id = 1, .array_task_id = NO_VAL, .nodes = "n1"};
	struct launch_tasks_msg lm = {.gtids = gtids, .ntasks_here = 2};
	struct job_env e = {0};
	char *buf, **lines = NULL;
	uint32_t n = 0;

	if (size > (1u << 20))
		return 0;
	buf = malloc(size + 1);
	lines = calloc(size + 2, sizeof(*lines)); /* a line per byte, at most */
	if (!buf || !lines)
		goto out;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (char *p = buf, *nl; p; p = nl) {
		nl = strchr(p, '\n');
		if (nl)
			*nl++ = '\0';
		lines[n++] = p;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (lines[i][0] == '-')
			job_env_unset(&e, lines[i] + 1);
		else if (lines[i][0] == '?')
			(void)job_env_get(&e, lines[i] + 1);
		else
			(void)job_env_put(&e, lines[i]);
	}
	check(&e);
	job_env_done(&e);
	bm.env = lines;
	bm.env_count = n;
	if (job_env_batch(&e, &bm, &node) == 0)
		check(&e);
	job_env_done(&e);
	lm.env = lines;
	lm.env_count = n;
	if (job_env_step(&e, &lm, &node) == 0 && job_env_step_task(&e, &lm, 1) == 0)
		check(&e);
	job_env_done(&e);
out:
	free(lines);
	free(buf);
	return 0;
}
