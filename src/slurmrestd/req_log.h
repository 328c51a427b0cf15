/* req_log.h - the log lines a request makes (refusals, failures): at most
 * REQ_LOG_BURST a second over all workers and the loop, the rest counted
 * and summed up in one line, so a client that sends refused requests as
 * fast as it can cannot fill the disk or bury other lines. Control bytes
 * in them are escaped by the logger (log_escape), so a path with %0A in it
 * stays on its line. */
#pragma once
#include "common/log.h"

#define REQ_LOG_BURST 100 /* request lines a second; the rest are counted */

void req_log(enum log_level level, const char *fmt, ...) _printf_(2, 3);
