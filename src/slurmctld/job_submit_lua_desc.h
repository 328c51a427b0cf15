/* job_submit_lua_desc.h - what job_submit.lua sees: a request (job_desc),
 * the partitions (part_list) and, for an update, the job (job_rec), as
 * Lua tables with Slurm 22.05's field names (job_submit_lua_desc.c).
 *
 * Every function here runs inside the interpreter's protected call
 * (job_submit_lua.c): a Lua error (a bad value the script wrote, memory
 * over the interpreter's cap) unwinds to it.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct ctld;
struct job;
struct job_desc;
struct lua_State;
struct part_access;
struct update_job_msg;

/* One call into the script: what its job_desc table reads and writes.
 * The table works only while this call is the interpreter's current one
 * (job_submit_lua_desc_enter): a script that keeps it in a global gets an
 * error from it later, not memory that is gone. */
struct job_submit_lua_call {
	struct job_desc *desc;	     /* read and written in place */
	uint64_t seq;		     /* the call's number in its interpreter */
	uid_t uid;		     /* user_id: whom the job runs as */
	gid_t gid;		     /* group_id */
	const char *user_name;	     /* NULL: unknown (nil) */
	const char *default_account; /* the user's DefaultAccount, NULL: none */
	bool is_modify;		     /* slurm_job_modify: priority 0 is a hold */
	uint64_t written;	     /* bit i: field i was assigned (field_name) */
};

/* Make k the call the tables of L answer for, NULL: none (between
 * calls). L is the interpreter's main state; nothing is allocated. */
void job_submit_lua_desc_enter(struct lua_State *L, struct job_submit_lua_call *k);
/* Push k's job_desc table (a proxy: reads and writes reach k->desc). */
void job_submit_lua_desc_push(struct lua_State *L, struct job_submit_lua_call *k);
/* Push part_list: a table of the partitions a may use (RootOnly,
 * AllowGroups, as Slurm's filter), keyed by name, each a plain table. */
void job_submit_lua_desc_push_parts(struct lua_State *L, const struct ctld *c,
				    const struct part_access *a);
/* Push job_rec: the job's current fields, a plain table. */
void job_submit_lua_desc_push_job(struct lua_State *L, const struct job *job);
/* The job_desc field whose bit in written is i, NULL past the last. */
const char *job_submit_lua_desc_field_name(unsigned i);

/* A request holding what an update asks (Slurm's modify job_desc: the
 * rest unset, user_id the job's owner). 0 or -ENOMEM (ret emptied). */
int job_submit_lua_desc_of_update(const struct update_job_msg *m, const struct job *job,
				  struct job_desc *ret);
/* The update again from d (its strings taken), with what the script
 * changed; m gives what a request has no field for. ret is overwritten. */
void job_submit_lua_desc_to_update(struct job_desc *d, const struct update_job_msg *m,
				   struct update_job_msg *ret);
/* Bits of written for fields an update can carry (to_update applies them). */
uint64_t job_submit_lua_desc_update_fields(void);
