/* step_io.h - a step's task I/O with srun over one TCP connection
 * (io_proto.h), non-blocking, from the loop.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stepd;

int step_io_connect(struct stepd *s); /* TCP to io_host:io_port, IO_INIT */
/* Register srun's socket and the task pipes in the loop. 0 or -ENOMEM. */
int step_io_register(struct stepd *s);
void step_io_frame(struct stepd *s, uint16_t type, uint32_t gtid, uint32_t ltid,
		   const void *payload, size_t len);
/* Send IO_TASK_EXIT for each ended task whose streams ended (or that has
 * waited a second for them). Returns ms until the next forced report,
 * or -1 when none is pending. */
int step_io_report_exits(struct stepd *s);
/* Every task reported and every frame written (or srun gone). */
bool step_io_is_done(const struct stepd *s);
void step_io_close(struct stepd *s);
/* Act on the whole frames from srun at the start of buf (len bytes):
 * stdin to the tasks' buffers, signals to the tasks. Returns the bytes
 * used; a bad frame means srun is gone (the connection is closed, all of
 * len used). Exposed for the fuzzer (tests/fuzz/fuzz_io_stream.c). */
size_t step_io_frames_in(struct stepd *s, const uint8_t *buf, size_t len);
/* Write what srun's connection takes now (the rest goes from the loop). */
void step_io_flush(struct stepd *s);
