/* test_rest_pool.c - slurmrestd's worker pool (pool.c): every pushed item
 * runs once on a worker, the queue is bounded, and pool_free() runs what
 * is still queued before it returns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <pthread.h>

#include <cmocka.h>

#include "slurmrestd/pool.h"

struct counter {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned runs;
	unsigned seen[64]; /* runs of item i */
	bool is_held;	   /* workers wait while set */
	unsigned waiting;  /* workers held */
};

static void count_run(void *item, void *arg)
{
	struct counter *c = arg;

	pthread_mutex_lock(&c->lock);
	c->waiting++;
	pthread_cond_broadcast(&c->cond);
	while (c->is_held)
		pthread_cond_wait(&c->cond, &c->lock);
	c->waiting--;
	c->seen[(uintptr_t)item]++;
	c->runs++;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

static void counter_init(struct counter *c)
{
	*c = (struct counter){.runs = 0};
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
}

static void counter_wait(struct counter *c, unsigned runs, unsigned waiting)
{
	pthread_mutex_lock(&c->lock);
	while (c->runs < runs || c->waiting < waiting)
		pthread_cond_wait(&c->cond, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

static void counter_release(struct counter *c)
{
	pthread_mutex_lock(&c->lock);
	c->is_held = false;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

/* Item 0 is NULL: a NULL item is run like any other. */
static void test_every_item_runs_once(void **state)
{
	struct counter c;
	struct pool *p = NULL;

	(void)state;
	counter_init(&c);
	assert_int_equal(pool_new(3, 64, count_run, &c, &p), 0);
	for (uintptr_t i = 0; i < 64; i++)
		assert_int_equal(pool_push(p, (void *)i), 0);
	counter_wait(&c, 64, 0);
	pool_free(p);
	for (unsigned i = 0; i < 64; i++)
		assert_int_equal(c.seen[i], 1);
}

/* Two workers held: two items are taken, four wait, the next is refused. */
static void test_queue_is_bounded(void **state)
{
	struct counter c;
	struct pool *p = NULL;

	(void)state;
	counter_init(&c);
	c.is_held = true;
	assert_int_equal(pool_new(2, 4, count_run, &c, &p), 0);
	for (uintptr_t i = 0; i < 2; i++)
		assert_int_equal(pool_push(p, (void *)i), 0);
	counter_wait(&c, 0, 2);
	for (uintptr_t i = 2; i < 6; i++)
		assert_int_equal(pool_push(p, (void *)i), 0);
	assert_int_equal(pool_push(p, (void *)6), -EAGAIN);
	counter_release(&c);
	counter_wait(&c, 6, 0);
	assert_int_equal(pool_push(p, (void *)7), 0);
	pool_free(p); /* runs 7 if no worker took it yet */
	assert_int_equal(c.runs, 7);
	assert_int_equal(c.seen[6], 0);
	assert_int_equal(c.seen[7], 1);
}

/* Items still queued when pool_free() starts are run, not lost. */
static void test_free_runs_the_queue(void **state)
{
	struct counter c;
	struct pool *p = NULL;

	(void)state;
	counter_init(&c);
	c.is_held = true;
	assert_int_equal(pool_new(1, 8, count_run, &c, &p), 0);
	for (uintptr_t i = 0; i < 8; i++)
		assert_int_equal(pool_push(p, (void *)i), 0);
	counter_wait(&c, 0, 1);
	counter_release(&c);
	pool_free(p);
	assert_int_equal(c.runs, 8);
}

static void test_bad_arguments(void **state)
{
	struct counter c;
	struct pool *p = NULL;

	(void)state;
	counter_init(&c);
	assert_int_equal(pool_new(0, 4, count_run, &c, &p), -EINVAL);
	assert_int_equal(pool_new(1, 0, count_run, &c, &p), -EINVAL);
	assert_int_equal(pool_new(1, 4, NULL, &c, &p), -EINVAL);
	assert_null(p);
	pool_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_item_runs_once),
	    cmocka_unit_test(test_queue_is_bounded),
	    cmocka_unit_test(test_free_runs_the_queue),
	    cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
