/* test_rpc_table.c - the controller's handler table and the "follow a
 * request" table of docs/architecture.md agree: every handler has its row
 * (message, handler function, privilege, and the file it names defines the
 * handler), every row names a message the table has, and every message has
 * a name in the message table. And what common's table dispatcher decides
 * before a handler runs (unknown type, privilege), and that it runs and
 * times the handler when the request passes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_server.h"
#include "common/sl_errno.h"
#include "slurmctld/rpc.h"

#define DOC SL_SOURCE_DIR "/docs/architecture.md"

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *buf;
	long n;

	if (!fp)
		fail_msg("cannot open %s", path);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	return buf;
}

/* The doc's row for message name: the line that starts "| `NAME` |". */
static char *row_of(const char *doc, const char *name)
{
	char key[128];
	const char *at;
	const char *end;

	snprintf(key, sizeof(key), "\n| `%s` |", name);
	at = strstr(doc, key);
	if (!at)
		return NULL;
	at++;
	end = strchr(at, '\n');
	return strndup(at, end ? (size_t)(end - at) : strlen(at));
}

/* Cell i (0-based) of a markdown row, trimmed. */
static char *cell(const char *row, int i)
{
	const char *p = row;
	const char *end;

	for (int k = 0; k <= i; k++) {
		p = strchr(p, '|');
		assert_non_null(p);
		p++;
	}
	end = strchr(p, '|');
	assert_non_null(end);
	while (*p == ' ')
		p++;
	while (end > p && end[-1] == ' ')
		end--;
	return strndup(p, (size_t)(end - p));
}

static const char *priv_word(enum rpc_priv p)
{
	switch (p) {
	case PRIV_ANY:
		return "any";
	case PRIV_ADMIN:
		return "admin";
	case PRIV_SLURMD:
		return "slurmd";
	}
	return "?";
}

/* "`rpc_job_submit` (rpc_job.c)": the file defines the function. */
static void check_handler_file(const char *handler_cell, const char *fn)
{
	char want[128], path[256], def[160];
	const char *open = strchr(handler_cell, '(');
	const char *close = open ? strchr(open, ')') : NULL;
	char *src;

	snprintf(want, sizeof(want), "`%s`", fn);
	if (!strstr(handler_cell, want))
		fail_msg("row names handler \"%s\", the table has %s", handler_cell, fn);
	if (!open || !close)
		fail_msg("handler cell \"%s\" names no file", handler_cell);
	snprintf(path, sizeof(path), "%s/src/slurmctld/%.*s", SL_SOURCE_DIR,
		 (int)(close - open - 1), open + 1);
	src = slurp(path);
	snprintf(def, sizeof(def), "\nint %s(struct ctld *c, struct rpc_req *req)\n", fn);
	if (!strstr(src, def))
		fail_msg("%s does not define %s", path, fn);
	free(src);
}

static void test_every_handler_has_its_row(void **state)
{
	size_t n;
	const struct rpc_handler *h = rpc_handlers(&n);
	char *doc = slurp(DOC);

	(void)state;
	assert_true(n > 20);
	for (size_t i = 0; i < n; i++) {
		const char *name = msg_type_name(h[i].type);
		char *row, *handler, *priv;

		assert_non_null(msg_lookup(h[i].type));
		row = row_of(doc, name);
		if (!row)
			fail_msg("docs/architecture.md has no row for %s", name);
		handler = cell(row, 2);
		check_handler_file(handler, h[i].fn_name);
		priv = cell(row, 3);
		if (strcmp(priv, priv_word(h[i].priv)))
			fail_msg("%s: the doc says privilege %s, the table %s", name, priv,
				 priv_word(h[i].priv));
		free(priv);
		free(handler);
		free(row);
	}
	free(doc);
}

static void test_every_row_names_a_handled_message(void **state)
{
	size_t n;
	const struct rpc_handler *h = rpc_handlers(&n);
	char *doc = slurp(DOC);
	char *p = strstr(doc, "### Follow a request");
	char *section_end;
	int rows = 0;

	(void)state;
	assert_non_null(p);
	section_end = strstr(p, "\n## ");
	if (section_end)
		*section_end = '\0'; /* the next part of the page has tables of its own */
	while ((p = strstr(p, "\n| `")) != NULL) {
		char *start = p + 4;
		char *end = strchr(start, '`');
		bool found = false;

		assert_non_null(end);
		for (size_t i = 0; i < n && !found; i++) {
			const char *name = msg_type_name(h[i].type);

			found = strlen(name) == (size_t)(end - start)
				&& !strncmp(start, name, strlen(name));
		}
		if (!found)
			fail_msg("docs/architecture.md: row for %.*s, which no handler takes",
				 (int)(end - start), start);
		rows++;
		p = end;
	}
	assert_int_equal(rows, (int)n);
	free(doc);
}

struct fake {
	int calls;
	uint16_t timed_type;
	uid_t timed_uid;
};

typedef int fake_handler_fn(struct fake *x, struct rpc_req *req);

static int fake_handler(struct fake *x, struct rpc_req *req)
{
	(void)req;
	x->calls++;
	return 0; /* "replied": the dispatcher sends nothing */
}

static bool fake_is_admin(void *ctx, uid_t uid)
{
	(void)ctx;
	return uid == 0 || uid == 77;
}

static int fake_call(void *ctx, const struct rpc_handler *row, struct rpc_req *req)
{
	return ((fake_handler_fn *)row->fn)(ctx, req);
}

static void fake_timed(void *ctx, uint16_t type, uid_t uid, uint64_t usec)
{
	struct fake *x = ctx;

	(void)usec;
	x->timed_type = type;
	x->timed_uid = uid;
}

static const struct rpc_handler fake_rows[] = {
    RPC_HANDLER(REQUEST_PING, PRIV_ANY, fake_handler_fn, fake_handler),
    RPC_HANDLER(REQUEST_SHUTDOWN, PRIV_ADMIN, fake_handler_fn, fake_handler),
    RPC_HANDLER(REQUEST_STEP_COMPLETE, PRIV_SLURMD, fake_handler_fn, fake_handler),
};

static const struct rpc_table fake_table = {
    .rows = fake_rows,
    .count = ARRAY_SIZE(fake_rows),
    .is_admin = fake_is_admin,
    .call = fake_call,
    .timed = fake_timed,
};

static void test_dispatcher_decides_before_the_handler(void **state)
{
	const struct rpc_handler *row = NULL;
	struct fake x = { 0 };

	(void)state;
	assert_int_equal(rpc_table_check(&fake_table, &x, REQUEST_JOB_INFO, 0, &row),
			 -SLURM_UNEXPECTED_MSG_ERROR);
	assert_null(row);
	assert_int_equal(rpc_table_check(&fake_table, &x, REQUEST_SHUTDOWN, 1000, &row),
			 -ESLURM_USER_ID_MISSING);
	assert_int_equal(rpc_table_check(&fake_table, &x, REQUEST_STEP_COMPLETE, 1000, &row),
			 -ESLURM_USER_ID_MISSING);
	assert_null(row);
	assert_int_equal(rpc_table_check(&fake_table, &x, REQUEST_PING, 1000, &row), 0);
	assert_ptr_equal(row, &fake_rows[0]);
	assert_int_equal(rpc_table_check(&fake_table, &x, REQUEST_SHUTDOWN, 0, &row), 0);
	assert_int_equal(rpc_table_check(&fake_table, &x, REQUEST_STEP_COMPLETE, 77, &row), 0);
	assert_ptr_equal(row, &fake_rows[2]);
	assert_int_equal(x.calls, 0);
}

static void test_dispatcher_runs_and_times_the_handler(void **state)
{
	struct fake x = { 0 };
	struct rpc_req *req = calloc(1, sizeof(*req));

	(void)state;
	*req = (struct rpc_req){ .type = REQUEST_SHUTDOWN, .uid = 77, .peer = "test" };
	rpc_table_dispatch(&fake_table, &x, req);
	assert_int_equal(x.calls, 1);
	assert_int_equal(x.timed_type, REQUEST_SHUTDOWN);
	assert_int_equal(x.timed_uid, 77);
	free(req);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_handler_has_its_row),
	    cmocka_unit_test(test_every_row_names_a_handled_message),
	    cmocka_unit_test(test_dispatcher_decides_before_the_handler),
	    cmocka_unit_test(test_dispatcher_runs_and_times_the_handler),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
