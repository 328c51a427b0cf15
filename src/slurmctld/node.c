/* node.c - node records and their state machine; see node.h.
 *
 * States follow Slurm: UNKNOWN (+NO_RESPOND) until the slurmd registers,
 * then IDLE; admins add DRAIN/FAIL flags or set DOWN; the ping timer adds
 * NO_RESPOND and after SlurmdTimeout sets DOWN "Not responding".
 * ReturnToService decides whether a DOWN node comes back on registration:
 * 0 never, 1 only when we downed it for not responding, 2 always.
 */
#include "node.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/feature_expr.h"
#include "common/gres_detect.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_mem.h"
#include "common/sl_errno.h"
#include "common/states.h"
#include "common/tres.h"
#include "ctld.h"

#define REASON_NOT_RESPONDING "Not responding"

static void node_done(struct node *n)
{
	free(n->reason);
	free(n->arch);
	free(n->os);
	free(n->version);
	free(n->gres_reported);
	free(n->partitions);
	free(n->features);
	free(n->features_act);
	*n = (struct node){ 0 };
}

const char *node_features(const struct node *n)
{
	return n->features ? n->features : n->cfg->features;
}

const char *node_features_act(const struct node *n)
{
	return n->features_act ? n->features_act : node_features(n);
}

const char *node_name(const struct node *n)
{
	return n->cfg->name;
}

static void node_init(struct node *n, const struct conf_node *cfg)
{
	*n = (struct node){
	    .cfg = cfg,
	    .weight = cfg->weight,
	    .state = NODE_STATE_UNKNOWN | NODE_STATE_NO_RESPOND,
	    .reason_uid = NO_VAL,
	    .cpu_load = NO_VAL,
	    .free_mem = NO_VAL64,
	    .reboot_next_state = NO_VAL,
	};
	if (cfg->state && strcaseeq(cfg->state, "FUTURE"))
		n->state = NODE_STATE_FUTURE;
	else if (cfg->state && (strcaseeq(cfg->state, "DOWN") || strcaseeq(cfg->state, "DRAIN"))) {
		n->state = strcaseeq(cfg->state, "DOWN") ? NODE_STATE_DOWN | NODE_STATE_NO_RESPOND
							 : n->state | NODE_STATE_DRAIN;
		n->reason = strdup(cfg->reason ? cfg->reason : "(null)");
		n->reason_time = time(NULL);
		n->reason_uid = 0;
	}
}

static int order_cmp(const void *a, const void *b, void *arg)
{
	const struct ctld *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t wx = c->nodes[x].weight, wy = c->nodes[y].weight;

	if (wx != wy)
		return wx < wy ? -1 : 1;
	return (x > y) - (x < y);
}

/* cons_tres takes nodes by Weight (lowest first), then in config order;
 * NULL (index order) when every weight is the same or out of memory. */
static void node_order_build(struct ctld *c)
{
	bool is_weighted = false;

	free(c->node_order);
	c->node_order = NULL;
	for (uint32_t i = 1; i < c->node_count && !is_weighted; i++)
		is_weighted = c->nodes[i].weight != c->nodes[0].weight;
	if (!is_weighted)
		return;
	c->node_order = calloc(c->node_count, sizeof(*c->node_order));
	if (!c->node_order) {
		error(
		    "node table: no memory for the Weight order; nodes are taken in config order");
		return;
	}
	for (uint32_t i = 0; i < c->node_count; i++)
		c->node_order[i] = i;
	qsort_r(c->node_order, c->node_count, sizeof(*c->node_order), order_cmp, c);
}

int node_table_build(struct ctld *c)
{
	c->nodes = calloc(c->conf->node_count ? c->conf->node_count : 1, sizeof(*c->nodes));
	if (!c->nodes)
		return -ENOMEM;
	c->node_count = c->conf->node_count;
	for (uint32_t i = 0; i < c->node_count; i++)
		node_init(&c->nodes[i], &c->conf->nodes[i]);
	node_order_build(c);
	c->node_last_update = time(NULL);
	return 0;
}

int node_table_rebuild(struct ctld *c, uint32_t **ret_map)
{
	struct node *old = c->nodes;
	uint32_t old_count = c->node_count;
	struct node *nodes;
	uint32_t *map;

	nodes = calloc(c->conf->node_count ? c->conf->node_count : 1, sizeof(*nodes));
	map = calloc(old_count ? old_count : 1, sizeof(*map));
	if (!nodes || !map) {
		free(nodes);
		free(map);
		return -ENOMEM;
	}
	for (uint32_t j = 0; j < old_count; j++)
		map[j] = NO_VAL;
	for (uint32_t i = 0; i < c->conf->node_count; i++) {
		const struct conf_node *cfg = &c->conf->nodes[i];
		uint32_t prev = NO_VAL;

		for (uint32_t j = 0; j < old_count && prev == NO_VAL; j++)
			if (old[j].cfg && streq(old[j].cfg->name, cfg->name))
				prev = j;
		if (prev != NO_VAL) {
			nodes[i] = old[prev]; /* moves the strings and the usage */
			nodes[i].cfg = cfg;
			nodes[i].weight = cfg->weight; /* as Slurm: slurm.conf's again */
			free(nodes[i].features);
			free(nodes[i].features_act);
			nodes[i].features = nodes[i].features_act = NULL;
			free(nodes[i].partitions);
			nodes[i].partitions = NULL;
			old[prev] = (struct node){0};
			map[prev] = i;
		} else {
			node_init(&nodes[i], cfg);
		}
	}
	for (uint32_t j = 0; j < old_count; j++)
		node_done(&old[j]);
	free(old);
	c->nodes = nodes;
	c->node_count = c->conf->node_count;
	node_order_build(c);
	c->node_last_update = time(NULL);
	*ret_map = map;
	return 0;
}

void node_table_free(struct ctld *c)
{
	for (uint32_t i = 0; c->nodes && i < c->node_count; i++)
		node_done(&c->nodes[i]);
	free(c->nodes);
	free(c->node_order);
	c->nodes = NULL;
	c->node_order = NULL;
	c->node_count = 0;
}

struct node *node_find(struct ctld *c, const char *name)
{
	for (uint32_t i = 0; i < c->node_count; i++)
		if (streq(c->nodes[i].cfg->name, name))
			return &c->nodes[i];
	return NULL;
}

void node_set_reason(struct node *n, const char *reason, uint32_t uid, time_t now)
{
	char *copy = sdup(reason); /* reason may be n->reason itself */

	free(n->reason);
	n->reason = copy;
	n->reason_uid = copy ? uid : NO_VAL;
	n->reason_time = copy ? now : 0;
}

void node_reason_append(struct node *n, const char *what, time_t now)
{
	char *s = NULL;

	if (!n->reason) {
		node_set_reason(n, what, n->reason_uid, now);
		return;
	}
	if (strstr(n->reason, what))
		return;
	if (asprintf(&s, "%s : %s", n->reason, what) < 0)
		return;
	free(n->reason);
	n->reason = s;
	n->reason_time = now;
}

void node_reboot_clear(struct node *n, time_t now)
{
	if (n->is_reboot_asap) {
		n->state &= ~NODE_STATE_DRAIN;
		if (!(n->state & NODE_STATE_FAIL))
			node_set_reason(n, NULL, 0, now);
	}
	n->state &= ~(NODE_STATE_REBOOT_REQUESTED | NODE_STATE_REBOOT_ISSUED);
	n->reboot_next_state = NO_VAL;
	n->is_reboot_asap = false;
	n->boot_req_time = 0;
	n->reboot_old_instance = 0;
}

/* Did the registration m come from a slurmd started after the reboot was
 * issued (a new boot, or on the local cluster a new slurmd)? */
static bool node_rebooted(const struct node *n, const struct node_reg_msg *m)
{
	return m->boot_time > n->boot_req_time
	       || (m->instance && m->instance != n->reboot_old_instance);
}

/* The node is back from an issued reboot: to DOWN with nextstate=DOWN,
 * otherwise in service (undrained after ASAP or nextstate=RESUME). */
static void node_reboot_done(struct ctld *c, struct node *n, time_t now)
{
	uint32_t next = n->reboot_next_state;
	bool undrain = n->is_reboot_asap || next != NO_VAL;

	info("Node %s rebooted %ld secs ago", node_name(n), (long)(now - n->boot_req_time));
	n->state &= ~(NODE_STATE_REBOOT_ISSUED | NODE_STATE_REBOOT_REQUESTED);
	if (undrain)
		n->state &= ~NODE_STATE_DRAIN;
	if (next == NODE_UPDATE_DOWN) {
		n->state = (n->state & NODE_STATE_FLAGS) | NODE_STATE_DOWN;
		n->is_down_no_respond = false;
		node_reason_append(n, "reboot complete", now);
	} else {
		if ((n->state & NODE_STATE_BASE) == NODE_STATE_DOWN)
			n->state = (n->state & NODE_STATE_FLAGS) | NODE_STATE_IDLE;
		node_update_alloc_state(n);
		n->is_down_no_respond = false;
		if (!(n->state & (NODE_STATE_DRAIN | NODE_STATE_FAIL)))
			node_set_reason(n, NULL, 0, now);
		n->last_busy = now;
	}
	n->reboot_next_state = NO_VAL;
	n->is_reboot_asap = false;
	n->boot_req_time = 0;
	n->reboot_old_instance = 0;
	c->node_last_update = now;
}

static void replace_str(char **dst, const char *src)
{
	free(*dst);
	*dst = sdup(src);
}

/* Without config_overrides a node reporting less than configured is
 * drained with Slurm's reason text. Returns the reason or NULL. */
static char *node_check_hw(const struct conf_node *cfg, const struct node_reg_msg *m)
{
	uint32_t want = (uint32_t)cfg->sockets * cfg->cores_per_socket * cfg->threads_per_core;
	uint32_t have = (uint32_t)m->sockets * m->cores * m->threads;
	char *reason = NULL;

	if (have < want)
		reason = strdup("Low socket*core*thread count");
	else if (m->cpus < cfg->cpus)
		reason = strdup("Low CPUs");
	else if (m->real_memory < cfg->real_memory) {
		if (asprintf(&reason, "Low RealMemory (reported:%llu < 100.00%% of configured:%llu)",
			     (unsigned long long)m->real_memory,
			     (unsigned long long)cfg->real_memory) < 0)
			reason = NULL;
	} else if (m->tmp_disk < cfg->tmp_disk)
		reason = strdup("Low TmpDisk");
	return reason;
}

static bool node_may_return(const struct ctld *c, const struct node *n)
{
	switch (c->conf->return_to_service) {
	case 0:
		return false;
	case 1:
		return n->is_down_no_respond;
	default:
		return true;
	}
}

uint32_t node_alloc_cpus(const struct node *n)
{
	uint32_t used = (uint32_t)n->cpus_used + n->cpus_shared;

	return used < n->cfg->cpus ? used : n->cfg->cpus;
}

void node_update_alloc_state(struct node *n)
{
	uint32_t base = n->state & NODE_STATE_BASE;
	uint32_t want, used = node_alloc_cpus(n);

	if (base != NODE_STATE_IDLE && base != NODE_STATE_MIXED && base != NODE_STATE_ALLOCATED)
		return;
	want = used == 0 && !n->is_exclusive_used ? NODE_STATE_IDLE
	     : used >= n->cfg->cpus || n->is_exclusive_used ? NODE_STATE_ALLOCATED
							      : NODE_STATE_MIXED;
	n->state = (n->state & NODE_STATE_FLAGS) | want;
}

bool node_register(struct ctld *c, struct node *n, const struct node_reg_msg *m, time_t now)
{
	uint32_t base = n->state & NODE_STATE_BASE;
	bool changed = false, stay_down = false;
	char *bad = NULL;

	replace_str(&n->arch, m->arch);
	replace_str(&n->os, m->os);
	replace_str(&n->version, m->version);
	replace_str(&n->gres_reported, m->gres);
	n->cpu_load = m->cpu_load;
	n->free_mem = m->free_mem;
	if ((n->state & NODE_STATE_REBOOT_ISSUED) && node_rebooted(n, m)) {
		stay_down = n->reboot_next_state == NODE_UPDATE_DOWN;
		node_reboot_done(c, n, now);
		changed = true;
		base = n->state & NODE_STATE_BASE;
	}
	n->boot_time = m->boot_time;
	n->slurmd_start_time = m->slurmd_start_time;
	n->slurmd_instance = m->instance;
	n->last_response = now;
	n->state &= ~NODE_STATE_NO_RESPOND;

	if (!c->conf->config_overrides)
		bad = node_check_hw(n->cfg, m);
	if (bad) {
		if (!(n->state & NODE_STATE_DRAIN) || !n->reason || !streq(n->reason, bad)) {
			error("Node %s has low hardware: %s", node_name(n), bad);
			n->state |= NODE_STATE_DRAIN;
			node_set_reason(n, bad, c->conf->slurm_user_id, now);
			changed = true;
		}
		free(bad);
	}
	if (base == NODE_STATE_UNKNOWN) {
		n->state = (n->state & NODE_STATE_FLAGS) | NODE_STATE_IDLE;
		node_update_alloc_state(n); /* recovered jobs may run here */
		n->last_busy = now;
	} else if (base == NODE_STATE_DOWN && !stay_down && node_may_return(c, n)) {
		info("Node %s returned to service", node_name(n));
		n->state = (n->state & NODE_STATE_FLAGS) | NODE_STATE_IDLE;
		node_update_alloc_state(n);
		if (!(n->state & (NODE_STATE_DRAIN | NODE_STATE_FAIL)))
			node_set_reason(n, NULL, 0, now);
		n->is_down_no_respond = false;
		n->last_busy = now;
		changed = true;
	}
	if (!n->is_registered)
		info("Node %s now responding", node_name(n));
	n->is_registered = true;
	c->node_last_update = now;
	return changed;
}

void node_responded(struct ctld *c, struct node *n, uint32_t cpu_load, uint64_t free_mem,
		    time_t now)
{
	n->cpu_load = cpu_load;
	n->free_mem = free_mem;
	n->last_response = now;
	if (n->state & NODE_STATE_NO_RESPOND) {
		n->state &= ~NODE_STATE_NO_RESPOND;
		c->node_last_update = now;
	}
}

void node_drain(struct ctld *c, struct node *n, const char *reason, time_t now)
{
	if (!(n->state & NODE_STATE_DRAIN))
		error("Draining node %s: %s", node_name(n), reason);
	n->state |= NODE_STATE_DRAIN;
	if (!n->reason)
		node_set_reason(n, reason, c->conf->slurm_user_id, now);
	c->node_last_update = now;
}

bool node_no_response(struct ctld *c, struct node *n, time_t now)
{
	uint32_t base = n->state & NODE_STATE_BASE;

	if (!(n->state & NODE_STATE_NO_RESPOND)) {
		n->state |= NODE_STATE_NO_RESPOND;
		c->node_last_update = now;
	}
	if (base == NODE_STATE_DOWN || base == NODE_STATE_FUTURE || !c->conf->slurmd_timeout)
		return false;
	if (n->state & NODE_STATE_REBOOT_ISSUED)
		return false; /* ResumeTimeout judges a rebooting node */
	/* the clock starts at the last answer, or at our own start */
	if (now - (n->last_response ? n->last_response : c->boot_time)
	    < (time_t)c->conf->slurmd_timeout)
		return false;
	error("Nodes %s not responding, setting DOWN", node_name(n));
	n->state = (n->state & NODE_STATE_FLAGS) | NODE_STATE_DOWN;
	n->is_down_no_respond = true;
	n->is_registered = false;
	if (!n->reason)
		node_set_reason(n, REASON_NOT_RESPONDING, c->conf->slurm_user_id, now);
	c->node_last_update = now;
	return true;
}

/* Checked for every node before any is changed, so an update applies to
 * all named nodes or to none. */
static int node_update_check(const struct node *n, const struct update_node_msg *m)
{
	uint32_t base = n->state & NODE_STATE_BASE;

	if (m->state == NODE_UPDATE_RESUME && base != NODE_STATE_DOWN
	    && !(n->state & (NODE_STATE_DRAIN | NODE_STATE_FAIL)))
		return -ESLURM_INVALID_NODE_STATE; /* nothing to resume */
	if (m->state == NODE_UPDATE_CANCEL_REBOOT && (n->state & NODE_STATE_REBOOT_ISSUED)) {
		error("REBOOT on node %s already in progress -- unable to cancel", node_name(n));
		return -ESLURM_REBOOT_IN_PROGRESS;
	}
	return 0;
}

/* Each name of the comma list `sub` is in the comma list `of`. */
static bool features_subset(const char *sub, const char *of)
{
	for (const char *p = sub; p && *p;) {
		size_t len = strcspn(p, ",");

		if (len && !feat_list_has(of, p, (uint32_t)len))
			return false;
		p += len + (p[len] == ',');
	}
	return true;
}

/* A feature list as scontrol sends it: names of the constraint language,
 * comma separated ("" clears). */
static bool features_valid(const char *list)
{
	if (strlen(list) > FEAT_EXPR_MAX_LEN)
		return false;
	for (const char *p = list; *p; p++)
		if (!(isalnum((unsigned char)*p) || strchr("_.:=+-,", *p)))
			return false;
	return true;
}

/* AvailableFeatures= (ActiveFeatures follow unless given) and
 * ActiveFeatures= (a subset of the available ones), on every node or
 * none. */
static int node_update_features(struct node **todo, size_t count,
				const struct update_node_msg *m)
{
	const char *avail = m->features, *act = m->features_act;

	if ((avail && !features_valid(avail)) || (act && !features_valid(act)))
		return -ESLURM_INVALID_FEATURE;
	for (size_t i = 0; i < count; i++)
		if (act && !features_subset(act, avail ? avail : node_features(todo[i])))
			return -ESLURM_ACTIVE_FEATURE_NOT_SUBSET;
	for (size_t i = 0; i < count; i++) {
		struct node *n = todo[i];
		char *a = avail ? strdup(avail) : NULL, *b = act ? strdup(act) : NULL;

		if ((avail && !a) || (act && !b)) {
			free(a);
			free(b);
			return -ENOMEM;
		}
		if (avail) {
			free(n->features);
			n->features = a;
			free(n->features_act); /* no node_features plugin: active = available */
			n->features_act = NULL;
		}
		if (act) {
			free(n->features_act);
			n->features_act = b;
		}
	}
	if (avail)
		info("update_node: node %s features set to: %s", m->node_names, avail);
	if (act)
		info("update_node: node %s active features set to: %s", m->node_names, act);
	return 0;
}

static int node_update_one(struct node *n, const struct update_node_msg *m,
			   uid_t uid, time_t now)
{
	uint32_t flags = n->state & NODE_STATE_FLAGS;
	uint32_t base = n->state & NODE_STATE_BASE;

	switch ((enum node_update_state)m->state) {
	case NODE_UPDATE_DRAIN:
		n->state |= NODE_STATE_DRAIN;
		node_set_reason(n, m->reason, uid, now);
		break;
	case NODE_UPDATE_FAIL:
		n->state |= NODE_STATE_FAIL;
		node_set_reason(n, m->reason, uid, now);
		break;
	case NODE_UPDATE_DOWN:
		n->state = flags | NODE_STATE_DOWN;
		n->is_down_no_respond = false;
		node_set_reason(n, m->reason, uid, now);
		break;
	case NODE_UPDATE_RESUME:
	case NODE_UPDATE_IDLE:
		n->state &= ~(NODE_STATE_DRAIN | NODE_STATE_FAIL);
		if (base == NODE_STATE_DOWN || base == NODE_STATE_UNKNOWN)
			n->state = (n->state & NODE_STATE_FLAGS)
				 | (n->is_registered ? NODE_STATE_IDLE : NODE_STATE_UNKNOWN);
		n->is_down_no_respond = false;
		node_set_reason(n, NULL, 0, now);
		break;
	case NODE_UPDATE_UNDRAIN:
		n->state &= ~NODE_STATE_DRAIN;
		if (!(n->state & NODE_STATE_FAIL) && base != NODE_STATE_DOWN)
			node_set_reason(n, NULL, 0, now);
		break;
	case NODE_UPDATE_NORESP:
		n->state |= NODE_STATE_NO_RESPOND;
		break;
	case NODE_UPDATE_FUTURE:
		n->state = NODE_STATE_FUTURE;
		break;
	case NODE_UPDATE_CANCEL_REBOOT:
		if (n->state & NODE_STATE_REBOOT_REQUESTED) {
			info("Canceling REBOOT on node %s", node_name(n));
			node_reboot_clear(n, now);
		}
		break;
	default:
		if (m->state)
			return -ESLURM_INVALID_NODE_STATE;
		if (m->reason && (n->state & (NODE_STATE_DRAIN | NODE_STATE_FAIL)))
			node_set_reason(n, m->reason, uid, now);
		break;
	}
	return 0;
}

int node_update(struct ctld *c, const struct update_node_msg *m, uid_t uid, time_t now)
{
	struct hostlist *hl = NULL;
	struct node **todo;
	size_t count;
	int r = 0;

	if (!m->node_names || hostlist_new(m->node_names, &hl) < 0)
		return -ESLURM_INVALID_NODE_NAME;
	if (m->state >= _NODE_UPDATE_MAX) {
		hostlist_free(hl);
		return -ESLURM_INVALID_NODE_STATE;
	}
	count = hostlist_count(hl);
	todo = calloc(count ? count : 1, sizeof(*todo));
	if (!todo) {
		hostlist_free(hl);
		return -ENOMEM;
	}
	for (size_t i = 0; i < count && r == 0; i++) {
		todo[i] = node_find(c, hostlist_nth(hl, i));
		if (!todo[i]) {
			error("update_node: node %s does not exist", hostlist_nth(hl, i));
			r = -ESLURM_INVALID_NODE_NAME;
		}
	}
	for (size_t i = 0; i < count && r == 0; i++)
		r = node_update_check(todo[i], m);
	if (r == 0 && (m->features || m->features_act))
		r = node_update_features(todo, count, m);
	for (size_t i = 0; i < count && r == 0; i++)
		r = node_update_one(todo[i], m, uid, now);
	if (r == 0 && m->state)
		info("update_node: node %s state set to %s by uid %u", m->node_names,
		     node_update_state_to_string(m->state), (unsigned)uid);
	if (r == 0 && m->weight != NO_VAL) {
		for (size_t i = 0; i < count; i++)
			todo[i]->weight = m->weight;
		info("update_node: node %s weight set to: %u", m->node_names, m->weight);
		node_order_build(c);
	}
	c->node_last_update = now;
	free(todo);
	hostlist_free(hl);
	return r;
}

static char *node_cfg_tres(const struct conf_node *cfg)
{
	char type[TRES_TYPE_MAX];
	struct tres t = {
	    .cpus = cfg->cpus,
	    .mem_mb = cfg->real_memory,
	    .billing = cfg->cpus,
	    .gpus = gres_count(cfg->gres, "gpu"),
	    .gpu_type = tres_gpu_type(cfg->gres, type, sizeof(type)),
	};

	return tres_string(&t);
}

/* AllocTRES: what running jobs hold (no node=, no billing=); NULL when
 * nothing, as Slurm prints an empty value. */
static char *node_alloc_tres(const struct conf_node *cfg, const struct node *n)
{
	char type[TRES_TYPE_MAX], *s;
	struct tres t = {
	    .cpus = node_alloc_cpus(n),
	    .mem_mb = n->mem_used,
	    .gpus = (uint64_t)__builtin_popcountll(n->gpus_used),
	    .gpu_type = tres_gpu_type(cfg->gres, type, sizeof(type)),
	};

	if (!t.cpus && !t.mem_mb && !t.gpus)
		return NULL;
	s = tres_string(&t);
	return s;
}

/* GresUsed as Slurm shows it: "gpu:0" when none is in use, else
 * "gpu[:type]:N(IDX:0-1,3)"; NULL on a node without GPUs. */
static char *node_gres_used(const struct conf_node *cfg, const struct node *n)
{
	char type[TRES_TYPE_MAX], idx[256] = "", *s = NULL;
	const char *t = tres_gpu_type(cfg->gres, type, sizeof(type));
	int used = __builtin_popcountll(n->gpus_used);
	size_t off = 0;

	if (!gres_count(cfg->gres, "gpu"))
		return NULL;
	for (int i = 0; i < 64 && off < sizeof(idx) - 16; i++) {
		int j = i;

		if (!(n->gpus_used & (1ULL << i)))
			continue;
		while (j + 1 < 64 && (n->gpus_used & (1ULL << (j + 1))))
			j++;
		off += (size_t)snprintf(idx + off, sizeof(idx) - off, j > i ? "%s%d-%d" : "%s%d",
					off ? "," : "", i, j);
		i = j;
	}
	if (!used)
		return t ? (asprintf(&s, "gpu:%s:0", t) < 0 ? NULL : s) : strdup("gpu:0");
	if (asprintf(&s, "gpu%s%s:%d(IDX:%s)", t ? ":" : "", t ? t : "", used, idx) < 0)
		return NULL;
	return s;
}

int node_info_fill(const struct ctld *c, const struct node *n, struct node_info *ret)
{
	const struct conf_node *cfg = n->cfg;

	(void)c;
	*ret = (struct node_info){
	    .name = sdup(cfg->name),
	    .node_addr = sdup(cfg->node_addr),
	    .node_hostname = sdup(cfg->node_hostname),
	    .arch = sdup(n->arch),
	    .os = sdup(n->os),
	    .version = sdup(n->version),
	    .features = sdup(node_features(n)),
	    .features_act = sdup(node_features_act(n)),
	    .gres = sdup(cfg->gres),
	    .gres_used = node_gres_used(cfg, n),
	    .partitions = sdup(n->partitions),
	    .reason = sdup(n->reason),
	    .cfg_tres = node_cfg_tres(cfg),
	    .alloc_tres = node_alloc_tres(cfg, n),
	    .state = n->state,
	    .reason_uid = n->reason_uid,
	    .reason_time = n->reason_time,
	    .port = cfg->port,
	    .cpus = cfg->cpus,
	    .boards = cfg->boards,
	    .sockets = cfg->sockets,
	    .cores = cfg->cores_per_socket,
	    .threads = cfg->threads_per_core,
	    .real_memory = cfg->real_memory,
	    .alloc_cpus = node_alloc_cpus(n),
	    .alloc_mem = n->mem_used,
	    .free_mem = n->free_mem,
	    .tmp_disk = cfg->tmp_disk,
	    .weight = n->weight,
	    .cpu_load = n->cpu_load,
	    .boot_time = n->boot_time,
	    .slurmd_start_time = n->slurmd_start_time,
	    .last_busy = n->last_busy,
	};
	return 0;
}
