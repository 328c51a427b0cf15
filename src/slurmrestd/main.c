/* main.c - slurmrestd [-f slurm.conf] [-a rest_auth/local,rest_auth/jwt]
 *                     [-t threads] [-v...] <host:port | unix:/path> ...
 *
 * Reads slurm.conf, loads the jwt key when AuthAltTypes=auth/jwt (a key
 * group or others may read is refused: slurmrestd does not start), listens
 * on every address given and serves until SIGTERM/SIGINT. See restd.h for
 * how a request flows and docs/rest.md for the API.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "common/conf.h"
#include "common/errprintf.h"
#include "common/jwt_hs.h"
#include "common/log.h"
#include "common/macros.h"
#include "pool.h"
#include "restd.h"
#include "www.h"

struct restd_args {
	const char *conf;
	const char *auth;
	unsigned threads;
	int verbose;
	char **listen;
	int nlisten;
};

static const char usage_text[] =
    "Usage: slurmrestd [OPTIONS] [host:port|unix:/path/to/socket]...\n"
    "  -a <plugins>   authentication: rest_auth/local (unix sockets) and/or\n"
    "                 rest_auth/jwt (TCP), comma separated; default both\n"
    "  -f <file>      read this slurm.conf\n"
    "  -t <count>     worker threads (default 4, at most 64)\n"
    "  -v             more verbose logging (repeat for more)\n"
    "  -V             print the version and exit\n"
    "  -h             this help\n";

static int parse_auth(const char *s, unsigned *ret)
{
	_cleanup_free_ char *copy = strdup(s);
	char *save = NULL;

	*ret = 0;
	if (!copy)
		return -ENOMEM;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (streq(w, "rest_auth/local") || streq(w, "local"))
			*ret |= RESTD_AUTH_LOCAL;
		else if (streq(w, "rest_auth/jwt") || streq(w, "jwt") || streq(w, "auth/jwt"))
			*ret |= RESTD_AUTH_JWT;
		else
			return -EINVAL;
	}
	return *ret ? 0 : -EINVAL;
}

static void parse_args(int argc, char **argv, struct restd_args *a)
{
	int ch;
	char *end;

	*a = (struct restd_args){ .threads = RESTD_WORKERS };
	while ((ch = getopt(argc, argv, "a:f:t:vVh")) != -1) {
		switch (ch) {
		case 'a': a->auth = optarg; break;
		case 'f': a->conf = optarg; break;
		case 't':
			a->threads = (unsigned)strtoul(optarg, &end, 10);
			if (*end || a->threads == 0 || a->threads > 64) {
				fprintf(stderr, "slurmrestd: invalid thread count: %s\n", optarg);
				exit(1);
			}
			break;
		case 'v': a->verbose++; break;
		case 'V': printf("slurm %s\n", SL_VERSION); exit(0);
		case 'h': fputs(usage_text, stdout); exit(0);
		default: fputs(usage_text, stderr); exit(1);
		}
	}
	a->listen = argv + optind;
	a->nlisten = argc - optind;
	if (a->nlisten < 1 || a->nlisten > RESTD_MAX_LISTEN) {
		fprintf(stderr, "slurmrestd: give 1 to %d addresses to listen on\n%s",
			RESTD_MAX_LISTEN, usage_text);
		exit(1);
	}
}

/* The key of AuthAltParameters=jwt_key=: 0 (loaded, or auth/jwt not
 * configured: TCP requests then get 401), <0 when it is configured but
 * cannot be used. */
static int load_jwt(struct restd *rd)
{
	_cleanup_free_ char *path = NULL;
	struct sl_error err = { { 0 } };
	int r;

	if (!(rd->auth & RESTD_AUTH_JWT))
		return 0;
	r = jwt_conf_key_path(rd->conf, &path);
	if (r == -ENOENT || (r == 0 && !path)) {
		info("auth/jwt is not configured (AuthAltTypes=auth/jwt, "
		     "AuthAltParameters=jwt_key=PATH): TCP requests will be refused");
		return 0;
	}
	if (r < 0)
		return r;
	r = jwt_key_load(path, rd->conf->slurm_user_id, &rd->jwt, &err);
	if (r < 0) {
		error("auth/jwt: %s", err.text);
		return r;
	}
	rd->has_jwt = true;
	return 0;
}

static void sig_cb(evutil_socket_t sig, short what, void *arg)
{
	(void)what;
	info("slurmrestd: caught signal %d, exiting", (int)sig);
	event_base_loopexit(arg, NULL);
}

static int setup(struct restd *rd, const struct restd_args *a)
{
	int r;

	if (getuid() != 0 && getuid() != rd->conf->slurm_user_id)
		error("slurmrestd runs as uid %u, neither root nor SlurmUser: the controller "
		      "will refuse every request it makes on a user's behalf",
		      (unsigned)getuid());
	r = load_jwt(rd);
	if (r < 0)
		return r;
	r = restd_http_init(rd);
	if (r < 0)
		return r;
	rd->www = www_new(NULL);
	if (!rd->www)
		return -ENOMEM;
	for (int i = 0; i < a->nlisten; i++) {
		r = restd_listen(rd, a->listen[i]);
		if (r < 0) {
			error("cannot listen on %s: %s", a->listen[i], strerror(-r));
			return r;
		}
	}
	return restd_http_workers(rd, a->threads);
}

int main(int argc, char **argv)
{
	struct restd rd = { .auth = RESTD_AUTH_LOCAL | RESTD_AUTH_JWT };
	struct sl_error err = { { 0 } };
	struct restd_args a;
	struct event *sigs[2] = { NULL, NULL };
	int r, level;

	parse_args(argc, argv, &a);
	log_init("slurmrestd", LOG_LEVEL_INFO, NULL, 1);
	if (a.auth && parse_auth(a.auth, &rd.auth) < 0) {
		fprintf(stderr, "slurmrestd: unknown authentication plugin in: %s\n", a.auth);
		return 1;
	}
	r = conf_load(a.conf ? a.conf : conf_default_path(), &rd.conf, &err);
	if (r < 0) {
		fprintf(stderr, "slurmrestd: fatal: %s\n", err.text);
		return 1;
	}
	level = LOG_LEVEL_INFO + a.verbose;
	log_set_level(level >= _LOG_LEVEL_MAX ? _LOG_LEVEL_MAX - 1 : level);
	signal(SIGPIPE, SIG_IGN);
	if (evthread_use_pthreads() < 0 || !(rd.base = event_base_new())) {
		fprintf(stderr, "slurmrestd: fatal: cannot create the event loop\n");
		return 1;
	}
	r = setup(&rd, &a);
	if (r == 0) {
		sigs[0] = evsignal_new(rd.base, SIGTERM, sig_cb, rd.base);
		sigs[1] = evsignal_new(rd.base, SIGINT, sig_cb, rd.base);
		for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
			if (sigs[i])
				event_add(sigs[i], NULL);
		info("slurmrestd version %s started", SL_VERSION);
		event_base_dispatch(rd.base);
	}
	pool_free(rd.pool); /* joins the workers */
	restd_http_fini(&rd);
	www_free(rd.www);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		if (sigs[i])
			event_free(sigs[i]);
	jwt_key_done(&rd.jwt);
	event_base_free(rd.base);
	conf_free(rd.conf);
	return r < 0 ? 1 : 0;
}
