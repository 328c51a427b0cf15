/* test_stall_limits.c - what keeps one client from stalling the
 * controller: job info replies come in pages (the cursor and the page
 * size bound), a host list from a request is counted before anything
 * is expanded, and the address the controller connects back to is the
 * request's peer (no name resolution on the event loop). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/hostlist.h"
#include "common/limits.h"
#include "common/msg.h"
#include "common/pack.h"
#include "common/sl_errno.h"
#include "common/log.h"
#include "slurmctld/acct_store.h"
#include "slurmctld/rpc.h"

#include <unistd.h>

static struct job_info_msg *roundtrip(const struct job_info_msg *m)
{
	struct pack_buf out = {0};
	void *back = NULL;

	msg_lookup(RESPONSE_JOB_INFO)->pack(m, &out, PROTOCOL_VERSION);
	assert_int_equal(out.err, 0);
	assert_int_equal(
	    msg_unpack_body(RESPONSE_JOB_INFO, out.data, out.len, PROTOCOL_VERSION, &back), 0);
	pack_buf_done(&out);
	return back;
}

static void test_the_cursor_the_more_flag_and_the_users_cross_the_wire(void **state)
{
	struct job_info jobs[2] = {{.job_id = 7, .name = "a"}, {.job_id = 9, .name = "b"}};
	struct job_info_msg m = {
	    .last_update = 5, .count = 2, .jobs = jobs, .last_job_id = 9, .is_more = true};
	struct job_info_msg *back = roundtrip(&m);
	uint32_t users[2] = {1000, 0};
	struct job_info_req req = {.job_ids = "12", .after_job_id = 41, .user_ids = users,
				   .n_user_ids = 2},
			    *rback = NULL;
	struct pack_buf out = {0};

	(void)state;
	assert_int_equal(back->count, 2);
	assert_int_equal(back->last_job_id, 9);
	assert_true(back->is_more);
	assert_int_equal(back->jobs[1].job_id, 9);
	msg_free(msg_lookup(RESPONSE_JOB_INFO), back);
	msg_lookup(REQUEST_JOB_INFO)->pack(&req, &out, PROTOCOL_VERSION);
	assert_int_equal(
	    msg_unpack_body(REQUEST_JOB_INFO, out.data, out.len, PROTOCOL_VERSION, (void **)&rback),
	    0);
	assert_int_equal(rback->after_job_id, 41);
	assert_string_equal(rback->job_ids, "12");
	assert_int_equal(rback->n_user_ids, 2);
	assert_memory_equal(rback->user_ids, users, sizeof(users));
	msg_free(msg_lookup(REQUEST_JOB_INFO), rback);
	pack_buf_done(&out);
}

/* The page budget counts the packed bytes themselves (the controller
 * packs each record into the page as it goes, job_info_pack_job); a page
 * stops after the record that takes it over JOB_INFO_PAGE_BYTES, and a
 * record's strings are bounded, so the biggest page stays below the
 * frame limit. */
static void test_the_biggest_page_fits_a_frame(void **state)
{
	(void)state;
	assert_true(JOB_INFO_PAGE_BYTES + SL_STR_MAX * 40u < SL_FRAME_MAX_DEFAULT);
}

static void test_pages_append_in_order_and_move_their_jobs(void **state)
{
	struct job_info_msg all = {.count = 1, .jobs = calloc(1, sizeof(struct job_info))};
	struct job_info_msg page = {.count = 2, .jobs = calloc(2, sizeof(struct job_info))};
	struct job_info_msg empty = {0};

	(void)state;
	all.jobs[0] = (struct job_info){.job_id = 1, .name = strdup("a")};
	page.jobs[0] = (struct job_info){.job_id = 2, .name = strdup("b")};
	page.jobs[1] = (struct job_info){.job_id = 5, .name = strdup("c")};
	assert_int_equal(job_info_msg_append(&all, &page), 0);
	assert_int_equal(job_info_msg_append(&all, &empty), 0);
	assert_int_equal(all.count, 3);
	assert_int_equal(page.count, 0);
	assert_null(page.jobs);
	assert_int_equal(all.jobs[2].job_id, 5);
	assert_string_equal(all.jobs[1].name, "b");
	msg_lookup(RESPONSE_JOB_INFO)->free(&all);
}

/* A streamed page written as it comes is unpacked as a view: its strings
 * point into the frame's bytes (no copy), checked as the copying unpack
 * checks them, freed without freeing them, and never appended to a
 * listing that outlives the frame. */
static void test_a_page_unpacked_as_a_view_points_into_the_frame(void **state)
{
	struct job_info jobs[2] = {{.job_id = 7, .name = "a", .comment = "hello"},
				   {.job_id = 9, .name = "b", .user_name = "alice"}};
	struct job_info_msg m = {.count = 2, .jobs = jobs, .last_job_id = 9, .is_more = true};
	struct job_info_msg *v = NULL, all = {0};
	struct pack_buf out = {0};
	uint8_t *nul;

	(void)state;
	msg_lookup(RESPONSE_JOB_INFO)->pack(&m, &out, PROTOCOL_VERSION);
	assert_int_equal(out.err, 0);
	assert_int_equal(job_info_msg_unpack_view(out.data, out.len, PROTOCOL_VERSION, &v), 0);
	assert_true(v->is_view && v->is_more);
	assert_int_equal(v->count, 2);
	assert_string_equal(v->jobs[0].comment, "hello");
	assert_string_equal(v->jobs[1].user_name, "alice");
	assert_null(v->jobs[1].comment);
	assert_true((uint8_t *)v->jobs[0].comment > out.data
		    && (uint8_t *)v->jobs[0].comment < out.data + out.len);
	assert_int_equal(job_info_msg_append(&all, v), -EINVAL);
	msg_free(msg_lookup(RESPONSE_JOB_INFO), v); /* frees no string: ASan would say */

	/* trailing bytes, and a string whose NUL is not its last byte */
	assert_int_equal(job_info_msg_unpack_view(out.data, out.len - 1, PROTOCOL_VERSION, &v),
			 -SLURM_PROTOCOL_INSUFFICIENT_SPACE);
	assert_null(v);
	nul = memmem(out.data, out.len, "hello", 6);
	assert_non_null(nul);
	nul[2] = '\0';
	assert_int_equal(job_info_msg_unpack_view(out.data, out.len, PROTOCOL_VERSION, &v), -EBADMSG);
	assert_null(v);
	pack_buf_done(&out);
}

static void test_host_lists_are_counted_without_expanding(void **state)
{
	size_t n = 0;

	(void)state;
	assert_int_equal(hostlist_count_expr("n[1-3],g1", 10, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(hostlist_count_expr("n[1-100000000]", 65536, &n), -E2BIG);
	assert_int_equal(hostlist_count_expr("n[1-100000]", 65536, NULL), -E2BIG);
	assert_int_equal(hostlist_count_expr("n[1-40000],m[1-40000]", 65536, NULL), -E2BIG);
	assert_int_equal(hostlist_count_expr("n[1-65536]", 65536, &n), 0);
	assert_int_equal(n, 65536);
	/* a cap above the library's own is the library's */
	assert_int_equal(hostlist_count_expr("n[1-2000000]", (size_t)-1, NULL), -E2BIG);
	assert_int_equal(hostlist_count_expr("n[1-", 10, NULL), -EINVAL);
	assert_int_equal(hostlist_count_expr(NULL, 10, &n), 0);
}

static void test_the_callback_address_is_the_peer_not_a_claimed_name(void **state)
{
	char *h = NULL;

	(void)state;
	/* a name is never resolved: the socket's address is used */
	assert_int_equal(rpc_client_addr("10.1.2.3:4567", "slow.example.invalid", &h), 0);
	assert_string_equal(h, "10.1.2.3");
	free(h);
	/* nor can a client send the controller elsewhere */
	assert_int_equal(rpc_client_addr("10.1.2.3:4567", "192.168.9.9", &h), 0);
	assert_string_equal(h, "10.1.2.3");
	free(h);
	assert_int_equal(rpc_client_addr("127.0.0.1:1", NULL, &h), 0);
	assert_string_equal(h, "127.0.0.1");
	free(h);
	/* not an IPv4 socket: a claimed literal only, never a name */
	assert_int_equal(rpc_client_addr("fd7", "10.0.0.8", &h), 0);
	assert_string_equal(h, "10.0.0.8");
	free(h);
	assert_int_equal(rpc_client_addr("fd7", "login1", &h), -EINVAL);
	assert_null(h);
	assert_int_equal(rpc_client_addr("fd7", "0.0.0.0", &h), -EINVAL);
	assert_int_equal(rpc_client_addr(NULL, NULL, &h), -EINVAL);
}

/* An accounting page looks at a bounded range of rows: a filter that
 * matches one row in 250 still answers in short pages that move on. */
static void test_an_accounting_page_scans_a_bounded_range(void **state)
{
	char dir[] = "/tmp/test_stall.XXXXXX", path[64], p2[80];
	struct acct_query_req q = {.limit = 100, .job_ids = "245"};
	struct acct_query_resp resp;
	struct acct_store *st = NULL;
	uint32_t pages = 0, found = 0;
	bool more;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/acct.db", dir);
	assert_int_equal(acct_store_open(path, &st), 0);
	assert_int_equal(acct_store_begin(st), 0);
	for (uint32_t i = 1; i <= 250; i++) {
		struct acct_job_rec j = {.job_id = i,
					 .array_task_id = NO_VAL,
					 .name = "j",
					 .uid = 1000,
					 .submit = 100,
					 .eligible = 100,
					 .end = 300};

		assert_int_equal(acct_store_put(st, &j), 0);
	}
	assert_int_equal(acct_store_commit(st), 0);
	acct_store_scan_rows = 10;
	do {
		resp = (struct acct_query_resp){0};
		assert_int_equal(acct_store_query(st, &q, &resp), 0);
		pages++;
		found += resp.count;
		for (uint32_t i = 0; i < resp.count; i++)
			assert_int_equal(resp.jobs[i].job_id, 245);
		assert_true(!resp.is_more || resp.last > q.after);
		assert_true(resp.last <= q.after + 10 || !resp.is_more);
		q.after = resp.last;
		more = resp.is_more;
		msg_lookup(RESPONSE_ACCT_QUERY)->free(&resp);
	} while (more && pages < 100);
	acct_store_scan_rows = 100000;
	assert_int_equal(found, 1);
	assert_int_equal(pages, 25);
	/* with the default span: one page */
	q.after = 0;
	resp = (struct acct_query_resp){0};
	assert_int_equal(acct_store_query(st, &q, &resp), 0);
	assert_int_equal(resp.count, 1);
	assert_false(resp.is_more);
	msg_lookup(RESPONSE_ACCT_QUERY)->free(&resp);
	acct_store_close(st);
	unlink(path);
	snprintf(p2, sizeof(p2), "%s-wal", path);
	unlink(p2);
	snprintf(p2, sizeof(p2), "%s-shm", path);
	unlink(p2);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_the_cursor_the_more_flag_and_the_users_cross_the_wire),
	    cmocka_unit_test(test_the_biggest_page_fits_a_frame),
	    cmocka_unit_test(test_pages_append_in_order_and_move_their_jobs),
	    cmocka_unit_test(test_a_page_unpacked_as_a_view_points_into_the_frame),
	    cmocka_unit_test(test_host_lists_are_counted_without_expanding),
	    cmocka_unit_test(test_the_callback_address_is_the_peer_not_a_claimed_name),
	    cmocka_unit_test(test_an_accounting_page_scans_a_bounded_range),
	};
	log_init("test_stall_limits", LOG_LEVEL_ERROR, NULL, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
