/* sshare.c - the sshare command: shares and usage of the association tree
 * (REQUEST_SHARE_INFO, answered with the controller's table).
 *
 *   sshare [-a] [-l] [-n] [-P] [-u USERS] [-A ACCOUNTS]
 *
 * Columns as Slurm prints them: Account (indented one space per level)
 * User RawShares NormShares RawUsage EffectvUsage FairShare, and with -l
 * NormUsage, LevelFS, GrpTRESMins and TRESRunMins (these two empty). NormShares is the
 * association's shares over its siblings'; EffectvUsage its usage over the root's. RawUsage,
 * FairShare and LevelFS are the priority side's (fair_tree.c). Without -a only the caller's own
 * user rows are shown (with every account).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "api/ctld_fetch.h"
#include "api/id_name.h"
#include "cli/cli.h"
#include "common/conf.h"
#include "common/msg.h"
#include "common/msg_assoc.h"
#include "common/sl_errno.h"

struct opts {
	bool all, is_long, no_header, parsable;
	const char *users, *accounts;
	char me[256];
};

static bool in_list(const char *list, const char *name)
{
	return assoc_name_in_list(list, name);
}

static void cell(const struct opts *o, int w, const char *s, bool is_last)
{
	if (o->parsable)
		printf("%s%s", s, is_last ? "" : "|");
	else if (w < 0)
		printf("%-*.*s ", -w, -w, s);
	else
		printf("%*.*s ", w, w, s);
}

static const struct {
	const char *name;
	int width;
	bool is_long; /* -l only */
} cols[] = {
    {"Account", -20, false},	 {"User", 10, false},	    {"RawShares", 10, false},
    {"NormShares", 11, false},	 {"RawUsage", 11, false},   {"NormUsage", 11, true},
    {"EffectvUsage", 13, false}, {"FairShare", 10, false},  {"LevelFS", 10, true},
    {"GrpTRESMins", 30, true},	 {"TRESRunMins", 60, true},
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

/* The index of the last column shown. */
static size_t last_col(const struct opts *o)
{
	size_t last = 0;

	for (size_t i = 0; i < NCOLS; i++)
		if (!cols[i].is_long || o->is_long)
			last = i;
	return last;
}

static void header(const struct opts *o)
{
	size_t last = last_col(o);

	if (o->no_header)
		return;
	for (size_t i = 0; i < NCOLS; i++)
		if (!cols[i].is_long || o->is_long)
			cell(o, cols[i].width, cols[i].name, i == last);
	printf("\n");
	if (o->parsable)
		return;
	for (size_t i = 0; i < NCOLS; i++)
		if (!cols[i].is_long || o->is_long)
			printf("%.*s ", abs(cols[i].width),
			       "------------------------------------------------------------");
	printf("\n");
}

static const struct assoc_rec *by_id(const struct assoc_dump *d, uint32_t id)
{
	for (uint32_t i = 0; i < d->assoc_count; i++)
		if (d->assocs[i].id == id)
			return &d->assocs[i];
	return NULL;
}

static void row(const struct opts *o, const struct assoc_dump *d, const struct assoc_rec *a,
		int depth)
{
	char v[NCOLS][64];
	double sib = 0, root_usage = 0;
	const struct assoc_rec *p = a->parent_id ? by_id(d, a->parent_id) : NULL;
	size_t last = last_col(o);

	for (uint32_t i = 0; i < d->assoc_count; i++) {
		if (d->assocs[i].parent_id == a->parent_id && d->assocs[i].shares != ASSOC_NO_LIMIT)
			sib += d->assocs[i].shares;
		if (!d->assocs[i].parent_id)
			root_usage = d->assocs[i].usage_raw;
	}
	snprintf(v[0], sizeof(v[0]), "%*s%s", depth, "", a->acct);
	snprintf(v[1], sizeof(v[1]), "%s", a->user ? a->user : "");
	if (!p)
		v[2][0] = '\0';
	else if (a->shares == ASSOC_NO_LIMIT)
		snprintf(v[2], sizeof(v[2]), "parent");
	else
		snprintf(v[2], sizeof(v[2]), "%u", a->shares);
	snprintf(v[3], sizeof(v[3]), "%f",
		 !p					  ? 1.0
		 : sib > 0 && a->shares != ASSOC_NO_LIMIT ? a->shares / sib
							  : 0.0);
	snprintf(v[4], sizeof(v[4]), "%.0f", floor(a->usage_raw));
	snprintf(v[5], sizeof(v[5]), "%f", root_usage > 0 ? a->usage_raw / root_usage : 0.0);
	snprintf(v[6], sizeof(v[6]), "%f", root_usage > 0 ? a->usage_raw / root_usage : 0.0);
	if (a->user)
		snprintf(v[7], sizeof(v[7]), "%f", a->fs_factor);
	else
		v[7][0] = '\0';
	if (p)
		snprintf(v[8], sizeof(v[8]), "%f", a->level_fs);
	else
		v[8][0] = '\0';
	v[9][0] = v[10][0] = '\0'; /* no TRES-minutes limits or counts */
	for (size_t i = 0; i < NCOLS; i++)
		if (!cols[i].is_long || o->is_long)
			cell(o, cols[i].width, v[i], i == last);
	printf("\n");
}

static bool is_shown(const struct opts *o, const struct assoc_rec *a)
{
	if (o->accounts && !in_list(o->accounts, a->acct) && a->parent_id)
		return false;
	if (!a->user)
		return true;
	if (o->users)
		return in_list(o->users, a->user);
	return o->all || strcmp(a->user, o->me) == 0;
}

static void walk(const struct opts *o, const struct assoc_dump *d, uint32_t parent, int depth)
{
	for (int users = 1; users >= 0; users--)
		for (uint32_t i = 0; i < d->assoc_count; i++) {
			const struct assoc_rec *a = &d->assocs[i];

			if (a->parent_id != parent || (a->user != NULL) != (users == 1))
				continue;
			if (is_shown(o, a))
				row(o, d, a, depth);
			if (!a->user && depth < 64)
				walk(o, d, a->id, depth + 1);
		}
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {{"all", no_argument, NULL, 'a'},
					      {"long", no_argument, NULL, 'l'},
					      {"noheader", no_argument, NULL, 'n'},
					      {"parsable2", no_argument, NULL, 'P'},
					      {"parsable", no_argument, NULL, 'p'},
					      {"users", required_argument, NULL, 'u'},
					      {"accounts", required_argument, NULL, 'A'},
					      {"version", no_argument, NULL, 'V'},
					      {"help", no_argument, NULL, 'h'},
					      {NULL, 0, NULL, 0}};
	struct opts o = {0};
	struct sl_conf *conf = NULL;
	struct assoc_list_req req = {0};
	struct assoc_dump *d = NULL;
	int ch, r;

	cli_init(argv[0]);
	while ((ch = getopt_long(argc, argv, "alnPpu:A:Vh", lopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			o.all = true;
			break;
		case 'l':
			o.is_long = true;
			break;
		case 'n':
			o.no_header = true;
			break;
		case 'P':
		case 'p':
			o.parsable = true;
			break;
		case 'u':
			o.users = optarg;
			break;
		case 'A':
			o.accounts = optarg;
			break;
		case 'V':
			cli_print_version();
			return 0;
		case 'h':
			printf("Usage: sshare [-a] [-l] [-n] [-P] [-u users] [-A accounts]\n");
			return 0;
		default:
			fprintf(stderr,
				"Usage: sshare [-a] [-l] [-n] [-P] [-u users] [-A accounts]\n");
			return 1;
		}
	}
	if (o.users && strcmp(o.users, "all") == 0) {
		o.users = NULL;
		o.all = true;
	}
	if (!id_name_uid((uint32_t)getuid(), o.me, sizeof(o.me)))
		snprintf(o.me, sizeof(o.me), "%u", (unsigned)getuid());
	if (cli_conf_load(&conf) < 0)
		return 1;
	r = ctld_fetch(conf, REQUEST_SHARE_INFO, &req, RESPONSE_ASSOC_LIST, (void **)&d);
	if (r == 0 && d->error_code)
		r = -(int)d->error_code;
	if (r < 0) {
		cli_error("%s", sl_strerror(r));
	} else {
		header(&o);
		walk(&o, d, 0, 0);
	}
	if (d)
		msg_free(msg_lookup(RESPONSE_ASSOC_LIST), d);
	conf_free(conf);
	return r < 0 ? 1 : 0;
}
