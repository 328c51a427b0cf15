/* sacctmgr.c - the sacctmgr command: accounts, users, QOS and clusters in
 * the controller's association table (REQUEST_ASSOC_MGR, REQUEST_ASSOC_LIST).
 *
 *   sacctmgr [-i] [-n] [-p|-P] [-s] [-Q] add|modify|delete|list|show ENTITY
 *            [NAMES] [where COND...] [set OPT...] [format=F,...]
 *
 * A change is checked by the controller first (without ASSOC_F_COMMIT) and
 * what it would do is printed; without -i the user is asked to commit
 * (30 seconds, as Slurm); then it is sent again with ASSOC_F_COMMIT. The
 * controller answers a committed change once it is on disk.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "api/ctld_fetch.h"
#include "cli/cli.h"
#include "cli/sacctmgr_list.h"
#include "common/conf.h"
#include "common/msg.h"
#include "common/msg_assoc.h"
#include "common/sl_errno.h"

#define COMMIT_WAIT_S 30

struct args {
	bool is_immediate, is_quiet;
	struct list_opts lo;
	const char *cmd, *entity;
	char *names, *where, *set; /* comma list, '\n' lines */
};

static void usage(FILE *f)
{
	fprintf(f, "sacctmgr [<OPTION>] [<COMMAND>]\n"
		   "    Valid <OPTION> values are:\n"
		   "     -i or --immediate: commit changes immediately\n"
		   "     -n or --noheader:  no header will be added to the beginning of output\n"
		   "     -p or --parsable:  output will be '|' delimited with a '|' at the end\n"
		   "     -P or --parsable2: output will be '|' delimited without a '|' at the end\n"
		   "     -Q or --quiet:     print no messages other than error messages\n"
		   "     -s or --associations: list associations with the entity\n"
		   "     -V or --version:   print version\n\n"
		   "  <COMMAND> is add|modify|delete|list|show with an <ENTITY>:\n"
		   "     account, association, cluster, qos, user\n");
}

static int append(char **dst, const char *s, char sep)
{
	size_t old = *dst ? strlen(*dst) : 0, n = strlen(s);
	char *v = realloc(*dst, old + n + 2);

	if (!v)
		return -ENOMEM;
	if (old)
		v[old++] = sep;
	memcpy(v + old, s, n + 1);
	*dst = v;
	return 0;
}

static const char *entity_of(const char *w)
{
	static const struct {
		const char *word, *entity;
		size_t min;
	} ents[] = {{"accounts", "account", 3},
		    {"associations", "association", 3},
		    {"clusters", "cluster", 2},
		    {"qos", "qos", 1},
		    {"users", "user", 1}};

	for (size_t i = 0; i < sizeof(ents) / sizeof(ents[0]); i++)
		if (cli_keyword_match(w, strlen(w), ents[i].word, ents[i].min))
			return ents[i].entity;
	return NULL;
}

/* List conditions: Name=, Account=, User=, Partition=, Format=, WithAssoc. */
static int list_cond(struct args *a, char *w)
{
	char *eq = strchr(w, '=');
	const char *v = eq ? eq + 1 : NULL;

	if (!eq) {
		if (strcasecmp(w, "withassoc") == 0 || strcasecmp(w, "withassocs") == 0)
			a->lo.with_assoc = true;
		else if (strcasecmp(w, "where") != 0)
			return append(&a->lo.names, w, ',');
		return 0;
	}
	*eq = '\0';
	if (strncasecmp(w, "format", 6) == 0)
		a->lo.format = v;
	else if (strncasecmp(w, "names", 4) == 0)
		return append(&a->lo.names, v, ',');
	else if (strncasecmp(w, "accounts", 3) == 0)
		a->lo.accounts = (char *)v;
	else if (strncasecmp(w, "users", 4) == 0)
		a->lo.users = (char *)v;
	else if (strncasecmp(w, "partitions", 4) == 0)
		a->lo.partitions = (char *)v;
	else if (strncasecmp(w, "cluster", 7) != 0) {
		fprintf(stderr, " Unknown condition: %s=%s\n", w, v);
		return -EINVAL;
	}
	return 0;
}

static int parse_args(struct args *a, int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"immediate", no_argument, NULL, 'i'}, {"noheader", no_argument, NULL, 'n'},
	    {"parsable", no_argument, NULL, 'p'},  {"parsable2", no_argument, NULL, 'P'},
	    {"quiet", no_argument, NULL, 'Q'},	   {"associations", no_argument, NULL, 's'},
	    {"version", no_argument, NULL, 'V'},   {"help", no_argument, NULL, 'h'},
	    {"verbose", no_argument, NULL, 'v'},   {NULL, 0, NULL, 0}};
	bool is_set = false, is_list;
	int ch;

	while ((ch = getopt_long(argc, argv, "hinpPQsvV", lopts, NULL)) != -1) {
		switch (ch) {
		case 'i':
			a->is_immediate = true;
			break;
		case 'n':
			a->lo.no_header = true;
			break;
		case 'p':
			a->lo.is_parsable = true;
			break;
		case 'P':
			a->lo.is_parsable2 = true;
			break;
		case 'Q':
			a->is_quiet = true;
			break;
		case 's':
			a->lo.with_assoc = true;
			break;
		case 'v':
			break;
		case 'V':
			cli_print_version();
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind + 2 > argc) {
		if (optind < argc && strcasecmp(argv[optind], "help") == 0) {
			usage(stdout);
			exit(0);
		}
		fprintf(stderr, " No command given, or no entity\n");
		return -EINVAL;
	}
	a->cmd = argv[optind];
	a->entity = entity_of(argv[optind + 1]);
	if (!a->entity) {
		fprintf(stderr, " Unknown entity: %s\n", argv[optind + 1]);
		return -EINVAL;
	}
	is_list = cli_keyword_match(a->cmd, strlen(a->cmd), "list", 2)
		  || cli_keyword_match(a->cmd, strlen(a->cmd), "show", 2);
	for (int i = optind + 2; i < argc; i++) {
		char *w = argv[i];
		int r;

		if (is_list)
			r = list_cond(a, w);
		else if (strcasecmp(w, "where") == 0)
			r = 0;
		else if (strcasecmp(w, "set") == 0)
			r = 0, is_set = true;
		else if (!strchr(w, '='))
			r = append(&a->names, w, ',');
		else if (is_set || cli_keyword_match(a->cmd, strlen(a->cmd), "add", 3)
			 || cli_keyword_match(a->cmd, strlen(a->cmd), "create", 2))
			r = append(&a->set, w, '\n');
		else
			r = append(&a->where, w, '\n');
		if (r < 0)
			return r;
	}
	return 0;
}

/* y within COMMIT_WAIT_S seconds on stdin. */
static bool ask_commit(void)
{
	struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
	char line[64];

	printf("Would you like to commit changes? (You have %d seconds to decide)\n(N/y): ",
	       COMMIT_WAIT_S);
	fflush(stdout);
	if (poll(&p, 1, COMMIT_WAIT_S * 1000) <= 0) {
		printf("\n");
		return false;
	}
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

static const char *verb_of(uint32_t op)
{
	return op == ASSOC_OP_ADD ? "adding" : op == ASSOC_OP_MODIFY ? "modifying" : "removing";
}

static int change(const struct sl_conf *conf, struct args *a, uint32_t op)
{
	struct assoc_mgr_req req = {.op = op, .names = a->names, .where = a->where, .set = a->set};
	struct assoc_mgr_resp *m = NULL;
	int r;

	req.entity = strcmp(a->entity, "cluster") == 0	 ? ASSOC_E_CLUSTER
		     : strcmp(a->entity, "account") == 0 ? ASSOC_E_ACCOUNT
		     : strcmp(a->entity, "user") == 0	 ? ASSOC_E_USER
		     : strcmp(a->entity, "qos") == 0	 ? ASSOC_E_QOS
							 : 0;
	if (!req.entity) {
		fprintf(stderr, " You can't %s associations directly: use users or accounts\n",
			op == ASSOC_OP_ADD	? "add"
			: op == ASSOC_OP_MODIFY ? "modify"
						: "delete");
		return -EINVAL;
	}
	req.flags = a->is_immediate ? ASSOC_F_COMMIT : 0;
	r = ctld_fetch(conf, REQUEST_ASSOC_MGR, &req, RESPONSE_ASSOC_MGR, (void **)&m);
	if (r < 0) {
		fprintf(stderr, " Problem talking to the database: %s\n", sl_strerror(r));
		return r;
	}
	if (m->out && !a->is_quiet)
		fputs(m->out, stdout);
	if (m->err)
		fputs(m->err, stderr);
	if (m->rc == ESLURM_ACCESS_DENIED || m->rc == ESLURM_DISABLED)
		fprintf(stderr, " Problem %s %ss: %s\n", verb_of(op), a->entity,
			sl_strerror(m->rc));
	r = m->rc ? -(int)m->rc : 0;
	if (r == 0 && m->is_changed && !a->is_immediate) {
		if (!ask_commit()) {
			printf(" Changes Discarded\n");
		} else {
			msg_free(msg_lookup(RESPONSE_ASSOC_MGR), m);
			m = NULL;
			req.flags = ASSOC_F_COMMIT;
			r = ctld_fetch(conf, REQUEST_ASSOC_MGR, &req, RESPONSE_ASSOC_MGR,
				       (void **)&m);
			if (r == 0 && m->rc) {
				if (m->err)
					fputs(m->err, stderr);
				fprintf(stderr, " Error with request: %s\n", sl_strerror(m->rc));
				r = -(int)m->rc;
			}
		}
	}
	if (m)
		msg_free(msg_lookup(RESPONSE_ASSOC_MGR), m);
	return r;
}

static int list(const struct sl_conf *conf, struct args *a)
{
	struct assoc_list_req req = {0};
	struct assoc_dump *d = NULL;
	int r = ctld_fetch(conf, REQUEST_ASSOC_LIST, &req, RESPONSE_ASSOC_LIST, (void **)&d);

	if (r == 0 && d->error_code)
		r = -(int)d->error_code;
	if (r < 0)
		fprintf(stderr, " Problem talking to the database: %s\n", sl_strerror(r));
	else
		r = sacctmgr_list(d, a->entity, &a->lo) < 0 ? -EINVAL : 0;
	if (d)
		msg_free(msg_lookup(RESPONSE_ASSOC_LIST), d);
	return r;
}

int main(int argc, char **argv)
{
	struct args a = {0};
	struct sl_conf *conf = NULL;
	const char *cmd;
	size_t n;
	int r;

	cli_init(argv[0]);
	r = parse_args(&a, argc, argv);
	if (r == 0 && cli_conf_load(&conf) < 0)
		r = -1;
	cmd = a.cmd ? a.cmd : "";
	n = strlen(cmd);
	if (r < 0)
		;
	else if (cli_keyword_match(cmd, n, "list", 2) || cli_keyword_match(cmd, n, "show", 2))
		r = list(conf, &a);
	else if (cli_keyword_match(cmd, n, "add", 3) || cli_keyword_match(cmd, n, "create", 2))
		r = change(conf, &a, ASSOC_OP_ADD);
	else if (cli_keyword_match(cmd, n, "modify", 1) || cli_keyword_match(cmd, n, "update", 2))
		r = change(conf, &a, ASSOC_OP_MODIFY);
	else if (cli_keyword_match(cmd, n, "delete", 3) || cli_keyword_match(cmd, n, "remove", 3))
		r = change(conf, &a, ASSOC_OP_DELETE);
	else {
		fprintf(stderr, "invalid keyword: %s\n", cmd);
		r = -EINVAL;
	}
	free(a.names);
	free(a.where);
	free(a.set);
	free(a.lo.names);
	conf_free(conf);
	return r < 0 ? 1 : 0;
}
