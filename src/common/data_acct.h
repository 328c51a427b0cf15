/* data_acct.h - accounting records as Slurm 22.05's dbv0.0.38 document:
 * `sacct --json/--yaml` and slurmrestd's GET /slurmdb/v0.0.38/jobs and
 * /slurmdb/v0.0.38/job/{id} write the same bytes through
 * data_acct_jobs_doc().
 *
 * The rows are the accounting store's (msg_acct.h) as the controller's
 * REQUEST_ACCT_QUERY returns them; which rows and steps to show is the
 * caller's choice (sacct's -j, -X ...), made before the call. Members we
 * have no data for carry Slurm's empty value; docs/json.md lists them.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/data_out.h"
#include "common/msg_acct.h"

/* The whole document: {"meta" (openapi/dbv0.0.38), "errors": [], "jobs":
 * [...]} with one object per jobs[i], in the order given. cluster names
 * the jobs' cluster (ClusterName); with_steps false writes "steps": []
 * (sacct -X). argv is the command line for meta.command (argc 0: none).
 * Errors are d's (dout_error). Uses the clock only for the elapsed time
 * of what still runs, and the passwd/group databases for names. */
void data_acct_jobs_doc(struct dout *d, const char *cluster, const struct acct_job_rec *jobs,
			size_t count, bool with_steps, int argc, char **argv);

/* Writes dbv0.0.38_job_info, dbv0.0.38_job, dbv0.0.38_job_step,
 * dbv0.0.38_job_exit_code and dbv0.0.38_tres_list as members of the
 * object open in d (the spec's "schemas"). */
void data_schemas_db(struct dout *d);

/* The record tables (the schema is dout_schema() of each). Their records
 * are the views below, not the store's rows. */
extern const struct dfield_table data_acct_job_t;	/* dbv0.0.38_job */
extern const struct dfield_table data_acct_step_t;	/* dbv0.0.38_job_step */
extern const struct dfield_table data_acct_exit_code_t; /* dbv0.0.38_job_exit_code */
extern const struct dfield_table data_acct_tres_t;	/* one dbv0.0.38_tres_list item */

/* ---- shared by data_acct.c and data_acct_step.c ---- */

/* Rows of their tables: a computed member, a nested object, a constant,
 * a member of the view at off. */
#define DA_FN(name, fn, schema, sub)                                                               \
	{                                                                                          \
		name, DF_FN, schema, 0, fn, sub                                                    \
	}
#define DA_OBJ(name, sub)                                                                          \
	{                                                                                          \
		name, DF_OBJ, 0, 0, NULL, sub                                                      \
	}
#define DA_CONST(name, type)                                                                       \
	{                                                                                          \
		name, type, 0, 0, NULL, NULL                                                       \
	}
#define DA_FIELD(name, type, off)                                                                  \
	{                                                                                          \
		name, type, 0, off, NULL, NULL                                                     \
	}

/* Last user and group looked up: a document of many jobs of one user
 * asks the databases once. */
struct dacct_names {
	uint32_t uid, gid;
	bool has_uid, has_gid;
	char user[64], group[64];
};

/* uid's name, or the number; NULL for NO_VAL/INFINITE (nobody). */
const char *dacct_user_name(struct dacct_names *n, uint32_t uid);
const char *dacct_group_name(struct dacct_names *n, uint32_t gid);

/* The record a dbv0.0.38_job is written from. */
struct dacct_job_view {
	struct acct_job_rec j; /* a shallow copy */
	const char *cluster, *group, *kill_user;
	time_t now;
	uint64_t user_usec, sys_usec; /* over its finished steps */
	bool with_steps;
	struct dacct_names *names;
};

/* The record a dbv0.0.38_job_step is written from. */
struct dacct_step_view {
	struct acct_step_rec s; /* a shallow copy */
	uint32_t job_id;
	const char *kill_user;
	time_t end; /* the step's end, else the job's; 0: running */
	time_t now;
};

/* A wait status as dbv0.0.38_job_exit_code. */
void dacct_exit_code(struct dout *d, const char *key, uint32_t status);
/* {"seconds": usec / 1e6, "microseconds": usec % 1e6}. */
void dacct_cpu_time(struct dout *d, const char *key, uint64_t usec);
/* A TRES string ("cpu=2,mem=200M,node=1,gres/gpu=1") as a tres list. */
void dacct_tres_list(struct dout *d, const char *key, const char *tres);
/* The steps of v as an array of dbv0.0.38_job_step ([] without steps). */
void dacct_steps(struct dout *d, const char *key, const struct dacct_job_view *v);
/* Seconds from start to end (now while running); 0 before the start. */
uint64_t dacct_span(time_t start, time_t end, time_t now);
/* The schema of fields written as {"seconds", "microseconds"}. */
extern const struct dfield_table dacct_cpu_time_t;
