/* data_acct_step.c - the dbv0.0.38 pieces below a job: its steps, TRES
 * lists, exit codes and CPU times, and the user and group names both
 * records write (see data_acct.h). data_acct.c calls down into it.
 *
 * A step's usage is what its stepds gathered (struct acct_usage): the
 * "requested" TRES lists are Slurm's TRESUsageIn* (max with its task and
 * node, min for a single task only, average, total) over cpu, mem, energy,
 * fs/disk, vmem and pages; "consumed" (TRESUsageOut*) is not gathered and
 * stays [].
 */
#include "common/data_acct.h"

#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/hostlist.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg_step.h"

#define STEP_LIST_MAX 65536 /* hosts written in nodes.list, at most */

/* ---- names ---- */

const char *dacct_user_name(struct dacct_names *n, uint32_t uid)
{
	struct passwd pw, *res = NULL;
	char buf[1024];

	if (uid == NO_VAL || uid == INFINITE)
		return NULL;
	if (n->has_uid && n->uid == uid)
		return n->user;
	if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res) == 0 && res)
		snprintf(n->user, sizeof(n->user), "%s", res->pw_name);
	else
		snprintf(n->user, sizeof(n->user), "%" PRIu32, uid);
	n->uid = uid;
	n->has_uid = true;
	return n->user;
}

const char *dacct_group_name(struct dacct_names *n, uint32_t gid)
{
	struct group gr, *res = NULL;
	char buf[4096];

	if (n->has_gid && n->gid == gid)
		return n->group;
	if (getgrgid_r((gid_t)gid, &gr, buf, sizeof(buf), &res) == 0 && res)
		snprintf(n->group, sizeof(n->group), "%s", res->gr_name);
	else
		snprintf(n->group, sizeof(n->group), "%" PRIu32, gid);
	n->gid = gid;
	n->has_gid = true;
	return n->group;
}

uint64_t dacct_span(time_t start, time_t end, time_t now)
{
	if (!start)
		return 0;
	if (!end)
		end = now;
	return end > start ? (uint64_t)(end - start) : 0;
}

void dacct_cpu_time(struct dout *d, const char *key, uint64_t usec)
{
	dout_obj(d, key);
	dout_uint(d, "seconds", usec / 1000000);
	dout_uint(d, "microseconds", usec % 1000000);
	dout_end(d);
}

static const struct dfield cpu_time_fields[] = {
    {"seconds", DF_ZERO, 0, 0, NULL, NULL},
    {"microseconds", DF_ZERO, 0, 0, NULL, NULL},
};
DFIELD_TABLE(dacct_cpu_time_t, "cpu_time", cpu_time_fields);

void dacct_exit_code(struct dout *d, const char *key, uint32_t status)
{
	int st = (int)status;

	dout_obj(d, key);
	if (status == NO_VAL || status == INFINITE) {
		dout_str(d, "status", "PENDING");
		dout_uint(d, "return_code", 0);
	} else if (WIFSIGNALED(st)) {
		dout_str(d, "status", "SIGNALED");
		dout_uint(d, "return_code", 0);
		dout_obj(d, "signal");
		dout_uint(d, "signal_id", (uint64_t)WTERMSIG(st));
		dout_str(d, "name", strsignal(WTERMSIG(st)));
		dout_end(d);
	} else {
		dout_str(d, "status", WEXITSTATUS(st) ? "FAILED" : "SUCCESS");
		dout_uint(d, "return_code", (uint64_t)WEXITSTATUS(st));
	}
	dout_end(d);
}

static const struct dfield signal_fields[] = {
    {"signal_id", DF_ZERO, 0, 0, NULL, NULL},
    {"name", DF_EMPTY, 0, 0, NULL, NULL},
};
static DFIELD_TABLE(signal_t, "signal", signal_fields);

static const struct dfield exit_code_fields[] = {
    {"status", DF_EMPTY, 0, 0, NULL, NULL},
    {"return_code", DF_ZERO, 0, 0, NULL, NULL},
    {"signal", DF_OBJ, 0, 0, NULL, &signal_t},
};
DFIELD_TABLE(data_acct_exit_code_t, "dbv0.0.38_job_exit_code", exit_code_fields);

/* ---- TRES lists ---- */

static const struct tres_id {
	const char *type;
	uint32_t id;
} tres_ids[] = {
    {"cpu", 1}, {"mem", 2},  {"energy", 3}, {"node", 4},    {"billing", 5},
    {"fs", 6},	{"vmem", 7}, {"pages", 8},  {"gres", 1001}, /* Slurm numbers GRES TRES from 1001 in
							       creation order */
};

static uint32_t tres_id_of(const char *type)
{
	for (size_t i = 0; i < ARRAY_SIZE(tres_ids); i++)
		if (streq(type, tres_ids[i].type))
			return tres_ids[i].id;
	return 0;
}

/* One item; name NULL writes null; task/node only for max and min. */
static void tres_item(struct dout *d, const char *type, const char *name, uint64_t count,
		      const uint32_t *task, const char *node)
{
	dout_obj(d, NULL);
	dout_str(d, "type", type);
	if (name)
		dout_str(d, "name", name);
	else
		dout_null(d, "name");
	dout_uint(d, "id", tres_id_of(type));
	dout_uint(d, "count", count);
	if (task) {
		dout_uint(d, "task", *task);
		dout_str(d, "node", node);
	}
	dout_end(d);
}

/* "200M" as MiB (the unit of mem in a TRES string), "3" as 3. */
static uint64_t tres_value(const char *v, bool is_mem)
{
	char *end;
	uint64_t n = strtoull(v, &end, 10);

	if (!is_mem)
		return n;
	switch (*end) {
	case 'K':
		return n / 1024;
	case 'G':
		return n * 1024;
	case 'T':
		return n * 1024 * 1024;
	default:
		return n;
	}
}

void dacct_tres_list(struct dout *d, const char *key, const char *tres)
{
	_cleanup_free_ char *copy = strdup(tres ? tres : "");
	char *save = NULL;

	dout_arr(d, key);
	for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *slash;

		if (!eq)
			continue;
		*eq = '\0';
		slash = strchr(tok, '/');
		if (slash)
			*slash = '\0';
		tres_item(d, tok, slash ? slash + 1 : NULL, tres_value(eq + 1, streq(tok, "mem")),
			  NULL, NULL);
	}
	dout_end(d);
}

static const struct dfield tres_fields[] = {
    {"type", DF_EMPTY, 0, 0, NULL, NULL},
    {"name", DF_STR_NULL, 0, 0, NULL, NULL},
    {"id", DF_ZERO, 0, 0, NULL, NULL},
    {"count", DF_ZERO, 0, 0, NULL, NULL},
};
DFIELD_TABLE(data_acct_tres_t, "dbv0.0.38_tres_list", tres_fields);

/* The step's TRESUsageIn list: 'x' max, 'n' min, 'a' average, 't' total. */
static void usage_list(struct dout *d, const char *key, const struct dacct_step_view *v, char what)
{
	const struct acct_usage *u = &v->s.usage;
	uint64_t cpu = (u->user_usec + u->sys_usec) / 1000000, n = u->ntasks;
	bool one = n == 1, peak = what == 'x' || what == 'n';
	const char *rss_node =
	    v->s.max_rss_node && *v->s.max_rss_node ? v->s.max_rss_node : v->s.nodes;
	const char *vm_node = v->s.max_vm_node && *v->s.max_vm_node ? v->s.max_vm_node : v->s.nodes;
	uint32_t zero = 0;

	dout_arr(d, key);
	if (n == 0 || (what == 'n' && !one)) {
		dout_end(d);
		return;
	}
	if (!peak || one)
		tres_item(d, "cpu", NULL, what == 'a' ? cpu / n : cpu, peak ? &zero : NULL,
			  v->s.nodes);
	tres_item(d, "mem", NULL,
		  (peak		 ? u->max_rss_kb
		   : what == 'a' ? u->tot_rss_kb / n
				 : u->tot_rss_kb)
		      * 1024,
		  peak ? &u->max_rss_task : NULL, rss_node);
	tres_item(d, "energy", NULL, 0, peak ? &zero : NULL, v->s.nodes);
	tres_item(d, "fs", "disk", 0, peak ? &zero : NULL, v->s.nodes);
	tres_item(d, "vmem", NULL,
		  (peak		 ? u->max_vm_kb
		   : what == 'a' ? u->tot_vm_kb / n
				 : u->tot_vm_kb)
		      * 1024,
		  peak ? &u->max_vm_task : NULL, vm_node);
	tres_item(d, "pages", NULL, 0, peak ? &zero : NULL, v->s.nodes);
	dout_end(d);
}

/* ---- the step record ---- */

#define SV(rec) ((const struct dacct_step_view *)(rec))

static void f_usage_max(struct dout *d, const char *k, const void *r)
{
	usage_list(d, k, SV(r), 'x');
}
static void f_usage_min(struct dout *d, const char *k, const void *r)
{
	usage_list(d, k, SV(r), 'n');
}
static void f_usage_ave(struct dout *d, const char *k, const void *r)
{
	usage_list(d, k, SV(r), 'a');
}
static void f_usage_tot(struct dout *d, const char *k, const void *r)
{
	usage_list(d, k, SV(r), 't');
}

static void f_empty_list(struct dout *d, const char *k, const void *r)
{
	(void)r;
	dout_arr(d, k);
	dout_end(d);
}

static void f_alloc(struct dout *d, const char *k, const void *r)
{
	dacct_tres_list(d, k, SV(r)->s.tres_alloc);
}

static void f_node_list(struct dout *d, const char *k, const void *r)
{
	struct hostlist *hl = NULL;

	dout_arr(d, k);
	if (SV(r)->s.nodes && hostlist_new(SV(r)->s.nodes, &hl) == 0) {
		size_t n = hostlist_count(hl);

		for (size_t i = 0; i < n && i < STEP_LIST_MAX; i++)
			dout_str(d, NULL, hostlist_nth(hl, i));
	}
	hostlist_free(hl);
	dout_end(d);
}

static void f_elapsed(struct dout *d, const char *k, const void *r)
{
	dout_uint(d, k, dacct_span(SV(r)->s.start, SV(r)->end, SV(r)->now));
}

static void f_sys(struct dout *d, const char *k, const void *r)
{
	dacct_cpu_time(d, k, SV(r)->s.usage.sys_usec);
}

static void f_total(struct dout *d, const char *k, const void *r)
{
	dacct_cpu_time(d, k, SV(r)->s.usage.sys_usec + SV(r)->s.usage.user_usec);
}

static void f_user(struct dout *d, const char *k, const void *r)
{
	dacct_cpu_time(d, k, SV(r)->s.usage.user_usec);
}

static void f_exit(struct dout *d, const char *k, const void *r)
{
	dacct_exit_code(d, k, SV(r)->s.exit_code);
}

static void f_state(struct dout *d, const char *k, const void *r)
{
	dout_str(d, k, job_state_string(SV(r)->s.state));
}

static void f_step_id(struct dout *d, const char *k, const void *r)
{
	char buf[32];

	if (SV(r)->s.step_id == SL_BATCH_STEP)
		snprintf(buf, sizeof(buf), "%" PRIu32 ".batch", SV(r)->job_id);
	else if (SV(r)->s.step_id == SL_EXTERN_STEP)
		snprintf(buf, sizeof(buf), "%" PRIu32 ".extern", SV(r)->job_id);
	else
		snprintf(buf, sizeof(buf), "%" PRIu32 ".%" PRIu32, SV(r)->job_id, SV(r)->s.step_id);
	dout_str(d, k, buf);
}

static void f_distribution(struct dout *d, const char *k, const void *r)
{
	(void)r;
	dout_str(d, k, "Unknown");
}

#define S_OFF(m) offsetof(struct dacct_step_view, m)

static const struct dfield nodes_fields[] = {
    DA_FN("list", f_node_list, DS_STRINGS, NULL),
    DA_FIELD("count", DF_U32, S_OFF(s.nnodes)),
    DA_FIELD("range", DF_STR, S_OFF(s.nodes)),
};
static DFIELD_TABLE(nodes_t, "nodes", nodes_fields);

static const struct dfield usage_fields[] = {
    DA_FN("max", f_usage_max, DS_OBJECTS, &data_acct_tres_t),
    DA_FN("min", f_usage_min, DS_OBJECTS, &data_acct_tres_t),
    DA_FN("average", f_usage_ave, DS_OBJECTS, &data_acct_tres_t),
    DA_FN("total", f_usage_tot, DS_OBJECTS, &data_acct_tres_t),
};
static DFIELD_TABLE(usage_t, "requested", usage_fields);

static const struct dfield out_fields[] = {
    DA_FN("max", f_empty_list, DS_OBJECTS, &data_acct_tres_t),
    DA_FN("min", f_empty_list, DS_OBJECTS, &data_acct_tres_t),
    DA_FN("average", f_empty_list, DS_OBJECTS, &data_acct_tres_t),
    DA_FN("total", f_empty_list, DS_OBJECTS, &data_acct_tres_t),
};
static DFIELD_TABLE(out_t, "consumed", out_fields);

static const struct dfield step_tres_fields[] = {
    DA_OBJ("requested", &usage_t),
    DA_OBJ("consumed", &out_t),
    DA_FN("allocated", f_alloc, DS_OBJECTS, &data_acct_tres_t),
};
static DFIELD_TABLE(step_tres_t, "tres", step_tres_fields);

static const struct dfield step_time_fields[] = {
    DA_FN("elapsed", f_elapsed, DS_INTEGER, NULL),
    DA_FIELD("end", DF_TIME, S_OFF(end)),
    DA_FIELD("start", DF_TIME, S_OFF(s.start)),
    DA_CONST("suspended", DF_ZERO),
    DA_FN("system", f_sys, DS_OBJECT, &dacct_cpu_time_t),
    DA_FN("total", f_total, DS_OBJECT, &dacct_cpu_time_t),
    DA_FN("user", f_user, DS_OBJECT, &dacct_cpu_time_t),
};
static DFIELD_TABLE(step_time_t, "time", step_time_fields);

static const struct dfield tasks_fields[] = {
    DA_FIELD("count", DF_U32, S_OFF(s.ntasks)),
};
static DFIELD_TABLE(tasks_t, "tasks", tasks_fields);

static const struct dfield freq_fields[] = {
    DA_CONST("min", DF_ZERO),
    DA_CONST("max", DF_ZERO),
};
static DFIELD_TABLE(freq_t, "requested_frequency", freq_fields);

static const struct dfield cpu_fields[] = {
    DA_OBJ("requested_frequency", &freq_t),
    DA_FN("governor", f_empty_list, DS_STRINGS, NULL),
};
static DFIELD_TABLE(cpu_t, "CPU", cpu_fields);

static const struct dfield actual_fields[] = {DA_CONST("actual_frequency", DF_ZERO)};
static DFIELD_TABLE(actual_t, "CPU", actual_fields);
static const struct dfield energy_fields[] = {DA_CONST("consumed", DF_ZERO)};
static DFIELD_TABLE(energy_t, "energy", energy_fields);
static const struct dfield stats_fields[] = {DA_OBJ("CPU", &actual_t), DA_OBJ("energy", &energy_t)};
static DFIELD_TABLE(stats_t, "statistics", stats_fields);

static const struct dfield het_fields[] = {DA_CONST("component", DF_NULL)};
static DFIELD_TABLE(het_t, "het", het_fields);

static const struct dfield step_id_fields[] = {
    DA_FIELD("job_id", DF_U32, S_OFF(job_id)),
    DA_OBJ("het", &het_t),
    DA_FN("id", f_step_id, DS_STRING, NULL),
    DA_FIELD("name", DF_STR, S_OFF(s.name)),
};
static DFIELD_TABLE(step_id_t, "step", step_id_fields);

static const struct dfield task_fields[] = {
    DA_FN("distribution", f_distribution, DS_STRING, NULL),
};
static DFIELD_TABLE(task_t, "task", task_fields);

static const struct dfield step_fields[] = {
    DA_OBJ("nodes", &nodes_t),
    DA_OBJ("tres", &step_tres_t),
    DA_OBJ("time", &step_time_t),
    DA_FN("exit_code", f_exit, DS_OBJECT, &data_acct_exit_code_t),
    DA_OBJ("tasks", &tasks_t),
    DA_CONST("pid", DF_NULL),
    DA_OBJ("CPU", &cpu_t),
    DA_FIELD("kill_request_user", DF_STR_NULL, S_OFF(kill_user)),
    DA_FN("state", f_state, DS_STRING, NULL),
    DA_OBJ("statistics", &stats_t),
    DA_OBJ("step", &step_id_t),
    DA_OBJ("task", &task_t),
};
DFIELD_TABLE(data_acct_step_t, "dbv0.0.38_job_step", step_fields);

void dacct_steps(struct dout *d, const char *key, const struct dacct_job_view *v)
{
	dout_arr(d, key);
	for (uint32_t i = 0; v->with_steps && i < v->j.step_count; i++) {
		const struct acct_step_rec *s = &v->j.steps[i];
		struct dacct_step_view sv = {
		    .s = *s,
		    .job_id = v->j.job_id,
		    .kill_user = dacct_user_name(v->names, s->kill_requid),
		    .end = s->end ? s->end : v->j.end,
		    .now = v->now,
		};

		dout_record(d, NULL, &data_acct_step_t, &sv);
	}
	dout_end(d);
}
