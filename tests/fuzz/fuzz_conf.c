/* fuzz_conf.c - libFuzzer target: the input is a slurm.conf. Parsing must
 * never crash or leak, and a failure always carries file:line text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/fuzz_conf_XXXXXX";
	struct sl_error err = { { 0 } };
	struct sl_conf *c = NULL;
	int fd = mkstemp(path);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	if (conf_load(path, &c, &err) == 0)
		conf_free(c);
	else if (strncmp(err.text, path, strlen(path)) != 0)
		abort(); /* every error names the file */
	unlink(path);
	return 0;
}
