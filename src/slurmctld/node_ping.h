/* node_ping.h - the ping timer: every SlurmdTimeout/3 seconds ask each
 * node for a ping (or, while it has not registered since we started, for
 * its registration); no answer for SlurmdTimeout sets it DOWN.
 */
#pragma once

struct ctld;

int node_ping_start(struct ctld *c);  /* first round right away */
void node_ping_stop(struct ctld *c);
