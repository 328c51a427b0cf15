/* test_hw_detect.c - hardware detection against fake sysfs/proc trees built
 * in a temporary directory, the real machine as a smoke test, and the
 * exact text of `slurmd -C`. */
#include <errno.h>
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

#include "common/hw_detect.h"
#include "common/macros.h"

#define CPU "/sys/devices/system/cpu"

/* Write text to root/rel, creating the directories on the way. */
static void put(const char *root, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f)
		fail_msg("open %s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static void put_cpu(const char *root, int cpu, int pkg, int core, const char *siblings)
{
	char rel[128], val[32];

	snprintf(rel, sizeof(rel), CPU "/cpu%d/topology/physical_package_id", cpu);
	snprintf(val, sizeof(val), "%d\n", pkg);
	put(root, rel, val);
	snprintf(rel, sizeof(rel), CPU "/cpu%d/topology/core_id", cpu);
	snprintf(val, sizeof(val), "%d\n", core);
	put(root, rel, val);
	if (siblings) {
		snprintf(rel, sizeof(rel), CPU "/cpu%d/topology/thread_siblings_list", cpu);
		snprintf(val, sizeof(val), "%s\n", siblings);
		put(root, rel, val);
	}
}

static void put_proc(const char *root)
{
	put(root, "/proc/meminfo",
	    "MemTotal:        8127999 kB\nMemFree:         1048576 kB\n"
	    "MemAvailable:    4000000 kB\nBuffers:           80648 kB\n");
	put(root, "/proc/stat", "cpu  1 2 3 4\nintr 5\nbtime 1700000000\nprocesses 9\n");
	put(root, "/proc/loadavg", "0.18 3.40 0.08 1/89 5289\n");
	put(root, "/tmp/.keep", "");
}

/* Intel numbering: cpu i is thread i/4 of core i%2 in package (i/2)%2;
 * core ids repeat in both packages. */
static void tree_2s_2c_2t(const char *root)
{
	put(root, CPU "/online", "0-7\n");
	for (int i = 0; i < 8; i++) {
		char sib[16];

		snprintf(sib, sizeof(sib), "%d,%d", i % 4, i % 4 + 4);
		put_cpu(root, i, (i / 2) % 2, i % 2, sib);
	}
}

static void tree_1s_4c(const char *root)
{
	put(root, CPU "/online", "0-3\n");
	for (int i = 0; i < 4; i++) {
		char sib[8];

		snprintf(sib, sizeof(sib), "%d", i);
		put_cpu(root, i, 0, i, sib);
	}
}

/* 1 socket x 4 cores x 2 threads with the second threads (4-7) offline;
 * their stale topology claims package 1 and must not be read. */
static void tree_offline(const char *root)
{
	put(root, CPU "/online", "0-3\n");
	put(root, CPU "/offline", "4-7\n");
	for (int i = 0; i < 8; i++) {
		char sib[8];

		snprintf(sib, sizeof(sib), "%d", i % 4);
		put_cpu(root, i, i < 4 ? 0 : 1, i % 4, sib);
	}
}

/* Online list with gaps; no thread_siblings_list, so core_id is used. */
static void tree_gaps_core_id(const char *root)
{
	put(root, CPU "/online", "0,2-3,5\n");
	put_cpu(root, 0, 0, 0, NULL);
	put_cpu(root, 2, 0, 1, NULL);
	put_cpu(root, 3, 1, 0, NULL);
	put_cpu(root, 5, 1, 1, NULL);
}

static void cpuinfo_2s_2c_2t(const char *root)
{
	char text[4096] = "";

	for (int i = 0; i < 8; i++) {
		char one[256];

		snprintf(one, sizeof(one),
			 "processor\t: %d\nvendor_id\t: GenuineIntel\nphysical id\t: %d\n"
			 "siblings\t: 4\ncore id\t\t: %d\ncpu cores\t: 2\n\n",
			 i, (i / 2) % 2, i % 2);
		strcat(text, one);
	}
	put(root, "/proc/cpuinfo", text);
}

static void tree_cpuinfo_only(const char *root)
{
	cpuinfo_2s_2c_2t(root);
}

/* sysfs has the online list but no topology: cpuinfo must be used. */
static void tree_sysfs_without_topology(const char *root)
{
	put(root, CPU "/online", "0-7\n");
	cpuinfo_2s_2c_2t(root);
}

/* ARM style: no physical id / core id lines. */
static void tree_cpuinfo_arm(const char *root)
{
	put(root, "/proc/cpuinfo",
	    "processor\t: 0\nBogoMIPS\t: 50.00\n\nprocessor\t: 1\nBogoMIPS\t: 50.00\n\n"
	    "processor\t: 2\nBogoMIPS\t: 50.00\n\nprocessor\t: 3\nBogoMIPS\t: 50.00\n\n");
}

static const struct topo_case {
	const char *name;
	void (*build)(const char *root);
	uint16_t cpus, sockets, cores_per_socket, threads_per_core;
} topo_cases[] = {
	{ "2 sockets x 2 cores x 2 threads", tree_2s_2c_2t, 8, 2, 2, 2 },
	{ "1 socket x 4 cores", tree_1s_4c, 4, 1, 4, 1 },
	{ "offline cpus are ignored", tree_offline, 4, 1, 4, 1 },
	{ "online list with gaps, core_id only", tree_gaps_core_id, 4, 2, 2, 1 },
	{ "no sysfs: /proc/cpuinfo", tree_cpuinfo_only, 8, 2, 2, 2 },
	{ "sysfs without topology: /proc/cpuinfo", tree_sysfs_without_topology, 8, 2, 2, 2 },
	{ "cpuinfo without ids", tree_cpuinfo_arm, 4, 1, 4, 1 },
};

static char *make_root(void)
{
	char *root = strdup("/tmp/test_hw_detect.XXXXXX");

	assert_non_null(root);
	assert_non_null(mkdtemp(root));
	return root;
}

static void remove_root(char *root)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	free(root);
}

static void test_topology_is_read_from_each_fake_tree(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(topo_cases); i++) {
		const struct topo_case *c = &topo_cases[i];
		char *root = make_root();
		struct hw_info h = { 0 };
		int r;

		put_proc(root);
		c->build(root);
		r = hw_detect(&h, root);
		if (r < 0)
			fail_msg("%s: hw_detect %d", c->name, r);
		if (h.cpus != c->cpus || h.sockets != c->sockets
		    || h.cores_per_socket != c->cores_per_socket
		    || h.threads_per_core != c->threads_per_core || h.boards != 1)
			fail_msg("%s: got CPUs=%u Boards=%u Sockets=%u Cores=%u Threads=%u", c->name,
				 h.cpus, h.boards, h.sockets, h.cores_per_socket,
				 h.threads_per_core);
		hw_info_done(&h);
		remove_root(root);
	}
}

static void test_memory_boot_time_and_load_come_from_proc(void **state)
{
	char *root = make_root();
	struct hw_info h = { 0 };
	char tmp[512];
	uint32_t tmp_mb;

	(void)state;
	put_proc(root);
	tree_1s_4c(root);
	assert_int_equal(hw_detect(&h, root), 0);
	assert_int_equal(h.real_memory_mb, 7937); /* 8127999 kB */
	assert_int_equal(h.free_mem_mb, 1024);    /* MemFree, not MemAvailable */
	assert_int_equal(h.boot_time, 1700000000);
	assert_int_equal(h.cpu_load_x100, 340);   /* the 5-minute figure */
	snprintf(tmp, sizeof(tmp), "%s/tmp", root);
	assert_int_equal(hw_tmp_disk_mb(tmp, &tmp_mb), 0);
	assert_int_equal(h.tmp_disk_mb, tmp_mb);
	assert_non_null(h.arch);
	assert_non_null(h.os);
	assert_int_equal(strncmp(h.os, "Linux ", 6), 0);
	hw_info_done(&h);
	hw_info_done(&h); /* idempotent */
	remove_root(root);
}

static void test_real_memory_rounds_like_slurmd_on_big_machines(void **state)
{
	char *root = make_root();
	struct hw_info h = { 0 };

	(void)state;
	if (sysconf(_SC_PAGESIZE) != 4096) {
		remove_root(root);
		skip();
	}
	tree_1s_4c(root);
	/* 2^29 - 1 pages: a float holds 2^29, so slurmd says 2097152, not 2097151 */
	put(root, "/proc/meminfo", "MemTotal:       2147483644 kB\nMemFree: 0 kB\n");
	assert_int_equal(hw_detect(&h, root), 0);
	assert_int_equal(h.real_memory_mb, 2097152);
	hw_info_done(&h);
	remove_root(root);
}

static void test_missing_pieces_are_reported_or_zero(void **state)
{
	char *root = make_root();
	struct hw_info h = { .cpus = 77 };
	uint32_t mb = 5;

	(void)state;
	assert_int_equal(hw_detect(&h, root), -ENOENT); /* no cpus at all */
	assert_int_equal(h.cpus, 77);                    /* untouched */
	tree_1s_4c(root);
	assert_int_equal(hw_detect(&h, root), -ENOENT); /* no MemTotal */
	put(root, "/proc/meminfo", "MemTotal: 2048 kB\n");
	put(root, "/proc/loadavg", "garbage\n");
	assert_int_equal(hw_detect(&h, root), 0); /* the rest is best effort */
	assert_int_equal(h.real_memory_mb, 2);
	assert_int_equal(h.boot_time, 0);
	assert_int_equal(h.cpu_load_x100, 0);
	assert_int_equal(h.tmp_disk_mb, 0); /* no root/tmp */
	hw_info_done(&h);
	put(root, CPU "/online", "0-3,x\n"); /* malformed list: cpuinfo, which is absent */
	assert_int_equal(hw_detect(&h, root), -ENOENT);
	assert_int_equal(hw_tmp_disk_mb("/nonexistent/tmp", &mb), 0);
	assert_int_equal(mb, 0);
	remove_root(root);
}

static void test_real_machine_is_detected(void **state)
{
	struct hw_info h = { 0 };

	(void)state;
	assert_int_equal(hw_detect(&h, NULL), 0);
	assert_int_equal(h.cpus, sysconf(_SC_NPROCESSORS_ONLN));
	/* quotients: equal on even machines, smaller on hybrid ones */
	assert_true(h.sockets * h.cores_per_socket * h.threads_per_core <= h.cpus);
	assert_true(h.real_memory_mb > 0);
	assert_true(h.boot_time > 0);
	assert_non_null(h.arch);
	hw_info_done(&h);
	assert_int_equal(hw_detect(&h, ""), 0);
	hw_info_done(&h);
}

static const struct line_case {
	struct hw_info h;
	const char *name;
	time_t now;
	const char *want;
} line_cases[] = {
	{ { .cpus = 4, .boards = 1, .sockets = 1, .cores_per_socket = 4, .threads_per_core = 1,
	    .real_memory_mb = 7937, .boot_time = 1000 },
	  "n1", 1000 + 3600 + 23 * 60 + 45,
	  "NodeName=n1 CPUs=4 Boards=1 SocketsPerBoard=1 CoresPerSocket=4 ThreadsPerCore=1 "
	  "RealMemory=7937\nUpTime=0-01:23:45\n" },
	{ { .cpus = 64, .boards = 2, .sockets = 4, .cores_per_socket = 8, .threads_per_core = 2,
	    .real_memory_mb = 515466, .boot_time = 1700000000 },
	  "gpu-a01", 1700000000 + 12 * 86400 + 23 * 3600 + 5,
	  "NodeName=gpu-a01 CPUs=64 Boards=2 SocketsPerBoard=2 CoresPerSocket=8 "
	  "ThreadsPerCore=2 RealMemory=515466\nUpTime=12-23:00:05\n" },
	{ { .cpus = 1, .boards = 1, .sockets = 1, .cores_per_socket = 1, .threads_per_core = 1,
	    .real_memory_mb = 1, .boot_time = 0 },
	  "x", 5000,
	  "NodeName=x CPUs=1 Boards=1 SocketsPerBoard=1 CoresPerSocket=1 ThreadsPerCore=1 "
	  "RealMemory=1\nUpTime=0-00:00:00\n" },
};

static void test_node_line_matches_slurmd_dash_C(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(line_cases); i++) {
		_cleanup_free_ char *s =
			hw_node_line_at(&line_cases[i].h, line_cases[i].name, line_cases[i].now);

		assert_non_null(s);
		assert_string_equal(s, line_cases[i].want);
	}
}

static void test_node_line_defaults_to_the_short_host_name(void **state)
{
	struct hw_info h = { .cpus = 1, .boards = 1, .sockets = 1, .cores_per_socket = 1,
			     .threads_per_core = 1, .real_memory_mb = 1 };
	_cleanup_free_ char *s = hw_node_line(&h, NULL);
	char host[256] = "", want[300];

	(void)state;
	gethostname(host, sizeof(host) - 1);
	host[strcspn(host, ".")] = '\0';
	snprintf(want, sizeof(want), "NodeName=%s CPUs=1 ", host);
	assert_non_null(s);
	assert_int_equal(strncmp(s, want, strlen(want)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topology_is_read_from_each_fake_tree),
		cmocka_unit_test(test_memory_boot_time_and_load_come_from_proc),
		cmocka_unit_test(test_real_memory_rounds_like_slurmd_on_big_machines),
		cmocka_unit_test(test_missing_pieces_are_reported_or_zero),
		cmocka_unit_test(test_real_machine_is_detected),
		cmocka_unit_test(test_node_line_matches_slurmd_dash_C),
		cmocka_unit_test(test_node_line_defaults_to_the_short_host_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
