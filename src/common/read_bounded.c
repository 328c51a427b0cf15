/* read_bounded.c - see read_bounded.h. */
#include "read_bounded.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

int read_bounded(int fd, size_t max, char **ret_buf, size_t *ret_len)
{
	char *buf = malloc(max + 1);
	size_t len = 0;

	if (!buf)
		return -ENOMEM;
	while (len < max) {
		ssize_t k = read(fd, buf + len, max - len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int r = -errno;

			free(buf);
			return r;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	buf[len] = '\0';
	*ret_buf = buf;
	if (ret_len)
		*ret_len = len;
	return 0;
}
