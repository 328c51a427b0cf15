/* scontrol_token.h - "scontrol token [username=NAME] [lifespan=SECONDS]":
 * asks the controller for a JWT and prints SLURM_JWT=<token>, as Slurm. */
#pragma once

struct sl_conf;

/* argv[0] is "token". Returns 0, or 1 after printing the error. */
int scontrol_token(const struct sl_conf *conf, int argc, char **argv);
