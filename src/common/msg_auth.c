/* msg_auth.c - pack/unpack of the token messages; see msg_auth.h. */
#include "msg_auth.h"

#include <stdlib.h>

#include "limits.h"
#include "msg_family.h"
#include "pack.h"

void auth_token_req_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct auth_token_req *m = msg;

	(void)ver;
	pack_str(b, m->username);
	pack_u32(b, m->lifespan);
}

int auth_token_req_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct auth_token_req *m = msg;

	(void)ver;
	unpack_str(b, &m->username, SL_NAME_MAX);
	unpack_u32(b, &m->lifespan);
	return b->err;
}

void auth_token_req_free(void *msg)
{
	struct auth_token_req *m = msg;

	free(m->username);
}

void auth_token_resp_pack(const void *msg, struct pack_buf *b, uint16_t ver)
{
	const struct auth_token_resp *m = msg;

	(void)ver;
	pack_str(b, m->token);
}

int auth_token_resp_unpack(void *msg, struct pack_buf *b, uint16_t ver)
{
	struct auth_token_resp *m = msg;

	(void)ver;
	unpack_str(b, &m->token, 8192);
	return b->err;
}

void auth_token_resp_free(void *msg)
{
	struct auth_token_resp *m = msg;

	free(m->token);
}
