/* scontrol_token.c - scontrol token; see scontrol_token.h. */
#include "scontrol_token.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/ctld_fetch.h"
#include "common/msg.h"
#include "common/msg_auth.h"
#include "common/sl_errno.h"

static int token_args(int argc, char **argv, struct auth_token_req *req)
{
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		char *end = NULL;
		unsigned long v;

		if (eq && strncasecmp(argv[i], "username=", 9) == 0 && eq[1]) {
			req->username = eq + 1;
			continue;
		}
		if (eq && strncasecmp(argv[i], "lifespan=", 9) == 0) {
			errno = 0;
			v = strtoul(eq + 1, &end, 10);
			if (errno || !eq[1] || *end || eq[1] == '-' || v == 0 || v > 0xfffffffeUL) {
				fprintf(stderr, "Invalid lifespan: %s\n", eq + 1);
				return -EINVAL;
			}
			req->lifespan = (uint32_t)v;
			continue;
		}
		fprintf(stderr, "Invalid parameter: %s\n", argv[i]);
		return -EINVAL;
	}
	return 0;
}

int scontrol_token(const struct sl_conf *conf, int argc, char **argv)
{
	struct auth_token_req req = { 0 };
	struct auth_token_resp *resp = NULL;
	int r;

	if (token_args(argc, argv, &req) < 0)
		return 1;
	r = ctld_fetch(conf, REQUEST_AUTH_TOKEN, &req, RESPONSE_AUTH_TOKEN, (void **)&resp);
	if (r == 0)
		printf("SLURM_JWT=%s\n", resp->token ? resp->token : "");
	else
		fprintf(stderr, "token request failed: %s\n", sl_strerror(r));
	msg_free(msg_lookup(RESPONSE_AUTH_TOKEN), resp);
	return r == 0 ? 0 : 1;
}
