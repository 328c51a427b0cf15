/* assoc.c - see assoc.h. */
#include "assoc.h"

#include <stddef.h>

#include "ctld.h"

struct assoc *assoc_of_job(const struct ctld *c, const struct job *job)
{
	(void)c;
	(void)job;
	return NULL; /* no associations yet */
}

struct qos *qos_of_job(const struct ctld *c, const struct job *job)
{
	(void)c;
	(void)job;
	return NULL;
}
