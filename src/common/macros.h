/* macros.h - small language helpers used everywhere: array size, scope
 * cleanup (_cleanup_), ownership transfer (TAKE_PTR/TAKE_FD).
 */
#pragma once
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)

/* Return the pointer and leave NULL behind, handing ownership out. */
#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		__typeof__(p) _tp = (p);                                                           \
		(p) = NULL;                                                                        \
		_tp;                                                                               \
	})
#define TAKE_FD(fd)                                                                                \
	({                                                                                         \
		int _tf = (fd);                                                                    \
		(fd) = -1;                                                                         \
		_tf;                                                                               \
	})

/* DEFINE_FREEP(struct foo, foo_free) makes foo_freep() for _cleanup_. */
#define DEFINE_FREEP(type, fn)                                                                     \
	static inline void fn##p(type **p)                                                         \
	{                                                                                          \
		if (*p)                                                                            \
			fn(*p);                                                                    \
	}

/* strdup that passes NULL through: NULL for NULL (and on ENOMEM; callers
 * that must tell the two apart check the source). */
static inline char *sdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

#define streq(a, b) (strcmp((a), (b)) == 0)
#define strcaseeq(a, b) (strcasecmp((a), (b)) == 0)

/* Slurm's sentinel values, kept because they travel in messages. */
#define NO_VAL 0xfffffffeu
#define INFINITE 0xffffffffu
#define NO_VAL16 ((uint16_t)0xfffe)
#define INFINITE16 ((uint16_t)0xffff)
#define NO_VAL64 0xfffffffffffffffeull
#define INFINITE64 0xffffffffffffffffull
