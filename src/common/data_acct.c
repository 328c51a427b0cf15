/* data_acct.c - the dbv0.0.38 job record and document (see data_acct.h).
 *
 * Each store row is copied into a view (struct dacct_job_view) with what
 * the row does not hold itself (cluster, group name, who cancelled it,
 * CPU time over its steps), and the table below writes the view. Members
 * with no data here (flags, priority, wckey, reservation name, mcs, ...) are
 * constants with Slurm's empty value; docs/json.md lists them.
 */
#include "common/data_acct.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/job_states.h"
#include "common/macros.h"

/* ---- the job record ---- */

#define JV(rec)	 ((const struct dacct_job_view *)(rec))
#define J_OFF(m) offsetof(struct dacct_job_view, m)

static void f_derived(struct dout *d, const char *k, const void *r)
{
	dacct_exit_code(d, k, JV(r)->j.derived_ec);
}

static void f_exit(struct dout *d, const char *k, const void *r)
{
	/* a job that never ran has no exit status yet */
	dacct_exit_code(d, k, JV(r)->j.start || JV(r)->j.end ? JV(r)->j.exit_code : NO_VAL);
}

static void f_elapsed(struct dout *d, const char *k, const void *r)
{
	dout_uint(d, k, dacct_span(JV(r)->j.start, JV(r)->j.end, JV(r)->now));
}

static void f_sys(struct dout *d, const char *k, const void *r)
{
	dacct_cpu_time(d, k, JV(r)->sys_usec);
}

static void f_total(struct dout *d, const char *k, const void *r)
{
	dacct_cpu_time(d, k, JV(r)->sys_usec + JV(r)->user_usec);
}

static void f_user(struct dout *d, const char *k, const void *r)
{
	dacct_cpu_time(d, k, JV(r)->user_usec);
}

static void f_empty_strings(struct dout *d, const char *k, const void *r)
{
	(void)r;
	dout_arr(d, k);
	dout_end(d);
}

static void f_nodes(struct dout *d, const char *k, const void *r)
{
	const char *n = JV(r)->j.nodes;

	dout_str(d, k, n && *n ? n : "None assigned");
}

static void f_state(struct dout *d, const char *k, const void *r)
{
	dout_str(d, k, job_state_string(JV(r)->j.state));
}

static void f_reason(struct dout *d, const char *k, const void *r)
{
	dout_str(d, k, job_reason_string((enum job_state_reason)JV(r)->j.reason));
}

static void f_steps(struct dout *d, const char *k, const void *r)
{
	dacct_steps(d, k, JV(r));
}

static void f_tres_alloc(struct dout *d, const char *k, const void *r)
{
	dacct_tres_list(d, k, JV(r)->j.tres_alloc);
}

static void f_tres_req(struct dout *d, const char *k, const void *r)
{
	dacct_tres_list(d, k, JV(r)->j.tres_req);
}

static const struct dfield comment_fields[] = {
    DA_CONST("administrator", DF_NULL),
    DA_FIELD("job", DF_STR_NULL, J_OFF(j.comment)),
    DA_CONST("system", DF_NULL),
};
static DFIELD_TABLE(comment_t, "comment", comment_fields);

static const struct dfield running_fields[] = {DA_CONST("tasks", DF_ZERO)};
static DFIELD_TABLE(running_t, "running", running_fields);
static const struct dfield max_fields[] = {DA_OBJ("running", &running_t)};
static DFIELD_TABLE(max_t, "max", max_fields);
static const struct dfield limits_fields[] = {DA_OBJ("max", &max_t)};
static DFIELD_TABLE(limits_t, "limits", limits_fields);

static const struct dfield array_fields[] = {
    DA_FIELD("job_id", DF_U32, J_OFF(j.array_job_id)),
    DA_OBJ("limits", &limits_t),
    DA_FIELD("task", DF_STR_NULL, J_OFF(j.array_task_str)),
    DA_FIELD("task_id", DF_U32_NV, J_OFF(j.array_task_id)),
};
static DFIELD_TABLE(array_t, "array", array_fields);

static const struct dfield assoc_fields[] = {
    DA_FIELD("account", DF_STR, J_OFF(j.account)),
    DA_FIELD("cluster", DF_STR, J_OFF(cluster)),
    DA_CONST("partition", DF_NULL),
    DA_FIELD("user", DF_STR, J_OFF(j.user)),
};
static DFIELD_TABLE(assoc_t, "dbv0.0.38_association_short_info", assoc_fields);

static const struct dfield time_fields[] = {
    DA_FN("elapsed", f_elapsed, DS_INTEGER, NULL),
    DA_FIELD("eligible", DF_TIME, J_OFF(j.eligible)),
    DA_FIELD("end", DF_TIME, J_OFF(j.end)),
    DA_FIELD("start", DF_TIME, J_OFF(j.start)),
    DA_FIELD("submission", DF_TIME, J_OFF(j.submit)),
    DA_CONST("suspended", DF_ZERO),
    DA_FN("system", f_sys, DS_OBJECT, &dacct_cpu_time_t),
    DA_FIELD("limit", DF_U32_NV, J_OFF(j.time_limit)),
    DA_FN("total", f_total, DS_OBJECT, &dacct_cpu_time_t),
    DA_FN("user", f_user, DS_OBJECT, &dacct_cpu_time_t),
};
static DFIELD_TABLE(time_t_, "time", time_fields);

static const struct dfield het_fields[] = {
    DA_CONST("job_id", DF_ZERO),
    DA_CONST("job_offset", DF_NULL),
};
static DFIELD_TABLE(het_t, "het", het_fields);

static const struct dfield mcs_fields[] = {DA_CONST("label", DF_EMPTY)};
static DFIELD_TABLE(mcs_t, "mcs", mcs_fields);

static const struct dfield required_fields[] = {
    DA_FIELD("CPUs", DF_U32, J_OFF(j.req_cpus)),
    DA_FIELD("memory", DF_U64, J_OFF(j.req_mem_mb)),
};
static DFIELD_TABLE(required_t, "required", required_fields);

static const struct dfield resv_fields[] = {
    DA_FIELD("id", DF_U32, J_OFF(j.resv_id)),
    /* an integer in Slurm 22.05's output and spec: there it is the name's
     * pointer read as a number, so 0 only without a reservation; ours is
     * always 0 (sacct -o Reservation has the name) */
    DA_CONST("name", DF_ZERO),
};
static DFIELD_TABLE(resv_t, "reservation", resv_fields);

static const struct dfield state_fields[] = {
    DA_FN("current", f_state, DS_STRING, NULL),
    DA_FN("reason", f_reason, DS_STRING, NULL),
};
static DFIELD_TABLE(state_t, "state", state_fields);

static const struct dfield tres_fields[] = {
    DA_FN("allocated", f_tres_alloc, DS_OBJECTS, &data_acct_tres_t),
    DA_FN("requested", f_tres_req, DS_OBJECTS, &data_acct_tres_t),
};
static DFIELD_TABLE(tres_t, "tres", tres_fields);

static const struct dfield wckey_fields[] = {
    DA_CONST("wckey", DF_EMPTY),
    DA_FN("flags", f_empty_strings, DS_STRINGS, NULL),
};
static DFIELD_TABLE(wckey_t, "wckey", wckey_fields);

static const struct dfield job_fields[] = {
    DA_FIELD("account", DF_STR, J_OFF(j.account)),
    DA_OBJ("comment", &comment_t),
    DA_FIELD("allocation_nodes", DF_U32, J_OFF(j.nnodes)),
    DA_OBJ("array", &array_t),
    DA_OBJ("association", &assoc_t),
    DA_FIELD("cluster", DF_STR, J_OFF(cluster)),
    DA_CONST("constraints", DF_EMPTY),
    DA_CONST("container", DF_NULL),
    DA_FN("derived_exit_code", f_derived, DS_OBJECT, &data_acct_exit_code_t),
    DA_OBJ("time", &time_t_),
    DA_FN("exit_code", f_exit, DS_OBJECT, &data_acct_exit_code_t),
    DA_FN("flags", f_empty_strings, DS_STRINGS, NULL),
    DA_FIELD("group", DF_STR, J_OFF(group)),
    DA_OBJ("het", &het_t),
    DA_FIELD("job_id", DF_U32, J_OFF(j.job_id)),
    DA_FIELD("name", DF_STR, J_OFF(j.name)),
    DA_OBJ("mcs", &mcs_t),
    DA_FN("nodes", f_nodes, DS_STRING, NULL),
    DA_FIELD("partition", DF_STR, J_OFF(j.partition)),
    DA_CONST("priority", DF_ZERO),
    DA_FIELD("qos", DF_STR, J_OFF(j.qos)),
    DA_OBJ("required", &required_t),
    DA_FIELD("kill_request_user", DF_STR_NULL, J_OFF(kill_user)),
    DA_OBJ("reservation", &resv_t),
    DA_OBJ("state", &state_t),
    DA_FN("steps", f_steps, DS_OBJECTS, &data_acct_step_t),
    DA_OBJ("tres", &tres_t),
    DA_FIELD("user", DF_STR, J_OFF(j.user)),
    DA_OBJ("wckey", &wckey_t),
    DA_FIELD("working_directory", DF_STR, J_OFF(j.work_dir)),
};
DFIELD_TABLE(data_acct_job_t, "dbv0.0.38_job", job_fields);

/* ---- the document ---- */

static void job_view(struct dacct_job_view *v, const struct acct_job_rec *j)
{
	v->j = *j;
	v->user_usec = v->sys_usec = 0;
	for (uint32_t i = 0; i < j->step_count; i++) {
		const struct acct_step_rec *s = &j->steps[i];

		if ((s->state & JOB_STATE_BASE) < JOB_COMPLETE)
			continue; /* Slurm adds up finished steps only, as sacct's text */
		v->user_usec += s->usage.user_usec;
		v->sys_usec += s->usage.sys_usec;
	}
	v->group = dacct_group_name(v->names, j->gid);
	/* names->user is reused by the steps: the job's member is written first */
	v->kill_user = dacct_user_name(v->names, j->kill_requid);
}

void data_acct_jobs_doc(struct dout *d, const char *cluster, const struct acct_job_rec *jobs,
			size_t count, bool with_steps, int argc, char **argv)
{
	struct dacct_names names = {0};
	struct dacct_job_view v = {
	    .cluster = cluster ? cluster : "",
	    .now = time(NULL),
	    .with_steps = with_steps,
	    .names = &names,
	};

	dout_obj(d, NULL);
	dout_meta(d, true, argc, argv);
	dout_arr(d, "jobs");
	for (size_t i = 0; i < count && !dout_error(d); i++) {
		job_view(&v, &jobs[i]);
		dout_record(d, NULL, &data_acct_job_t, &v);
	}
	dout_end(d);
	dout_end(d);
}

/* dbv0.0.38_tres_list: an array of data_acct_tres_t items. */
static void tres_list_schema(struct dout *d, const char *key)
{
	dout_obj(d, key);
	dout_str(d, "type", "array");
	dout_schema(d, "items", &data_acct_tres_t);
	dout_end(d);
}

void data_schemas_db(struct dout *d)
{
	dout_obj(d, "dbv0.0.38_job_info");
	dout_str(d, "type", "object");
	dout_obj(d, "properties");
	dout_obj(d, "meta");
	dout_str(d, "type", "object");
	dout_end(d);
	dout_obj(d, "errors");
	dout_str(d, "type", "array");
	dout_end(d);
	dout_obj(d, "jobs");
	dout_str(d, "type", "array");
	dout_schema(d, "items", &data_acct_job_t);
	dout_end(d);
	dout_end(d);
	dout_end(d);
	dout_schema(d, "dbv0.0.38_job", &data_acct_job_t);
	dout_schema(d, "dbv0.0.38_job_step", &data_acct_step_t);
	dout_schema(d, "dbv0.0.38_job_exit_code", &data_acct_exit_code_t);
	tres_list_schema(d, "dbv0.0.38_tres_list");
}
