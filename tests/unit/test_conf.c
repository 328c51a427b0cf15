/* test_conf.c - slurm.conf and gres.conf parsing: the reference cluster's
 * files, defaults, DEFAULT lines, ranges, Include, continuation, comments,
 * case, and every kind of broken line with its exact "file:line:" prefix.
 * Each test writes its files into a fresh mkdtemp directory.
 */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/conf_prio.h"
#include "common/conf_internal.h" /* the key table, for its own tests */
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"

/* ---- fixture: a temporary directory ---- */

static int setup_dir(void **state)
{
	char *dir = strdup("/tmp/test_conf.XXXXXX");

	if (!dir || !mkdtemp(dir))
		return -1;
	*state = dir;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown_dir(void **state)
{
	nftw(*state, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(*state);
	return 0;
}

/* Write dir/name; returns the path (malloc'd). */
static char *write_file(const char *dir, const char *name, const char *text)
{
	char *path = NULL;
	FILE *f;

	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Write dir/slurm.conf and load it; returns conf_load's result. */
static int load_text(const char *dir, const char *text, struct sl_conf **c, struct sl_error *err,
		     char **ret_path)
{
	char *path = write_file(dir, "slurm.conf", text);
	int r = conf_load(path, c, err);

	if (ret_path)
		*ret_path = path;
	else
		free(path);
	return r;
}

/* ---- the reference cluster ---- */

/* tests/reference/slurm.conf, with the Include pointing at a file
 * beside it instead of /etc/slurm/sched.conf. */
/* clang-format off */
static const char reference_conf[] =
	"# Reference Slurm 22.05 (Debian 12 packages) config for side-by-side comparison.\n"
	"ClusterName=anchor\n"
	"SlurmctldHost=localhost(127.0.0.1)\n"
	"SlurmctldPort=6817\n"
	"SlurmdPort=6818\n"
	"SlurmUser=root\n"
	"SlurmdUser=root\n"
	"AuthType=auth/munge\n"
	"CredType=cred/munge\n"
	"StateSaveLocation=/var/lib/slurm/ctld\n"
	"SlurmdSpoolDir=/var/lib/slurm/spool/%n\n"
	"SlurmctldPidFile=/var/lib/slurm/pid/slurmctld.pid\n"
	"SlurmdPidFile=/var/lib/slurm/pid/slurmd-%n.pid\n"
	"SlurmctldLogFile=/var/lib/slurm/log/slurmctld.log\n"
	"SlurmdLogFile=/var/lib/slurm/log/slurmd-%n.log\n"
	"SlurmctldDebug=info\n"
	"SlurmdDebug=info\n"
	"ProctrackType=proctrack/linuxproc\n"
	"TaskPlugin=task/none\n"
	"MpiDefault=none\n"
	"ReturnToService=2\n"
	"SwitchType=switch/none\n"
	"# scheduling\n"
	"SchedulerType=sched/backfill\n"
	"SelectType=select/cons_tres\n"
	"SelectTypeParameters=CR_Core_Memory\n"
	"Include sched.conf\n"
	"PriorityType=priority/basic\n"
	"MaxJobCount=60000\n"
	"MaxArraySize=10001\n"
	"MinJobAge=300\n"
	"DefMemPerCPU=100\n"
	"# timers\n"
	"SlurmctldTimeout=30\n"
	"SlurmdTimeout=60\n"
	"InactiveLimit=0\n"
	"KillWait=2\n"
	"OverTimeLimit=0\n"
	"Waittime=0\n"
	"MessageTimeout=10\n"
	"# accounting\n"
	"JobAcctGatherType=jobacct_gather/linux\n"
	"JobAcctGatherFrequency=task=1\n"
	"JobAcctGatherParams=OverMemoryKill\n"
	"AccountingStorageType=accounting_storage/slurmdbd\n"
	"AccountingStorageHost=localhost\n"
	"AccountingStoragePort=6819\n"
	"AccountingStorageTRES=gres/gpu\n"
	"JobCompType=jobcomp/filetxt\n"
	"JobCompLoc=/var/lib/slurm/log/jobcomp.txt\n"
	"GresTypes=gpu\n"
	"SlurmdParameters=config_overrides\n"
	"NodeName=DEFAULT CPUs=4 Boards=1 SocketsPerBoard=1 CoresPerSocket=4 ThreadsPerCore=1 "
	"RealMemory=4000 State=UNKNOWN\n"
	"NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=17001\n"
	"NodeName=n2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=17002\n"
	"NodeName=n3 NodeHostname=localhost NodeAddr=127.0.0.1 Port=17003\n"
	"NodeName=n4 NodeHostname=localhost NodeAddr=127.0.0.1 Port=17004\n"
	"NodeName=g1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=17005 Gres=gpu:4\n"
	"NodeName=g2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=17006 Gres=gpu:4\n"
	"PartitionName=cpu-queue Nodes=n[1-4] Default=YES MaxTime=1-00:00:00 State=UP\n"
	"PartitionName=gpu-queue Nodes=g[1-2] MaxTime=1-00:00:00 State=UP\n";
/* clang-format on */

/* clang-format off */
static const char reference_gres[] =
	"# Fake GPUs: character devices (mknod ... c 195 N) stand in for /dev/nvidiaN\n"
	"NodeName=g[1-2] Name=gpu File=/var/lib/slurm/dev/nvidia[0-3]\n";
/* clang-format on */

static void test_reference_config_gives_six_nodes_and_two_partitions(void **state)
{
	static const struct {
		const char *name, *gres;
		uint16_t port;
	} nodes[] = {
	    {"n1", NULL, 17001}, {"n2", NULL, 17002},	 {"n3", NULL, 17003},
	    {"n4", NULL, 17004}, {"g1", "gpu:4", 17005}, {"g2", "gpu:4", 17006},
	};
	_cleanup_free_ char *inc = write_file(
	    *state, "sched.conf", "SchedulerParameters=bf_interval=1,sched_interval=1\n");
	_cleanup_free_ char *gres = write_file(*state, "gres.conf", reference_gres);
	struct sl_conf *c = NULL;
	struct sl_error err = {""};

	assert_int_equal(load_text(*state, reference_conf, &c, &err, NULL), 0);
	assert_string_equal(c->cluster_name, "anchor");
	assert_string_equal(c->control_machine, "localhost");
	assert_string_equal(c->control_addr, "127.0.0.1");
	assert_int_equal(c->slurmctld_port, 6817);
	assert_int_equal(c->slurmd_port, 6818);
	assert_string_equal(c->slurm_user, "root");
	assert_int_equal(c->slurm_user_id, 0);
	assert_string_equal(c->state_save_location, "/var/lib/slurm/ctld");
	assert_string_equal(c->slurmd_spool_dir, "/var/lib/slurm/spool/%n");
	assert_string_equal(c->slurmd_pidfile, "/var/lib/slurm/pid/slurmd-%n.pid");
	assert_string_equal(c->slurmctld_logfile, "/var/lib/slurm/log/slurmctld.log");
	assert_int_equal(c->slurmctld_debug, LOG_LEVEL_INFO);
	assert_int_equal(c->return_to_service, 2);
	assert_string_equal(c->select_type, "select/cons_tres");
	assert_string_equal(c->select_type_params, "CR_Core_Memory");
	assert_int_equal(c->max_job_count, 60000);
	assert_int_equal(c->max_array_size, 10001);
	assert_int_equal(c->def_mem_per_cpu, 100);
	assert_int_equal(c->slurmctld_timeout, 30);
	assert_int_equal(c->slurmd_timeout, 60);
	assert_int_equal(c->kill_wait, 2);
	assert_string_equal(c->gres_types, "gpu");
	assert_true(c->config_overrides);
	assert_string_equal(conf_get_raw(c, "schedulerparameters"),
			    "bf_interval=1,sched_interval=1");
	assert_string_equal(conf_get_raw(c, "JobAcctGatherFrequency"), "task=1");
	assert_string_equal(conf_get_raw(c, "WaitTime"), "0");

	assert_int_equal(c->node_count, ARRAY_SIZE(nodes));
	for (size_t i = 0; i < ARRAY_SIZE(nodes); i++) {
		const struct conf_node *n = &c->nodes[i];

		assert_string_equal(n->name, nodes[i].name);
		assert_ptr_equal(conf_node_find(c, nodes[i].name), n);
		assert_string_equal(n->node_addr, "127.0.0.1");
		assert_string_equal(n->node_hostname, "localhost");
		assert_int_equal(n->port, nodes[i].port);
		assert_int_equal(n->cpus, 4);
		assert_int_equal(n->boards, 1);
		assert_int_equal(n->sockets, 1);
		assert_int_equal(n->cores_per_socket, 4);
		assert_int_equal(n->threads_per_core, 1);
		assert_int_equal(n->real_memory, 4000);
		assert_int_equal(n->weight, 1);
		assert_string_equal(n->state, "UNKNOWN");
		if (nodes[i].gres)
			assert_string_equal(n->gres, nodes[i].gres);
		else
			assert_null(n->gres);
	}

	assert_int_equal(c->part_count, 2);
	assert_string_equal(c->parts[0].name, "cpu-queue");
	assert_string_equal(c->parts[0].nodes, "n[1-4]");
	assert_true(c->parts[0].is_default);
	assert_int_equal(c->parts[0].max_time, 1440);
	assert_int_equal(c->parts[0].state_up, PART_STATE_UP);
	assert_string_equal(c->parts[1].name, "gpu-queue");
	assert_false(c->parts[1].is_default);
	assert_ptr_equal(conf_part_find(c, "gpu-queue"), &c->parts[1]);
	assert_null(conf_part_find(c, "nope"));

	assert_int_equal(c->gres_count, 1);
	assert_string_equal(c->gres[0].node_name, "g[1-2]");
	assert_string_equal(c->gres[0].name, "gpu");
	assert_null(c->gres[0].type);
	assert_string_equal(c->gres[0].file, "/var/lib/slurm/dev/nvidia[0-3]");
	assert_int_equal(c->gres[0].count, 4);
	conf_free(c);
}

/* ---- defaults ---- */

enum kind { U16, U32, U64, INT, STR };

/* clang-format off */
#define DEF(f, k, n, s) { #f, offsetof(struct sl_conf, f), k, n, s }

static const struct {
	const char *field;
	size_t off;
	enum kind kind;
	uint64_t num;
	const char *str;
} defaults[] = {
	DEF(slurmctld_port, U16, 6817, NULL),
	DEF(slurmd_port, U16, 6818, NULL),
	DEF(slurmd_timeout, U32, 300, NULL),
	DEF(slurmctld_timeout, U32, 120, NULL),
	DEF(message_timeout, U32, 10, NULL),
	DEF(unkillable_step_timeout, U32, 60, NULL),
	DEF(batch_start_timeout, U32, 10, NULL),
	DEF(job_requeue, U16, 1, NULL),
	DEF(max_message_size, U32, 64u << 20, NULL),
	DEF(return_to_service, U16, 0, NULL),
	DEF(max_job_count, U32, 10000, NULL),
	DEF(max_array_size, U32, 1001, NULL),
	DEF(first_job_id, U32, 1, NULL),
	DEF(max_job_id, U32, 0x03ff0000, NULL),
	DEF(min_job_age, U32, 300, NULL),
	DEF(kill_wait, U32, 30, NULL),
	DEF(def_mem_per_cpu, U64, 0, NULL),
	DEF(slurmctld_debug, INT, LOG_LEVEL_INFO, NULL),
	DEF(slurmd_debug, INT, LOG_LEVEL_INFO, NULL),
	DEF(slurm_user, STR, 0, "root"),
	DEF(slurmd_user, STR, 0, "root"),
	DEF(auth_type, STR, 0, "auth/munge"),
	DEF(state_save_location, STR, 0, "/var/spool"),
	DEF(slurmd_spool_dir, STR, 0, "/var/spool/slurmd"),
	DEF(slurmctld_pidfile, STR, 0, "/var/run/slurmctld.pid"),
	DEF(slurmd_pidfile, STR, 0, "/var/run/slurmd.pid"),
	DEF(control_machine, STR, 0, "ctl"),
	DEF(control_addr, STR, 0, "ctl"),
	DEF(cluster_name, STR, 0, NULL),
	DEF(munge_socket, STR, 0, NULL),
	DEF(slurmctld_logfile, STR, 0, NULL),
	DEF(acct_storage_type, STR, 0, "accounting_storage/sqlite"),
	DEF(acct_storage_loc, STR, 0, NULL),
	DEF(private_data, STR, 0, NULL),
	DEF(private_data_flags, U32, 0, NULL),
	DEF(acct_enforce, U16, 0, NULL),
	DEF(enforce_part_limits, U16, 0, NULL),
	DEF(max_script_size, U32, 4u << 20, NULL),
	DEF(propagate_rlimits, STR, 0, NULL),
	DEF(propagate_rlimits_except, STR, 0, NULL),
	DEF(prio_weight_age, U32, 0, NULL),
	DEF(prio_weight_assoc, U32, 0, NULL),
	DEF(prio_weight_fairshare, U32, 0, NULL),
	DEF(prio_weight_job_size, U32, 0, NULL),
	DEF(prio_weight_partition, U32, 0, NULL),
	DEF(prio_weight_qos, U32, 0, NULL),
	DEF(prio_weight_tres, STR, 0, NULL),
	DEF(prio_max_age, U32, 7 * 1440, NULL),
	DEF(prio_decay_half_life, U32, 7 * 1440, NULL),
	DEF(prio_calc_period, U32, 5, NULL),
	DEF(prio_reset_period, U16, 0, NULL),
	DEF(prio_flags, U32, 0, NULL),
};
/* clang-format on */

static void test_unset_keys_take_slurm_defaults(void **state)
{
	struct sl_conf *c = NULL;
	struct sl_error err = {""};

	/* "Key=" with nothing after it means the default */
	assert_int_equal(load_text(*state,
				   "SlurmctldHost=ctl\nStateSaveLocation=\nSlurmctldLogFile=\n", &c,
				   &err, NULL),
			 0);
	for (size_t i = 0; i < ARRAY_SIZE(defaults); i++) {
		const char *f = (const char *)c + defaults[i].off;
		const char *s = defaults[i].kind == STR ? *(char *const *)f : NULL;
		uint64_t v = 0;

		switch (defaults[i].kind) {
		case U16:
			v = *(const uint16_t *)f;
			break;
		case U32:
			v = *(const uint32_t *)f;
			break;
		case U64:
			v = *(const uint64_t *)f;
			break;
		case INT:
			v = (uint64_t)(int64_t)(*(const int *)f);
			break;
		case STR:
			break;
		}
		if (v != defaults[i].num || (s || defaults[i].str) != (s && defaults[i].str)
		    || (s && !streq(s, defaults[i].str)))
			fail_msg("%s: got %llu '%s'", defaults[i].field, (unsigned long long)v,
				 s ? s : "(null)");
	}
	assert_false(c->config_overrides);
	assert_int_equal(c->node_count, 0);
	assert_int_equal(c->kv_count, 3);
	assert_null(conf_get_raw(c, "SlurmdPort")); /* kv holds only what appeared */
	conf_free(c);
}

static void test_prolog_epilog_and_health_check_keys(void **state)
{
	struct sl_conf *c = NULL;
	struct sl_error err = {""};

	assert_int_equal(load_text(*state, "SlurmctldHost=ctl\n", &c, &err, NULL), 0);
	assert_null(c->prolog);
	assert_null(c->epilog);
	assert_int_equal(c->prolog_epilog_timeout, PE_TIMEOUT_NONE);
	assert_null(c->health_check_program);
	assert_int_equal(c->health_check_interval, 0);
	assert_int_equal(c->health_check_state, HC_STATE_ANY);
	conf_free(c);
	assert_int_equal(load_text(*state,
				   "SlurmctldHost=ctl\nProlog=/etc/slurm/prolog\n"
				   "Epilog=/etc/slurm/epilog.d/*\nPrologEpilogTimeout=30\n"
				   "HealthCheckProgram=/usr/sbin/nhc\nHealthCheckInterval=300\n"
				   "HealthCheckNodeState=cycle,IDLE,Mixed\n",
				   &c, &err, NULL),
			 0);
	assert_string_equal(c->prolog, "/etc/slurm/prolog");
	assert_string_equal(c->epilog, "/etc/slurm/epilog.d/*");
	assert_int_equal(c->prolog_epilog_timeout, 30);
	assert_string_equal(c->health_check_program, "/usr/sbin/nhc");
	assert_int_equal(c->health_check_interval, 300);
	assert_int_equal(c->health_check_state, HC_STATE_CYCLE | HC_STATE_IDLE | HC_STATE_MIXED);
	conf_free(c);
	/* CYCLE alone: every state */
	assert_int_equal(load_text(*state, "SlurmctldHost=ctl\nHealthCheckNodeState=CYCLE\n", &c,
				   &err, NULL),
			 0);
	assert_int_equal(c->health_check_state, HC_STATE_CYCLE | HC_STATE_ANY);
	conf_free(c);
	c = NULL;
	assert_true(load_text(*state, "SlurmctldHost=ctl\nHealthCheckNodeState=SOMETIMES\n", &c,
			      &err, NULL)
		    < 0);
	assert_null(c);
	assert_non_null(strstr(err.text, "HealthCheckNodeState"));
	assert_true(load_text(*state, "SlurmctldHost=ctl\nPrologEpilogTimeout=70000\n", &c, &err,
			      NULL)
		    < 0);
	assert_int_equal(load_text(*state, "SlurmctldHost=ctl\nPrologFlags=contain,Serial\n", &c,
				   &err, NULL),
			 0);
	assert_int_equal(c->prolog_flags,
			 PROLOG_FLAG_CONTAIN | PROLOG_FLAG_ALLOC | PROLOG_FLAG_SERIAL);
	conf_free(c);
	c = NULL;
	assert_true(load_text(*state, "SlurmctldHost=ctl\nPrologFlags=Alloc,Sometimes\n", &c, &err,
			      NULL)
		    < 0);
	assert_non_null(strstr(err.text, "PrologFlags"));
}

static void test_partition_and_node_defaults(void **state)
{
	struct sl_conf *c = NULL;
	struct sl_error err = {""};
	const struct conf_part *p;
	const struct conf_node *n;

	assert_int_equal(load_text(*state,
				   "SlurmctldHost=ctl\nSlurmdPort=7000\nNodeName=a\n"
				   "PartitionName=p Nodes=a\n",
				   &c, &err, NULL),
			 0);
	n = conf_node_find(c, "a");
	assert_non_null(n);
	assert_int_equal(n->port, 7000); /* SlurmdPort, even when it comes first */
	assert_int_equal(n->cpus, 1);
	assert_int_equal(n->real_memory, 1);
	assert_int_equal(n->weight, 1);
	assert_string_equal(n->node_addr, "a");
	p = conf_part_find(c, "p");
	assert_non_null(p);
	assert_int_equal(p->state_up, PART_STATE_UP);
	assert_int_equal(p->max_time, INFINITE);
	assert_int_equal(p->default_time, NO_VAL);
	assert_int_equal(p->max_nodes, INFINITE);
	assert_int_equal(p->min_nodes, 0);
	assert_int_equal(p->max_cpus_per_node, INFINITE);
	assert_int_equal(p->priority_job_factor, 1);
	assert_int_equal(p->priority_tier, 1);
	assert_int_equal(p->over_time_limit, NO_VAL16);
	assert_false(p->is_default);
	assert_null(p->allow_groups);
	assert_null(p->over_subscribe);
	conf_free(c);
}

static void test_key_table_names_are_unique_and_raw_keys_are_kept(void **state)
{
	for (size_t i = 0; i < conf_keys_count; i++) {
		_cleanup_free_ char *text = NULL;
		struct sl_conf *c = NULL;
		struct sl_error err = {""};

		for (size_t j = i + 1; j < conf_keys_count; j++)
			if (strcaseeq(conf_keys[i].name, conf_keys[j].name))
				fail_msg("%s twice in the key table", conf_keys[i].name);
		if (conf_keys[i].type != CONF_RAW)
			continue;
		/* a value may hold '=' */
		assert_true(asprintf(&text, "SlurmctldHost=h\n%s=v=1\n", conf_keys[i].name) > 0);
		if (load_text(*state, text, &c, &err, NULL) < 0)
			fail_msg("%s: %s", conf_keys[i].name, err.text);
		assert_string_equal(conf_get_raw(c, conf_keys[i].name), "v=1");
		conf_free(c);
	}
}

/* ---- DEFAULT lines, ranges, every partition key ---- */

static void test_default_lines_apply_to_later_lines_only(void **state)
{
	static const char text[] = "SlurmctldHost=ctl\n"
				   "NodeName=DEFAULT CPUs=8 RealMemory=1000 Features=fast\n"
				   "NodeName=a1\n"
				   "NodeName=DEFAULT RealMemory=2G\n"
				   "NodeName=a2 Weight=5 Features=slow\n"
				   "PartitionName=DEFAULT MaxTime=30 State=DOWN\n"
				   "PartitionName=p1 Nodes=a1\n"
				   "PartitionName=p2 Nodes=a2 MaxTime=UNLIMITED State=up\n";
	struct sl_conf *c = NULL;
	struct sl_error err = {""};

	assert_int_equal(load_text(*state, text, &c, &err, NULL), 0);
	assert_int_equal(c->node_count, 2);
	assert_int_equal(c->nodes[0].cpus, 8);
	assert_int_equal(c->nodes[0].sockets, 8); /* inferred from CPUs */
	assert_int_equal(c->nodes[0].real_memory, 1000);
	assert_string_equal(c->nodes[0].features, "fast");
	assert_int_equal(c->nodes[1].cpus, 8);
	assert_int_equal(c->nodes[1].real_memory, 2048);
	assert_int_equal(c->nodes[1].weight, 5);
	assert_string_equal(c->nodes[1].features, "slow");
	assert_int_equal(c->parts[0].max_time, 30);
	assert_int_equal(c->parts[0].state_up, PART_STATE_DOWN);
	assert_int_equal(c->parts[1].max_time, INFINITE);
	assert_int_equal(c->parts[1].state_up, PART_STATE_UP);
	conf_free(c);
}

static void test_node_ranges_expand_addresses_in_parallel(void **state)
{
	static const char text[] = "SlurmctldHost=ctl\n"
				   "NodeName=n[1-4] NodeAddr=10.0.0.[1-4] NodeHostname=h[1-4] "
				   "Port=[7001-7004] Sockets=2 CoresPerSocket=4 ThreadsPerCore=2\n"
				   "NodeName=b[01-02],c Boards=2 SocketsPerBoard=2\n"
				   "PartitionName=all Nodes=ALL AllowGroups=ALL\n";
	static const char *const names[] = {"n1", "n2", "n3", "n4", "b01", "b02", "c"};
	struct sl_conf *c = NULL;
	struct sl_error err = {""};

	assert_int_equal(load_text(*state, text, &c, &err, NULL), 0);
	assert_int_equal(c->node_count, ARRAY_SIZE(names));
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		assert_string_equal(c->nodes[i].name, names[i]);
	for (int i = 0; i < 4; i++) {
		char addr[32], host[32];

		snprintf(addr, sizeof(addr), "10.0.0.%d", i + 1);
		snprintf(host, sizeof(host), "h%d", i + 1);
		assert_string_equal(c->nodes[i].node_addr, addr);
		assert_string_equal(c->nodes[i].node_hostname, host);
		assert_int_equal(c->nodes[i].port, 7001 + i);
		assert_int_equal(c->nodes[i].cpus, 16);
	}
	assert_int_equal(c->nodes[4].sockets, 4);
	assert_int_equal(c->nodes[4].cpus, 4);
	assert_string_equal(c->nodes[6].node_hostname, "c");
	assert_string_equal(c->parts[0].nodes, "n[1-4],b[01-02],c");
	assert_null(c->parts[0].allow_groups);
	conf_free(c);
}

static void test_every_partition_key_is_stored(void **state)
{
	static const char text[] =
	    "SlurmctldHost=ctl\nNodeName=a\n"
	    "PartitionName=p Nodes=a Default=yes Hidden=YES RootOnly=yes DisableRootJobs=yes "
	    "ExclusiveUser=yes LLN=yes ReqResv=yes AllowGroups=wheel,users AllowAccounts=acct "
	    "AllowQos=normal AllocNodes=a QOS=part OverSubscribe=FORCE:4 OverTimeLimit=UNLIMITED "
	    "PriorityJobFactor=10 PriorityTier=3 GraceTime=60 DefMemPerCPU=2G DefMemPerNode=100 "
	    "MaxMemPerCPU=4000 MaxMemPerNode=UNLIMITED MaxCPUsPerNode=8 MaxNodes=UNLIMITED "
	    "MinNodes=1 MaxTime=2:00:00 DefaultTime=30 State=DRAIN Shared=NO PreemptMode=off\n";
	struct sl_conf *c = NULL;
	struct sl_error err = {""};
	const struct conf_part *p;

	assert_int_equal(load_text(*state, text, &c, &err, NULL), 0);
	p = &c->parts[0];
	assert_true(p->is_default && p->hidden && p->root_only && p->disable_root_jobs);
	assert_true(p->exclusive_user && p->lln && p->req_resv);
	assert_string_equal(p->allow_groups, "wheel,users");
	assert_string_equal(p->allow_accounts, "acct");
	assert_string_equal(p->allow_qos, "normal");
	assert_string_equal(p->alloc_nodes, "a");
	assert_string_equal(p->qos, "part");
	assert_string_equal(p->over_subscribe, "NO"); /* Shared= is the old name, later wins */
	assert_int_equal(p->over_time_limit, INFINITE16);
	assert_int_equal(p->priority_job_factor, 10);
	assert_int_equal(p->priority_tier, 3);
	assert_int_equal(p->grace_time, 60);
	assert_int_equal(p->def_mem_per_cpu, 2048);
	assert_int_equal(p->def_mem_per_node, 100);
	assert_int_equal(p->max_mem_per_cpu, 4000);
	assert_int_equal(p->max_mem_per_node, 0);
	assert_int_equal(p->max_cpus_per_node, 8);
	assert_int_equal(p->max_nodes, INFINITE);
	assert_int_equal(p->min_nodes, 1);
	assert_int_equal(p->max_time, 120);
	assert_int_equal(p->default_time, 30);
	assert_int_equal(p->state_up, PART_STATE_DRAIN);
	conf_free(c);
}

/* ---- the reader: Include, continuation, comments, quotes, case ---- */

static void test_include_is_relative_to_the_including_file(void **state)
{
	_cleanup_free_ char *sub = NULL, *inc = NULL, *inc2 = NULL;
	struct sl_conf *c = NULL;
	struct sl_error err = {""};

	assert_true(asprintf(&sub, "%s/sub", (char *)*state) > 0);
	assert_int_equal(mkdir(sub, 0700), 0);
	inc = write_file(sub, "nodes.conf", "NodeName=n[1-2]\nInclude more.conf\n");
	inc2 = write_file(sub, "more.conf", "PartitionName=p Nodes=n[1-2]\n");
	assert_int_equal(load_text(*state,
				   "SlurmctldHost=ctl\ninclude sub/nodes.conf\nClusterName=x\n", &c,
				   &err, NULL),
			 0);
	assert_int_equal(c->node_count, 2);
	assert_int_equal(c->part_count, 1);
	assert_string_equal(c->cluster_name, "x");
	conf_free(c);
}

static void test_continuation_comments_quotes_and_case(void **state)
{
	static const char text[] = "# a comment line\n"
				   "   \n"
				   "slurmctldhost=ctl   # trailing comment\n"
				   "NODENAME=c1 \\\n"
				   "    cpus=2 \\\n"
				   "    Reason=\"under repair # 2\" Features=a\\#b\n"
				   "partitionname=p nodes=c1 DEFAULT=Yes maxtime=10\n"
				   "SLURMDPORT=7000 ClusterName=\"two words\"\n";
	struct sl_conf *c = NULL;
	struct sl_error err = {""};

	assert_int_equal(load_text(*state, text, &c, &err, NULL), 0);
	assert_string_equal(c->control_machine, "ctl");
	assert_int_equal(c->node_count, 1);
	assert_int_equal(c->nodes[0].cpus, 2);
	assert_string_equal(c->nodes[0].reason, "under repair # 2");
	assert_string_equal(c->nodes[0].features, "a#b");
	assert_true(c->parts[0].is_default);
	assert_int_equal(c->parts[0].max_time, 10);
	assert_int_equal(c->slurmd_port, 7000);
	assert_string_equal(c->cluster_name, "two words");
	assert_string_equal(c->kv[0].key, "SlurmctldHost"); /* canonical spelling */
	assert_string_equal(conf_get_raw(c, "slurmdport"), "7000");
	conf_free(c);
}

static void test_kv_keeps_first_seen_order_and_last_value(void **state)
{
	static const char text[] = "SlurmctldHost=ctl\nSchedulerParameters=a\nInactiveLimit=0\n"
				   "SchedulerParameters=b\nAuthInfo=socket=/run/m.sock,ttl=60\n";
	struct sl_conf *c = NULL;
	struct sl_error err = {""};

	assert_int_equal(load_text(*state, text, &c, &err, NULL), 0);
	assert_int_equal(c->kv_count, 4);
	assert_string_equal(c->kv[1].key, "SchedulerParameters");
	assert_string_equal(c->kv[1].value, "b");
	assert_string_equal(c->kv[2].key, "InactiveLimit");
	assert_string_equal(c->munge_socket, "/run/m.sock");
	assert_string_equal(c->auth_info, "socket=/run/m.sock,ttl=60");
	conf_free(c);
}

static void test_legacy_control_machine_is_accepted(void **state)
{
	struct sl_conf *c = NULL;
	struct sl_error err = {""};

	assert_int_equal(
	    load_text(*state, "ControlMachine=head\nControlAddr=10.1.1.1\n", &c, &err, NULL), 0);
	assert_string_equal(c->control_machine, "head");
	assert_string_equal(c->control_addr, "10.1.1.1");
	conf_free(c);
}

/* ---- broken files: the exact "file:line:" prefix ---- */

/* clang-format off */
static const struct {
	const char *what;
	const char *text;
	unsigned line;
	const char *says;
} broken[] = {
	{ "unknown key", "SlurmctldHost=h\nFooBar=1\n", 2, "unknown key 'FooBar'" },
	{ "bad number", "SlurmctldHost=h\nSlurmdPort=abc\n", 2, "SlurmdPort=abc: not a number" },
	{ "number out of range", "SlurmctldHost=h\n\nSlurmdPort=70000\n", 3, "out of range" },
	{ "negative number", "SlurmctldHost=h\nMaxJobCount=-5\n", 2, "not a number" },
	{ "bad time", "SlurmctldHost=h\nNodeName=a\nPartitionName=p Nodes=a MaxTime=1-xx\n", 3,
	  "MaxTime=1-xx: not a time" },
	{ "bad memory", "SlurmctldHost=h\nNodeName=a RealMemory=lots\n", 2, "not a memory size" },
	{ "unknown node in a partition", "SlurmctldHost=h\nNodeName=n1\nPartitionName=p Nodes=n[1-2]\n",
	  3, "unknown node 'n2'" },
	{ "missing '='", "SlurmctldHost=h\nNodeName=n1 CPUs 4\n", 2, "missing '=' after 'CPUs'" },
	{ "unbalanced bracket", "SlurmctldHost=h\nNodeName=n[1-4\n", 2, "bad host list" },
	{ "unbalanced bracket in Nodes", "SlurmctldHost=h\nNodeName=a\nPartitionName=p Nodes=a]\n",
	  3, "bad host list" },
	{ "duplicate node", "SlurmctldHost=h\nNodeName=n1\nNodeName=n[0-1]\n", 3,
	  "duplicate node 'n1'" },
	{ "duplicate partition", "SlurmctldHost=h\nPartitionName=p\nPartitionName=p\n", 3,
	  "duplicate partition 'p'" },
	{ "missing SlurmctldHost", "ClusterName=x\n# end\n", 2, "SlurmctldHost is not set" },
	{ "unknown node key", "SlurmctldHost=h\nNodeName=a Colour=red\n", 2, "unknown node key" },
	{ "unknown partition key", "SlurmctldHost=h\nPartitionName=p Colour=red\n", 2,
	  "unknown partition key" },
	{ "bad boolean", "SlurmctldHost=h\nPartitionName=p Hidden=maybe\n", 2, "expected YES or NO" },
	{ "bad partition state", "SlurmctldHost=h\nPartitionName=p State=SIDEWAYS\n", 2,
	  "State=SIDEWAYS" },
	{ "bad node state", "SlurmctldHost=h\nNodeName=a State=HAPPY\n", 2, "not a node state" },
	{ "bad OverSubscribe", "SlurmctldHost=h\nPartitionName=p OverSubscribe=NO:3\n", 2,
	  "expected NO" },
	{ "unterminated quote", "SlurmctldHost=h\nClusterName=\"abc\n", 2, "unterminated quote" },
	{ "bad SlurmctldHost", "SlurmctldHost=h(1.2.3.4\n", 1, "name(address)" },
	{ "bad debug level", "SlurmctldHost=h\nSlurmdDebug=chatty\n", 2, "not a debug level" },
	{ "NodeAddr count", "SlurmctldHost=h\nNodeName=n[1-3] NodeAddr=a[1-2]\n", 2,
	  "2 values for 3 nodes" },
	{ "too many CPUs", "SlurmctldHost=h\nNodeName=a Sockets=300 CoresPerSocket=300\n", 2, "more than 65535 CPUs" },
	{ "bad port", "SlurmctldHost=h\nNodeName=n1 Port=0x10\n", 2, "not a port number" },
	{ "'=' without key", "SlurmctldHost=h\n=5\n", 2, "'=' without a key" },
	{ "error after a continuation", "SlurmctldHost=h\nNodeName=a \\\n CPUs=2\nBad=1\n", 4,
	  "unknown key 'Bad'" },
	{ "error in a continued line", "SlurmctldHost=h\nNodeName=a \\\n CPUs=x\n", 2, "CPUs=x" },
	{ "Include without a file", "SlurmctldHost=h\nInclude   \n", 2, "Include without a file name" },
	{ "missing include", "SlurmctldHost=h\nInclude nothere.conf\n", 2, "nothere.conf" },
	/* found by fuzz_conf: the read error of an included directory named
	 * only the directory, not the including file and line */
	{ "include of a directory", "SlurmctldHost=h\nInclude /\n", 2, "Include /: Is a directory" },
	/* a device or FIFO is refused without reading (or blocking on) it */
	{ "include of a device", "SlurmctldHost=h\nInclude /dev/zero\n", 2,
	  "Include /dev/zero: not a regular file" },
	{ "node key on a plain line", "SlurmctldHost=h CPUs=2\n", 1, "unknown key 'CPUs'" },
	{ "unknown accounting storage", "SlurmctldHost=h\nAccountingStorageType=accounting_storage/mysql\n",
	  2, "expected accounting_storage/sqlite" },
	{ "unknown PrivateData word", "SlurmctldHost=h\nPrivateData=jobs,secrets\n", 2,
	  "unknown PrivateData word" },
	{ "unknown PriorityFlags word", "SlurmctldHost=h\nPriorityFlags=ACCRUE_ALWAYS,FAST\n", 2,
	  "unknown PriorityFlags word" },
	{ "bad PriorityUsageResetPeriod", "SlurmctldHost=h\nPriorityUsageResetPeriod=HOURLY\n", 2,
	  "expected NONE, NOW, DAILY" },
	{ "bad PriorityWeightTRES", "SlurmctldHost=h\nPriorityWeightTRES=cpu=1,color=2\n", 2,
	  "expected TRES=weight pairs" },
	{ "negative PriorityWeightTRES", "SlurmctldHost=h\nPriorityWeightTRES=cpu=-1\n", 2,
	  "expected TRES=weight pairs" },
	{ "repeated PriorityWeightTRES", "SlurmctldHost=h\nPriorityWeightTRES=cpu=1,CPU=2\n", 2,
	  "expected TRES=weight pairs" },
	{ "bad PriorityWeightAge", "SlurmctldHost=h\nPriorityWeightAge=lots\n", 2, "not a number" },
	{ "bad PriorityMaxAge", "SlurmctldHost=h\nPriorityMaxAge=1-xx\n", 2, "not a time" },
	{ "bad PriorityFavorSmall", "SlurmctldHost=h\nPriorityFavorSmall=maybe\n", 2,
	  "expected YES or NO" },
};
/* clang-format on */

/* A command's load: every key, no node or partition line read (a broken
 * one included: the daemons and scontrol reconfigure read those), no
 * gres.conf. The full load refuses the same file. */
static void test_client_load_skips_nodes_and_partitions(void **state)
{
	_cleanup_free_ char *path = write_file(*state, "slurm.conf",
					       "SlurmctldHost=h(10.0.0.1)\nSlurmctldPort=7000\n"
					       "NodeName=a CPUs=abc\nPartitionName=p Nodes=a\n"
					       "MessageTimeout=33\n");
	_cleanup_free_ char *gres = write_file(*state, "gres.conf", "Bogus=1\n");
	struct sl_conf *c = NULL;
	struct sl_error err = {""};

	assert_int_equal(conf_load_client(path, &c, &err), 0);
	assert_string_equal(c->control_addr, "10.0.0.1");
	assert_int_equal(c->slurmctld_port, 7000);
	assert_int_equal(c->message_timeout, 33);
	assert_int_equal(c->node_count, 0);
	assert_int_equal(c->part_count, 0);
	conf_free(c);
	c = NULL;
	assert_true(conf_load(path, &c, &err) < 0);
	assert_null(c);
	assert_non_null(strstr(err.text, "CPUs=abc"));
}

static void test_broken_lines_report_file_and_line(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(broken); i++) {
		_cleanup_free_ char *path = NULL, *prefix = NULL;
		struct sl_conf *c = NULL;
		struct sl_error err = {""};
		int r;

		r = load_text(*state, broken[i].text, &c, &err, &path);
		assert_true(asprintf(&prefix, "%s:%u: ", path, broken[i].line) > 0);
		if (r >= 0 || c || strncmp(err.text, prefix, strlen(prefix)) != 0
		    || !strstr(err.text, broken[i].says))
			fail_msg("%s: got %d '%s', want prefix '%s' and '%s'", broken[i].what, r,
				 err.text, prefix, broken[i].says);
	}
}

static void test_accounting_storage_and_private_data(void **state)
{
	static const struct {
		const char *text;
		const char *type, *path;
		bool is_enabled;
		uint32_t private_flags;
	} cases[] = {
	    {"", "accounting_storage/sqlite", "/var/spool/job_accounting.db", true, 0},
	    {"StateSaveLocation=/s\nAccountingStorageType=Accounting_Storage/SlurmDBD\n",
	     "accounting_storage/slurmdbd", "/s/job_accounting.db", true, 0},
	    {"AccountingStorageType=accounting_storage/none\nPrivateData=jobs\n",
	     "accounting_storage/none", "/var/spool/job_accounting.db", false, PRIVATE_DATA_JOBS},
	    {"AccountingStorageLoc=/x/acct.db\nPrivateData=USAGE,Jobs\n",
	     "accounting_storage/sqlite", "/x/acct.db", true,
	     PRIVATE_DATA_JOBS | PRIVATE_DATA_USAGE},
	    {"PrivateData=all\nAccountingStorageType=\n", "accounting_storage/sqlite",
	     "/var/spool/job_accounting.db", true, PRIVATE_DATA_ALL},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *text = NULL, *path = NULL;
		struct sl_conf *c = NULL;
		struct sl_error err = {""};

		assert_true(asprintf(&text, "SlurmctldHost=h\n%s", cases[i].text) > 0);
		if (load_text(*state, text, &c, &err, NULL) < 0)
			fail_msg("case %zu: %s", i, err.text);
		assert_string_equal(c->acct_storage_type, cases[i].type);
		path = conf_acct_storage_path(c);
		assert_string_equal(path, cases[i].path);
		assert_int_equal(conf_is_acct_enabled(c), cases[i].is_enabled);
		assert_int_equal(c->private_data_flags, cases[i].private_flags);
		conf_free(c);
	}
}

static void test_errors_in_included_files_name_that_file(void **state)
{
	_cleanup_free_ char *inc = write_file(*state, "part.conf", "\nPartitionName=p Nodes=zz\n");
	_cleanup_free_ char *self = write_file(*state, "self.conf", "Include self.conf\n");
	_cleanup_free_ char *want = NULL;
	struct sl_conf *c = NULL;
	struct sl_error err = {""};

	assert_true(load_text(*state, "SlurmctldHost=h\nInclude part.conf\n", &c, &err, NULL) < 0);
	assert_true(asprintf(&want, "%s:2: ", inc) > 0);
	assert_memory_equal(err.text, want, strlen(want));
	assert_true(load_text(*state, "SlurmctldHost=h\nInclude self.conf\n", &c, &err, NULL)
		    == -ELOOP);
	assert_non_null(strstr(err.text, "nested more than"));
	assert_null(c);
}

/* ---- gres.conf ---- */

static void test_gres_conf_lines(void **state)
{
	static const char text[] = "AutoDetect=nvml\n"
				   "NodeName=g[1-2] Name=gpu File=/dev/nvidia[0-3] Cores=0-3\n"
				   "name=gpu type=a100 file=/dev/nvidia[4-5],/dev/nvidia7\n"
				   "Name=mps Count=200 File=/dev/nvidia0\n"
				   "NodeName=x Name=bandwidth Count=4G Flags=CountOnly\n"
				   "Name=craynetwork\n";
	static const struct {
		const char *node, *name, *type, *file;
		uint64_t count;
	} want[] = {
	    {"g[1-2]", "gpu", NULL, "/dev/nvidia[0-3]", 4},
	    {NULL, "gpu", "a100", "/dev/nvidia[4-5],/dev/nvidia7", 3},
	    {NULL, "mps", NULL, "/dev/nvidia0", 200},
	    {"x", "bandwidth", NULL, NULL, 4ull << 30},
	    {NULL, "craynetwork", NULL, NULL, 1},
	};
	_cleanup_free_ char *path = write_file(*state, "gres.conf", text);
	struct sl_conf *c = calloc(1, sizeof(*c));
	struct sl_error err = {""};

	assert_int_equal(conf_gres_load(path, c, &err), 0);
	assert_int_equal(c->gres_count, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const struct gres_conf *g = &c->gres[i];

		if (want[i].node)
			assert_string_equal(g->node_name, want[i].node);
		else
			assert_null(g->node_name);
		assert_string_equal(g->name, want[i].name);
		if (want[i].type)
			assert_string_equal(g->type, want[i].type);
		else
			assert_null(g->type);
		if (want[i].file)
			assert_string_equal(g->file, want[i].file);
		else
			assert_null(g->file);
		assert_int_equal(g->count, want[i].count);
	}
	assert_string_equal(c->gres[0].cores, "0-3");
	assert_null(c->gres[1].cores);
	conf_free(c);
}

/* clang-format off */
static const struct {
	const char *text;
	unsigned line;
	const char *says;
} broken_gres[] = {
	{ "Name=gpu Count=abc\n", 1, "Count=abc: not a count" },
	{ "Name=gpu\nCount=2\n", 2, "Name= is required" },
	{ "Name=gpu File=/dev/nvidia[0-\n", 1, "bad file list" },
	{ "Name=gpu NodeName=g[1-\n", 1, "bad host list" },
	{ "\nName=gpu Colour=red\n", 2, "unknown gres.conf key 'Colour'" },
	{ "Name=gpu File=/dev/nvidia0 Cores=0-64\n", 1, "Cores=0-64: expected core indexes" },
	{ "Name=gpu File=/dev/nvidia0 CPUs=x\n", 1, "Cores=x: expected core indexes" },
};
/* clang-format on */

static void test_broken_gres_conf_reports_file_and_line(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(broken_gres); i++) {
		_cleanup_free_ char *path = write_file(*state, "gres.conf", broken_gres[i].text);
		_cleanup_free_ char *prefix = NULL;
		struct sl_conf *c = NULL;
		struct sl_error err = {""};

		assert_true(load_text(*state, "SlurmctldHost=h\n", &c, &err, NULL) < 0);
		assert_null(c);
		assert_true(asprintf(&prefix, "%s:%u: ", path, broken_gres[i].line) > 0);
		if (strncmp(err.text, prefix, strlen(prefix)) != 0
		    || !strstr(err.text, broken_gres[i].says))
			fail_msg("got '%s', want prefix '%s' and '%s'", err.text, prefix,
				 broken_gres[i].says);
	}
}

/* ---- cgroup.conf, ProctrackType, TaskPlugin ---- */

static void test_cgroup_conf_and_task_keys(void **state)
{
	_cleanup_free_ char *cg = NULL;
	struct sl_conf *c = NULL;
	struct sl_error err = {""};

	/* no cgroup.conf: Slurm's defaults; ProctrackType defaults to cgroup */
	assert_int_equal(load_text(*state, "SlurmctldHost=h\n", &c, &err, NULL), 0);
	assert_int_equal(c->proctrack, PROCTRACK_CGROUP);
	assert_int_equal(c->task_plugins, 0);
	assert_int_equal(c->cgroup.plugin, CGROUP_PLUGIN_AUTO);
	assert_string_equal(c->cgroup.mountpoint, "/sys/fs/cgroup");
	assert_false(c->cgroup.constrain_cores || c->cgroup.constrain_ram
		     || c->cgroup.constrain_swap || c->cgroup.constrain_devices);
	assert_true(c->cgroup.allowed_ram == 100 && c->cgroup.allowed_swap == 0);
	assert_true(c->cgroup.max_ram_percent == 100 && c->cgroup.min_ram == 30);
	assert_int_equal(c->cgroup.swappiness, NO_VAL);
	c = conf_free(c);

	cg = write_file(*state, "cgroup.conf",
			"CgroupPlugin=cgroup/v1\nCgroupMountpoint=/mnt/cg\n"
			"ConstrainCores=yes ConstrainRAMSpace=YES ConstrainSwapSpace=yes\n"
			"ConstrainDevices=yes AllowedRAMSpace=95.5 AllowedSwapSpace=10\n"
			"MaxRAMPercent=90 MinRAMSpace=64 MemorySwappiness=0\n"
			"CgroupAutomount=yes ConstrainKmemSpace=no\n");
	assert_int_equal(load_text(*state,
				   "SlurmctldHost=h\nProctrackType=proctrack/linuxproc\n"
				   "TaskPlugin=task/cgroup,task/affinity\n",
				   &c, &err, NULL),
			 0);
	assert_int_equal(c->proctrack, PROCTRACK_LINUXPROC);
	assert_int_equal(c->task_plugins, TASK_PLUGIN_CGROUP | TASK_PLUGIN_AFFINITY);
	assert_int_equal(c->cgroup.plugin, CGROUP_PLUGIN_V1);
	assert_string_equal(c->cgroup.mountpoint, "/mnt/cg");
	assert_true(c->cgroup.constrain_cores && c->cgroup.constrain_ram && c->cgroup.constrain_swap
		    && c->cgroup.constrain_devices);
	assert_true(c->cgroup.allowed_ram == 95.5 && c->cgroup.allowed_swap == 10);
	assert_true(c->cgroup.max_ram_percent == 90 && c->cgroup.min_ram == 64);
	assert_int_equal(c->cgroup.swappiness, 0);
	assert_string_equal(conf_get_raw(c, "TaskPlugin"), "task/cgroup,task/affinity");
	c = conf_free(c);
}

/* clang-format off */
static const struct {
	const char *slurm, *cgroup, *says;
} broken_cgroup[] = {
	{ "ProctrackType=proctrack/sgi_job\n", "", "expected proctrack/cgroup" },
	{ "TaskPlugin=task/cgroup,task/magic\n", "", "expected task/none" },
	{ "", "CgroupPlugin=cgroup/v3\n", "expected autodetect, cgroup/v1 or cgroup/v2" },
	{ "", "ConstrainCores=maybe\n", "ConstrainCores=maybe" },
	{ "", "MaxRAMPercent=150\n", "expected a percent from 0 to 100" },
	{ "", "AllowedRAMSpace=-1\n", "AllowedRAMSpace=-1: expected a percent" },
	{ "", "\nConstrainGPUs=yes\n", "cgroup.conf:2: unknown cgroup.conf key 'ConstrainGPUs'" },
	{ "", "CgroupMountpoint=relative/path\n", "not an absolute path" },
	{ "", "MemorySwappiness=101\n", "MemorySwappiness=101" },
};
/* clang-format on */

static void test_broken_cgroup_conf_is_refused(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(broken_cgroup); i++) {
		_cleanup_free_ char *cg =
		    write_file(*state, "cgroup.conf", broken_cgroup[i].cgroup);
		_cleanup_free_ char *text = NULL;
		struct sl_conf *c = NULL;
		struct sl_error err = {""};

		assert_true(asprintf(&text, "SlurmctldHost=h\n%s", broken_cgroup[i].slurm) > 0);
		assert_true(load_text(*state, text, &c, &err, NULL) < 0);
		assert_null(c);
		if (!strstr(err.text, broken_cgroup[i].says))
			fail_msg("case %zu: got '%s', want '%s'", i, err.text,
				 broken_cgroup[i].says);
	}
}

/* ---- JobContainerType, job_container.conf ---- */

static void test_job_container_conf(void **state)
{
	_cleanup_free_ char *jc = NULL;
	struct sl_conf *c = NULL;
	struct sl_error err = {""};
	struct container_node n;
	char *base;

	jc = write_file(*state, "job_container.conf",
			"AutoBasePath=true\nBasePath=/var/jc/%n\n"
			"NodeName=g[1-2] BasePath=/scratch/jc Dirs=/tmp,/var/tmp InitScript=/x/init\n");
	assert_int_equal(load_text(*state,
				   "SlurmctldHost=h\nPrologFlags=Contain\n"
				   "JobContainerType=job_container/tmpfs\n",
				   &c, &err, NULL),
			 0);
	assert_int_equal(c->job_container, CONTAINER_TMPFS);
	conf_container_of(c, "n1", &n);
	assert_string_equal(n.base_path, "/var/jc/%n");
	assert_string_equal(n.dirs, "/tmp,/dev/shm");
	assert_null(n.init_script);
	assert_true(n.auto_base_path);
	conf_container_of(c, "g2", &n);
	assert_string_equal(n.base_path, "/scratch/jc");
	assert_string_equal(n.dirs, "/tmp,/var/tmp");
	assert_string_equal(n.init_script, "/x/init");
	base = conf_container_base(c, "n1", "host");
	assert_string_equal(base, "/var/jc/n1");
	free(base);
	c = conf_free(c);
	/* job_container/none: the file is not read, no base */
	assert_int_equal(load_text(*state, "SlurmctldHost=h\n", &c, &err, NULL), 0);
	assert_int_equal(c->job_container, CONTAINER_NONE);
	assert_null(conf_container_base(c, "n1", "host"));
	c = conf_free(c);
}

/* clang-format off */
static const struct {
	const char *slurm, *jc, *says;
} broken_jc[] = {
	{ "JobContainerType=job_container/cncu\n", "", "expected job_container/none or job_container/tmpfs" },
	{ "JobContainerType=job_container/tmpfs\n", "BasePath=/x\n", "needs PrologFlags=Contain" },
	{ "PrologFlags=Contain\nJobContainerType=job_container/tmpfs\n", "BasePath=relative\n", "BasePath=relative: bad value" },
	{ "PrologFlags=Contain\nJobContainerType=job_container/tmpfs\n", "BasePath=/x Dirs=/tmp,../etc\n", "Dirs=/tmp,../etc" },
	{ "PrologFlags=Contain\nJobContainerType=job_container/tmpfs\n", "\nPrivate=yes\n", "job_container.conf:2: unknown job_container.conf key 'Private'" },
};
/* clang-format on */

static void test_broken_job_container_conf_is_refused(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(broken_jc); i++) {
		_cleanup_free_ char *jc = write_file(*state, "job_container.conf", broken_jc[i].jc);
		_cleanup_free_ char *text = NULL;
		struct sl_conf *c = NULL;
		struct sl_error err = {""};

		assert_true(asprintf(&text, "SlurmctldHost=h\n%s", broken_jc[i].slurm) > 0);
		assert_true(load_text(*state, text, &c, &err, NULL) < 0);
		assert_null(c);
		if (!strstr(err.text, broken_jc[i].says))
			fail_msg("case %zu: got '%s', want '%s'", i, err.text, broken_jc[i].says);
	}
}

/* ---- helpers ---- */

static void test_expand_path_replaces_n_h_and_percent(void **state)
{
	static const struct {
		const char *tmpl, *node, *host, *want;
	} cases[] = {
	    {"/var/spool/%n", "n1", "h1", "/var/spool/n1"},
	    {"/log/%h-%n.log", "n1", "host", "/log/host-n1.log"},
	    {"100%%", "n1", "h", "100%"},
	    {"%x%", "n1", "h", "%x%"},
	    {"plain", NULL, NULL, "plain"},
	    {"%n/", NULL, NULL, "/"},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *s =
		    conf_expand_path(cases[i].tmpl, cases[i].node, cases[i].host);

		assert_string_equal(s, cases[i].want);
	}
	assert_null(conf_expand_path(NULL, "n", "h"));
}

static void test_default_path_follows_slurm_conf(void **state)
{
	(void)state;
	unsetenv("SLURM_CONF");
	assert_string_equal(conf_default_path(), "/etc/slurm/slurm.conf");
	setenv("SLURM_CONF", "/tmp/x.conf", 1);
	assert_string_equal(conf_default_path(), "/tmp/x.conf");
	unsetenv("SLURM_CONF");
	assert_null(conf_free(NULL));
}

/* The keys of the submission rules: EnforcePartLimits,
 * SchedulerParameters=max_script_size, PropagateResourceLimits[Except],
 * and DenyAccounts/DenyQos, also through PartitionName=DEFAULT. */
static void test_submission_rule_keys(void **state)
{
	static const struct {
		const char *value;
		uint16_t want;
	} enforce[] = {{"NO", 0}, {"any", 1}, {"ALL", 2}, {"yes", 2}};
	struct sl_conf *c = NULL;
	struct sl_error err = {""};
	char text[512];

	for (size_t i = 0; i < ARRAY_SIZE(enforce); i++) {
		snprintf(text, sizeof(text), "SlurmctldHost=ctl\nEnforcePartLimits=%s\n",
			 enforce[i].value);
		assert_int_equal(load_text(*state, text, &c, &err, NULL), 0);
		assert_int_equal(c->enforce_part_limits, enforce[i].want);
		c = conf_free(c);
	}
	assert_int_not_equal(
	    load_text(*state, "SlurmctldHost=ctl\nEnforcePartLimits=maybe\n", &c, &err, NULL), 0);
	assert_non_null(strstr(err.text, "expected NO, ANY, ALL or YES"));
	assert_int_equal(load_text(*state,
				   "SlurmctldHost=ctl\nSchedulerParameters=bf_interval=30,"
				   "max_script_size=1000\nPropagateResourceLimits=NOFILE,CORE\n"
				   "PropagateResourceLimitsExcept=AS\nNodeName=a\n"
				   "PartitionName=DEFAULT DenyAccounts=x,y DenyQos=low\n"
				   "PartitionName=p Nodes=a\n",
				   &c, &err, NULL),
			 0);
	assert_int_equal(c->max_script_size, 1000);
	assert_string_equal(c->propagate_rlimits, "NOFILE,CORE");
	assert_string_equal(c->propagate_rlimits_except, "AS");
	assert_string_equal(c->parts[0].deny_accounts, "x,y");
	assert_string_equal(c->parts[0].deny_qos, "low");
	assert_string_equal(conf_get_raw(c, "SchedulerParameters"),
			    "bf_interval=30,max_script_size=1000");
	c = conf_free(c);
	assert_int_not_equal(load_text(*state,
				       "SlurmctldHost=ctl\nSchedulerParameters=max_script_size=0\n",
				       &c, &err, NULL),
			     0);
	assert_non_null(strstr(err.text, "max_script_size"));
	/* the main scheduler's bounds: Slurm's defaults, then each set */
	assert_int_equal(load_text(*state, "SlurmctldHost=ctl\n", &c, &err, NULL), 0);
	assert_int_equal(c->sched_queue_depth, 100);
	assert_int_equal(c->sched_part_depth, 0);
	assert_int_equal(c->sched_interval, 60);
	assert_int_equal(c->sched_max_time, 0);
	assert_int_equal(c->sched_max_job_start, 0);
	c = conf_free(c);
	assert_int_equal(load_text(*state,
				   "SlurmctldHost=ctl\nSchedulerParameters=default_queue_depth=7,"
				   "partition_job_depth=2,sched_interval=9,max_sched_time=3,"
				   "sched_max_job_start=4\n",
				   &c, &err, NULL),
			 0);
	assert_int_equal(c->sched_queue_depth, 7);
	assert_int_equal(c->sched_part_depth, 2);
	assert_int_equal(c->sched_interval, 9);
	assert_int_equal(c->sched_max_time, 3);
	assert_int_equal(c->sched_max_job_start, 4);
	c = conf_free(c);
	assert_int_not_equal(load_text(*state,
				       "SlurmctldHost=ctl\nSchedulerParameters=default_queue_depth=0\n",
				       &c, &err, NULL),
			     0);
	assert_non_null(strstr(err.text, "default_queue_depth"));
}

static void test_priority_keys(void **state)
{
	struct sl_conf *c = NULL;
	struct sl_error err = {""};
	struct prio_tres_weight w[PRIO_TRES_MAX];
	char buf[256];

	assert_int_equal(
	    load_text(*state,
		      "SlurmctldHost=ctl\nPriorityType=priority/multifactor\n"
		      "PriorityWeightAge=1000\nPriorityWeightAssoc=1\n"
		      "PriorityWeightFairshare=2000\nPriorityWeightJobSize=3000\n"
		      "PriorityWeightPartition=4000\nPriorityWeightQOS=5000\n"
		      "PriorityWeightTRES=CPU=100,Mem=0.5,GRES/gpu=2000\n"
		      "PriorityMaxAge=1-0\nPriorityDecayHalfLife=0\nPriorityCalcPeriod=1\n"
		      "PriorityUsageResetPeriod=weekly\nPriorityFavorSmall=YES\n"
		      "PriorityFlags=small_relative_to_time,ACCRUE_ALWAYS,FAIR_TREE,"
		      "NO_NORMAL_ALL\n",
		      &c, &err, NULL),
	    0);
	assert_int_equal(c->prio_weight_age, 1000);
	assert_int_equal(c->prio_weight_assoc, 1);
	assert_int_equal(c->prio_weight_fairshare, 2000);
	assert_int_equal(c->prio_weight_job_size, 3000);
	assert_int_equal(c->prio_weight_partition, 4000);
	assert_int_equal(c->prio_weight_qos, 5000);
	assert_int_equal(c->prio_max_age, 1440);
	assert_int_equal(c->prio_decay_half_life, 0);
	assert_int_equal(c->prio_calc_period, 1);
	assert_int_equal(c->prio_reset_period, PRIO_RESET_WEEKLY);
	assert_true(c->prio_favor_small);
	assert_int_equal(c->prio_flags, PRIO_FLAG_ACCRUE_ALWAYS | PRIO_FLAG_SMALL_RELATIVE_TO_TIME
					    | PRIO_FLAG_NO_NORMAL_ALL);
	assert_string_equal(conf_prio_flags_str(c->prio_flags, buf, sizeof(buf)),
			    "ACCRUE_ALWAYS,SMALL_RELATIVE_TO_TIME,NO_NORMAL_ASSOC,NO_NORMAL_PART,"
			    "NO_NORMAL_QOS,NO_NORMAL_TRES");
	assert_string_equal(c->prio_weight_tres, "CPU=100,Mem=0.5,GRES/gpu=2000");
	assert_int_equal(conf_prio_tres_parse(c->prio_weight_tres, w, PRIO_TRES_MAX), 3);
	assert_string_equal(w[0].name, "cpu");
	assert_string_equal(w[2].name, "gres/gpu");
	assert_true(w[1].weight == 0.5 && w[2].weight == 2000);
	assert_int_equal(conf_prio_tres_parse("cpu=1,mem=2", w, 1), -EINVAL); /* too many */
	assert_int_equal(conf_prio_tres_parse("", w, 1), 0);
	c = conf_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup_dir, teardown_dir)
	    T(test_reference_config_gives_six_nodes_and_two_partitions),
	    T(test_unset_keys_take_slurm_defaults),
	    T(test_prolog_epilog_and_health_check_keys),
	    T(test_partition_and_node_defaults),
	    T(test_key_table_names_are_unique_and_raw_keys_are_kept),
	    T(test_default_lines_apply_to_later_lines_only),
	    T(test_node_ranges_expand_addresses_in_parallel),
	    T(test_every_partition_key_is_stored),
	    T(test_include_is_relative_to_the_including_file),
	    T(test_continuation_comments_quotes_and_case),
	    T(test_kv_keeps_first_seen_order_and_last_value),
	    T(test_legacy_control_machine_is_accepted),
	    T(test_client_load_skips_nodes_and_partitions),
	    T(test_broken_lines_report_file_and_line),
	    T(test_errors_in_included_files_name_that_file),
	    T(test_accounting_storage_and_private_data),
	    T(test_gres_conf_lines),
	    T(test_broken_gres_conf_reports_file_and_line),
	    T(test_submission_rule_keys),
	    T(test_priority_keys),
	    T(test_cgroup_conf_and_task_keys),
	    T(test_broken_cgroup_conf_is_refused),
	    T(test_job_container_conf),
	    T(test_broken_job_container_conf_is_refused),
	    cmocka_unit_test(test_expand_path_replaces_n_h_and_percent),
	    cmocka_unit_test(test_default_path_follows_slurm_conf),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
