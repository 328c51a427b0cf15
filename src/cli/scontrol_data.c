/* scontrol_data.c - scontrol's --json/--yaml show (scontrol_data.h). */
#include "cli/scontrol_data.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fmt.h"
#include "common/data_job.h"
#include "common/data_node.h"
#include "common/data_out.h"
#include "common/data_part.h"
#include "common/hostlist.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"

struct job_id {
	uint32_t job, task; /* task NO_VAL: the whole job */
};

static bool keep_job(const struct job_info *j, void *arg)
{
	const struct job_id *id = arg;

	if (j->job_id != id->job && j->array_job_id != id->job)
		return false;
	return id->task == NO_VAL || j->array_task_id == id->task
	       || fmt_idset_has(j->array_task_str, id->task);
}

int scontrol_data_jobs(const struct scontrol_data *s, const struct job_info_msg *m,
		       const char *id)
{
	struct job_id want = {.job = 0, .task = NO_VAL};
	struct dout *d;
	char *end = NULL;
	bool known = !id, shown = !id;

	if (id) {
		want.job = (uint32_t)strtoul(id, &end, 10);
		if (*end == '_')
			want.task = (uint32_t)strtoul(end + 1, &end, 10);
	}
	for (uint32_t i = 0; i < m->count && !shown; i++) {
		known = known || m->jobs[i].job_id == want.job || m->jobs[i].array_job_id == want.job;
		shown = keep_job(&m->jobs[i], &want);
	}
	if (!known)
		return -ESLURM_INVALID_JOB_ID; /* what slurm_load_job() answers */
	if (!shown) {
		fprintf(stderr, "Job %s not found\n", id);
		return -ENOENT;
	}
	d = cli_data_new(s->mime);
	if (d)
		data_jobs_doc(d, m, id ? keep_job : NULL, &want, s->argc, s->argv);
	return cli_data_print(d) < 0 ? -EIO : 0;
}

static bool keep_node(const struct node_info *n, void *arg)
{
	return !arg || hostlist_find(arg, n->name) >= 0;
}

int scontrol_data_nodes(const struct scontrol_data *s, const struct node_info_msg *m,
			const char *names)
{
	struct hostlist *hl = NULL;
	struct dout *d;
	int r = 0;

	if (names && hostlist_new(names, &hl) < 0) {
		fprintf(stderr, "unable to parse node list %s\n", names);
		return -1;
	}
	for (size_t h = 0; hl && h < hostlist_count(hl); h++) {
		uint32_t i = 0;

		while (i < m->count && (!m->nodes[i].name
					|| strcmp(m->nodes[i].name, hostlist_nth(hl, h))))
			i++;
		if (i == m->count) {
			fprintf(stderr, "Node %s not found\n", hostlist_nth(hl, h));
			r = -1;
		}
	}
	d = cli_data_new(s->mime);
	if (d)
		data_nodes_doc(d, m, keep_node, hl, s->argc, s->argv);
	if (cli_data_print(d) < 0)
		r = -1;
	hostlist_free(hl);
	return r;
}

struct part_want {
	const char *name;
	bool all;
};

static bool keep_part(const struct part_info *p, void *arg)
{
	const struct part_want *w = arg;

	if (w->name)
		return !strcmp(p->name, w->name);
	return w->all || !(p->flags & PART_FLAG_HIDDEN);
}

int scontrol_data_parts(const struct scontrol_data *s, const struct part_info_msg *m,
			const char *name, bool all)
{
	struct part_want w = {.name = name, .all = all};
	struct dout *d;
	bool found = !name;
	int r = 0;

	for (uint32_t i = 0; i < m->count && !found; i++)
		found = !strcmp(m->parts[i].name, name);
	if (!found) {
		fprintf(stderr, "Partition %s not found\n", name);
		r = -1;
	}
	d = cli_data_new(s->mime);
	if (d)
		data_parts_doc(d, m, keep_part, &w, s->argc, s->argv);
	if (cli_data_print(d) < 0)
		r = -1;
	return r;
}
