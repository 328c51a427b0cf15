/* frame.h - one stepd_proto.h frame read from slurmd (the launch on
 * stdin, a request on the unix socket), with a timeout.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Read one frame from fd: its type (one of types[0..ntypes), any when
 * ntypes is 0, else -EBADMSG) and the unpacked message (msg_free() it).
 * 0 or -errno. */
int frame_read(int fd, uint32_t max_len, int timeout_ms, const uint16_t *types, size_t ntypes,
	       uint16_t *ret_type, void **ret_msg);
