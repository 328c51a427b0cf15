/* privs.h - the job's identity: groups, a temporary switch to the user,
 * the final drop before exec. The only place that changes uids.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stepd;

int privs_init(struct stepd *s); /* resolve groups; refuse what we cannot become */
struct privs_saved {
	bool is_dropped;
	gid_t egid;
	int ngroups;
	gid_t *groups;
};
int privs_drop_temp(const struct stepd *s, struct privs_saved *sv);
void privs_restore(struct privs_saved *sv);
int privs_drop_final(const struct stepd *s); /* in the child, before exec; no way back */
