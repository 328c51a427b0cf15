/* scontrol_part.c - see scontrol_part.h. Purpose: the partition verbs of
 * scontrol, checked here with the same key table slurm.conf uses
 * (conf_part_edit), so a typo is reported before anything is sent. */
#include "cli/scontrol_part.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "common/conf.h"
#include "common/errprintf.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/rpc_client.h"

static bool is_name_word(const char *w)
{
	size_t len = strcspn(w, "=");

	return w[len] == '=' && len >= 3 && !strncasecmp(w, "PartitionName", len);
}

static const char *failure_prefix(uint16_t type, const char *name_word)
{
	static char buf[256];

	if (type == REQUEST_CREATE_PARTITION)
		return "Error creating the partition";
	if (type == REQUEST_DELETE_PARTITION) {
		snprintf(buf, sizeof(buf), "delete_partition %s", name_word);
		return buf;
	}
	return "slurm_update error";
}

int scontrol_part_edit(const struct sl_conf *conf, uint16_t type, int argc, char **argv)
{
	char *words[PART_EDIT_WORDS_MAX];
	struct part_edit_msg m = {.words = words};
	struct conf_part scratch;
	const char *name_word = NULL;
	int r = 0;

	if (conf_part_defaults(&scratch, "scratch") < 0)
		return -1;
	for (int i = 0; i < argc && r == 0; i++) {
		struct sl_error err = {{0}};

		if (is_name_word(argv[i])) {
			name_word = argv[i];
			m.name = strchr(argv[i], '=') + 1;
		} else if (type == REQUEST_DELETE_PARTITION
			   || m.word_count == PART_EDIT_WORDS_MAX) {
			cli_error("Invalid input: %s", argv[i]);
			r = -1;
		} else if (conf_part_edit(&scratch, argv[i], &err) < 0) {
			fprintf(stderr, "%s\n", err.text);
			r = -1;
		} else {
			words[m.word_count++] = argv[i];
		}
	}
	conf_part_free(&scratch);
	if (r == 0 && (!m.name || !*m.name)) {
		fprintf(stderr, "No valid partition name given\n");
		r = -1;
	}
	if (r < 0) {
		fprintf(stderr, "Request aborted\n");
		return -1;
	}
	r = rpc_call_ctld_rc(conf, type, &m);
	if (r < 0) {
		cli_perror(failure_prefix(type, name_word), r);
		return -1;
	}
	return 0;
}
