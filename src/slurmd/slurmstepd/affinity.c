/* affinity.c - see affinity.h.
 *
 * Units: a thread (one CPU), a core (the step's CPUs of one kernel core),
 * or a socket. In block order the units go by socket, then core, then
 * CPU id; ":cyclic" (or "fcyclic") at the socket level takes them from
 * each socket in turn. Task t takes --cpus-per-task units from position
 * t x cpus-per-task (sockets: one unit), wrapping around when there are
 * more tasks than units, as Slurm's block binding does. With
 * --ntasks-per-socket=k task t goes to socket (t / k) mod sockets.
 */
#include "affinity.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cgroup.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "env.h"
#include "step.h"
#include "stepd.h"

#define AFF_CPU_MAX 1024
#define AFF_WORDS   (AFF_CPU_MAX / 64)

struct affinity {
	uint32_t ntasks;
	uint64_t (*masks)[AFF_WORDS]; /* per local task; all zero: not bound */
	bool is_verbose;
	int16_t *core_rank; /* per CPU its core index, -1 none; made on first use */
};

static void mask_set(uint64_t *m, int cpu)
{
	if (cpu >= 0 && cpu < AFF_CPU_MAX)
		m[cpu / 64] |= 1ull << (cpu % 64);
}

static bool mask_has(const uint64_t *m, int cpu)
{
	return cpu >= 0 && cpu < AFF_CPU_MAX && (m[cpu / 64] >> (cpu % 64) & 1);
}

static bool mask_empty(const uint64_t *m)
{
	for (int i = 0; i < AFF_WORDS; i++)
		if (m[i])
			return false;
	return true;
}

/* ---- the request ---- */

int affinity_parse_bind(const char *v, struct affinity_req *r)
{
	const char *p = v;

	r->type = AFF_NONE;
	r->is_verbose = false;
	r->list = NULL;
	while (p && *p) {
		size_t len = strcspn(p, ",");

		if (strncasecmp(p, "map_cpu:", 8) == 0 || strncasecmp(p, "mask_cpu:", 9) == 0) {
			bool is_map = strncasecmp(p, "map_cpu:", 8) == 0;

			r->type = is_map ? AFF_MAP_CPU : AFF_MASK_CPU;
			r->list = p + (is_map ? 8 : 9); /* the rest: the list has commas */
			if (!*r->list)
				return -EINVAL;
			return 0;
		}
#define W(word) (len == strlen(word) && strncasecmp(p, word, len) == 0)
		if (W("verbose") || W("v"))
			r->is_verbose = true;
		else if (W("quiet") || W("q"))
			r->is_verbose = false;
		else if (W("none") || W("no"))
			r->type = AFF_NONE;
		else if (W("threads"))
			r->type = AFF_THREADS;
		else if (W("cores"))
			r->type = AFF_CORES;
		else if (W("sockets"))
			r->type = AFF_SOCKETS;
		else
			return -EINVAL; /* rank, ldoms, boards, ...: not here */
#undef W
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* ---- the units ---- */

static int cpu_cmp(const void *a, const void *b)
{
	const struct affinity_cpu *x = a, *y = b;

	if (x->socket != y->socket)
		return x->socket < y->socket ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

struct unit {
	int socket;
	uint64_t mask[AFF_WORDS];
};

/* The units in block order (by socket, core, CPU), or socket-cyclic. */
static size_t units_build(const struct affinity_req *r, const struct affinity_cpu *in, size_t n,
			  struct unit *u)
{
	struct affinity_cpu *c = malloc(n * sizeof(*c));
	size_t nu = 0;

	if (!c)
		return 0;
	memcpy(c, in, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cpu_cmp);
	for (size_t i = 0; i < n; i++) {
		bool is_same_core =
		    i && c[i].socket == c[i - 1].socket && c[i].core == c[i - 1].core;
		bool is_same = r->type == AFF_SOCKETS	? i && c[i].socket == c[i - 1].socket
			       : r->type == AFF_THREADS ? false
							: is_same_core;

		if (r->is_nomultithread && is_same_core)
			continue; /* one thread of each core */
		if (!is_same)
			u[nu++] = (struct unit){.socket = c[i].socket};
		mask_set(u[nu - 1].mask, c[i].cpu);
	}
	free(c);
	if (r->is_socket_cyclic && r->type != AFF_SOCKETS && nu > 1) {
		/* one unit of each socket in turn: round k takes each socket's k-th */
		struct unit *o = malloc(nu * sizeof(*o));
		size_t k = 0;

		for (size_t round = 0; o && k < nu; round++)
			for (size_t i = 0; i < nu; i++) {
				size_t first = i, nth;

				if (i && u[i - 1].socket == u[i].socket)
					continue; /* i is the first unit of its socket */
				while (first + 1 < nu && u[first + 1].socket == u[i].socket)
					first++; /* first: its socket's last unit */
				nth = i + round;
				if (nth <= first)
					o[k++] = u[nth];
			}
		if (o)
			memcpy(u, o, nu * sizeof(*u));
		free(o);
	}
	return nu;
}

static long parse_num(const char *s, char **end)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return strtol(s + 2, end, 16);
	return strtol(s, end, 10);
}

/* map_cpu: the ltid-th entry (wrapping) of the list. */
static int list_entry(const char *list, uint32_t ltid, char *buf, size_t size)
{
	size_t n = 1, k;
	const char *p = list;

	for (const char *q = list; *q; q++)
		n += *q == ',';
	k = ltid % n;
	while (k--)
		p = strchr(p, ',') + 1;
	n = strcspn(p, ",");
	if (n == 0 || n >= size)
		return -EINVAL;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 0;
}

/* mask_cpu: a hex mask of up to 1024 CPUs ("0x3", "c"). */
static int hex_mask(const char *s, uint64_t *m)
{
	size_t len;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	len = strlen(s);
	if (!len || len > AFF_CPU_MAX / 4)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		char c = s[len - 1 - i];
		int v = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;

		if (v < 0)
			return -EINVAL;
		m[(i * 4) / 64] |= (uint64_t)v << ((i * 4) % 64);
	}
	return 0;
}

int affinity_task_cpus(const struct affinity_req *r, const struct affinity_cpu *cpus, size_t n,
		       uint32_t ltid, uint32_t ntasks, uint64_t mask[AFF_WORDS])
{
	uint64_t avail[AFF_WORDS] = {0};
	struct unit *u;
	size_t nu, per, first;
	char entry[300];

	(void)ntasks;
	memset(mask, 0, AFF_WORDS * sizeof(*mask));
	for (size_t i = 0; i < n; i++)
		mask_set(avail, cpus[i].cpu);
	if (r->type == AFF_MAP_CPU || r->type == AFF_MASK_CPU) {
		uint64_t m[AFF_WORDS] = {0};
		char *end;

		if (list_entry(r->list, ltid, entry, sizeof(entry)) < 0)
			return -EINVAL;
		if (r->type == AFF_MAP_CPU) {
			long c = parse_num(entry, &end);

			if (*end || c < 0 || !mask_has(avail, (int)c))
				return -EINVAL;
			mask_set(mask, (int)c);
			return 0;
		}
		if (hex_mask(entry, m) < 0)
			return -EINVAL;
		for (int i = 0; i < AFF_WORDS; i++)
			mask[i] = m[i] & avail[i];
		return mask_empty(mask) ? -EINVAL : 0;
	}
	u = calloc(n ? n : 1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	nu = units_build(r, cpus, n, u);
	if (!nu) {
		free(u);
		return -EINVAL;
	}
	per = r->type == AFF_SOCKETS || !r->cpus_per_task ? 1 : r->cpus_per_task;
	if (per > nu)
		per = nu; /* a task can use each of the node's units once */
	first = (size_t)ltid * per;
	if (r->ntasks_per_socket && r->type != AFF_SOCKETS) {
		/* task t on socket (t / k) mod sockets, the next units there */
		int sockets[AFF_CPU_MAX];
		size_t ns = 0, k = r->ntasks_per_socket, s, slot;

		for (size_t i = 0; i < nu; i++)
			if (!ns || sockets[ns - 1] != u[i].socket)
				sockets[ns++] = u[i].socket;
		s = (ltid / k) % ns;
		slot = (ltid % k + (ltid / (k * ns)) * k) * per;
		for (size_t i = 0, seen = 0; i < nu; i++) {
			if (u[i].socket != sockets[s])
				continue;
			if (seen >= slot && seen < slot + per)
				for (int w = 0; w < AFF_WORDS; w++)
					mask[w] |= u[i].mask[w];
			seen++;
		}
		if (!mask_empty(mask)) {
			free(u);
			return 0;
		}
	}
	for (size_t i = 0; i < per; i++)
		for (int w = 0; w < AFF_WORDS; w++)
			mask[w] |= u[(first + i) % nu].mask[w];
	free(u);
	return 0;
}

/* ---- the step ---- */

static int read_int(int cpu, const char *what)
{
	char path[128], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return atoi(buf);
}

/* The step's CPUs: its cpuset (ConstrainCores), else ours. */
static size_t step_cpus(const struct stepd *s, struct affinity_cpu *out)
{
	const char *list = cgroup_cpus(s);
	cpu_set_t set;
	size_t n = 0;

	CPU_ZERO(&set);
	if (list && *list) {
		for (const char *p = list; *p;) {
			char *end;
			long a = strtol(p, &end, 10), b = a;

			if (end == p)
				break;
			if (*end == '-')
				b = strtol(end + 1, &end, 10);
			for (long c = a; c <= b && c < AFF_CPU_MAX && c < CPU_SETSIZE; c++)
				CPU_SET((int)c, &set);
			p = *end == ',' ? end + 1 : end;
			if (*p && *p != ',' && (*p < '0' || *p > '9'))
				break;
		}
	} else if (sched_getaffinity(0, sizeof(set), &set) < 0) {
		return 0;
	}
	for (int c = 0; c < AFF_CPU_MAX && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			out[n++] =
			    (struct affinity_cpu){.cpu = c,
						  .socket = read_int(c, "physical_package_id"),
						  .core = read_int(c, "core_id")};
	return n;
}

/* --cpus-per-task as the controller granted it: the step's CPUs here (the
 * launch's cpus_on_node equals the signed credential's) over its tasks
 * here. SLURM_CPUS_PER_TASK is the user's word and is not read. */
static uint32_t granted_cpus_per_task(const struct stepd *s)
{
	uint32_t n = s->step->ntasks ? s->step->ntasks : 1;
	uint32_t c = s->launch->cpus_on_node / n;

	return c ? c : 1;
}

int affinity_init(struct stepd *s)
{
	const char *bind = env_launch_get(s, "SLURM_CPU_BIND");
	const char *hint = env_launch_get(s, "SLURM_HINT");
	const char *dist = env_launch_get(s, "SLURM_DISTRIBUTION");
	const char *nps = env_launch_get(s, "SLURM_NTASKS_PER_SOCKET");
	struct affinity_req r = {0};
	struct affinity_cpu *cpus;
	struct affinity *a;
	size_t n;

	if (!s->launch || !(s->conf->task_plugins & TASK_PLUGIN_AFFINITY))
		return 0;
	if (affinity_parse_bind(bind, &r) < 0) {
		error("%s: SLURM_CPU_BIND=%s: not a binding we know; tasks not bound", s->label,
		      bind);
		return 0;
	}
	r.is_nomultithread = hint && strcasestr(hint, "nomultithread");
	if (r.type == AFF_NONE && !r.is_nomultithread)
		return 0;
	if (r.type == AFF_NONE)
		r.type = AFF_THREADS; /* one thread of each core */
	r.is_socket_cyclic = dist && (strstr(dist, ":cyclic") || strstr(dist, ":fcyclic"));
	r.cpus_per_task = granted_cpus_per_task(s);
	r.ntasks_per_socket = nps ? (uint32_t)strtoul(nps, NULL, 10) : 0;
	cpus = calloc(AFF_CPU_MAX, sizeof(*cpus));
	a = calloc(1, sizeof(*a));
	if (!cpus || !a || !(a->masks = calloc(s->step->ntasks, sizeof(*a->masks)))) {
		free(cpus);
		free(a);
		return -ENOMEM;
	}
	a->ntasks = s->step->ntasks;
	a->is_verbose = r.is_verbose;
	n = step_cpus(s, cpus);
	for (uint32_t t = 0; t < a->ntasks; t++) {
		int rc = affinity_task_cpus(&r, cpus, n, t, a->ntasks, a->masks[t]);

		if (rc < 0) {
			error("%s: task %u: --cpu-bind=%s cannot be met on this node's CPUs; not "
			      "bound",
			      s->label, s->step->tasks[t].gtid, bind ? bind : "");
			memset(a->masks[t], 0, sizeof(a->masks[t]));
		}
	}
	free(cpus);
	s->aff = a;
	return 0;
}

void affinity_apply(const struct stepd *s, uint32_t ltid)
{
	const struct affinity *a = s->aff;
	char hex[AFF_CPU_MAX / 4 + 1];
	cpu_set_t set;
	size_t k = 0;
	int top = -1;

	if (!a || ltid >= a->ntasks || mask_empty(a->masks[ltid]))
		return;
	CPU_ZERO(&set);
	for (int c = 0; c < AFF_CPU_MAX && c < CPU_SETSIZE; c++)
		if (mask_has(a->masks[ltid], c)) {
			CPU_SET(c, &set);
			top = c;
		}
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		dprintf(STDERR_FILENO, "slurmstepd: error: sched_setaffinity: %s\n",
			strerror(errno));
		return;
	}
	if (!a->is_verbose)
		return;
	for (int d = top / 4; d >= 0; d--) {
		unsigned v = (unsigned)(a->masks[ltid][(d * 4) / 64] >> ((d * 4) % 64)) & 0xf;

		hex[k++] = "0123456789abcdef"[v];
	}
	hex[k] = '\0';
	dprintf(STDERR_FILENO, "cpu-bind=MASK - %s, task %2u %2u [%d]: mask 0x%s set\n",
		s->node_name, s->step->tasks[ltid].gtid, ltid, (int)getpid(), hex);
}

static int pair_cmp(const void *a, const void *b)
{
	const struct affinity_cpu *x = a, *y = b;

	if (x->socket != y->socket)
		return x->socket < y->socket ? -1 : 1;
	return (x->core > y->core) - (x->core < y->core);
}

/* Each CPU's core index: the machine's (socket, core) pairs in order. */
static int16_t *core_ranks(void)
{
	_cleanup_free_ struct affinity_cpu *pairs = calloc(AFF_CPU_MAX, sizeof(*pairs));
	int16_t *rank = malloc(AFF_CPU_MAX * sizeof(*rank));
	size_t n = 0;

	if (!pairs || !rank) {
		free(rank);
		return NULL;
	}
	for (int c = 0; c < AFF_CPU_MAX; c++) { /* every CPU the kernel has online */
		char path[96];

		rank[c] = -1;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology", c);
		if (access(path, F_OK) == 0)
			pairs[n++] = (struct affinity_cpu){.cpu = c,
							   .socket = read_int(c, "physical_package_id"),
							   .core = read_int(c, "core_id")};
	}
	qsort(pairs, n, sizeof(*pairs), pair_cmp);
	for (size_t i = 0, r = 0; i < n; i++) {
		if (i && pair_cmp(&pairs[i - 1], &pairs[i]))
			r++; /* a new core */
		rank[pairs[i].cpu] = (int16_t)(r < INT16_MAX ? r : INT16_MAX);
	}
	return rank;
}

uint64_t affinity_task_cores(const struct stepd *s, uint32_t ltid)
{
	struct affinity *a = s->aff;
	uint64_t out = 0;

	if (!a || ltid >= a->ntasks || mask_empty(a->masks[ltid]))
		return 0;
	if (!a->core_rank && !(a->core_rank = core_ranks()))
		return 0;
	for (int c = 0; c < AFF_CPU_MAX; c++)
		if (mask_has(a->masks[ltid], c) && a->core_rank[c] >= 0 && a->core_rank[c] < 64)
			out |= UINT64_C(1) << a->core_rank[c];
	return out;
}

void affinity_free(struct stepd *s)
{
	struct affinity *a = s->aff;

	if (!a)
		return;
	free(a->masks);
	free(a->core_rank);
	free(a);
	s->aff = NULL;
}
