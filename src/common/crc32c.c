/* crc32c.c - CRC-32C, slicing-by-8 over tables built once (pthread_once).
 *
 * tab[0] is the classic byte-at-a-time table; tab[k][b] is the CRC of byte
 * b followed by k zero bytes, which lets the main loop fold eight input
 * bytes per step. The result does not depend on host byte order: the
 * eight bytes are combined one by one.
 */
#include "crc32c.h"

#include <pthread.h>

#define CRC32C_POLY 0x82F63B78u /* Castagnoli, reflected */

static uint32_t tab[8][256];
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static void crc32c_init_tables(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC32C_POLY & (0u - (c & 1)));
		tab[0][b] = c;
	}
	for (uint32_t b = 0; b < 256; b++)
		for (int k = 1; k < 8; k++)
			tab[k][b] = (tab[k - 1][b] >> 8) ^ tab[0][tab[k - 1][b] & 0xff];
}

uint32_t crc32c(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (!len)
		return crc;
	pthread_once(&tab_once, crc32c_init_tables);
	crc = ~crc;
	while (len >= 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
				     | (uint32_t)p[3] << 24);

		crc = tab[7][lo & 0xff] ^ tab[6][(lo >> 8) & 0xff] ^ tab[5][(lo >> 16) & 0xff]
		      ^ tab[4][lo >> 24] ^ tab[3][p[4]] ^ tab[2][p[5]] ^ tab[1][p[6]] ^ tab[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ tab[0][(crc ^ *p++) & 0xff];
	return ~crc;
}
