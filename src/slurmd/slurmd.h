/* slurmd.h - the node daemon's context (R2). No .c. */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct event;
struct event_base;
struct rpc_server;
struct sl_conf;
struct conf_node;
struct node_reg_msg;
struct rpc_req;
struct launch_op;

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
	/* launch.c */
	char *spool_dir;             /* SlurmdSpoolDir of this node, expanded */
	char *stepd_path;            /* slurmstepd next to this binary */
	char *stepd_conf;            /* absolute slurm.conf path given to stepds */
	struct launch_op *launch_ops; /* requests waiting for a stepd's answer */
};

/* register.c */
int slurmd_register_start(struct slurmd *d); /* async; retries with backoff */
void slurmd_register_stop(struct slurmd *d);
/* Fill a registration message (owned strings: free with msg free half). */
int slurmd_reg_msg_fill(struct slurmd *d, struct node_reg_msg *m);
/* req.c */
void slurmd_dispatch(void *arg, struct rpc_req *req);
