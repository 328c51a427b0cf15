/* hw_detect.h - this machine's hardware as slurmd reports it (slurmd -C,
 * node registration): CPU topology, memory, TmpDisk, boot time, load.
 *
 * Every file is read under a path prefix (root) so tests can point the
 * detector at a fake sysfs/proc tree; arch and os always come from uname().
 * Nothing here logs or keeps state.
 */
#pragma once
#include <stdint.h>
#include <time.h>

struct hw_info {
	char *arch;                /* uname machine, "x86_64" */
	char *os;                  /* "Linux <release> <version>" as scontrol shows OS= */
	uint16_t cpus;             /* online logical CPUs */
	uint16_t boards;           /* always 1 on Linux */
	uint16_t sockets;          /* total (Boards x SocketsPerBoard), packages with online CPUs */
	uint16_t cores_per_socket; /* cores with online CPUs / sockets */
	uint16_t threads_per_core; /* cpus / cores */
	uint64_t real_memory_mb;   /* MemTotal in MiB, rounded as slurmd does */
	uint32_t tmp_disk_mb;      /* size of the TmpFS file system (default /tmp); 0 if absent */
	time_t boot_time;          /* /proc/stat btime; 0 if unknown */
	uint32_t cpu_load_x100;    /* 5-minute load average x 100 (slurmd's CPULoad) */
	uint64_t free_mem_mb;      /* MemFree in MiB (slurmd's FreeMem in 22.05) */
};

/* Detect hardware under root ("" or NULL for the real machine). Topology
 * comes from /sys/devices/system/cpu (online CPUs only), falling back to
 * /proc/cpuinfo; memory from /proc/meminfo; boot time from /proc/stat;
 * load from /proc/loadavg; TmpDisk from statvfs(root + "/tmp").
 * Returns 0, -ENOENT when neither the CPU count nor MemTotal can be found
 * (on the real machine sysconf() fills in for missing files), -ENOMEM.
 * Boot time, load, free memory and TmpDisk are best effort (0 if unknown).
 * *ret is untouched on failure; release it with hw_info_done(). */
int hw_detect(struct hw_info *ret, const char *root);

/* Free the strings in h and zero it; NULL-safe, idempotent. */
void hw_info_done(struct hw_info *h);

/* The two lines `slurmd -C` prints, each ending in '\n':
 * "NodeName=n1 CPUs=4 Boards=1 SocketsPerBoard=1 CoresPerSocket=4
 * ThreadsPerCore=1 RealMemory=7937\nUpTime=0-01:23:45\n" (one line up to
 * RealMemory). node_name NULL uses the short host name. malloc'd; NULL on
 * ENOMEM. */
char *hw_node_line(const struct hw_info *h, const char *node_name);

/* Size of the file system holding path in MiB (f_blocks x f_frsize), for a
 * TmpFS set in slurm.conf. A missing path gives 0 and returns 0, as
 * slurmd does; other statvfs() failures return -errno with *ret_mb = 0. */
int hw_tmp_disk_mb(const char *path, uint32_t *ret_mb);

/* --- exposed for unit tests --- */

/* hw_node_line() with the clock given: UpTime = now - h->boot_time. */
char *hw_node_line_at(const struct hw_info *h, const char *node_name, time_t now);
