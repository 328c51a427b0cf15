/* resv_mask.h - what reservations do to one placement (data only: no
 * calls into the rest of the controller, so every placement path can use
 * it). */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct ctld;
struct job;

struct resv_mask_why {
	uint32_t excluded;   /* nodes kept from the job by reservations */
	bool is_maint_ahead; /* one of them is a MAINT reservation not started yet */
};

/* The job's own reservation (desc->reservation), NULL when none or gone. */
struct resv *resv_mask_job_resv(const struct ctld *c, const struct job *job);
/* Nodes the job may not use at now: for a job of reservation r, every
 * node outside r; for any other job, the nodes of each reservation whose
 * window meets [now, now + its time limit) (any future one for a job
 * without a limit). A job of a FLEX reservation is the other kind, but
 * its own reservation's nodes are open to it at any time. Set in *exc (allocated, node_count + 1 flags, when it
 * is NULL and a node is set). 0 or -ENOMEM; *why (may be NULL) says how
 * many nodes were set and whether a MAINT reservation ahead was one. */
int resv_mask_exclude(const struct ctld *c, const struct job *job, time_t now, bool **exc,
		      struct resv_mask_why *why);
