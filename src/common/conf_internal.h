/* conf_internal.h - shared by the conf*.c files only; not for other callers.
 *
 * conf_read.c turns a file into logical lines of Key=Value tokens (comments,
 * continuation, quotes and Include handled there). conf_value.c, the leaf,
 * parses values by type and keeps the raw Key=Value store; conf_keys.c holds
 * the slurm.conf key table (R23) above it; conf_node.c and
 * conf_part.c the NodeName= and PartitionName= lines; conf_gres.c
 * gres.conf. conf.c ties them together into conf_load().
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"

/* ---- reader (conf_read.c) ---- */

struct conf_tok {
	char *key; /* as written; points into the reader's line buffer */
	char *val; /* quotes removed; "" when written Key= */
};

struct conf_where {
	const char *file; /* path as opened (Include targets resolved) */
	unsigned line;	  /* first physical line of the logical line */
};

/* Called once per non-empty logical line; n >= 1. Returning < 0 stops the
 * read and is passed back (err already filled). Tokens are valid only
 * during the call. */
typedef int conf_line_fn(void *arg, const struct conf_where *at, struct conf_tok *toks, size_t n,
			 struct sl_error *err);

/* Read path, following "Include file" lines (relative to the including
 * file's directory, at most SL_CONF_INCLUDE_DEPTH deep). Returns the number
 * of physical lines in path itself, or a negative code with err filled. */
int conf_read_file(const char *path, conf_line_fn *fn, void *arg, struct sl_error *err);

/* ---- typed values and key tables (conf_value.c) ---- */

enum conf_type {
	CONF_RAW,  /* accepted, kept in kv[] only, logged at debug */
	CONF_STR,  /* char *, owned; "" stores the default (or NULL) */
	CONF_BOOL, /* bool: YES/NO, TRUE/FALSE, 1/0 */
	CONF_U16,  /* decimal, within [lo, hi] */
	CONF_U32,
	CONF_U64,
	CONF_U16_INF, /* as CONF_U16, and UNLIMITED/INFINITE give INFINITE16 */
	CONF_U32_INF, /* as CONF_U32, and UNLIMITED/INFINITE give INFINITE */
	CONF_MEM,     /* uint64_t MB via mem_str2mb(); UNLIMITED gives 0 */
	CONF_TIME,    /* uint32_t minutes via time_str2mins() */
	CONF_LOG,     /* int, enum log_level via log_level_from_string() */
	CONF_PSTATE,  /* uint16_t, enum part_state: UP, DOWN, DRAIN, INACTIVE */
	CONF_FN,      /* the row's fn does everything */
};

struct conf_key;
typedef int conf_key_fn(void *base, const struct conf_key *k, const char *val,
			const struct conf_where *at, struct sl_error *err);

struct conf_key {
	const char *name; /* canonical spelling; matched case-insensitively */
	enum conf_type type;
	size_t off;	 /* offset of the field in the table's struct */
	uint64_t lo, hi; /* bounds for the integer types */
	const char *def; /* default, parsed like input; NULL = none */
	conf_key_fn *fn; /* CONF_FN only */
};

/* clang-format off */
#define CONF_KEY(n, t, s, f, lo, hi, d) { n, t, offsetof(struct s, f), lo, hi, d, NULL }
#define CONF_KEY_FN(n, fn) { n, CONF_FN, 0, 0, 0, NULL, fn }
#define CONF_KEY_RAW(n) { n, CONF_RAW, 0, 0, 0, NULL, NULL }
/* clang-format on */

const struct conf_key *conf_key_find(const struct conf_key *tab, size_t n, const char *name);

/* Parse val by k->type into base + k->off. Errors read
 * "file:line: Key=val: why"; base is unchanged on failure. */
int conf_value_set(void *base, const struct conf_key *k, const char *val,
		   const struct conf_where *at, struct sl_error *err);

/* "file:line: Key=val: why" in err; returns -EINVAL. */
int conf_bad_value(const struct conf_key *k, const char *val, const struct conf_where *at,
		   const char *why, struct sl_error *err);

/* Plain decimal, no sign, no space, no suffix: 0, or -EINVAL. */
int conf_parse_u64(const char *s, uint64_t *ret);

/* UNLIMITED or INFINITE, in any case. */
bool conf_is_unlimited(const char *s);

/* Record key=value in c->kv (last value wins, first-seen order). */
int conf_kv_set(struct sl_conf *c, const char *key, const char *value);

/* ---- the slurm.conf key table (conf_keys.c) ---- */

/* Store every slurm.conf default in c (before the file is read). */
int conf_keys_defaults(struct sl_conf *c, struct sl_error *err);

/* One top-level Key=Value: table lookup, typed store, kv[] record. */
int conf_keys_set(struct sl_conf *c, const struct conf_tok *t, const struct conf_where *at,
		  struct sl_error *err);

/* Exposed for unit testing only: the slurm.conf key table. */
extern const struct conf_key conf_keys[];
extern const size_t conf_keys_count;

/* ---- building one sl_conf (conf.c, conf_node.c, conf_part.c) ---- */

struct node_tmpl {		      /* NodeName=DEFAULT, or one line before expansion */
	char *addr, *hostname, *port; /* expressions; expanded with the names */
	uint16_t cpus, boards, sockets, sockets_per_board, cores, threads; /* 0: unset */
	uint64_t real_memory;
	uint32_t tmp_disk, weight;
	char *features, *gres, *state, *reason;
};

struct conf_build {
	struct sl_conf *c;
	struct node_tmpl node_def;		/* NodeName=DEFAULT so far */
	struct conf_part part_def;		/* PartitionName=DEFAULT so far */
	struct conf_where *part_at;		/* where each partition was written; file owned */
	uint32_t *node_slots;			/* open-addressing index: node index + 1, 0 empty */
	size_t node_slot_cap;			/* power of two */
	size_t node_cap, part_cap, part_at_cap; /* allocated lengths */
	bool is_client; /* conf_load_client: node and partition lines skipped */
};

int conf_node_build_init(struct conf_build *b);
void conf_node_build_done(struct conf_build *b);
int conf_node_line(struct conf_build *b, const struct conf_where *at, const struct conf_tok *t,
		   size_t n, struct sl_error *err);
long conf_node_index(const struct conf_build *b, const char *name); /* -1 if absent */
void conf_node_done(struct conf_node *n);

int conf_part_build_init(struct conf_build *b);
void conf_part_build_done(struct conf_build *b);
int conf_part_line(struct conf_build *b, const struct conf_where *at, const struct conf_tok *t,
		   size_t n, struct sl_error *err);
/* After the whole file: expand Nodes= (ALL too) and check every name. */
int conf_part_finish(struct conf_build *b, struct sl_error *err);
void conf_part_done(struct conf_part *p);

/* Shared small helpers (conf_value.c). */
/* Make room for need elements (new ones zeroed); returns the array, or
 * NULL on ENOMEM with arr still valid and *cap unchanged. */
void *conf_grow(void *arr, size_t *cap, size_t need, size_t elem);
int conf_strset(char **dst, const char *val); /* strdup, "" -> NULL; -ENOMEM */
