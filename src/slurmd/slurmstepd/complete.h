/* complete.h - the end of the step, reported to the controller with
 * the usage totals, retried while the loop keeps serving.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stepd;

/* REQUEST_COMPLETE_BATCH_SCRIPT (REQUEST_STEP_COMPLETE for a step),
 * retried with backoff until the controller answers; serves the loop
 * between tries. */
void complete_send(struct stepd *s);
