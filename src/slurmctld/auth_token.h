/* auth_token.h - `scontrol token`: the controller signs JWTs with the key
 * of AuthAltTypes=auth/jwt, AuthAltParameters=jwt_key=PATH. The key is read
 * at start and on reconfigure (never per request), and refused, with a log
 * line, when group or others may read it.
 */
#pragma once

struct ctld;
struct rpc_req;

int auth_token_init(struct ctld *c);  /* never fails the start: no key = no tokens */
void auth_token_fini(struct ctld *c);
void auth_token_reload(struct ctld *c); /* reconfigure: the key named now */

/* REQUEST_AUTH_TOKEN: a user may ask for themself only, root/SlurmUser for
 * any name; with AuthAltParameters=disable_token_creation, only they. */
int rpc_auth_token(struct ctld *c, struct rpc_req *req);
