/* alloc_client.h - what srun and salloc share as clients of an
 * interactive allocation: the TCP listener the controller reaches (the
 * delayed grant, SRUN_PING, SRUN_TIMEOUT, SRUN_JOB_COMPLETE), the
 * allocation request, the wait for the grant, and giving it back.
 *
 * Messages on the listener are ordinary authenticated request frames,
 * one per connection. Only root and SlurmUser may send them: anything
 * else, and any malformed frame, is dropped without an answer and never
 * ends the client.
 */
#pragma once
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

struct sl_conf;
struct job_desc;
struct alloc_response;

struct alloc_listener {
	int fd;                      /* listening socket, -1 when closed */
	char host[INET_ADDRSTRLEN];  /* the address the controller reaches us at */
	uint16_t port;
};

/* The local address this host uses to reach the controller (dotted
 * quad, "127.0.0.1" when it cannot be found). */
void alloc_local_addr(const struct sl_conf *conf, char *buf, size_t n);

/* Listen on host (a dotted quad) at an ephemeral port; 0 or -errno. */
int alloc_tcp_listen(const char *host, int *ret_fd, uint16_t *ret_port);

int alloc_listener_open(const struct sl_conf *conf, struct alloc_listener *l);
void alloc_listener_close(struct alloc_listener *l);

/* Accept one connection on l (call when l->fd is readable), read one
 * frame within MessageTimeout, check the sender, answer RESPONSE_SLURM_RC
 * 0 and hand the message out: 0 with *ret_type and *ret_msg (owned, free
 * with msg_free(msg_lookup(type), m)). -EAGAIN when nothing usable came. */
int alloc_listener_recv(const struct sl_conf *conf, struct alloc_listener *l, uint16_t *ret_type,
			void **ret_msg);

/* REQUEST_RESOURCE_ALLOCATION. 0 with *ret (owned) when the controller
 * created the job (running or pending); else the negative code, with
 * *ret_user_msg (owned, may be NULL) the controller's explanation. */
int alloc_request(const struct sl_conf *conf, const struct job_desc *d,
		  struct alloc_response **ret, char **ret_user_msg);

/* Outcome of alloc_wait_grant(). */
enum alloc_wait {
	ALLOC_GRANTED,   /* *ret holds the grant */
	ALLOC_SIGNALLED, /* a counted signal came (alloc_sig.h): the caller decides */
	ALLOC_REVOKED,   /* SRUN_JOB_COMPLETE: the job ended before its grant */
	ALLOC_TIMED_OUT, /* timeout_ms passed first (-I): the caller gives the job back */
};
/* Wait on l for the grant of job_id, answering SRUN_PING meanwhile, for at
 * most timeout_ms (-1: for ever). */
enum alloc_wait alloc_wait_grant(const struct sl_conf *conf, struct alloc_listener *l,
				 uint32_t job_id, int timeout_ms, struct alloc_response **ret);

/* REQUEST_COMPLETE_JOB_ALLOCATION {job_id, rc}; 0 or a negative code. */
int alloc_complete(const struct sl_conf *conf, uint32_t job_id, uint32_t rc);

void alloc_grant_free(struct alloc_response *r); /* NULL-safe */

/* Short host name of this machine into buf ("" when unknown). */
void alloc_short_hostname(char *buf, size_t n);
