/* job_submit_lua_desc.c - the tables job_submit.lua reads and writes
 * (job_submit_lua_desc.h).
 *
 * job_desc is an empty table whose metatable's __index and __newindex
 * reach the request, as Slurm's does. A read gives the field with Slurm's
 * "unset": NO_VAL, NO_VAL16 or NO_VAL64 for a number, nil for a string.
 * A write is checked (type, range, length, no NUL byte) and stored at
 * once, so nothing is compared after the call; a bad value is a Lua error
 * and refuses the job. fields[] is the one list of what a script sees: a
 * name it lacks reads nil, and writing it is logged and ignored, as with
 * Slurm. job_desc.environment is a second proxy of the same kind.
 *
 * 64-bit numbers are Lua 5.4 integers, so NO_VAL64 and INFINITE64 read
 * as -2 and -1 (slurm.NO_VAL64, slurm.INFINITE64 are the same values).
 *
 * part_list and job_rec are plain tables copied per call: a few
 * partitions and one job cost less than proxies, and a script that keeps
 * them keeps copies, not pointers.
 *
 * Every metamethod checks that its call is the current one (its seq
 * upvalue against the call job_submit_lua_desc_enter() set): a table kept
 * from an earlier call raises an error instead of reaching freed memory.
 */
#include "job_submit_lua_desc.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "common/conf.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/share.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "part.h"
#include "part_access.h"

_Static_assert(LUA_EXTRASPACE >= sizeof(void *), "the current call lives in the extra space");

enum field_kind {
	F_STR,	/* char *, shorter than max bytes */
	F_U16,	/* uint16_t */
	F_U32,	/* uint32_t */
	F_TIME, /* time_t, not negative */
	F_FN,	/* get and set (NULL: read-only) do it */
};

/* Ours keeps 0 for "not given" where Slurm keeps NO_VAL: 0 reads as
 * NO_VAL (NO_VAL16), and NO_VAL writes 0. */
#define F_ZERO_UNSET 0x1
/* The same at submission only: in an update, priority 0 is a hold. */
#define F_ZERO_UNSET_SUBMIT 0x2

struct field;
/* Push the field's value. */
typedef void field_get_fn(lua_State *L, struct job_submit_lua_call *k);
/* Store the value at index 3 (a metamethod's), or raise a Lua error. */
typedef void field_set_fn(lua_State *L, struct job_submit_lua_call *k, const struct field *f);

struct field {
	const char *name;
	enum field_kind kind;
	uint8_t flags;
	size_t off;   /* in struct job_desc */
	uint32_t max; /* F_STR: bytes with the NUL, as the wire's cap */
	field_get_fn *get;
	field_set_fn *set;
};

/* ---- values from the script ---- */

/* The string at index 3 (a number turned into one, as Lua does); NULL
 * for nil, and for "" when is_empty_unset. Raises a Lua error when it is
 * another type, max bytes or longer, or holds a NUL byte. */
static const char *check_str(lua_State *L, const char *what, size_t max, bool is_empty_unset)
{
	int t = lua_type(L, 3);
	const char *s;
	size_t len;

	if (t == LUA_TNIL)
		return NULL;
	if (t != LUA_TSTRING && t != LUA_TNUMBER)
		luaL_error(L, "%s: expected a string, got %s", what, lua_typename(L, t));
	s = lua_tolstring(L, 3, &len);
	if (len >= max)
		luaL_error(L, "%s: longer than %d bytes", what, (int)(max - 1));
	if (strlen(s) != len)
		luaL_error(L, "%s: holds a NUL byte", what);
	return len || !is_empty_unset ? s : NULL;
}

/* The integer at index 3 (a string of one too, as Lua converts). */
static lua_Integer check_int(lua_State *L, const char *name)
{
	int ok = 0;
	lua_Integer v = lua_tointegerx(L, 3, &ok);

	if (!ok)
		luaL_error(L, "job_desc.%s: expected an integer, got %s", name,
			   luaL_typename(L, 3));
	return v;
}

/* The integer at index 3, 0..max; with max UINT64_MAX also -1 and -2
 * (INFINITE64, NO_VAL64 as Lua integers). */
static uint64_t check_uint(lua_State *L, const char *name, uint64_t max)
{
	lua_Integer v = check_int(L, name);

	if (max == UINT64_MAX && v < -2)
		luaL_error(L, "job_desc.%s: %I is negative", name, v);
	if (max == UINT64_MAX)
		return (uint64_t)v;
	if (v < 0 || (uint64_t)v > max)
		luaL_error(L, "job_desc.%s: %I is out of range 0-%I", name, v, (lua_Integer)max);
	return (uint64_t)v;
}

static void check_set(lua_State *L, const char *name, int r)
{
	if (r < 0)
		luaL_error(L, "job_desc.%s: %s", name, sl_strerror(r));
}

/* ---- the call a table answers for ---- */

static struct job_submit_lua_call **call_slot(lua_State *L)
{
	lua_State *main_L;

	lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
	main_L = lua_tothread(L, -1);
	lua_pop(L, 1);
	return lua_getextraspace(main_L);
}

void job_submit_lua_desc_enter(lua_State *L, struct job_submit_lua_call *k)
{
	*(struct job_submit_lua_call **)lua_getextraspace(L) = k;
}

static struct job_submit_lua_call *call_of(lua_State *L)
{
	struct job_submit_lua_call *k = *call_slot(L);

	if (!k || (lua_Integer)k->seq != lua_tointeger(L, lua_upvalueindex(1)))
		luaL_error(L, "job_desc used outside the call it was passed to");
	return k;
}

/* An empty table whose reads and writes go to index and newindex, which
 * get k's seq as their upvalue. Its metatable is hidden (__metatable),
 * so a script cannot swap the functions. */
static void push_proxy(lua_State *L, const struct job_submit_lua_call *k, lua_CFunction index,
		       lua_CFunction newindex)
{
	lua_createtable(L, 0, 0);
	lua_createtable(L, 0, 3);
	lua_pushinteger(L, (lua_Integer)k->seq);
	lua_pushcclosure(L, index, 1);
	lua_setfield(L, -2, "__index");
	lua_pushinteger(L, (lua_Integer)k->seq);
	lua_pushcclosure(L, newindex, 1);
	lua_setfield(L, -2, "__newindex");
	lua_pushboolean(L, 0);
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, -2);
}

/* ---- job_desc.environment ---- */

/* Index of name's entry in d's environment, d->env_count when none. */
static uint32_t env_find(const struct job_desc *d, const char *name)
{
	size_t len = strlen(name);
	uint32_t i;

	for (i = 0; i < d->env_count; i++) {
		const char *e = d->env[i];

		if (e && !strncmp(e, name, len) && e[len] == '=')
			break;
	}
	return i;
}

/* A shared environment (job_desc_share) is read-only: the new one is
 * made from borrowed entries, shared, and the old one given back. */
static int env_set_shared(struct job_desc *d, uint32_t i, char *entry)
{
	char **v = calloc((size_t)d->env_count + 1, sizeof(*v)), **s = NULL;
	uint32_t n = 0;

	if (v) {
		for (uint32_t j = 0; j < d->env_count; j++)
			if (j != i && d->env[j])
				v[n++] = d->env[j];
		if (entry)
			v[n++] = entry;
		s = share_strv(v, n);
	}
	free(v);
	free(entry);
	if (!s)
		return -ENOMEM;
	share_put(d->env);
	d->env = s;
	d->env_count = n;
	return 0;
}

/* Entry i of d's environment (env_count: a new one) becomes entry
 * ("NAME=value", taken; NULL: removed). 0 or -ENOMEM (unchanged). */
static int env_set(struct job_desc *d, uint32_t i, char *entry)
{
	char **v;

	if (d->is_shared)
		return env_set_shared(d, i, entry);
	if (i < d->env_count) {
		free(d->env[i]);
		if (entry) {
			d->env[i] = entry;
			return 0;
		}
		memmove(&d->env[i], &d->env[i + 1], (d->env_count - i - 1) * sizeof(*v));
		d->env_count--;
		return 0;
	}
	if (!entry)
		return 0;
	v = realloc(d->env, ((size_t)d->env_count + 1) * sizeof(*v));
	if (!v) {
		free(entry);
		return -ENOMEM;
	}
	v[d->env_count++] = entry;
	d->env = v;
	return 0;
}

static int env_index(lua_State *L)
{
	struct job_submit_lua_call *k = call_of(L);
	const char *name = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
	uint32_t i = name ? env_find(k->desc, name) : k->desc->env_count;

	if (i < k->desc->env_count)
		lua_pushstring(L, strchr(k->desc->env[i], '=') + 1);
	else
		lua_pushnil(L);
	return 1;
}

/* job_desc.environment.NAME = value (a string; nil removes it). */
static int env_newindex(lua_State *L)
{
	struct job_submit_lua_call *k = call_of(L);
	struct job_desc *d = k->desc;
	const char *name = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
	const char *val;
	uint32_t i;
	char *entry = NULL;

	if (!name || !*name || strchr(name, '=') || strlen(name) >= SL_NAME_MAX)
		luaL_error(L, "job_desc.environment: a variable's name is a string without '='");
	val = check_str(L, "job_desc.environment", SL_STR_MAX - strlen(name) - 1, false);
	i = env_find(d, name);
	if (i == d->env_count && d->env_count >= SL_ARRAY_MAX)
		luaL_error(L, "job_desc.environment: more than %d variables", (int)SL_ARRAY_MAX);
	if (val && asprintf(&entry, "%s=%s", name, val) < 0)
		luaL_error(L, "job_desc.environment: out of memory");
	check_set(L, "environment", env_set(d, i, entry));
	return 0;
}

/* ---- fields that are more than a stored value ---- */

static void get_env(lua_State *L, struct job_submit_lua_call *k)
{
	push_proxy(L, k, env_index, env_newindex);
}

static void get_script(lua_State *L, struct job_submit_lua_call *k)
{
	lua_pushstring(L, k->desc->script);
}

/* The script is a shared copy in a shared request (job_desc_share). */
static void set_script(lua_State *L, struct job_submit_lua_call *k, const struct field *f)
{
	struct job_desc *d = k->desc;
	const char *s = check_str(L, "job_desc.script", SL_SCRIPT_MAX, true);
	char *v = NULL;

	(void)f;
	if (s && !(v = d->is_shared ? (char *)share_str(s) : strdup(s)))
		luaL_error(L, "job_desc.script: out of memory");
	if (d->is_shared)
		share_put(d->script);
	else
		free(d->script);
	d->script = v;
}

static void get_gres(lua_State *L, struct job_submit_lua_call *k)
{
	lua_pushstring(L, k->desc->tres_per_node);
}

/* gres = "gpu:2,mps:100": tres_per_node with each item typed "gres/". */
static void set_gres(lua_State *L, struct job_submit_lua_call *k, const struct field *f)
{
	const char *s = check_str(L, "job_desc.gres", SL_STR_MAX, true);
	_cleanup_free_ char *v = NULL;
	size_t n = 0;

	if (s) {
		v = malloc(strlen(s) * 6 + 6); /* at worst "gres/" before each of "a,a,..." */
		if (!v)
			luaL_error(L, "job_desc.gres: out of memory");
		for (const char *p = s; *p;) {
			size_t len = strcspn(p, ",");

			n += (size_t)sprintf(v + n, "%s%s%.*s", n ? "," : "",
					     strncmp(p, "gres/", 5) ? "gres/" : "", (int)len, p);
			p += len + (p[len] == ',');
		}
		if (n >= f->max)
			luaL_error(L, "job_desc.gres: longer than %d bytes", (int)f->max - 1);
	}
	check_set(L, "gres", job_desc_set_str(k->desc, &k->desc->tres_per_node, v));
}

static void get_pn_mem(lua_State *L, struct job_submit_lua_call *k)
{
	const struct job_desc *d = k->desc;

	if (d->mem_per_cpu != NO_VAL64)
		lua_pushinteger(L, (lua_Integer)(d->mem_per_cpu | MEM_PER_CPU));
	else
		lua_pushinteger(L, (lua_Integer)d->mem_per_node);
}

/* Slurm's pn_min_memory: MB per node, or per CPU with MEM_PER_CPU (the
 * sign bit of a Lua integer). */
static void set_pn_mem(lua_State *L, struct job_submit_lua_call *k, const struct field *f)
{
	uint64_t v = (uint64_t)check_int(L, f->name);
	bool is_cpu = (v & MEM_PER_CPU) && v != NO_VAL64 && v != INFINITE64;

	k->desc->mem_per_cpu = is_cpu ? v & ~MEM_PER_CPU : NO_VAL64;
	k->desc->mem_per_node = is_cpu ? NO_VAL64 : v;
}

static void get_mem_node(lua_State *L, struct job_submit_lua_call *k)
{
	if (k->desc->mem_per_node != NO_VAL64 && k->desc->mem_per_cpu == NO_VAL64)
		lua_pushinteger(L, (lua_Integer)k->desc->mem_per_node);
	else
		lua_pushnil(L);
}

static void set_mem_node(lua_State *L, struct job_submit_lua_call *k, const struct field *f)
{
	k->desc->mem_per_node = check_uint(L, f->name, UINT64_MAX);
	k->desc->mem_per_cpu = NO_VAL64;
}

static void get_mem_cpu(lua_State *L, struct job_submit_lua_call *k)
{
	if (k->desc->mem_per_cpu != NO_VAL64)
		lua_pushinteger(L, (lua_Integer)k->desc->mem_per_cpu);
	else
		lua_pushnil(L);
}

static void set_mem_cpu(lua_State *L, struct job_submit_lua_call *k, const struct field *f)
{
	k->desc->mem_per_cpu = check_uint(L, f->name, UINT64_MAX);
	k->desc->mem_per_node = NO_VAL64;
}

/* shared / oversubscribe: 0 (JOB_SHARED_NONE) is --exclusive, 1
 * (JOB_SHARED_OK) -s, 2 (JOB_SHARED_USER) --exclusive=user; any other
 * value (NO_VAL16: not given) clears them. */
static void get_shared(lua_State *L, struct job_submit_lua_call *k)
{
	uint16_t fl = k->desc->flags;

	lua_pushinteger(L, fl & JOB_DESC_EXCLUSIVE	  ? 0
			   : fl & JOB_DESC_EXCLUSIVE_USER ? 2
			   : fl & JOB_DESC_OVERSUBSCRIBE  ? 1
							  : NO_VAL16);
}

static void set_shared(lua_State *L, struct job_submit_lua_call *k, const struct field *f)
{
	uint64_t v = check_uint(L, f->name, UINT16_MAX);

	k->desc->flags &=
	    (uint16_t) ~(JOB_DESC_EXCLUSIVE | JOB_DESC_EXCLUSIVE_USER | JOB_DESC_OVERSUBSCRIBE);
	if (v == 0)
		k->desc->flags |= JOB_DESC_EXCLUSIVE;
	else if (v == 1)
		k->desc->flags |= JOB_DESC_OVERSUBSCRIBE;
	else if (v == 2)
		k->desc->flags |= JOB_DESC_EXCLUSIVE_USER;
}

static void get_user_id(lua_State *L, struct job_submit_lua_call *k)
{
	lua_pushinteger(L, k->uid);
}

static void get_group_id(lua_State *L, struct job_submit_lua_call *k)
{
	lua_pushinteger(L, k->gid);
}

static void get_user_name(lua_State *L, struct job_submit_lua_call *k)
{
	lua_pushstring(L, k->user_name);
}

static void get_default_account(lua_State *L, struct job_submit_lua_call *k)
{
	lua_pushstring(L, k->default_account);
}

static void get_alloc_node(lua_State *L, struct job_submit_lua_call *k)
{
	lua_pushstring(L, k->desc->submit_host);
}

static void get_argc(lua_State *L, struct job_submit_lua_call *k)
{
	lua_pushinteger(L, k->desc->argc);
}

/* As Slurm's: nil without arguments, else a table from index 0. */
static void get_argv(lua_State *L, struct job_submit_lua_call *k)
{
	const struct job_desc *d = k->desc;

	if (!d->argc || !d->argv) {
		lua_pushnil(L);
		return;
	}
	lua_createtable(L, (int)d->argc, 0);
	for (uint32_t i = 0; i < d->argc; i++) {
		lua_pushstring(L, d->argv[i]);
		lua_rawseti(L, -2, i);
	}
}

/* ---- the field table ---- */

#define OFF(f) offsetof(struct job_desc, f)
#define STR(n, f, max)                                                                             \
	{                                                                                          \
		n, F_STR, 0, OFF(f), max, NULL, NULL                                               \
	}
#define U16(n, f, fl)                                                                              \
	{                                                                                          \
		n, F_U16, fl, OFF(f), 0, NULL, NULL                                                \
	}
#define U32(n, f, fl)                                                                              \
	{                                                                                          \
		n, F_U32, fl, OFF(f), 0, NULL, NULL                                                \
	}
#define FN(n, get, set)                                                                            \
	{                                                                                          \
		n, F_FN, 0, 0, SL_STR_MAX, get, set                                                \
	}

/* clang-format off */
static const struct field fields[] = {
	STR("account", account, SL_NAME_MAX),
	FN("alloc_node", get_alloc_node, NULL),
	FN("argc", get_argc, NULL),
	FN("argv", get_argv, NULL),
	STR("array_inx", array_spec, SL_STR_MAX),
	{"begin_time", F_TIME, 0, OFF(begin_time), 0, NULL, NULL},
	STR("comment", comment, SL_STR_MAX),
	U16("cores_per_socket", cores_per_socket, F_ZERO_UNSET),
	U16("cpus_per_task", cpus_per_task, 0),
	FN("default_account", get_default_account, NULL),
	STR("dependency", dependency, SL_STR_MAX),
	FN("environment", get_env, NULL),
	STR("exc_nodes", exc_nodes, SL_STR_MAX),
	STR("features", features, SL_STR_MAX),
	FN("gres", get_gres, set_gres),
	FN("group_id", get_group_id, NULL),
	STR("licenses", licenses, SL_STR_MAX),
	U16("mail_type", mail_type, 0),
	STR("mail_user", mail_user, SL_NAME_MAX),
	U32("max_nodes", max_nodes, 0),
	FN("min_mem_per_cpu", get_mem_cpu, set_mem_cpu),
	FN("min_mem_per_node", get_mem_node, set_mem_node),
	U32("min_nodes", min_nodes, 0),
	STR("name", name, SL_NAME_MAX),
	U32("nice", nice, 0),
	U16("ntasks_per_gpu", ntasks_per_gpu, F_ZERO_UNSET),
	U16("ntasks_per_node", ntasks_per_node, 0),
	U16("ntasks_per_socket", ntasks_per_socket, F_ZERO_UNSET),
	U32("num_tasks", num_tasks, 0),
	FN("oversubscribe", get_shared, set_shared),
	STR("partition", partition, SL_STR_MAX),
	U16("pn_min_cpus", min_cpus, F_ZERO_UNSET),
	FN("pn_min_memory", get_pn_mem, set_pn_mem),
	U32("pn_min_tmp_disk", tmp_mb, F_ZERO_UNSET),
	STR("prefer", prefer, SL_STR_MAX),
	U32("priority", priority, F_ZERO_UNSET_SUBMIT),
	STR("qos", qos, SL_NAME_MAX),
	STR("req_nodes", req_nodes, SL_STR_MAX),
	U16("requeue", requeue, 0),
	STR("reservation", reservation, SL_NAME_MAX),
	FN("script", get_script, set_script),
	FN("shared", get_shared, set_shared),
	U16("sockets_per_node", sockets_per_node, F_ZERO_UNSET),
	STR("std_err", std_err, SL_PATH_MAX),
	STR("std_in", std_in, SL_PATH_MAX),
	STR("std_out", std_out, SL_PATH_MAX),
	U32("time_limit", time_limit, 0),
	U32("time_min", time_min, 0),
	STR("tres_per_job", tres_per_job, SL_STR_MAX),
	STR("tres_per_node", tres_per_node, SL_STR_MAX),
	STR("tres_per_socket", tres_per_socket, SL_STR_MAX),
	STR("tres_per_task", tres_per_task, SL_STR_MAX),
	FN("user_id", get_user_id, NULL),
	FN("user_name", get_user_name, NULL),
	STR("work_dir", work_dir, SL_PATH_MAX),
};
/* clang-format on */
_Static_assert(ARRAY_SIZE(fields) <= 64, "a field's bit in written");

const char *job_submit_lua_desc_field_name(unsigned i)
{
	return i < ARRAY_SIZE(fields) ? fields[i].name : NULL;
}

static const struct field *field_find(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(fields); i++)
		if (streq(fields[i].name, name))
			return &fields[i];
	return NULL;
}

static bool is_zero_unset(const struct job_submit_lua_call *k, const struct field *f)
{
	return f->flags & F_ZERO_UNSET || (f->flags & F_ZERO_UNSET_SUBMIT && !k->is_modify);
}

static void field_push(lua_State *L, struct job_submit_lua_call *k, const struct field *f)
{
	const char *p = (const char *)k->desc + f->off;
	bool unset0 = is_zero_unset(k, f);

	switch (f->kind) {
	case F_STR:
		lua_pushstring(L, *(char *const *)p); /* NULL pushes nil */
		break;
	case F_U16:
		lua_pushinteger(L,
				unset0 && !*(const uint16_t *)p ? NO_VAL16 : *(const uint16_t *)p);
		break;
	case F_U32:
		lua_pushinteger(L, unset0 && !*(const uint32_t *)p ? NO_VAL : *(const uint32_t *)p);
		break;
	case F_TIME:
		lua_pushinteger(L, *(const time_t *)p);
		break;
	case F_FN:
		f->get(L, k);
		break;
	}
}

static void field_set(lua_State *L, struct job_submit_lua_call *k, const struct field *f)
{
	char *p = (char *)k->desc + f->off;
	bool unset0 = is_zero_unset(k, f);
	char what[64];
	uint64_t v;

	switch (f->kind) {
	case F_STR:
		snprintf(what, sizeof(what), "job_desc.%s", f->name);
		check_set(L, f->name,
			  job_desc_set_str(k->desc, (char **)p, check_str(L, what, f->max, true)));
		break;
	case F_U16:
		v = check_uint(L, f->name, UINT16_MAX);
		*(uint16_t *)p = unset0 && v == NO_VAL16 ? 0 : (uint16_t)v;
		break;
	case F_U32:
		v = check_uint(L, f->name, UINT32_MAX);
		*(uint32_t *)p = unset0 && v == NO_VAL ? 0 : (uint32_t)v;
		break;
	case F_TIME:
		*(time_t *)p = (time_t)check_uint(L, f->name, INT64_MAX);
		break;
	case F_FN:
		f->set(L, k, f);
		break;
	}
}

static int desc_index(lua_State *L)
{
	struct job_submit_lua_call *k = call_of(L);
	const struct field *f =
	    lua_type(L, 2) == LUA_TSTRING ? field_find(lua_tostring(L, 2)) : NULL;

	if (f)
		field_push(L, k, f);
	else
		lua_pushnil(L);
	return 1;
}

static int desc_newindex(lua_State *L)
{
	struct job_submit_lua_call *k = call_of(L);
	const char *name = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
	const struct field *f = field_find(name);

	if (!f || (f->kind == F_FN && !f->set)) {
		error("job_submit/lua: job_desc.%s: %s, not set", name ? name : "(not a name)",
		      f ? "read-only" : "unrecognized field");
		return 0;
	}
	field_set(L, k, f);
	k->written |= 1ull << (f - fields);
	return 0;
}

void job_submit_lua_desc_push(lua_State *L, struct job_submit_lua_call *k)
{
	push_proxy(L, k, desc_index, desc_newindex);
}

/* ---- part_list and job_rec: plain tables ---- */

static void put_int(lua_State *L, const char *key, lua_Integer v)
{
	lua_pushinteger(L, v);
	lua_setfield(L, -2, key);
}

/* Strings that are NULL stay out (read as nil). */
static void put_str(lua_State *L, const char *key, const char *v)
{
	if (!v)
		return;
	lua_pushstring(L, v);
	lua_setfield(L, -2, key);
}

/* MB of a memory field, left out when 0 (unset). */
static void put_mem(lua_State *L, const char *key, uint64_t mb)
{
	if (mb && mb != NO_VAL64)
		put_int(L, key, (lua_Integer)mb);
}

static void push_part(lua_State *L, const struct part *p)
{
	const struct conf_part *cfg = p->cfg;

	lua_createtable(L, 0, 24);
	put_str(L, "name", cfg->name);
	put_str(L, "nodes", cfg->nodes);
	put_int(L, "total_nodes", p->node_count);
	put_int(L, "total_cpus", p->total_cpus);
	put_int(L, "max_time", cfg->max_time);
	put_int(L, "default_time", cfg->default_time);
	put_int(L, "max_nodes", cfg->max_nodes);
	put_int(L, "max_nodes_orig", cfg->max_nodes);
	put_int(L, "min_nodes", cfg->min_nodes);
	put_int(L, "min_nodes_orig", cfg->min_nodes);
	put_int(L, "max_cpus_per_node", cfg->max_cpus_per_node);
	put_int(L, "flag_default", cfg->is_default);
	put_int(L, "state_up", cfg->state_up);
	put_int(L, "priority_tier", cfg->priority_tier);
	put_int(L, "priority_job_factor", cfg->priority_job_factor);
	put_str(L, "allow_accounts", cfg->allow_accounts);
	put_str(L, "allow_groups", cfg->allow_groups);
	put_str(L, "allow_qos", cfg->allow_qos);
	put_str(L, "deny_accounts", cfg->deny_accounts);
	put_str(L, "deny_qos", cfg->deny_qos);
	put_str(L, "qos", cfg->qos);
	put_mem(L, "def_mem_per_cpu", cfg->def_mem_per_cpu);
	put_mem(L, "def_mem_per_node", cfg->def_mem_per_node);
	put_mem(L, "max_mem_per_cpu", cfg->max_mem_per_cpu);
	put_mem(L, "max_mem_per_node", cfg->max_mem_per_node);
}

void job_submit_lua_desc_push_parts(lua_State *L, const struct ctld *c, const struct part_access *a)
{
	lua_createtable(L, 0, (int)c->part_count);
	for (uint32_t i = 0; i < c->part_count; i++) {
		const struct part *p = &c->parts[i];
		int r = part_access_check(p->cfg, a);

		/* Slurm's list leaves out what the user may never use (RootOnly,
		 * AllowGroups); accounts and QOS are the job's to choose */
		if (r == -ESLURM_ACCESS_DENIED || r == -ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP)
			continue;
		push_part(L, p);
		lua_setfield(L, -2, p->cfg->name);
	}
}

static void push_job_desc_fields(lua_State *L, const struct job_desc *d)
{
	put_str(L, "account", d->account);
	put_str(L, "qos", d->qos);
	put_str(L, "name", d->name);
	put_str(L, "comment", d->comment);
	put_str(L, "dependency", d->dependency);
	put_str(L, "features", d->features);
	put_str(L, "licenses", d->licenses);
	put_str(L, "resv_name", d->reservation);
	put_str(L, "work_dir", d->work_dir);
	put_str(L, "std_in", d->std_in);
	put_str(L, "std_out", d->std_out);
	put_str(L, "std_err", d->std_err);
	put_str(L, "tres_per_node", d->tres_per_node);
	put_str(L, "gres", d->tres_per_node);
	put_str(L, "tres_per_job", d->tres_per_job);
	put_int(L, "time_min", d->time_min);
	put_int(L, "nice", d->nice);
}

void job_submit_lua_desc_push_job(lua_State *L, const struct job *job)
{
	lua_createtable(L, 0, 48);
	put_int(L, "job_id", job->job_id);
	put_int(L, "array_job_id", job->array_job_id);
	put_int(L, "array_task_id", job->array_task_id);
	put_int(L, "user_id", job->uid);
	put_int(L, "group_id", job->gid);
	put_str(L, "user_name", job->user_name);
	put_str(L, "partition", job->partition);
	put_int(L, "job_state", job->state);
	put_int(L, "priority", job->priority);
	put_int(L, "direct_set_prio", job->is_prio_fixed);
	put_int(L, "time_limit", job->time_limit);
	put_int(L, "min_nodes", job->min_nodes);
	put_int(L, "max_nodes", job->max_nodes);
	put_int(L, "num_tasks", job->num_tasks);
	put_int(L, "cpus_per_task", job->cpus_per_task);
	put_mem(L, "min_mem_per_cpu", job->mem_per_cpu);
	put_mem(L, "min_mem_per_node", job->mem_per_node);
	put_str(L, "nodes", job->nodes);
	put_str(L, "batch_host", job->batch_host);
	put_int(L, "submit_time", job->submit_time);
	put_int(L, "eligible_time", job->eligible_time);
	put_int(L, "start_time", job->start_time);
	put_int(L, "end_time", job->end_time);
	put_int(L, "restart_cnt", job->restart_cnt);
	put_int(L, "exit_code", job->exit_code);
	if (job->desc)
		push_job_desc_fields(L, job->desc);
}

/* ---- an update as a request, and back ---- */

int job_submit_lua_desc_of_update(const struct update_job_msg *m, const struct job *job,
				  struct job_desc *ret)
{
	*ret = (struct job_desc){
	    .min_nodes = m->min_nodes,
	    .max_nodes = m->max_nodes,
	    .num_tasks = NO_VAL,
	    .ntasks_per_node = NO_VAL16,
	    .cpus_per_task = NO_VAL16,
	    .time_limit = m->time_limit,
	    .time_min = NO_VAL,
	    .mem_per_node = NO_VAL64,
	    .mem_per_cpu = NO_VAL64,
	    .requeue = NO_VAL16,
	    .nice = m->nice,
	    .priority = m->priority,
	    .user_id = job->uid,
	    .group_id = job->gid,
	};
	if ((m->name && !(ret->name = strdup(m->name)))
	    || (m->partition && !(ret->partition = strdup(m->partition)))
	    || (m->account && !(ret->account = strdup(m->account)))
	    || (m->qos && !(ret->qos = strdup(m->qos)))) {
		job_desc_done(ret);
		return -ENOMEM;
	}
	return 0;
}

/* A field an update carries must be listed here and in to_update. */
uint64_t job_submit_lua_desc_update_fields(void)
{
	static const char *const names[] = {"name",	 "partition",  "account",
					    "qos",	 "time_limit", "min_nodes",
					    "max_nodes", "priority",   "nice"};
	uint64_t bits = 0;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		bits |= 1ull << (field_find(names[i]) - fields);
	return bits;
}

void job_submit_lua_desc_to_update(struct job_desc *d, const struct update_job_msg *m,
				   struct update_job_msg *ret)
{
	*ret = (struct update_job_msg){
	    .name = TAKE_PTR(d->name),
	    .partition = TAKE_PTR(d->partition),
	    .time_limit = d->time_limit,
	    .min_nodes = d->min_nodes,
	    .max_nodes = d->max_nodes,
	    .nice = d->nice,
	    .priority = d->priority,
	    .hold_user = m->hold_user,
	    .requeue_op = m->requeue_op,
	    .account = TAKE_PTR(d->account),
	    .qos = TAKE_PTR(d->qos),
	};
}
