/* sinfo_rec.c - which nodes share an sinfo line, and the order of lines.
 *
 * Purpose: the grouping half of sinfo's engine (sinfo_fmt.c prints).
 * Action: walk the partitions in configuration order and their nodes in
 * node-table order; a node joins the first line of a compatible partition
 * whose shown attributes (the M_* bits of the format) all match, else it
 * starts a new line. With a partition column every partition gets a line
 * up front, so an empty one still prints. Then sort: default "#P,-t"
 * (partition order, then the raw state value, descending), ties in
 * creation order, as sinfo's successive stable sorts leave them.
 * Caveats: a node's MIXED state is derived here from its allocated CPUs,
 * as sinfo does client-side. Without -e, CPU/memory/disk/weight
 * differences do not split lines; the printer shows "min+" instead.
 */
#include "cli/sinfo_rec.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/sinfo_fmt.h"
#include "common/hostlist.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/states.h"

DEFINE_FREEP(struct hostlist, hostlist_free)

static int strcmp0(const char *a, const char *b)
{
	return strcmp(a ? a : "(null)", b ? b : "(null)");
}

/* ---- -t states ---- */

static const struct {
	const char *lng, *cmp;
	int32_t id;
} state_words[] = {
    /* Base states first: a prefix such as "d" selects the first match. */
    {"UNKNOWN", "UNK", NODE_STATE_UNKNOWN},
    {"DOWN", "DOWN", NODE_STATE_DOWN},
    {"IDLE", "IDLE", NODE_STATE_IDLE},
    {"ALLOCATED", "ALLOC", NODE_STATE_ALLOCATED},
    {"ERROR", "ERR", NODE_STATE_ERROR},
    {"MIXED", "MIX", NODE_STATE_MIXED},
    {"FUTURE", "FUTR", NODE_STATE_FUTURE},
    {"PLANNED", "PLND", NODE_STATE_PLANNED},
    {"DRAIN", "DRAIN", NODE_STATE_DRAIN},
    {"DRAINED", "DRAINED", NODE_STATE_DRAIN | NODE_STATE_IDLE},
    {"RESERVED", "RESV", NODE_STATE_RES},
    {"DRAINING", "DRNG", NODE_STATE_DRAIN | NODE_STATE_ALLOCATED},
    {"COMPLETING", "COMP", NODE_STATE_COMPLETING},
    {"NO_RESPOND", "NO_RESPOND", NODE_STATE_NO_RESPOND},
    {"POWERING_DOWN", "POW_DN", NODE_STATE_POWERING_DOWN},
    {"POWERED_DOWN", "POW_DN", NODE_STATE_POWERED_DOWN},
    {"POWER_DOWN", "POW_DN", NODE_STATE_POWER_DOWN},
    {"POWERING_UP", "POW_UP", NODE_STATE_POWERING_UP},
    {"FAIL", "FAIL", NODE_STATE_FAIL},
    {"MAINT", "MAINT", NODE_STATE_MAINT},
    {"REBOOT_REQUESTED", "BOOT", NODE_STATE_REBOOT_REQUESTED},
    {"REBOOT_ISSUED", "BOOT^", NODE_STATE_REBOOT_ISSUED},
    {"CLOUD", "CLOUD", NODE_STATE_CLOUD},
};

int sinfo_state_parse(const char *word, int32_t *ret)
{
	size_t len = word ? strlen(word) : 0;

	if (!len)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(state_words); i++) {
		if (!strncasecmp(state_words[i].cmp, word, len)
		    || !strncasecmp(state_words[i].lng, word, len)) {
			*ret = state_words[i].id;
			return 0;
		}
	}
	return -EINVAL;
}

const char *sinfo_state_names(void)
{
	return "unknown,down,idle,allocated,error,mixed,future,drain,drained,draining,"
	       "no_respond,reserved,perfctrs,planned,cloud,completing,powering_down,"
	       "powered_down,power_down,powering_up,fail,maint,reboot_requested,reboot_issued";
}

/* The state sinfo shows: MIXED when only part of the CPUs is allocated,
 * unless the node is draining anyway. */
static uint32_t eff_state(const struct node_info *n)
{
	uint32_t s = n->state;

	if (!(s & NODE_STATE_DRAIN) && n->alloc_cpus && n->alloc_cpus < n->cpus)
		s = (s & NODE_STATE_FLAGS) | NODE_STATE_MIXED;
	return s;
}

static bool is_draining(uint32_t s)
{
	uint32_t b = s & NODE_STATE_BASE;

	return (s & NODE_STATE_DRAIN)
	       && (b == NODE_STATE_ALLOCATED || b == NODE_STATE_ERROR || b == NODE_STATE_MIXED);
}

static bool state_wanted(const struct sinfo_opts *o, const struct node_info *n, uint32_t s)
{
	for (unsigned i = 0; i < o->n_states; i++) {
		uint32_t id = (uint32_t)o->states[i];

		if (id == NODE_STATE_DRAIN) {
			if (s & NODE_STATE_DRAIN)
				return true;
		} else if (id == (NODE_STATE_DRAIN | NODE_STATE_ALLOCATED)) {
			if (is_draining(s))
				return true;
		} else if (id == (NODE_STATE_DRAIN | NODE_STATE_IDLE)) {
			if ((s & NODE_STATE_DRAIN) && !is_draining(s))
				return true;
		} else if (id & NODE_STATE_FLAGS) {
			if (id & s)
				return true;
		} else if (id == NODE_STATE_ALLOCATED) {
			if (n->alloc_cpus)
				return true;
		} else if (id == NODE_STATE_IDLE) {
			if ((s & ~NODE_STATE_NO_RESPOND) == NODE_STATE_IDLE)
				return true;
		} else if (id != NODE_STATE_ERROR && (s & NODE_STATE_BASE) == id) {
			return true;
		}
	}
	return o->n_states == 0;
}

bool sinfo_node_wanted(const struct sinfo_opts *o, const struct hostlist *only,
			const struct node_info *n)
{
	uint32_t s = eff_state(n);

	if (only && hostlist_find(only, n->name) < 0)
		return false;
	if (o->dead && !(s & NODE_STATE_NO_RESPOND))
		return false;
	if (o->responding && (s & NODE_STATE_NO_RESPOND))
		return false;
	return state_wanted(o, n, s);
}

bool sinfo_part_wanted(const struct sinfo_opts *o, const struct part_info *p)
{
	const char *s = o->partitions;
	size_t len = strlen(p->name);

	if (!s)
		return o->all || !(p->flags & PART_FLAG_HIDDEN);
	while (*s) {
		size_t l = strcspn(s, ",");

		if (l == len && !strncmp(s, p->name, len))
			return true;
		s += l + (s[l] == ',');
	}
	return false;
}

/* ---- grouping ---- */

static bool same_state(uint32_t a, uint32_t b)
{
	return streq(node_state_string(a), node_state_string(b))
	       && streq(node_state_suffix(a), node_state_suffix(b));
}

static bool part_match(const struct sinfo_opts *o, uint64_t m, const struct rec *r,
		       const struct part_info *p)
{
	const struct part_info *q = r->part;

	if (o->list_reasons || p == q)
		return true;
	if (!p || !q)
		return false;
	return !((m & M_PART && !streq(p->name, q->name))
		 || (m & M_AVAIL && p->state_up != q->state_up)
		 || (m & M_GROUPS && strcmp0(p->allow_groups, q->allow_groups))
		 || (m & M_SIZE && (p->min_nodes != q->min_nodes || p->max_nodes != q->max_nodes))
		 || (m & M_DEFTIME && p->default_time != q->default_time)
		 || (m & M_TIME && p->max_time != q->max_time)
		 || (m & M_ROOT && (p->flags ^ q->flags) & PART_FLAG_ROOT_ONLY)
		 || (m & M_OVERSUB && p->over_subscribe != q->over_subscribe)
		 || (m & M_PREEMPT && p->preempt_mode != q->preempt_mode)
		 || (m & M_PTIER && p->priority_tier != q->priority_tier)
		 || (m & M_PJOB && p->priority_job_factor != q->priority_job_factor)
		 || (m & M_MAXCPU && p->max_cpus_per_node != q->max_cpus_per_node));
}

static bool node_match(const struct sinfo_opts *o, uint64_t m, const struct rec *r,
		       const struct node_info *n)
{
	const struct node_info *f = r->first;

	if (o->node_flag || (m & (M_HOSTS | M_ADDR)))
		return false; /* one line per node */
	if ((m & M_FEAT && strcmp0(n->features, f->features))
	    || (m & M_FEAT_ACT && strcmp0(n->features_act, f->features_act))
	    || (m & M_GRES && strcmp0(n->gres, f->gres))
	    || (m & M_GRES_USED && strcmp0(n->gres_used, f->gres_used))
	    || (m & M_COMMENT && strcmp0(n->comment, f->comment))
	    || (m & M_REASON && strcmp0(n->reason, f->reason))
	    || (m & M_RTIME && n->reason_time != f->reason_time)
	    || (m & M_RUSER && n->reason_uid != f->reason_uid)
	    || (m & M_STATE && !same_state(eff_state(n), r->state))
	    || (m & M_STATE_CMPL && eff_state(n) != r->state)
	    || (m & M_ALLOCMEM && n->alloc_mem != f->alloc_mem)
	    || (m & M_PORT && n->port != f->port))
		return false;
	if (!o->exact)
		return true;
	return !((m & M_CPUS && n->cpus != r->min_cpus)
		 || (m & (M_SOCK | M_SCT) && n->sockets != r->min_sock)
		 || (m & (M_CORE | M_SCT) && n->cores != r->min_core)
		 || (m & (M_THREAD | M_SCT) && n->threads != r->min_thr)
		 || (m & M_DISK && n->tmp_disk != r->min_disk)
		 || (m & M_MEM && n->real_memory != r->min_mem)
		 || (m & M_WEIGHT && n->weight != r->min_weight)
		 || (m & M_LOAD && n->cpu_load != r->min_load)
		 || (m & M_FREE && n->free_mem != r->min_free)
		 || (m & M_VERSION && strcmp0(n->version, f->version)));
}

#define LO(a, b) ((a) = (b) < (a) ? (b) : (a))
#define HI(a, b) ((a) = (b) > (a) ? (b) : (a))

static int rec_add(struct rec *r, const struct node_info *n)
{
	uint32_t s = eff_state(n), b = s & NODE_STATE_BASE, used = n->alloc_cpus;
	bool other = (s & NODE_STATE_DRAIN) || b == NODE_STATE_DOWN;

	if (r->n_total == 0) {
		r->first = n;
		r->state = s;
		r->min_cpus = r->max_cpus = n->cpus;
		r->min_sock = r->max_sock = n->sockets;
		r->min_core = r->max_core = n->cores;
		r->min_thr = r->max_thr = n->threads;
		r->min_disk = r->max_disk = n->tmp_disk;
		r->min_mem = r->max_mem = n->real_memory;
		r->min_weight = r->max_weight = n->weight;
		r->min_load = r->max_load = n->cpu_load;
		r->min_free = r->max_free = n->free_mem;
	} else {
		LO(r->min_cpus, n->cpus), HI(r->max_cpus, n->cpus);
		LO(r->min_sock, n->sockets), HI(r->max_sock, n->sockets);
		LO(r->min_core, n->cores), HI(r->max_core, n->cores);
		LO(r->min_thr, n->threads), HI(r->max_thr, n->threads);
		LO(r->min_disk, n->tmp_disk), HI(r->max_disk, n->tmp_disk);
		LO(r->min_mem, n->real_memory), HI(r->max_mem, n->real_memory);
		LO(r->min_weight, n->weight), HI(r->max_weight, n->weight);
		LO(r->min_load, n->cpu_load), HI(r->max_load, n->cpu_load);
		LO(r->min_free, n->free_mem), HI(r->max_free, n->free_mem);
	}
	if (hostlist_push_host(r->nodes, n->name) < 0
	    || hostlist_push_host(r->addrs, n->node_addr ? n->node_addr : n->name) < 0
	    || hostlist_push_host(r->hosts, n->node_hostname ? n->node_hostname : n->name) < 0)
		return -ENOMEM;
	if (b == NODE_STATE_ALLOCATED || b == NODE_STATE_MIXED || (s & NODE_STATE_COMPLETING))
		r->n_alloc++;
	else if (other)
		r->n_other++;
	else
		r->n_idle++;
	r->n_total++;
	used = used > n->cpus ? n->cpus : used;
	r->c_alloc += used;
	r->c_total += n->cpus;
	if (other)
		r->c_other += n->cpus - used;
	else
		r->c_idle += n->cpus - used;
	return 0;
}

static struct rec *rec_free(struct rec *r)
{
	if (r) {
		hostlist_free(r->nodes);
		hostlist_free(r->addrs);
		hostlist_free(r->hosts);
		free(r);
	}
	return NULL;
}

static int rec_new(struct recs *rs, const struct part_info *p, uint32_t inx, struct rec **ret)
{
	struct rec **v = realloc(rs->v, (rs->n + 1) * sizeof(*v));
	struct rec *r;

	if (!v)
		return -ENOMEM;
	rs->v = v;
	r = calloc(1, sizeof(*r));
	if (!r || hostlist_new(NULL, &r->nodes) < 0 || hostlist_new(NULL, &r->addrs) < 0
	    || hostlist_new(NULL, &r->hosts) < 0) {
		rec_free(r);
		return -ENOMEM;
	}
	r->part = p;
	r->part_inx = inx;
	r->seq = (uint32_t)rs->n;
	rs->v[rs->n++] = r;
	*ret = r;
	return 0;
}

/* Node n, seen in partition inx: into the first line it matches, or a
 * new one. A node counts once per line: lines[j] is the line it went to
 * from partition j (UINT32_MAX: none), for the partitions before inx. */
static int rec_insert(struct recs *rs, const struct sinfo_opts *o, uint64_t m,
		      const struct part_info *p, uint32_t inx, const struct node_info *n,
		      uint32_t *lines)
{
	struct rec *r = NULL;
	int e;

	for (size_t i = 0; i < rs->n && !r; i++)
		if (part_match(o, m, rs->v[i], p)
		    && (!rs->v[i]->n_total || node_match(o, m, rs->v[i], n)))
			r = rs->v[i];
	if (!r && (e = rec_new(rs, p, inx, &r)) < 0)
		return e;
	for (uint32_t j = 0; j < inx; j++)
		if (lines[j] == r->seq)
			return 0;
	lines[inx] = r->seq;
	return rec_add(r, n);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int sinfo_rec_build(const struct sinfo_opts *o, uint64_t m, const struct node_info_msg *nm,
		    const struct part_info_msg *pm, struct recs *rs)
{
	_cleanup_(hostlist_freep) struct hostlist *only = NULL;
	_cleanup_free_ uint32_t *lines = NULL;
	struct rec *r;
	int e = 0;

	if (o->nodes && hostlist_new(o->nodes, &only) < 0)
		return -EINVAL;
	/* per node and partition, the line the node went to (see rec_insert) */
	if (pm->count && nm->count) {
		lines = malloc((size_t)nm->count * pm->count * sizeof(*lines));
		if (!lines)
			return -ENOMEM;
		memset(lines, 0xff, (size_t)nm->count * pm->count * sizeof(*lines));
	}
	if (!o->node_flag && (m & M_PART)) /* every partition shows, even empty */
		for (uint32_t j = 0; j < pm->count && e == 0; j++)
			if (sinfo_part_wanted(o, &pm->parts[j]))
				e = rec_new(rs, &pm->parts[j], j, &r);
	for (uint32_t j = 0; j < pm->count && e == 0; j++) {
		const struct part_info *p = &pm->parts[j];
		struct hostlist *members = NULL;
		const char **names = NULL;
		size_t count = 0;

		if (!sinfo_part_wanted(o, p))
			continue;
		e = hostlist_new(p->nodes, &members);
		/* the members sorted, for a search per node: never nodes x members */
		if (e == 0 && (count = hostlist_count(members))
		    && !(names = malloc(count * sizeof(*names))))
			e = -ENOMEM;
		for (size_t i = 0; names && i < count; i++)
			names[i] = hostlist_nth(members, i);
		if (names)
			qsort(names, count, sizeof(*names), name_cmp);
		for (uint32_t i = 0; i < nm->count && e == 0 && names; i++) {
			const struct node_info *n = &nm->nodes[i];

			if (n->name && bsearch(&n->name, names, count, sizeof(*names), name_cmp)
			    && sinfo_node_wanted(o, only, n))
				e = rec_insert(rs, o, m, p, j, n, &lines[(size_t)i * pm->count]);
		}
		free(names);
		hostlist_free(members);
	}
	for (size_t i = 0; i < rs->n; i++) {
		hostlist_sort(rs->v[i]->nodes);
		hostlist_sort(rs->v[i]->addrs);
		hostlist_sort(rs->v[i]->hosts);
	}
	return e;
}

/* ---- sorting ---- */

struct sort_key {
	char c;
	bool rev, part_order;
};

struct sort_spec {
	struct sort_key k[32];
	unsigned n;
};

/* sinfo's host order: at the first difference, digits compare as numbers. */
static int host_cmp(const char *a, const char *b)
{
	for (size_t i = 0;; i++) {
		if (a[i] == b[i]) {
			if (!a[i])
				return 0;
			continue;
		}
		if (isdigit((unsigned char)a[i]) && isdigit((unsigned char)b[i])) {
			long x = strtol(a + i, NULL, 10), y = strtol(b + i, NULL, 10);

			return (x > y) - (x < y);
		}
		return strcmp(a, b);
	}
}

static const char *first_host(const struct hostlist *hl)
{
	const char *s = hostlist_count(hl) ? hostlist_nth(hl, 0) : NULL;

	return s ? s : "";
}

static const char *s0(const char *s)
{
	return s ? s : "";
}

static int64_t num_key(const struct rec *r, char c)
{
	const struct part_info *p = r->part;

	switch (c) {
	case 'a':
		return p ? p->state_up : 0;
	case 'A':
	case 'F':
		return r->n_alloc;
	case 'c':
		return r->min_cpus;
	case 'd':
		return r->min_disk;
	case 'D':
		return r->n_total;
	case 'h':
		return p ? p->over_subscribe : 0;
	case 'l':
		return p ? p->max_time : 0;
	case 'm':
		return (int64_t)r->min_mem;
	case 'M':
		return p ? p->preempt_mode : 0;
	case 'O':
		return r->min_load;
	case 'p':
		return p ? p->priority_tier : 0;
	case 'r':
		return p ? (p->flags & PART_FLAG_ROOT_ONLY) : 0;
	case 's':
		return p ? (int64_t)p->max_nodes + (p->max_nodes != INFINITE ? p->min_nodes : 0)
			 : 0;
	case 't':
	case 'T':
		return r->state;
	case 'w':
		return r->min_weight;
	case 'X':
		return r->min_sock;
	case 'Y':
		return r->min_core;
	case 'Z':
		return r->min_thr;
	case 'z':
		return ((int64_t)r->min_sock << 32) | ((int64_t)r->min_core << 16) | r->min_thr;
	}
	return 0;
}

static int key_cmp(const struct rec *a, const struct rec *b, const struct sort_key *k)
{
	const struct node_info *fa = a->first, *fb = b->first;
	int d;

	switch (k->c) {
	case 'N':
		d = host_cmp(first_host(a->nodes), first_host(b->nodes));
		break;
	case 'n':
		d = host_cmp(first_host(a->hosts), first_host(b->hosts));
		break;
	case 'o':
		d = host_cmp(first_host(a->addrs), first_host(b->addrs));
		break;
	case 'f':
		d = strcmp(s0(fa ? fa->features : NULL), s0(fb ? fb->features : NULL));
		break;
	case 'R':
	case 'E':
		d = strcmp(s0(fa ? fa->reason : NULL), s0(fb ? fb->reason : NULL));
		break;
	case 'g':
		d = strcmp(s0(a->part ? a->part->allow_groups : NULL),
			   s0(b->part ? b->part->allow_groups : NULL));
		break;
	case 'P':
		if (k->part_order)
			d = (a->part_inx > b->part_inx) - (a->part_inx < b->part_inx);
		else
			d = strcmp(a->part ? a->part->name : "", b->part ? b->part->name : "");
		break;
	default: {
		int64_t x = num_key(a, k->c), y = num_key(b, k->c);

		d = (x > y) - (x < y);
	}
	}
	return k->rev ? -d : d;
}

static int rec_cmp(const void *pa, const void *pb, void *arg)
{
	const struct rec *a = *(struct rec *const *)pa, *b = *(struct rec *const *)pb;
	const struct sort_spec *s = arg;

	for (unsigned i = 0; i < s->n; i++) {
		int d = key_cmp(a, b, &s->k[i]);

		if (d)
			return d;
	}
	return (a->seq > b->seq) - (a->seq < b->seq);
}

void sinfo_rec_sort(const struct sinfo_opts *o, struct recs *rs)
{
	const char *s = o->sort ? o->sort : o->node_flag ? "N" : "#P,-t";
	struct sort_spec spec = {.n = 0};

	for (size_t i = 0; s[i] && spec.n < ARRAY_SIZE(spec.k); i++) {
		if (strchr(",#+-", s[i]))
			continue;
		spec.k[spec.n++] = (struct sort_key){.c = s[i],
						     .rev = i > 0 && s[i - 1] == '-',
						     .part_order = i > 0 && s[i - 1] == '#'};
	}
	if (rs->n > 1)
		qsort_r(rs->v, rs->n, sizeof(*rs->v), rec_cmp, &spec);
}

void sinfo_recs_done(struct recs *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		rec_free(rs->v[i]);
	free(rs->v);
	rs->v = NULL;
	rs->n = 0;
}
