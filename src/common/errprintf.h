/* errprintf.h - user-facing error text that travels in a struct (R9).
 *
 * A failing function fills struct sl_error and returns its negative code in
 * one statement: return errprintf(err, -EINVAL, "%s:%u: ...", file, line);
 * The text is for the person who wrote the input; daemons log it once.
 */
#pragma once

struct sl_error {
	char text[512];
};

/* Format into e->text (truncated to fit; e may be NULL) and return r. */
int errprintf(struct sl_error *e, int r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
