/* msg_auth.h - `scontrol token`: REQUEST_AUTH_TOKEN -> RESPONSE_AUTH_TOKEN
 * (a JWT signed by slurmctld with AuthAltParameters' jwt_key). Numbers in
 * our own range (docs/protocol.md).
 */
#pragma once
#include <stdint.h>

struct auth_token_req {
	char *username;	   /* NULL: the caller */
	uint32_t lifespan; /* seconds; 0: JWT_LIFESPAN_DFLT */
};

struct auth_token_resp {
	char *token;
};
