/* assoc_edit_int.h - what assoc_edit.c and assoc_opts.c share: a
 * request's options as parsed and checked. Internal to those two files.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/msg_assoc.h"

struct assoc;
struct assoc_table;

enum key {
	K_NAME,
	K_ACCOUNT,
	K_USER,
	K_CLUSTER,
	K_PARTITION,
	K_PARENT,
	K_DESC,
	K_ORG,
	K_DEFACCT,
	K_DEFQOS,
	K_SHARES,
	K_GRPJOBS,
	K_GRPSUBMIT,
	K_MAXJOBS,
	K_MAXSUBMIT,
	K_MAXWALL,
	K_GRPTRES,
	K_MAXTRESPJ,
	K_QOS,
	K_PRIORITY,
	K_USAGEFACTOR,
	K_PREEMPT,
	K_PREEMPTMODE,
	K_GRACE,
	K_MAXJOBSPU,
	K_MAXSUBMITPU,
	K_ADMIN,
	K_N
};

extern const char *const key_names[K_N];

struct opts {
	char *buf;
	const char *v[K_N];
	char op[K_N]; /* '=', '+' or '-' */
};

/* Checked values of the set options. */
struct vals {
	bool has[K_N];
	uint32_t u[K_N];
	uint64_t tres[2][ASSOC_TRES_N]; /* 0 GrpTRES, 1 MaxTRESPerJob */
	bool has_tres[2][ASSOC_TRES_N];
	double usage_factor;
	uint32_t qos_ids[64];
	uint32_t qos_count;
	struct assoc *parent;
};

struct edit {
	struct assoc_table *t;
	const char *cluster;
	const struct assoc_mgr_req *req;
	struct opts where, set;
	struct vals v;
	FILE *out, *err;
};

/* "Key=Value" lines into o (o->buf owns them); an unknown key is refused. */
int parse_lines(const char *text, struct opts *o, FILE *err);
/* A name Slurm's database would take: letters, digits, '_', '-', '.'. */
bool name_ok(const char *s);
typedef int name_fn(struct edit *e, const char *name, void *arg);
/* fn for each name of a comma list (lowercased when lower); a bad name
 * is refused. */
int each_name(struct edit *e, const char *list, bool lower, name_fn *fn, void *arg);
bool in_list(const char *list, const char *name); /* case-insensitive */
/* Check every set option into e->v (Slurm's refusal texts on e->err). */
int check_set(struct edit *e);
