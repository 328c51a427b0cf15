/* render.h - helpers the printing tests share: a renderer's output as a
 * string, compared and freed, and a UTC time. Include after cmocka.h. */
#pragma once
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Run one call writing to FILE *out into a string (malloc'd). */
#define RENDER(call)                                                                               \
	({                                                                                         \
		char *buf_ = NULL;                                                                 \
		size_t len_ = 0;                                                                   \
		FILE *out = open_memstream(&buf_, &len_);                                          \
		assert_non_null(out);                                                              \
		call;                                                                              \
		fclose(out);                                                                       \
		buf_;                                                                              \
	})

/* got (freed) must be want. */
static inline void check_render(char *got, const char *want)
{
	assert_string_equal(got, want);
	free(got);
}

static inline time_t utc(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = {.tm_year = y - 1900,
			.tm_mon = mo - 1,
			.tm_mday = d,
			.tm_hour = h,
			.tm_min = mi,
			.tm_sec = s};

	return timegm(&tm);
}
