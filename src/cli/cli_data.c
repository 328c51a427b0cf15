/* cli_data.c - --json/--yaml output of the commands (cli_data.h). */
#include "cli/cli_data.h"

#include <stdio.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/data_out.h"

struct dout *cli_data_new(enum cli_mime mime)
{
	struct dout *d = dout_new(mime == CLI_MIME_YAML ? DOUT_YAML : DOUT_JSON);

	fflush(stdout); /* the document goes straight to the descriptor */
	if (d)
		dout_sink_fd(d, STDOUT_FILENO);
	return d;
}

int cli_data_print(struct dout *d)
{
	int r = 0;

	if (!d || dout_flush(d) != 0) {
		cli_error("%s", "unable to write the document");
		r = -1;
	}
	dout_free(d);
	return r;
}
