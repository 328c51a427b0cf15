/* log.c - the process-wide logger (one of the globals R2 allows).
 *
 * Purpose: format a message once, prefix it the way Slurm does for the
 * kind of program (daemon timestamp or CLI name), and write it as one line.
 * Owns: the log file descriptor and its path, behind one mutex; the
 * accounting thread logs too.
 * Caveat: fatal() exits without flushing other subsystems; callers that
 * must save state do so before calling it.
 */
#include "log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "sl_errno.h"

#define LOG_LINE_STACK 1024 /* longer lines go through malloc */

static const char *const log_level_names[] = {
    [LOG_LEVEL_QUIET] = "quiet",   [LOG_LEVEL_FATAL] = "fatal",	    [LOG_LEVEL_ERROR] = "error",
    [LOG_LEVEL_INFO] = "info",	   [LOG_LEVEL_VERBOSE] = "verbose", [LOG_LEVEL_DEBUG] = "debug",
    [LOG_LEVEL_DEBUG2] = "debug2", [LOG_LEVEL_DEBUG3] = "debug3",   [LOG_LEVEL_DEBUG4] = "debug4",
    [LOG_LEVEL_DEBUG5] = "debug5",
};
_Static_assert(ARRAY_SIZE(log_level_names) == _LOG_LEVEL_MAX,
	       "log_level_names[] must name every log_level");

/* What Slurm puts in front of the text at each level. */
static const char *const log_level_prefix[] = {
    [LOG_LEVEL_QUIET] = "",	     [LOG_LEVEL_FATAL] = "fatal: ",
    [LOG_LEVEL_ERROR] = "error: ",   [LOG_LEVEL_INFO] = "",
    [LOG_LEVEL_VERBOSE] = "",	     [LOG_LEVEL_DEBUG] = "debug:  ",
    [LOG_LEVEL_DEBUG2] = "debug2: ", [LOG_LEVEL_DEBUG3] = "debug3: ",
    [LOG_LEVEL_DEBUG4] = "debug4: ", [LOG_LEVEL_DEBUG5] = "debug5: ",
};
_Static_assert(ARRAY_SIZE(log_level_prefix) == _LOG_LEVEL_MAX,
	       "log_level_prefix[] must cover every log_level");

static struct {
	pthread_mutex_t lock;
	char prog[64];
	enum log_level level;
	char *path; /* NULL: stderr */
	int fd;	    /* -1: stderr */
	bool is_daemon;
} logger = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .level = LOG_LEVEL_INFO,
    .fd = -1,
};

static int open_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);

	return fd < 0 ? -errno : fd;
}

int log_init(const char *prog, enum log_level level, const char *file, int is_daemon)
{
	char *path = NULL;
	int fd = -1;

	if (file) {
		path = strdup(file);
		if (!path)
			return -ENOMEM;
		fd = open_log(file);
		if (fd < 0) {
			free(path);
			return fd;
		}
	}
	pthread_mutex_lock(&logger.lock);
	if (prog)
		snprintf(logger.prog, sizeof(logger.prog), "%s", prog);
	logger.level = level;
	logger.is_daemon = is_daemon != 0;
	if (logger.fd >= 0)
		close(logger.fd);
	free(logger.path);
	logger.fd = fd;
	logger.path = path;
	pthread_mutex_unlock(&logger.lock);
	return 0;
}

void log_fini(void)
{
	pthread_mutex_lock(&logger.lock);
	if (logger.fd >= 0)
		close(logger.fd);
	free(logger.path);
	logger.fd = -1;
	logger.path = NULL;
	logger.prog[0] = '\0';
	logger.level = LOG_LEVEL_INFO;
	logger.is_daemon = false;
	pthread_mutex_unlock(&logger.lock);
}

int log_reopen(void)
{
	int fd, r = 0;

	pthread_mutex_lock(&logger.lock);
	if (logger.path) {
		fd = open_log(logger.path);
		if (fd < 0) {
			r = fd;
		} else {
			if (logger.fd >= 0)
				close(logger.fd);
			logger.fd = fd;
		}
	}
	pthread_mutex_unlock(&logger.lock);
	return r;
}

void log_set_level(enum log_level level)
{
	pthread_mutex_lock(&logger.lock);
	logger.level = level;
	pthread_mutex_unlock(&logger.lock);
}

enum log_level log_get_level(void)
{
	enum log_level level;

	pthread_mutex_lock(&logger.lock);
	level = logger.level;
	pthread_mutex_unlock(&logger.lock);
	return level;
}

int log_level_from_string(const char *s)
{
	if (!s || !*s)
		return -EINVAL;
	if (isdigit((unsigned char)s[0]) && s[1] == '\0')
		return s[0] - '0' < _LOG_LEVEL_MAX ? s[0] - '0' : -EINVAL;
	for (int i = 0; i < _LOG_LEVEL_MAX; i++)
		if (strcaseeq(s, log_level_names[i]))
			return i;
	return -EINVAL;
}

const char *log_level_to_string(enum log_level level)
{
	if ((int)level < 0 || level >= _LOG_LEVEL_MAX)
		return NULL;
	return log_level_names[level];
}

/* "2026-12-02T08:52:03.123" in local time. */
static void timestamp(char *buf, size_t n)
{
	struct timespec ts;
	struct tm tm;
	char sec[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(sec, sizeof(sec), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03ld", sec, ts.tv_nsec / 1000000);
}

static void write_all(int fd, const char *s, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, s, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* nowhere left to report it */
		s += w;
		len -= (size_t)w;
	}
}

static bool log_byte_is_plain(unsigned char c)
{
	return (c >= 0x20 && c != 0x7f) || c == '\t';
}

size_t log_escape(char *dst, size_t dstlen, const char *src, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0, out = 0; /* needed; written to dst */
	bool is_full = !dst || !dstlen;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)src[i];
		size_t w = log_byte_is_plain(c) ? 1 : 4;

		n += w;
		if (is_full || out + w >= dstlen) {
			is_full = true; /* stop at a whole character: no half escape */
			continue;
		}
		if (w == 1) {
			dst[out++] = (char)c;
			continue;
		}
		dst[out++] = '\\';
		dst[out++] = 'x';
		dst[out++] = hex[c >> 4];
		dst[out++] = hex[c & 0xf];
	}
	if (dst && dstlen)
		dst[out] = '\0';
	return n;
}

/* Build "<head><prefix><text>\n" and write it; caller holds the lock.
 * The text's control bytes are written as \xNN: whatever a message quotes
 * (a request's path, a job name) cannot start a line of its own. */
static void emit_locked(enum log_level level, const char *text, size_t len)
{
	char head[80], stack[LOG_LINE_STACK];
	_cleanup_free_ char *heap = NULL;
	char *line = stack;
	const char *pfx = log_level_prefix[level];
	size_t total, hlen, elen;
	int fd = logger.fd >= 0 ? logger.fd : STDERR_FILENO;

	if (logger.is_daemon) {
		char ts[48];

		timestamp(ts, sizeof(ts));
		snprintf(head, sizeof(head), "[%s] ", ts);
	} else {
		snprintf(head, sizeof(head),
			 "%s: ", logger.prog[0] ? logger.prog : program_invocation_short_name);
		fflush(stdout); /* keep stdout and stderr in the order written */
	}
	if (len > 0 && text[len - 1] == '\n')
		len--; /* Slurm accepts messages that end in a newline */
	elen = log_escape(NULL, 0, text, len);
	hlen = strlen(head) + strlen(pfx);
	total = hlen + elen + 1;
	if (total >= sizeof(stack)) {
		heap = malloc(total + 1);
		if (!heap)
			return;
		line = heap;
	}
	snprintf(line, hlen + 1, "%s%s", head, pfx);
	log_escape(line + hlen, elen + 1, text, len);
	line[hlen + elen] = '\n';
	write_all(fd, line, total);
}

void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	char stack[LOG_LINE_STACK];
	_cleanup_free_ char *heap = NULL;
	const char *text = stack;
	va_list aq;
	int n;

	if (level <= LOG_LEVEL_QUIET || level >= _LOG_LEVEL_MAX || level > log_get_level())
		return;
	va_copy(aq, ap);
	n = vsnprintf(stack, sizeof(stack), fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(stack)) {
		heap = malloc((size_t)n + 1);
		if (!heap)
			return;
		vsnprintf(heap, (size_t)n + 1, fmt, ap);
		text = heap;
	}
	pthread_mutex_lock(&logger.lock);
	emit_locked(level, text, (size_t)n);
	pthread_mutex_unlock(&logger.lock);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

int log_errno(int r, const char *fmt, ...)
{
	char stack[LOG_LINE_STACK];
	_cleanup_free_ char *heap = NULL;
	const char *text = stack;
	va_list ap;
	int n;

	if (log_get_level() < LOG_LEVEL_ERROR)
		return r;
	va_start(ap, fmt);
	n = vsnprintf(stack, sizeof(stack), fmt, ap);
	va_end(ap);
	if (n < 0)
		return r;
	if ((size_t)n >= sizeof(stack)) {
		heap = malloc((size_t)n + 1);
		if (!heap)
			return r;
		va_start(ap, fmt);
		vsnprintf(heap, (size_t)n + 1, fmt, ap);
		va_end(ap);
		text = heap;
	}
	log_msg(LOG_LEVEL_ERROR, "%s: %s", text, sl_strerror(r));
	return r;
}
