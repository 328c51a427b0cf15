/* cli_data.c - --json/--yaml output of the commands (cli_data.h). */
#include "cli/cli_data.h"

#include <stdio.h>

#include "cli/cli.h"
#include "common/data_out.h"

struct dout *cli_data_new(enum cli_mime mime)
{
	return dout_new(mime == CLI_MIME_YAML ? DOUT_YAML : DOUT_JSON);
}

int cli_data_print(struct dout *d)
{
	size_t len = 0;
	const char *text = d ? dout_text(d, &len) : NULL;
	int r = 0;

	if (!d || dout_error(d) || !text) {
		cli_error("%s", "unable to write the document");
		r = -1;
	} else if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
		r = -1;
	}
	dout_free(d);
	return r;
}
