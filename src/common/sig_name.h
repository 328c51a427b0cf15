/* sig_name.h - Slurm's sig_name2num(): "TERM", "SIGTERM" or "15" -> 15. */
#pragma once

/* 0 when s is no signal name or number in 1..65535. */
int sig_name2num(const char *s);
