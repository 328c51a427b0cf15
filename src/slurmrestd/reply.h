/* reply.h - the bodies slurmrestd answers with: Slurm's v0.0.38 documents
 * ({"meta":..., "errors":[...], ...}) through data_out.h. */
#pragma once
#include <stdbool.h>

struct dout;
struct rest_req;

/* A document opened with meta (db: the slurmdb plugin's) and an empty
 * errors list; the caller adds its members, then rest_reply_doc(). */
struct dout *rest_doc_new(bool db);
/* Close d's top object, make it r's body with status; frees d. */
void rest_reply_doc(struct rest_req *r, int status, struct dout *d);
/* A whole document a data_*_doc() function wrote: 200 with it (500 when
 * the emitter failed); frees d. */
void rest_reply_written(struct rest_req *r, struct dout *d);
/* {"meta":..., "errors":[{"error": text or sl_strerror(code), "errno": code}]}
 * code is positive or negative; text NULL: the code's text. */
void rest_reply_error(struct rest_req *r, int status, int code, const char *text);
/* The HTTP status Slurm's slurmrestd gives an RPC's error code. */
int rest_status_of(int code);
