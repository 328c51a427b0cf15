/* parse_mem.h - memory sizes as Slurm reads and prints them. */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* "100", "100M", "4G", "2T", "512K" (any case, optional trailing B) -> MB;
 * K rounds up. -EINVAL on bad input, negative numbers or other suffixes. */
int mem_str2mb(const char *s, uint64_t *ret_mb);
/* MB -> "4000M" style as TRES strings print (largest exact unit: "4G"
 * when divisible by 1024? see .c and the reference: CfgTRES prints
 * mem=4000M, and mem=16000M). */
char *mem_mb2str(uint64_t mb, char *buf, size_t n);
