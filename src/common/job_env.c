/* job_env.c - see job_env.h.
 *
 * Which variables exist and how they print comes from the reference
 * outputs (env_batch_plain.txt, env_batch_array_gres.txt): counts only when
 * asked (SLURM_NTASKS, SLURM_CPUS_PER_TASK), node ids 0 for the script,
 * SLURM_NODE_ALIASES=(null), topology = node name / "node",
 * SLURM_WORKING_CLUSTER = cluster:ctld_addr:port:protocol:select plugin id.
 * Steps (env_batch_srun_tasks.txt, srun_n4_l_env.txt): srun sends the job
 * and step variables; the stepd adds the node's and the task's.
 * Caveat: the launch message carries no array bounds, so
 * SLURM_ARRAY_TASK_COUNT/_MIN/_MAX/_STEP pass through from the submitted
 * environment when the controller puts them there.
 */
#include "job_env.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>

#include "hostlist.h"
#include "msg.h"

#define SELECT_CONS_TRES_ID 109 /* Slurm's plugin id, printed in SLURM_WORKING_CLUSTER */

void job_env_done(struct job_env *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
	free(e->idx);
	*e = (struct job_env){ 0 };
}

char **job_env_take_v(struct job_env *e, size_t *ret_n)
{
	char **v = e->v;

	if (ret_n)
		*ret_n = e->n;
	free(e->idx);
	*e = (struct job_env){0};
	return v;
}

/* FNV-1a of the name with a per-process random basis, then a final mix so
 * every bit counts in the slot: names crafted to collide for a known
 * basis do not make the index a list. */
static uint64_t env_basis(void)
{
	static uint64_t basis; /* set once, by whichever thread is first */
	uint64_t b = __atomic_load_n(&basis, __ATOMIC_ACQUIRE), expected = 0;

	if (b)
		return b;
	if (getrandom(&b, sizeof(b), GRND_NONBLOCK) != sizeof(b))
		b = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)&b;
	b |= 1;
	if (!__atomic_compare_exchange_n(&basis, &expected, b, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		b = expected;
	return b;
}

static uint64_t env_hash(const char *name, size_t len)
{
	uint64_t h = env_basis();

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3ULL;
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	return h ^ (h >> 32);
}

static size_t env_name_len(const char *entry)
{
	return strcspn(entry, "=");
}

/* The slot of name: where it is, or the empty slot where it would go. */
static size_t env_slot(const struct job_env *e, const char *name, size_t len)
{
	size_t mask = e->idx_cap - 1, s = (size_t)env_hash(name, len) & mask;

	for (;; s = (s + 1) & mask) {
		size_t pos = e->idx[s];

		if (pos == 0)
			return s;
		if (strncmp(e->v[pos - 1], name, len) == 0 && e->v[pos - 1][len] == '=')
			return s;
	}
}

static void env_index_all(struct job_env *e)
{
	memset(e->idx, 0, e->idx_cap * sizeof(*e->idx));
	for (size_t i = 0; i < e->n; i++)
		e->idx[env_slot(e, e->v[i], env_name_len(e->v[i]))] = i + 1;
}

static int env_reindex(struct job_env *e, size_t want)
{
	size_t cap = e->idx_cap ? e->idx_cap : 64;
	size_t *idx;

	while (cap < want * 2)
		cap *= 2;
	idx = calloc(cap, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	free(e->idx);
	e->idx = idx;
	e->idx_cap = cap;
	env_index_all(e);
	return 0;
}

static long env_find(const struct job_env *e, const char *name, size_t len)
{
	size_t pos;

	if (!e->idx)
		return -1;
	pos = e->idx[env_slot(e, name, len)];
	return pos ? (long)pos - 1 : -1;
}

/* Takes ownership of entry ("NAME=value"), even on error. */
static int env_take(struct job_env *e, char *entry)
{
	size_t len = env_name_len(entry), slot;

	if ((e->n + 1) * 2 > e->idx_cap && env_reindex(e, e->n + 1) < 0) {
		free(entry);
		return -ENOMEM;
	}
	slot = env_slot(e, entry, len);
	if (e->idx[slot]) {
		free(e->v[e->idx[slot] - 1]);
		e->v[e->idx[slot] - 1] = entry;
		return 0;
	}
	if (e->n + 2 > e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 64;
		char **v = realloc(e->v, cap * sizeof(*v));

		if (!v) {
			free(entry);
			return -ENOMEM;
		}
		e->v = v;
		e->cap = cap;
	}
	e->v[e->n++] = entry;
	e->v[e->n] = NULL;
	e->idx[slot] = e->n;
	return 0;
}

int job_env_set(struct job_env *e, const char *name, const char *fmt, ...)
{
	char *val = NULL, *entry = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&val, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	r = asprintf(&entry, "%s=%s", name, val);
	free(val);
	if (r < 0)
		return -ENOMEM;
	return env_take(e, entry);
}

int job_env_put(struct job_env *e, const char *entry)
{
	char *dup;

	if (!entry || !strchr(entry, '=') || entry[0] == '=')
		return -EINVAL;
	dup = strdup(entry);
	if (!dup)
		return -ENOMEM;
	return env_take(e, dup);
}

const char *job_env_get(const struct job_env *e, const char *name)
{
	size_t len = strlen(name);
	long i = env_find(e, name, len);

	return i < 0 ? NULL : e->v[i] + len + 1;
}

void job_env_unset(struct job_env *e, const char *name)
{
	long i = env_find(e, name, strlen(name));

	if (i < 0)
		return;
	free(e->v[i]);
	memmove(&e->v[i], &e->v[i + 1], (e->n - (size_t)i) * sizeof(*e->v)); /* with the NULL */
	e->n--;
	env_index_all(e); /* the positions after i moved (rare; linear) */
}

/* Set when s is given; the sticky error keeps the caller a straight list. */
static void set_str(struct job_env *e, int *r, const char *name, const char *s)
{
	if (*r == 0 && s)
		*r = job_env_set(e, name, "%s", s);
}

static void set_u64(struct job_env *e, int *r, const char *name, uint64_t v)
{
	if (*r == 0)
		*r = job_env_set(e, name, "%llu", (unsigned long long)v);
}

static bool is_given32(uint32_t v)
{
	return v != 0 && v != NO_VAL && v != INFINITE;
}

static bool is_given16(uint16_t v)
{
	return v != 0 && v != NO_VAL16 && v != INFINITE16;
}

/* list_name: SLURM_JOB_GPUS for the batch script, SLURM_STEP_GPUS for a step. */
static void set_gpus(struct job_env *e, int *r, const char *gpus, const char *list_name)
{
	uint64_t count = 1;

	for (const char *p = gpus; *p; p++)
		count += *p == ',';
	set_str(e, r, "CUDA_VISIBLE_DEVICES", gpus);
	set_str(e, r, "GPU_DEVICE_ORDINAL", gpus);
	set_str(e, r, "ROCR_VISIBLE_DEVICES", gpus);
	set_str(e, r, list_name, gpus);
	set_u64(e, r, "SLURM_GPUS_ON_NODE", count);
}

static void set_working_cluster(struct job_env *e, int *r, const char *cluster,
				const struct job_env_node *node)
{
	if (*r == 0 && node->ctld_addr)
		*r = job_env_set(e, "SLURM_WORKING_CLUSTER", "%s:%s:%u:%u:%u",
				 cluster ? cluster : "", node->ctld_addr,
				 (unsigned)node->ctld_port, (unsigned)PROTOCOL_VERSION,
				 SELECT_CONS_TRES_ID);
}

static void set_job(struct job_env *e, int *r, const struct batch_launch_msg *m)
{
	char *nodes = m->nodes ? hostlist_compress(m->nodes) : NULL;
	const char *nl = nodes ? nodes : m->nodes;

	set_u64(e, r, "SLURM_JOB_ID", m->job_id);
	set_u64(e, r, "SLURM_JOBID", m->job_id);
	set_str(e, r, "SLURM_JOB_NAME", m->job_name);
	set_str(e, r, "SLURM_JOB_NODELIST", nl);
	set_str(e, r, "SLURM_NODELIST", nl);
	free(nodes);
	set_u64(e, r, "SLURM_JOB_NUM_NODES", m->num_nodes);
	set_u64(e, r, "SLURM_NNODES", m->num_nodes);
	if (is_given32(m->num_tasks)) {
		set_u64(e, r, "SLURM_NTASKS", m->num_tasks);
		set_u64(e, r, "SLURM_NPROCS", m->num_tasks);
	}
	if (is_given16(m->ntasks_per_node))
		set_u64(e, r, "SLURM_NTASKS_PER_NODE", m->ntasks_per_node);
	if (is_given16(m->cpus_per_task))
		set_u64(e, r, "SLURM_CPUS_PER_TASK", m->cpus_per_task);
	set_u64(e, r, "SLURM_CPUS_ON_NODE", m->cpus_on_node);
	if (m->cpus_per_node)
		set_str(e, r, "SLURM_JOB_CPUS_PER_NODE", m->cpus_per_node);
	else
		set_u64(e, r, "SLURM_JOB_CPUS_PER_NODE", m->cpus_on_node);
	set_str(e, r, "SLURM_TASKS_PER_NODE", m->tasks_per_node);
	if (m->mem_per_cpu && m->mem_per_cpu != NO_VAL64)
		set_u64(e, r, "SLURM_MEM_PER_CPU", m->mem_per_cpu);
	else if (m->mem_per_node && m->mem_per_node != NO_VAL64)
		set_u64(e, r, "SLURM_MEM_PER_NODE", m->mem_per_node);
	set_str(e, r, "SLURM_SUBMIT_DIR", m->submit_dir);
	set_str(e, r, "SLURM_SUBMIT_HOST", m->submit_host);
	set_str(e, r, "SLURM_JOB_PARTITION", m->partition);
	set_str(e, r, "SLURM_JOB_ACCOUNT", m->account);
	set_str(e, r, "SLURM_JOB_QOS", m->qos);
	set_str(e, r, "SLURM_CLUSTER_NAME", m->cluster_name);
	set_u64(e, r, "SLURM_JOB_UID", m->uid);
	set_u64(e, r, "SLURM_JOB_GID", m->gid);
	set_str(e, r, "SLURM_JOB_USER", m->user_name);
	if (m->array_task_id != NO_VAL) {
		set_u64(e, r, "SLURM_ARRAY_JOB_ID", m->array_job_id);
		set_u64(e, r, "SLURM_ARRAY_TASK_ID", m->array_task_id);
	}
}

static void set_node(struct job_env *e, int *r, const struct batch_launch_msg *m,
		     const struct job_env_node *node)
{
	set_str(e, r, "SLURM_NODEID", "0");
	set_str(e, r, "SLURM_PROCID", "0");
	set_str(e, r, "SLURM_LOCALID", "0");
	set_str(e, r, "SLURM_GTIDS", "0");
	if (*r == 0 && !job_env_get(e, "SLURM_PRIO_PROCESS"))
		set_str(e, r, "SLURM_PRIO_PROCESS", "0");
	set_str(e, r, "SLURMD_NODENAME", node->node_name);
	set_str(e, r, "SLURM_TOPOLOGY_ADDR", node->node_name);
	set_str(e, r, "SLURM_TOPOLOGY_ADDR_PATTERN", "node");
	set_str(e, r, "SLURM_NODE_ALIASES", "(null)");
	set_str(e, r, "SLURM_CONF", node->conf_path);
	set_working_cluster(e, r, m->cluster_name, node);
	if (node->has_gpu_files && m->gpus && *m->gpus)
		set_gpus(e, r, m->gpus, "SLURM_JOB_GPUS");
	set_str(e, r, "ENVIRONMENT", "BATCH");
	set_str(e, r, "HOSTNAME", node->host_name);
}

int job_env_batch(struct job_env *e, const struct batch_launch_msg *m,
		  const struct job_env_node *node)
{
	int r = 0;

	for (uint32_t i = 0; i < m->env_count && r == 0; i++) {
		/* sbatch's carriers of the umask and resource limits are applied
		 * by the stepd, not seen by the job (as Slurm's stepd does) */
		if (m->env[i] && (strncmp(m->env[i], "SLURM_UMASK=", 12) == 0
				  || strncmp(m->env[i], "SLURM_RLIMIT_", 13) == 0))
			continue;
		if (m->env[i] && job_env_put(e, m->env[i]) == -ENOMEM)
			r = -ENOMEM; /* entries without '=' are dropped, as execve would */
	}
	set_job(e, &r, m);
	set_node(e, &r, m, node);
	return r;
}

int job_env_step(struct job_env *e, const struct launch_tasks_msg *m,
		 const struct job_env_node *node)
{
	int r = 0;

	for (uint32_t i = 0; i < m->env_count && r == 0; i++) {
		/* srun's resource limits are applied by the stepd and, as in
		 * Slurm, not left in the tasks' environment */
		if (m->env[i] && strncmp(m->env[i], "SLURM_RLIMIT_", 13) == 0)
			continue;
		if (m->env[i] && job_env_put(e, m->env[i]) == -ENOMEM)
			r = -ENOMEM; /* entries without '=' are dropped, as execve would */
	}
	set_str(e, &r, "SLURMD_NODENAME", node->node_name);
	set_u64(e, &r, "SLURM_NODEID", m->node_id);
	set_u64(e, &r, "SLURM_CPUS_ON_NODE", m->cpus_on_node);
	if (r == 0 && m->gtids && m->ntasks_here) {
		size_t cap = (size_t)m->ntasks_here * 11 + 1, len = 0;
		char *list = malloc(cap);

		if (!list)
			return -ENOMEM;
		list[0] = '\0';
		for (uint32_t i = 0; i < m->ntasks_here; i++)
			len += (size_t)snprintf(list + len, cap - len, "%s%u", i ? "," : "",
						(unsigned)m->gtids[i]);
		r = job_env_set(e, "SLURM_GTIDS", "%s", list);
		free(list);
	}
	set_str(e, &r, "SLURM_TOPOLOGY_ADDR", node->node_name);
	set_str(e, &r, "SLURM_TOPOLOGY_ADDR_PATTERN", "node");
	set_str(e, &r, "SLURM_CONF", node->conf_path);
	set_working_cluster(e, &r, node->cluster_name, node);
	if (node->has_gpu_files && m->gpus && *m->gpus)
		set_gpus(e, &r, m->gpus, "SLURM_STEP_GPUS");
	return r;
}

int job_env_step_task(struct job_env *e, const struct launch_tasks_msg *m, uint32_t local_id)
{
	int r = 0;

	if (!m->gtids || local_id >= m->ntasks_here)
		return -EINVAL;
	set_u64(e, &r, "SLURM_PROCID", m->gtids[local_id]);
	set_u64(e, &r, "SLURM_LOCALID", local_id);
	return r;
}

const struct job_env_rlimit job_env_rlimits[] = {
    {"CPU", RLIMIT_CPU},     {"FSIZE", RLIMIT_FSIZE},	{"DATA", RLIMIT_DATA},
    {"STACK", RLIMIT_STACK}, {"CORE", RLIMIT_CORE},	{"RSS", RLIMIT_RSS},
    {"NPROC", RLIMIT_NPROC}, {"NOFILE", RLIMIT_NOFILE}, {"MEMLOCK", RLIMIT_MEMLOCK},
    {"AS", RLIMIT_AS},
};
const size_t job_env_rlimits_count = sizeof(job_env_rlimits) / sizeof(job_env_rlimits[0]);

int job_env_set_rlimits(struct job_env *e, const char *forced)
{
	for (size_t i = 0; i < job_env_rlimits_count; i++) {
		bool is_forced = forced && job_env_rlimit_is_propagated(job_env_rlimits[i].name,
									 forced, NULL);
		struct rlimit rl;
		char name[32];

		if (getrlimit(job_env_rlimits[i].resource, &rl) < 0)
			continue;
		snprintf(name, sizeof(name), "SLURM_RLIMIT_%s", job_env_rlimits[i].name);
		if (job_env_set(e, name, "%s%llu", is_forced ? "U" : "",
				(unsigned long long)rl.rlim_cur)
		    < 0)
			return -ENOMEM;
	}
	return 0;
}

bool job_env_rlimit_list_ok(const char *v, size_t *bad)
{
	for (const char *p = v; *p;) {
		size_t n = strcspn(p, ",");
		bool ok = (n == 3 && !strncmp(p, "ALL", 3)) || (n == 4 && !strncmp(p, "NONE", 4));

		for (size_t i = 0; i < job_env_rlimits_count && !ok; i++)
			ok = strlen(job_env_rlimits[i].name) == n
			     && !strncmp(p, job_env_rlimits[i].name, n);
		if (!ok) {
			*bad = (size_t)(p - v);
			return false;
		}
		p += n + (p[n] == ',');
	}
	return true;
}

/* Is name a word of the comma list (case-insensitive)? */
static bool list_has(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		if (n == len && strncasecmp(p, name, n) == 0)
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

bool job_env_rlimit_is_propagated(const char *name, const char *propagate, const char *except)
{
	if (except && *except)
		return strcasecmp(except, "ALL") != 0 && !list_has(except, name);
	if (!propagate || !*propagate || strcasecmp(propagate, "ALL") == 0)
		return true;
	if (strcasecmp(propagate, "NONE") == 0)
		return false;
	return list_has(propagate, name);
}

int job_env_rlimit_parse(const char *v, uint64_t *ret, bool *ret_is_forced)
{
	char *end;

	if (!v)
		return -EINVAL;
	*ret_is_forced = *v == 'U';
	if (*ret_is_forced)
		v++;
	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	*ret = strtoull(v, &end, 10);
	return errno || *end ? -EINVAL : 0;
}
