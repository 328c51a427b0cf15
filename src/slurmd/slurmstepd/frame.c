/* frame.c - one frame of stepd_proto.h read from slurmd: the launch on
 * the stepd's stdin, a request on its unix socket. Header, body (at
 * most max_len bytes), unpacked by the message table; every read bounded
 * by timeout_ms, so a peer that stalls cannot hold the stepd.
 */
#include "frame.h"

#include <errno.h>
#include <stdlib.h>

#include "common/macros.h"
#include "common/msg.h"
#include "common/stepd_proto.h"

int frame_read(int fd, uint32_t max_len, int timeout_ms, const uint16_t *types, size_t ntypes,
	       uint16_t *ret_type, void **ret_msg)
{
	uint8_t hdr[STEPD_HDR_LEN];
	_cleanup_free_ uint8_t *body = NULL;
	uint32_t len = 0;
	bool is_wanted = ntypes == 0;
	int r;

	r = stepd_read_all(fd, hdr, sizeof(hdr), timeout_ms);
	if (r == 0)
		r = stepd_frame_header(hdr, max_len, &len, ret_type);
	if (r < 0)
		return r;
	for (size_t i = 0; i < ntypes; i++)
		is_wanted |= types[i] == *ret_type;
	if (!is_wanted)
		return -EBADMSG;
	body = malloc(len ? len : 1);
	if (!body)
		return -ENOMEM;
	r = stepd_read_all(fd, body, len, timeout_ms);
	if (r < 0)
		return r;
	return msg_unpack_body(*ret_type, body, len, PROTOCOL_VERSION, ret_msg);
}
