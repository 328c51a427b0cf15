/* test_slurmd_req.c - slurmd's handler table (req.c): every row is a
 * message of the message table, once; what only the controller sends
 * needs root or SlurmUser, and only srun's launch and sstat's query are
 * open to any user (their handler or the stepd checks who).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/msg.h"
#include "common/rpc_server.h"
#include "slurmd/slurmd.h"

static void test_rows_and_privileges(void **state)
{
	size_t n;
	const struct rpc_handler *h = slurmd_rpc_handlers(&n);
	size_t open_rows = 0;

	(void)state;
	assert_true(n >= 10);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(msg_lookup(h[i].type));
		for (size_t j = i + 1; j < n; j++)
			assert_int_not_equal(h[i].type, h[j].type);
		if (h[i].type == REQUEST_LAUNCH_TASKS || h[i].type == REQUEST_JOB_STEP_STAT) {
			assert_int_equal(h[i].priv, PRIV_ANY);
			open_rows++;
		} else {
			assert_int_equal(h[i].priv, PRIV_ADMIN);
		}
	}
	assert_int_equal(open_rows, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows_and_privileges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
