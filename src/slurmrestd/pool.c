/* pool.c - the worker threads that run requests (their RPCs to slurmctld
 * block), so that the loop that accepts and reads connections never
 * waits. A bounded queue: past RESTD_MAX_QUEUED the loop answers 503. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "common/log.h"
#include "restd.h"

struct restd_pool {
	struct restd *rd;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct rest_req *head, **tail;
	unsigned queued;
	bool is_stopping;
	pthread_t *threads;
	unsigned nthreads;
};

static struct rest_req *pool_pop(struct restd_pool *p)
{
	struct rest_req *r;

	pthread_mutex_lock(&p->lock);
	while (!p->head && !p->is_stopping)
		pthread_cond_wait(&p->cond, &p->lock);
	r = p->head;
	if (r) {
		p->head = r->next;
		if (!p->head)
			p->tail = &p->head;
		p->queued--;
		r->next = NULL;
	}
	pthread_mutex_unlock(&p->lock);
	return r;
}

static void *pool_main(void *arg)
{
	struct restd_pool *p = arg;
	struct rest_req *r;

	while ((r = pool_pop(p))) {
		if (rest_auth(r) == 0)
			rest_route(r);
		restd_http_done(r);
	}
	return NULL;
}

int restd_pool_new(struct restd *rd, unsigned workers, struct restd_pool **ret)
{
	struct restd_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->rd = rd;
	p->tail = &p->head;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->threads = calloc(workers, sizeof(*p->threads));
	if (!p->threads) {
		free(p);
		return -ENOMEM;
	}
	for (; p->nthreads < workers; p->nthreads++)
		if (pthread_create(&p->threads[p->nthreads], NULL, pool_main, p) != 0)
			break;
	if (!p->nthreads) {
		restd_pool_free(p);
		return -EAGAIN;
	}
	*ret = p;
	return 0;
}

void restd_pool_free(struct restd_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->is_stopping = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	/* what was still queued: the loop is gone, drop it */
	while (p->head) {
		struct rest_req *r = p->head;

		p->head = r->next;
		rest_req_free(r);
	}
	free(p->threads);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}

int restd_pool_push(struct restd_pool *p, struct rest_req *r)
{
	int rc = 0;

	pthread_mutex_lock(&p->lock);
	if (p->queued >= RESTD_MAX_QUEUED || p->is_stopping) {
		rc = -EAGAIN;
	} else {
		r->next = NULL;
		*p->tail = r;
		p->tail = &r->next;
		p->queued++;
		pthread_cond_signal(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return rc;
}
