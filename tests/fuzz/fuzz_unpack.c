/* fuzz_unpack.c - libFuzzer target: the first byte picks a message type
 * from the table, the rest is its body. Unpack must never crash, leak or
 * over-read, whatever the bytes.
 */
#include <stddef.h>
#include <stdint.h>

#include "common/msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *m = NULL;

	if (size < 1)
		return 0;
	const struct msg_type *t = &msg_table[data[0] % msg_table_len];

	if (msg_unpack_body(t->type, data + 1, size - 1, PROTOCOL_VERSION, &m) == 0)
		msg_free(t, m);
	return 0;
}
