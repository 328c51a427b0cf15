/* pool.h - worker threads that run queued items through a callback.
 *
 * The pool knows nothing of what an item is: the caller gives the function
 * a worker runs on each item, and that function owns the item from then on. slurmrestd queues its
 * requests here (their RPCs to slurmctld block) so that the loop that accepts and reads connections
 * never waits.
 */
#pragma once

struct pool;

/* An item and the arg given to pool_new(). */
typedef void pool_item_fn(void *item, void *arg);

/* workers threads (at least one must start), at most max_queued items
 * waiting (max_queued >= 1); run is called on a worker for each item.
 * 0, or -ENOMEM, -EINVAL, -EAGAIN (no thread could start). */
int pool_new(unsigned workers, unsigned max_queued, pool_item_fn *run, void *arg,
	     struct pool **ret);

/* Stops taking items, lets the workers run every item still queued, joins
 * them. */
void pool_free(struct pool *p);

/* Queues item for a worker: 0, or -EAGAIN when max_queued items already
 * wait or the pool is stopping (the item stays the caller's). */
int pool_push(struct pool *p, void *item);
