/* fuzz_unpack.c - libFuzzer target: the first byte picks a message type
 * from the table, the rest is its body. Unpack must never crash, leak or
 * over-read, whatever the bytes. RESPONSE_JOB_INFO's body also goes
 * through the view unpack (strings left in the buffer), whose records are
 * then read to their last byte.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *m = NULL;

	if (size < 1)
		return 0;
	const struct msg_type *t = &msg_table[data[0] % msg_table_len];

	if (msg_unpack_body(t->type, data + 1, size - 1, PROTOCOL_VERSION, &m) == 0)
		msg_free(t, m);
	if (t->type == RESPONSE_JOB_INFO) {
		struct job_info_msg *v = NULL;
		size_t sum = 0;

		if (job_info_msg_unpack_view(data + 1, size - 1, PROTOCOL_VERSION, &v) == 0) {
			for (uint32_t i = 0; i < v->count; i++) {
				const struct job_info *j = &v->jobs[i];

				sum += (j->name ? strlen(j->name) : 0)
				       + (j->gres_detail ? strlen(j->gres_detail) : 0);
			}
			msg_free(t, v);
		}
		sink = sum; /* keeps the reads */
	}
	return 0;
}
