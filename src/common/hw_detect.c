/* hw_detect.c - slurmd's view of this machine; see hw_detect.h.
 *
 * Topology: each online CPU (the sysfs "online" list) contributes its
 * package and its core; a core is named by the lowest CPU of its
 * thread_siblings_list (core_id when that file is missing), so core ids
 * that repeat across packages or dies never merge two cores. Sockets are
 * the packages seen, and, as slurmd derives them from hwloc's object
 * counts, CoresPerSocket = cores / sockets and ThreadsPerCore = cpus /
 * cores (integer quotients, even on uneven machines). /proc/cpuinfo is
 * the fallback when sysfs has no topology (old kernels, some containers).
 * Memory figures match slurmd 22.05: RealMemory from the physical page
 * count, FreeMem from MemFree, CPULoad from the 5-minute load average.
 * Caveats: Boards is always 1 (hwloc groups are not examined), and the
 * numa_node_as_socket / l3cache_as_socket options are not implemented.
 */
#include "hw_detect.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "macros.h"

#define HW_CPU_IDS 65535u /* CPU ids 0..65534: the count must fit CPUs' uint16_t */
#define SYS_CPU "/sys/devices/system/cpu"

struct cpu_topo {
	long pkg;  /* physical package id (may be -1 on some platforms) */
	long core; /* lowest CPU sharing the core, or an offset core_id */
};

struct topo_count {
	unsigned cpus, sockets, cores;
};

static void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static bool root_is_real(const char *root)
{
	return !root || !*root;
}

static FILE *fopen_under(const char *root, const char *path)
{
	_cleanup_free_ char *p = NULL;

	if (asprintf(&p, "%s%s", root ? root : "", path) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	return fopen(p, "re");
}

/* First line of root+path, newline stripped, malloc'd into *ret. */
static int read_line_under(const char *root, const char *path, char **ret)
{
	_cleanup_(fclosep) FILE *f = fopen_under(root, path);
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	if (!f)
		return -errno;
	if (getline(&line, &cap, f) < 0)
		return feof(f) ? -ENODATA : -EIO;
	line[strcspn(line, "\n")] = '\0';
	*ret = TAKE_PTR(line);
	return 0;
}

static int parse_long(const char *s, long *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int read_long_under(const char *root, const char *path, long *ret)
{
	_cleanup_free_ char *line = NULL;
	int r = read_line_under(root, path, &line);

	return r < 0 ? r : parse_long(line, ret);
}

/* Parse a kernel CPU list ("0-3,8,10-11"). Marks ids in set (when not
 * NULL) and returns how many were newly marked; *ret_min gets the lowest
 * id (when not NULL). An empty list is -ENODATA. */
static int cpu_list_parse(const char *s, uint8_t *set, long *ret_min)
{
	unsigned long lo, hi, i;
	long min = -1;
	int n = 0;
	char *end;

	while (*s) {
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		lo = hi = strtoul(s, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -EINVAL;
			hi = strtoul(end + 1, &end, 10);
		}
		if (hi < lo || hi >= HW_CPU_IDS)
			return -EINVAL;
		if (min < 0 || (long)lo < min)
			min = (long)lo;
		for (i = lo; set && i <= hi; i++) {
			n += !set[i];
			set[i] = 1;
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	if (min < 0)
		return -ENODATA;
	if (ret_min)
		*ret_min = min;
	return n;
}

static int cpu_topo_cmp(const void *a, const void *b)
{
	const struct cpu_topo *x = a, *y = b;

	if (x->pkg != y->pkg)
		return x->pkg < y->pkg ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return 0;
}

/* Sort t and count distinct packages and (package, core) pairs. */
static void topo_count_of(struct cpu_topo *t, size_t n, struct topo_count *ret)
{
	*ret = (struct topo_count){ .cpus = (unsigned)n };
	qsort(t, n, sizeof(*t), cpu_topo_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || t[i].pkg != t[i - 1].pkg)
			ret->sockets++;
		if (i == 0 || cpu_topo_cmp(&t[i], &t[i - 1]))
			ret->cores++;
	}
}

static int cpu_topo_read(const char *root, unsigned cpu, struct cpu_topo *ret)
{
	_cleanup_free_ char *sib = NULL;
	char path[128];
	long core_id;
	int r;

	snprintf(path, sizeof(path), SYS_CPU "/cpu%u/topology/physical_package_id", cpu);
	r = read_long_under(root, path, &ret->pkg);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), SYS_CPU "/cpu%u/topology/thread_siblings_list", cpu);
	r = read_line_under(root, path, &sib);
	if (r == 0)
		return cpu_list_parse(sib, NULL, &ret->core) < 0 ? -EINVAL : 0;
	if (r != -ENOENT)
		return r;
	snprintf(path, sizeof(path), SYS_CPU "/cpu%u/topology/core_id", cpu);
	r = read_long_under(root, path, &core_id);
	if (r < 0)
		return r;
	ret->core = (long)HW_CPU_IDS + core_id; /* apart from sibling-named cores */
	return 0;
}

static int topo_sysfs(const char *root, struct topo_count *ret)
{
	_cleanup_free_ char *online = NULL;
	_cleanup_free_ uint8_t *set = NULL;
	_cleanup_free_ struct cpu_topo *t = NULL;
	size_t n = 0;
	int r, count;

	r = read_line_under(root, SYS_CPU "/online", &online);
	if (r < 0)
		return r;
	set = calloc(HW_CPU_IDS, 1);
	if (!set)
		return -ENOMEM;
	count = cpu_list_parse(online, set, NULL);
	if (count < 0)
		return count;
	t = calloc((size_t)count, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (unsigned cpu = 0; cpu < HW_CPU_IDS && n < (size_t)count; cpu++) {
		if (!set[cpu])
			continue;
		r = cpu_topo_read(root, cpu, &t[n++]);
		if (r < 0)
			return r;
	}
	topo_count_of(t, n, ret);
	return 0;
}

/* "key<blanks>: value" -> value, or NULL when line is not about key. */
static const char *cpuinfo_value(const char *line, const char *key)
{
	size_t len = strlen(key);

	if (strncmp(line, key, len))
		return NULL;
	line += len;
	while (*line == ' ' || *line == '\t')
		line++;
	return *line == ':' ? line + 1 : NULL;
}

/* One record per "processor" line; a CPU without "physical id" is in
 * package 0 and one without "core id" is a core of its own. */
static int topo_cpuinfo(const char *root, struct topo_count *ret)
{
	_cleanup_(fclosep) FILE *f = fopen_under(root, "/proc/cpuinfo");
	_cleanup_free_ struct cpu_topo *t = NULL;
	_cleanup_free_ char *line = NULL;
	size_t n = 0, cap = 0, line_cap = 0;
	const char *v;
	long val;

	if (!f)
		return -errno;
	while (getline(&line, &line_cap, f) >= 0) {
		if (cpuinfo_value(line, "processor")) {
			if (n == HW_CPU_IDS)
				return -E2BIG;
			if (n == cap) {
				struct cpu_topo *nt;

				cap = cap ? 2 * cap : 64;
				nt = realloc(t, cap * sizeof(*t));
				if (!nt)
					return -ENOMEM;
				t = nt;
			}
			t[n] = (struct cpu_topo){ .pkg = 0, .core = (long)HW_CPU_IDS + (long)n };
			n++;
		} else if (n && (v = cpuinfo_value(line, "physical id")) && !parse_long(v, &val)) {
			t[n - 1].pkg = val;
		} else if (n && (v = cpuinfo_value(line, "core id")) && !parse_long(v, &val)) {
			t[n - 1].core = val;
		}
	}
	if (!n)
		return -ENOENT;
	topo_count_of(t, n, ret);
	return 0;
}

static int hw_detect_cpus(struct hw_info *h, const char *root)
{
	struct topo_count c = { 0 };
	long n;

	if (topo_sysfs(root, &c) < 0 && topo_cpuinfo(root, &c) < 0) {
		if (!root_is_real(root) || (n = sysconf(_SC_NPROCESSORS_ONLN)) < 1)
			return -ENOENT;
		/* what slurmd assumes without topology: one core per socket */
		c = (struct topo_count){ .cpus = (unsigned)n, .sockets = (unsigned)n,
					 .cores = (unsigned)n };
	}
	if (!c.sockets)
		c.sockets = 1;
	if (!c.cores)
		c.cores = 1;
	h->cpus = (uint16_t)c.cpus;
	h->boards = 1;
	h->sockets = (uint16_t)c.sockets;
	h->cores_per_socket = (uint16_t)(c.cores / c.sockets ? c.cores / c.sockets : 1);
	h->threads_per_core = (uint16_t)(c.cpus / c.cores ? c.cpus / c.cores : 1);
	return 0;
}

/* slurmd turns the page count into a float before scaling to MiB, which
 * rounds beyond 2^24 pages (64 GiB); doing the same keeps RealMemory
 * identical to `slurmd -C` on large machines. */
static uint64_t pages_to_mb(uint64_t pages, long page_size)
{
	return (uint64_t)((float)pages * ((double)page_size / 1048576.0));
}

static int hw_detect_memory(struct hw_info *h, const char *root)
{
	_cleanup_(fclosep) FILE *f = fopen_under(root, "/proc/meminfo");
	_cleanup_free_ char *line = NULL;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t total_kb = 0;
	size_t cap = 0;
	const char *v;

	if (page <= 0)
		page = 4096;
	while (f && getline(&line, &cap, f) >= 0) {
		if ((v = cpuinfo_value(line, "MemTotal")))
			total_kb = strtoull(v, NULL, 10);
		else if ((v = cpuinfo_value(line, "MemFree")))
			h->free_mem_mb = strtoull(v, NULL, 10) / 1024;
	}
	if (total_kb) {
		h->real_memory_mb = pages_to_mb(total_kb * 1024 / (uint64_t)page, page);
		return 0;
	}
	if (root_is_real(root) && sysconf(_SC_PHYS_PAGES) > 0) {
		h->real_memory_mb = pages_to_mb((uint64_t)sysconf(_SC_PHYS_PAGES), page);
		return 0;
	}
	return -ENOENT;
}

static void hw_detect_boot_time(struct hw_info *h, const char *root)
{
	_cleanup_(fclosep) FILE *f = fopen_under(root, "/proc/stat");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	while (f && getline(&line, &cap, f) >= 0) {
		if (!strncmp(line, "btime ", 6)) {
			h->boot_time = (time_t)strtoll(line + 6, NULL, 10);
			return;
		}
	}
}

/* Second field of /proc/loadavg ("0.18 0.15 0.08 1/89 5289") x 100, read
 * as digits so no float rounding creeps in. */
static void hw_detect_load(struct hw_info *h, const char *root)
{
	_cleanup_free_ char *line = NULL;
	const char *p;
	uint32_t v = 0;

	if (read_line_under(root, "/proc/loadavg", &line) < 0)
		return;
	p = strchr(line, ' ');
	if (!p)
		return;
	for (p++; isdigit((unsigned char)*p) && v < UINT32_MAX / 1000; p++)
		v = v * 10 + (uint32_t)(*p - '0');
	v *= 100;
	if (*p == '.' && isdigit((unsigned char)p[1])) {
		v += 10 * (uint32_t)(p[1] - '0');
		if (isdigit((unsigned char)p[2]))
			v += (uint32_t)(p[2] - '0');
	}
	h->cpu_load_x100 = v;
}

static int hw_detect_uname(struct hw_info *h)
{
	struct utsname u;

	if (uname(&u) < 0)
		return -errno;
	h->arch = strdup(u.machine);
	if (!h->arch || asprintf(&h->os, "%s %s %s", u.sysname, u.release, u.version) < 0) {
		h->os = NULL;
		return -ENOMEM;
	}
	return 0;
}

int hw_tmp_disk_mb(const char *path, uint32_t *ret_mb)
{
	struct statvfs st;
	uint64_t mb;

	*ret_mb = 0;
	if (statvfs(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	mb = (uint64_t)st.f_blocks * st.f_frsize / (1024 * 1024);
	*ret_mb = mb > UINT32_MAX ? UINT32_MAX : (uint32_t)mb;
	return 0;
}

int hw_detect(struct hw_info *ret, const char *root)
{
	_cleanup_(hw_info_done) struct hw_info h = { 0 };
	_cleanup_free_ char *tmp = NULL;
	int r;

	r = hw_detect_cpus(&h, root);
	if (r < 0)
		return r;
	r = hw_detect_memory(&h, root);
	if (r < 0)
		return r;
	r = hw_detect_uname(&h);
	if (r < 0)
		return r;
	hw_detect_boot_time(&h, root);
	hw_detect_load(&h, root);
	if (asprintf(&tmp, "%s/tmp", root ? root : "") < 0) {
		tmp = NULL;
		return -ENOMEM;
	}
	(void)hw_tmp_disk_mb(tmp, &h.tmp_disk_mb); /* best effort, as slurmd */

	*ret = h;
	h = (struct hw_info){ 0 };
	return 0;
}

void hw_info_done(struct hw_info *h)
{
	if (!h)
		return;
	free(h->arch);
	free(h->os);
	*h = (struct hw_info){ 0 };
}

char *hw_node_line_at(const struct hw_info *h, const char *node_name, time_t now)
{
	char host[256];
	uint32_t up = 0;
	char *s;

	if (!node_name) {
		if (gethostname(host, sizeof(host)) < 0)
			snprintf(host, sizeof(host), "localhost");
		host[sizeof(host) - 1] = '\0';
		host[strcspn(host, ".")] = '\0';
		node_name = host;
	}
	if (h->boot_time > 0 && now > h->boot_time)
		up = (uint32_t)(now - h->boot_time);
	if (asprintf(&s,
		     "NodeName=%s CPUs=%u Boards=%u SocketsPerBoard=%u CoresPerSocket=%u "
		     "ThreadsPerCore=%u RealMemory=%" PRIu64 "\n"
		     "UpTime=%u-%02u:%02u:%02u\n",
		     node_name, h->cpus, h->boards,
		     h->boards ? h->sockets / h->boards : h->sockets, h->cores_per_socket,
		     h->threads_per_core, h->real_memory_mb, up / 86400, (up / 3600) % 24,
		     (up / 60) % 60, up % 60) < 0)
		return NULL;
	return s;
}

char *hw_node_line(const struct hw_info *h, const char *node_name)
{
	return hw_node_line_at(h, node_name, time(NULL));
}
