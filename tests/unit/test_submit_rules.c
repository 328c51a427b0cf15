/* test_submit_rules.c - the rules a submission cannot get around: the
 * --mail-user validator (never an option of MailProg), the partition
 * access rules and size limits, and the rlimit propagation words. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/job_env.h"
#include "common/macros.h"
#include "common/sl_errno.h"
#include "slurmctld/mail.h"
#include "slurmctld/part_access.h"

static void test_mail_user_validator(void **state)
{
	static const char *const good[] = {"alice",	    "alice@example.com",
					   "a.b+c@x-y.org", "bob,carol@example.com",
					   "u_1",	    "x=y%z~"};
	static const char *const bad[] = {"",		"-",	  "--exec=touch /tmp/x",
					  "-fme",	"--",	  "alice,-x",
					  "alice,,bob", "alice,", ",alice",
					  "a b",	"a;b",	  "a|b",
					  "a`b`",	"a$(b)",  "a\nb",
					  "a'b",	"a\"b",	  "a<b>",
					  "a\\b",	"a/b"};
	char big[1100];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		if (!mail_user_is_valid(good[i]))
			fail_msg("refused '%s'", good[i]);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (mail_user_is_valid(bad[i]))
			fail_msg("accepted '%s'", bad[i]);
	assert_false(mail_user_is_valid(NULL));
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_false(mail_user_is_valid(big));
	big[1024] = '\0';
	assert_true(mail_user_is_valid(big));
}

static void test_part_list_has(void **state)
{
	(void)state;
	assert_true(part_list_has(NULL, "a"));
	assert_true(part_list_has("ALL", "a"));
	assert_true(part_list_has("all", NULL));
	assert_true(part_list_has("a,bb,c", "bb"));
	assert_true(part_list_has("a,bb,c", "c"));
	assert_false(part_list_has("a,bb,c", "b"));
	assert_false(part_list_has("a,bb,c", "bbb"));
	assert_false(part_list_has("a,bb", NULL));
	assert_false(part_list_has("a,bb", ""));
}

static struct conf_part part(void)
{
	return (struct conf_part){
	    .name = "p",
	    .max_time = INFINITE,
	    .max_nodes = INFINITE,
	    .max_cpus_per_node = INFINITE,
	};
}

static void test_part_access_rules(void **state)
{
	gid_t mine = getgid();
	struct group *root_gr = getgrgid(0);
	struct part_access user = {
	    .submit_uid = 1000,
	    .uid = 1000,
	    .gids = &mine,
	    .ngids = 1,
	    .account = "acct1",
	    .qos = "normal",
	    .slurm_user_id = 64030,
	};
	struct part_access root = user;
	struct conf_part p = part();

	(void)state;
	root.submit_uid = root.uid = 0;
	assert_int_equal(part_access_check(&p, &user), 0);
	/* RootOnly: who submits counts; SlurmUser is as root */
	p.root_only = true;
	assert_int_equal(part_access_check(&p, &user), -ESLURM_ACCESS_DENIED);
	assert_int_equal(part_access_check(&p, &root), 0);
	user.submit_uid = 64030;
	assert_int_equal(part_access_check(&p, &user), 0);
	user.submit_uid = 1000;
	p = part();
	p.disable_root_jobs = true;
	assert_int_equal(part_access_check(&p, &root), -ESLURM_USER_ID_MISSING);
	assert_int_equal(part_access_check(&p, &user), 0);
	/* AllowGroups: a group the user is not in; root passes */
	p = part();
	assert_non_null(root_gr);
	p.allow_groups = root_gr->gr_name;
	gid_t other = 54321;
	user.gids = &other;
	assert_int_equal(part_access_check(&p, &user),
			 -ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP);
	assert_int_equal(part_access_check(&p, &root), 0);
	gid_t zero = 0;
	user.gids = &zero;
	assert_int_equal(part_access_check(&p, &user), 0);
	user.gids = &mine;
	/* accounts: allow list wins over deny list */
	p = part();
	p.deny_accounts = "x,acct1";
	assert_int_equal(part_access_check(&p, &user), -ESLURM_INVALID_ACCOUNT);
	p.allow_accounts = "acct1";
	assert_int_equal(part_access_check(&p, &user), 0);
	p.allow_accounts = "acct2";
	assert_int_equal(part_access_check(&p, &user), -ESLURM_INVALID_ACCOUNT);
	user.account = NULL;
	assert_int_equal(part_access_check(&p, &user), -ESLURM_INVALID_ACCOUNT);
	user.account = "acct1";
	/* QOS: the same, root's jobs pass */
	p = part();
	p.deny_qos = "normal";
	assert_int_equal(part_access_check(&p, &user), -ESLURM_INVALID_QOS);
	assert_int_equal(part_access_check(&p, &root), 0);
	p.deny_qos = NULL;
	p.allow_qos = "high";
	assert_int_equal(part_access_check(&p, &user), -ESLURM_INVALID_QOS);
	p.allow_qos = "high,normal";
	assert_int_equal(part_access_check(&p, &user), 0);
}

static void test_part_limits(void **state)
{
	struct conf_part p = part();
	struct part_request r = {.min_nodes = 1,
				 .time_limit = 10,
				 .cpus_per_node = 2,
				 .mem_per_node = 200,
				 .mem_per_cpu = 100};

	(void)state;
	assert_int_equal(part_limits_check(&p, 4, &r), 0);
	r.min_nodes = 5; /* more than the partition has */
	assert_int_equal(part_limits_check(&p, 4, &r), -ESLURM_INVALID_NODE_COUNT);
	r.min_nodes = 3;
	p.max_nodes = 2;
	assert_int_equal(part_limits_check(&p, 4, &r), -ESLURM_INVALID_NODE_COUNT);
	r.min_nodes = 2;
	assert_int_equal(part_limits_check(&p, 4, &r), 0);
	p.max_time = 5;
	assert_int_equal(part_limits_check(&p, 4, &r), -ESLURM_INVALID_TIME_LIMIT);
	r.time_limit = INFINITE;
	assert_int_equal(part_limits_check(&p, 4, &r), -ESLURM_INVALID_TIME_LIMIT);
	r.time_limit = 5;
	p.max_cpus_per_node = 1;
	assert_int_equal(part_limits_check(&p, 4, &r), -ESLURM_TOO_MANY_REQUESTED_CPUS);
	p.max_cpus_per_node = 2;
	p.max_mem_per_node = 199;
	assert_int_equal(part_limits_check(&p, 4, &r), -ESLURM_INVALID_TASK_MEMORY);
	p.max_mem_per_node = 0;
	p.max_mem_per_cpu = 99;
	assert_int_equal(part_limits_check(&p, 4, &r), -ESLURM_INVALID_TASK_MEMORY);
	p.max_mem_per_cpu = 100;
	assert_int_equal(part_limits_check(&p, 4, &r), 0);
}

static void test_rlimit_words(void **state)
{
	uint64_t v;
	bool forced;

	(void)state;
	assert_true(job_env_rlimit_is_propagated("NOFILE", NULL, NULL));
	assert_true(job_env_rlimit_is_propagated("NOFILE", "ALL", NULL));
	assert_false(job_env_rlimit_is_propagated("NOFILE", "NONE", NULL));
	assert_true(job_env_rlimit_is_propagated("NOFILE", "CORE,nofile", NULL));
	assert_false(job_env_rlimit_is_propagated("NOFILE", "CORE,STACK", NULL));
	assert_false(job_env_rlimit_is_propagated("NOFILE", NULL, "NOFILE"));
	assert_true(job_env_rlimit_is_propagated("CORE", NULL, "NOFILE,MEMLOCK"));
	assert_false(job_env_rlimit_is_propagated("CORE", NULL, "ALL"));
	assert_int_equal(job_env_rlimit_parse("123", &v, &forced), 0);
	assert_int_equal(v, 123);
	assert_false(forced);
	assert_int_equal(job_env_rlimit_parse("U0", &v, &forced), 0);
	assert_int_equal(v, 0);
	assert_true(forced);
	assert_int_equal(job_env_rlimit_parse("18446744073709551615", &v, &forced), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(job_env_rlimit_parse("", &v, &forced), -EINVAL);
	assert_int_equal(job_env_rlimit_parse("-1", &v, &forced), -EINVAL);
	assert_int_equal(job_env_rlimit_parse("12x", &v, &forced), -EINVAL);
	assert_int_equal(job_env_rlimit_parse("99999999999999999999999", &v, &forced), -EINVAL);
	assert_int_equal(job_env_rlimit_parse(NULL, &v, &forced), -EINVAL);
}

static void test_rlimit_env_set(void **state)
{
	struct job_env e = {0};

	(void)state;
	assert_int_equal(job_env_set_rlimits(&e, NULL), 0);
	for (size_t i = 0; i < job_env_rlimits_count; i++) {
		char name[32];

		snprintf(name, sizeof(name), "SLURM_RLIMIT_%s", job_env_rlimits[i].name);
		assert_non_null(job_env_get(&e, name));
	}
	/* --propagate=CORE,NOFILE: those two forced, "U<n>" */
	assert_int_equal(job_env_set_rlimits(&e, "CORE,NOFILE"), 0);
	assert_int_equal(job_env_get(&e, "SLURM_RLIMIT_CORE")[0], 'U');
	assert_int_equal(job_env_get(&e, "SLURM_RLIMIT_NOFILE")[0], 'U');
	assert_true(job_env_get(&e, "SLURM_RLIMIT_CPU")[0] != 'U');
	job_env_done(&e);
}

static void test_rlimit_propagate_list(void **state)
{
	size_t bad = 0;

	(void)state;
	assert_true(job_env_rlimit_list_ok("ALL", &bad));
	assert_true(job_env_rlimit_list_ok("CORE,NOFILE,AS", &bad));
	assert_true(job_env_rlimit_list_ok("NONE", &bad));
	assert_false(job_env_rlimit_list_ok("CORE,BOGUS", &bad));
	assert_int_equal(bad, 5);
	assert_false(job_env_rlimit_list_ok("core", &bad)); /* Slurm takes capitals only */
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mail_user_validator), cmocka_unit_test(test_part_list_has),
	    cmocka_unit_test(test_part_access_rules),	cmocka_unit_test(test_part_limits),
	    cmocka_unit_test(test_rlimit_words),	cmocka_unit_test(test_rlimit_env_set),
	    cmocka_unit_test(test_rlimit_propagate_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
