/* scontrol_part.h - scontrol create/update/delete PartitionName=... */
#pragma once
#include <stdint.h>

struct sl_conf;

/* The words of "update"/"create" (PartitionName=NAME and Key=Value
 * words, any order) or of "delete" (PartitionName=NAME only) checked as
 * slurm.conf's partition keys (each bad word: "Invalid input: WORD" or
 * "Update of this parameter is not supported: WORD", then "Request
 * aborted") and sent as type (REQUEST_CREATE_PARTITION, _UPDATE_ or
 * _DELETE_); the controller's refusal printed with Slurm's prefix for the
 * verb. 0, or -1 after printing. */
int scontrol_part_edit(const struct sl_conf *conf, uint16_t type, int argc, char **argv);
