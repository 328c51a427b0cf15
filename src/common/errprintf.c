/* errprintf.c - fill a struct sl_error and hand back the code (R9).
 *
 * Caveat: the text is truncated silently at sizeof(e->text); messages are
 * one line and short, and a cut message still starts with "file:line:".
 */
#include "errprintf.h"

#include <stdarg.h>
#include <stdio.h>

int errprintf(struct sl_error *e, int r, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return r;
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	return r;
}
