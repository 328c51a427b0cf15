/* data_out.c - the JSON text and libyaml backends of data_out.h. */
#include "common/data_out.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#include "common/macros.h"

#define DOUT_MAX_DEPTH 64
/* With a sink, the text goes out whenever this much has gathered. */
#define DOUT_CHUNK (64u << 10)

struct dout {
	enum dout_kind kind;
	char *buf;
	size_t len, cap;
	int err;
	int depth;
	uint32_t count[DOUT_MAX_DEPTH]; /* members written at each level */
	char close[DOUT_MAX_DEPTH];     /* '}' or ']' */
	yaml_emitter_t em;
	bool em_open;
	bool has_sink; /* dout_sink_fd(): text goes to sink_fd in chunks */
	int sink_fd;
	bool no_tmpl;	     /* dout_set_templates(d, false) */
	struct jtmpl *tmpls; /* JSON records compiled so far (jtmpl_get) */
};

/* ---- the buffer ---- */

static bool reserve(struct dout *d, size_t more)
{
	if (d->err)
		return false;
	if (d->len + more + 1 <= d->cap)
		return true;
	size_t cap = d->cap ? d->cap : 4096;
	while (cap < d->len + more + 1)
		cap *= 2;
	char *nb = realloc(d->buf, cap);
	if (!nb) {
		d->err = -1;
		return false;
	}
	d->buf = nb;
	d->cap = cap;
	return true;
}

static void put(struct dout *d, const char *s, size_t n)
{
	if (!reserve(d, n))
		return;
	memcpy(d->buf + d->len, s, n);
	d->len += n; /* NUL-terminated by dout_text and dout_steal */
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Write the gathered text to the sink; d->err on a write error. (A
 * writer thread overlapping this with the formatting was tried: slower,
 * the chunks cross to the other core and it competes with slurmctld.) */
static void drain(struct dout *d)
{
	if (!d->err && write_all(d->sink_fd, d->buf, d->len) < 0)
		d->err = -1;
	d->len = 0;
}

/* Between two values: out to the sink once a chunk has gathered. */
static void maybe_drain(struct dout *d)
{
	if (d->has_sink && d->len >= DOUT_CHUNK)
		drain(d);
}

static int yaml_write(void *data, unsigned char *buffer, size_t size)
{
	struct dout *d = data;
	put(d, (const char *)buffer, size);
	maybe_drain(d);
	return d->err ? 0 : 1;
}

/* ---- JSON text ---- */

static const char spaces[] = "                                                                "
			     "                                                                ";

static void json_indent(struct dout *d, int depth)
{
	size_t n = (size_t)depth * 2;
	while (n > 0) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		put(d, spaces, k);
		n -= k;
	}
}

/* The bytes of a valid UTF-8 sequence starting at s (1-4), or 0. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	unsigned c = s[0];
	size_t n;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, min = 0x10000;
	else
		return 0;
	if (n > left)
		return 0;
	unsigned cp = c & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Bytes json_string does not copy as they are: controls, '"', '\\',
 * '/' (Slurm writes "\/") and all of UTF-8 (checked, maybe replaced). */
static const bool json_special[256] = {
    [0x00 ... 0x1f] = true, ['"'] = true, ['\\'] = true, ['/'] = true, [0x80 ... 0xff] = true,
};

static void json_string(struct dout *d, const char *v)
{
	const unsigned char *s = (const unsigned char *)v;
	size_t n = 0;

	while (s[n] && !json_special[s[n]])
		n++;
	if (!s[n]) { /* nothing to escape: most strings */
		if (!reserve(d, n + 2))
			return;
		d->buf[d->len++] = '"';
		memcpy(d->buf + d->len, s, n);
		d->len += n;
		d->buf[d->len++] = '"';
		return;
	}
	n += strlen(v + n);
	if (!reserve(d, n + 2))
		return;
	d->buf[d->len++] = '"';
	size_t run = 0; /* bytes copied as they are, not yet flushed */
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		if (c >= 0x20 && c != '"' && c != '\\' && c != '/' && c < 0x80) {
			run++, i++;
			continue;
		}
		size_t u = c >= 0x80 ? utf8_len(s + i, n - i) : 0;
		if (u) {
			run += u, i += u;
			continue;
		}
		put(d, (const char *)s + i - run, run);
		run = 0;
		char esc[8];
		switch (c) {
		case '"': put(d, "\\\"", 2); break;
		case '\\': put(d, "\\\\", 2); break;
		case '/': put(d, "\\/", 2); break;
		case '\n': put(d, "\\n", 2); break;
		case '\t': put(d, "\\t", 2); break;
		case '\r': put(d, "\\r", 2); break;
		case '\b': put(d, "\\b", 2); break;
		case '\f': put(d, "\\f", 2); break;
		default:
			if (c >= 0x80) { /* not UTF-8: the replacement character */
				put(d, "\\ufffd", 6);
			} else {
				snprintf(esc, sizeof(esc), "\\u%04x", c);
				put(d, esc, 6);
			}
		}
		i++;
	}
	put(d, (const char *)s + n - run, run);
	put(d, "\"", 1);
}

/* Before a member: the separator, the indent and "key": . */
static void json_member(struct dout *d, const char *key)
{
	size_t ind = d->depth > 0 ? (size_t)d->depth * 2 : 0, klen = key ? strlen(key) : 0;
	char *p;

	maybe_drain(d);
	/* one reservation, then the bytes in place: this runs for every
	 * member of every record (most of --json's time) */
	if (ind >= sizeof(spaces) || !reserve(d, 2 + ind + klen + 4)) {
		d->err = -1;
		return;
	}
	p = d->buf + d->len;
	if (d->depth > 0) {
		if (d->count[d->depth - 1]++)
			*p++ = ',';
		*p++ = '\n';
		memcpy(p, spaces, ind);
		p += ind;
	}
	if (key) {
		*p++ = '"';
		memcpy(p, key, klen);
		p += klen;
		memcpy(p, "\": ", 3);
		p += 3;
	}
	d->len = (size_t)(p - d->buf);
}

static size_t fmt_u64(char *out, uint64_t v)
{
	char tmp[24];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

static size_t fmt_i64(char *out, int64_t v)
{
	if (v < 0) {
		out[0] = '-';
		return 1 + fmt_u64(out + 1, (uint64_t)0 - (uint64_t)v);
	}
	return fmt_u64(out, (uint64_t)v);
}

static size_t fmt_num(char *out, size_t cap, double v)
{
	int n = snprintf(out, cap, "%.15g", v);
	if (n < 0 || (size_t)n >= cap - 3)
		return 0;
	if (!strpbrk(out, ".eE")) {
		memcpy(out + n, ".0", 3);
		n += 2;
	}
	return (size_t)n;
}

/* ---- YAML events ---- */

static void yaml_emit(struct dout *d, yaml_event_t *ev)
{
	if (d->err)
		return;
	if (!yaml_emitter_emit(&d->em, ev))
		d->err = -1;
}

static void yaml_scalar(struct dout *d, const char *v, size_t n, bool quote)
{
	yaml_event_t ev;
	yaml_scalar_style_t style = quote ? YAML_SINGLE_QUOTED_SCALAR_STYLE
					  : YAML_PLAIN_SCALAR_STYLE;
	if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)v, (int)n, 1, 1,
					  style)) {
		d->err = -1;
		return;
	}
	yaml_emit(d, &ev);
}

/* Whether a plain scalar v would read back as something else than a
 * string (YAML 1.1 as PyYAML and libyaml users resolve it). */
static bool yaml_needs_quotes(const char *v)
{
	static const char *const words[] = { "y", "n", "yes", "no", "true", "false", "on",
					     "off", "null", "~" };
	unsigned char c = (unsigned char)v[0];
	if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '/' || c == '_'))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcasecmp(v, words[i]))
			return true;
	return false;
}

static void yaml_key(struct dout *d, const char *key)
{
	if (key)
		yaml_scalar(d, key, strlen(key), false);
}

static void yaml_open(struct dout *d)
{
	yaml_event_t ev;
	if (!yaml_emitter_initialize(&d->em)) {
		d->err = -1;
		return;
	}
	d->em_open = true;
	yaml_emitter_set_output(&d->em, yaml_write, d);
	yaml_emitter_set_unicode(&d->em, 1);
	yaml_emitter_set_width(&d->em, -1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	yaml_emit(d, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 0);
	yaml_emit(d, &ev);
}

static void yaml_close(struct dout *d)
{
	yaml_event_t ev;
	yaml_document_end_event_initialize(&ev, 0);
	yaml_emit(d, &ev);
	yaml_stream_end_event_initialize(&ev);
	yaml_emit(d, &ev);
	if (!d->err && !yaml_emitter_flush(&d->em))
		d->err = -1;
}

/* ---- the interface ---- */

struct dout *dout_new(enum dout_kind kind)
{
	struct dout *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->kind = kind;
	if (kind == DOUT_YAML)
		yaml_open(d);
	return d;
}

static void jtmpl_free_all(struct jtmpl *t);

void dout_free(struct dout *d)
{
	if (!d)
		return;
	jtmpl_free_all(d->tmpls);
	if (d->em_open)
		yaml_emitter_delete(&d->em);
	free(d->buf);
	free(d);
}

void dout_sink_fd(struct dout *d, int fd)
{
	d->has_sink = true;
	d->sink_fd = fd;
	reserve(d, DOUT_CHUNK + 4096);
}

int dout_flush(struct dout *d)
{
	if (d->has_sink)
		drain(d);
	return d->err;
}

const char *dout_text(struct dout *d, size_t *ret_len)
{
	if (ret_len)
		*ret_len = d->len;
	if (!d->buf)
		return "";
	d->buf[d->len] = '\0'; /* reserve() keeps a byte for it */
	return d->buf;
}

char *dout_steal(struct dout *d, size_t *ret_len)
{
	char *s = d->buf ? d->buf : strdup("");

	if (d->buf)
		d->buf[d->len] = '\0';
	if (ret_len)
		*ret_len = d->buf ? d->len : 0;
	d->buf = NULL;
	d->len = d->cap = 0;
	return s;
}

int dout_error(const struct dout *d)
{
	return d->err;
}

static void open_container(struct dout *d, const char *key, bool array)
{
	if (d->depth >= DOUT_MAX_DEPTH) {
		d->err = -1;
		return;
	}
	if (d->kind == DOUT_JSON) {
		json_member(d, key);
		put(d, array ? "[" : "{", 1);
	} else {
		yaml_event_t ev;
		yaml_key(d, key);
		if (array)
			yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
							     YAML_BLOCK_SEQUENCE_STYLE);
		else
			yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
							    YAML_BLOCK_MAPPING_STYLE);
		yaml_emit(d, &ev);
	}
	d->close[d->depth] = array ? ']' : '}';
	d->count[d->depth] = 0;
	d->depth++;
}

void dout_obj(struct dout *d, const char *key)
{
	open_container(d, key, false);
}

void dout_arr(struct dout *d, const char *key)
{
	open_container(d, key, true);
}

void dout_end(struct dout *d)
{
	if (d->depth <= 0) {
		d->err = -1;
		return;
	}
	d->depth--;
	if (d->kind == DOUT_JSON) {
		put(d, "\n", 1);
		json_indent(d, d->depth);
		put(d, &d->close[d->depth], 1);
		if (d->depth == 0)
			put(d, "\n", 1);
		return;
	}
	yaml_event_t ev;
	if (d->close[d->depth] == ']')
		yaml_sequence_end_event_initialize(&ev);
	else
		yaml_mapping_end_event_initialize(&ev);
	yaml_emit(d, &ev);
	if (d->depth == 0)
		yaml_close(d);
}

/* A scalar written as it is (numbers, true, null). */
static void raw_scalar(struct dout *d, const char *key, const char *v, size_t n)
{
	if (d->kind == DOUT_JSON) {
		json_member(d, key);
		put(d, v, n);
	} else {
		yaml_key(d, key);
		yaml_scalar(d, v, n, false);
	}
}

void dout_str(struct dout *d, const char *key, const char *v)
{
	if (!v)
		v = "";
	if (d->kind == DOUT_JSON) {
		json_member(d, key);
		json_string(d, v);
	} else {
		yaml_key(d, key);
		yaml_scalar(d, v, strlen(v), yaml_needs_quotes(v));
	}
}

void dout_null(struct dout *d, const char *key)
{
	raw_scalar(d, key, "null", 4);
}

void dout_int(struct dout *d, const char *key, int64_t v)
{
	char b[24];
	raw_scalar(d, key, b, fmt_i64(b, v));
}

void dout_uint(struct dout *d, const char *key, uint64_t v)
{
	char b[24];
	raw_scalar(d, key, b, fmt_u64(b, v));
}

void dout_bool(struct dout *d, const char *key, bool v)
{
	raw_scalar(d, key, v ? "true" : "false", v ? 4 : 5);
}

void dout_num(struct dout *d, const char *key, double v)
{
	char b[40];
	size_t n = isfinite(v) ? fmt_num(b, sizeof(b), v) : 0;
	if (!n)
		dout_null(d, key);
	else
		raw_scalar(d, key, b, n);
}

void dout_str_list(struct dout *d, const char *key, const char *csv)
{
	dout_arr(d, key);
	for (const char *p = csv; p && *p;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char item[256];
		if (n > 0) {
			if (n >= sizeof(item))
				n = sizeof(item) - 1;
			memcpy(item, p, n);
			item[n] = '\0';
			dout_str(d, NULL, item);
		}
		p = e ? e + 1 : p + strlen(p);
	}
	dout_end(d);
}

void dout_meta(struct dout *d, bool db, int argc, char **argv)
{
	dout_meta_block(d, db, argc, argv);
	dout_arr(d, "errors");
	dout_end(d);
}

void dout_meta_block(struct dout *d, bool db, int argc, char **argv)
{
	dout_obj(d, "meta");
	dout_obj(d, "plugin");
	dout_str(d, "type", db ? "openapi/dbv0.0.38" : "openapi/v0.0.38");
	dout_str(d, "name", db ? "Slurm OpenAPI DB v0.0.38" : "Slurm OpenAPI v0.0.38");
	dout_end(d);
	dout_obj(d, "Slurm");
	dout_obj(d, "version");
	dout_uint(d, "major", 22);
	dout_uint(d, "micro", 8);
	dout_uint(d, "minor", 5);
	dout_end(d);
	dout_str(d, "release", SL_VERSION);
	dout_end(d);
	if (argc > 0) {
		dout_arr(d, "command");
		for (int i = 0; i < argc; i++)
			dout_str(d, NULL, argv[i]);
		dout_end(d);
	}
	dout_end(d);
}

/* ---- tables ---- */

/* What a value member (is_value_type) holds, as its type reads it: the
 * one place NO_VAL and INFINITE become null or 0. */
struct fval {
	enum { FV_NULL, FV_UINT, FV_INT, FV_BOOL, FV_STR } kind;
	uint64_t u;
	int64_t i;
	const char *s;
};

static bool is_value_type(uint8_t type);

static struct fval field_value(const struct dfield *f, const void *rec)
{
	const void *p = (const char *)rec + f->off;
	const char *str;
	uint64_t u;

	switch (f->type) {
	case DF_STR:
		str = *(char *const *)p;
		return (struct fval){.kind = FV_STR, .s = str ? str : ""};
	case DF_STR_NULL:
		str = *(char *const *)p;
		return str && *str ? (struct fval){.kind = FV_STR, .s = str}
				   : (struct fval){.kind = FV_NULL};
	case DF_BOOL16: return (struct fval){.kind = FV_BOOL, .u = *(const uint16_t *)p != 0};
	case DF_TIME: return (struct fval){.kind = FV_INT, .i = (int64_t) * (const time_t *)p};
	case DF_U16: u = *(const uint16_t *)p; break;
	case DF_U32: u = *(const uint32_t *)p; break;
	case DF_U64: u = *(const uint64_t *)p; break;
	case DF_U32_NV:
	case DF_U32_Z:
		u = *(const uint32_t *)p;
		if (u == NO_VAL || u == INFINITE)
			return f->type == DF_U32_Z ? (struct fval){.kind = FV_UINT}
						   : (struct fval){.kind = FV_NULL};
		break;
	case DF_U16_NV:
	case DF_U16_Z:
		u = *(const uint16_t *)p;
		if (u == NO_VAL16 || u == INFINITE16)
			return f->type == DF_U16_Z ? (struct fval){.kind = FV_UINT}
						   : (struct fval){.kind = FV_NULL};
		break;
	case DF_U64_NV:
		u = *(const uint64_t *)p;
		if (u >= NO_VAL64)
			return (struct fval){.kind = FV_NULL};
		break;
	default: return (struct fval){.kind = FV_NULL}; /* not a value type */
	}
	return (struct fval){.kind = FV_UINT, .u = u};
}

/* One member of a record through the public writers (the YAML path, and
 * the DF_FN/DF_OBJ members of a JSON template). */
static void record_field(struct dout *d, const struct dfield *f, const void *rec)
{
	if (is_value_type(f->type)) {
		struct fval v = field_value(f, rec);

		switch (v.kind) {
		case FV_NULL: dout_null(d, f->name); break;
		case FV_UINT: dout_uint(d, f->name, v.u); break;
		case FV_INT: dout_int(d, f->name, v.i); break;
		case FV_BOOL: dout_bool(d, f->name, v.u != 0); break;
		case FV_STR: dout_str(d, f->name, v.s); break;
		}
		return;
	}
	switch (f->type) {
	case DF_EMPTY: dout_str(d, f->name, ""); break;
	case DF_NULL: dout_null(d, f->name); break;
	case DF_ZERO: dout_uint(d, f->name, 0); break;
	case DF_FALSE: dout_bool(d, f->name, false); break;
	case DF_NOARR:
		dout_arr(d, f->name);
		dout_end(d);
		break;
	case DF_OBJ: dout_record(d, f->name, f->sub, rec); break;
	case DF_FN: f->fn(d, f->name, rec); break;
	default: d->err = -1;
	}
}

/* ---- JSON record templates ----
 *
 * dout_record is most of --json's time, and most of a record's text does
 * not change from one record to the next: the separators, indents and
 * keys of its members, and whole members whose value is fixed (DF_EMPTY,
 * DF_NULL, DF_ZERO, DF_FALSE, DF_NOARR). A table is compiled once per
 * depth into ops: a run of that text, then the value of one member (the
 * member's key already in the run), or a member written by the public
 * writers (DF_FN, DF_OBJ). The text is exactly what the writers would
 * write (test_data_out compares the two). */
struct jtmpl_op {
	const struct dfield *f; /* NULL: text only */
	bool is_value;		/* text ends with f's key: write its value only */
	uint32_t off, len;	/* the text in jtmpl.text; starts with a member */
};

struct jtmpl {
	const struct dfield_table *t;
	int depth; /* of the members */
	char *text;
	struct jtmpl_op *ops;
	size_t n_ops;
	struct jtmpl *next;
};

static void jtmpl_free_all(struct jtmpl *t)
{
	while (t) {
		struct jtmpl *next = t->next;

		free(t->text);
		free(t->ops);
		free(t);
		t = next;
	}
}

/* The JSON of a member whose value never changes, NULL when it does. */
static const char *fixed_value(const struct dfield *f)
{
	switch (f->type) {
	case DF_EMPTY: return "\"\"";
	case DF_NULL: return "null";
	case DF_ZERO: return "0";
	case DF_FALSE: return "false";
	default: return NULL;
	}
}

static bool is_value_type(uint8_t type)
{
	switch (type) {
	case DF_STR:
	case DF_U16:
	case DF_U32:
	case DF_U64:
	case DF_TIME:
	case DF_BOOL16:
	case DF_U32_NV:
	case DF_U16_NV:
	case DF_U32_Z:
	case DF_U16_Z:
	case DF_U64_NV:
	case DF_STR_NULL: return true;
	default: return false;
	}
}

/* The separator, indent and key of member f, appended to tmp (a dout
 * used as a string builder). */
static void tmpl_member(struct dout *tmp, int depth, const struct dfield *f, bool first)
{
	if (!first)
		put(tmp, ",", 1);
	put(tmp, "\n", 1);
	json_indent(tmp, depth);
	put(tmp, "\"", 1);
	put(tmp, f->name, strlen(f->name));
	put(tmp, "\": ", 3);
}

static struct jtmpl *jtmpl_compile(const struct dfield_table *t, int depth)
{
	struct dout tmp = {.kind = DOUT_JSON};
	struct jtmpl *j = calloc(1, sizeof(*j));
	size_t run = 0; /* where the current run of text starts in tmp */
	bool in_run = false;

	if (!j || !(j->ops = calloc(t->count + 1, sizeof(*j->ops)))) {
		free(j);
		return NULL;
	}
	j->t = t;
	j->depth = depth;
	for (size_t i = 0; i < t->count; i++) {
		const struct dfield *f = &t->fields[i];
		const char *v = fixed_value(f);

		if (v || f->type == DF_NOARR || is_value_type(f->type)) {
			tmpl_member(&tmp, depth, f, !in_run);
			in_run = true;
		}
		if (v) {
			put(&tmp, v, strlen(v));
		} else if (f->type == DF_NOARR) {
			put(&tmp, "[\n", 2);
			json_indent(&tmp, depth);
			put(&tmp, "]", 1);
		} else {
			/* a value, or a writer after the run so far */
			bool is_value = is_value_type(f->type);

			if (in_run)
				j->ops[j->n_ops++] =
				    (struct jtmpl_op){.f = is_value ? f : NULL,
						      .is_value = is_value,
						      .off = (uint32_t)run,
						      .len = (uint32_t)(tmp.len - run)};
			if (!is_value)
				j->ops[j->n_ops++] = (struct jtmpl_op){.f = f};
			run = tmp.len;
			in_run = false;
		}
	}
	if (in_run)
		j->ops[j->n_ops++] =
		    (struct jtmpl_op){.off = (uint32_t)run, .len = (uint32_t)(tmp.len - run)};
	if (tmp.err || tmp.len > UINT32_MAX) {
		free(tmp.buf);
		free(j->ops);
		free(j);
		return NULL;
	}
	j->text = tmp.buf;
	return j;
}

static struct jtmpl *jtmpl_get(struct dout *d, const struct dfield_table *t, int depth)
{
	struct jtmpl *j;

	for (j = d->tmpls; j; j = j->next)
		if (j->t == t && j->depth == depth)
			return j;
	j = jtmpl_compile(t, depth);
	if (j) {
		j->next = d->tmpls;
		d->tmpls = j;
	}
	return j;
}

/* The value of a value member, as the public writers write it. */
static void json_value(struct dout *d, const struct dfield *f, const void *rec)
{
	struct fval v = field_value(f, rec);
	char b[24];

	switch (v.kind) {
	case FV_NULL: put(d, "null", 4); break;
	case FV_UINT: put(d, b, fmt_u64(b, v.u)); break;
	case FV_INT: put(d, b, fmt_i64(b, v.i)); break;
	case FV_BOOL: put(d, v.u ? "true" : "false", v.u ? 4 : 5); break;
	case FV_STR: json_string(d, v.s); break;
	}
}

/* The members of a record opened at d->depth, through its template. */
static void json_record_members(struct dout *d, const struct jtmpl *j, const void *rec)
{
	uint32_t *count = &d->count[d->depth - 1];

	for (size_t i = 0; i < j->n_ops && !d->err; i++) {
		const struct jtmpl_op *op = &j->ops[i];

		if (op->len) {
			if (!reserve(d, op->len + 1))
				return;
			if ((*count)++)
				d->buf[d->len++] = ',';
			memcpy(d->buf + d->len, j->text + op->off, op->len);
			d->len += op->len;
		}
		if (op->is_value)
			json_value(d, op->f, rec);
		else if (op->f)
			record_field(d, op->f, rec);
	}
}

void dout_set_templates(struct dout *d, bool on)
{
	d->no_tmpl = !on;
}

void dout_record(struct dout *d, const char *key, const struct dfield_table *t,
		 const void *rec)
{
	const struct jtmpl *j = NULL;

	dout_obj(d, key);
	if (d->kind == DOUT_JSON && !d->no_tmpl && !d->err && (size_t)d->depth * 2 < sizeof(spaces))
		j = jtmpl_get(d, t, d->depth);
	if (j)
		json_record_members(d, j, rec);
	else
		for (size_t i = 0; i < t->count; i++)
			record_field(d, &t->fields[i], rec);
	dout_end(d);
}

static void schema_type(struct dout *d, const char *type, bool nullable)
{
	dout_str(d, "type", type);
	if (nullable)
		dout_bool(d, "nullable", true);
}

static void schema_of(struct dout *d, const struct dfield *f)
{
	static const uint8_t as_schema[] = {
		[DF_STR] = DS_STRING,	   [DF_U16] = DS_INTEGER,   [DF_U32] = DS_INTEGER,
		[DF_U64] = DS_INTEGER,	   [DF_U32_NV] = DS_INTEGER_NULL,
		[DF_U16_NV] = DS_INTEGER_NULL, [DF_TIME] = DS_INTEGER, [DF_BOOL16] = DS_BOOLEAN,
		[DF_EMPTY] = DS_STRING,	   [DF_NULL] = DS_ANY,	    [DF_ZERO] = DS_INTEGER,
		[DF_FALSE] = DS_BOOLEAN,   [DF_NOARR] = DS_OBJECTS, [DF_OBJ] = DS_OBJECT,
		[DF_U32_Z] = DS_INTEGER,   [DF_U16_Z] = DS_INTEGER, [DF_U64_NV] = DS_INTEGER_NULL,
		[DF_STR_NULL] = DS_STRING_NULL,
	};
	uint8_t s = f->type == DF_FN ? f->schema : as_schema[f->type];
	dout_obj(d, f->name);
	switch (s) {
	case DS_STRING: schema_type(d, "string", false); break;
	case DS_STRING_NULL: schema_type(d, "string", true); break;
	case DS_INTEGER: schema_type(d, "integer", false); break;
	case DS_INTEGER_NULL: schema_type(d, "integer", true); break;
	case DS_NUMBER: schema_type(d, "number", false); break;
	case DS_BOOLEAN: schema_type(d, "boolean", false); break;
	case DS_STRINGS:
		schema_type(d, "array", false);
		dout_obj(d, "items");
		schema_type(d, "string", false);
		dout_end(d);
		break;
	case DS_OBJECT:
		if (f->sub) {
			dout_end(d);
			dout_schema(d, f->name, f->sub);
			return;
		}
		schema_type(d, "object", false);
		break;
	case DS_OBJECTS:
		schema_type(d, "array", false);
		if (f->sub)
			dout_schema(d, "items", f->sub);
		break;
	default: /* DS_ANY: no constraint */
		dout_bool(d, "nullable", true);
	}
	dout_end(d);
}

void dout_schema(struct dout *d, const char *key, const struct dfield_table *t)
{
	dout_obj(d, key);
	schema_type(d, "object", false);
	dout_obj(d, "properties");
	for (size_t i = 0; i < t->count; i++)
		schema_of(d, &t->fields[i]);
	dout_end(d);
	dout_end(d);
}

/* ---- streaming ---- */

/* The stdio form of dout_sink_fd() (sacct's): what f holds goes out
 * first; NULL stops streaming. */
void dout_set_sink(struct dout *d, FILE *f)
{
	if (!f) {
		d->has_sink = false;
		return;
	}
	fflush(f);
	dout_sink_fd(d, fileno(f));
}
