/* onbehalf_forge.c - test tool: as whoever runs it, send slurmctld a
 * REQUEST_KILL_JOB for a job carrying the on-behalf mark (frame.h) for
 * another uid, as only slurmrestd running as root or SlurmUser may.
 *
 *   onbehalf_forge JOBID AS_UID AS_GID
 *
 * Prints "rc=N <text>" with the controller's answer; exits 0 when the
 * request was answered at all (the test reads the code).
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/conf.h"
#include "common/errprintf.h"
#include "common/frame.h"
#include "common/msg.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"

int main(int argc, char **argv)
{
	struct sl_error err = { { 0 } };
	struct sl_conf *conf = NULL;
	struct kill_job_msg m = { .signal = 9 };
	struct frame_as as;
	int r;

	if (argc != 4) {
		fprintf(stderr, "usage: onbehalf_forge JOBID AS_UID AS_GID\n");
		return 2;
	}
	if (conf_load(conf_default_path(), &conf, &err) < 0) {
		fprintf(stderr, "%s\n", err.text);
		return 2;
	}
	m.sjob_id = argv[1];
	as.uid = (uid_t)strtoul(argv[2], NULL, 10);
	as.gid = (gid_t)strtoul(argv[3], NULL, 10);
	r = rpc_call_ctld_as_rc(conf, &as, REQUEST_KILL_JOB, &m);
	printf("rc=%d %s\n", -r, sl_strerror(r));
	conf_free(conf);
	return 0;
}
