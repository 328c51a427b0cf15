/* data_spec.c - the v0.0.38 OpenAPI document (data_spec.h). */
#include "common/data_spec.h"

#include <stdio.h>

#include "common/data_acct.h"
#include "common/data_diag.h"
#include "common/data_job.h"
#include "common/data_node.h"
#include "common/data_part.h"

#define REF_BASE "#/components/schemas/"

static void ref(struct dout *d, const char *key, const char *name)
{
	char buf[128];

	snprintf(buf, sizeof(buf), REF_BASE "%s", name);
	dout_obj(d, key);
	dout_str(d, "$ref", buf);
	dout_end(d);
}

static void typed(struct dout *d, const char *key, const char *type)
{
	dout_obj(d, key);
	dout_str(d, "type", type);
	dout_end(d);
}

/* "content" with both media types of one schema. */
static void content(struct dout *d, const char *schema)
{
	dout_obj(d, "content");
	dout_obj(d, "application/json");
	ref(d, "schema", schema);
	dout_end(d);
	dout_obj(d, "application/x-yaml");
	ref(d, "schema", schema);
	dout_end(d);
	dout_end(d);
}

static void param(struct dout *d, const char *name, const char *in, const char *type)
{
	dout_obj(d, NULL);
	dout_str(d, "name", name);
	dout_str(d, "in", in);
	dout_bool(d, "required", in[0] == 'p');
	typed(d, "schema", type);
	dout_end(d);
}

/* One operation: op ("get", "post", "delete") with an optional path
 * parameter, request body schema and 200 response schema. */
struct op {
	const char *method, *id, *summary, *path_param, *body, *reply;
};

static void operation(struct dout *d, const struct op *o)
{
	dout_obj(d, o->method);
	dout_str_list(d, "tags", "slurm");
	dout_str(d, "operationId", o->id);
	dout_str(d, "summary", o->summary);
	dout_arr(d, "parameters");
	if (o->path_param)
		param(d, o->path_param, "path", "string");
	if (!o->body && o->method[0] == 'g')
		param(d, "update_time", "query", "integer");
	if (o->method[0] == 'd')
		param(d, "signal", "query", "string");
	dout_end(d);
	if (o->body) {
		dout_obj(d, "requestBody");
		dout_bool(d, "required", true);
		content(d, o->body);
		dout_end(d);
	}
	dout_obj(d, "responses");
	dout_obj(d, "200");
	dout_str(d, "description", o->summary);
	if (o->reply)
		content(d, o->reply);
	dout_end(d);
	dout_obj(d, "default");
	dout_str(d, "description", "error");
	content(d, "v0.0.38_errors_response");
	dout_end(d);
	dout_end(d);
	dout_end(d);
}

static void paths(struct dout *d)
{
	static const struct {
		const char *path;
		struct op ops[3];
	} tab[] = {
	    {"/slurm/v0.0.38/ping", {{"get", "slurmctld_ping", "ping test", 0, 0, "v0.0.38_pings"}}},
	    {"/slurm/v0.0.38/diag",
	     {{"get", "slurmctld_diag", "get diagnostics", 0, 0, "v0.0.38_diag"}}},
	    {"/slurm/v0.0.38/jobs",
	     {{"get", "slurmctld_get_jobs", "get list of jobs", 0, 0, "v0.0.38_jobs_response"}}},
	    {"/slurm/v0.0.38/job/{job_id}",
	     {{"get", "slurmctld_get_job", "get job info", "job_id", 0, "v0.0.38_jobs_response"},
	      {"post", "slurmctld_update_job", "update job", "job_id", "v0.0.38_job_properties",
	       0},
	      {"delete", "slurmctld_cancel_job", "cancel or signal job", "job_id", 0, 0}}},
	    {"/slurm/v0.0.38/job/submit",
	     {{"post", "slurmctld_submit_job", "submit new job", 0, "v0.0.38_job_submission",
	       "v0.0.38_job_submission_response"}}},
	    {"/slurm/v0.0.38/nodes",
	     {{"get", "slurmctld_get_nodes", "get all node info", 0, 0,
	       "v0.0.38_nodes_response"}}},
	    {"/slurm/v0.0.38/node/{node_name}",
	     {{"get", "slurmctld_get_node", "get node info", "node_name", 0,
	       "v0.0.38_nodes_response"}}},
	    {"/slurm/v0.0.38/partitions",
	     {{"get", "slurmctld_get_partitions", "get all partition info", 0, 0,
	       "v0.0.38_partitions_response"}}},
	    {"/slurm/v0.0.38/partition/{partition_name}",
	     {{"get", "slurmctld_get_partition", "get partition info", "partition_name", 0,
	       "v0.0.38_partitions_response"}}},
	    {"/slurmdb/v0.0.38/jobs",
	     {{"get", "slurmdbd_get_jobs", "get job list", 0, 0, "dbv0.0.38_job_info"}}},
	    {"/slurmdb/v0.0.38/job/{job_id}",
	     {{"get", "slurmdbd_get_job", "get job info", "job_id", 0, "dbv0.0.38_job_info"}}},
	};
	dout_obj(d, "paths");
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		dout_obj(d, tab[i].path);
		for (size_t k = 0; k < 3 && tab[i].ops[k].method; k++)
			operation(d, &tab[i].ops[k]);
		dout_end(d);
	}
	dout_end(d);
}

static void obj_schema_open(struct dout *d, const char *name, const char *required)
{
	dout_obj(d, name);
	dout_str(d, "type", "object");
	if (required)
		dout_str_list(d, "required", required);
	dout_obj(d, "properties");
}

static void obj_schema_close(struct dout *d)
{
	dout_end(d);
	dout_end(d);
}

static void array_of(struct dout *d, const char *key, const char *item)
{
	dout_obj(d, key);
	dout_str(d, "type", "array");
	ref(d, "items", item);
	dout_end(d);
}

static void meta_schema(struct dout *d)
{
	obj_schema_open(d, "v0.0.38_meta", NULL);
	obj_schema_open(d, "plugin", NULL);
	typed(d, "type", "string");
	typed(d, "name", "string");
	obj_schema_close(d);
	obj_schema_open(d, "Slurm", NULL);
	obj_schema_open(d, "version", NULL);
	typed(d, "major", "integer");
	typed(d, "micro", "integer");
	typed(d, "minor", "integer");
	obj_schema_close(d);
	typed(d, "release", "string");
	obj_schema_close(d);
	dout_obj(d, "command");
	dout_str(d, "type", "array");
	typed(d, "items", "string");
	dout_end(d);
	obj_schema_close(d);

	obj_schema_open(d, "v0.0.38_error", NULL);
	typed(d, "error", "string");
	typed(d, "errno", "integer");
	obj_schema_close(d);
}

/* {meta, errors, member: [item]}: what every list reply is. */
static void response(struct dout *d, const char *name, const char *member, const char *item)
{
	obj_schema_open(d, name, "meta,errors");
	ref(d, "meta", "v0.0.38_meta");
	array_of(d, "errors", "v0.0.38_error");
	if (member)
		array_of(d, member, item);
	obj_schema_close(d);
}

static void submit_schemas(struct dout *d)
{
	obj_schema_open(d, "v0.0.38_job_properties", NULL);
	static const char *const strs[] = {"account", "name", "partition", "qos",
					   "current_working_directory", "standard_output",
					   "standard_error", "standard_input", "comment",
					   "dependency", "nodes", "array", "constraints"};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		typed(d, strs[i], "string");
	typed(d, "time_limit", "integer");
	typed(d, "tasks", "integer");
	typed(d, "cpus_per_task", "integer");
	typed(d, "memory_per_node", "integer");
	typed(d, "environment", "object");
	obj_schema_close(d);

	obj_schema_open(d, "v0.0.38_job_submission", "script");
	typed(d, "script", "string");
	ref(d, "job", "v0.0.38_job_properties");
	array_of(d, "jobs", "v0.0.38_job_properties");
	obj_schema_close(d);

	obj_schema_open(d, "v0.0.38_job_submission_response", "meta,errors");
	ref(d, "meta", "v0.0.38_meta");
	array_of(d, "errors", "v0.0.38_error");
	typed(d, "job_id", "integer");
	typed(d, "step_id", "string");
	typed(d, "job_submit_user_msg", "string");
	obj_schema_close(d);

	obj_schema_open(d, "v0.0.38_ping", NULL);
	typed(d, "hostname", "string");
	typed(d, "ping", "string");
	typed(d, "mode", "string");
	typed(d, "status", "integer");
	obj_schema_close(d);
}

static void schemas(struct dout *d)
{
	dout_obj(d, "schemas");
	meta_schema(d);
	response(d, "v0.0.38_errors_response", NULL, NULL);
	dout_schema(d, data_job_table.name, &data_job_table);
	dout_schema(d, data_job_resources_table.name, &data_job_resources_table);
	dout_schema(d, data_node_table.name, &data_node_table);
	dout_schema(d, data_part_table.name, &data_part_table);
	response(d, "v0.0.38_jobs_response", "jobs", data_job_table.name);
	response(d, "v0.0.38_nodes_response", "nodes", data_node_table.name);
	response(d, "v0.0.38_partitions_response", "partitions", data_part_table.name);
	response(d, "v0.0.38_pings", "pings", "v0.0.38_ping");
	obj_schema_open(d, "v0.0.38_diag", "meta,errors,statistics");
	ref(d, "meta", "v0.0.38_meta");
	array_of(d, "errors", "v0.0.38_error");
	dout_schema(d, "statistics", &data_diag_table);
	obj_schema_close(d);
	submit_schemas(d);
	data_schemas_db(d); /* slurmrestd serves /slurmdb/v0.0.38 too */
	dout_end(d);
}

void data_openapi_v0038(struct dout *d)
{
	dout_obj(d, NULL);
	dout_str(d, "openapi", "3.0.2");
	dout_obj(d, "info");
	dout_str(d, "title", "Slurm Rest API");
	dout_str(d, "description", "The v0.0.38 API of this cluster's controller.");
	dout_str(d, "version", "0.0.38");
	dout_end(d);
	dout_arr(d, "security");
	dout_obj(d, NULL);
	dout_arr(d, "user");
	dout_end(d);
	dout_arr(d, "token");
	dout_end(d);
	dout_end(d);
	dout_end(d);
	paths(d);
	dout_obj(d, "components");
	dout_obj(d, "securitySchemes");
	static const char *const hdr[][2] = {{"user", "X-SLURM-USER-NAME"},
					     {"token", "X-SLURM-USER-TOKEN"}};
	for (size_t i = 0; i < 2; i++) {
		dout_obj(d, hdr[i][0]);
		dout_str(d, "type", "apiKey");
		dout_str(d, "name", hdr[i][1]);
		dout_str(d, "in", "header");
		dout_end(d);
	}
	dout_end(d);
	schemas(d);
	dout_end(d);
	dout_end(d);
}
