/* test_frame_as.c - the on-behalf mark of frame.h: its ids come off the
 * front of the body (inside what the credential's digest covers), an
 * unknown flag or a body too short for the mark is refused. No munged
 * needed: the frames here carry no credential. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/frame.h"
#include "common/msg.h"
#include "common/pack.h"

/* The bytes after frame_len: header, empty credential, body. */
static size_t make(uint8_t *out, uint16_t flags, const uint8_t *body, uint32_t len)
{
	struct pack_buf b = { 0 };
	size_t n;

	pack_u16(&b, PROTOCOL_VERSION);
	pack_u16(&b, flags);
	pack_u16(&b, REQUEST_PING);
	pack_u32(&b, len);
	pack_u32(&b, 0); /* no credential */
	pack_raw(&b, body, len);
	n = b.len;
	memcpy(out, b.data, n);
	pack_buf_done(&b);
	return n;
}

static void test_mark_comes_off_the_body(void **state)
{
	const uint8_t body[] = { 0, 0, 3, 0xe9, 0, 0, 3, 0xea, 0xaa };
	uint8_t buf[64];
	size_t n = make(buf, FRAME_F_ON_BEHALF, body, sizeof(body));
	struct frame f;
	struct frame_as as;

	(void)state;
	assert_int_equal(frame_parse(buf, n, &f), 0);
	assert_int_equal(f.body_len, 9);
	assert_int_equal(frame_take_as(&f, &as), 1);
	assert_int_equal(as.uid, 1001);
	assert_int_equal(as.gid, 1002);
	assert_int_equal(f.body_len, 1);
	assert_int_equal(f.body[0], 0xaa);
	assert_int_equal(frame_take_as(&f, &as), 0); /* once only */
	frame_done(&f);
}

static void test_unmarked_and_bad_frames(void **state)
{
	const uint8_t body[] = { 0, 0, 3, 0xe9 };
	uint8_t buf[64];
	struct frame f;
	struct frame_as as;
	size_t n;

	(void)state;
	n = make(buf, 0, body, sizeof(body));
	assert_int_equal(frame_parse(buf, n, &f), 0);
	assert_int_equal(frame_take_as(&f, &as), 0);
	assert_int_equal(f.body_len, 4);
	frame_done(&f);
	n = make(buf, FRAME_F_ON_BEHALF, body, sizeof(body)); /* too short for uid+gid */
	assert_int_equal(frame_parse(buf, n, &f), 0);
	assert_int_equal(frame_take_as(&f, &as), -EBADMSG);
	frame_done(&f);
	n = make(buf, 0x0100, body, sizeof(body)); /* a flag nobody defined */
	assert_int_equal(frame_parse(buf, n, &f), -EBADMSG);
	frame_done(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mark_comes_off_the_body),
	    cmocka_unit_test(test_unmarked_and_bad_frames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
