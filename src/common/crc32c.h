/* crc32c.h - CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the
 * checksum of journal records.
 *
 * Chaining works like zlib's crc32(): start with 0 and feed the previous
 * result back, so crc32c(crc32c(0, a, n), b, m) equals the CRC of a
 * followed by b. crc32c(0, "123456789", 9) == 0xE3069283. Thread-safe.
 */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* CRC of data[0..len) continuing from crc (0 to start); data may be NULL
 * when len is 0, which returns crc unchanged. */
uint32_t crc32c(uint32_t crc, const void *data, size_t len);
