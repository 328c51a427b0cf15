/* resv_mask.c - see resv_mask.h. Purpose: reservations as node masks for
 * select.c, computed from the table alone (no lookups that could call up
 * into the controller), at every placement: a few reservations against
 * the pass's node loop. */
#include "resv_mask.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macros.h"
#include "common/msg.h"
#include "ctld.h"
#include "job.h"
#include "resv.h"

struct resv *resv_mask_job_resv(const struct ctld *c, const struct job *job)
{
	const char *name = job->desc ? job->desc->reservation : NULL;

	for (uint32_t i = 0; name && *name && i < c->resv_count; i++)
		if (!strcmp(c->resvs[i].name, name))
			return &c->resvs[i];
	return NULL;
}

static int set(const struct ctld *c, bool **exc, uint32_t i, struct resv_mask_why *why)
{
	if (!*exc && !(*exc = calloc(c->node_count + 1, sizeof(bool))))
		return -ENOMEM;
	if (!(*exc)[i] && why)
		why->excluded++;
	(*exc)[i] = true;
	return 0;
}

int resv_mask_exclude(const struct ctld *c, const struct job *job, time_t now, bool **exc,
		      struct resv_mask_why *why)
{
	const struct resv *own = resv_mask_job_resv(c, job);
	time_t until = job->time_limit == INFINITE || job->time_limit == NO_VAL
			   ? (time_t)INT64_MAX
			   : now + (time_t)job->time_limit * 60;

	if (why)
		*why = (struct resv_mask_why){0};
	if (own && !(own->flags & RESV_FLAG_FLEX)) { /* only its nodes */
		bool *in = calloc(c->node_count + 1, sizeof(bool));

		if (!in)
			return -ENOMEM;
		for (uint32_t k = 0; k < own->node_count; k++)
			in[own->node_idx[k]] = true;
		for (uint32_t i = 0; i < c->node_count; i++)
			if (!in[i] && set(c, exc, i, NULL) < 0) {
				free(in);
				return -ENOMEM;
			}
		free(in);
		return 0;
	}
	for (uint32_t r = 0; r < c->resv_count; r++) {
		const struct resv *v = &c->resvs[r];

		if (v == own || v->end <= now || v->start >= until)
			continue; /* FLEX: its own nodes at any time; or the windows do not meet */
		for (uint32_t k = 0; k < v->node_count; k++)
			if (set(c, exc, v->node_idx[k], why) < 0)
				return -ENOMEM;
		if (why && (v->flags & RESV_FLAG_MAINT) && v->start > now)
			why->is_maint_ahead = true;
	}
	return 0;
}
