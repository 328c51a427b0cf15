/* test_job_submit_lua.c - JobSubmitPlugins=lua: job_submit.lua on an
 * in-memory controller. Slurm's field names read and written, checks of
 * what a script writes, return codes and slurm.log_user, the budget
 * (a runaway loop, a memory bomb), load errors, runtime errors, a table
 * kept past its call, slurm_job_modify, reloads, and the config key.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/errprintf.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/share.h"
#include "common/sl_errno.h"
#include "ctld_fixture.h"
#include "slurmctld/job.h"
#include "slurmctld/job_submit_lua.h"
#include "slurmctld/job_update.h"

/* Both functions are required; most tests only need one to do something. */
#define MODIFY_OK "function slurm_job_modify(d, j, p, uid) return slurm.SUCCESS end\n"
#define SUBMIT_OK "function slurm_job_submit(d, p, uid) return slurm.SUCCESS end\n"

static char *script_write(const struct ctld_fixture *f, const char *text)
{
	char *path = NULL;
	FILE *fp;

	assert_true(asprintf(&path, "%s/job_submit.lua", f->dir) > 0);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	return path;
}

/* A controller whose job_submit.lua is text (loaded). */
static struct ctld_fixture *lua_fixture(const char *text)
{
	struct ctld_fixture *f = fixture_new("JobSubmitPlugins=lua\n");
	struct sl_error err = {{0}};
	_cleanup_free_ char *path = script_write(f, text);

	log_set_level(LOG_LEVEL_QUIET); /* the refusals' error lines are expected */
	assert_true(asprintf(&f->c.conf_path, "%s/slurm.conf", f->dir) > 0);
	if (job_submit_lua_load(path, &f->c.job_submit_lua, &err) < 0)
		fail_msg("load: %s", err.text);
	return f;
}

static void lua_fixture_free(struct ctld_fixture *f)
{
	job_submit_lua_fini(&f->c);
	free(f->c.conf_path);
	fixture_free(f);
}

/* slurm_job_submit on d as the current user. */
static int submit(struct ctld_fixture *f, struct job_desc *d, char **msg)
{
	return job_submit_lua_submit(&f->c, d, getuid(), getgid(), msg);
}

/* name is the job's: the script misbehaves only for the names it knows. */
static int submit_named(struct ctld_fixture *f, const char *name, char **msg)
{
	struct job_desc *d = fixture_desc();
	int r;

	d->name = name ? strdup(name) : NULL;
	r = submit(f, d, msg);
	job_desc_done(d);
	free(d);
	return r;
}

/* A controller of its own whose script is text, one job: its code. */
static int submit_once(const char *text, char **msg)
{
	struct ctld_fixture *f = lua_fixture(text);
	int r = submit_named(f, NULL, msg);

	lua_fixture_free(f);
	return r;
}

/* A script whose slurm_job_submit runs body, then returns ret. */
static char *body_script(const char *body, const char *ret)
{
	char *text = NULL;

	assert_true(asprintf(&text, "function slurm_job_submit(d, p, uid)\n%s\n%s\nend\n%s", body,
			     ret, MODIFY_OK)
		    > 0);
	return text;
}

static struct ctld_fixture *body_fixture(const char *body)
{
	_cleanup_free_ char *text = body_script(body, "return slurm.SUCCESS");

	return lua_fixture(text);
}

static void test_fields_read_with_slurm_names_and_unset_values(void **state)
{
	static const char body[] =
	    "slurm.log_user('%s|%s|%d|%d|%d|%s|%s|%s', tostring(d.account), tostring(d.partition),"
	    " d.time_limit, d.pn_min_cpus, d.cpus_per_task, tostring(d.min_mem_per_node),"
	    " tostring(d.environment.FOO), tostring(d.environment.NONE))\n"
	    "slurm.log_user('%s %s %s', tostring(d.pn_min_memory == slurm.NO_VAL64),"
	    " tostring(d.user_id == uid), tostring(d.user_name ~= nil))\n"
	    "slurm.log_user('%d %d %d %d %d', p.cpu.max_time, p.cpu.total_nodes,"
	    " p.cpu.flag_default, p.gpu.default_time, p.gpu.total_cpus)\n"
	    "slurm.log_user('%s', tostring(d.nosuchfield))\n"
	    "d.pn_min_memory = 512 | slurm.MEM_PER_CPU\n"
	    "slurm.log_user('%d %s %s', d.min_mem_per_cpu, tostring(d.min_mem_per_node),"
	    " tostring(d.pn_min_memory == 512 | slurm.MEM_PER_CPU))";
	struct ctld_fixture *f = body_fixture(body);
	struct job_desc *d = fixture_desc();
	_cleanup_free_ char *msg = NULL;
	char want[256];

	(void)state;
	d->account = strdup("physics");
	d->env = calloc(2, sizeof(char *));
	d->env[0] = strdup("FOO=bar");
	d->env[1] = strdup("HOME=/home/x");
	d->env_count = 2;
	assert_int_equal(submit(f, d, &msg), 0);
	snprintf(want, sizeof(want),
		 "physics|nil|%u|%u|%u|nil|bar|nil\ntrue true true\n"
		 "60 3 1 %u 4\nnil\n512 nil true",
		 NO_VAL, NO_VAL16, NO_VAL16, NO_VAL);
	assert_string_equal(msg, want);
	assert_int_equal(d->mem_per_cpu, 512);
	assert_true(d->mem_per_node == NO_VAL64);
	job_desc_done(d);
	free(d);
	lua_fixture_free(f);
}

static void test_writes_reach_the_request(void **state)
{
	static const char body[] = "d.account = 'chem'\n"
				   "d.comment = 42\n"
				   "d.time_limit = 30\n"
				   "d.min_mem_per_cpu = 2048\n"
				   "d.environment.FOO = 'baz'\n"
				   "d.environment.NEW = ''\n"
				   "d.environment.HOME = nil\n"
				   "d.gres = 'gpu:2,gres/mps:10'\n"
				   "d.pn_min_cpus = slurm.NO_VAL16\n"
				   "d.partition = ''\n"
				   "d.shared = 0\n"
				   "d.script = '#!/bin/sh\\necho changed\\n'\n"
				   "d.nosuchfield = 1\n"
				   "d.user_id = 5\n";
	struct ctld_fixture *f = body_fixture(body);
	struct job_desc *d = fixture_desc();
	char *msg = NULL;

	(void)state;
	d->partition = strdup("gpu");
	d->min_cpus = 2;
	d->env = calloc(2, sizeof(char *));
	d->env[0] = strdup("FOO=bar");
	d->env[1] = strdup("HOME=/home/x");
	d->env_count = 2;
	assert_int_equal(submit(f, d, &msg), 0);
	assert_null(msg);
	assert_string_equal(d->account, "chem");
	assert_string_equal(d->comment, "42");
	assert_int_equal(d->time_limit, 30);
	assert_int_equal(d->mem_per_cpu, 2048);
	assert_true(d->mem_per_node == NO_VAL64);
	assert_int_equal(d->env_count, 2);
	assert_string_equal(d->env[0], "FOO=baz");
	assert_string_equal(d->env[1], "NEW=");
	assert_string_equal(d->tres_per_node, "gres/gpu:2,gres/mps:10");
	assert_int_equal(d->min_cpus, 0);
	assert_null(d->partition);
	assert_true(d->flags & JOB_DESC_EXCLUSIVE);
	assert_string_equal(d->script, "#!/bin/sh\necho changed\n");
	assert_int_equal(d->user_id, NO_VAL);
	job_desc_done(d);
	free(d);
	lua_fixture_free(f);
}

static void test_bad_writes_refuse_the_job(void **state)
{
	static const struct {
		const char *stmt, *why;
	} cases[] = {
	    {"d.time_limit = {}", "job_desc.time_limit: expected an integer, got table"},
	    {"d.time_limit = -5", "job_desc.time_limit: -5 is out of range 0-4294967295"},
	    {"d.cpus_per_task = 70000", "out of range 0-65535"},
	    {"d.min_nodes = 1.5", "job_desc.min_nodes: expected an integer"},
	    {"d.name = string.rep('x', 256)", "job_desc.name: longer than 255 bytes"},
	    {"d.comment = string.rep('x', 1048576)", "job_desc.comment: longer than 1048575 bytes"},
	    {"d.account = 'a\\0b'", "job_desc.account: holds a NUL byte"},
	    {"d.partition = true", "job_desc.partition: expected a string, got boolean"},
	    {"d.environment['A=B'] = 'x'", "a variable's name is a string without '='"},
	    {"d.environment.X = {}", "job_desc.environment: expected a string, got table"},
	    {"d.min_mem_per_node = -7", "job_desc.min_mem_per_node: -7 is negative"},
	    {"d.begin_time = -1", "job_desc.begin_time: -1 is out of range"},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *text = body_script(cases[i].stmt, "return 0"), *msg = NULL;

		assert_int_equal(submit_once(text, &msg), -ESLURM_UNSPECIFIED);
		if (!msg || !strstr(msg, cases[i].why))
			fail_msg("%s: got \"%s\", want \"%s\"", cases[i].stmt, msg, cases[i].why);
	}
}

static void test_return_codes(void **state)
{
	static const struct {
		const char *ret;
		int code;
	} cases[] = {
	    {"return slurm.SUCCESS", 0},
	    {"return", 0}, /* nil: accepted, as Slurm */
	    {"return slurm.ERROR", -ESLURM_UNSPECIFIED},
	    {"return slurm.FAILURE", -ESLURM_UNSPECIFIED},
	    {"return -7", -ESLURM_UNSPECIFIED},
	    {"return slurm.ESLURM_INVALID_ACCOUNT", -ESLURM_INVALID_ACCOUNT},
	    {"return slurm.ESLURM_MISSING_TIME_LIMIT", -ESLURM_MISSING_TIME_LIMIT},
	    {"return 2051", -ESLURM_INVALID_TIME_LIMIT},
	    {"return 'no'", -ESLURM_UNSPECIFIED},
	    {"return 1.5", -ESLURM_UNSPECIFIED},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *text = body_script("", cases[i].ret), *msg = NULL;

		assert_int_equal(submit_once(text, &msg), cases[i].code);
		if (cases[i].code == 0)
			assert_null(msg);
	}
}

static void test_log_user_lines_go_back_with_the_refusal(void **state)
{
	_cleanup_free_ char *text = body_script("slurm.log_info('to the log %d', 1)\n"
						"slurm.log_user('line %d of %s', 1, 'two')\n"
						"slurm.user_msg('second')",
						"return slurm.ESLURM_ACCESS_DENIED");
	_cleanup_free_ char *msg = NULL, *joined = NULL;

	(void)state;
	assert_int_equal(submit_once(text, &msg), -ESLURM_ACCESS_DENIED);
	assert_string_equal(msg, "line 1 of two\nsecond");
	joined = job_submit_lua_msg_join(TAKE_PTR(msg), strdup("more"));
	assert_string_equal(joined, "line 1 of two\nsecond\nmore");
}

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void test_runaway_loops_are_stopped_by_the_time_budget(void **state)
{
	static const char *const names[] = {"loop",   "pcall",	 "coroutine",
					    "xpcall", "handler", "close"};
	struct ctld_fixture *f =
	    lua_fixture("local function spin() while true do end end\n"
			"function slurm_job_submit(d, p, uid)\n"
			"  if d.name == 'loop' then spin() end\n"
			"  if d.name == 'pcall' then while true do pcall(spin) end end\n"
			"  if d.name == 'coroutine' then coroutine.wrap(spin)() end\n"
			"  if d.name == 'xpcall' then while true do xpcall(spin, spin) end end\n"
			"  if d.name == 'handler' then while true do xpcall(error, spin) end end\n"
			"  if d.name == 'close' then\n"
			"    local x <close> = setmetatable({}, {__close = spin})\n"
			"  end\n"
			"  return slurm.SUCCESS\n"
			"end\n" MODIFY_OK);

	(void)state;
	job_submit_lua_set_budget(f->c.job_submit_lua, 100, SL_JOB_SUBMIT_LUA_MEM);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *msg = NULL;
		uint64_t t0 = ms_now();

		assert_int_equal(submit_named(f, names[i], &msg), -ESLURM_UNSPECIFIED);
		assert_true(ms_now() - t0 < 5000); /* ended by the budget, not by the loop */
		assert_string_equal(msg, "job_submit.lua: slurm_job_submit ran over its time "
					 "budget of 100 ms");
	}
	assert_int_equal(submit_named(f, NULL, &(char *){NULL}), 0); /* the next job is fine */
	lua_fixture_free(f);
}

static void test_memory_bombs_are_stopped_by_the_cap(void **state)
{
	struct ctld_fixture *f = lua_fixture(
	    "function slurm_job_submit(d, p, uid)\n"
	    "  if d.name == 'bomb' then\n"
	    "    local t = {}\n"
	    "    for i = 1, 1e9 do t[i] = string.rep('x', 64) .. i end\n"
	    "  end\n"
	    "  if d.name == 'rep' then return #string.rep('x', 1 << 30) end\n"
	    "  if d.name == 'caught' then\n"
	    "    while true do pcall(function() local t = {} for i = 1, 1e9 do t[i] = {} end end) "
	    "end\n"
	    "  end\n"
	    "  return slurm.SUCCESS\n"
	    "end\n" MODIFY_OK);
	_cleanup_free_ char *m1 = NULL, *m2 = NULL, *m3 = NULL, *m4 = NULL;

	(void)state;
	/* a clock far away: only the cap can stop these, however slow the
	 * machine (a sanitizer build under load takes seconds to fill 8 MiB) */
	job_submit_lua_set_budget(f->c.job_submit_lua, 600000, 8u << 20);
	assert_int_equal(submit_named(f, "bomb", &m1), -ESLURM_UNSPECIFIED);
	assert_string_equal(m1, "job_submit.lua: slurm_job_submit ran over its memory budget "
				"of 8 MiB");
	assert_int_equal(submit_named(f, "rep", &m2), -ESLURM_UNSPECIFIED);
	assert_non_null(strstr(m2, "memory budget"));
	/* caught by the script each time: the clock ends it */
	job_submit_lua_set_budget(f->c.job_submit_lua, 300, 8u << 20);
	assert_int_equal(submit_named(f, "caught", &m3), -ESLURM_UNSPECIFIED);
	assert_non_null(strstr(m3, "time budget"));
	assert_int_equal(submit_named(f, NULL, &m4), 0);
	lua_fixture_free(f);
}

static void test_load_errors_say_why(void **state)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
	    {"function slurm_job_submit(d\n", "job_submit.lua:2:"},
	    {SUBMIT_OK, "missing required function slurm_job_modify"},
	    {MODIFY_OK, "missing required function slurm_job_submit"},
	    {"error('boom')\n" SUBMIT_OK MODIFY_OK, "job_submit.lua:1: boom"},
	    {SUBMIT_OK MODIFY_OK "return 5\n", "returned 5 on load"},
	    {"while true do end\n", "loading ran over its time budget of 1000 ms"},
	};
	struct ctld_fixture *f = fixture_new(NULL);
	struct job_submit_lua *l = NULL;
	struct sl_error err = {{0}};

	(void)state;
	log_set_level(LOG_LEVEL_QUIET);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *path = script_write(f, cases[i].text);

		assert_int_equal(job_submit_lua_load(path, &l, &err), -EINVAL);
		assert_null(l);
		if (!strstr(err.text, cases[i].why) || strncmp(err.text, path, strlen(path)))
			fail_msg("got \"%s\", want \"%s: ...%s\"", err.text, path, cases[i].why);
	}
	assert_int_equal(job_submit_lua_load("/nonexistent/job_submit.lua", &l, &err), -ENOENT);
	fixture_free(f);
}

static void test_runtime_errors_refuse_with_their_message(void **state)
{
	_cleanup_free_ char *text = body_script("slurm.log_user('lost')\nlocal x\nx.y = 1", "");
	_cleanup_free_ char *msg = NULL;

	(void)state;
	assert_int_equal(submit_once(text, &msg), -ESLURM_UNSPECIFIED);
	assert_string_equal(msg, "job_submit.lua:4: attempt to index a nil value (local 'x')");
}

static void test_a_job_desc_kept_past_its_call_errors(void **state)
{
	struct ctld_fixture *f = lua_fixture("local saved\n"
					     "function slurm_job_submit(d, p, uid)\n"
					     "  if saved then return #saved.account end\n"
					     "  saved = d\n"
					     "  return slurm.SUCCESS\n"
					     "end\n" MODIFY_OK);
	_cleanup_free_ char *m1 = NULL, *m2 = NULL;

	(void)state;
	assert_int_equal(submit_named(f, NULL, &m1), 0);
	assert_int_equal(submit_named(f, NULL, &m2), -ESLURM_UNSPECIFIED);
	assert_non_null(strstr(m2, "job_desc used outside the call it was passed to"));
	lua_fixture_free(f);
}

static void test_libraries_leave_out_what_undoes_the_budget(void **state)
{
	struct ctld_fixture *f = lua_fixture(
	    "assert(os.exit == nil and os.setlocale == nil)\n"
	    "assert(debug.sethook == nil and require('debug').sethook == nil)\n"
	    "assert(type(debug.traceback) == 'function' and os.time() > 0)\n"
	    "assert(type(io.open) == 'function' and type(string.format) == 'function')\n"
	    "assert(slurm.time_str2mins('1-00:00:00') == 1440)\n"
	    "assert(slurm.time_str2mins('bad') == slurm.NO_VAL)\n"
	    "assert(slurm.ESLURM_INVALID_PARTITION_NAME == 2000 and slurm.NO_VAL64 == -2)\n"
	    "assert(getmetatable(slurm) == nil)\n" SUBMIT_OK MODIFY_OK);

	(void)state;
	lua_fixture_free(f);
}

/* An update of the name, the time limit or the priority (NULL, NO_VAL:
 * unchanged), the rest unchanged. */
static struct update_job_msg update_of(const char *name, uint32_t time_limit, uint32_t priority)
{
	struct update_job_msg m = {.name = (char *)name, .time_limit = time_limit};

	m.min_nodes = m.max_nodes = m.nice = NO_VAL;
	m.priority = priority;
	return m;
}

static void test_modify_refuses_or_changes_an_update(void **state)
{
	struct ctld_fixture *f = lua_fixture(
	    SUBMIT_OK
	    "function slurm_job_modify(d, j, p, uid)\n"
	    "  if d.time_limit ~= slurm.NO_VAL and d.time_limit > 60 then\n"
	    "    slurm.log_user('an hour at most')\n"
	    "    return slurm.ESLURM_INVALID_TIME_LIMIT\n"
	    "  end\n"
	    "  if d.priority == 0 then return slurm.ESLURM_ACCESS_DENIED end\n"
	    "  if d.name == 'x' and j.partition == 'cpu' and p.cpu and d.user_id == j.user_id "
	    "then\n"
	    "    d.name = 'renamed-' .. j.job_id\n"
	    "    d.comment = 'not carried'\n"
	    "  end\n"
	    "  return slurm.SUCCESS\n"
	    "end\n");
	struct job *job = fixture_submit(f, fixture_desc());
	struct update_job_msg m = update_of(NULL, 120, NO_VAL), *ret = NULL;
	char want[64];

	(void)state;
	assert_int_equal(job_submit_lua_modify(&f->c, job, &m, 0, &ret),
			 -ESLURM_INVALID_TIME_LIMIT);
	assert_null(ret);
	assert_int_equal(job_update(&f->c, job, &m, 0, true), -ESLURM_INVALID_TIME_LIMIT);
	m = update_of(NULL, NO_VAL, 0);
	assert_int_equal(job_update(&f->c, job, &m, 0, true), -ESLURM_ACCESS_DENIED);
	assert_int_not_equal(job->priority, 0);
	m = update_of("x", NO_VAL, NO_VAL);
	assert_int_equal(job_submit_lua_modify(&f->c, job, &m, 0, &ret), 0);
	snprintf(want, sizeof(want), "renamed-%u", job->job_id);
	assert_string_equal(ret->name, want);
	assert_int_equal(ret->time_limit, NO_VAL);
	msg_free(msg_lookup(REQUEST_UPDATE_JOB), ret);
	assert_int_equal(job_update(&f->c, job, &m, 0, true), 0);
	assert_string_equal(job->desc->name, want);
	lua_fixture_free(f);
}

static void test_a_changed_file_is_loaded_again_and_a_broken_one_is_not(void **state)
{
	struct ctld_fixture *f = lua_fixture("function slurm_job_submit(d, p, uid) return "
					     "slurm.ESLURM_INVALID_ACCOUNT end\n" MODIFY_OK);
	_cleanup_free_ char *m1 = NULL, *m2 = NULL, *m3 = NULL;

	(void)state;
	assert_int_equal(submit_named(f, NULL, &m1), -ESLURM_INVALID_ACCOUNT);
	free(script_write(f, "-- version two\n" SUBMIT_OK MODIFY_OK));
	assert_int_equal(submit_named(f, NULL, &m2), 0);
	free(script_write(f, "-- version three, broken\nfunction (\n"));
	assert_int_equal(submit_named(f, NULL, &m3), 0);
	lua_fixture_free(f);
}

static void test_init_and_reconfigure(void **state)
{
	struct ctld_fixture *f = fixture_new("JobSubmitPlugins=job_submit/lua,lua\n");
	struct sl_conf none = {0};
	_cleanup_free_ char *m1 = NULL, *m2 = NULL;

	(void)state;
	log_set_level(LOG_LEVEL_QUIET);
	assert_int_equal(f->c.conf->job_submit_plugins, JOB_SUBMIT_LUA);
	assert_true(asprintf(&f->c.conf_path, "%s/slurm.conf", f->dir) > 0);
	assert_int_not_equal(job_submit_lua_init(&f->c), 0); /* no script: no start */
	free(script_write(f, "function slurm_job_submit() return 2045 end\n" MODIFY_OK));
	assert_int_equal(job_submit_lua_init(&f->c), 0);
	free(script_write(f, "broken(\n"));
	assert_int_equal(job_submit_lua_reconfigure(&f->c, f->c.conf), 0); /* the old one stays */
	assert_int_equal(submit_named(f, NULL, &m1), -ESLURM_INVALID_ACCOUNT);
	job_submit_lua_fini(&f->c);
	assert_int_equal(job_submit_lua_reconfigure(&f->c, f->c.conf), -SLURM_PLUGIN_NAME_INVALID);
	free(script_write(f, SUBMIT_OK MODIFY_OK));
	assert_int_equal(job_submit_lua_reconfigure(&f->c, f->c.conf), 0);
	assert_int_equal(submit_named(f, NULL, &m2), 0);
	assert_int_equal(job_submit_lua_reconfigure(&f->c, &none), 0); /* lua taken out */
	assert_null(f->c.job_submit_lua);
	lua_fixture_free(f);
}

static void test_a_shared_request_keeps_its_copies_straight(void **state)
{
	struct ctld_fixture *f = body_fixture("d.script = 'new script'\n"
					      "d.environment.FOO = 'new'\n"
					      "d.environment.GONE = nil\n"
					      "d.account = 'acct2'\n"
					      "d.comment = 'own copy'\n");
	struct job_desc *d = fixture_desc();
	uint64_t blocks0, bytes0, blocks, bytes;
	_cleanup_free_ char *msg = NULL;

	(void)state;
	share_stats(&blocks0, &bytes0);
	d->env = calloc(2, sizeof(char *));
	d->env[0] = strdup("FOO=old");
	d->env[1] = strdup("GONE=1");
	d->env_count = 2;
	d->account = strdup("acct1");
	assert_int_equal(job_desc_share(d), 0);
	assert_int_equal(submit(f, d, &msg), 0);
	assert_string_equal(d->script, "new script");
	assert_int_equal(d->env_count, 1);
	assert_string_equal(d->env[0], "FOO=new");
	assert_string_equal(d->account, "acct2");
	assert_string_equal(d->comment, "own copy");
	job_desc_done(d);
	free(d);
	share_stats(&blocks, &bytes);
	assert_int_equal(blocks, blocks0); /* every shared copy given back */
	lua_fixture_free(f);
}

static void test_job_submit_plugins_names_only_lua(void **state)
{
	struct ctld_fixture *f = fixture_new(NULL);
	_cleanup_free_ char *path = NULL;
	struct sl_conf *conf = NULL;
	struct sl_error err = {{0}};
	FILE *fp;

	(void)state;
	assert_int_equal(f->c.conf->job_submit_plugins, 0);
	assert_true(asprintf(&path, "%s/other.conf", f->dir) > 0);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("SlurmctldHost=localhost\nJobSubmitPlugins=lua,pbs\n", fp);
	fclose(fp);
	assert_int_equal(conf_load(path, &conf, &err), -EINVAL);
	assert_null(conf);
	assert_non_null(strstr(err.text, ":2: JobSubmitPlugins=lua,pbs: expected lua"));
	fixture_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fields_read_with_slurm_names_and_unset_values),
	    cmocka_unit_test(test_writes_reach_the_request),
	    cmocka_unit_test(test_bad_writes_refuse_the_job),
	    cmocka_unit_test(test_return_codes),
	    cmocka_unit_test(test_log_user_lines_go_back_with_the_refusal),
	    cmocka_unit_test(test_runaway_loops_are_stopped_by_the_time_budget),
	    cmocka_unit_test(test_memory_bombs_are_stopped_by_the_cap),
	    cmocka_unit_test(test_load_errors_say_why),
	    cmocka_unit_test(test_runtime_errors_refuse_with_their_message),
	    cmocka_unit_test(test_a_job_desc_kept_past_its_call_errors),
	    cmocka_unit_test(test_libraries_leave_out_what_undoes_the_budget),
	    cmocka_unit_test(test_modify_refuses_or_changes_an_update),
	    cmocka_unit_test(test_a_changed_file_is_loaded_again_and_a_broken_one_is_not),
	    cmocka_unit_test(test_init_and_reconfigure),
	    cmocka_unit_test(test_a_shared_request_keeps_its_copies_straight),
	    cmocka_unit_test(test_job_submit_plugins_names_only_lua),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
