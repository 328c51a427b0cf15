/* cli_data.h - what --json and --yaml share in the commands: the choice
 * of output and writing the finished document to stdout.
 */
#pragma once
#include <stdbool.h>

struct dout;

enum cli_mime {
	CLI_MIME_TEXT = 0,
	CLI_MIME_JSON,
	CLI_MIME_YAML,
};

/* A new emitter for mime (JSON or YAML) streaming to stdout as it goes
 * (dout_sink_fd); NULL on no memory. */
struct dout *cli_data_new(enum cli_mime mime);

/* Write the rest of d's document to stdout and free d. Returns 0, or -1
 * after "<prog>: error: ..." when the emitter failed or stdout did. */
int cli_data_print(struct dout *d);
