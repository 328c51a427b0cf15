/* slurmd.h - the node daemon's context (R2). No .c. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct event;
struct event_base;
struct rpc_server;
struct sl_conf;
struct conf_node;
struct node_reg_msg;
struct rpc_req;
struct rpc_handler;
struct launch_op;
struct cred_state;
struct node_step_ref;
struct pe_job;
struct health;

/* PrologFlags=Contain: what the job's extern stepd is started with. */
struct extern_req {
	uint32_t job_id, uid, gid, cpus;
	uint64_t mem; /* MB, 0: none */
	char *user, *gpus;
};

struct slurmd {
	struct event_base *base;
	struct sl_conf *conf;
	char *conf_path;
	char *node_name;
	const struct conf_node *cfg; /* this node in conf */
	char *hostname;
	char *gres;                  /* detected from gres.conf ("" none) */
	struct rpc_server *rpc;
	struct event *reg_timer;     /* registration retry with backoff */
	unsigned reg_backoff_s;
	bool is_registered;
	struct event *sig_term, *sig_int, *sig_hup;
	time_t start_time;
	uint64_t instance;           /* start_time in us: tells one run from the next */
	/* launch.c */
	char *spool_dir;             /* SlurmdSpoolDir of this node, expanded */
	char *stepd_path;            /* slurmstepd next to this binary */
	char *stepd_conf;            /* absolute slurm.conf path given to stepds */
	struct launch_op *launch_ops; /* requests waiting for a stepd's answer */
	struct cred_state *cred_state; /* credentials used here, jobs ended here */
	pid_t *stepds;               /* stepds started here, not yet reaped */
	size_t n_stepds, cap_stepds;
	struct event *sig_chld;      /* reaps them */
	/* spool.c */
	struct event *resend_timer; /* completions left by dead stepds */
	/* prolog.c */
	struct pe_job *pe_jobs;     /* jobs whose Prolog or Epilog ran or runs here */
	/* launch.c's, called by prolog.c once a job's Prolog allowed it */
	void (*extern_start)(struct slurmd *d, const struct extern_req *x);
	/* health.c */
	struct health *health;
	/* container.c: job_container/tmpfs's BasePath, made private by us */
	char *container_base;
	bool is_container_bound;
	/* reboot.c */
	pid_t reboot_pid;            /* RebootProgram running, 0: none */
};

/* register.c */
int slurmd_register_start(struct slurmd *d); /* async; retries with backoff */
void slurmd_register_stop(struct slurmd *d);
/* Fill a registration message (owned strings: free with msg free half). */
int slurmd_reg_msg_fill(struct slurmd *d, struct node_reg_msg *m);
/* spool.c */
/* Make SlurmdSpoolDir dir when missing, and refuse (-EPERM) one that is
 * not a directory (a symlink is not) of our euid, or that group or others
 * may write: the stepds make and remove the jobs' files in it by name. */
int slurmd_spool_dir_make(const char *dir);
int slurmd_spool_start(struct slurmd *d); /* resends at once, then every 10 s */
void slurmd_spool_stop(struct slurmd *d);
/* Send now each completion in the spool that no stepd holds. */
void slurmd_spool_resend(struct slurmd *d);
/* The steps this node has: live stepd sockets, and NODE_STEP_DONE for
 * completions waiting in the spool. *ret is the caller's to free. */
int slurmd_spool_steps(struct slurmd *d, struct node_step_ref **ret, uint32_t *ret_count);
/* The stepd socket path of job's step_id has no listener: its stepd died.
 * The socket goes, and what the stepd left (cgroups, processes) is killed. */
void slurmd_spool_step_died(struct slurmd *d, const char *path, uint32_t job_id, uint32_t step_id);
/* Does a slurmstepd of job_id still run here (a live socket; dead ones
 * are cleaned up as by slurmd_spool_steps)? True when the spool cannot
 * be read. */
bool slurmd_spool_job_runs(struct slurmd *d, uint32_t job_id);
/* A completion of job's step_id (SL_ALL_STEPS: of any step) waits here. */
bool slurmd_spool_has_done(struct slurmd *d, uint32_t job_id, uint32_t step_id);
/* Exposed for the unit tests: is the spool entry name, of file type mode
 * (lstat's st_mode), a step of node: a socket "<node>_<job>.<step>", or a
 * regular file "<node>_<job>.<step>.done" (ret's flags NODE_STEP_DONE)?
 * No I/O; ret is set only when true. */
bool slurmd_spool_entry(const char *name, mode_t mode, const char *node,
			struct node_step_ref *ret);
/* req.c: the handler table served (rpc_server_new's dispatch function) */
void slurmd_dispatch(void *arg, struct rpc_req *req);
/* The table's rows (for the unit tests). */
const struct rpc_handler *slurmd_rpc_handlers(size_t *ret_count);
