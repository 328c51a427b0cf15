/* ctld_timer.h - the controller's 1 s timer (time limits, pings, accounting
 * retry, purge, periodic scheduling), in the order ctld_timer.c documents.
 */
#pragma once
#include <time.h>

struct ctld;

int ctld_timer_start(struct ctld *c);
void ctld_timer_stop(struct ctld *c);
/* One pass now (the timer's callback; unit tests). */
void ctld_timer_run(struct ctld *c, time_t now);
