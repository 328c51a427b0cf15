/* sacctmgr_list.h - sacctmgr list/show: the controller's table
 * (RESPONSE_ASSOC_LIST) printed in Slurm's columns, filtered by the
 * command's names and Key=Value conditions, format= chosen columns, -n,
 * -p/-P and -s (with associations).
 */
#pragma once
#include <stdbool.h>

struct assoc_dump;

struct list_opts {
	bool no_header, is_parsable, is_parsable2, with_assoc;
	const char *format;		     /* format=, NULL: the default columns */
	char *names;			     /* comma list of names given, NULL: all */
	char *accounts, *users, *partitions; /* conditions, NULL: any */
};

/* entity: "cluster", "account", "user", "qos", "association". Returns 0,
 * or -1 after an error message (an unknown format field). */
int sacctmgr_list(const struct assoc_dump *d, const char *entity, const struct list_opts *o);
