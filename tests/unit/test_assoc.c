/* test_assoc.c - the association table without a controller: sacctmgr's
 * changes (assoc_edit) with their messages and refusals (a refusal changes
 * nothing), the records on the wire (msg_assoc.c) and in the SQLite store
 * (assoc_store.c, on a temporary file), reloaded identically. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/msg.h"
#include "common/msg_assoc.h"
#include "common/pack.h"
#include "common/sl_errno.h"
#include "slurmctld/assoc.h"
#include "slurmctld/assoc_edit.h"
#include "slurmctld/assoc_store.h"

static char out_buf[8192], err_buf[8192];

/* Run one change (committed); returns assoc_edit_checked's result. */
static int edit(struct assoc_table *t, uint32_t op, uint32_t ent, const char *names,
		const char *where, const char *set)
{
	struct assoc_mgr_req req = {.op = op,
				    .entity = ent,
				    .names = (char *)names,
				    .where = (char *)where,
				    .set = (char *)set};
	FILE *out = fmemopen(out_buf, sizeof(out_buf), "w");
	FILE *err = fmemopen(err_buf, sizeof(err_buf), "w");
	int r;

	assert_non_null(out);
	assert_non_null(err);
	r = assoc_edit_checked(t, "test", &req, true, out, err);
	fclose(out);
	fclose(err);
	return r;
}

/* The table packed as RESPONSE_ASSOC_LIST: equal tables pack equally. */
static char *packed(const struct assoc_table *t, size_t *len)
{
	struct assoc_dump d;
	struct pack_buf b = {0};
	char *copy;

	assert_int_equal(assoc_table_dump(t, &d), 0);
	msg_lookup(RESPONSE_ASSOC_LIST)->pack(&d, &b, 0);
	assoc_dump_free(&d);
	assert_int_equal(b.err, 0);
	copy = malloc(b.len);
	memcpy(copy, b.data, b.len);
	*len = b.len;
	pack_buf_done(&b);
	return copy;
}

static void build(struct assoc_table *t)
{
	assert_int_equal(assoc_table_ensure_normal(t), 0);
	assert_int_equal(edit(t, ASSOC_OP_ADD, ASSOC_E_CLUSTER, "test", NULL, NULL), 1);
	assert_int_equal(edit(t, ASSOC_OP_ADD, ASSOC_E_ACCOUNT, "physics", NULL, "Fairshare=10"),
			 1);
	assert_non_null(strstr(out_buf, " Adding Account(s)\n  physics\n"));
	assert_int_equal(edit(t, ASSOC_OP_ADD, ASSOC_E_QOS, "high", NULL, "Priority=5\nMaxWall=10"),
			 1);
	assert_int_equal(edit(t, ASSOC_OP_ADD, ASSOC_E_USER, "bob", NULL,
			      "Account=physics\nMaxJobs=2\nGrpTRES=cpu=4,mem=2G"),
			 1);
	assert_non_null(strstr(out_buf, " Adding User(s)\n  bob\n"));
}

static void test_add_builds_the_tree(void **state)
{
	struct assoc_table t = {0};
	struct assoc *a;
	struct qos *q;

	(void)state;
	build(&t);
	a = assoc_find(&t, "physics", "bob", NULL);
	assert_non_null(a);
	assert_string_equal(a->parent->acct, "physics");
	assert_string_equal(a->parent->parent->acct, "root");
	assert_int_equal(a->parent->shares_raw, 10);
	assert_int_equal(a->lim.max_jobs, 2);
	assert_int_equal(a->lim.grp_tres[ASSOC_TRES_CPU], 4);
	assert_int_equal(a->lim.grp_tres[ASSOC_TRES_MEM], 2048);
	assert_string_equal(assoc_user_find(&t, "bob")->default_acct, "physics");
	q = assoc_qos_find(&t, "high");
	assert_non_null(q);
	assert_int_equal(q->priority, 5);
	assert_int_equal(q->rec.max_wall, 10);
	/* root's QOS list (normal) is inherited */
	uint32_t n;
	const uint32_t *ids = assoc_qos_allowed(a, &n);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], assoc_qos_find(&t, "normal")->id);
	assert_int_equal(edit(&t, ASSOC_OP_ADD, ASSOC_E_ACCOUNT, "physics", NULL, NULL), 0);
	assert_non_null(strstr(out_buf, " Nothing new added."));
	assoc_table_free(&t);
}

static void test_refusals_change_nothing(void **state)
{
	static const struct {
		uint32_t op, ent;
		const char *names, *where, *set, *text;
	} bad[] = {
	    {ASSOC_OP_ADD, ASSOC_E_USER, "carl", NULL, NULL, "Need name of account to add user to"},
	    {ASSOC_OP_ADD, ASSOC_E_USER, "carl", NULL, "Account=nosuch", "doesn't exist"},
	    {ASSOC_OP_ADD, ASSOC_E_ACCOUNT, "chem", NULL, "Parent=nosuch", "parent account"},
	    {ASSOC_OP_ADD, ASSOC_E_USER, "carl", NULL, "Account=physics\nQOS=nosuch",
	     "Unknown QOS"},
	    {ASSOC_OP_ADD, ASSOC_E_USER, "carl", NULL, "Account=physics\nMaxJobs=-3",
	     "Bad MaxJobs"},
	    {ASSOC_OP_ADD, ASSOC_E_USER, "carl", NULL, "Account=physics\nGrpTRES=foo=1",
	     "Invalid TRES"},
	    {ASSOC_OP_ADD, ASSOC_E_QOS, "q2", NULL, "UsageFactor=-1", "Bad UsageFactor"},
	    {ASSOC_OP_ADD, ASSOC_E_QOS, "q2", NULL, "MaxWall=junk", "Bad MaxWall"},
	    {ASSOC_OP_ADD, ASSOC_E_ACCOUNT, "bad;name", NULL, NULL, "Invalid name"},
	    {ASSOC_OP_ADD, ASSOC_E_ACCOUNT, "x", NULL, "Bogus=1", "Unknown option"},
	    {ASSOC_OP_MODIFY, ASSOC_E_USER, "bob", NULL, "DefaultAccount=root", "associated"},
	    {ASSOC_OP_MODIFY, ASSOC_E_ACCOUNT, "physics", NULL, "Parent=physics", "below itself"},
	    {ASSOC_OP_DELETE, ASSOC_E_ACCOUNT, "root", NULL, NULL, "root account"},
	};
	struct assoc_table t = {0};
	size_t len0, len1;
	char *before, *after;

	(void)state;
	build(&t);
	before = packed(&t, &len0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = edit(&t, bad[i].op, bad[i].ent, bad[i].names, bad[i].where, bad[i].set);

		if (r >= 0 || !strstr(err_buf, bad[i].text))
			fail_msg("case %zu: r=%d err='%s'", i, r, err_buf);
		after = packed(&t, &len1);
		assert_int_equal(len0, len1);
		assert_memory_equal(before, after, len0);
		free(after);
	}
	free(before);
	assoc_table_free(&t);
}

static void test_modify_and_delete(void **state)
{
	struct assoc_table t = {0};
	struct assoc *a;
	uint32_t n;

	(void)state;
	build(&t);
	assert_int_equal(edit(&t, ASSOC_OP_MODIFY, ASSOC_E_USER, NULL, "Name=bob\nAccount=physics",
			      "QOS+=high\nMaxJobs=-1"),
			 1);
	assert_non_null(strstr(out_buf, " Modified user associations..."));
	a = assoc_find(&t, "physics", "bob", NULL);
	assoc_qos_allowed(a, &n);
	assert_int_equal(n, 2);
	assert_int_equal(a->lim.max_jobs, ASSOC_NO_LIMIT);
	assert_int_equal(edit(&t, ASSOC_OP_MODIFY, ASSOC_E_QOS, "high", NULL, "UsageFactor=2.5"),
			 1);
	assert_true(assoc_qos_find(&t, "high")->usage_factor == 2.5);
	assert_int_equal(edit(&t, ASSOC_OP_DELETE, ASSOC_E_QOS, "high", NULL, NULL), 1);
	assoc_qos_allowed(a, &n);
	assert_int_equal(n, 1);
	assert_int_equal(edit(&t, ASSOC_OP_DELETE, ASSOC_E_USER, "bob", NULL, NULL), 1);
	assert_non_null(strstr(out_buf, " Deleting users...\n  bob\n"));
	assert_null(assoc_find(&t, "physics", "bob", NULL));
	assert_null(assoc_user_find(&t, "bob"));
	assert_int_equal(edit(&t, ASSOC_OP_DELETE, ASSOC_E_USER, "bob", NULL, NULL), 0);
	assert_non_null(strstr(out_buf, " Nothing deleted"));
	assoc_table_free(&t);
}

static void test_store_and_wire_round_trip(void **state)
{
	char dir[] = "/tmp/test_assoc.XXXXXX", path[128];
	struct assoc_table t = {0}, back = {0};
	struct assoc_store *st;
	struct assoc_dump d, loaded, *wire = NULL;
	size_t len0, len1;
	char *a0, *a1;

	(void)state;
	build(&t);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/acct.db", dir);
	assert_int_equal(assoc_store_open(path, &st), 0);
	assert_int_equal(assoc_table_dump(&t, &d), 0);
	assert_int_equal(assoc_store_save(st, &d), 0);
	assoc_store_close(st);
	assert_int_equal(assoc_store_open(path, &st), 0); /* reopened */
	assert_int_equal(assoc_store_load(st, &loaded), 0);
	assoc_store_close(st);
	assert_int_equal(assoc_table_load(&back, &loaded), 0);
	a0 = packed(&t, &len0);
	a1 = packed(&back, &len1);
	assert_int_equal(len0, len1);
	assert_memory_equal(a0, a1, len0);
	/* the wire: unpacking what was packed gives the same bytes again */
	assert_int_equal(msg_unpack_body(RESPONSE_ASSOC_LIST, a0, len0, 0, (void **)&wire), 0);
	assert_int_equal(wire->assoc_count, d.assoc_count);
	assert_int_equal(wire->qos_count, d.qos_count);
	/* a cut message fails cleanly */
	for (size_t cut = 0; cut < len0; cut += 7) {
		void *m = NULL;

		assert_true(msg_unpack_body(RESPONSE_ASSOC_LIST, a0, cut, 0, &m) < 0);
		assert_null(m);
	}
	msg_free(msg_lookup(RESPONSE_ASSOC_LIST), wire);
	free(a0);
	free(a1);
	assoc_dump_free(&d);
	assoc_dump_free(&loaded);
	assoc_table_free(&t);
	assoc_table_free(&back);
	unlink(path);
	snprintf(path, sizeof(path), "%s/acct.db-wal", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/acct.db-shm", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_add_builds_the_tree),
	    cmocka_unit_test(test_refusals_change_nothing),
	    cmocka_unit_test(test_modify_and_delete),
	    cmocka_unit_test(test_store_and_wire_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
