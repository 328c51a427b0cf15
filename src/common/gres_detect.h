/* gres_detect.h - the GRES a node has according to its gres.conf lines,
 * as slurmd reports them ("gpu:4", "gpu:a100:2,gpu:v100:2"), with each
 * File= device checked for existence.
 *
 * A line applies when its NodeName= host list holds the node (no NodeName=
 * means every node). Lines with the same Name and Type add up. Missing
 * device files are not an error here: they are listed, and the caller
 * decides (slurmd waits for them and then refuses to start).
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

struct gres_conf;
struct sl_error;

struct gres_detect {
	char *gres;           /* "gpu:a100:2,gpu:v100:2"; "" when the node has none */
	char **missing;       /* File= paths that do not exist, NULL-terminated */
	size_t missing_count;
};

/* Build the GRES string of node_name from n gres.conf entries.
 * Count: for a line with File=, the number of its files that exist (for
 * "mps" and "shard" the line's Count, since their files are the GPUs they
 * share); without File=, the line's Count. Output groups by Name in order
 * of first appearance, then by Type in order of first appearance; totals
 * of 0 are left out. Returns 0; -EINVAL with err->text when a NodeName= or
 * File= expression is malformed or Count= disagrees with the number of
 * files; -ENOMEM. *ret is set only on success; free with
 * gres_detect_done(). */
int gres_detect(const struct gres_conf *conf, size_t n, const char *node_name,
		struct gres_detect *ret, struct sl_error *err);

/* Free ret's contents and zero it; NULL-safe, idempotent. */
void gres_detect_done(struct gres_detect *d);

/* Total count of GRES name in a Gres= string ("gpu:4", "gpu:a100:2,gpu:v100:2",
 * "gpu" = 1, "gpu:a100:1K" = 1024); 0 when absent or malformed. */
uint64_t gres_count(const char *gres, const char *name);

/* Cores= lists: "0-3,8" -> bits 0-3 and 8 (NULL ret: check only).
 * 0, or -EINVAL when malformed or a core is GRES_CORES_MAX or more. */
#define GRES_CORES_MAX 64
int gres_cores_mask(const char *list, uint64_t *ret);

/* The cores nearest each GPU of node_name, in the index order of
 * gres_gpu_files() (its line's Cores=; 0 when the line gives none):
 * ret[0..*ret_n), at most max. 0 or -EINVAL. */
int gres_gpu_cores(const struct gres_conf *conf, size_t n, const char *node_name, uint64_t *ret,
		   size_t max, size_t *ret_n);

/* The GPU device files of node_name in index order (GPU i of the node is
 * file i: the order of its Name=gpu lines, then of each File= list), as
 * a NULL-terminated malloc'd array (NULL with *ret_n 0 when none).
 * Returns 0 or -ENOMEM. */
int gres_gpu_files(const struct gres_conf *conf, size_t n, const char *node_name,
		   char ***ret, size_t *ret_n);
