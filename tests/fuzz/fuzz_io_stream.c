/* fuzz_io_stream.c - libFuzzer target: the task I/O stream between srun
 * and its slurmstepds (common/io_proto.h), both ways. The first byte:
 * bit 0 picks the direction, the rest the chunk size the bytes arrive in.
 *   srun -> stepd: the stepd's parser (step_io_frames_in) on a step of
 *     three tasks whose stdin are pipes, the bytes accumulated as
 *     step_io_read_srun does; a bad frame closes the connection.
 *   stepd -> srun: srun's line assembly and -l labels (srun_out_feed) on
 *     the IO_STDOUT/IO_STDERR payloads of each task.
 * Nothing may crash, leak, over-read or keep more than one frame back.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/srun_out.h"
#include "common/io_proto.h"
#include "common/log.h"
#include "slurmd/slurmstepd/step.h"
#include "slurmd/slurmstepd/step_io.h"
#include "slurmd/slurmstepd/stepd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NTASKS 3
#define RD_CAP (IO_HDR_LEN + IO_PAYLOAD_MAX)

static void to_stepd(const uint8_t *data, size_t size, size_t chunk)
{
	static const uint32_t gtids[NTASKS] = {4, 5, 6};
	struct stepd s = {.job_id = 1, .step_id = 0, .has_exited = true};
	int readers[NTASKS];
	uint8_t *rd = malloc(RD_CAP);
	size_t off = 0, rd_len = 0;

	if (!rd || step_new(&s, NTASKS, gtids) < 0)
		abort();
	for (int i = 0; i < NTASKS; i++) {
		int p[2];

		if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
			abort();
		readers[i] = p[0];
		s.step->tasks[i].in_fd = p[1];
	}
	s.step->io_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	while (off < size && s.step->io_fd >= 0) {
		size_t n = size - off < chunk ? size - off : chunk, used;

		if (n > RD_CAP - rd_len)
			n = RD_CAP - rd_len;
		memcpy(rd + rd_len, data + off, n);
		off += n;
		rd_len += n;
		used = step_io_frames_in(&s, rd, rd_len);
		if (s.step->io_fd < 0)
			break;
		if (used > rd_len || (rd_len == RD_CAP && used == 0))
			abort(); /* a full buffer always holds a whole frame */
		memmove(rd, rd + used, rd_len - used);
		rd_len -= used;
	}
	step_io_close(&s);
	step_free(&s);
	for (int i = 0; i < NTASKS; i++)
		close(readers[i]);
	free(rd);
}

static void to_srun(const uint8_t *data, size_t size, bool label)
{
	struct srun_out_fmt fmt = {.label_width = label ? 2 : 0, .unbuffered = !label};
	struct srun_out_stream streams[NTASKS][2] = {0};
	struct srun_buf out = {0};
	size_t off = 0;
	struct io_hdr h;

	while (size - off >= IO_HDR_LEN && io_hdr_unpack(data + off, &h) == 0
	       && size - off - IO_HDR_LEN >= h.len) {
		if ((h.type == IO_STDOUT || h.type == IO_STDERR) && h.gtid < NTASKS) {
			out.len = 0;
			if (srun_out_feed(&streams[h.gtid][h.type == IO_STDERR], &fmt, h.gtid,
					  (const char *)data + off + IO_HDR_LEN, h.len, h.len == 0,
					  &out)
			    < 0)
				abort();
			if (streams[h.gtid][h.type == IO_STDERR].part.len > SRUN_OUT_LINE_MAX)
				abort(); /* a partial line is bounded */
		}
		off += IO_HDR_LEN + h.len;
	}
	for (int t = 0; t < NTASKS; t++)
		for (int k = 0; k < 2; k++) {
			out.len = 0;
			(void)srun_out_feed(&streams[t][k], &fmt, (uint32_t)t, NULL, 0, true, &out);
			srun_out_stream_done(&streams[t][k]);
		}
	srun_buf_done(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool is_quiet;

	if (!is_quiet) {
		log_set_level(LOG_LEVEL_QUIET);
		is_quiet = true;
	}
	if (size < 1 || size > (1u << 20))
		return 0;
	if (data[0] & 1)
		to_srun(data + 1, size - 1, data[0] & 2);
	else
		to_stepd(data + 1, size - 1, (size_t)(data[0] >> 1) * 97 + 1);
	return 0;
}
