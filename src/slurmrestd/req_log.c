/* req_log.c - rate-limited request log lines; see req_log.h. Called from
 * the workers and the loop, so the window is behind a mutex. */
#include "req_log.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <time.h>

static struct {
	pthread_mutex_t lock;
	time_t sec;	  /* monotonic second of the window */
	unsigned lines;	  /* written in it */
	unsigned dropped; /* not written since the last summary */
} win = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Whether a line may be written now; *ret_dropped: lines to report first. */
static bool req_log_take(unsigned *ret_dropped)
{
	struct timespec ts;
	bool ok;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	pthread_mutex_lock(&win.lock);
	*ret_dropped = 0;
	if (ts.tv_sec != win.sec) {
		win.sec = ts.tv_sec;
		win.lines = 0;
		*ret_dropped = win.dropped;
		win.dropped = 0;
	}
	ok = win.lines < REQ_LOG_BURST;
	if (ok)
		win.lines++;
	else
		win.dropped++;
	pthread_mutex_unlock(&win.lock);
	return ok;
}

void req_log(enum log_level level, const char *fmt, ...)
{
	unsigned dropped;
	va_list ap;

	if (level > log_get_level())
		return;
	if (!req_log_take(&dropped))
		return;
	if (dropped)
		error("%u more request log lines were not logged (at most %u a second)", dropped,
		      REQ_LOG_BURST);
	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}
