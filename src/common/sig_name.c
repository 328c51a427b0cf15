/* sig_name.c - signal names as scancel -s and slurmrestd's ?signal= take
 * them; see sig_name.h. */
#include "sig_name.h"

#include <ctype.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macros.h"

static const struct {
	const char *name;
	int num;
} signals[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},	  {"QUIT", SIGQUIT}, {"ABRT", SIGABRT}, {"KILL", SIGKILL},
    {"ALRM", SIGALRM}, {"TERM", SIGTERM}, {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"URG", SIGURG},
    {"CONT", SIGCONT}, {"STOP", SIGSTOP}, {"TSTP", SIGTSTP}, {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},
    {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ}, {"PIPE", SIGPIPE}, {"BUS", SIGBUS},	{"SEGV", SIGSEGV},
};

int sig_name2num(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (end != s) {
		while (isspace((unsigned char)*end))
			end++;
		return *end || n <= 0 || n > 0xffff ? 0 : (int)n;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (size_t i = 0; i < ARRAY_SIZE(signals); i++) {
		size_t len = strlen(signals[i].name);

		if (!strncasecmp(s, signals[i].name, len)
		    && strspn(s + len, " \t\n") == strlen(s + len))
			return signals[i].num;
	}
	return 0;
}
