/* proc_stat.c - /proc/<pid>/stat parsing and task attribution, see
 * proc_stat.h.
 *
 * The line is "pid (comm) state ppid pgrp session tty_nr tpgid flags
 * minflt cminflt majflt cmajflt utime stime cutime cstime priority nice
 * num_threads itrealvalue starttime vsize rss ...". comm is at most 15
 * bytes but may contain ") (", so fields are counted from the LAST ')'.
 * /proc/<pid>/status is read only for its Uid line.
 * Caveat: fields are read with strtoll/strtoull; anything past rss is
 * ignored, so newer kernels' extra fields are fine.
 */
#include "proc_stat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Fields after "state", as numbered from ppid: the ones we keep. */
enum {
	F_PPID = 0,
	F_PGRP = 1,
	F_SESSION = 2,
	F_UTIME = 10,
	F_STIME = 11,
	F_START = 18,
	F_VSIZE = 19,
	F_RSS = 20,
	F_COUNT = 21,
};

/* One decimal field (optionally signed) followed by a space, newline or
 * the end; *p moves past it. */
static bool next_field(const char **p, long long *ret)
{
	const char *s = *p;
	char *end;
	long long v;

	if (*s != ' ')
		return false;
	s++;
	if (*s != '-' && (*s < '0' || *s > '9'))
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || (*end != ' ' && *end != '\n' && *end != '\0'))
		return false;
	*ret = v;
	*p = end;
	return true;
}

static uint64_t non_negative(long long v)
{
	return v < 0 ? 0 : (uint64_t)v;
}

int proc_stat_parse(const char *line, struct proc_stat *ret)
{
	long long f[F_COUNT], pid;
	const char *open, *close, *p;
	char *end;

	if (!line)
		return -EINVAL;
	open = strchr(line, '(');
	close = strrchr(line, ')');
	if (!open || !close || close < open)
		return -EINVAL;
	errno = 0;
	pid = strtoll(line, &end, 10);
	if (errno || end == line || *end != ' ' || end + 1 != open || pid <= 0)
		return -EINVAL;
	/* ") S": one space, a state letter, then the numbers */
	if (close[1] != ' ' || !close[2] || close[2] == ' ' || close[2] == '\n')
		return -EINVAL;
	p = close + 3;
	for (int i = 0; i < F_COUNT; i++)
		if (!next_field(&p, &f[i]))
			return -EINVAL;
	*ret = (struct proc_stat){
	    .pid = (pid_t)pid,
	    .ppid = (pid_t)f[F_PPID],
	    .pgrp = (pid_t)f[F_PGRP],
	    .session = (pid_t)f[F_SESSION],
	    .utime = non_negative(f[F_UTIME]),
	    .stime = non_negative(f[F_STIME]),
	    .start = non_negative(f[F_START]),
	    .vsize = non_negative(f[F_VSIZE]),
	    .rss = non_negative(f[F_RSS]),
	};
	return 0;
}

/* The start of /proc/<pid>/<name>, NUL-terminated, in buf (one read: what
 * we parse is in its first lines). */
static int proc_read(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	return 0;
}

int proc_stat_read(pid_t pid, struct proc_stat *ret)
{
	char buf[1024];
	int r = proc_read(pid, "stat", buf, sizeof(buf));

	return r < 0 ? r : proc_stat_parse(buf, ret);
}

/* One unsigned decimal uid and the whitespace before it; *p moves past it. */
static bool next_uid(const char **p, uid_t *ret)
{
	const char *s = *p;
	unsigned long long v;
	char *end;

	if (*s != ' ' && *s != '\t')
		return false;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v > UINT32_MAX)
		return false;
	*ret = (uid_t)v;
	*p = end;
	return true;
}

int proc_status_parse_uids(const char *text, uid_t *ret_real, uid_t *ret_saved)
{
	const char *p = text;
	uid_t u[3];

	while (p && strncmp(p, "Uid:", 4) != 0) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (!p)
		return -EINVAL;
	p += 4;
	for (int i = 0; i < 3; i++) /* real, effective, saved */
		if (!next_uid(&p, &u[i]))
			return -EINVAL;
	*ret_real = u[0];
	*ret_saved = u[2];
	return 0;
}

int proc_status_read_uids(pid_t pid, uid_t *ret_real, uid_t *ret_saved)
{
	char buf[4096];
	int r = proc_read(pid, "status", buf, sizeof(buf));

	return r < 0 ? r : proc_status_parse_uids(buf, ret_real, ret_saved);
}

int proc_entry_cmp(const void *a, const void *b)
{
	const struct proc_entry *x = a, *y = b;

	return (x->st.pid > y->st.pid) - (x->st.pid < y->st.pid);
}

size_t proc_entry_inherit(struct proc_entry *v, size_t n, pid_t self)
{
	size_t count = 0;
	bool is_changed = true;

	/* Each pass attributes at least one more generation; a pid sorted
	 * before its parent (pid wrap) just needs one more pass. */
	while (is_changed) {
		is_changed = false;
		for (size_t i = 0; i < n; i++) {
			struct proc_entry key = {.st.pid = v[i].st.ppid}, *parent;

			if (v[i].task >= 0 || v[i].st.pid == self)
				continue;
			parent = bsearch(&key, v, n, sizeof(*v), proc_entry_cmp);
			if (parent && parent->task >= 0 && parent->st.pid != self
			    && parent->st.start <= v[i].st.start) {
				v[i].task = parent->task;
				count++;
				is_changed = true;
			}
		}
	}
	return count;
}
