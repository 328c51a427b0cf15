/* openapi_dump.c - print the v0.0.38 OpenAPI spec (data_spec.h) as JSON,
 * or YAML with --yaml: the schema the integration tests validate every
 * --json document against. */
#include <stdio.h>
#include <string.h>

#include "common/data_out.h"
#include "common/data_spec.h"

int main(int argc, char **argv)
{
	struct dout *d = dout_new(argc > 1 && !strcmp(argv[1], "--yaml") ? DOUT_YAML : DOUT_JSON);
	size_t len = 0;
	const char *text;
	int rc = 0;

	if (!d)
		return 1;
	data_openapi_v0038(d);
	text = dout_text(d, &len);
	if (dout_error(d) || fwrite(text, 1, len, stdout) != len)
		rc = 1;
	dout_free(d);
	return rc;
}
