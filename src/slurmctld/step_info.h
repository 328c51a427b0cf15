/* step_info.h - REQUEST_JOB_STEP_INFO's answer: the steps of every job
 * (or one) that uid may see, the batch script as StepId=N.batch.
 */
#pragma once
#include <sys/types.h>

struct ctld;
struct step_info_msg;
struct step_info_req;

/* Fill resp (owned strings; free with step_info_msg_done, also on error).
 * -SLURM_NO_CHANGE_IN_DATA when nothing changed since m->last_update. */
int step_info_list(struct ctld *c, const struct step_info_req *m, uid_t uid,
		   struct step_info_msg *resp);
void step_info_msg_done(struct step_info_msg *resp);
