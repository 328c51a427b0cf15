/* sinfo_rec.h - sinfo's output lines ("records"): which nodes share a
 * line, the numbers each line shows, and the order of the lines.
 *
 * Internal to sinfo_fmt.c and sinfo_rec.c (the format engine's two
 * halves); nothing else should include it.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hostlist;
struct node_info;
struct node_info_msg;
struct part_info;
struct part_info_msg;
struct sinfo_opts;

/* One bit per attribute that keeps nodes on separate lines (sinfo's
 * MATCH_FLAG_*), set by the letters the format shows. */
#define M_PART	     (1ull << 0)
#define M_AVAIL	     (1ull << 1)
#define M_TIME	     (1ull << 2)
#define M_DEFTIME    (1ull << 3)
#define M_STATE	     (1ull << 4)
#define M_REASON     (1ull << 5)
#define M_RTIME	     (1ull << 6)
#define M_RUSER	     (1ull << 7)
#define M_FEAT	     (1ull << 8)
#define M_FEAT_ACT   (1ull << 9)
#define M_GRES	     (1ull << 10)
#define M_GRES_USED  (1ull << 11)
#define M_GROUPS     (1ull << 12)
#define M_SIZE	     (1ull << 13)
#define M_ROOT	     (1ull << 14)
#define M_OVERSUB    (1ull << 15)
#define M_PREEMPT    (1ull << 16)
#define M_PTIER	     (1ull << 17)
#define M_PJOB	     (1ull << 18)
#define M_MAXCPU     (1ull << 19)
#define M_CPUS	     (1ull << 20)
#define M_SOCK	     (1ull << 21)
#define M_CORE	     (1ull << 22)
#define M_THREAD     (1ull << 23)
#define M_SCT	     (1ull << 24)
#define M_DISK	     (1ull << 25)
#define M_MEM	     (1ull << 26)
#define M_WEIGHT     (1ull << 27)
#define M_LOAD	     (1ull << 28)
#define M_FREE	     (1ull << 29)
#define M_VERSION    (1ull << 30)
#define M_HOSTS	     (1ull << 31)
#define M_ADDR	     (1ull << 32)
#define M_ALLOCMEM   (1ull << 33)
#define M_PORT	     (1ull << 34)
#define M_COMMENT    (1ull << 35)
#define M_STATE_CMPL (1ull << 36)

/* One output line: a group of nodes of one partition (or of any, -R). */
struct rec {
	const struct part_info *part;
	uint32_t part_inx;
	uint32_t seq;		       /* creation order: the sort's last key */
	const struct node_info *first; /* its strings describe the line */
	struct hostlist *nodes, *addrs, *hosts;
	uint32_t state; /* of the first node, MIXED derived */
	uint32_t n_alloc, n_idle, n_other, n_total;
	uint32_t c_alloc, c_idle, c_other, c_total;
	uint32_t min_cpus, max_cpus, min_disk, max_disk, min_weight, max_weight;
	uint32_t min_load, max_load;
	uint16_t min_sock, max_sock, min_core, max_core, min_thr, max_thr;
	uint64_t min_mem, max_mem, min_free, max_free;
};

struct recs {
	struct rec **v;
	size_t n;
};

/* Build the lines for the attributes in match (M_* bits of the letters
 * shown): filter nodes by the options, group them, sort each line's host
 * lists. On failure returns -EINVAL (bad -n expression) or -ENOMEM; rs
 * holds what was built so far and still needs sinfo_recs_done(). */
int sinfo_rec_build(const struct sinfo_opts *o, uint64_t match, const struct node_info_msg *nm,
		    const struct part_info_msg *pm, struct recs *rs);
/* The filters alone: -n (only, a host list or NULL), -t, -d, -r for a
 * node; -p (or hidden partitions without -a) for a partition. */
bool sinfo_node_wanted(const struct sinfo_opts *o, const struct hostlist *only,
		       const struct node_info *n);
bool sinfo_part_wanted(const struct sinfo_opts *o, const struct part_info *p);

/* Order the lines by -S (default "#P,-t", or "N" with -N); ties keep the
 * order in which the lines were created. */
void sinfo_rec_sort(const struct sinfo_opts *o, struct recs *rs);
/* Free every line and the array; rs is left empty. */
void sinfo_recs_done(struct recs *rs);
