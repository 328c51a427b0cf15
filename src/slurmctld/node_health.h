/* node_health.h - asks the nodes to run their HealthCheckProgram
 * (REQUEST_HEALTH_CHECK) every HealthCheckInterval seconds, as Slurm's
 * controller does: the nodes that answer pings and are in one of the
 * states HealthCheckNodeState names (ANY: all of them, drained ones too),
 * all at once, or with CYCLE spread over the interval, node by node.
 * START_ONLY, an interval of 0 or no program: never (slurmd still runs
 * it when it starts). The interval and states are read again at each
 * tick, so `scontrol reconfigure` applies them.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

struct ctld;
struct node;

int node_health_start(struct ctld *c);
void node_health_stop(struct ctld *c);

/* ---- exposed for unit testing only ---------------------------------- */

/* Is node n (state, flags) one the states (HC_STATE_*) name? */
bool node_health_wanted(uint16_t states, uint32_t node_state);
