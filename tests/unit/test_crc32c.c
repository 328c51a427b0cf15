/* test_crc32c.c - CRC-32C against published vectors (the check value and
 * RFC 3720's iSCSI examples), chaining at every split point, and the
 * slicing-by-8 path against a bit-at-a-time reference at every alignment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/crc32c.h"
#include "common/macros.h"

/* RFC 3720 B.4: a SCSI read (10) command PDU */
static const uint8_t iscsi_read_pdu[48] = {
	0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
	0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

enum fill { FILL_TEXT, FILL_ZERO, FILL_ONES, FILL_UP, FILL_DOWN, FILL_PDU };

static const struct vector {
	const char *name;
	enum fill fill;
	const char *text;
	size_t len;
	uint32_t crc;
} vectors[] = {
	{ "the empty string", FILL_TEXT, "", 0, 0x00000000 },
	{ "the check string 123456789", FILL_TEXT, "123456789", 9, 0xE3069283 },
	{ "a single a", FILL_TEXT, "a", 1, 0xC1D04330 },
	{ "abc", FILL_TEXT, "abc", 3, 0x364B3FB7 },
	{ "32 zero bytes", FILL_ZERO, NULL, 32, 0x8A9136AA },
	{ "32 bytes of 0xff", FILL_ONES, NULL, 32, 0x62A8AB43 },
	{ "32 ascending bytes", FILL_UP, NULL, 32, 0x46DD794E },
	{ "32 descending bytes", FILL_DOWN, NULL, 32, 0x113FDB5C },
	{ "the iSCSI read PDU", FILL_PDU, NULL, 48, 0xD9963A56 },
};

static void vector_bytes(const struct vector *v, uint8_t *out)
{
	for (size_t i = 0; i < v->len; i++) {
		switch (v->fill) {
		case FILL_TEXT: out[i] = (uint8_t)v->text[i]; break;
		case FILL_ZERO: out[i] = 0; break;
		case FILL_ONES: out[i] = 0xff; break;
		case FILL_UP: out[i] = (uint8_t)i; break;
		case FILL_DOWN: out[i] = (uint8_t)(v->len - 1 - i); break;
		case FILL_PDU: out[i] = iscsi_read_pdu[i]; break;
		}
	}
}

static uint32_t crc32c_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
	}
	return ~crc;
}

static void test_vectors_give_the_published_checksums(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(vectors); i++) {
		uint8_t buf[64];
		uint32_t got;

		vector_bytes(&vectors[i], buf);
		got = crc32c(0, buf, vectors[i].len);
		if (got != vectors[i].crc)
			fail_msg("%s: got 0x%08X, want 0x%08X", vectors[i].name, got,
				 vectors[i].crc);
	}
}

static void test_every_split_point_chains_to_the_same_checksum(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(vectors); i++) {
		uint8_t buf[64];

		vector_bytes(&vectors[i], buf);
		for (size_t cut = 0; cut <= vectors[i].len; cut++) {
			uint32_t c = crc32c(0, buf, cut);

			c = crc32c(c, NULL, 0);
			c = crc32c(c, buf + cut, vectors[i].len - cut);
			if (c != vectors[i].crc)
				fail_msg("%s cut at %zu: got 0x%08X", vectors[i].name, cut, c);
		}
	}
}

static void test_fast_path_matches_bitwise_at_every_alignment_and_length(void **state)
{
	uint8_t buf[300];
	uint32_t x = 12345;

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; off + len <= sizeof(buf); len += 7)
			assert_int_equal(crc32c(0x1234, buf + off, len),
					 crc32c_bitwise(0x1234, buf + off, len));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors_give_the_published_checksums),
		cmocka_unit_test(test_every_split_point_chains_to_the_same_checksum),
		cmocka_unit_test(test_fast_path_matches_bitwise_at_every_alignment_and_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
