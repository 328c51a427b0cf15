/* ctld_timer.h - the controller's 1 s timer (time limits, pings, accounting
 * retry, purge, periodic scheduling), in the order ctld_timer.c documents.
 */
#pragma once
#include <time.h>

struct ctld;

int ctld_timer_start(struct ctld *c); /* makes c->timer */
void ctld_timer_stop(struct ctld *c); /* frees it; also after a failed start */
/* One pass now (the timer's callback; unit tests). Its scheduling pass
 * every 5 s needs ctld_timer_start() (no pass without it). */
void ctld_timer_run(struct ctld *c, time_t now);
