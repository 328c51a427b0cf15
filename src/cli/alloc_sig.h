/* alloc_sig.h - signals as counters for the poll loops of srun and salloc.
 *
 * alloc_sig_init() blocks the given signals and counts their arrivals in
 * a handler; a loop waits with alloc_sig_poll() (ppoll with them
 * unblocked), so a signal either lands before the wait, and the wait
 * returns at once, or interrupts it: none is lost between a check and the
 * wait. Children get the original mask back with alloc_sig_child().
 */
#pragma once
#include <poll.h>
#include <stdbool.h>

/* sigs: 0-terminated. Returns 0 or -errno. */
int alloc_sig_init(const int *sigs);
/* How many times sig arrived since the last call (then reset). */
int alloc_sig_take(int sig);
/* Any counted signal pending (not reset). */
bool alloc_sig_pending(void);
/* ppoll over fds for timeout_ms (-1: forever) with the signals open.
 * Returns as poll(); -1 with errno EINTR when a signal came. */
int alloc_sig_poll(struct pollfd *fds, nfds_t n, int timeout_ms);
/* In a forked child before exec: default handlers, the mask of before. */
void alloc_sig_child(void);
