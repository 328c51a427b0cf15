/* parse_mem.h - memory sizes as Slurm 22.05 reads and prints them. */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* Slurm's str_to_mbytes: digits, then optionally one unit letter K, M, G
 * or T (any case), which may be followed by one 'B' or 'b'. No unit means
 * MB; K is divided by 1024 rounding up ("1K" -> 1), G multiplies by 1024,
 * T by 1024*1024. "0" is valid (--mem=0 means all memory of a node).
 * Returns 0, or -EINVAL for NULL, "", a sign, spaces, a bare "B", any other
 * suffix or trailing text, or a result above INT64_MAX; *ret_mb is
 * untouched on failure. */
int mem_str2mb(const char *s, uint64_t *ret_mb);

/* MB -> text as TRES strings and scontrol's MinMemory* print it (Slurm's
 * convert_num_unit(UNIT_MEGA, CONVERT_NUM_UNIT_EXACT)): the unit is raised
 * while the value is at least 1024 and a multiple of 512, so halves count
 * as exact: 400 -> "400M", 4000 -> "4000M", 16000 -> "16000M",
 * 1024 -> "1G", 1536 -> "1.50G", 2048 -> "2G", 1048576 -> "1T"; 0 -> "0"
 * (no unit). Units go M, G, T, P, then '?'. NO_VAL64/INFINITE64 are not
 * special: callers print their own word for them. Writes buf (size n,
 * truncating like snprintf) and returns buf. */
char *mem_mb2str(uint64_t mb, char *buf, size_t n);
