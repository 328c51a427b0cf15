/* conf_node.c - NodeName= lines of slurm.conf into struct conf_node.
 *
 * Purpose: NodeName=DEFAULT updates the defaults later lines start from;
 * any other NodeName= is a host list ("n[1-4]") whose NodeAddr=,
 * NodeHostname= and Port= may be lists of the same length, expanded in
 * parallel (or a single value shared by all). Derived values follow
 * slurm.conf(5): Sockets is Boards x SocketsPerBoard, or inferred from CPUs;
 * CPUs defaults to Sockets x CoresPerSocket x ThreadsPerCore; NodeHostname
 * defaults to the name and NodeAddr to the host name.
 * Owns: the name index used to refuse duplicates and for partition checks.
 * Caveats: Port 0 means "SlurmdPort" and is filled in by conf_load once the
 * whole file is read; keys listed RAW below are accepted and ignored.
 */
#include "conf_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "limits.h"
#include "log.h"
#include "macros.h"

DEFINE_FREEP(struct hostlist, hostlist_free)

static int node_state_set(void *base, const struct conf_key *k, const char *val,
			  const struct conf_where *at, struct sl_error *err);

#define NK(n, t, f, lo, hi) CONF_KEY(n, t, node_tmpl, f, lo, hi, NULL)

/* clang-format off */
static const struct conf_key node_keys[] = {
	CONF_KEY_RAW("BcastAddr"),
	NK("Boards", CONF_U16, boards, 1, UINT16_MAX),
	CONF_KEY_RAW("CoreSpecCount"),
	NK("CoresPerSocket", CONF_U16, cores, 1, UINT16_MAX),
	CONF_KEY_RAW("CPUBind"),
	NK("CPUs", CONF_U16, cpus, 1, UINT16_MAX),
	CONF_KEY_RAW("CpuSpecList"),
	NK("Feature", CONF_STR, features, 0, 0),
	NK("Features", CONF_STR, features, 0, 0),
	NK("Gres", CONF_STR, gres, 0, 0),
	CONF_KEY_RAW("MemSpecLimit"),
	NK("NodeAddr", CONF_STR, addr, 0, 0),
	NK("NodeHostname", CONF_STR, hostname, 0, 0),
	NK("Port", CONF_STR, port, 0, 0),
	NK("Procs", CONF_U16, cpus, 1, UINT16_MAX), /* old name of CPUs */
	NK("RealMemory", CONF_MEM, real_memory, 1, UINT64_MAX),
	NK("Reason", CONF_STR, reason, 0, 0),
	NK("Sockets", CONF_U16, sockets, 1, UINT16_MAX),
	NK("SocketsPerBoard", CONF_U16, sockets_per_board, 1, UINT16_MAX),
	CONF_KEY_FN("State", node_state_set),
	NK("ThreadsPerCore", CONF_U16, threads, 1, UINT16_MAX),
	NK("TmpDisk", CONF_U32, tmp_disk, 0, UINT32_MAX),
	CONF_KEY_RAW("TRESWeights"),
	NK("Weight", CONF_U32, weight, 0, UINT32_MAX - 1),
};
/* clang-format on */

/* State= as slurm.conf(5) allows it for nodes; stored upper case. */
static int node_state_set(void *base, const struct conf_key *k, const char *val,
			  const struct conf_where *at, struct sl_error *err)
{
	static const char *const states[] = {"CLOUD",	"DOWN",	  "DRAIN",  "FAIL",
					     "FAILING", "FUTURE", "UNKNOWN"};
	struct node_tmpl *t = base;

	for (size_t i = 0; i < ARRAY_SIZE(states); i++) {
		if (strcaseeq(val, states[i])) {
			if (conf_strset(&t->state, states[i]) < 0)
				return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file,
						 at->line);
			return 0;
		}
	}
	return errprintf(err, -EINVAL, "%s:%u: %s=%s: not a node state", at->file, at->line,
			 k->name, val);
}

static void node_tmpl_done(struct node_tmpl *t)
{
	free(t->addr);
	free(t->hostname);
	free(t->port);
	free(t->features);
	free(t->gres);
	free(t->state);
	free(t->reason);
	*t = (struct node_tmpl){0};
}

static int node_tmpl_copy(struct node_tmpl *dst, const struct node_tmpl *src)
{
	*dst = *src;
	dst->addr = dst->hostname = dst->port = NULL;
	dst->features = dst->gres = dst->state = dst->reason = NULL;
	if (conf_strset(&dst->addr, src->addr) < 0 || conf_strset(&dst->hostname, src->hostname) < 0
	    || conf_strset(&dst->port, src->port) < 0
	    || conf_strset(&dst->features, src->features) < 0
	    || conf_strset(&dst->gres, src->gres) < 0 || conf_strset(&dst->state, src->state) < 0
	    || conf_strset(&dst->reason, src->reason) < 0)
		return -ENOMEM;
	return 0;
}

void conf_node_done(struct conf_node *n)
{
	free(n->name);
	free(n->node_addr);
	free(n->node_hostname);
	free(n->features);
	free(n->gres);
	free(n->state);
	free(n->reason);
}

int conf_node_build_init(struct conf_build *b)
{
	b->node_def = (struct node_tmpl){.real_memory = 1, .weight = 1};
	return 0;
}

void conf_node_build_done(struct conf_build *b)
{
	node_tmpl_done(&b->node_def);
	free(b->node_slots);
	b->node_slots = NULL;
	b->node_slot_cap = 0;
}

/* ---- name index: open addressing, slots hold node index + 1 ---- */

static size_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

long conf_node_index(const struct conf_build *b, const char *name)
{
	size_t mask = b->node_slot_cap - 1;

	if (!b->node_slot_cap)
		return -1;
	for (size_t i = name_hash(name) & mask; b->node_slots[i]; i = (i + 1) & mask)
		if (streq(b->c->nodes[b->node_slots[i] - 1].name, name))
			return (long)b->node_slots[i] - 1;
	return -1;
}

static void index_put(uint32_t *slots, size_t cap, const char *name, uint32_t idx)
{
	size_t i = name_hash(name) & (cap - 1);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = idx + 1;
}

/* Index node idx (already named); idx == number indexed so far. */
static int index_add(struct conf_build *b, uint32_t idx)
{
	if ((size_t)(idx + 1) * 2 > b->node_slot_cap) {
		size_t cap = b->node_slot_cap ? b->node_slot_cap * 2 : 64;
		uint32_t *slots = calloc(cap, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		for (uint32_t i = 0; i < idx; i++)
			index_put(slots, cap, b->c->nodes[i].name, i);
		free(b->node_slots);
		b->node_slots = slots;
		b->node_slot_cap = cap;
	}
	index_put(b->node_slots, b->node_slot_cap, b->c->nodes[idx].name, idx);
	return 0;
}

/* ---- one line ---- */

/* Expand a per-node list (NodeAddr, NodeHostname, Port): one value for
 * all nodes or one per node. NULL expr gives NULL. */
static int expand_parallel(const char *key, const char *expr, size_t count,
			   const struct conf_where *at, struct hostlist **ret, struct sl_error *err)
{
	struct hostlist *hl = NULL;
	size_t n;

	*ret = NULL;
	if (!expr)
		return 0;
	if (hostlist_new(expr, &hl) < 0)
		return errprintf(err, -EINVAL, "%s:%u: %s=%s: bad host list", at->file, at->line,
				 key, expr);
	n = hostlist_count(hl);
	if (n != 1 && n != count) {
		hostlist_free(hl);
		return errprintf(err, -EINVAL, "%s:%u: %s=%s gives %zu values for %zu nodes",
				 at->file, at->line, key, expr, n, count);
	}
	*ret = hl;
	return 0;
}

static const char *nth_or_only(const struct hostlist *hl, size_t i)
{
	if (!hl)
		return NULL;
	return hostlist_nth(hl, hostlist_count(hl) == 1 ? 0 : i);
}

/* Sockets, CPUs and friends from what the line (and DEFAULT) gave. */
static int node_derive(struct node_tmpl *t, const char *names, const struct conf_where *at,
		       struct sl_error *err)
{
	uint32_t boards = t->boards ? t->boards : 1;
	uint32_t cores = t->cores ? t->cores : 1;
	uint32_t threads = t->threads ? t->threads : 1;
	uint64_t sockets = t->sockets, cpus;

	if (t->sockets_per_board)
		sockets = (uint64_t)boards * t->sockets_per_board;
	else if (!sockets && t->cpus)
		sockets = t->cpus / (cores * threads) ? t->cpus / (cores * threads) : 1;
	else if (!sockets)
		sockets = boards;
	cpus = t->cpus;
	if (!cpus && sockets <= UINT16_MAX)
		cpus = sockets * cores * threads; /* each factor < 2^16: no overflow */
	if (sockets > UINT16_MAX || cpus > UINT16_MAX)
		return errprintf(err, -EINVAL, "%s:%u: NodeName=%s: more than %u CPUs", at->file,
				 at->line, names, UINT16_MAX);
	t->boards = (uint16_t)boards;
	t->sockets = (uint16_t)sockets;
	t->cores = (uint16_t)cores;
	t->threads = (uint16_t)threads;
	t->cpus = (uint16_t)cpus;
	return 0;
}

static int node_fill(struct conf_node *nd, const struct node_tmpl *t, const char *name,
		     const char *host, const char *addr, const char *port,
		     const struct conf_where *at, struct sl_error *err)
{
	uint64_t pv = 0;

	if (port) {
		char *end;

		pv = strtoull(port, &end, 10);
		if (*end || !isdigit((unsigned char)port[0]) || pv < 1 || pv > UINT16_MAX)
			return errprintf(err, -EINVAL, "%s:%u: Port=%s: not a port number",
					 at->file, at->line, port);
	}
	host = host ? host : name;
	addr = addr ? addr : host;
	*nd = (struct conf_node){
	    .port = (uint16_t)pv,
	    .cpus = t->cpus,
	    .boards = t->boards,
	    .sockets = t->sockets,
	    .cores_per_socket = t->cores,
	    .threads_per_core = t->threads,
	    .real_memory = t->real_memory,
	    .tmp_disk = t->tmp_disk,
	    .weight = t->weight,
	};
	if (conf_strset(&nd->name, name) < 0 || conf_strset(&nd->node_hostname, host) < 0
	    || conf_strset(&nd->node_addr, addr) < 0 || conf_strset(&nd->features, t->features) < 0
	    || conf_strset(&nd->gres, t->gres) < 0
	    || conf_strset(&nd->state, t->state ? t->state : "UNKNOWN") < 0
	    || conf_strset(&nd->reason, t->reason) < 0)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	return 0;
}

static int node_expand(struct conf_build *b, const char *names, struct node_tmpl *t,
		       const struct conf_where *at, struct sl_error *err)
{
	_cleanup_(hostlist_freep) struct hostlist *hn = NULL, *ha = NULL, *hh = NULL, *hp = NULL;
	struct sl_conf *c = b->c;
	struct conf_node *nodes;
	size_t count;
	int r;

	r = hostlist_new(names, &hn);
	if (r < 0)
		return errprintf(err, r == -ENOMEM ? r : -EINVAL, "%s:%u: NodeName=%s: %s",
				 at->file, at->line, names,
				 r == -E2BIG ? "too many hosts" : "bad host list");
	count = hostlist_count(hn);
	if (count == 0 || count > UINT32_MAX - c->node_count)
		return errprintf(err, -EINVAL, "%s:%u: NodeName=%s: no nodes", at->file, at->line,
				 names);
	r = expand_parallel("NodeAddr", t->addr, count, at, &ha, err);
	if (r >= 0)
		r = expand_parallel("NodeHostname", t->hostname, count, at, &hh, err);
	if (r >= 0)
		r = expand_parallel("Port", t->port, count, at, &hp, err);
	if (r >= 0)
		r = node_derive(t, names, at, err);
	if (r < 0)
		return r;
	nodes = conf_grow(c->nodes, &b->node_cap, c->node_count + count, sizeof(*nodes));
	if (!nodes)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	c->nodes = nodes;
	for (size_t i = 0; i < count; i++) {
		const char *name = hostlist_nth(hn, i);
		uint32_t idx = c->node_count;

		if (strlen(name) >= SL_NAME_MAX)
			return errprintf(err, -ENAMETOOLONG, "%s:%u: node name '%.32s...' too long",
					 at->file, at->line, name);
		if (conf_node_index(b, name) >= 0)
			return errprintf(err, -EEXIST, "%s:%u: duplicate node '%s'", at->file,
					 at->line, name);
		c->node_count++; /* counted first: conf_free frees a half-filled node */
		r = node_fill(&c->nodes[idx], t, name, nth_or_only(hh, i), nth_or_only(ha, i),
			      nth_or_only(hp, i), at, err);
		if (r < 0)
			return r;
		if (index_add(b, idx) < 0)
			return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	}
	return 0;
}

int conf_node_line(struct conf_build *b, const struct conf_where *at, const struct conf_tok *t,
		   size_t n, struct sl_error *err)
{
	_cleanup_(node_tmpl_done) struct node_tmpl line = {0};
	const char *names = t[0].val;
	int r;

	if (!*names)
		return errprintf(err, -EINVAL, "%s:%u: NodeName= needs a name", at->file, at->line);
	if (node_tmpl_copy(&line, &b->node_def) < 0)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	for (size_t i = 1; i < n; i++) {
		const struct conf_key *k =
		    conf_key_find(node_keys, ARRAY_SIZE(node_keys), t[i].key);

		if (!k)
			return errprintf(err, -EINVAL, "%s:%u: unknown node key '%s'", at->file,
					 at->line, t[i].key);
		if (k->type == CONF_RAW)
			debug("%s:%u: %s=%s accepted, not acted on", at->file, at->line, k->name,
			      t[i].val);
		r = conf_value_set(&line, k, t[i].val, at, err);
		if (r < 0)
			return r;
	}
	if (line.reason && strlen(line.reason) > SL_REASON_MAX)
		return errprintf(err, -E2BIG, "%s:%u: Reason longer than %d bytes", at->file,
				 at->line, SL_REASON_MAX);
	if (strcaseeq(names, "DEFAULT")) {
		node_tmpl_done(&b->node_def);
		b->node_def = line;
		line = (struct node_tmpl){0};
		return 0;
	}
	return node_expand(b, names, &line, at, err);
}
