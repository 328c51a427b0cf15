/* read_bounded.h - a whole small file (or what a descriptor gives) read
 * into memory, never more than a bound: the commands' option files
 * (--nodefile, --export-file, --multi-prog) and the stepd's copy of the
 * last.
 */
#pragma once
#include <stddef.h>

/* Read fd until its end or max bytes, whichever comes first, into a
 * malloc'd buffer (NUL-terminated after the bytes read; it may hold NULs
 * of its own). 0 with *ret_buf and *ret_len (may be NULL), -ENOMEM, or
 * -errno of a failed read (nothing returned). fd stays open. */
int read_bounded(int fd, size_t max, char **ret_buf, size_t *ret_len);
