/* alloc_sig.c - signals as counters for poll loops; see alloc_sig.h.
 * Owns: the per-signal counters and the mask saved at init (a command's
 * process-wide signal state, docs/style.md R2's allowed kind of global).
 */
#include "cli/alloc_sig.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#define SIG_MAX 65

static volatile sig_atomic_t sig_count[SIG_MAX];
static sigset_t sig_old, sig_open;
static int sig_list[SIG_MAX];

static void on_signal(int sig)
{
	if (sig > 0 && sig < SIG_MAX)
		sig_count[sig]++;
}

int alloc_sig_init(const int *sigs)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigset_t block;
	size_t n = 0;

	sigemptyset(&block);
	sigemptyset(&sa.sa_mask);
	for (; sigs[n] && n + 1 < SIG_MAX; n++) {
		sigaddset(&block, sigs[n]);
		sig_list[n] = sigs[n];
	}
	sig_list[n] = 0;
	if (sigprocmask(SIG_BLOCK, &block, &sig_old) < 0)
		return -errno;
	sig_open = sig_old;
	for (size_t i = 0; i < n; i++) {
		sigdelset(&sig_open, sigs[i]);
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return -errno;
	}
	return 0;
}

int alloc_sig_take(int sig)
{
	int n;

	if (sig <= 0 || sig >= SIG_MAX)
		return 0;
	n = sig_count[sig];
	sig_count[sig] = 0;
	return n;
}

bool alloc_sig_pending(void)
{
	for (int i = 0; sig_list[i]; i++)
		if (sig_count[sig_list[i]])
			return true;
	return false;
}

int alloc_sig_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};

	if (alloc_sig_pending()) {
		errno = EINTR;
		return -1;
	}
	return ppoll(fds, n, timeout_ms < 0 ? NULL : &ts, &sig_open);
}

void alloc_sig_child(void)
{
	for (int i = 0; sig_list[i]; i++)
		signal(sig_list[i], SIG_DFL);
	sigprocmask(SIG_SETMASK, &sig_old, NULL);
}
