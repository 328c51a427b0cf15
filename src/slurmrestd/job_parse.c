/* job_parse.c - JSON job descriptions -> job messages; see job_parse.h.
 * One table per message: the v0.0.38 name, how its value is read and
 * where it goes. */
#include "job_parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"

#define JP_ENV_MAX  16384 /* entries, as the controller's cap */
#define JP_ARGV_MAX 4096

enum jp_type {
	JP_STR,	  /* char * */
	JP_U16,	  /* uint16_t */
	JP_U32,	  /* uint32_t */
	JP_U64,	  /* uint64_t */
	JP_TIME,  /* time_t */
	JP_NODES, /* "2", "1-3" or 2: min_nodes, max_nodes */
	JP_NICE,  /* int: NICE_OFFSET + n */
	JP_FLAG,  /* bool: flag bit in a uint16_t */
	JP_BOOL16,/* bool: 0/1 in a uint16_t */
	JP_ENV,	  /* object {"K": "V"} or array ["K=V"] */
	JP_LIST,  /* array of strings (or a string): char ** + count */
	JP_CSV,	  /* array of strings or a string: "a,b" */
	JP_HOLD,  /* bool: priority 0 (held by the user) or INFINITE (release) */
};

struct jp_field {
	const char *name;
	uint8_t type;
	uint16_t off;
	uint16_t aux; /* JP_FLAG: the bit; JP_LIST: offset of the count */
};

struct jp_ctx {
	char *err;
	size_t errsz;
};

static int jp_fail(struct jp_ctx *c, int code, const char *fmt, ...) _printf_(3, 4);
static int jp_fail(struct jp_ctx *c, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, c->errsz, fmt, ap);
	va_end(ap);
	return code;
}

#define D(f) ((uint16_t)offsetof(struct job_desc, f))
static const struct jp_field submit_fields[] = {
    {"account", JP_STR, D(account), 0},
    {"argv", JP_LIST, D(argv), D(argc)},
    {"array", JP_STR, D(array_spec), 0},
    {"begin_time", JP_TIME, D(begin_time), 0},
    {"comment", JP_STR, D(comment), 0},
    {"cpus_per_task", JP_U16, D(cpus_per_task), 0},
    {"current_working_directory", JP_STR, D(work_dir), 0},
    {"dependency", JP_STR, D(dependency), 0},
    {"environment", JP_ENV, D(env), D(env_count)},
    {"exclusive", JP_FLAG, D(flags), JOB_DESC_EXCLUSIVE},
    {"hold", JP_FLAG, D(flags), JOB_DESC_HOLD},
    {"mail_user", JP_STR, D(mail_user), 0},
    {"maximum_nodes", JP_U32, D(max_nodes), 0},
    {"memory_per_cpu", JP_U64, D(mem_per_cpu), 0},
    {"memory_per_node", JP_U64, D(mem_per_node), 0},
    {"minimum_nodes", JP_U32, D(min_nodes), 0},
    {"name", JP_STR, D(name), 0},
    {"nice", JP_NICE, D(nice), 0},
    {"nodes", JP_NODES, D(min_nodes), D(max_nodes)},
    {"partition", JP_STR, D(partition), 0},
    {"qos", JP_STR, D(qos), 0},
    {"requeue", JP_BOOL16, D(requeue), 0},
    {"required_nodes", JP_CSV, D(req_nodes), 0},
    {"excluded_nodes", JP_CSV, D(exc_nodes), 0},
    {"standard_error", JP_STR, D(std_err), 0},
    {"standard_input", JP_STR, D(std_in), 0},
    {"standard_output", JP_STR, D(std_out), 0},
    {"tasks", JP_U32, D(num_tasks), 0},
    {"tasks_per_node", JP_U16, D(ntasks_per_node), 0},
    {"tasks_per_socket", JP_U16, D(ntasks_per_socket), 0},
    {"time_limit", JP_U32, D(time_limit), 0},
    {"time_minimum", JP_U32, D(time_min), 0},
    {"tres_per_job", JP_STR, D(tres_per_job), 0},
    {"tres_per_node", JP_STR, D(tres_per_node), 0},
    {"tres_per_socket", JP_STR, D(tres_per_socket), 0},
    {"tres_per_task", JP_STR, D(tres_per_task), 0},
};
#undef D

#define U(f) ((uint16_t)offsetof(struct update_job_msg, f))
static const struct jp_field update_fields[] = {
    {"account", JP_STR, U(account), 0},
    {"hold", JP_HOLD, U(priority), U(hold_user)},
    {"maximum_nodes", JP_U32, U(max_nodes), 0},
    {"minimum_nodes", JP_U32, U(min_nodes), 0},
    {"name", JP_STR, U(name), 0},
    {"nice", JP_NICE, U(nice), 0},
    {"nodes", JP_NODES, U(min_nodes), U(max_nodes)},
    {"partition", JP_STR, U(partition), 0},
    {"priority", JP_U32, U(priority), 0},
    {"qos", JP_STR, U(qos), 0},
    {"time_limit", JP_U32, U(time_limit), 0},
};
#undef U

static int jp_uint(struct jp_ctx *c, const char *name, json_t *v, uint64_t max, uint64_t *ret)
{
	json_int_t n;

	if (json_is_string(v)) { /* Slurm's parser takes numbers as strings too */
		char *end = NULL;
		const char *s = json_string_value(v);
		unsigned long long u;

		errno = 0;
		u = strtoull(s, &end, 10);
		if (!*s || *end || errno || *s == '-' || u > max)
			return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC,
				       "%s: not a number in range: \"%.64s\"", name, s);
		*ret = u;
		return 0;
	}
	if (!json_is_integer(v))
		return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC, "%s: expected an integer", name);
	n = json_integer_value(v);
	if (n < 0 || (uint64_t)n > max)
		return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC, "%s: %lld out of range", name,
			       (long long)n);
	*ret = (uint64_t)n;
	return 0;
}

static int jp_strdup(struct jp_ctx *c, const char *name, json_t *v, char **dst)
{
	if (!json_is_string(v))
		return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC, "%s: expected a string", name);
	if (strlen(json_string_value(v)) != json_string_length(v))
		return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC, "%s: contains a NUL", name);
	free(*dst);
	*dst = strdup(json_string_value(v));
	return *dst ? 0 : -ENOMEM;
}

static int jp_bool(struct jp_ctx *c, const char *name, json_t *v, bool *ret)
{
	if (json_is_boolean(v)) {
		*ret = json_is_true(v);
		return 0;
	}
	if (json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1)) {
		*ret = json_integer_value(v) == 1;
		return 0;
	}
	return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC, "%s: expected true or false", name);
}

/* "K=V" strings from an object of strings or an array of "K=V". */
static int jp_env(struct jp_ctx *c, const char *name, json_t *v, char ***ret, uint32_t *count)
{
	size_t n = json_is_object(v) ? json_object_size(v) : json_is_array(v) ? json_array_size(v)
									   : SIZE_MAX;
	const char *k;
	json_t *e;
	size_t i = 0;
	char **env;

	if (n == SIZE_MAX)
		return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC,
			       "%s: expected an object or an array", name);
	if (n > JP_ENV_MAX)
		return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC, "%s: more than %u entries", name,
			       JP_ENV_MAX);
	env = calloc(n + 1, sizeof(*env));
	if (!env)
		return -ENOMEM;
	*ret = env; /* freed with the message, filled or not */
	if (json_is_object(v)) {
		json_object_foreach(v, k, e) {
			if (!json_is_string(e) || !*k || strchr(k, '='))
				return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC,
					       "%s: %.64s: expected a string value", name, k);
			if (asprintf(&env[i], "%s=%s", k, json_string_value(e)) < 0)
				return -ENOMEM;
			*count = (uint32_t)++i;
		}
		return 0;
	}
	json_array_foreach(v, i, e) {
		if (!json_is_string(e) || !strchr(json_string_value(e), '=')
		    || json_string_value(e)[0] == '=')
			return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC,
				       "%s[%zu]: expected \"NAME=value\"", name, i);
		if (!(env[i] = strdup(json_string_value(e))))
			return -ENOMEM;
		*count = (uint32_t)i + 1;
	}
	return 0;
}

/* An array of strings. */
static int jp_argv(struct jp_ctx *c, const char *name, json_t *v, char ***ret, uint32_t *count)
{
	size_t i;
	json_t *e;

	*ret = calloc(json_array_size(v) + 1, sizeof(**ret));
	if (!*ret)
		return -ENOMEM;
	json_array_foreach(v, i, e) {
		if (!json_is_string(e))
			return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC,
				       "%s[%zu]: expected a string", name, i);
		if (!((*ret)[i] = strdup(json_string_value(e))))
			return -ENOMEM;
		*count = (uint32_t)i + 1;
	}
	return 0;
}

/* An array of strings (or one string) as a "," list. */
static int jp_csv(struct jp_ctx *c, const char *name, json_t *v, char **dst)
{
	size_t i, len = 0;
	json_t *e;
	char *s;

	if (json_is_string(v))
		return jp_strdup(c, name, v, dst);
	if (!json_is_array(v))
		return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC, "%s: expected an array", name);
	json_array_foreach(v, i, e) {
		if (!json_is_string(e) || strchr(json_string_value(e), ','))
			return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC,
				       "%s[%zu]: expected a name", name, i);
		len += json_string_length(e) + 1;
	}
	s = calloc(1, len + 1);
	if (!s)
		return -ENOMEM;
	json_array_foreach(v, i, e) {
		if (i)
			strcat(s, ",");
		strcat(s, json_string_value(e));
	}
	free(*dst);
	*dst = s;
	return 0;
}

static int jp_nodes(struct jp_ctx *c, const char *name, json_t *v, uint32_t *min, uint32_t *max)
{
	const char *s;
	char *end = NULL;
	unsigned long lo, hi;
	uint64_t n;

	if (json_is_integer(v)) {
		if (jp_uint(c, name, v, NO_VAL - 1, &n) < 0)
			return -ESLURM_REST_INVALID_JOBS_DESC;
		*min = *max = (uint32_t)n;
		return 0;
	}
	if (!json_is_string(v))
		return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC, "%s: expected \"N\" or \"N-M\"",
			       name);
	s = json_string_value(v);
	lo = strtoul(s, &end, 10);
	hi = lo;
	if (end != s && *end == '-')
		hi = strtoul(end + 1, &end, 10);
	if (end == s || *end || lo == 0 || hi < lo || hi >= NO_VAL || *s == '-')
		return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC,
			       "%s: expected \"N\" or \"N-M\": \"%.64s\"", name, s);
	*min = (uint32_t)lo;
	*max = (uint32_t)hi;
	return 0;
}

static int jp_field_set(struct jp_ctx *c, const struct jp_field *f, json_t *v, char *base)
{
	void *p = base + f->off;
	uint64_t n = 0;
	bool b = false;
	int r = 0;

	switch (f->type) {
	case JP_STR:
		return jp_strdup(c, f->name, v, p);
	case JP_U16:
		if ((r = jp_uint(c, f->name, v, NO_VAL16 - 1, &n)) == 0)
			*(uint16_t *)p = (uint16_t)n;
		return r;
	case JP_U32:
		if ((r = jp_uint(c, f->name, v, NO_VAL - 1, &n)) == 0)
			*(uint32_t *)p = (uint32_t)n;
		return r;
	case JP_U64:
		if ((r = jp_uint(c, f->name, v, NO_VAL64 - 1, &n)) == 0)
			*(uint64_t *)p = n;
		return r;
	case JP_TIME:
		if ((r = jp_uint(c, f->name, v, INT64_MAX / 2, &n)) == 0)
			*(time_t *)p = (time_t)n;
		return r;
	case JP_NODES:
		return jp_nodes(c, f->name, v, p, (uint32_t *)(base + f->aux));
	case JP_NICE:
		if (!json_is_integer(v) || json_integer_value(v) < -2147483645LL
		    || json_integer_value(v) > 2147483645LL)
			return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC, "%s: expected an integer",
				       f->name);
		*(uint32_t *)p = NICE_OFFSET + (uint32_t)(int32_t)json_integer_value(v);
		return 0;
	case JP_FLAG:
		if ((r = jp_bool(c, f->name, v, &b)) == 0)
			*(uint16_t *)p = (uint16_t)(b ? (*(uint16_t *)p | f->aux)
						      : (*(uint16_t *)p & ~f->aux));
		return r;
	case JP_BOOL16:
		if ((r = jp_bool(c, f->name, v, &b)) == 0)
			*(uint16_t *)p = b;
		return r;
	case JP_HOLD:
		if ((r = jp_bool(c, f->name, v, &b)) == 0) {
			*(uint32_t *)p = b ? 0 : INFINITE;
			*(uint16_t *)(base + f->aux) = b;
		}
		return r;
	case JP_ENV:
		return jp_env(c, f->name, v, p, (uint32_t *)(base + f->aux));
	case JP_CSV:
		return jp_csv(c, f->name, v, p);
	case JP_LIST:
		if (!json_is_array(v) || json_array_size(v) > JP_ARGV_MAX)
			return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC,
				       "%s: expected an array of at most %u strings", f->name,
				       JP_ARGV_MAX);
		return jp_argv(c, f->name, v, p, (uint32_t *)(base + f->aux));
	}
	return -EINVAL;
}

static const struct jp_field *jp_find(const struct jp_field *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (streq(t[i].name, name))
			return &t[i];
	return NULL;
}

/* Every member of obj through the table; an unknown one is refused. */
static int jp_object(struct jp_ctx *c, json_t *obj, const struct jp_field *t, size_t n,
		     void *base)
{
	const char *k;
	json_t *v;
	int r;

	json_object_foreach(obj, k, v) {
		const struct jp_field *f = jp_find(t, n, k);

		if (!f)
			return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC,
				       "Unknown field \"%.64s\" in the job description", k);
		if (json_is_null(v))
			continue;
		r = jp_field_set(c, f, v, base);
		if (r < 0)
			return r == -ENOMEM ? jp_fail(c, -ENOMEM, "out of memory") : r;
	}
	return 0;
}

static int jp_load(struct jp_ctx *c, const char *body, size_t len, json_t **ret)
{
	json_error_t je;

	*ret = NULL;
	if (!body || !len)
		return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC, "empty request body");
	*ret = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
	if (!*ret)
		return jp_fail(c, -ESLURM_REST_FAIL_PARSING,
			       "Unable to parse JSON: %.200s (line %d, column %d)", je.text,
			       je.line, je.column);
	if (!json_is_object(*ret))
		return jp_fail(c, -ESLURM_REST_INVALID_JOBS_DESC, "expected a JSON object");
	return 0;
}

int job_parse_submit(const char *body, size_t len, struct job_desc *d, char *err, size_t errsz)
{
	struct jp_ctx c = { err, errsz };
	_cleanup_(json_decrefp) json_t *root = NULL;
	const char *k;
	json_t *v, *job = NULL;
	int r;

	*d = (struct job_desc){
	    .min_nodes = NO_VAL, .max_nodes = NO_VAL, .num_tasks = NO_VAL,
	    .ntasks_per_node = NO_VAL16, .cpus_per_task = NO_VAL16, .time_limit = NO_VAL,
	    .time_min = NO_VAL, .mem_per_node = NO_VAL64, .mem_per_cpu = NO_VAL64,
	    .requeue = NO_VAL16, .nice = NO_VAL,
	};
	err[0] = '\0';
	r = jp_load(&c, body, len, &root);
	if (r < 0)
		return r;
	json_object_foreach(root, k, v) {
		if (streq(k, "script"))
			r = jp_strdup(&c, "script", v, &d->script);
		else if (streq(k, "job") && json_is_object(v))
			job = v;
		else if (streq(k, "job"))
			r = jp_fail(&c, -ESLURM_REST_INVALID_JOBS_DESC, "\"job\" is not an object");
		else if (streq(k, "jobs"))
			r = jp_fail(&c, -ESLURM_REST_INVALID_JOBS_DESC,
				    "heterogeneous jobs (\"jobs\") are not supported");
		else
			r = jp_fail(&c, -ESLURM_REST_INVALID_JOBS_DESC,
				    "Unknown field \"%.64s\" in the request", k);
		if (r < 0)
			return r;
	}
	if (!job)
		return jp_fail(&c, -ESLURM_REST_INVALID_JOBS_DESC,
			       "the request has no \"job\" object");
	if (!d->script || !*d->script)
		return jp_fail(&c, -ESLURM_REST_INVALID_JOBS_DESC, "the request has no \"script\"");
	return jp_object(&c, job, submit_fields, ARRAY_SIZE(submit_fields), d);
}

int job_parse_update(const char *body, size_t len, const char *sjob_id, struct update_job_msg *m,
		     char *err, size_t errsz)
{
	struct jp_ctx c = { err, errsz };
	_cleanup_(json_decrefp) json_t *root = NULL;
	json_t *job;
	int r;

	*m = (struct update_job_msg){
	    .time_limit = NO_VAL, .min_nodes = NO_VAL, .max_nodes = NO_VAL,
	    .nice = NO_VAL, .priority = NO_VAL,
	};
	err[0] = '\0';
	m->sjob_id = strdup(sjob_id);
	if (!m->sjob_id)
		return jp_fail(&c, -ENOMEM, "out of memory");
	r = jp_load(&c, body, len, &root);
	if (r < 0)
		return r;
	job = json_object_get(root, "job");
	if (job && json_object_size(root) != 1)
		return jp_fail(&c, -ESLURM_REST_INVALID_JOBS_DESC,
			       "only \"job\" may be given with \"job\"");
	if (job && !json_is_object(job))
		return jp_fail(&c, -ESLURM_REST_INVALID_JOBS_DESC, "\"job\" is not an object");
	return jp_object(&c, job ? job : root, update_fields, ARRAY_SIZE(update_fields), m);
}
