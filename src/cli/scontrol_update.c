/* scontrol_update.c - "scontrol update NodeName=..." words into a request.
 *
 * Purpose: scontrol's node update parser, kept apart from the command so
 * tests can feed it words. Keys are matched as scontrol matches them
 * (case-insensitive, least abbreviations NodeName 1, Features 1,
 * AvailableFeatures 3, Weight 1, Comment 2, Reason 1, State 1); State
 * words go through node_update_state_from_string().
 * Errors print scontrol's own text on stderr.
 * Caveats: keys Slurm accepts that our update message cannot carry
 * (Gres, NodeAddr, CpuBind, Extra, ResumeAfter, ...) get scontrol's
 * "Update of this parameter is not supported" message.
 */
#include "cli/scontrol_update.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/states.h"

static void bad_state(const char *arg)
{
	fprintf(stderr, "Invalid input: %s\n", arg);
	fprintf(stderr, "Request aborted\n");
	fprintf(stderr, "Valid states are: NoResp DRAIN FAIL FUTURE RESUME POWER_DOWN POWER_UP "
			"UNDRAIN\n");
	fprintf(stderr, "Not all states are valid given a node's prior state\n");
}

/* One "Key=value" of a node update into m; false: stop, already reported. */
static bool node_field(struct update_node_msg *m, char *arg, int *changes)
{
	char *val = strchr(arg, '=');
	size_t len;
	enum node_update_state st;

	if (!val) {
		cli_error("Invalid input: %s  Request aborted", arg);
		return false;
	}
	len = (size_t)(val++ - arg);
	if (cli_keyword_match(arg, len, "NodeName", 1)) {
		m->node_names = val;
		return true;
	}
	(*changes)++;
	if (cli_keyword_match(arg, len, "Features", 1)
	    || cli_keyword_match(arg, len, "AvailableFeatures", 3)) {
		m->features = val;
	} else if (cli_keyword_match(arg, len, "ActiveFeatures", 3)
		   || cli_keyword_match(arg, len, "FeaturesAct", 9)) {
		m->features_act = val;
	} else if (cli_keyword_match(arg, len, "Weight", 1)) {
		char *end = NULL;
		unsigned long w = strtoul(val, &end, 10);

		if (!*val || *end || w >= NO_VAL || val[0] == '-') {
			cli_error("Invalid value %s for Weight", arg);
			return false;
		}
		m->weight = (uint32_t)w;
	} else if (cli_keyword_match(arg, len, "Comment", 2)) {
		m->comment = val;
	} else if (cli_keyword_match(arg, len, "Reason", 1)) {
		size_t n;

		val += *val == '"'; /* quotes around the reason are dropped */
		n = strlen(val);
		if (n && val[n - 1] == '"')
			val[n - 1] = '\0';
		m->reason = val;
	} else if (cli_keyword_match(arg, len, "State", 1)) {
		if (node_update_state_from_string(val, &st) < 0) {
			bad_state(arg);
			return false;
		}
		m->state = st;
	} else {
		fprintf(stderr, "Update of this parameter is not supported: %s\n", arg);
		fprintf(stderr, "Request aborted\n");
		return false;
	}
	return true;
}

int scontrol_update_node_parse(int argc, char **argv, struct update_node_msg *m)
{
	int changes = 0;

	*m = (struct update_node_msg){.weight = NO_VAL};
	for (int i = 0; i < argc; i++)
		if (!node_field(m, argv[i], &changes))
			return -EINVAL;
	if ((m->state == NODE_UPDATE_DOWN || m->state == NODE_UPDATE_DRAIN
	     || m->state == NODE_UPDATE_FAIL)
	    && (!m->reason || !*m->reason)) {
		fprintf(stderr, "You must specify a reason when DOWNING or DRAINING a node. "
				"Request denied\n");
		return -EINVAL;
	}
	if (!changes) {
		fprintf(stderr, "No changes specified\n");
		return -EINVAL;
	}
	return 0;
}

int scontrol_reboot_parse(int argc, char **argv, struct reboot_msg *m)
{
	*m = (struct reboot_msg){.next_state = NO_VAL};
	for (int i = 0; i < argc; i++) {
		char *arg = argv[i], *val = strchr(arg, '=');
		size_t len = val ? (size_t)(val - arg) : strlen(arg);

		if (!val && cli_keyword_match(arg, len, "ASAP", 4)) {
			m->flags |= REBOOT_FLAGS_ASAP;
		} else if (val && cli_keyword_match(arg, len, "Reason", 3)) {
			size_t n;

			val++;
			val += *val == '"';
			n = strlen(val);
			if (n && val[n - 1] == '"')
				val[--n] = '\0';
			if (!n) {
				fprintf(stderr, "missing reason\n");
				return -EINVAL;
			}
			m->reason = val;
		} else if (val && cli_keyword_match(arg, len, "nextstate", 9)) {
			val++;
			if (!*val) {
				fprintf(stderr, "missing state\n");
				return -EINVAL;
			}
			if (cli_keyword_match(val, strlen(val), "RESUME", 1)) {
				m->next_state = NODE_UPDATE_RESUME;
			} else if (cli_keyword_match(val, strlen(val), "DOWN", 1)) {
				m->next_state = NODE_UPDATE_DOWN;
			} else {
				fprintf(stderr, "Invalid state: %s\n", val);
				fprintf(stderr, "Valid states: DOWN, RESUME\n");
				return -EINVAL;
			}
		} else if (!val && !m->node_list) {
			m->node_list = arg; /* ALL or a node list */
		} else {
			fprintf(stderr, "Invalid input: %s\n", arg);
			return -EINVAL;
		}
	}
	if (!m->node_list) {
		fprintf(stderr, "Missing node list. Specify ALL|<NodeList>\n");
		return -EINVAL;
	}
	return 0;
}
