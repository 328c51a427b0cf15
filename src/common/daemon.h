/* daemon.h - what both daemons do at start: detach and write a pid file. */
#pragma once

/* fork, setsid, stdio to /dev/null; the parent exits 0. */
int daemon_detach(void);
/* Write our pid to path (0644). */
int daemon_write_pidfile(const char *path);
