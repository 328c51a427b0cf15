/* conf_keys.c - the slurm.conf key table (R23).
 *
 * Purpose: one row per key Slurm 22.05's slurm.conf(5) documents: its
 * canonical spelling, how its value is parsed, where it is stored in
 * struct sl_conf, its bounds and its default (parsed like input, so a
 * default cannot be a value the parser would refuse).
 * Rows of type CONF_RAW are keys we accept but do not act on yet: they are
 * kept only in kv[] (for `scontrol show config`) and logged at debug.
 * Values are parsed by conf_value.c, the leaf below every conf*.c table.
 * Caveats: SlurmctldPort takes one port, not a range; only the first
 * SlurmctldHost is used (backup controllers are accepted and ignored).
 */
#include "conf_internal.h"

#include "conf_prio.h"

#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "limits.h"
#include "license_spec.h"
#include "log.h"
#include "macros.h"
#include "msg.h"

#define MAX_JOB_ID 0x03ff0000u /* Slurm's cap on MaxJobId */

/* ---- keys that need more than a typed store ---- */

/* SlurmctldHost=name or name(addr); a second one is a backup, not used. */
static int key_ctld_host(void *base, const struct conf_key *k, const char *val,
			 const struct conf_where *at, struct sl_error *err)
{
	struct sl_conf *c = base;
	const char *paren = strchr(val, '(');
	_cleanup_free_ char *name = NULL, *addr = NULL;

	if (conf_get_raw(c, k->name)) {
		debug("%s:%u: backup controller %s ignored", at->file, at->line, val);
		return 0;
	}
	if (paren) {
		size_t alen = strlen(paren + 1); /* "addr)" */

		if (alen < 2 || paren[alen] != ')' || paren == val)
			return conf_bad_value(k, val, at, "expected name or name(address)", err);
		name = strndup(val, (size_t)(paren - val));
		addr = strndup(paren + 1, alen - 1);
	} else {
		if (!*val)
			return conf_bad_value(k, val, at, "empty host name", err);
		name = strdup(val);
		addr = strdup(val);
	}
	if (!name || !addr)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	free(c->control_machine);
	free(c->control_addr);
	c->control_machine = TAKE_PTR(name);
	c->control_addr = TAKE_PTR(addr);
	return 0;
}

/* AuthInfo=socket=/path,ttl=N: we use the socket. */
static int key_auth_info(void *base, const struct conf_key *k, const char *val,
			 const struct conf_where *at, struct sl_error *err)
{
	struct sl_conf *c = base;
	_cleanup_free_ char *copy = strdup(val);
	char *save = NULL;

	(void)k;
	if (!copy || conf_strset(&c->auth_info, val) < 0)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	for (char *opt = strtok_r(copy, ",", &save); opt; opt = strtok_r(NULL, ",", &save)) {
		if (strncasecmp(opt, "socket=", 7) == 0
		    && conf_strset(&c->munge_socket, opt + 7) < 0)
			return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	}
	return 0;
}

/* SlurmdParameters: a comma list; we act on config_overrides. */
static int key_slurmd_params(void *base, const struct conf_key *k, const char *val,
			     const struct conf_where *at, struct sl_error *err)
{
	struct sl_conf *c = base;
	_cleanup_free_ char *copy = strdup(val);
	char *save = NULL;

	(void)k;
	if (!copy)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	c->config_overrides = false;
	for (char *opt = strtok_r(copy, ",", &save); opt; opt = strtok_r(NULL, ",", &save))
		if (strcaseeq(opt, "config_overrides"))
			c->config_overrides = true;
	return 0;
}

/* SlurmUser: the name, and its uid when this host knows it (0 if not). */
static int key_slurm_user(void *base, const struct conf_key *k, const char *val,
			  const struct conf_where *at, struct sl_error *err)
{
	struct sl_conf *c = base;
	struct passwd pw, *res = NULL;
	char buf[4096];
	uint64_t uid;

	if (!*val)
		return conf_bad_value(k, val, at, "empty user name", err);
	if (conf_strset(&c->slurm_user, val) < 0)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	c->slurm_user_id = 0;
	if (getpwnam_r(val, &pw, buf, sizeof(buf), &res) == 0 && res)
		c->slurm_user_id = (uint32_t)res->pw_uid;
	else if (conf_parse_u64(val, &uid) == 0 && uid < UINT32_MAX)
		c->slurm_user_id = (uint32_t)uid;
	return 0;
}

/* AccountingStorageType: our embedded store, or none. slurmdbd is taken
 * as the embedded store too (the controller says so once at start). */
static int key_acct_type(void *base, const struct conf_key *k, const char *val,
			 const struct conf_where *at, struct sl_error *err)
{
	static const char *const types[] = {
	    "accounting_storage/sqlite", "accounting_storage/slurmdbd", "accounting_storage/none"};
	struct sl_conf *c = base;

	if (!*val)
		val = k->def;
	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		if (!strcaseeq(val, types[i]))
			continue;
		if (conf_strset(&c->acct_storage_type, types[i]) < 0)
			return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
		return 0;
	}
	return conf_bad_value(k, val, at,
			      "expected accounting_storage/sqlite, accounting_storage/slurmdbd or "
			      "accounting_storage/none",
			      err);
}

/* A comma list of words (case-insensitive) -> the OR of their flags;
 * -EINVAL on an unknown word, -ENOMEM. */
struct conf_word {
	const char *name;
	uint32_t flag;
};
static int word_flags(const char *val, const struct conf_word *words, size_t n, uint32_t *ret)
{
	_cleanup_free_ char *copy = strdup(val);
	char *save = NULL;

	*ret = 0;
	if (!copy)
		return -ENOMEM;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t i = 0;

		while (i < n && !strcaseeq(w, words[i].name))
			i++;
		if (i == n)
			return -EINVAL;
		*ret |= words[i].flag;
	}
	return 0;
}

/* PreemptType: preempt/none, preempt/qos, preempt/partition_prio. */
static int key_preempt_type(void *base, const struct conf_key *k, const char *val,
			    const struct conf_where *at, struct sl_error *err)
{
	struct sl_conf *c = base;

	if (strcaseeq(val, "preempt/none"))
		c->preempt_type = PREEMPT_TYPE_NONE;
	else if (strcaseeq(val, "preempt/qos"))
		c->preempt_type = PREEMPT_TYPE_QOS;
	else if (strcaseeq(val, "preempt/partition_prio"))
		c->preempt_type = PREEMPT_TYPE_PARTITION_PRIO;
	else
		return conf_bad_value(
		    k, val, at, "expected preempt/none, preempt/qos or preempt/partition_prio",
		    err);
	return 0;
}

/* ProctrackType: proctrack/cgroup, proctrack/linuxproc, proctrack/pgid. */
static int key_proctrack(void *base, const struct conf_key *k, const char *val,
			 const struct conf_where *at, struct sl_error *err)
{
	struct sl_conf *c = base;

	if (strcaseeq(val, "proctrack/cgroup"))
		c->proctrack = PROCTRACK_CGROUP;
	else if (strcaseeq(val, "proctrack/linuxproc"))
		c->proctrack = PROCTRACK_LINUXPROC;
	else if (strcaseeq(val, "proctrack/pgid"))
		c->proctrack = PROCTRACK_PGID;
	else
		return conf_bad_value(
		    k, val, at, "expected proctrack/cgroup, proctrack/linuxproc or proctrack/pgid",
		    err);
	return 0;
}

/* A key whose value is a comma list of words: their flags in *ret, or
 * the error (expected: what the message says is allowed). */
static int key_words(const struct conf_key *k, const char *val, const struct conf_word *words,
		     size_t n, const char *expected, const struct conf_where *at,
		     struct sl_error *err, uint32_t *ret)
{
	int r = word_flags(val, words, n, ret);

	if (r == -ENOMEM)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	if (r < 0)
		return conf_bad_value(k, val, at, expected, err);
	return 0;
}

/* TaskPlugin: task/none, or a list of task/cgroup and task/affinity. */
static int key_task_plugin(void *base, const struct conf_key *k, const char *val,
			   const struct conf_where *at, struct sl_error *err)
{
	static const struct conf_word words[] = {
	    {"task/none", 0},
	    {"task/cgroup", TASK_PLUGIN_CGROUP},
	    {"task/affinity", TASK_PLUGIN_AFFINITY},
	};
	struct sl_conf *c = base;
	uint32_t flags = 0;
	int r = key_words(k, val, words, ARRAY_SIZE(words),
			  "expected task/none, task/cgroup or task/affinity", at, err, &flags);

	if (r < 0)
		return r;
	c->task_plugins = (uint16_t)flags;
	return 0;
}

/* PreemptMode: OFF, CANCEL or REQUEUE, with GANG and WITHIN accepted. */
static int key_preempt_mode(void *base, const struct conf_key *k, const char *val,
			    const struct conf_where *at, struct sl_error *err)
{
	static const struct conf_word words[] = {
	    {"off", 0x1}, {"cancel", 0x2}, {"requeue", 0x4}, {"gang", 0}, {"within", 0},
	};
	static const char expected[] = "expected one of OFF, CANCEL, REQUEUE (with GANG, WITHIN); "
				       "SUSPEND is not supported";
	struct sl_conf *c = base;
	uint32_t flags = 0;
	int r = key_words(k, val, words, ARRAY_SIZE(words), expected, at, err, &flags);

	if (r < 0)
		return r;
	if (__builtin_popcount(flags) > 1)
		return conf_bad_value(k, val, at, expected, err);
	c->preempt_mode = flags & 0x2	? PREEMPT_MODE_CANCEL
			  : flags & 0x4 ? PREEMPT_MODE_REQUEUE
					: PREEMPT_MODE_OFF;
	return 0;
}

/* HealthCheckNodeState: a comma list of states (ALLOC, ANY, IDLE, MIXED,
 * NONDRAINED_IDLE) and of CYCLE, START_ONLY. */
static int key_health_state(void *base, const struct conf_key *k, const char *val,
			    const struct conf_where *at, struct sl_error *err)
{
	static const struct conf_word words[] = {
	    {"alloc", HC_STATE_ALLOC},
	    {"any", HC_STATE_ANY},
	    {"idle", HC_STATE_IDLE},
	    {"mixed", HC_STATE_MIXED},
	    {"nondrained_idle", HC_STATE_NONDRAINED_IDLE},
	    {"cycle", HC_STATE_CYCLE},
	    {"start_only", HC_STATE_START_ONLY},
	};
	struct sl_conf *c = base;
	uint32_t flags = 0;
	int r = key_words(k, val, words, ARRAY_SIZE(words),
			  "expected a comma list of ALLOC, ANY, IDLE, MIXED, NONDRAINED_IDLE, "
			  "CYCLE, START_ONLY",
			  at, err, &flags);

	if (r < 0)
		return r;
	if (!(flags & (HC_STATE_ALLOC | HC_STATE_IDLE | HC_STATE_MIXED | HC_STATE_NONDRAINED_IDLE)))
		flags |= HC_STATE_ANY;
	c->health_check_state = (uint16_t)flags;
	return 0;
}

/* PrologFlags: a comma list; Contain and X11 imply Alloc, as Slurm's. */
static int key_prolog_flags(void *base, const struct conf_key *k, const char *val,
			    const struct conf_where *at, struct sl_error *err)
{
	static const struct conf_word words[] = {
	    {"alloc", PROLOG_FLAG_ALLOC},
	    {"contain", PROLOG_FLAG_CONTAIN | PROLOG_FLAG_ALLOC},
	    {"deferbatch", PROLOG_FLAG_DEFER_BATCH},
	    {"nohold", PROLOG_FLAG_NOHOLD},
	    {"serial", PROLOG_FLAG_SERIAL},
	    {"x11", PROLOG_FLAG_X11 | PROLOG_FLAG_CONTAIN | PROLOG_FLAG_ALLOC},
	    {"forcerequeueonfail", PROLOG_FLAG_FORCE_REQUEUE},
	};
	struct sl_conf *c = base;
	uint32_t flags = 0;
	int r = key_words(k, val, words, ARRAY_SIZE(words),
			  "expected a comma list of Alloc, Contain, DeferBatch, NoHold, Serial, "
			  "X11, ForceRequeueOnFail",
			  at, err, &flags);

	if (r < 0)
		return r;
	c->prolog_flags = (uint16_t)flags;
	return 0;
}

/* JobContainerType: none, or tmpfs (a private /tmp per job, job_container.conf). */
static int key_job_container(void *base, const struct conf_key *k, const char *val,
			     const struct conf_where *at, struct sl_error *err)
{
	struct sl_conf *c = base;

	if (strcaseeq(val, "job_container/none"))
		c->job_container = CONTAINER_NONE;
	else if (strcaseeq(val, "job_container/tmpfs"))
		c->job_container = CONTAINER_TMPFS;
	else
		return errprintf(err, -EINVAL,
				 "%s:%u: %s=%s: expected job_container/none or job_container/tmpfs",
				 at->file, at->line, k->name, val);
	return 0;
}

/* JobSubmitPlugins: a comma list of Slurm's job_submit plugins, written
 * "lua" or "job_submit/lua"; lua is the one we have. */
static int key_job_submit(void *base, const struct conf_key *k, const char *val,
			  const struct conf_where *at, struct sl_error *err)
{
	static const struct conf_word words[] = {
	    {"lua", JOB_SUBMIT_LUA},
	    {"job_submit/lua", JOB_SUBMIT_LUA},
	};
	struct sl_conf *c = base;
	uint32_t flags = 0;
	int r = key_words(k, val, words, ARRAY_SIZE(words),
			  "expected lua (job_submit/lua); all_partitions, defaults, logging, "
			  "partition, pbs, require_timelimit and throttle are not supported",
			  at, err, &flags);

	if (r < 0)
		return r;
	c->job_submit_plugins = (uint16_t)flags;
	return 0;
}

/* Licenses=name[:count],...: cluster-wide counted licenses. */
static int key_licenses(void *base, const struct conf_key *k, const char *val,
			const struct conf_where *at, struct sl_error *err)
{
	struct sl_conf *c = base;
	struct license_item *items = NULL;
	uint32_t n;
	int r;

	if (!val || !*val)
		return conf_strset(&c->licenses, NULL);
	r = license_spec_parse(val, 1, &items, &n);
	free(items);
	if (r == -EINVAL)
		return errprintf(err, -EINVAL,
				 "%s:%u: %s=%s: expected name[:count],... (names of letters, "
				 "digits and _.@+-)",
				 at->file, at->line, k->name, val);
	return r < 0 ? r : conf_strset(&c->licenses, val);
}

/* PrivateData: a comma list of what normal users may not see of others. */
static int key_private_data(void *base, const struct conf_key *k, const char *val,
			    const struct conf_where *at, struct sl_error *err)
{
	static const struct conf_word words[] = {
	    {"accounts", PRIVATE_DATA_ACCOUNTS},
	    {"all", PRIVATE_DATA_ALL},
	    {"cloud", PRIVATE_DATA_CLOUD},
	    {"events", PRIVATE_DATA_EVENTS},
	    {"jobs", PRIVATE_DATA_JOBS},
	    {"nodes", PRIVATE_DATA_NODES},
	    {"partitions", PRIVATE_DATA_PARTITIONS},
	    {"reservations", PRIVATE_DATA_RESERVATIONS},
	    {"usage", PRIVATE_DATA_USAGE},
	    {"users", PRIVATE_DATA_USERS},
	};
	struct sl_conf *c = base;
	uint32_t flags = 0;
	int r = word_flags(val, words, ARRAY_SIZE(words), &flags);

	if (r == -EINVAL)
		return conf_bad_value(k, val, at, "unknown PrivateData word", err);
	if (r < 0 || conf_strset(&c->private_data, val) < 0)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	c->private_data_flags = flags;
	return 0;
}

/* EnforcePartLimits: NO, ANY, ALL (YES is ALL, as in Slurm). */
static int key_enforce_part(void *base, const struct conf_key *k, const char *val,
			    const struct conf_where *at, struct sl_error *err)
{
	struct sl_conf *c = base;

	if (!*val || strcaseeq(val, "NO"))
		c->enforce_part_limits = ENFORCE_PART_NO;
	else if (strcaseeq(val, "ANY"))
		c->enforce_part_limits = ENFORCE_PART_ANY;
	else if (strcaseeq(val, "ALL") || strcaseeq(val, "YES"))
		c->enforce_part_limits = ENFORCE_PART_ALL;
	else
		return conf_bad_value(k, val, at, "expected NO, ANY, ALL or YES", err);
	return 0;
}

/* AccountingStorageEnforce: a comma list of associations, limits, qos,
 * safe, wckeys, nojobs, nosteps, all; limits and qos imply associations. */
static int key_acct_enforce(void *base, const struct conf_key *k, const char *val,
			    const struct conf_where *at, struct sl_error *err)
{
	static const struct conf_word words[] = {
	    {"associations", ACCT_ENFORCE_ASSOCS},
	    {"limits", ACCT_ENFORCE_ASSOCS | ACCT_ENFORCE_LIMITS},
	    {"qos", ACCT_ENFORCE_ASSOCS | ACCT_ENFORCE_QOS},
	    {"safe", ACCT_ENFORCE_ASSOCS | ACCT_ENFORCE_LIMITS | ACCT_ENFORCE_SAFE},
	    {"all",
	     ACCT_ENFORCE_ASSOCS | ACCT_ENFORCE_LIMITS | ACCT_ENFORCE_QOS | ACCT_ENFORCE_SAFE},
	    {"wckeys", 0},
	    {"nojobs", 0},
	    {"nosteps", 0},
	    {"none", 0},
	};
	struct sl_conf *c = base;
	uint32_t flags = 0;
	int r = word_flags(val, words, ARRAY_SIZE(words), &flags);

	if (r == -EINVAL)
		return conf_bad_value(k, val, at, "unknown AccountingStorageEnforce word", err);
	if (r < 0)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	c->acct_enforce = (uint16_t)flags;
	return 0;
}

/* SchedulerParameters words with a number: name, field, bounds. */
struct sched_word {
	const char *name;
	size_t off;
	uint64_t lo, hi;
	bool is_signed; /* int32_t field (-1 allowed: bf_interval) */
};

static const struct sched_word sched_words[] = {
    {"max_script_size", offsetof(struct sl_conf, max_script_size), 1, 512u << 20, false},
    {"bf_interval", offsetof(struct sl_conf, bf_interval), 1, 10800, true},
    {"bf_window", offsetof(struct sl_conf, bf_window), 1, 43200, false},
    {"bf_resolution", offsetof(struct sl_conf, bf_resolution), 1, 3600, false},
    {"bf_max_job_test", offsetof(struct sl_conf, bf_max_job_test), 1, 1000000, false},
    {"bf_max_job_user", offsetof(struct sl_conf, bf_max_job_user), 0, 1000000, false},
    {"default_queue_depth", offsetof(struct sl_conf, sched_queue_depth), 1, 1000000, false},
    {"partition_job_depth", offsetof(struct sl_conf, sched_part_depth), 0, 1000000, false},
    {"sched_interval", offsetof(struct sl_conf, sched_interval), 1, 86400, false},
    {"max_sched_time", offsetof(struct sl_conf, sched_max_time), 1, 3600, false},
    {"sched_max_job_start", offsetof(struct sl_conf, sched_max_job_start), 0, 1000000, false},
};

static int sched_word(struct sl_conf *c, const char *w, const struct conf_key *k, const char *val,
		      const struct conf_where *at, struct sl_error *err)
{
	for (size_t i = 0; i < ARRAY_SIZE(sched_words); i++) {
		const struct sched_word *sw = &sched_words[i];
		size_t len = strlen(sw->name);
		uint64_t n;

		if (strncasecmp(w, sw->name, len) != 0 || w[len] != '=')
			continue;
		if (sw->is_signed && strcmp(w + len + 1, "-1") == 0) {
			*(int32_t *)((char *)c + sw->off) = -1;
			return 0;
		}
		if (conf_parse_u64(w + len + 1, &n) < 0 || n < sw->lo || n > sw->hi)
			return errprintf(
			    err, -EINVAL, "%s:%u: %s=%s: %s: expected %" PRIu64 "..%" PRIu64,
			    at->file, at->line, k->name, val, sw->name, sw->lo, sw->hi);
		*(uint32_t *)((char *)c + sw->off) = (uint32_t)n;
		return 0;
	}
	if (strcasecmp(w, "bf_continue") == 0)
		c->bf_continue = true;
	else if (strcasecmp(w, "bf_busy_nodes") == 0)
		c->bf_busy_nodes = true;
	return 0; /* other words: kept for show config only */
}

/* SchedulerParameters: the words we act on (max_script_size=bytes, the
 * backfill's bf_*, the main scheduler's depths and times); the others are
 * kept for show config only. */
static int key_sched_params(void *base, const struct conf_key *k, const char *val,
			    const struct conf_where *at, struct sl_error *err)
{
	struct sl_conf *c = base;
	_cleanup_free_ char *copy = strdup(val);
	char *save = NULL;

	if (!copy)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	c->max_script_size = 4u << 20;
	c->bf_interval = 30;
	c->bf_window = 1440;
	c->bf_resolution = 60;
	c->bf_max_job_test = 500;
	c->bf_max_job_user = 0;
	c->bf_continue = c->bf_busy_nodes = false;
	c->sched_queue_depth = 100;
	c->sched_part_depth = 0;
	c->sched_interval = 60;
	c->sched_max_time = 0;
	c->sched_max_job_start = 0;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int r = sched_word(c, w, k, val, at, err);

		if (r < 0)
			return r;
	}
	return 0;
}

/* clang-format off */
#define K(n, t, f, lo, hi, d) CONF_KEY(n, t, sl_conf, f, lo, hi, d)
#define KFN(n, fn, d) { n, CONF_FN, 0, 0, 0, d, fn }
#define R(n) CONF_KEY_RAW(n)

const struct conf_key conf_keys[] = {
	/* keys we act on */
	K("AccountingStorageLoc", CONF_STR, acct_storage_loc, 0, 0, NULL),
	KFN("AccountingStorageEnforce", key_acct_enforce, NULL),
	KFN("AccountingStorageType", key_acct_type, "accounting_storage/sqlite"),
	K("AuthAltParameters", CONF_STR, auth_alt_params, 0, 0, NULL),
	K("AuthAltTypes", CONF_STR, auth_alt_types, 0, 0, NULL),
	KFN("AuthInfo", key_auth_info, NULL),
	K("AuthType", CONF_STR, auth_type, 0, 0, "auth/munge"),
	K("BatchStartTimeout", CONF_U32, batch_start_timeout, 1, 65533, "10"),
	K("ClusterName", CONF_STR, cluster_name, 0, 0, NULL),
	K("ControlAddr", CONF_STR, control_addr, 0, 0, NULL),       /* legacy */
	K("ControlMachine", CONF_STR, control_machine, 0, 0, NULL), /* legacy */
	K("DefCpuPerGPU", CONF_U16, def_cpu_per_gpu, 0, 65535, "0"),
	K("DefMemPerCPU", CONF_MEM, def_mem_per_cpu, 0, UINT64_MAX, "0"),
	K("DefMemPerGPU", CONF_MEM, def_mem_per_gpu, 0, UINT64_MAX, "0"),
	K("DefMemPerNode", CONF_MEM, def_mem_per_node, 0, UINT64_MAX, "0"),
	KFN("EnforcePartLimits", key_enforce_part, "NO"),
	KFN("PreemptMode", key_preempt_mode, "OFF"),
	KFN("PreemptType", key_preempt_type, "preempt/none"),
	KFN("ProctrackType", key_proctrack, "proctrack/cgroup"),
	KFN("TaskPlugin", key_task_plugin, "task/none"),
	K("FirstJobId", CONF_U32, first_job_id, 1, MAX_JOB_ID, "1"),
	K("GresTypes", CONF_STR, gres_types, 0, 0, NULL),
	K("JobRequeue", CONF_U16, job_requeue, 0, 1, "1"),
	K("KillWait", CONF_U32, kill_wait, 0, 65533, "30"),
	K("MailProg", CONF_STR, mail_prog, 0, 0, "/bin/mail"),
	K("Epilog", CONF_STR, epilog, 0, 0, NULL),
	K("HealthCheckInterval", CONF_U32, health_check_interval, 0, UINT32_MAX - 1, "0"),
	KFN("HealthCheckNodeState", key_health_state, "ANY"),
	KFN("PrologFlags", key_prolog_flags, NULL),
	KFN("JobContainerType", key_job_container, "job_container/none"),
	KFN("JobSubmitPlugins", key_job_submit, NULL),
	K("HealthCheckProgram", CONF_STR, health_check_program, 0, 0, NULL),
	K("RebootProgram", CONF_STR, reboot_program, 0, 0, NULL),
	KFN("Licenses", key_licenses, NULL),
	K("ResumeTimeout", CONF_U32, resume_timeout, 0, UINT32_MAX - 1, "60"),
	K("EpilogSlurmctld", CONF_STR, epilog_slurmctld, 0, 0, NULL),
	K("PrologSlurmctld", CONF_STR, prolog_slurmctld, 0, 0, NULL),
	K("SrunEpilog", CONF_STR, srun_epilog, 0, 0, NULL),
	K("SrunProlog", CONF_STR, srun_prolog, 0, 0, NULL),
	K("TaskEpilog", CONF_STR, task_epilog, 0, 0, NULL),
	K("TaskProlog", CONF_STR, task_prolog, 0, 0, NULL),
	K("Prolog", CONF_STR, prolog, 0, 0, NULL),
	K("PrologEpilogTimeout", CONF_U16, prolog_epilog_timeout, 0, PE_TIMEOUT_NONE, "65534"),
	K("MaxArraySize", CONF_U32, max_array_size, 0, 4000001, "1001"),
	K("MaxJobCount", CONF_U32, max_job_count, 1, UINT32_MAX - 1, "10000"),
	K("MaxJobId", CONF_U32, max_job_id, 1, MAX_JOB_ID, "67043328"),
	K("MessageTimeout", CONF_U32, message_timeout, 1, 3600, "10"),
	K("MinJobAge", CONF_U32, min_job_age, 0, UINT32_MAX - 1, "300"),
	K("PriorityCalcPeriod", CONF_TIME, prio_calc_period, 0, 0, "5"),
	K("PriorityDecayHalfLife", CONF_TIME, prio_decay_half_life, 0, 0, "7-0"),
	K("PriorityFavorSmall", CONF_BOOL, prio_favor_small, 0, 0, "NO"),
	KFN("PriorityFlags", conf_key_prio_flags, NULL),
	K("PriorityMaxAge", CONF_TIME, prio_max_age, 0, 0, "7-0"),
	K("PriorityType", CONF_STR, priority_type, 0, 0, "priority/basic"),
	KFN("PriorityUsageResetPeriod", conf_key_prio_reset, "NONE"),
	K("PriorityWeightAge", CONF_U32, prio_weight_age, 0, UINT32_MAX - 2, "0"),
	K("PriorityWeightAssoc", CONF_U32, prio_weight_assoc, 0, UINT32_MAX - 2, "0"),
	K("PriorityWeightFairshare", CONF_U32, prio_weight_fairshare, 0, UINT32_MAX - 2, "0"),
	K("PriorityWeightJobSize", CONF_U32, prio_weight_job_size, 0, UINT32_MAX - 2, "0"),
	K("PriorityWeightPartition", CONF_U32, prio_weight_partition, 0, UINT32_MAX - 2, "0"),
	K("PriorityWeightQOS", CONF_U32, prio_weight_qos, 0, UINT32_MAX - 2, "0"),
	KFN("PriorityWeightTRES", conf_key_prio_weight_tres, NULL),
	KFN("PrivateData", key_private_data, NULL),
	K("PropagateResourceLimits", CONF_STR, propagate_rlimits, 0, 0, NULL),
	K("PropagateResourceLimitsExcept", CONF_STR, propagate_rlimits_except, 0, 0, NULL),
	K("ReturnToService", CONF_U16, return_to_service, 0, 2, "0"),
	KFN("SchedulerParameters", key_sched_params, ""),
	K("SchedulerType", CONF_STR, scheduler_type, 0, 0, "sched/backfill"),
	K("SelectType", CONF_STR, select_type, 0, 0, "select/linear"),
	K("SelectTypeParameters", CONF_STR, select_type_params, 0, 0, NULL),
	K("SlurmctldDebug", CONF_LOG, slurmctld_debug, 0, 0, "info"),
	KFN("SlurmctldHost", key_ctld_host, NULL),
	K("SlurmctldLogFile", CONF_STR, slurmctld_logfile, 0, 0, NULL),
	K("SlurmctldPidFile", CONF_STR, slurmctld_pidfile, 0, 0, "/var/run/slurmctld.pid"),
	K("SlurmctldPort", CONF_U16, slurmctld_port, 1, UINT16_MAX, "6817"),
	K("SlurmctldTimeout", CONF_U32, slurmctld_timeout, 0, 65533, "120"),
	K("SlurmdDebug", CONF_LOG, slurmd_debug, 0, 0, "info"),
	K("SlurmdLogFile", CONF_STR, slurmd_logfile, 0, 0, NULL),
	KFN("SlurmdParameters", key_slurmd_params, NULL),
	K("SlurmdPidFile", CONF_STR, slurmd_pidfile, 0, 0, "/var/run/slurmd.pid"),
	K("SlurmdPort", CONF_U16, slurmd_port, 1, UINT16_MAX, "6818"),
	K("SlurmdSpoolDir", CONF_STR, slurmd_spool_dir, 0, 0, "/var/spool/slurmd"),
	K("SlurmdTimeout", CONF_U32, slurmd_timeout, 0, 65533, "300"),
	K("SlurmdUser", CONF_STR, slurmd_user, 0, 0, "root"),
	KFN("SlurmUser", key_slurm_user, "root"),
	K("StateSaveLocation", CONF_STR, state_save_location, 0, 0, "/var/spool"),
	K("UnkillableStepTimeout", CONF_U32, unkillable_step_timeout, 1, 65533, "60"),

	/* slurm.conf(5) keys accepted, kept in kv[], not acted on yet */
	R("AccountingStorageBackupHost"),
	R("AccountingStorageExternalHost"), R("AccountingStorageHost"),
	R("AccountingStorageParameters"), R("AccountingStoragePass"),
	R("AccountingStoragePort"), R("AccountingStorageTRES"),
	R("AccountingStorageUser"), R("AccountingStoreFlags"), R("AcctGatherEnergyType"),
	R("AcctGatherFilesystemType"), R("AcctGatherInterconnectType"), R("AcctGatherNodeFreq"),
	R("AcctGatherProfileType"), R("AllowSpecResourcesUsage"),
	R("BackupAddr"), R("BackupController"),
	R("BcastExclude"), R("BcastParameters"), R("BurstBufferType"), R("CliFilterPlugins"),
	R("CommunicationParameters"), R("CompleteWait"), R("CoreSpecPlugin"), R("CpuFreqDef"),
	R("CpuFreqGovernors"), R("CredType"), R("DebugFlags"), R("DependencyParameters"), R("DisableRootJobs"), R("EioTimeout"),
	R("EpilogMsgTime"),
	R("ExtSensorsFreq"), R("ExtSensorsType"), R("FairShareDampeningFactor"),
	R("FederationParameters"), R("GetEnvTimeout"), R("GpuFreqDef"),
	R("GroupUpdateForce"), R("GroupUpdateTime"), R("HashPlugin"), R("InactiveLimit"),
	R("InteractiveStepOptions"), R("JobAcctGatherFrequency"), R("JobAcctGatherParams"),
	R("JobAcctGatherType"), R("JobCompHost"), R("JobCompLoc"), R("JobCompParams"),
	R("JobCompPass"), R("JobCompPort"), R("JobCompType"), R("JobCompUser"),
	R("JobFileAppend"),
	R("KillOnBadExit"), R("LaunchParameters"), R("LogTimeFormat"),
	R("MailDomain"), R("MaxDBDMsgs"), R("MaxMemPerCPU"), R("MaxMemPerNode"),
	R("MaxNodeCount"), R("MaxStepCount"), R("MaxTasksPerNode"), R("MCSParameters"),
	R("MCSPlugin"), R("MpiDefault"), R("MpiParams"), R("NodeFeaturesPlugins"),
	R("OverTimeLimit"), R("PluginDir"), R("PlugStackConfig"), R("PowerParameters"),
	R("PowerPlugin"), R("PreemptExemptTime"), R("PreemptParameters"),
	R("PrEpParameters"), R("PrEpPlugins"), 
	R("PriorityParameters"), R("PrioritySiteFactorParameters"), R("PrioritySiteFactorPlugin"),
	R("PropagatePrioProcess"), R("ReconfigFlags"),
	R("RequeueExit"), R("RequeueExitHold"), R("ResumeFailProgram"), R("ResumeProgram"),
	R("ResumeRate"), R("ResvEpilog"), R("ResvOverRun"), R("ResvProlog"),
	R("RoutePlugin"), R("SchedulerTimeSlice"),
	R("ScronParameters"), R("SlurmctldAddr"), R("SlurmctldParameters"),
	R("SlurmctldPlugstack"), R("SlurmctldPrimaryOffProg"), R("SlurmctldPrimaryOnProg"),
	R("SlurmctldSyslogDebug"), R("SlurmdSyslogDebug"), R("SlurmSchedLogFile"),
	R("SlurmSchedLogLevel"), R("SrunPortRange"),
	R("SuspendExcNodes"), R("SuspendExcParts"), R("SuspendProgram"), R("SuspendRate"),
	R("SuspendTime"), R("SuspendTimeout"), R("SwitchParameters"), R("SwitchType"),
	R("TaskPluginParam"),
	R("TCPTimeout"), R("TmpFS"), R("TopologyParam"), R("TopologyPlugin"), R("TrackWCKey"),
	R("TreeWidth"), R("UnkillableStepProgram"), R("UsePAM"),
	R("VSizeFactor"), R("WaitTime"), R("X11Parameters"),
	/* older or obsolete names Slurm 22.05 still tolerates in old files */
	R("AccountingStoreJobComment"), R("CacheGroups"), R("CheckpointType"), R("CryptoType"),
	R("FastSchedule"), R("JobCheckpointDir"), R("JobCredentialPrivateKey"),
	R("JobCredentialPublicCertificate"), R("KeepAliveTime"), R("LaunchType"),
	R("MemLimitEnforce"), R("SallocDefaultCommand"), R("SchedulerPort"),
	R("SchedulerRootFilter"),
};
/* clang-format on */

const size_t conf_keys_count = ARRAY_SIZE(conf_keys);

int conf_keys_defaults(struct sl_conf *c, struct sl_error *err)
{
	static const struct conf_where at = {"<default>", 0};
	int r;

	c->max_message_size = SL_FRAME_MAX_DEFAULT;
	for (size_t i = 0; i < ARRAY_SIZE(conf_keys); i++) {
		if (!conf_keys[i].def)
			continue;
		r = conf_value_set(c, &conf_keys[i], conf_keys[i].def, &at, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int conf_keys_set(struct sl_conf *c, const struct conf_tok *t, const struct conf_where *at,
		  struct sl_error *err)
{
	const struct conf_key *k = conf_key_find(conf_keys, ARRAY_SIZE(conf_keys), t->key);
	int r;

	if (!k)
		return errprintf(err, -EINVAL, "%s:%u: unknown key '%s'", at->file, at->line,
				 t->key);
	if (k->type == CONF_RAW)
		debug("%s:%u: %s=%s accepted, not acted on", at->file, at->line, k->name, t->val);
	r = conf_value_set(c, k, t->val, at, err);
	if (r < 0)
		return r;
	if (conf_kv_set(c, k->name, t->val) < 0)
		return errprintf(err, -ENOMEM, "%s:%u: out of memory", at->file, at->line);
	return 0;
}
