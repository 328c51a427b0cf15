/* sl_errno.c - the text of every error code users can see.
 *
 * The table is generated from SL_ERRNO_LIST in sl_errno.h, so the enum
 * and the texts cannot drift apart. Lookup is a binary search; the unit
 * test checks that the list is sorted and has no duplicates.
 * Caveat: values below 1000 are errno values and use the C library's text,
 * which is what Slurm prints for them too.
 */
#include "sl_errno.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macros.h"

struct sl_errno_entry {
	int code;
	const char *text;
};

#define SL_ERRNO_ROW_(name, num, text) {num, text},
static const struct sl_errno_entry sl_errno_table[] = {SL_ERRNO_LIST(SL_ERRNO_ROW_)};
#undef SL_ERRNO_ROW_

#define SL_ERRNO_CODE_(name, num, text) num,
const int sl_errno_codes[] = {SL_ERRNO_LIST(SL_ERRNO_CODE_)};
#undef SL_ERRNO_CODE_
const unsigned sl_errno_codes_len = ARRAY_SIZE(sl_errno_codes);

_Static_assert(ARRAY_SIZE(sl_errno_codes) == ARRAY_SIZE(sl_errno_table),
	       "sl_errno_codes[] and sl_errno_table[] come from the same list");

static int entry_cmp(const void *key, const void *elem)
{
	int code = *(const int *)key;
	const struct sl_errno_entry *e = elem;

	return (code > e->code) - (code < e->code);
}

const char *sl_strerror(int code)
{
	static __thread char unknown[32];
	const struct sl_errno_entry *e;
	long n = code < 0 ? -(long)code : (long)code; /* INT_MIN safe */

	if (n == 0)
		return "No error";
	if (n < 1000)
		return strerror((int)n);
	if (n <= 0x7fffffffL) {
		int key = (int)n;

		e = bsearch(&key, sl_errno_table, ARRAY_SIZE(sl_errno_table), sizeof(*e),
			    entry_cmp);
		if (e)
			return e->text;
	}
	snprintf(unknown, sizeof(unknown), "Unknown error %ld", n);
	return unknown;
}
