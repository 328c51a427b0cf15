/* fuzz_stepd_proto.c - libFuzzer target: the private slurmd <-> stepd
 * protocol (common/stepd_proto.h) as the stepd reads it:
 * a launch frame on its stdin and a control request on its unix socket
 * (frame_read with their caps and types), and the same frame as slurmd
 * reads a ".done" completion file. The bytes are written to a pipe the
 * reader reads with a zero timeout. The first byte picks the reader.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/limits.h"
#include "common/msg.h"
#include "common/stepd_proto.h"
#include "slurmd/slurmstepd/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PIPE_CAP (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t launch[] = {REQUEST_BATCH_JOB_LAUNCH, REQUEST_LAUNCH_TASKS};
	static const uint16_t done[] = {REQUEST_COMPLETE_BATCH_SCRIPT, REQUEST_STEP_COMPLETE};
	uint16_t type = 0;
	void *msg = NULL;
	int p[2], r;

	if (size < 1 || size > PIPE_CAP)
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		abort();
	if (fcntl(p[1], F_SETPIPE_SZ, PIPE_CAP) < 0
	    || write(p[1], data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	close(p[1]);
	switch (data[0] % 3) {
	case 0:
		r = frame_read(p[0], SL_FRAME_MAX_DEFAULT, 0, launch, 2, &type, &msg);
		break;
	case 1:
		r = frame_read(p[0], STEPD_CTL_BODY_MAX, 0, NULL, 0, &type, &msg);
		break;
	default:
		r = frame_read(p[0], SL_FRAME_MAX_DEFAULT, 0, done, 2, &type, &msg);
	}
	if (r == 0)
		msg_free(msg_lookup(type), msg);
	close(p[0]);
	return 0;
}
