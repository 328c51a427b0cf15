/* job_submit_lua.c - JobSubmitPlugins=lua: Slurm's job_submit/lua plugin.
 *
 * Owns the interpreter (Lua 5.4) of job_submit.lua, the file beside
 * slurm.conf: loading it, the `slurm` table of Slurm's interface
 * (slurm.log_*, slurm.user_msg, SUCCESS/ERROR, NO_VAL*, the ESLURM_*
 * codes), and each call of slurm_job_submit / slurm_job_modify. What the
 * script sees of a request is job_submit_lua_desc.c's.
 *
 * The controller is one thread on one loop, so the script runs in line,
 * within a budget: a count hook looks at the clock every HOOK_COUNT VM
 * instructions and stops the script once SL_JOB_SUBMIT_LUA_MS are over
 * (after which every instruction raises, so a pcall in the script cannot
 * swallow it; see jsl_hook), and the allocator refuses to hold more than
 * SL_JOB_SUBMIT_LUA_MEM. Either refuses the job with a message, as does
 * any runtime error; nothing the script does reaches the controller's
 * memory (every Lua API use here runs inside one protected call).
 * Caveat: the hook counts Lua instructions, so one call into a C
 * function that does not return (io.read on a pipe, os.execute, a
 * pattern match on a huge string) is not stopped; the script is the
 * site's own, run as SlurmUser, as with Slurm.
 *
 * The standard libraries are Slurm's (all of them), less what would
 * undo the budget or harm the controller: debug (but debug.traceback),
 * os.exit and os.setlocale.
 *
 * Loading: at start a missing or broken script stops the controller (as
 * Slurm's fatal error); afterwards it is loaded again when its file
 * changes (a stat per call, as Slurm) and at scontrol reconfigure, and a
 * new version that does not load leaves the old one in place.
 */
#include "job_submit_lua.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "common/conf.h"
#include "common/errprintf.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_time.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "job_submit_lua_desc.h"
#include "part_access.h"
#include "user_db.h"

/* VM instructions between two looks at the clock: a few microseconds */
#define HOOK_COUNT 1000
/* the longest error text kept for a log line or a reply */
#define ERR_TEXT_MAX 4096

struct job_submit_lua {
	lua_State *L;
	char *path;
	struct stat st;	     /* the file as loaded: a change loads it again */
	struct stat failed;  /* a change that did not load: not tried again */
	bool is_stat_failed; /* the file was gone at the last call: said once */
	size_t mem;	     /* bytes the interpreter holds */
	size_t mem_max;
	unsigned budget_ms;
	uint64_t deadline_ns; /* CLOCK_MONOTONIC; 0: nothing runs */
	bool is_expired;      /* the hook stopped the current run */
	uint64_t seq;	      /* calls so far */
	char *user_msg;	      /* slurm.log_user lines of the current call */
	size_t user_msg_len;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct job_submit_lua *jsl_of(lua_State *L)
{
	void *ud;

	lua_getallocf(L, &ud);
	return ud;
}

/* ---- the budget ---- */

/* Lua's allocator, within mem_max. A shrink never fails: Lua relies on it. */
static void *jsl_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct job_submit_lua *l = ud;
	size_t old = ptr ? osize : 0; /* without ptr, osize is a type tag */
	void *p;

	if (nsize == 0) {
		free(ptr);
		l->mem -= old;
		return NULL;
	}
	if (nsize > old
	    && (l->is_expired || l->mem > l->mem_max || nsize - old > l->mem_max - l->mem))
		return NULL;
	p = realloc(ptr, nsize);
	if (!p)
		return nsize <= old ? ptr : NULL;
	l->mem = l->mem - old + nsize;
	return p;
}

static void jsl_hook(lua_State *L, lua_Debug *ar)
{
	struct job_submit_lua *l = jsl_of(L);

	(void)ar;
	if (!l->deadline_ns || now_ns() < l->deadline_ns)
		return;
	/* Stop with a memory error: from now on the allocator refuses to
	 * grow. Lua raises it without calling a message handler (xpcall's
	 * would run with hooks off, out of the budget's reach), and the hook
	 * now runs at every instruction, so a pcall of the script catches
	 * it once and the next instruction raises it again. */
	l->is_expired = true;
	lua_sethook(L, jsl_hook, LUA_MASKCOUNT, 1);
	lua_newuserdatauv(L, 1, 0);
}

static int jsl_panic(lua_State *L)
{
	error("job_submit/lua: error outside a protected call: %s",
	      lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "(not a string)");
	return 0; /* Lua aborts */
}

/* Why a run failed, malloc'd (NULL on ENOMEM). */
static char *run_error(struct job_submit_lua *l, int status, const char *what)
{
	char *s = NULL;
	int r;

	if (l->is_expired)
		r = asprintf(&s, "job_submit.lua: %s ran over its time budget of %u ms", what,
			     l->budget_ms);
	else if (status == LUA_ERRMEM)
		r = asprintf(&s, "job_submit.lua: %s ran over its memory budget of %zu MiB", what,
			     l->mem_max >> 20);
	else if (lua_type(l->L, -1) == LUA_TSTRING)
		r = asprintf(&s, "%.*s", ERR_TEXT_MAX, lua_tostring(l->L, -1));
	else
		r = asprintf(&s, "job_submit.lua: %s raised an error object of type %s", what,
			     luaL_typename(l->L, -1));
	return r < 0 ? NULL : s;
}

typedef int jsl_step_fn(lua_State *L, void *arg);

struct jsl_step {
	jsl_step_fn *fn;
	void *arg;
};

static int step_run(lua_State *L)
{
	struct jsl_step *s = lua_touserdata(L, 1);

	return s->fn(L, s->arg);
}

/* Run fn(L, arg) protected, within the budget: 0, or -1 and why
 * (malloc'd) in *ret_why. what names the run in messages. */
static int jsl_run(struct job_submit_lua *l, jsl_step_fn *fn, void *arg, const char *what,
		   char **ret_why)
{
	struct jsl_step s = {fn, arg};
	lua_State *L = l->L;
	int status;

	lua_settop(L, 0);
	lua_sethook(L, jsl_hook, LUA_MASKCOUNT, HOOK_COUNT);
	l->is_expired = false;
	l->deadline_ns = now_ns() + (uint64_t)l->budget_ms * 1000000u;
	lua_pushcfunction(L, step_run);
	lua_pushlightuserdata(L, &s);
	status = lua_pcall(L, 1, 0, 0);
	l->deadline_ns = 0;
	if (status != LUA_OK)
		*ret_why = run_error(l, status, what);
	lua_settop(L, 0);
	return status == LUA_OK ? 0 : -1;
}

/* ---- the slurm table ---- */

/* slurm.log(level, msg): 0 info, 1 verbose, 2 debug ... 5 debug4. */
static int slurm_log(lua_State *L)
{
	lua_Integer level = luaL_optinteger(L, 1, 0);
	const char *msg = luaL_tolstring(L, 2, NULL);

	if (level < 0)
		level = 0;
	if (level > LOG_LEVEL_DEBUG4 - LOG_LEVEL_INFO)
		level = LOG_LEVEL_DEBUG4 - LOG_LEVEL_INFO;
	log_msg((enum log_level)(LOG_LEVEL_INFO + level), "lua: %s", msg);
	return 0;
}

static int slurm_error(lua_State *L)
{
	error("lua: %s", luaL_tolstring(L, 1, NULL));
	return 0;
}

/* slurm.user_msg(msg): a line for the submitter (the reply's user_msg). */
static int slurm_user_msg(lua_State *L)
{
	struct job_submit_lua *l = jsl_of(L);
	size_t len, n = l->user_msg_len;
	const char *s = luaL_tolstring(L, 1, &len);
	char *v;

	if (n + len + 2 > SL_STR_MAX)
		return luaL_error(L, "slurm.log_user: messages longer than %d bytes",
				  (int)SL_STR_MAX);
	v = realloc(l->user_msg, n + len + 2);
	if (!v)
		return luaL_error(L, "slurm.log_user: out of memory");
	if (n)
		v[n++] = '\n';
	memcpy(v + n, s, len);
	v[n + len] = '\0';
	l->user_msg = v;
	l->user_msg_len = n + len;
	return 0;
}

/* slurm.time_str2mins("1-00:00:00") = 1440; NO_VAL when malformed. */
static int slurm_time_str2mins(lua_State *L)
{
	uint32_t mins;

	lua_pushinteger(L, time_str2mins(luaL_checkstring(L, 1), &mins) < 0 ? NO_VAL : mins);
	return 1;
}

/* Slurm defines these in Lua, each a string.format of its arguments. */
static const char log_wrappers[] = "local slurm, fmt = ...\n"
				   "local log, err, user = slurm.log, slurm.error, slurm.user_msg\n"
				   "slurm.log_info = function(...) log(0, fmt(...)) end\n"
				   "slurm.log_verbose = function(...) log(1, fmt(...)) end\n"
				   "slurm.log_debug = function(...) log(2, fmt(...)) end\n"
				   "slurm.log_debug2 = function(...) log(3, fmt(...)) end\n"
				   "slurm.log_debug3 = function(...) log(4, fmt(...)) end\n"
				   "slurm.log_debug4 = function(...) log(5, fmt(...)) end\n"
				   "slurm.log_error = function(...) err(fmt(...)) end\n"
				   "slurm.log_user = function(...) user(fmt(...)) end\n";

struct lua_const {
	const char *name;
	lua_Integer v;
};

/* clang-format off */
static const struct lua_const consts[] = {
	{"SUCCESS", 0}, {"ERROR", -1}, {"FAILURE", -1},
	{"NO_VAL", NO_VAL}, {"NO_VAL16", NO_VAL16}, {"NO_VAL8", 0xfe},
	{"NO_VAL64", (lua_Integer)NO_VAL64},
	{"INFINITE", INFINITE}, {"INFINITE16", INFINITE16},
	{"INFINITE64", (lua_Integer)INFINITE64},
	{"MEM_PER_CPU", (lua_Integer)MEM_PER_CPU}, {"NICE_OFFSET", NICE_OFFSET},
	{"MAIL_JOB_BEGIN", MAIL_JOB_BEGIN}, {"MAIL_JOB_END", MAIL_JOB_END},
	{"MAIL_JOB_FAIL", MAIL_JOB_FAIL}, {"MAIL_JOB_REQUEUE", MAIL_JOB_REQUEUE},
	{"MAIL_JOB_TIME100", MAIL_JOB_TIME100}, {"MAIL_JOB_TIME90", MAIL_JOB_TIME90},
	{"MAIL_JOB_TIME890", MAIL_JOB_TIME90}, /* 22.05's spelling */
	{"MAIL_JOB_TIME80", MAIL_JOB_TIME80}, {"MAIL_JOB_TIME50", MAIL_JOB_TIME50},
	{"MAIL_JOB_STAGE_OUT", MAIL_JOB_STAGE_OUT}, {"MAIL_ARRAY_TASKS", MAIL_ARRAY_TASKS},
	{"MAIL_INVALID_DEPEND", MAIL_INVALID_DEPEND},
	{"JOB_SHARED_NONE", 0}, {"JOB_SHARED_OK", 1}, {"JOB_SHARED_USER", 2},
	{"JOB_SHARED_MCS", 3},
	{"ALLOC_SID_ADMIN_HOLD", 1}, {"ALLOC_SID_USER_HOLD", 2},
#define JSL_ERRNO_(name, num, text) {#name, num},
	SL_ERRNO_LIST(JSL_ERRNO_)
#undef JSL_ERRNO_
};
/* clang-format on */

static const luaL_Reg slurm_fns[] = {
    {"log", slurm_log},
    {"error", slurm_error},
    {"user_msg", slurm_user_msg},
    {"time_str2mins", slurm_time_str2mins},
    {NULL, NULL},
};

/* The global `slurm`. */
static void slurm_table_push(lua_State *L, const char *cluster_name)
{
	luaL_newlib(L, slurm_fns);
	for (size_t i = 0; i < ARRAY_SIZE(consts); i++) {
		lua_pushinteger(L, consts[i].v);
		lua_setfield(L, -2, consts[i].name);
	}
	if (cluster_name) {
		lua_pushstring(L, cluster_name);
		lua_setfield(L, -2, "CLUSTER_NAME");
	}
	if (luaL_loadbufferx(L, log_wrappers, sizeof(log_wrappers) - 1, "=slurm", "t") != LUA_OK)
		lua_error(L);
	lua_pushvalue(L, -2);
	lua_getglobal(L, "string");
	lua_getfield(L, -1, "format");
	lua_remove(L, -2);
	lua_call(L, 2, 0);
	lua_setglobal(L, "slurm");
}

/* Slurm's libraries, less what would undo the budget (debug.sethook) or
 * harm the controller (os.exit; os.setlocale changes how it formats
 * numbers). debug keeps traceback, for xpcall. */
static void libs_open(lua_State *L)
{
	luaL_openlibs(L);
	lua_createtable(L, 0, 1);
	lua_getglobal(L, "debug");
	lua_getfield(L, -1, "traceback");
	lua_setfield(L, -3, "traceback");
	lua_pop(L, 1);
	lua_pushvalue(L, -1);
	lua_setglobal(L, "debug");
	lua_getglobal(L, "package");
	lua_getfield(L, -1, "loaded");
	lua_pushvalue(L, -3);
	lua_setfield(L, -2, "debug"); /* require("debug") gives the same */
	lua_pop(L, 3);
	lua_getglobal(L, "os");
	lua_pushnil(L);
	lua_setfield(L, -2, "exit");
	lua_pushnil(L);
	lua_setfield(L, -2, "setlocale");
	lua_pop(L, 1);
}

/* ---- loading ---- */

struct script_reader {
	int fd;
	int err;	   /* errno of a failed read, EFBIG over max */
	size_t total, max; /* bytes read, and the most read */
	bool is_first;	   /* a first line "#!..." is skipped, as luaL_loadfile does */
	bool is_skipping;
	char buf[16384];
};

static const char *script_read(lua_State *L, void *ud, size_t *size)
{
	struct script_reader *r = ud;
	char *p, *nl;
	ssize_t n;

	(void)L;
	*size = 0;
	for (;;) {
		n = read(r->fd, r->buf, sizeof(r->buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r->err = errno;
		if (n <= 0)
			return NULL;
		r->total += (size_t)n;
		if (r->total > r->max) {
			r->err = EFBIG;
			return NULL;
		}
		p = r->buf;
		r->is_skipping |= r->is_first && *p == '#';
		r->is_first = false;
		if (r->is_skipping) {
			nl = memchr(p, '\n', (size_t)n);
			if (!nl)
				continue;
			r->is_skipping = false; /* the newline stays: line numbers hold */
			n -= nl - p;
			p = nl;
		}
		*size = (size_t)n;
		return p;
	}
}

struct load_args {
	struct script_reader *rd;
	const char *cluster_name;
};

static int load_step(lua_State *L, void *arg)
{
	struct load_args *a = arg;
	static const char *const required[] = {"slurm_job_submit", "slurm_job_modify"};

	libs_open(L);
	slurm_table_push(L, a->cluster_name);
	if (lua_load(L, script_read, a->rd, "@job_submit.lua", "t") != LUA_OK)
		return lua_error(L);
	if (a->rd->err)
		return luaL_error(L, "cannot read it: %s", strerror(a->rd->err));
	lua_call(L, 0, 1);
	if (lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) != 0)
		return luaL_error(L, "job_submit.lua: returned %d on load",
				  (int)lua_tonumber(L, -1));
	for (size_t i = 0; i < ARRAY_SIZE(required); i++)
		if (lua_getglobal(L, required[i]) != LUA_TFUNCTION)
			return luaL_error(L, "job_submit.lua: missing required function %s",
					  required[i]);
	return 0;
}

struct job_submit_lua *job_submit_lua_free(struct job_submit_lua *l)
{
	if (!l)
		return NULL;
	if (l->L) {
		/* the script's finalizers run within the budget too */
		l->is_expired = false;
		l->deadline_ns = now_ns() + (uint64_t)l->budget_ms * 1000000u;
		lua_close(l->L);
	}
	free(l->path);
	free(l->user_msg);
	free(l);
	return NULL;
}

DEFINE_FREEP(struct job_submit_lua, job_submit_lua_free)

/* A new interpreter of path's script (cluster_name: slurm.CLUSTER_NAME). */
static int jsl_load(const char *path, const char *cluster_name, struct job_submit_lua **ret,
		    struct sl_error *err)
{
	_cleanup_(job_submit_lua_freep) struct job_submit_lua *l = calloc(1, sizeof(*l));
	_cleanup_free_ struct script_reader *rd = calloc(1, sizeof(*rd));
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *why = NULL;
	struct load_args a = {rd, cluster_name};

	if (!l || !rd || !(l->path = strdup(path)))
		return errprintf(err, -ENOMEM, "%s: out of memory", path);
	l->budget_ms = SL_JOB_SUBMIT_LUA_MS;
	l->mem_max = SL_JOB_SUBMIT_LUA_MEM;
	/* O_NONBLOCK: a FIFO in its place must not stop the loop */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &l->st) < 0) {
		int e = errno;

		return errprintf(err, -e, "%s: %s", path, strerror(e));
	}
	if (!S_ISREG(l->st.st_mode))
		return errprintf(err, -EINVAL, "%s: not a regular file", path);
	*rd = (struct script_reader){.fd = fd, .max = l->mem_max, .is_first = true};
	l->L = lua_newstate(jsl_alloc, l);
	if (!l->L)
		return errprintf(err, -ENOMEM, "%s: out of memory", path);
	lua_atpanic(l->L, jsl_panic);
	if (jsl_run(l, load_step, &a, "loading", &why) < 0)
		return errprintf(err, -EINVAL, "%s: %s", path, why ? why : "out of memory");
	*ret = TAKE_PTR(l);
	return 0;
}

int job_submit_lua_load(const char *path, struct job_submit_lua **ret, struct sl_error *err)
{
	return jsl_load(path, NULL, ret, err);
}

void job_submit_lua_set_budget(struct job_submit_lua *l, unsigned ms, size_t mem_max)
{
	l->budget_ms = ms;
	l->mem_max = mem_max;
}

/* job_submit.lua in slurm.conf's directory, malloc'd. */
static char *script_path(const struct ctld *c)
{
	const char *slash = strrchr(c->conf_path, '/');
	int dir_len = slash ? (int)(slash - c->conf_path) + 1 : 0; /* with its '/' */
	char *s;

	return asprintf(&s, "%.*sjob_submit.lua", dir_len, c->conf_path) < 0 ? NULL : s;
}

/* ---- the controller's side ---- */

int job_submit_lua_init(struct ctld *c)
{
	struct sl_error err = {{0}};
	_cleanup_free_ char *path = NULL;
	int r;

	if (!(c->conf->job_submit_plugins & JOB_SUBMIT_LUA))
		return 0;
	path = script_path(c);
	if (!path)
		return -ENOMEM;
	r = jsl_load(path, c->conf->cluster_name, &c->job_submit_lua, &err);
	if (r < 0) {
		error("job_submit/lua: %s", err.text);
		return r;
	}
	info("job_submit/lua: loaded %s", path);
	return 0;
}

void job_submit_lua_fini(struct ctld *c)
{
	c->job_submit_lua = job_submit_lua_free(c->job_submit_lua);
}

/* b replaces a, keeping a's budget (a unit test's). */
static void jsl_replace(struct ctld *c, struct job_submit_lua *b)
{
	struct job_submit_lua *a = c->job_submit_lua;

	if (a)
		job_submit_lua_set_budget(b, a->budget_ms, a->mem_max);
	job_submit_lua_free(a);
	c->job_submit_lua = b;
}

int job_submit_lua_reconfigure(struct ctld *c, const struct sl_conf *conf)
{
	struct sl_error err = {{0}};
	struct job_submit_lua *l = NULL;
	_cleanup_free_ char *path = NULL;

	if (!(conf->job_submit_plugins & JOB_SUBMIT_LUA)) {
		c->job_submit_lua = job_submit_lua_free(c->job_submit_lua);
		return 0;
	}
	path = script_path(c);
	if (!path)
		return -ENOMEM;
	if (jsl_load(path, conf->cluster_name, &l, &err) < 0) {
		if (!c->job_submit_lua) {
			error("reconfigure: job_submit/lua: %s", err.text);
			return -SLURM_PLUGIN_NAME_INVALID;
		}
		error("job_submit/lua: %s; the script loaded before stays", err.text);
		if (stat(path, &c->job_submit_lua->failed) < 0) /* not tried again per call */
			memset(&c->job_submit_lua->failed, 0, sizeof(struct stat));
		return 0;
	}
	jsl_replace(c, l);
	info("job_submit/lua: loaded %s", path);
	return 0;
}

static bool is_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size
	       && a->st_mtim.tv_sec == b->st_mtim.tv_sec
	       && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The script again when its file changed since it was loaded; a change
 * that does not load leaves the old one, and is reported once. */
static void jsl_refresh(struct ctld *c)
{
	struct job_submit_lua *l = c->job_submit_lua, *nl = NULL;
	struct sl_error err = {{0}};
	struct stat st;

	if (stat(l->path, &st) < 0) {
		int e = errno;

		if (!l->is_stat_failed)
			error("job_submit/lua: %s: %s; the script loaded before stays", l->path,
			      strerror(e));
		l->is_stat_failed = true;
		return;
	}
	l->is_stat_failed = false;
	if (is_same_file(&st, &l->st) || is_same_file(&st, &l->failed))
		return;
	if (jsl_load(l->path, c->conf->cluster_name, &nl, &err) < 0) {
		error("job_submit/lua: %s; the script loaded before stays", err.text);
		l->failed = st;
		return;
	}
	info("job_submit/lua: %s changed: loaded again", l->path);
	jsl_replace(c, nl);
}

/* ---- calls ---- */

struct call_args {
	struct job_submit_lua_call *k;
	const char *fn; /* "slurm_job_submit" */
	const struct ctld *c;
	const struct part_access *access;
	const struct job *job;	/* slurm_job_modify's job_rec; NULL: submit */
	uid_t uid;		/* the last argument: who submits or modifies */
	int rc;			/* what the function returned, as our code */
	const char *bad_return; /* it returned this type instead of a number */
};

/* The function's result as our code: 0 accepts (nil too, as Slurm);
 * an errno or Slurm code refuses with it, anything else (slurm.ERROR)
 * with Slurm's "Unspecified error". */
static void call_result(lua_State *L, struct call_args *a)
{
	int is_int = 0;
	lua_Integer v = lua_tointegerx(L, -1, &is_int);

	if (lua_type(L, -1) == LUA_TNIL) {
		info("job_submit/lua: %s: non-numeric return code", a->fn);
		a->rc = 0;
	} else if (lua_type(L, -1) != LUA_TNUMBER || !is_int) {
		a->bad_return = luaL_typename(L, -1);
		a->rc = -ESLURM_UNSPECIFIED;
	} else {
		a->rc = v == 0 ? 0 : v > 0 && v <= INT_MAX ? -(int)v : -ESLURM_UNSPECIFIED;
	}
}

static int call_step(lua_State *L, void *arg)
{
	struct call_args *a = arg;
	int nargs = a->job ? 4 : 3;

	if (lua_getglobal(L, a->fn) != LUA_TFUNCTION)
		return luaL_error(L, "job_submit.lua: %s is not a function", a->fn);
	job_submit_lua_desc_push(L, a->k);
	if (a->job)
		job_submit_lua_desc_push_job(L, a->job);
	job_submit_lua_desc_push_parts(L, a->c, a->access);
	lua_pushinteger(L, a->uid);
	lua_call(L, nargs, 1);
	call_result(L, a);
	return 0;
}

/* Call a->fn: its code (0 accepts), its slurm.log_user lines in
 * *ret_msg; when it failed, why in *ret_why (logged here). */
static int jsl_call(struct job_submit_lua *l, struct call_args *a, char **ret_msg, char **ret_why)
{
	uint64_t t0 = now_ns();
	int r;

	*ret_msg = *ret_why = NULL;
	free(l->user_msg);
	l->user_msg = NULL;
	l->user_msg_len = 0;
	a->k->seq = ++l->seq;
	job_submit_lua_desc_enter(l->L, a->k);
	r = jsl_run(l, call_step, a, a->fn, ret_why);
	job_submit_lua_desc_enter(l->L, NULL);
	*ret_msg = TAKE_PTR(l->user_msg);
	l->user_msg_len = 0;
	debug2("job_submit/lua: %s took %llu us", a->fn,
	       (unsigned long long)(now_ns() - t0) / 1000);
	if (r == 0 && a->bad_return) {
		r = asprintf(ret_why, "job_submit.lua: %s returned a %s, not a number", a->fn,
			     a->bad_return);
		if (r < 0)
			*ret_why = NULL;
		r = -1;
	}
	if (r < 0) {
		error("job_submit/lua: %s", *ret_why ? *ret_why : "out of memory");
		return -ESLURM_UNSPECIFIED;
	}
	return a->rc;
}

/* The user's entry: from the cache (rpc_table.c held the request until
 * it had it); asked of NSS here only without one (a unit test's). */
static const struct user_info *user_of(struct ctld *c, uid_t uid, gid_t gid, struct user_info *own)
{
	if (c->users)
		return user_db_get(c->users, uid, gid);
	return user_db_fetch(uid, gid, own) == 0 ? own : NULL;
}

static const char *default_account(const struct ctld *c, const char *user_name)
{
	const struct user_rec *u = user_name ? assoc_user_find(&c->assoc, user_name) : NULL;

	return u ? u->default_acct : NULL;
}

int job_submit_lua_submit(struct ctld *c, struct job_desc *d, uid_t submit_uid, gid_t submit_gid,
			  char **ret_msg)
{
	/* whom the job runs as: root may submit for another user (job_submit_user) */
	bool is_for_other = submit_uid == 0 && d->user_id != NO_VAL && d->user_id != 0;
	struct job_submit_lua_call k = {
	    .desc = d,
	    .uid = is_for_other ? d->user_id : submit_uid,
	    .gid = is_for_other && d->group_id != NO_VAL ? d->group_id : submit_gid,
	};
	struct user_info own = {0};
	const struct user_info *u;
	struct part_access access;
	struct call_args a = {&k, "slurm_job_submit", c, &access, NULL, submit_uid, 0, NULL};
	char *why = NULL;
	int r;

	*ret_msg = NULL;
	if (!c->job_submit_lua)
		return 0;
	jsl_refresh(c);
	u = user_of(c, k.uid, k.gid, &own);
	k.user_name = u && u->is_found ? u->name : NULL;
	k.default_account = default_account(c, k.user_name);
	access = (struct part_access){
	    .submit_uid = submit_uid,
	    .uid = k.uid,
	    .gids = u ? u->gids : NULL,
	    .ngids = u ? u->ngids : 0,
	    .slurm_user_id = c->conf->slurm_user_id,
	};
	r = jsl_call(c->job_submit_lua, &a, ret_msg, &why);
	if (why) { /* the user learns why instead (as Slurm 23.02 tells) */
		free(*ret_msg);
		*ret_msg = why;
	}
	user_info_done(&own);
	return r;
}

/* Fields the script set that an update cannot carry: said, not applied. */
static void modify_ignored_log(uint64_t written)
{
	written &= ~job_submit_lua_desc_update_fields();
	for (unsigned i = 0; written; i++, written >>= 1)
		if (written & 1)
			info("job_submit/lua: slurm_job_modify set job_desc.%s, which an update "
			     "does not change: ignored",
			     job_submit_lua_desc_field_name(i));
}

int job_submit_lua_modify(struct ctld *c, const struct job *job, const struct update_job_msg *m,
			  uid_t uid, struct update_job_msg **ret)
{
	struct job_desc d;
	struct job_submit_lua_call k = {
	    .desc = &d,
	    .uid = job->uid,
	    .gid = job->gid,
	    .user_name = job->user_name,
	    .is_modify = true,
	};
	struct part_access access = {
	    .submit_uid = uid,
	    .uid = job->uid,
	    .gids = job->gids,
	    .ngids = job->ngids,
	    .slurm_user_id = c->conf->slurm_user_id,
	};
	struct call_args a = {&k, "slurm_job_modify", c, &access, job, uid, 0, NULL};
	_cleanup_free_ char *msg = NULL, *why = NULL;
	struct update_job_msg *u;
	int r;

	*ret = NULL;
	if (!c->job_submit_lua)
		return 0;
	jsl_refresh(c);
	if (job_submit_lua_desc_of_update(m, job, &d) < 0)
		return -ENOMEM;
	k.default_account = default_account(c, job->user_name);
	r = jsl_call(c->job_submit_lua, &a, &msg, &why);
	if (msg)
		info("job_submit/lua: Use of log.user() in job_modify is not supported. "
		     "Message discarded: (\"%s\")",
		     msg);
	if (r == 0 && !(u = calloc(1, sizeof(*u))))
		r = -ENOMEM;
	if (r == 0) {
		job_submit_lua_desc_to_update(&d, m, u);
		modify_ignored_log(k.written);
		*ret = u;
	}
	job_desc_done(&d);
	return r;
}

char *job_submit_lua_msg_join(char *a, char *b)
{
	char *s;

	if (!a || !b)
		return a ? a : b;
	if (asprintf(&s, "%s\n%s", a, b) < 0) {
		free(b);
		return a;
	}
	free(a);
	free(b);
	return s;
}
