/* test_scontrol_show.c - scontrol's records for the reference cluster.
 *
 * Node n1/g1 and both partitions are built with the values behind
 * tests/reference/scontrol_show_*.txt (CPULoad=8.14, FreeMem=23188,
 * the same timestamps in UTC) and must print byte for byte the same,
 * trailing spaces and blank lines included. The config test feeds
 * conf_show_pairs() the reference slurm.conf's values and compares the
 * first 80 lines of "scontrol show config".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "render.h"

#include "cli/scontrol_show.h"
#include "cli/scontrol_update.h"
#include "common/conf.h"
#include "common/conf_prio.h"
#include "common/conf_show.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/states.h"

#define OS "Linux 6.18.44-fc-v1045 #1 SMP PREEMPT_DYNAMIC @0"

static const struct scontrol_show_opts multi = {.slurmd_port = 6818};
static const struct scontrol_show_opts oneline = {.one_liner = true, .slurmd_port = 6818};

static struct node_info node(const char *name, bool gpu)
{
	return (struct node_info){
	    .name = (char *)name,
	    .node_addr = "127.0.0.1",
	    .node_hostname = "localhost",
	    .arch = "x86_64",
	    .os = OS,
	    .version = "22.05.8",
	    .gres = gpu ? "gpu:4" : NULL,
	    .gres_used = gpu ? "gpu:4" : NULL,
	    .partitions = gpu ? "gpu-queue" : "cpu-queue",
	    .cfg_tres = gpu ? "cpu=4,mem=4000M,billing=4,gres/gpu=4" : "cpu=4,mem=4000M,billing=4",
	    .state = NODE_STATE_IDLE,
	    .reason_uid = NO_VAL,
	    .port = gpu ? 17005 : 17001,
	    .cpus = 4,
	    .boards = 1,
	    .sockets = 1,
	    .cores = 4,
	    .threads = 1,
	    .real_memory = 4000,
	    .free_mem = 23188,
	    .weight = 1,
	    .cpu_load = 814,
	    .boot_time = utc(2026, 12, 2, 8, 16, 30),
	};
}

static struct part_info part(bool gpu)
{
	return (struct part_info){
	    .name = gpu ? "gpu-queue" : "cpu-queue",
	    .nodes = gpu ? "g[1-2]" : "n[1-4]",
	    .tres = gpu ? "cpu=8,mem=8000M,node=2,billing=8,gres/gpu=8"
			: "cpu=16,mem=16000M,node=4,billing=16",
	    .flags = gpu ? 0 : PART_FLAG_DEFAULT,
	    .state_up = PART_STATE_UP,
	    .max_time = 1440,
	    .default_time = NO_VAL,
	    .max_nodes = INFINITE,
	    .max_cpus_per_node = INFINITE,
	    .total_cpus = gpu ? 8 : 16,
	    .total_nodes = gpu ? 2 : 4,
	    .priority_job_factor = 1,
	    .priority_tier = 1,
	    .over_time_limit = NO_VAL16,
	};
}


static const char n1_text[] =
    "NodeName=n1 Arch=x86_64 CoresPerSocket=4 \n"
    "   CPUAlloc=3 CPUEfctv=4 CPUTot=4 CPULoad=8.14\n"
    "   AvailableFeatures=(null)\n"
    "   ActiveFeatures=(null)\n"
    "   Gres=(null)\n"
    "   NodeAddr=127.0.0.1 NodeHostName=localhost Port=17001 Version=22.05.8\n"
    "   OS=" OS " \n"
    "   RealMemory=4000 AllocMem=300 FreeMem=23188 Sockets=1 Boards=1\n"
    "   State=MIXED ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n"
    "   Partitions=cpu-queue \n"
    "   BootTime=2026-12-02T08:16:30 SlurmdStartTime=2026-12-02T08:27:21\n"
    "   LastBusyTime=2026-12-02T08:51:37\n"
    "   CfgTRES=cpu=4,mem=4000M,billing=4\n"
    "   AllocTRES=cpu=3,mem=300M\n"
    "   CapWatts=n/a\n"
    "   CurrentWatts=0 AveWatts=0\n"
    "   ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n"
    "\n";

static struct node_info node_n1(void)
{
	struct node_info n = node("n1", false);

	n.state = NODE_STATE_MIXED;
	n.alloc_cpus = 3;
	n.alloc_mem = 300;
	n.alloc_tres = "cpu=3,mem=300M";
	n.slurmd_start_time = utc(2026, 12, 2, 8, 27, 21);
	n.last_busy = utc(2026, 12, 2, 8, 51, 37);
	return n;
}

static void test_node_n1(void **state)
{
	struct node_info n = node_n1();

	(void)state;
	check_render(RENDER(scontrol_show_node(out, &n, &multi)), n1_text);
}

static void test_node_g1(void **state)
{
	struct node_info n = node("g1", true);

	(void)state;
	n.state = NODE_STATE_ALLOCATED;
	n.alloc_cpus = 4;
	n.alloc_mem = 400;
	n.alloc_tres = "cpu=4,mem=400M,gres/gpu=4";
	n.slurmd_start_time = utc(2026, 12, 2, 8, 27, 44);
	n.last_busy = utc(2026, 12, 2, 8, 29, 24);
	check_render(RENDER(scontrol_show_node(out, &n, &multi)),
	      "NodeName=g1 Arch=x86_64 CoresPerSocket=4 \n"
	      "   CPUAlloc=4 CPUEfctv=4 CPUTot=4 CPULoad=8.14\n"
	      "   AvailableFeatures=(null)\n"
	      "   ActiveFeatures=(null)\n"
	      "   Gres=gpu:4\n"
	      "   NodeAddr=127.0.0.1 NodeHostName=localhost Port=17005 Version=22.05.8\n"
	      "   OS=" OS " \n"
	      "   RealMemory=4000 AllocMem=400 FreeMem=23188 Sockets=1 Boards=1\n"
	      "   State=ALLOCATED ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n"
	      "   Partitions=gpu-queue \n"
	      "   BootTime=2026-12-02T08:16:30 SlurmdStartTime=2026-12-02T08:27:44\n"
	      "   LastBusyTime=2026-12-02T08:29:24\n"
	      "   CfgTRES=cpu=4,mem=4000M,billing=4,gres/gpu=4\n"
	      "   AllocTRES=cpu=4,mem=400M,gres/gpu=4\n"
	      "   CapWatts=n/a\n"
	      "   CurrentWatts=0 AveWatts=0\n"
	      "   ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n"
	      "\n");
}

/* -o, a drain reason with user and time, -d's GresUsed, default port. */
static void test_node_oneliner_reason(void **state)
{
	struct node_info n = node("n4", false);
	struct scontrol_show_opts o = {.one_liner = true, .details = true, .slurmd_port = 17001};
	char *got;

	(void)state;
	n.state = NODE_STATE_IDLE | NODE_STATE_DRAIN;
	n.reason = "golden: maintenance";
	n.reason_uid = 0;
	n.reason_time = utc(2026, 12, 2, 8, 52, 3);
	n.gres_used = "gpu:0";
	got = RENDER(scontrol_show_node(out, &n, &o));
	assert_non_null(strstr(got, "NodeName=n4 Arch=x86_64 CoresPerSocket=4  CPUAlloc=0 "));
	assert_non_null(strstr(got, " GresUsed=gpu:0 NodeAddr=127.0.0.1 NodeHostName=localhost "
				    "Version=22.05.8 OS="));
	assert_non_null(strstr(got, " State=IDLE+DRAIN ThreadsPerCore=1 "));
	assert_non_null(strstr(got, " AllocTRES= CapWatts=n/a "));
	assert_non_null(strstr(got, "ExtSensorsTemp=n/s Reason=golden: maintenance "
				    "[root@2026-12-02T08:52:03]\n"));
	assert_ptr_equal(strchr(got, '\n'), got + strlen(got) - 1); /* one line */
	free(got);
}

static const char part_text[] =
    "PartitionName=cpu-queue\n"
    "   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL\n"
    "   AllocNodes=ALL Default=YES QoS=N/A\n"
    "   DefaultTime=NONE DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO\n"
    "   MaxNodes=UNLIMITED MaxTime=1-00:00:00 MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED\n"
    "   Nodes=n[1-4]\n"
    "   PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO\n"
    "   OverTimeLimit=NONE PreemptMode=OFF\n"
    "   State=UP TotalCPUs=16 TotalNodes=4 SelectTypeParameters=NONE\n"
    "   JobDefaults=(null)\n"
    "   DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED\n"
    "   TRES=cpu=16,mem=16000M,node=4,billing=16\n"
    "\n"
    "PartitionName=gpu-queue\n"
    "   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL\n"
    "   AllocNodes=ALL Default=NO QoS=N/A\n"
    "   DefaultTime=NONE DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO\n"
    "   MaxNodes=UNLIMITED MaxTime=1-00:00:00 MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED\n"
    "   Nodes=g[1-2]\n"
    "   PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO\n"
    "   OverTimeLimit=NONE PreemptMode=OFF\n"
    "   State=UP TotalCPUs=8 TotalNodes=2 SelectTypeParameters=NONE\n"
    "   JobDefaults=(null)\n"
    "   DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED\n"
    "   TRES=cpu=8,mem=8000M,node=2,billing=8,gres/gpu=8\n"
    "\n";

static void test_partitions(void **state)
{
	struct part_info cpu = part(false), gpu = part(true);

	(void)state;
	check_render(RENDER(scontrol_show_part(out, &cpu, &multi); scontrol_show_part(out, &gpu, &multi)),
	      part_text);
}

/* -o joins the same fields with single spaces. */
static void test_oneliners(void **state)
{
	struct part_info cpu = part(false);
	struct node_info n = node_n1();
	char *want = strdup(n1_text), *p;

	(void)state;
	want[strlen(want) - 1] = '\0';	    /* one newline at the end, not a blank line */
	while ((p = strstr(want, "\n   "))) /* "\n   " becomes " " */
		memmove(p, p + 3, strlen(p + 3) + 1), *p = ' ';
	check_render(RENDER(scontrol_show_node(out, &n, &oneline)), want);
	free(want);
	check_render(RENDER(scontrol_show_part(out, &cpu, &oneline)),
	      "PartitionName=cpu-queue AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL "
	      "AllocNodes=ALL Default=YES QoS=N/A DefaultTime=NONE DisableRootJobs=NO "
	      "ExclusiveUser=NO GraceTime=0 Hidden=NO MaxNodes=UNLIMITED MaxTime=1-00:00:00 "
	      "MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED Nodes=n[1-4] PriorityJobFactor=1 "
	      "PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO OverTimeLimit=NONE "
	      "PreemptMode=OFF State=UP TotalCPUs=16 TotalNodes=4 SelectTypeParameters=NONE "
	      "JobDefaults=(null) DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED "
	      "TRES=cpu=16,mem=16000M,node=4,billing=16\n");
}

/* The reference head: "scontrol show config | head -80". */
static const char config_head[] =
    "Configuration data as of 2026-12-02T08:52:13\n"
    "AccountingStorageBackupHost = (null)\n"
    "AccountingStorageEnforce = none\n"
    "AccountingStorageHost   = localhost\n"
    "AccountingStorageExternalHost = (null)\n"
    "AccountingStorageParameters = (null)\n"
    "AccountingStoragePort   = 6819\n"
    "AccountingStorageTRES   = cpu,mem,energy,node,billing,fs/disk,vmem,pages,gres/gpu\n"
    "AccountingStorageType   = accounting_storage/slurmdbd\n"
    "AccountingStorageUser   = N/A\n"
    "AccountingStoreFlags    = (null)\n"
    "AcctGatherEnergyType    = acct_gather_energy/none\n"
    "AcctGatherFilesystemType = acct_gather_filesystem/none\n"
    "AcctGatherInterconnectType = acct_gather_interconnect/none\n"
    "AcctGatherNodeFreq      = 0 sec\n"
    "AcctGatherProfileType   = acct_gather_profile/none\n"
    "AllowSpecResourcesUsage = No\n"
    "AuthAltTypes            = (null)\n"
    "AuthAltParameters       = (null)\n"
    "AuthInfo                = (null)\n"
    "AuthType                = auth/munge\n"
    "BatchStartTimeout       = 10 sec\n"
    "BcastExclude            = /lib,/usr/lib,/lib64,/usr/lib64\n"
    "BcastParameters         = (null)\n"
    "BOOT_TIME               = 2026-12-02T08:27:19\n"
    "BurstBufferType         = (null)\n"
    "CliFilterPlugins        = (null)\n"
    "ClusterName             = anchor\n"
    "CommunicationParameters = (null)\n"
    "CompleteWait            = 0 sec\n"
    "CoreSpecPlugin          = core_spec/none\n"
    "CpuFreqDef              = Unknown\n"
    "CpuFreqGovernors        = OnDemand,Performance,UserSpace\n"
    "CredType                = cred/munge\n"
    "DebugFlags              = (null)\n"
    "DefMemPerCPU            = 100\n"
    "DependencyParameters    = (null)\n"
    "DisableRootJobs         = No\n"
    "EioTimeout              = 60\n"
    "EnforcePartLimits       = NO\n"
    "Epilog                  = (null)\n"
    "EpilogMsgTime           = 2000 usec\n"
    "EpilogSlurmctld         = (null)\n"
    "ExtSensorsType          = ext_sensors/none\n"
    "ExtSensorsFreq          = 0 sec\n"
    "FederationParameters    = (null)\n"
    "FirstJobId              = 1\n"
    "GetEnvTimeout           = 2 sec\n"
    "GresTypes               = gpu\n"
    "GpuFreqDef              = high,memory=high\n"
    "GroupUpdateForce        = 1\n"
    "GroupUpdateTime         = 600 sec\n"
    "HASH_VAL                = Match\n"
    "HealthCheckInterval     = 0 sec\n"
    "HealthCheckNodeState    = ANY\n"
    "HealthCheckProgram      = (null)\n"
    "InactiveLimit           = 0 sec\n"
    "InteractiveStepOptions  = --interactive --preserve-env --pty $SHELL\n"
    "JobAcctGatherFrequency  = task=1\n"
    "JobAcctGatherType       = jobacct_gather/linux\n"
    "JobAcctGatherParams     = OverMemoryKill\n"
    "JobCompHost             = localhost\n"
    "JobCompLoc              = /var/lib/slurm/log/jobcomp.txt\n"
    "JobCompPort             = 0\n"
    "JobCompType             = jobcomp/filetxt\n"
    "JobCompUser             = root\n"
    "JobContainerType        = job_container/none\n"
    "JobCredentialPrivateKey = (null)\n"
    "JobCredentialPublicCertificate = (null)\n"
    "JobDefaults             = (null)\n"
    "JobFileAppend           = 0\n"
    "JobRequeue              = 1\n"
    "JobSubmitPlugins        = (null)\n"
    "KillOnBadExit           = 0\n"
    "KillWait                = 2 sec\n"
    "LaunchParameters        = (null)\n"
    "LaunchType              = launch/slurm\n"
    "Licenses                = (null)\n"
    "LogTimeFormat           = iso8601_ms\n"
    "MailDomain              = (null)\n";

static void test_config_head(void **state)
{
	struct conf_kv kv[] = {
	    {"AccountingStorageHost", "localhost"},
	    {"AccountingStoragePort", "6819"},
	    {"AccountingStorageTRES", "gres/gpu"},
	    {"AccountingStorageType", "accounting_storage/slurmdbd"},
	    {"CredType", "cred/munge"},
	    {"InactiveLimit", "0"},
	    {"JobAcctGatherFrequency", "task=1"},
	    {"JobAcctGatherParams", "OverMemoryKill"},
	    {"JobAcctGatherType", "jobacct_gather/linux"},
	    {"JobCompLoc", "/var/lib/slurm/log/jobcomp.txt"},
	    {"JobCompType", "jobcomp/filetxt"},
	    {"KillWait", "2"},
	    {"WaitTime", "0"},
	};
	struct sl_conf c = {
	    .path = "/etc/slurm/slurm.conf",
	    .cluster_name = "anchor",
	    .control_machine = "ctl",
	    .control_addr = "127.0.0.1",
	    .slurmctld_port = 6817,
	    .slurmd_port = 6818,
	    .slurm_user = "root",
	    .auth_type = "auth/munge",
	    .slurmd_timeout = 60,
	    .slurmctld_timeout = 30,
	    .message_timeout = 10,
	    .batch_start_timeout = 10,
	    .job_requeue = 1,
	    .unkillable_step_timeout = 60,
	    .return_to_service = 2,
	    .max_job_count = 60000,
	    .max_array_size = 10001,
	    .first_job_id = 1,
	    .max_job_id = 67043328,
	    .min_job_age = 300,
	    .kill_wait = 2,
	    .max_script_size = 4u << 20,
	    .def_mem_per_cpu = 100,
	    .gres_types = "gpu",
	    .select_type = "select/cons_tres",
	    .select_type_params = "CR_Core_Memory",
	    .scheduler_type = "sched/backfill",
	    .priority_type = "priority/basic",
	    .slurmctld_debug = 3,
	    .slurmd_debug = 3,
	    .node_count = 6,
	    .kv = kv,
	    .kv_count = ARRAY_SIZE(kv),
	};
	struct build_info_msg b = {.last_update = utc(2026, 12, 2, 8, 52, 13)};
	char *got, *cut;
	int lines = 0;

	(void)state;
	assert_int_equal(conf_show_pairs(&c, utc(2026, 12, 2, 8, 27, 19), &b.pairs, &b.count), 0);
	assert_int_equal(conf_show_set(b.pairs, b.count, "NEXT_JOB_ID", "11229"), 0);
	assert_int_equal(conf_show_set(b.pairs, b.count, "NO_SUCH_KEY", "x"), -2);
	got = RENDER(scontrol_show_config(out, &b));
	assert_non_null(strstr(got, "\nNEXT_JOB_ID             = 11229\n"));
	assert_non_null(strstr(got, "\nSelectTypeParameters    = CR_CORE_MEMORY\n"));
	assert_non_null(strstr(got, "\nSlurmctldHost[0]        = ctl(127.0.0.1)\n"));
	assert_non_null(strstr(got, "\nSlurmctldDebug          = info\n"));
	assert_non_null(strstr(got, "\nPriorityType            = priority/basic\n"));
	assert_null(strstr(got, "PriorityWeightAge"));
	assert_non_null(strstr(got, "\nMaxDBDMsgs              = 120024\n"));
	assert_non_null(strstr(got, "\nX11Parameters           = (null)\n"));
	for (cut = got; *cut && lines < 80; cut++)
		lines += *cut == '\n';
	*cut = '\0';
	check_render(got, config_head);
	conf_show_pairs_free(b.pairs, b.count);
}

static const char *pair(const struct key_pair *p, uint32_t n, const char *key)
{
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(p[i].key, key))
			return p[i].value ? p[i].value : "(null)";
	return NULL;
}

/* The multifactor block from the parsed Priority* keys, in Slurm's form. */
static void test_show_config_multifactor_block(void **state)
{
	struct sl_conf c = {
	    .priority_type = "priority/multifactor",
	    .prio_weight_age = 1000,
	    .prio_weight_fairshare = 2000,
	    .prio_weight_tres = "cpu=100,gres/gpu=2000",
	    .prio_max_age = 7 * 1440,
	    .prio_decay_half_life = 0,
	    .prio_calc_period = 5,
	    .prio_reset_period = PRIO_RESET_WEEKLY,
	    .prio_favor_small = true,
	    .prio_flags = PRIO_FLAG_ACCRUE_ALWAYS | PRIO_FLAG_CALCULATE_RUNNING,
	};
	struct key_pair *p = NULL;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(conf_show_pairs(&c, 0, &p, &n), 0);
	assert_string_equal(pair(p, n, "PriorityType"), "priority/multifactor");
	assert_string_equal(pair(p, n, "PriorityDecayHalfLife"), "00:00:00");
	assert_string_equal(pair(p, n, "PriorityCalcPeriod"), "00:05:00");
	assert_string_equal(pair(p, n, "PriorityMaxAge"), "7-00:00:00");
	assert_string_equal(pair(p, n, "PriorityFavorSmall"), "Yes");
	assert_string_equal(pair(p, n, "PriorityFlags"), "ACCRUE_ALWAYS,CALCULATE_RUNNING");
	assert_string_equal(pair(p, n, "PriorityUsageResetPeriod"), "WEEKLY");
	assert_string_equal(pair(p, n, "PriorityWeightAge"), "1000");
	assert_string_equal(pair(p, n, "PriorityWeightAssoc"), "0");
	assert_string_equal(pair(p, n, "PriorityWeightFairShare"), "2000");
	assert_string_equal(pair(p, n, "PriorityWeightJobSize"), "0");
	assert_string_equal(pair(p, n, "PriorityWeightPartition"), "0");
	assert_string_equal(pair(p, n, "PriorityWeightQOS"), "0");
	assert_string_equal(pair(p, n, "PriorityWeightTRES"), "cpu=100,gres/gpu=2000");
	conf_show_pairs_free(p, n);
	c.prio_weight_tres = NULL;
	c.prio_flags = 0;
	assert_int_equal(conf_show_pairs(&c, 0, &p, &n), 0);
	assert_string_equal(pair(p, n, "PriorityWeightTRES"), "(null)");
	assert_string_equal(pair(p, n, "PriorityFlags"), "");
	conf_show_pairs_free(p, n);
}

/* show hostnames / hostlist / hostlistsorted. */
static void test_hostlists(void **state)
{
	(void)state;
	check_render(RENDER(assert_int_equal(scontrol_show_hostnames(out, "n[1-3],g1"), 0)),
	      "n1\nn2\nn3\ng1\n");
	check_render(RENDER(assert_int_equal(scontrol_show_hostlist(out, "n1,n2,n3", false), 0)),
	      "n[1-3]\n");
	check_render(RENDER(assert_int_equal(scontrol_show_hostlist(out, "n3,n1,n2,g2,g1", true), 0)),
	      "g[1-2],n[1-3]\n");
	check_render(RENDER(assert_int_equal(scontrol_show_hostnames(out, "n[1-"), -22)), "");
}

/* update NodeName=... words: abbreviations, quotes, the Reason rule. */
static void test_update_parse(void **state)
{
	char w1[] = "NodeName=n4", w2[] = "sta=drain", w3[] = "Reason=\"golden: maintenance\"";
	char w4[] = "Weight=5", w5[] = "State=DOWN", w6[] = "Gres=gpu:2", w7[] = "Weight=x";
	char *ok[] = {w1, w2, w3, w4}, *noreason[] = {w1, w5}, *unsupported[] = {w1, w6};
	char *badweight[] = {w1, w7}, *nothing[] = {w1};
	struct update_node_msg m;

	(void)state;
	assert_int_equal(scontrol_update_node_parse(4, ok, &m), 0);
	assert_string_equal(m.node_names, "n4");
	assert_int_equal(m.state, NODE_UPDATE_DRAIN);
	assert_string_equal(m.reason, "golden: maintenance");
	assert_int_equal(m.weight, 5);
	assert_null(m.features);
	assert_int_equal(scontrol_update_node_parse(2, noreason, &m), -22);
	assert_int_equal(scontrol_update_node_parse(2, unsupported, &m), -22);
	assert_int_equal(scontrol_update_node_parse(2, badweight, &m), -22);
	assert_int_equal(scontrol_update_node_parse(1, nothing, &m), -22);
}

static void test_reboot_parse(void **state)
{
	char reason[] = "reason=\"new kernel\""; /* its quotes go in place */
	char *all[] = {"ASAP", "nextstate=resume", reason, "ALL"};
	char *plain[] = {"n[1-2]"};
	char *badstate[] = {"nextstate=UP", "n1"};
	char *noreason[] = {"reason=", "n1"};
	char *nolist[] = {"ASAP"};
	char *extra[] = {"n1", "n2"};
	struct reboot_msg m;

	(void)state;
	assert_int_equal(scontrol_reboot_parse(4, all, &m), 0);
	assert_int_equal(m.flags, REBOOT_FLAGS_ASAP);
	assert_int_equal(m.next_state, NODE_UPDATE_RESUME);
	assert_string_equal(m.reason, "new kernel");
	assert_string_equal(m.node_list, "ALL");
	assert_int_equal(scontrol_reboot_parse(1, plain, &m), 0);
	assert_int_equal(m.next_state, NO_VAL);
	assert_int_equal(m.flags, 0);
	assert_null(m.reason);
	assert_int_equal(scontrol_reboot_parse(2, badstate, &m), -22);
	assert_int_equal(scontrol_reboot_parse(2, noreason, &m), -22);
	assert_int_equal(scontrol_reboot_parse(1, nolist, &m), -22);
	assert_int_equal(scontrol_reboot_parse(2, extra, &m), -22);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_node_n1),
	    cmocka_unit_test(test_node_g1),
	    cmocka_unit_test(test_node_oneliner_reason),
	    cmocka_unit_test(test_partitions),
	    cmocka_unit_test(test_oneliners),
	    cmocka_unit_test(test_config_head),
	    cmocka_unit_test(test_hostlists),
	    cmocka_unit_test(test_show_config_multifactor_block),
	    cmocka_unit_test(test_update_parse),
	    cmocka_unit_test(test_reboot_parse),
	};

	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
