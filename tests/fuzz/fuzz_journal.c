/* fuzz_journal.c - libFuzzer target: the controller's journal replay at
 * start-up (slurmctld/journal.c framing, then job_state.c's record
 * decoding, as durable.c does). The first byte is flags: bit 0 rewrites
 * each record's CRC32C so the fuzzer reaches the decoders, bit 1 replays
 * as -i (salvage, then scan the records past the damage). The rest is the
 * job_journal file. A torn tail, a bad CRC or a bad record must be
 * refused or dropped, never crash, leak or loop.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/crc32c.h"
#include "common/log.h"
#include "slurmctld/job.h"
#include "slurmctld/job_state.h"
#include "slurmctld/journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Nodes "n0".."n15" exist; any other name is a node gone from slurm.conf. */
static int index_of(void *arg, const char *name, uint32_t *ret)
{
	char *end;
	unsigned long v;

	(void)arg;
	if (name[0] != 'n' || !name[1])
		return -ENOENT;
	v = strtoul(name + 1, &end, 10);
	if (*end || v > 15)
		return -ENOENT;
	*ret = (uint32_t)v;
	return 0;
}

static int rec(void *arg, const uint8_t *p, size_t len)
{
	struct job_state_seq seq;
	struct job *job = NULL;

	(void)arg;
	switch (job_state_rec_type(p, len)) {
	case JOURNAL_REC_JOB:
		if (job_state_unpack(p, len, index_of, NULL, &job) == 0)
			job_free(job);
		break;
	case JOURNAL_REC_SEQ:
		(void)job_state_seq_unpack(p, len, &seq);
		break;
	default:
		break;
	}
	return 0;
}

/* Give every whole record the CRC of its payload. */
static void fix_crcs(uint8_t *p, size_t size)
{
	size_t off = 0;

	while (size - off >= JOURNAL_HDR_LEN) {
		uint32_t len = (uint32_t)p[off] << 24 | (uint32_t)p[off + 1] << 16
			       | (uint32_t)p[off + 2] << 8 | p[off + 3];
		uint32_t crc;

		if (len > size - off - JOURNAL_HDR_LEN)
			return;
		crc = crc32c(0, p + off + JOURNAL_HDR_LEN, len);
		p[off + 4] = (uint8_t)(crc >> 24);
		p[off + 5] = (uint8_t)(crc >> 16);
		p[off + 6] = (uint8_t)(crc >> 8);
		p[off + 7] = (uint8_t)crc;
		off += JOURNAL_HDR_LEN + len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char shm[] = "/dev/shm/fuzz_journal_XXXXXX"; /* fsync is cheap there */
	static char tmp[] = "/tmp/fuzz_journal_XXXXXX";
	static const char *dir;
	char path[sizeof(shm) + sizeof(JOURNAL_FILE) + 1];
	struct journal *j = NULL;
	uint8_t *copy;
	FILE *f;

	if (size < 1 || size > (1u << 20))
		return 0;
	if (!dir) {
		dir = mkdtemp(shm) ? shm : mkdtemp(tmp);
		if (!dir)
			abort();
		log_set_level(LOG_LEVEL_QUIET);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, JOURNAL_FILE);
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	if (data[0] & 1)
		fix_crcs(copy, size - 1);
	f = fopen(path, "w");
	if (!f || fwrite(copy, 1, size - 1, f) != size - 1 || fclose(f) != 0)
		abort();
	free(copy);
	if (journal_open(dir, &j) == 0) {
		bool is_salvage = data[0] & 2;

		if (journal_replay(j, is_salvage, rec, NULL) == 0 && is_salvage
		    && journal_bad_offset(j) >= 0)
			(void)journal_scan_damaged(j, rec, NULL);
		journal_free(j);
	}
	unlink(path);
	return 0;
}
