/* job_array.c - see job_array.h. */
#include "job_array.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob_store.h"
#include "common/limits.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* One "a", "a-b" or "a-b:s" item appended to ids. */
static int parse_item(const char *item, uint32_t max_size, uint32_t *ids, uint32_t *n)
{
	unsigned long lo, hi, step = 1;
	char *end;

	lo = strtoul(item, &end, 10);
	if (end == item || item[0] == '-')
		return -ESLURM_INVALID_ARRAY;
	hi = lo;
	if (*end == '-') {
		const char *p = end + 1;

		hi = strtoul(p, &end, 10);
		if (end == p || *p == '-')
			return -ESLURM_INVALID_ARRAY;
	}
	if (*end == ':') {
		const char *p = end + 1;

		step = strtoul(p, &end, 10);
		if (end == p || step == 0)
			return -ESLURM_INVALID_ARRAY;
	}
	if (*end || hi < lo || hi >= max_size)
		return -ESLURM_INVALID_ARRAY;
	for (unsigned long i = lo; i <= hi; i += step) {
		if (*n >= max_size)
			return -ESLURM_INVALID_ARRAY;
		ids[(*n)++] = (uint32_t)i;
	}
	return 0;
}

int job_array_parse(const char *spec, uint32_t max_size, uint32_t **ret_ids, uint32_t *ret_n,
		    uint32_t *ret_throttle)
{
	_cleanup_free_ char *copy = NULL;
	_cleanup_free_ uint32_t *ids = NULL;
	char *pct, *save = NULL, *item;
	uint32_t n = 0, k = 0;
	unsigned long throttle = 0;
	int r = 0;

	if (!spec || !*spec || strlen(spec) > SL_STR_MAX || !max_size)
		return -ESLURM_INVALID_ARRAY;
	copy = strdup(spec);
	ids = calloc(max_size, sizeof(*ids));
	if (!copy || !ids)
		return -ENOMEM;
	pct = strchr(copy, '%');
	if (pct) {
		char *end;

		*pct = '\0';
		throttle = strtoul(pct + 1, &end, 10);
		if (end == pct + 1 || *end || throttle > UINT32_MAX)
			return -ESLURM_INVALID_ARRAY;
	}
	for (item = strtok_r(copy, ",", &save); item && r == 0; item = strtok_r(NULL, ",", &save))
		r = parse_item(item, max_size, ids, &n);
	if (r < 0 || n == 0)
		return -ESLURM_INVALID_ARRAY;
	qsort(ids, n, sizeof(*ids), u32_cmp);
	for (uint32_t i = 0; i < n; i++) /* unique */
		if (i == 0 || ids[i] != ids[k - 1])
			ids[k++] = ids[i];
	*ret_ids = TAKE_PTR(ids);
	*ret_n = k;
	*ret_throttle = (uint32_t)throttle;
	return 0;
}

char *job_array_ranges(const uint32_t *ids, uint32_t n)
{
	size_t cap = 16 + (size_t)n * 24, len = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = '\0';
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;

		while (j + 1 < n && ids[j + 1] == ids[j] + 1)
			j++;
		if (j > i)
			len += (size_t)snprintf(s + len, cap - len, "%s%u-%u", len ? "," : "", ids[i],
						ids[j]);
		else
			len += (size_t)snprintf(s + len, cap - len, "%s%u", len ? "," : "", ids[i]);
		i = j + 1;
	}
	return s;
}

bool job_is_array_meta(const struct job *job)
{
	return job->array_pending_count > 0;
}

uint32_t job_array_running(const struct ctld *c, const struct job *meta)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < c->job_count; i++) {
		const struct job *j = c->jobs[i];

		if (j->array_job_id == meta->job_id && j->array_task_id != NO_VAL && job_is_running(j))
			n++;
	}
	return n;
}

/* Deep copy of a request: pack and unpack it. */
static struct job_desc *desc_dup(const struct job_desc *d)
{
	const struct msg_type *t = msg_lookup(REQUEST_SUBMIT_BATCH_JOB);
	struct pack_buf b = { 0 };
	void *copy = NULL;

	t->pack(d, &b, PROTOCOL_VERSION);
	if (b.err == 0 && msg_unpack_body(t->type, b.data, b.len, PROTOCOL_VERSION, &copy) < 0)
		copy = NULL;
	pack_buf_done(&b);
	return copy;
}

static struct job *job_dup_task(const struct job *meta, uint32_t id)
{
	struct job *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	*t = *meta;
	t->job_id = id;
	t->array_pending = NULL;
	t->array_pending_count = 0;
	t->desc = desc_dup(meta->desc);
	t->is_str_shared = false; /* its own copies until job_table_add */
	t->user_name = strdup(meta->user_name);
	t->gids = calloc(meta->ngids + 1, sizeof(*t->gids));
	t->partition = strdup(meta->partition);
	t->state_desc = NULL;
	t->alloc = (struct sel_result){ 0 };
	t->nodes = t->batch_host = NULL;
	/* the meta record's own: its dependency (met once a task starts),
	 * backfill's estimate, steps, kept record */
	t->depend = NULL;
	t->sched_start = 0;
	t->sched_after = 0;
	t->sched_nodes = NULL;
	t->steps = NULL;
	t->step_count = 0;
	t->info_kept = NULL;
	t->batch_usage = NULL;
	if (t->script_blob) /* shared with the meta record */
		blob_ref(t->script_blob);
	if (t->env_blob)
		blob_ref(t->env_blob);
	if (!t->desc || !t->user_name || !t->gids || !t->partition)
		return job_free(t);
	memcpy(t->gids, meta->gids, meta->ngids * sizeof(*t->gids));
	return t;
}

struct job *job_array_split(struct ctld *c, struct job *meta)
{
	uint32_t task = meta->array_pending[0];
	struct job *t;

	if (meta->array_pending_count == 1) {
		free(meta->array_pending);
		meta->array_pending = NULL;
		meta->array_pending_count = 0;
		meta->array_task_id = task; /* the last task keeps the array's id */
		return meta;
	}
	t = job_dup_task(meta, c->next_job_id);
	if (!t || job_table_add(c, t) < 0)
		return NULL;
	c->next_job_id++;
	t->array_task_id = task;
	job_array_drop_pending(meta, task);
	return t;
}

void job_array_drop_pending(struct job *meta, uint32_t task)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < meta->array_pending_count; i++)
		if (meta->array_pending[i] != task)
			meta->array_pending[k++] = meta->array_pending[i];
	meta->array_pending_count = k;
}

struct job *job_array_find_task(struct ctld *c, uint32_t array_id, uint32_t task,
				bool *ret_is_pending)
{
	struct job *meta = job_find(c, array_id);

	*ret_is_pending = false;
	for (uint32_t i = 0; i < c->job_count; i++) {
		struct job *j = c->jobs[i];

		if (j->array_job_id == array_id && j->array_task_id == task)
			return j;
	}
	if (meta && meta->array_job_id == array_id) {
		for (uint32_t i = 0; i < meta->array_pending_count; i++)
			if (meta->array_pending[i] == task) {
				*ret_is_pending = true;
				return meta;
			}
	}
	return NULL;
}
