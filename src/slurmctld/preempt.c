/* preempt.c - see preempt.h. Cost: one placement per candidate tried and
 * one per candidate put back; the caller bounds the candidates. */
#include "preempt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macros.h"

static bool fits(const struct sel_node *nodes, uint32_t n, const struct sel_req *req)
{
	struct sel_result res = {0};
	int r = select_try(nodes, n, req, &res);

	sel_result_done(&res);
	return r == 0;
}

int preempt_pick(const struct sel_node *nodes, uint32_t n, const struct sel_req *req,
		 const struct preempt_cand *cands, uint32_t count, bool *chosen)
{
	_cleanup_free_ struct sel_node *work = malloc((n + 1) * sizeof(*work));
	struct sel_result res = {0};
	bool is_fit = false;
	int r;

	if (!work)
		return -ENOMEM;
	memset(chosen, 0, count * sizeof(*chosen));
	r = select_place(nodes, n, req, &res); /* fits already, or never will */
	sel_result_done(&res);
	if (r != -EAGAIN)
		return r == 0 ? 0 : r;
	memcpy(work, nodes, n * sizeof(*work));
	for (uint32_t i = 0; i < count && !is_fit; i++) {
		select_release(work, cands[i].alloc, cands[i].is_exclusive);
		chosen[i] = true;
		is_fit = fits(work, n, req);
	}
	if (!is_fit)
		return -EAGAIN;
	for (uint32_t i = count; i-- > 0;) { /* put back what is not needed */
		if (!chosen[i])
			continue;
		select_charge(work, cands[i].alloc, cands[i].is_exclusive);
		if (fits(work, n, req))
			chosen[i] = false;
		else
			select_release(work, cands[i].alloc, cands[i].is_exclusive);
	}
	return 0;
}
