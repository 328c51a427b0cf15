/* fuzz_conf.c - libFuzzer target: the input is a slurm.conf. Parsing must
 * never crash or leak, and a failure always carries file:line text.
 * The file lies alone in a private directory, so a relative Include finds
 * nothing but itself (what else lies in /tmp must not change a run); an
 * error may name an absolute path the input included (/etc/passwd:1:).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include "common/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* "/abs/path:LINE: ..." - an error inside a file the input included. */
static int names_file(const char *t)
{
	const char *p;

	if (t[0] != '/')
		return 0;
	for (p = strchr(t, ':'); p; p = strchr(p + 1, ':')) {
		const char *q = p + 1;

		while (*q >= '0' && *q <= '9')
			q++;
		if (q > p + 1 && *q == ':')
			return 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[] = "/tmp/fuzz_conf_XXXXXX", path[64];
	struct sl_error err = { { 0 } };
	struct sl_conf *c = NULL;
	int fd;

	if (!mkdtemp(dir))
		return 0;
	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd >= 0 && write(fd, data, size) == (ssize_t)size) {
		close(fd);
		if (conf_load(path, &c, &err) == 0)
			conf_free(c);
		else if (strncmp(err.text, path, strlen(path)) != 0 && !names_file(err.text))
			abort(); /* every error names the file and line */
	} else if (fd >= 0) {
		close(fd);
	}
	unlink(path);
	rmdir(dir);
	return 0;
}
