/* conf_show.h - the key/value list "scontrol show config" prints.
 *
 * slurmctld answers REQUEST_BUILD_INFO with these pairs; scontrol prints
 * them as "%-23s = %s". Keys, order and value wording are Slurm 22.05's
 * ("10 sec", "(null)", "Yes"/"No", its defaults for keys the file lacks).
 */
#pragma once
#include <stdint.h>
#include <time.h>

struct key_pair;
struct sl_conf;

/* Build the ordered pairs for configuration c; boot_time is the
 * controller's start (BOOT_TIME). NEXT_JOB_ID is given FirstJobId: the
 * controller overwrites it with conf_show_set(). A NULL value prints
 * "(null)". On success *ret (owned, free with conf_show_pairs_free) and
 * *ret_n are set; returns -ENOMEM otherwise, outputs untouched. */
int conf_show_pairs(const struct sl_conf *c, time_t boot_time, struct key_pair **ret,
		    uint32_t *ret_n);

/* Replace the value of key (exact spelling) with a copy of value.
 * Returns 0, -ENOENT when the key is not in the list, or -ENOMEM. */
int conf_show_set(struct key_pair *pairs, uint32_t n, const char *key, const char *value);

/* Free pairs and their strings; NULL-safe. */
void conf_show_pairs_free(struct key_pair *pairs, uint32_t n);
