/* data_job.c - job records as v0.0.38 documents (data_job.h).
 *
 * The table below is the record: member order, names and types as
 * Slurm 22.05's job_response_properties. Members whose value needs a
 * mapping (states, reasons, memory, nice, arrays) are DF_FN writers.
 */
#include "common/data_job.h"

#include <grp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"

#define J(m) offsetof(struct job_info, m)
#define JREC(k) const struct job_info *j = (k)

uint32_t data_job_cpus_on(const char *spec, size_t i)
{
	for (const char *p = spec; p && *p;) {
		char *end;
		unsigned long n = strtoul(p, &end, 10), reps = 1;

		if (end == p)
			return 0;
		if (!strncmp(end, "(x", 2))
			reps = strtoul(end + 2, &end, 10), end += *end == ')';
		if (i < reps)
			return (uint32_t)n;
		i -= reps;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

static void w_flags(struct dout *d, const char *key, const void *rec)
{
	JREC(rec);
	dout_arr(d, key);
	if (j->pn_min_memory && j->pn_min_memory < NO_VAL64)
		dout_str(d, NULL, "JOB_MEM_SET");
	dout_end(d);
}

/* "billing=N" of the allocated (else requested) TRES; null without. */
static void w_billable(struct dout *d, const char *key, const void *rec)
{
	JREC(rec);
	const char *s = j->tres_alloc_str ? j->tres_alloc_str : j->tres_req_str;
	const char *b = s ? strstr(s, "billing=") : NULL;

	if (b && (b == s || b[-1] == ','))
		dout_num(d, key, strtod(b + 8, NULL));
	else
		dout_null(d, key);
}

/* gres_detail is ';'-joined per node: one string each. */
static void w_gres_detail(struct dout *d, const char *key, const void *rec)
{
	JREC(rec);
	char buf[512];

	dout_arr(d, key);
	for (const char *p = j->gres_detail; p && *p;) {
		size_t n = strcspn(p, ";");

		snprintf(buf, sizeof(buf), "%.*s", (int)n, p);
		if (n)
			dout_str(d, NULL, buf);
		p += n + (p[n] == ';');
	}
	dout_end(d);
}

static void w_group_name(struct dout *d, const char *key, const void *rec)
{
	JREC(rec);
	struct group gr, *res = NULL;
	char tmp[1024];

	if (j->group_name)
		dout_str(d, key, j->group_name);
	else if (getgrgid_r((gid_t)j->group_id, &gr, tmp, sizeof(tmp), &res) == 0 && res)
		dout_str(d, key, res->gr_name);
	else
		dout_str(d, key, "");
}

/* Memory of the job on one node (MB): per cpu times the node's cpus. */
static uint64_t mem_on(const struct job_info *j, uint32_t cpus)
{
	if (!j->pn_min_memory || j->pn_min_memory >= NO_VAL64)
		return 0;
	if (j->pn_min_memory & MEM_PER_CPU)
		return (j->pn_min_memory & ~MEM_PER_CPU) * cpus;
	return j->pn_min_memory;
}

static void w_alloc_nodes(struct dout *d, const char *key, const void *rec)
{
	JREC(rec);
	struct hostlist *hl = NULL;

	dout_arr(d, key);
	if (j->nodes && hostlist_new(j->nodes, &hl) == 0) {
		size_t n = hostlist_count(hl);
		/* without a per-node list the CPUs are spread evenly */
		uint32_t per = n ? j->num_cpus / (uint32_t)n : 0;

		for (size_t i = 0; i < n; i++) {
			uint32_t cpus = j->cpus_per_node ? data_job_cpus_on(j->cpus_per_node, i) : per;

			dout_obj(d, NULL);
			dout_obj(d, "sockets");
			dout_end(d);
			dout_str(d, "nodename", hostlist_nth(hl, i));
			dout_uint(d, "cpus_used", cpus);
			dout_uint(d, "memory_used", 0);
			dout_uint(d, "memory_allocated", mem_on(j, cpus));
			dout_end(d);
		}
	}
	hostlist_free(hl);
	dout_end(d);
}

static const struct dfield alloc_node_fields[] = {
    {"sockets", DF_FN, DS_OBJECT, 0, NULL, NULL},
    {"nodename", DF_EMPTY, 0, 0, NULL, NULL},
    {"cpus_used", DF_ZERO, 0, 0, NULL, NULL},
    {"memory_used", DF_ZERO, 0, 0, NULL, NULL},
    {"memory_allocated", DF_ZERO, 0, 0, NULL, NULL},
};
static DFIELD_TABLE(alloc_node_table, "v0.0.38_node_allocation", alloc_node_fields);

static const struct dfield resources_fields[] = {
    {"nodes", DF_STR, 0, J(nodes), NULL, NULL},
    {"allocated_cores", DF_U32, 0, J(num_cpus), NULL, NULL},
    {"allocated_hosts", DF_U32, 0, J(num_nodes), NULL, NULL},
    {"allocated_nodes", DF_FN, DS_OBJECTS, 0, w_alloc_nodes, &alloc_node_table},
};
DFIELD_TABLE(data_job_resources_table, "v0.0.38_job_resources", resources_fields);

/* Jobs holding resources get the object; pending ones {} as Slurm's. */
static void w_resources(struct dout *d, const char *key, const void *rec)
{
	JREC(rec);
	uint32_t base = j->job_state & JOB_STATE_BASE;

	if (j->nodes && *j->nodes
	    && (base == JOB_RUNNING || base == JOB_SUSPENDED || (j->job_state & JOB_COMPLETING))) {
		dout_record(d, key, &data_job_resources_table, rec);
		return;
	}
	dout_obj(d, key);
	dout_end(d);
}

static void w_state(struct dout *d, const char *key, const void *rec)
{
	dout_str(d, key, job_state_string(((const struct job_info *)rec)->job_state));
}

static void w_reason(struct dout *d, const char *key, const void *rec)
{
	dout_str(d, key, job_reason_string(((const struct job_info *)rec)->state_reason));
}

static void w_max_nodes(struct dout *d, const char *key, const void *rec)
{
	JREC(rec);
	dout_uint(d, key, j->max_nodes >= NO_VAL ? 0 : j->max_nodes);
}

static void w_nice(struct dout *d, const char *key, const void *rec)
{
	JREC(rec);
	if (j->nice == NO_VAL)
		dout_null(d, key);
	else
		dout_int(d, key, (int64_t)j->nice - (int64_t)NICE_OFFSET);
}

static void w_mem_node(struct dout *d, const char *key, const void *rec)
{
	JREC(rec);
	if (j->pn_min_memory & MEM_PER_CPU || j->pn_min_memory >= NO_VAL64)
		dout_null(d, key);
	else
		dout_uint(d, key, j->pn_min_memory);
}

static void w_mem_cpu(struct dout *d, const char *key, const void *rec)
{
	JREC(rec);
	if (!(j->pn_min_memory & MEM_PER_CPU) || j->pn_min_memory >= NO_VAL64)
		dout_null(d, key);
	else
		dout_uint(d, key, j->pn_min_memory & ~MEM_PER_CPU);
}

/* job_info.shared is scontrol's OverSubscribe (0 NO, 1 OK: the default,
 * 2 USER, 3 MCS, 4 YES); Slurm writes its default as null. */
static void w_shared(struct dout *d, const char *key, const void *rec)
{
	static const char *const names[] = {"none", NULL, "user", "mcs", "oversubscribe"};
	uint16_t s = ((const struct job_info *)rec)->shared;

	if (s < ARRAY_SIZE(names) && names[s])
		dout_str(d, key, names[s]);
	else
		dout_null(d, key);
}

static void w_show_flags(struct dout *d, const char *key, const void *rec _unused_)
{
	dout_str_list(d, key, "SHOW_ALL,SHOW_DETAIL,SHOW_LOCAL");
}

#define S(name, m) {name, DF_STR, 0, J(m), NULL, NULL}
#define U32(name, m) {name, DF_U32, 0, J(m), NULL, NULL}
#define T(name, m) {name, DF_TIME, 0, J(m), NULL, NULL}
#define K(name, type) {name, type, 0, 0, NULL, NULL}
#define F(name, schema, fn) {name, DF_FN, schema, 0, fn, NULL}

static const struct dfield job_fields[] = {
    S("account", account),
    T("accrue_time", accrue_time),
    K("admin_comment", DF_EMPTY),
    U32("array_job_id", array_job_id),
    {"array_task_id", DF_U32_NV, 0, J(array_task_id), NULL, NULL},
    U32("array_max_tasks", array_max_tasks),
    S("array_task_string", array_task_str),
    K("association_id", DF_ZERO),
    K("batch_features", DF_EMPTY),
    {"batch_flag", DF_BOOL16, 0, J(batch_flag), NULL, NULL},
    S("batch_host", batch_host),
    F("flags", DS_STRINGS, w_flags),
    K("burst_buffer", DF_EMPTY),
    K("burst_buffer_state", DF_EMPTY),
    K("cluster", DF_EMPTY),
    K("cluster_features", DF_EMPTY),
    S("command", command),
    S("comment", comment),
    K("container", DF_EMPTY),
    {"contiguous", DF_BOOL16, 0, J(contiguous), NULL, NULL},
    K("core_spec", DF_NULL),
    K("thread_spec", DF_NULL),
    K("cores_per_socket", DF_NULL),
    F("billable_tres", DS_NUMBER, w_billable),
    {"cpus_per_task", DF_U16_NV, 0, J(cpus_per_task), NULL, NULL},
    K("cpu_frequency_minimum", DF_NULL),
    K("cpu_frequency_maximum", DF_NULL),
    K("cpu_frequency_governor", DF_NULL),
    S("cpus_per_tres", cpus_per_tres),
    K("deadline", DF_ZERO),
    K("delay_boot", DF_ZERO),
    S("dependency", dependency),
    U32("derived_exit_code", derived_ec),
    T("eligible_time", eligible_time),
    T("end_time", end_time),
    S("excluded_nodes", exc_nodes),
    U32("exit_code", exit_code),
    S("features", features),
    K("federation_origin", DF_EMPTY),
    K("federation_siblings_active", DF_EMPTY),
    K("federation_siblings_viable", DF_EMPTY),
    F("gres_detail", DS_STRINGS, w_gres_detail),
    U32("group_id", group_id),
    F("group_name", DS_STRING, w_group_name),
    U32("job_id", job_id),
    {"job_resources", DF_FN, DS_OBJECT, 0, w_resources, &data_job_resources_table},
    F("job_state", DS_STRING, w_state),
    T("last_sched_evaluation", last_sched_eval),
    S("licenses", licenses),
    K("max_cpus", DF_ZERO),
    F("max_nodes", DS_INTEGER, w_max_nodes),
    K("mcs_label", DF_EMPTY),
    K("memory_per_tres", DF_EMPTY),
    S("name", name),
    S("nodes", nodes),
    F("nice", DS_INTEGER_NULL, w_nice),
    K("tasks_per_core", DF_NULL),
    {"tasks_per_node", DF_U16_Z, 0, J(ntasks_per_node), NULL, NULL},
    K("tasks_per_socket", DF_NULL),
    K("tasks_per_board", DF_ZERO),
    U32("cpus", num_cpus),
    U32("node_count", num_nodes),
    {"tasks", DF_U32_NV, 0, J(num_tasks), NULL, NULL},
    K("het_job_id", DF_ZERO),
    K("het_job_id_set", DF_EMPTY),
    K("het_job_offset", DF_ZERO),
    S("partition", partition),
    K("prefer", DF_EMPTY),
    F("memory_per_node", DS_INTEGER_NULL, w_mem_node),
    F("memory_per_cpu", DS_INTEGER_NULL, w_mem_cpu),
    {"minimum_cpus_per_node", DF_U16_Z, 0, J(pn_min_cpus), NULL, NULL},
    {"minimum_tmp_disk_per_node", DF_U32_Z, 0, J(pn_min_tmp_disk), NULL, NULL},
    K("preempt_time", DF_ZERO),
    U32("pre_sus_time", pre_sus_time),
    U32("priority", priority),
    K("profile", DF_NULL),
    S("qos", qos),
    K("reboot", DF_FALSE),
    S("required_nodes", req_nodes),
    {"requeue", DF_BOOL16, 0, J(requeue), NULL, NULL},
    K("resize_time", DF_ZERO),
    {"restart_cnt", DF_U16, 0, J(restart_cnt), NULL, NULL},
    K("resv_name", DF_EMPTY),
    F("shared", DS_ANY, w_shared),
    F("show_flags", DS_STRINGS, w_show_flags),
    K("sockets_per_board", DF_ZERO),
    K("sockets_per_node", DF_NULL),
    T("start_time", start_time),
    S("state_description", state_desc),
    F("state_reason", DS_STRING, w_reason),
    S("standard_error", std_err),
    S("standard_input", std_in),
    S("standard_output", std_out),
    T("submit_time", submit_time),
    T("suspend_time", suspend_time),
    K("system_comment", DF_EMPTY),
    {"time_limit", DF_U32_NV, 0, J(time_limit), NULL, NULL},
    {"time_minimum", DF_U32_Z, 0, J(time_min), NULL, NULL},
    K("threads_per_core", DF_NULL),
    K("tres_bind", DF_EMPTY),
    K("tres_freq", DF_EMPTY),
    S("tres_per_job", tres_per_job),
    S("tres_per_node", tres_per_node),
    S("tres_per_socket", tres_per_socket),
    S("tres_per_task", tres_per_task),
    S("tres_req_str", tres_req_str),
    S("tres_alloc_str", tres_alloc_str),
    U32("user_id", user_id),
    S("user_name", user_name),
    K("wckey", DF_EMPTY),
    S("current_working_directory", work_dir),
};
DFIELD_TABLE(data_job_table, "v0.0.38_job_response_properties", job_fields);

void data_job_record(struct dout *d, const char *key, const struct job_info *j)
{
	dout_record(d, key, &data_job_table, j);
}

/* The group names of a document: one lookup per distinct gid in a run
 * (jobs of one user come together), not one per job. */
struct gid_cache {
	uint32_t gid;
	bool valid;
	char name[256];
};

static const char *group_of(struct gid_cache *c, uint32_t gid)
{
	struct group gr, *res = NULL;
	char tmp[1024];

	if (c->valid && c->gid == gid)
		return c->name;
	c->gid = gid;
	c->valid = true;
	if (getgrgid_r((gid_t)gid, &gr, tmp, sizeof(tmp), &res) == 0 && res)
		snprintf(c->name, sizeof(c->name), "%s", res->gr_name);
	else
		c->name[0] = '\0';
	return c->name;
}

void data_jobs_doc_begin(struct dout *d, int argc, char **argv)
{
	dout_obj(d, NULL);
	dout_meta(d, false, argc, argv);
	dout_arr(d, "jobs");
}

void data_jobs_doc_add(struct dout *d, const struct job_info_msg *m, data_job_keep_fn *keep,
		       void *arg)
{
	struct gid_cache gc = {.valid = false};

	for (uint32_t i = 0; m && i < m->count; i++) {
		struct job_info j = m->jobs[i];

		if (keep && !keep(&j, arg))
			continue;
		if (!j.group_name)
			j.group_name = (char *)group_of(&gc, j.group_id);
		dout_record(d, NULL, &data_job_table, &j);
	}
}

void data_jobs_doc_end(struct dout *d)
{
	dout_end(d);
	dout_end(d);
}

void data_jobs_doc(struct dout *d, const struct job_info_msg *m, data_job_keep_fn *keep,
		   void *arg, int argc, char **argv)
{
	data_jobs_doc_begin(d, argc, argv);
	data_jobs_doc_add(d, m, keep, arg);
	data_jobs_doc_end(d);
}
