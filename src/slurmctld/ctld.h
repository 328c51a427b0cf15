/* ctld.h - the controller's context (R2): everything the daemon owns, passed
 * explicitly. No .c; each subsystem's functions live in their own file.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct event;
struct event_base;
struct rpc_server;
struct sl_conf;
struct node;
struct part;

struct ctld {
	struct event_base *base;
	struct sl_conf *conf;        /* swapped whole on reconfigure */
	char *conf_path;
	struct node *nodes;          /* array, config order */
	uint32_t node_count;
	struct part *parts;          /* array, config order */
	uint32_t part_count;
	struct rpc_server *rpc;
	struct event *ping_timer;
	struct event *sig_term, *sig_int, *sig_hup;
	struct event *shutdown_timer;
	time_t boot_time;
	time_t node_last_update;     /* any node change */
	time_t part_last_update;
	bool is_shutting_down;
	uint32_t shutdown_pending;   /* slurmd shutdown replies still awaited */
	bool is_clean_start;         /* -c: ignore saved state */
	bool ignore_state_errors;    /* -i */
};

/* Privilege a request needs (STYLE R17). */
enum priv {
	PRIV_ANY,
	PRIV_ADMIN,  /* root or SlurmUser */
	PRIV_SLURMD, /* root or SlurmUser: daemon-originated */
};

bool ctld_is_admin(const struct ctld *c, uid_t uid);
