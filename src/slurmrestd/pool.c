/* pool.c - see pool.h. The queue is a ring of max_queued slots allocated
 * up front, so pushing never allocates and the backlog is bounded. */
#include "pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct pool {
	pool_item_fn *run;
	void *arg;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	void **ring;
	unsigned cap, head, queued;
	bool is_stopping;
	pthread_t *threads;
	unsigned nthreads;
};

/* The next item into *item: false once stopping and nothing is left, so
 * the workers empty the queue before they exit. An item may be NULL. */
static bool pool_pop(struct pool *p, void **item)
{
	bool has_item;

	pthread_mutex_lock(&p->lock);
	while (!p->queued && !p->is_stopping)
		pthread_cond_wait(&p->cond, &p->lock);
	has_item = p->queued > 0;
	if (has_item) {
		*item = p->ring[p->head];
		p->head = (p->head + 1) % p->cap;
		p->queued--;
	}
	pthread_mutex_unlock(&p->lock);
	return has_item;
}

static void *pool_main(void *arg)
{
	struct pool *p = arg;
	void *item;

	while (pool_pop(p, &item))
		p->run(item, p->arg);
	return NULL;
}

int pool_new(unsigned workers, unsigned max_queued, pool_item_fn *run, void *arg, struct pool **ret)
{
	struct pool *p;

	if (!workers || !max_queued || !run)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->run = run;
	p->arg = arg;
	p->cap = max_queued;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->ring = calloc(max_queued, sizeof(*p->ring));
	p->threads = calloc(workers, sizeof(*p->threads));
	if (!p->ring || !p->threads) {
		pool_free(p);
		return -ENOMEM;
	}
	for (; p->nthreads < workers; p->nthreads++)
		if (pthread_create(&p->threads[p->nthreads], NULL, pool_main, p) != 0)
			break;
	if (!p->nthreads) {
		pool_free(p);
		return -EAGAIN;
	}
	*ret = p;
	return 0;
}

void pool_free(struct pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->is_stopping = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	free(p->ring);
	free(p->threads);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}

int pool_push(struct pool *p, void *item)
{
	int rc = 0;

	pthread_mutex_lock(&p->lock);
	if (p->queued >= p->cap || p->is_stopping) {
		rc = -EAGAIN;
	} else {
		p->ring[(p->head + p->queued) % p->cap] = item;
		p->queued++;
		pthread_cond_signal(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return rc;
}
