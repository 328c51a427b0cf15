/* job_submit_lua.h - JobSubmitPlugins=lua: the site's job_submit.lua,
 * beside slurm.conf, sees every submission and every job update with
 * Slurm 22.05's interface and may change or refuse it
 * (job_submit_lua.c; docs/job-submit-lua.md).
 */
#pragma once
#include <stddef.h>
#include <sys/types.h>

struct ctld;
struct job;
struct job_desc;
struct sl_conf;
struct sl_error;
struct update_job_msg;
struct job_submit_lua;

/* Load path into an interpreter of its own: compile it, run its main
 * chunk (within the budget, SL_JOB_SUBMIT_LUA_MS and _MEM), check that
 * it defines slurm_job_submit and slurm_job_modify. 0 and *ret, or a
 * negative code and err saying why (*ret untouched). */
int job_submit_lua_load(const char *path, struct job_submit_lua **ret, struct sl_error *err);
struct job_submit_lua *job_submit_lua_free(struct job_submit_lua *l); /* NULL-safe */

/* subsystems[] (main.c): with JobSubmitPlugins=lua, load the script;
 * one that is missing or does not load stops the start, as Slurm's
 * fatal error does. */
int job_submit_lua_init(struct ctld *c);
void job_submit_lua_fini(struct ctld *c);
/* scontrol reconfigure, before conf replaces c->conf: load the script
 * again (or drop it when conf has no lua). One that does not load keeps
 * the script loaded before; with none before, the reconfigure is refused
 * (-SLURM_PLUGIN_NAME_INVALID) and nothing changed. */
int job_submit_lua_reconfigure(struct ctld *c, const struct sl_conf *conf);

/* slurm_job_submit(job_desc, part_list, submit_uid) on d, a request sent
 * by submit_uid/submit_gid (root may submit for d->user_id): the script
 * changes d in place or refuses it. 0 when accepted (also when there is
 * no script), else the refusal's negative code. *ret_msg: the script's
 * slurm.log_user lines, or why it failed, for the reply (malloc'd, NULL
 * when none), set in both cases. The file is loaded again first when it
 * changed on disk (a stat per call). */
int job_submit_lua_submit(struct ctld *c, struct job_desc *d, uid_t submit_uid, gid_t submit_gid,
			  char **ret_msg);
/* slurm_job_modify(job_desc, job_rec, part_list, modify_uid) on the
 * update m of job by uid. 0 and *ret NULL without a script; 0 and *ret
 * the update as the script left it (free with msg_free); or the
 * refusal's negative code (*ret NULL). Its slurm.log_user lines are
 * logged, not returned: the update's reply carries no text (Slurm 22.05
 * discards them too). */
int job_submit_lua_modify(struct ctld *c, const struct job *job, const struct update_job_msg *m,
			  uid_t uid, struct update_job_msg **ret);
/* The script's message a, then b's (both taken): "a\nb", a, b or NULL. */
char *job_submit_lua_msg_join(char *a, char *b);

/* Exposed for unit testing only: a budget other than the defaults. */
void job_submit_lua_set_budget(struct job_submit_lua *l, unsigned ms, size_t mem_max);
