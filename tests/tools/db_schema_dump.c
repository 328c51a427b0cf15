/* db_schema_dump.c - prints {"schemas": {...}} with the dbv0.0.38
 * components data_schemas_db() writes (common/data_acct.h), for the
 * integration tests to validate sacct --json against the same tables
 * that write it. No arguments; exits 1 if the emitter failed.
 */
#include <stdio.h>

#include "common/data_acct.h"
#include "common/data_out.h"

int main(void)
{
	struct dout *d = dout_new(DOUT_JSON);
	size_t len;
	int r;

	if (!d)
		return 1;
	dout_obj(d, NULL);
	dout_obj(d, "schemas");
	data_schemas_db(d);
	dout_end(d);
	dout_end(d);
	r = dout_error(d);
	if (r == 0) {
		const char *text = dout_text(d, &len);
		r = fwrite(text, 1, len, stdout) == len ? 0 : 1;
	}
	dout_free(d);
	return r ? 1 : 0;
}
