/* scontrol_wait.h - "scontrol wait_job JOBID" (Slurm's: wait until the
 * job is running, its nodes ready, or it ended; exit 0 when ready, 1
 * otherwise) and our extension for other states, several jobs and a
 * time limit (docs/differences.md):
 *   scontrol wait_job ID[,ID...] [state=LIST] [all] [timeout=SECONDS]
 * (key=value words, as scontrol update's: scontrol's own options are
 * taken from anywhere on its command line)
 */
#pragma once

struct sl_conf;

/* argv[0] is "wait_job". Returns the exit code: 0 reached, 1 ended
 * elsewhere, unknown or an error (printed), 2 the timeout passed. */
int scontrol_wait_job(const struct sl_conf *conf, int argc, char **argv);
