/* data_out.h - one emitter for --json, --yaml and slurmrestd's bodies.
 *
 * Serializers call the same functions whatever the output is: objects,
 * arrays and typed scalars, each with its key (NULL inside an array and at
 * the top). The JSON backend writes text straight into a buffer, laid out
 * as Slurm 22.05 lays it out (two-space indent, "\/" for '/'); the YAML
 * backend feeds libyaml's emitter the same events. Nothing builds a tree
 * first: a jansson tree of 5,000 jobs took over a second to build and dump
 * here, this writes the same document in a few milliseconds.
 *
 * A record type is a table of fields (struct dfield): its serializer is
 * dout_record() over the table, and its schema for the OpenAPI spec comes
 * from the same table (dout_schema), so the two cannot drift apart.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum dout_kind {
	DOUT_JSON,
	DOUT_YAML,
};

struct dout;

struct dout *dout_new(enum dout_kind kind);
/* NULL-safe. */
void dout_free(struct dout *d);
/* The text so far; after the top-level value closes it is the document
 * (ending in a newline). Owned by d. */
const char *dout_text(struct dout *d, size_t *ret_len);
/* Takes the text; d keeps nothing (free it after). */
char *dout_steal(struct dout *d, size_t *ret_len);
/* Stream the document to fd (a command's stdout) instead of keeping it:
 * the text goes out in chunks of 64 KiB between values, so a document of
 * 16 MB never sits in memory. dout_text() then holds only what has not
 * gone out yet; dout_flush() writes that. A write error shows in
 * dout_error(). */
void dout_sink_fd(struct dout *d, int fd);
/* Write what is left to the sink (no-op without one). Returns
 * dout_error(d). */
int dout_flush(struct dout *d);
/* 0, or -1 when the emitter failed (YAML emitter error, no memory, a
 * write to the sink). */
int dout_error(const struct dout *d);

void dout_obj(struct dout *d, const char *key);
void dout_arr(struct dout *d, const char *key);
/* Closes the innermost object or array. */
void dout_end(struct dout *d);

/* NULL v writes "" (Slurm prints unset strings as empty strings). */
void dout_str(struct dout *d, const char *key, const char *v);
void dout_null(struct dout *d, const char *key);
void dout_int(struct dout *d, const char *key, int64_t v);
void dout_uint(struct dout *d, const char *key, uint64_t v);
void dout_bool(struct dout *d, const char *key, bool v);
/* Always with a fraction ("1.0"); NaN and infinities write null. */
void dout_num(struct dout *d, const char *key, double v);
/* A comma list "a,b" as an array of strings; NULL or "" is []. */
void dout_str_list(struct dout *d, const char *key, const char *csv);

/* The "meta" and "errors" members that open every document, as
 * Slurm 22.05: plugin type/name, Slurm's version, and the command line
 * (argv; argc 0 leaves it out). db picks the accounting plugin's names. */
void dout_meta(struct dout *d, bool db, int argc, char **argv);
/* The "meta" member alone (slurmrestd writes its own "errors"). */
void dout_meta_block(struct dout *d, bool db, int argc, char **argv);

/* ---- table-driven records ---- */

enum dfield_type {
	DF_STR,    /* char * at off */
	DF_U16,    /* uint16_t */
	DF_U32,    /* uint32_t */
	DF_U64,    /* uint64_t */
	DF_U32_NV, /* uint32_t, NO_VAL / INFINITE / NO_VAL-1 as null */
	DF_U16_NV, /* uint16_t, NO_VAL16 / INFINITE16 as null */
	DF_TIME,   /* time_t, seconds */
	DF_BOOL16, /* uint16_t != 0 */
	DF_EMPTY,  /* constant "" */
	DF_NULL,   /* constant null */
	DF_ZERO,   /* constant 0 */
	DF_FALSE,  /* constant false */
	DF_NOARR,  /* constant [] */
	DF_OBJ,    /* nested object: sub over the same record */
	DF_FN,     /* fn writes the member */
	DF_U32_Z,  /* uint32_t, NO_VAL / INFINITE as 0 */
	DF_U16_Z,  /* uint16_t, NO_VAL16 / INFINITE16 as 0 */
	DF_U64_NV, /* uint64_t, NO_VAL64 / INFINITE64 as null */
	DF_STR_NULL, /* char * at off, NULL or "" as null */
};

/* The schema of a DF_FN member. */
enum dschema {
	DS_STRING,
	DS_INTEGER,
	DS_INTEGER_NULL, /* integer or null */
	DS_NUMBER,
	DS_BOOLEAN,
	DS_STRINGS,   /* array of strings */
	DS_OBJECT,    /* an object; sub describes it when set */
	DS_OBJECTS,   /* array of objects; sub describes the items when set */
	DS_ANY,
	DS_STRING_NULL, /* string or null */
};

struct dfield_table;

struct dfield {
	const char *name;
	uint8_t type;   /* enum dfield_type */
	uint8_t schema; /* enum dschema, DF_FN only */
	uint16_t off;   /* offsetof() in the record */
	void (*fn)(struct dout *d, const char *key, const void *rec);
	const struct dfield_table *sub; /* DF_OBJ; a DF_FN's schema */
};

struct dfield_table {
	const char *name; /* the schema's name, e.g. "v0.0.38_job_response_properties" */
	const struct dfield *fields;
	size_t count;
};

#define DFIELD_TABLE(sym, schema_name, arr) \
	const struct dfield_table sym = { schema_name, arr, sizeof(arr) / sizeof(arr[0]) }

/* One record as an object (key NULL inside an array). JSON records go
 * through a template compiled once per table and depth (data_out.c). */
void dout_record(struct dout *d, const char *key, const struct dfield_table *t,
		 const void *rec);
/* on false: records written member by member, without templates (for
 * tests comparing the two; the text is the same). */
void dout_set_templates(struct dout *d, bool on);
/* The JSON Schema of t's records ({"type":"object","properties":{...}});
 * sub-tables are written inline. */
void dout_schema(struct dout *d, const char *key, const struct dfield_table *t);

/* ---- streaming (a command's big document) ---- */

/* dout_sink_fd() to f's descriptor (f is flushed first); NULL stops it.
 * dout_flush() writes what is held. */
void dout_set_sink(struct dout *d, FILE *f);
