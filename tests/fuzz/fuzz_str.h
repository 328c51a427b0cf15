/* fuzz_str.h - the input of a text target as a C string. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A malloc'd, NUL-terminated copy of the size bytes at data (an embedded
 * NUL ends the text early, as for any C caller); NULL on ENOMEM. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}
