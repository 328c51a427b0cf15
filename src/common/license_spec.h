/* license_spec.h - license lists as slurm.conf's Licenses= and a job's
 * -L/--licenses write them: "name[:count][,name[:count]]..." (a count of
 * one when left out). Slurm 22.05 also reads "name*count"; so do we.
 */
#pragma once
#include <stdint.h>

#define LICENSE_NAME_MAX  64  /* bytes of one name */
#define LICENSE_LIST_MAX  128 /* names in one list */
#define LICENSE_COUNT_MAX 100000000u

struct license_item {
	char name[LICENSE_NAME_MAX + 1];
	uint32_t count;
};

/* Parse s into *ret (malloc'd, *ret_n items; free()). A name given twice
 * has its counts added. 0, -EINVAL (empty list, empty or too long name,
 * a name with a character outside [A-Za-z0-9_.@+-], a count that is not a
 * number in 1..LICENSE_COUNT_MAX, or 0 when is_zero_ok, too many names) or
 * -ENOMEM. is_zero_ok: a count of 0 is allowed (slurm.conf). */
int license_spec_parse(const char *s, int is_zero_ok, struct license_item **ret, uint32_t *ret_n);
