/* conf_show.c - the key/value list "scontrol show config" prints.
 *
 * Purpose: one table row per line of Slurm 22.05's output, in its order.
 * A row copies the slurm.conf value as written (conf_get_raw) or its
 * default, with a unit appended ("2 sec"); or reads a field of the parsed
 * struct sl_conf; or calls a function for what Slurm derives (BOOT_TIME,
 * which of DefMemPerCPU/DefMemPerNode prints, MaxDBDMsgs ...). Rows Slurm
 * prints only in some configurations (the multifactor priority block,
 * FairShareDampeningFactor, SelectTypeParameters) return SKIP otherwise.
 * Caveats: defaults are those of Slurm 22.05 built with default paths;
 * keys whose value we cannot know (PluginDir) print the upstream default.
 * Raw values print as written, not normalized the way slurmctld would
 * (e.g. AccountingStorageEnforce=limits stays "limits").
 */
#include "conf_show.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "conf.h"
#include "conf_prio.h"
#include "macros.h"
#include "msg.h"
#include "parse_time.h"

#ifndef SL_VERSION
#define SL_VERSION "22.05.8"
#endif

struct show_ctx {
	const struct sl_conf *c;
	time_t boot;
};

/* Value text for a row: a constant, buf, NULL for "(null)", or SKIP. */
typedef const char *show_fn(const struct show_ctx *x, char *buf, size_t n);

enum show_kind {
	K_RAW,	 /* slurm.conf value as written, else dflt; then unit */
	K_MF,	 /* K_RAW, printed only with a priority type other than basic */
	K_STR,	 /* char * field of struct sl_conf, else dflt */
	K_U16,	 /* uint16_t field, then unit */
	K_U32,	 /* uint32_t field, then unit */
	K_LEVEL, /* int log level field, by name */
	K_FN,	 /* fn computes it */
};

struct show_key {
	const char *name;
	enum show_kind kind;
	const char *dflt; /* K_RAW, K_MF, K_STR: when unset; NULL prints "(null)" */
	const char *unit; /* appended to numbers and K_RAW values ("2 sec") */
	size_t off;	  /* field offset in struct sl_conf */
	show_fn *fn;
};

static const char skip_row[] = "";
#define SKIP skip_row

static const char *raw(const struct show_ctx *x, const char *key)
{
	return conf_get_raw(x->c, key);
}

static bool is_basic_priority(const struct show_ctx *x)
{
	return !x->c->priority_type || !strcmp(x->c->priority_type, "priority/basic");
}

/* ---- rows Slurm derives ---- */

#define FN(name)                                                                                   \
	static const char *name(const struct show_ctx *x _unused_, char *buf _unused_,             \
				size_t n _unused_)

FN(f_enforce)
{
	const char *v = raw(x, "AccountingStorageEnforce");

	if (!v)
		return "none";
	snprintf(buf, n, "%s", v);
	for (char *p = buf; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return buf;
}

FN(f_acct_port)
{
	const char *t = raw(x, "AccountingStorageType"), *v = raw(x, "AccountingStoragePort");

	if (v)
		return v;
	if (t && strstr(t, "slurmdbd"))
		return "6819";
	return t && strstr(t, "mysql") ? "3306" : "0";
}

/* Our default is the embedded store (Slurm's is none). */
FN(f_acct_type)
{
	if (x->c->acct_storage_type)
		return x->c->acct_storage_type;
	return raw(x, "AccountingStorageType") ? raw(x, "AccountingStorageType")
					       : "accounting_storage/sqlite";
}

/* Slurm 22.05 no longer prints AccountingStorageLoc (its filetxt plugin is
 * gone); we print it, in Slurm's old place, only when slurm.conf sets it,
 * so a default configuration shows what Slurm shows. */
FN(f_acct_loc)
{
	return x->c->acct_storage_loc ? x->c->acct_storage_loc : SKIP;
}

/* The TRES Slurm always tracks, then the configured extra ones. */
FN(f_acct_tres)
{
	const char *extra = raw(x, "AccountingStorageTRES");

	snprintf(buf, n, "cpu,mem,energy,node,billing,fs/disk,vmem,pages%s%s", extra ? "," : "",
		 extra ? extra : "");
	return buf;
}

FN(f_boot)
{
	return time_to_iso(x->boot, buf, n);
}

/* DefMemPerCPU= or DefMemPerNode=: one of the two rows prints. */
FN(f_defmem_cpu)
{
	if (!x->c->def_mem_per_cpu)
		return SKIP;
	snprintf(buf, n, "%" PRIu64, x->c->def_mem_per_cpu);
	return buf;
}

FN(f_defmem_node)
{
	if (x->c->def_mem_per_cpu)
		return SKIP;
	if (!x->c->def_mem_per_node || x->c->def_mem_per_node == INFINITE64)
		return "UNLIMITED";
	snprintf(buf, n, "%" PRIu64, x->c->def_mem_per_node);
	return buf;
}

FN(f_maxmem_cpu)
{
	return raw(x, "MaxMemPerCPU") ? raw(x, "MaxMemPerCPU") : SKIP;
}

FN(f_maxmem_node)
{
	if (raw(x, "MaxMemPerCPU"))
		return SKIP;
	return raw(x, "MaxMemPerNode") ? raw(x, "MaxMemPerNode") : "UNLIMITED";
}

/* Slurm sizes the DBD message queue from the job and node counts. */
FN(f_max_dbd)
{
	uint64_t v = 2ull * x->c->max_job_count + 4ull * x->c->node_count;

	if (raw(x, "MaxDBDMsgs"))
		return raw(x, "MaxDBDMsgs");
	snprintf(buf, n, "%" PRIu64, v > 10000 ? v : 10000);
	return buf;
}

FN(f_max_nodes)
{
	if (raw(x, "MaxNodeCount"))
		return raw(x, "MaxNodeCount");
	snprintf(buf, n, "%u", x->c->node_count);
	return buf;
}

/* Default: plugstack.conf beside slurm.conf. */
FN(f_plugstack)
{
	const char *v = raw(x, "PlugStackConfig"), *path = x->c->path, *slash;

	if (v || !path || !(slash = strrchr(path, '/')))
		return v;
	snprintf(buf, n, "%.*s/plugstack.conf", (int)(slash - path), path);
	return buf;
}

/* PriorityType prints before the multifactor block with priority/basic,
 * after it otherwise. */
FN(f_prio_basic)
{
	return is_basic_priority(x) ? "priority/basic" : SKIP;
}

FN(f_prio_mf)
{
	return is_basic_priority(x) ? SKIP : x->c->priority_type;
}

/* The multifactor block, from the parsed values (absent with
 * priority/basic). */
#define MF_U32(fname, field)                                                                       \
	FN(fname)                                                                                  \
	{                                                                                          \
		if (is_basic_priority(x))                                                          \
			return SKIP;                                                               \
		snprintf(buf, n, "%u", (unsigned)x->c->field);                                     \
		return buf;                                                                        \
	}
#define MF_MINS(fname, field)                                                                      \
	FN(fname)                                                                                  \
	{                                                                                          \
		return is_basic_priority(x) ? SKIP : mins2time_str(x->c->field, buf, n);           \
	}
MF_U32(f_pw_age, prio_weight_age)
MF_U32(f_pw_assoc, prio_weight_assoc)
MF_U32(f_pw_fs, prio_weight_fairshare)
MF_U32(f_pw_js, prio_weight_job_size)
MF_U32(f_pw_part, prio_weight_partition)
MF_U32(f_pw_qos, prio_weight_qos)
MF_MINS(f_prio_decay, prio_decay_half_life)
MF_MINS(f_prio_calc, prio_calc_period)
MF_MINS(f_prio_max_age, prio_max_age)

FN(f_prio_favor)
{
	return is_basic_priority(x) ? SKIP : x->c->prio_favor_small ? "Yes" : "No";
}

FN(f_prio_flags)
{
	return is_basic_priority(x) ? SKIP : conf_prio_flags_str(x->c->prio_flags, buf, n);
}

FN(f_prio_reset)
{
	return is_basic_priority(x) ? SKIP : conf_prio_reset_name(x->c->prio_reset_period);
}

FN(f_pw_tres)
{
	return is_basic_priority(x) ? SKIP : x->c->prio_weight_tres;
}

/* Printed only when parameters are set, upper-case like Slurm's names. */
FN(f_select_params)
{
	if (!x->c->select_type_params)
		return SKIP;
	snprintf(buf, n, "%s", x->c->select_type_params);
	for (char *p = buf; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return buf;
}

FN(f_slurm_user)
{
	snprintf(buf, n, "%s(%u)", x->c->slurm_user ? x->c->slurm_user : "root",
		 x->c->slurm_user_id);
	return buf;
}

/* "name(uid)", the uid looked up here (the struct keeps only the name). */
FN(f_slurmd_user)
{
	const char *name = x->c->slurmd_user ? x->c->slurmd_user : "root";
	struct passwd pw, *res = NULL;
	char tmp[1024];
	unsigned uid = 0;

	if (getpwnam_r(name, &pw, tmp, sizeof(tmp), &res) == 0 && res)
		uid = (unsigned)res->pw_uid;
	snprintf(buf, n, "%s(%u)", name, uid);
	return buf;
}

/* "host(addr)"; like Slurm, "localhost" stands for this host's name. */
FN(f_ctld_host)
{
	const char *m = x->c->control_machine, *a = x->c->control_addr;
	char host[256];

	if (m && !strcasecmp(m, "localhost") && gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		host[strcspn(host, ".")] = '\0';
		m = host;
	}
	if (m && a && strcmp(m, a))
		snprintf(buf, n, "%s(%s)", m, a);
	else
		snprintf(buf, n, "%s", m ? m : "(null)");
	return buf;
}

#define OFF(f) offsetof(struct sl_conf, f)
#define RAW(name, dflt, unit)                                                                      \
	{                                                                                          \
		name, K_RAW, dflt, unit, 0, NULL                                                   \
	}
#define MF(name, dflt)                                                                             \
	{                                                                                          \
		name, K_MF, dflt, NULL, 0, NULL                                                    \
	}
#define STR(name, f, dflt)                                                                         \
	{                                                                                          \
		name, K_STR, dflt, NULL, OFF(f), NULL                                              \
	}
#define U16(name, f, unit)                                                                         \
	{                                                                                          \
		name, K_U16, NULL, unit, OFF(f), NULL                                              \
	}
#define U32(name, f, unit)                                                                         \
	{                                                                                          \
		name, K_U32, NULL, unit, OFF(f), NULL                                              \
	}
#define LEVEL(name, f)                                                                             \
	{                                                                                          \
		name, K_LEVEL, NULL, NULL, OFF(f), NULL                                            \
	}
#define CALC(name, fn)                                                                             \
	{                                                                                          \
		name, K_FN, NULL, NULL, 0, fn                                                      \
	}

/* clang-format off */
static const struct show_key keys[] = {
	RAW("AccountingStorageBackupHost", NULL, NULL),
	CALC("AccountingStorageEnforce", f_enforce),
	RAW("AccountingStorageHost", NULL, NULL),
	RAW("AccountingStorageExternalHost", NULL, NULL),
	CALC("AccountingStorageLoc", f_acct_loc),
	RAW("AccountingStorageParameters", NULL, NULL),
	CALC("AccountingStoragePort", f_acct_port),
	CALC("AccountingStorageTRES", f_acct_tres),
	CALC("AccountingStorageType", f_acct_type),
	RAW("AccountingStorageUser", "N/A", NULL),
	RAW("AccountingStoreFlags", NULL, NULL),
	RAW("AcctGatherEnergyType", "acct_gather_energy/none", NULL),
	RAW("AcctGatherFilesystemType", "acct_gather_filesystem/none", NULL),
	RAW("AcctGatherInterconnectType", "acct_gather_interconnect/none", NULL),
	RAW("AcctGatherNodeFreq", "0", " sec"),
	RAW("AcctGatherProfileType", "acct_gather_profile/none", NULL),
	RAW("AllowSpecResourcesUsage", "No", NULL),
	STR("AuthAltTypes", auth_alt_types, NULL),
	STR("AuthAltParameters", auth_alt_params, NULL),
	STR("AuthInfo", auth_info, NULL),
	STR("AuthType", auth_type, "auth/munge"),
	U32("BatchStartTimeout", batch_start_timeout, " sec"),
	RAW("BcastExclude", "/lib,/usr/lib,/lib64,/usr/lib64", NULL),
	RAW("BcastParameters", NULL, NULL),
	CALC("BOOT_TIME", f_boot),
	RAW("BurstBufferType", NULL, NULL),
	RAW("CliFilterPlugins", NULL, NULL),
	STR("ClusterName", cluster_name, NULL),
	RAW("CommunicationParameters", NULL, NULL),
	RAW("CompleteWait", "0", " sec"),
	RAW("CoreSpecPlugin", "core_spec/none", NULL),
	RAW("CpuFreqDef", "Unknown", NULL),
	RAW("CpuFreqGovernors", "OnDemand,Performance,UserSpace", NULL),
	RAW("CredType", "cred/munge", NULL),
	RAW("DebugFlags", NULL, NULL),
	CALC("DefMemPerCPU", f_defmem_cpu),
	CALC("DefMemPerNode", f_defmem_node),
	RAW("DependencyParameters", NULL, NULL),
	RAW("DisableRootJobs", "No", NULL),
	RAW("EioTimeout", "60", NULL),
	RAW("EnforcePartLimits", "NO", NULL),
	STR("Epilog", epilog, NULL),
	RAW("EpilogMsgTime", "2000", " usec"),
	STR("EpilogSlurmctld", epilog_slurmctld, NULL),
	RAW("ExtSensorsType", "ext_sensors/none", NULL),
	RAW("ExtSensorsFreq", "0", " sec"),
	MF("FairShareDampeningFactor", "1"),
	RAW("FederationParameters", NULL, NULL),
	U32("FirstJobId", first_job_id, NULL),
	RAW("GetEnvTimeout", "2", " sec"),
	STR("GresTypes", gres_types, NULL),
	RAW("GpuFreqDef", "high,memory=high", NULL),
	RAW("GroupUpdateForce", "1", NULL),
	RAW("GroupUpdateTime", "600", " sec"),
	RAW("HASH_VAL", "Match", NULL),
	RAW("HealthCheckInterval", "0", " sec"),
	RAW("HealthCheckNodeState", "ANY", NULL),
	RAW("HealthCheckProgram", NULL, NULL),
	RAW("InactiveLimit", "0", " sec"),
	RAW("InteractiveStepOptions", "--interactive --preserve-env --pty $SHELL", NULL),
	RAW("JobAcctGatherFrequency", "30", NULL),
	RAW("JobAcctGatherType", "jobacct_gather/none", NULL),
	RAW("JobAcctGatherParams", NULL, NULL),
	RAW("JobCompHost", "localhost", NULL),
	RAW("JobCompLoc", "/var/log/slurm_jobcomp.log", NULL),
	RAW("JobCompPort", "0", NULL),
	RAW("JobCompType", "jobcomp/none", NULL),
	RAW("JobCompUser", "root", NULL),
	RAW("JobContainerType", "job_container/none", NULL),
	RAW("JobCredentialPrivateKey", NULL, NULL),
	RAW("JobCredentialPublicCertificate", NULL, NULL),
	RAW("JobDefaults", NULL, NULL),
	RAW("JobFileAppend", "0", NULL),
	U16("JobRequeue", job_requeue, NULL),
	RAW("JobSubmitPlugins", NULL, NULL),
	RAW("KillOnBadExit", "0", NULL),
	U32("KillWait", kill_wait, " sec"),
	RAW("LaunchParameters", NULL, NULL),
	RAW("LaunchType", "launch/slurm", NULL),
	RAW("Licenses", NULL, NULL),
	RAW("LogTimeFormat", "iso8601_ms", NULL),
	RAW("MailDomain", NULL, NULL),
	STR("MailProg", mail_prog, "/bin/mail"),
	U32("MaxArraySize", max_array_size, NULL),
	CALC("MaxDBDMsgs", f_max_dbd),
	U32("MaxJobCount", max_job_count, NULL),
	U32("MaxJobId", max_job_id, NULL),
	CALC("MaxMemPerCPU", f_maxmem_cpu),
	CALC("MaxMemPerNode", f_maxmem_node),
	CALC("MaxNodeCount", f_max_nodes),
	RAW("MaxStepCount", "40000", NULL),
	RAW("MaxTasksPerNode", "512", NULL),
	RAW("MCSPlugin", "mcs/none", NULL),
	RAW("MCSParameters", NULL, NULL),
	U32("MessageTimeout", message_timeout, " sec"),
	U32("MinJobAge", min_job_age, " sec"),
	RAW("MpiDefault", "none", NULL),
	RAW("MpiParams", NULL, NULL),
	U32("NEXT_JOB_ID", first_job_id, NULL), /* the controller sets the real one */
	RAW("NodeFeaturesPlugins", NULL, NULL),
	RAW("OverTimeLimit", "0", " min"),
	RAW("PluginDir", "/usr/local/lib/slurm", NULL),
	CALC("PlugStackConfig", f_plugstack),
	RAW("PowerParameters", NULL, NULL),
	RAW("PowerPlugin", NULL, NULL),
	RAW("PreemptMode", "OFF", NULL),
	RAW("PreemptType", "preempt/none", NULL),
	RAW("PreemptExemptTime", "00:00:00", NULL),
	RAW("PrEpParameters", NULL, NULL),
	RAW("PrEpPlugins", "prep/script", NULL),
	RAW("PriorityParameters", NULL, NULL),
	RAW("PrioritySiteFactorParameters", NULL, NULL),
	RAW("PrioritySiteFactorPlugin", NULL, NULL),
	CALC("PriorityType", f_prio_basic),
	CALC("PriorityDecayHalfLife", f_prio_decay),
	CALC("PriorityCalcPeriod", f_prio_calc),
	CALC("PriorityFavorSmall", f_prio_favor),
	CALC("PriorityFlags", f_prio_flags),
	CALC("PriorityMaxAge", f_prio_max_age),
	CALC("PriorityUsageResetPeriod", f_prio_reset),
	CALC("PriorityType", f_prio_mf),
	CALC("PriorityWeightAge", f_pw_age),
	CALC("PriorityWeightAssoc", f_pw_assoc),
	CALC("PriorityWeightFairShare", f_pw_fs),
	CALC("PriorityWeightJobSize", f_pw_js),
	CALC("PriorityWeightPartition", f_pw_part),
	CALC("PriorityWeightQOS", f_pw_qos),
	CALC("PriorityWeightTRES", f_pw_tres),
	STR("PrivateData", private_data, "none"),
	RAW("ProctrackType", "proctrack/cgroup", NULL),
	STR("Prolog", prolog, NULL),
	U16("PrologEpilogTimeout", prolog_epilog_timeout, NULL),
	STR("PrologSlurmctld", prolog_slurmctld, NULL),
	RAW("PrologFlags", NULL, NULL),
	RAW("PropagatePrioProcess", "0", NULL),
	RAW("PropagateResourceLimits", "ALL", NULL),
	RAW("PropagateResourceLimitsExcept", NULL, NULL),
	RAW("RebootProgram", NULL, NULL),
	RAW("ReconfigFlags", NULL, NULL),
	RAW("RequeueExit", NULL, NULL),
	RAW("RequeueExitHold", NULL, NULL),
	RAW("ResumeFailProgram", NULL, NULL),
	RAW("ResumeProgram", NULL, NULL),
	RAW("ResumeRate", "300", " nodes/min"),
	RAW("ResumeTimeout", "60", " sec"),
	RAW("ResvEpilog", NULL, NULL),
	RAW("ResvOverRun", "0", " min"),
	RAW("ResvProlog", NULL, NULL),
	U16("ReturnToService", return_to_service, NULL),
	RAW("RoutePlugin", "route/default", NULL),
	RAW("SchedulerParameters", NULL, NULL),
	RAW("SchedulerTimeSlice", "30", " sec"),
	STR("SchedulerType", scheduler_type, "sched/backfill"),
	RAW("ScronParameters", NULL, NULL),
	STR("SelectType", select_type, "select/linear"),
	CALC("SelectTypeParameters", f_select_params),
	CALC("SlurmUser", f_slurm_user),
	RAW("SlurmctldAddr", NULL, NULL),
	LEVEL("SlurmctldDebug", slurmctld_debug),
	CALC("SlurmctldHost[0]", f_ctld_host),
	STR("SlurmctldLogFile", slurmctld_logfile, NULL),
	U16("SlurmctldPort", slurmctld_port, NULL),
	RAW("SlurmctldSyslogDebug", "unknown", NULL),
	RAW("SlurmctldPrimaryOffProg", NULL, NULL),
	RAW("SlurmctldPrimaryOnProg", NULL, NULL),
	U32("SlurmctldTimeout", slurmctld_timeout, " sec"),
	RAW("SlurmctldParameters", NULL, NULL),
	LEVEL("SlurmdDebug", slurmd_debug),
	STR("SlurmdLogFile", slurmd_logfile, NULL),
	RAW("SlurmdParameters", NULL, NULL),
	STR("SlurmdPidFile", slurmd_pidfile, NULL),
	U16("SlurmdPort", slurmd_port, NULL),
	STR("SlurmdSpoolDir", slurmd_spool_dir, NULL),
	RAW("SlurmdSyslogDebug", "unknown", NULL),
	U32("SlurmdTimeout", slurmd_timeout, " sec"),
	CALC("SlurmdUser", f_slurmd_user),
	RAW("SlurmSchedLogFile", NULL, NULL),
	RAW("SlurmSchedLogLevel", "0", NULL),
	STR("SlurmctldPidFile", slurmctld_pidfile, NULL),
	RAW("SlurmctldPlugstack", NULL, NULL),
	STR("SLURM_CONF", path, NULL),
	RAW("SLURM_VERSION", SL_VERSION, NULL),
	STR("SrunEpilog", srun_epilog, NULL),
	RAW("SrunPortRange", "0-0", NULL),
	STR("SrunProlog", srun_prolog, NULL),
	STR("StateSaveLocation", state_save_location, NULL),
	RAW("SuspendExcNodes", NULL, NULL),
	RAW("SuspendExcParts", NULL, NULL),
	RAW("SuspendProgram", NULL, NULL),
	RAW("SuspendRate", "60", " nodes/min"),
	RAW("SuspendTime", "INFINITE", NULL),
	RAW("SuspendTimeout", "30", " sec"),
	RAW("SwitchParameters", NULL, NULL),
	RAW("SwitchType", "switch/none", NULL),
	STR("TaskEpilog", task_epilog, NULL),
	RAW("TaskPlugin", "task/none", NULL),
	RAW("TaskPluginParam", "(null type)", NULL),
	STR("TaskProlog", task_prolog, NULL),
	RAW("TCPTimeout", "2", " sec"),
	RAW("TmpFS", "/tmp", NULL),
	RAW("TopologyParam", NULL, NULL),
	RAW("TopologyPlugin", "topology/none", NULL),
	RAW("TrackWCKey", "No", NULL),
	RAW("TreeWidth", "50", NULL),
	RAW("UsePam", "No", NULL),
	RAW("UnkillableStepProgram", NULL, NULL),
	U32("UnkillableStepTimeout", unkillable_step_timeout, " sec"),
	RAW("VSizeFactor", "0", " percent"),
	RAW("WaitTime", "0", " sec"),
	RAW("X11Parameters", NULL, NULL),
};
/* clang-format on */

static const char *level_name(int level)
{
	static const char *const names[] = {"quiet", "fatal",  "error",	 "info",   "verbose",
					    "debug", "debug2", "debug3", "debug4", "debug5"};

	return level >= 0 && level < (int)ARRAY_SIZE(names) ? names[level] : "unknown";
}

/* The row's text before its unit; NULL for "(null)", SKIP to leave the
 * row out. Numbers are written into buf. */
static const char *row_text(const struct show_ctx *x, const struct show_key *k, char *buf, size_t n)
{
	const char *field = (const char *)x->c + k->off;
	const char *v;

	switch (k->kind) {
	case K_MF:
		if (is_basic_priority(x))
			return SKIP;
		/* fallthrough */
	case K_RAW:
		v = raw(x, k->name);
		return v ? v : k->dflt;
	case K_STR:
		v = *(char *const *)field;
		return v ? v : k->dflt;
	case K_U16:
		snprintf(buf, n, "%u", (unsigned)*(const uint16_t *)field);
		return buf;
	case K_U32:
		snprintf(buf, n, "%u", (unsigned)*(const uint32_t *)field);
		return buf;
	case K_LEVEL:
		return level_name(*(const int *)field);
	case K_FN:
		return k->fn(x, buf, n);
	}
	return NULL;
}

void conf_show_pairs_free(struct key_pair *pairs, uint32_t n)
{
	for (uint32_t i = 0; pairs && i < n; i++) {
		free(pairs[i].key);
		free(pairs[i].value);
	}
	free(pairs);
}

/* The text of one row, malloc'd into *ret (NULL for "(null)"); returns 1
 * for a row to print, 0 for a skipped one, -ENOMEM. */
static int row_value(const struct show_ctx *x, const struct show_key *k, char **ret)
{
	char buf[1024];
	const char *v = row_text(x, k, buf, sizeof(buf));

	if (v == SKIP)
		return 0;
	*ret = NULL;
	if (v && asprintf(ret, "%s%s", v, k->kind != K_FN && k->unit ? k->unit : "") < 0)
		return -ENOMEM;
	return 1;
}

int conf_show_pairs(const struct sl_conf *c, time_t boot_time, struct key_pair **ret,
		    uint32_t *ret_n)
{
	const struct show_ctx x = {.c = c, .boot = boot_time};
	struct key_pair *v = calloc(ARRAY_SIZE(keys), sizeof(*v));
	uint32_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		char *val = NULL;
		int r = row_value(&x, &keys[i], &val);

		if (r == 0)
			continue;
		if (r < 0 || !(v[n].key = strdup(keys[i].name))) {
			free(val);
			conf_show_pairs_free(v, n);
			return -ENOMEM;
		}
		v[n++].value = val;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

int conf_show_set(struct key_pair *pairs, uint32_t n, const char *key, const char *value)
{
	for (uint32_t i = 0; i < n; i++) {
		char *s;

		if (strcmp(pairs[i].key, key))
			continue;
		s = sdup(value);
		if (value && !s)
			return -ENOMEM;
		free(pairs[i].value);
		pairs[i].value = s;
		return 0;
	}
	return -ENOENT;
}
