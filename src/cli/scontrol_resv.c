/* scontrol_resv.c - see scontrol_resv.h. Purpose: the reservation verbs
 * of scontrol with Slurm 22.05's keys, checks and texts (its
 * src/scontrol/create_res.c and slurm_sprint_reservation_info()).
 * Owns nothing between calls.
 * Caveats: the wire (msg_resv.h) carries nodes, a node count, a
 * partition, users, accounts and flags; the keys Slurm also knows for
 * cores, licenses, burst buffers, groups, features, TRES and power are
 * recognised (so that abbreviations select what they select in Slurm)
 * and refused. Duration+=/-= is refused for the same reason. Three
 * things Slurm's controller does are done here, because ours leaves them
 * to scontrol: Users= names are looked up (pwd), a reservation of a
 * partition (PartitionName= without Nodes or NodeCnt, or with Nodes=ALL)
 * is sent with that partition's nodes, and Users+=/-= and Accounts+=/-=
 * are merged into the current lists (fetched just before the update, so
 * two admins editing one list at once can lose a change).
 */
#include "cli/scontrol_resv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/ctld_fetch.h"
#include "api/id_name.h"
#include "cli/cli.h"
#include "cli/job_opt.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_time.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"

#define RESV_FLAGS_TEXT_MAX 256
#define RESV_PERROR_MAX	    64 /* Slurm's buffer for "delete_reservation %s" */

enum resv_key {
	K_ACCOUNTS,
	K_FLAGS,
	K_USERS,
	K_NAME,
	K_START,
	K_END,
	K_DURATION,
	K_NODE_CNT,
	K_NODES,
	K_PARTITION,
	K_UNSUPPORTED, /* Slurm knows it; msg_resv.h cannot carry it */
};

/* In the order Slurm tries them; min is the shortest abbreviation. */
static const struct {
	const char *name;
	size_t min;
	enum resv_key key;
} resv_keys[] = {
    {"Accounts", 1, K_ACCOUNTS},    {"Flags", 2, K_FLAGS},
    {"Groups", 1, K_UNSUPPORTED},   {"Users", 1, K_USERS},
    {"ReservationName", 1, K_NAME}, {"BurstBuffer", 2, K_UNSUPPORTED},
    {"StartTime", 2, K_START},	    {"EndTime", 1, K_END},
    {"Duration", 1, K_DURATION},    {"MaxStartDelay", 2, K_UNSUPPORTED},
    {"NodeCnt", 5, K_NODE_CNT},	    {"NodeCount", 5, K_NODE_CNT},
    {"CoreCnt", 5, K_UNSUPPORTED},  {"CoreCount", 5, K_UNSUPPORTED},
    {"CPUCnt", 5, K_UNSUPPORTED},   {"CPUCount", 5, K_UNSUPPORTED},
    {"Nodes", 5, K_NODES},	    {"Features", 2, K_UNSUPPORTED},
    {"Licenses", 2, K_UNSUPPORTED}, {"PartitionName", 1, K_PARTITION},
    {"TRES", 1, K_UNSUPPORTED},	    {"Watts", 1, K_UNSUPPORTED},
};

/* One word being read: "Tag[+|-]=value". */
struct resv_word {
	const char *word; /* as typed, for the messages */
	size_t taglen;	  /* without the '+' or '-' */
	char plus_minus;  /* '+', '-' or 0 */
	char *val;
	const char *tail; /* "No reservation created." / "... update." */
};

_printf_(2, 3) static void resv_error(FILE *err, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(err, "%s: error: ", cli_prog());
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fputc('\n', err);
}

void scontrol_resv_args_done(struct scontrol_resv_args *a)
{
	for (int i = 0; i < a->n_owned; i++)
		free(a->owned[i]);
	a->n_owned = 0;
}

/* Keep s until scontrol_resv_args_done(); NULL when s is NULL or full. */
static char *keep(struct scontrol_resv_args *a, char *s)
{
	if (!s || a->n_owned == (int)ARRAY_SIZE(a->owned)) {
		free(s);
		return NULL;
	}
	a->owned[a->n_owned++] = s;
	return s;
}

/* Slurm's _process_plus_minus: "a,b" with '+' becomes "+a,+b". */
static char *plus_minus_list(char pm, const char *src)
{
	size_t commas = 0, n = strlen(src);
	char *ret, *d;

	for (const char *p = src; *p; p++)
		commas += *p == ',';
	ret = d = malloc(n + commas + 2);
	if (!ret)
		return NULL;
	*d++ = pm;
	for (const char *p = src; *p; p++) {
		*d++ = *p;
		if (*p == ',')
			*d++ = pm;
	}
	*d = '\0';
	return ret;
}

/* Flags= value (as Slurm shows it in errors) into set/clear bits: '+'
 * items add, like plain ones; "-X" clears (update only). */
static int parse_flags(FILE *err, const struct resv_word *w, bool is_update,
		       struct resv_desc_msg *m)
{
	_cleanup_free_ char *shown =
	    w->plus_minus ? plus_minus_list(w->plus_minus, w->val) : strdup(w->val);
	_cleanup_free_ char *bare = shown ? malloc(strlen(shown) + 1) : NULL;
	uint32_t set = 0, clear = 0;
	char *d = bare;

	if (!bare)
		return -ENOMEM;
	for (const char *p = shown; *p; p++)
		if (*p != '+' || (p != shown && p[-1] != ','))
			*d++ = *p;
	*d = '\0';
	if (!*bare) /* Slurm: an empty Flags= changes nothing */
		return 0;
	if (resv_flags_parse(bare, is_update, &set, &clear) < 0) {
		resv_error(err, "Error parsing flags %s.  %s", shown, w->tail);
		return -EINVAL;
	}
	m->flags |= set;
	m->flags_clear |= clear;
	return 0;
}

/* NodeCnt=: a number with an optional k/K (x1024) or m/M (x1048576). */
static int parse_node_cnt(FILE *err, const char *val, uint32_t *ret)
{
	unsigned long long n;
	char *end = NULL;

	if (!*val) /* Slurm reads no count from it, and sends none */
		return 0;
	errno = 0;
	n = strtoull(val, &end, 10);
	if (*end == 'k' || *end == 'K') {
		n *= 1024;
		end++;
	} else if (*end == 'm' || *end == 'M') {
		n *= 1024 * 1024;
		end++;
	}
	if (*val == '-' || errno || *end || n >= NO_VAL) {
		resv_error(err, "Invalid node count %s", val);
		return -EINVAL;
	}
	*ret = (uint32_t)n;
	return 0;
}

/* StartTime= / EndTime=: Slurm's parse_time() report, then scontrol's. */
static int parse_when(FILE *err, const struct resv_word *w, const char *what, time_t now,
		      time_t *ret)
{
	int pos = 0;
	time_t t = job_opt_parse_begin(w->val, now, &pos);

	if (t == (time_t)-1) {
		fflush(stdout);
		fprintf(err, "Invalid time specification (pos=%d): %s\n", pos, w->val);
		resv_error(err, "Invalid %s time %s.  %s", what, w->word, w->tail);
		return -ESLURM_INVALID_TIME_VALUE;
	}
	*ret = t;
	return 0;
}

static int parse_duration(FILE *err, const struct resv_word *w, uint32_t *ret)
{
	uint32_t mins;

	if (time_str2mins(w->val, &mins) < 0) {
		resv_error(err, "Invalid duration %s.  %s", w->word, w->tail);
		return -EINVAL;
	}
	*ret = mins == INFINITE ? RESV_DURATION_UNLIMITED : mins;
	return 0;
}

/* Users= / Accounts=: once only; "+=" / "-=" rewritten as Slurm sends
 * them. */
static int parse_list(FILE *err, const struct resv_word *w, struct scontrol_resv_args *a,
		      char **field, char *pm)
{
	if (*field) {
		resv_error(err, "Parameter %s specified more than once", w->word);
		return -EINVAL;
	}
	*field = w->plus_minus ? keep(a, plus_minus_list(w->plus_minus, w->val)) : w->val;
	*pm = w->plus_minus;
	return *field ? 0 : -ENOMEM;
}

static int parse_value(FILE *err, enum resv_key key, const struct resv_word *w, bool is_update,
		       time_t now, struct scontrol_resv_args *a)
{
	struct resv_desc_msg *m = &a->m;

	switch (key) {
	case K_ACCOUNTS:
		return parse_list(err, w, a, &m->accounts, &a->accounts_pm);
	case K_USERS:
		return parse_list(err, w, a, &m->users, &a->users_pm);
	case K_FLAGS:
		return parse_flags(err, w, is_update, m);
	default:
		break;
	}
	if (w->plus_minus) {
		resv_error(err, "The +=/-= notation is not supported when updating %.*s.  %s",
			   (int)w->taglen, w->word, w->tail);
		return -EINVAL;
	}
	switch (key) {
	case K_NAME:
		m->name = w->val;
		return 0;
	case K_START:
		return parse_when(err, w, "start", now, &m->start_time);
	case K_END:
		return parse_when(err, w, "end", now, &m->end_time);
	case K_DURATION:
		return parse_duration(err, w, &m->duration);
	case K_NODE_CNT:
		return parse_node_cnt(err, w->val, &m->node_cnt);
	case K_NODES:
		m->node_list = w->val;
		return 0;
	case K_PARTITION:
		m->partition = w->val;
		return 0;
	default:
		resv_error(err, "Parameter %s is not supported by this build.  %s", w->word,
			   w->tail);
		return -EINVAL;
	}
}

/* A word without '=': "res..." is skipped ("create reservation ..."),
 * Skip is a flag this wire lacks, anything else is misformatted. */
static int parse_bare(FILE *err, const char *word, const char *tail)
{
	if (!strncasecmp(word, "res", 3))
		return 0;
	if (cli_keyword_match(word, strlen(word), "Skip", 2))
		resv_error(err, "Parameter %s is not supported by this build.  %s", word, tail);
	else
		resv_error(err,
			   "Misformatted parameter '%s', most options have a parameter after "
			   "'='.  %s",
			   word, tail);
	return -EINVAL;
}

static int parse_word(FILE *err, char *word, bool is_update, time_t now,
		      struct scontrol_resv_args *a)
{
	struct resv_word w = {
	    .word = word, .tail = is_update ? "No reservation update." : "No reservation created."};
	char *eq = strchr(word, '=');

	if (!eq)
		return parse_bare(err, word, w.tail);
	w.taglen = (size_t)(eq - word);
	if (w.taglen && (eq[-1] == '+' || eq[-1] == '-')) {
		w.plus_minus = eq[-1];
		w.taglen--;
	}
	w.val = eq + 1;
	for (size_t i = 0; i < ARRAY_SIZE(resv_keys); i++)
		if (cli_keyword_match(word, w.taglen, resv_keys[i].name, resv_keys[i].min))
			return parse_value(err, resv_keys[i].key, &w, is_update, now, a);
	if (!strncasecmp(word, "res", 3)) /* Slurm skips these too */
		return 0;
	resv_error(err, "Unknown parameter %s.  %s", word, w.tail);
	return -EINVAL;
}

int scontrol_resv_parse(FILE *err, int argc, char **argv, bool is_update, time_t now,
			struct scontrol_resv_args *a)
{
	int r = 0;

	*a = (struct scontrol_resv_args){.m = {.duration = NO_VAL, .node_cnt = NO_VAL}};
	for (int i = 0; i < argc && r == 0; i++)
		r = parse_word(err, argv[i], is_update, now, a);
	return r;
}

static bool is_empty(const char *s)
{
	return !s || !*s;
}

int scontrol_resv_create_check(FILE *err, const struct resv_desc_msg *m)
{
	const char *text = NULL;

	if (!m->start_time)
		text = "A start time must be given.";
	else if (!m->end_time && m->duration == NO_VAL)
		text = "An end time or duration must be given.";
	else if (m->end_time && m->duration != NO_VAL
		 && m->start_time + (time_t)m->duration * 60 != m->end_time)
		text = "StartTime + Duration does not equal EndTime.";
	else if (m->end_time && m->duration == NO_VAL && m->start_time > m->end_time)
		text = "Start time cannot be after end time.";
	else if (is_empty(m->node_list) && (m->node_cnt == NO_VAL || !m->node_cnt) && !m->partition)
		text = "CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be "
		       "specified.";
	else if (is_empty(m->users) && is_empty(m->accounts))
		text = "Either Users/Groups and/or Accounts must be specified.";
	if (!text)
		return 0;
	resv_error(err, "%s  No reservation created.", text);
	return -EINVAL;
}

void scontrol_resv_create_failed(FILE *out, FILE *err, int code)
{
	fflush(out);
	fprintf(err, "Error creating the reservation: %s\n", sl_strerror(code));
	/* after the error, on stdout, as scontrol 22.05 does */
	if (code == -ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE || code == -ESLURM_NODES_BUSY)
		fputs("Note, unless nodes are directly requested a reservation must exist in a "
		      "single partition.\n"
		      "If no partition is requested the default partition is assumed.\n",
		      out);
}

static const char *s_or_null(const char *s)
{
	return s ? s : "(null)";
}

void scontrol_resv_print(FILE *out, const struct resv_info *r, bool one_liner, time_t now)
{
	const char *le = one_liner ? " " : "\n   ";
	char start[64], end[64], dur[32], flags[RESV_FLAGS_TEXT_MAX];
	uint32_t secs = r->end_time > r->start_time ? (uint32_t)(r->end_time - r->start_time) : 0;
	bool active = r->start_time <= now && now <= r->end_time;

	fprintf(out, "ReservationName=%s StartTime=%s EndTime=%s Duration=%s", s_or_null(r->name),
		time_display(r->start_time, start, sizeof(start)),
		time_display(r->end_time, end, sizeof(end)), secs2time_str(secs, dur, sizeof(dur)));
	fprintf(out, "%sNodes=%s NodeCnt=%u CoreCnt=%u Features=(null) PartitionName=%s Flags=%s",
		le, s_or_null(r->node_list), r->node_cnt, r->core_cnt, s_or_null(r->partition),
		resv_flags_string(r->flags, flags, sizeof(flags)));
	fprintf(out, "%sTRES=%s", le, s_or_null(r->tres));
	fprintf(out,
		"%sUsers=%s Groups=(null) Accounts=%s Licenses=(null) State=%s "
		"BurstBuffer=(null) Watts=n/a",
		le, s_or_null(r->users), s_or_null(r->accounts), active ? "ACTIVE" : "INACTIVE");
	fprintf(out, "%sMaxStartDelay=(null)", le);
	fputs(one_liner ? "\n" : "\n\n", out);
}

int scontrol_resv_show(FILE *out, const struct resv_info_msg *m, const char *name, bool one_liner,
		       bool quiet, time_t now)
{
	uint32_t shown = 0;

	for (uint32_t i = 0; i < m->count; i++) {
		if (name && (!m->resvs[i].name || strcmp(m->resvs[i].name, name)))
			continue;
		scontrol_resv_print(out, &m->resvs[i], one_liner, now);
		shown++;
		if (name)
			break;
	}
	if (shown)
		return 0;
	if (name) {
		if (!quiet)
			fprintf(out, "Reservation %s not found\n", name);
		return -ENOENT;
	}
	if (!quiet)
		fputs("No reservations in the system\n", out);
	return 0;
}

/* name (len bytes) is one of the words of the comma list. */
static bool list_has(const char *list, const char *name, size_t len)
{
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, name, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

/* change has "-name" for this name (len bytes). */
static bool change_removes(const char *change, const char *name, size_t len)
{
	for (const char *p = change; *p;) {
		size_t n = strcspn(p, ",");

		if (*p == '-' && n == len + 1 && !strncmp(p + 1, name, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

static void list_append(char *out, size_t cap, const char *name, size_t len)
{
	size_t used = strlen(out);

	snprintf(out + used, cap - used, "%s%.*s", used ? "," : "", (int)len, name);
}

char *scontrol_resv_list_merge(const char *cur, const char *change)
{
	size_t cap = (cur ? strlen(cur) : 0) + strlen(change) + 2;
	char *out = calloc(1, cap);

	if (!out)
		return NULL;
	/* the current names the change keeps, then the ones it adds */
	for (const char *q = cur ? cur : ""; *q;) {
		size_t n = strcspn(q, ",");

		if (n && !change_removes(change, q, n))
			list_append(out, cap, q, n);
		q += n + (q[n] == ',');
	}
	for (const char *p = change; *p;) {
		size_t n = strcspn(p, ",");
		size_t skip = *p == '+' || *p == '-';

		if (n > skip && *p != '-' && !list_has(out, p + skip, n - skip))
			list_append(out, cap, p + skip, n - skip);
		p += n + (p[n] == ',');
	}
	return out;
}

int scontrol_resv_users_check(const char *users)
{
	char name[256];
	uint32_t uid;

	for (const char *p = users ? users : ""; *p;) {
		size_t n = strcspn(p, ",");

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		if (n && (n >= sizeof(name) || !id_name_uid_of(name, &uid)))
			return -ESLURM_USER_ID_MISSING;
		p += n + (p[n] == ',');
	}
	return 0;
}

/* PartitionName=P alone (or with Nodes=ALL): P's nodes, as Slurm's
 * controller takes them for such a reservation. */
static int partition_nodes(const struct sl_conf *conf, struct scontrol_resv_args *a)
{
	struct part_info_req req = {.show_flags = 1}; /* SHOW_ALL: hidden ones too */
	struct part_info_msg *m = NULL;
	int r =
	    ctld_fetch(conf, REQUEST_PARTITION_INFO, &req, RESPONSE_PARTITION_INFO, (void **)&m);

	if (r < 0)
		return r;
	r = -ESLURM_INVALID_PARTITION_NAME;
	for (uint32_t i = 0; i < m->count; i++) {
		if (!m->parts[i].name || strcmp(m->parts[i].name, a->m.partition))
			continue;
		a->m.node_list = keep(a, strdup(m->parts[i].nodes ? m->parts[i].nodes : ""));
		a->m.node_cnt = NO_VAL;
		r = a->m.node_list ? 0 : -ENOMEM;
		break;
	}
	msg_free(msg_lookup(RESPONSE_PARTITION_INFO), m);
	return r;
}

/* Users+=/-= and Accounts+=/-=: the lists the reservation will have. */
static int merge_current(const struct sl_conf *conf, struct scontrol_resv_args *a)
{
	struct part_info_req req = {.show_flags = 0};
	struct resv_info_msg *m = NULL;
	const struct resv_info *cur = NULL;
	int r = ctld_fetch(conf, REQUEST_RESERVATION_INFO, &req, RESPONSE_RESERVATION_INFO,
			   (void **)&m);

	if (r < 0)
		return r;
	for (uint32_t i = 0; i < m->count && !cur; i++)
		if (m->resvs[i].name && !strcmp(m->resvs[i].name, a->m.name))
			cur = &m->resvs[i];
	if (!cur)
		r = -ESLURM_RESERVATION_INVALID;
	if (r == 0 && a->users_pm
	    && !(a->m.users = keep(a, scontrol_resv_list_merge(cur->users, a->m.users))))
		r = -ENOMEM;
	if (r == 0 && a->accounts_pm
	    && !(a->m.accounts = keep(a, scontrol_resv_list_merge(cur->accounts, a->m.accounts))))
		r = -ENOMEM;
	msg_free(msg_lookup(RESPONSE_RESERVATION_INFO), m);
	return r;
}

/* What the controller is sent, once the words passed scontrol's checks:
 * 0 or the code to report as the controller's. */
static int create_send(const struct sl_conf *conf, struct scontrol_resv_args *a,
		       struct resv_name_msg **resp)
{
	const char *nodes = a->m.node_list;
	bool whole_part = a->m.partition
			  && ((is_empty(nodes) && (a->m.node_cnt == NO_VAL || !a->m.node_cnt))
			      || (nodes && !strcasecmp(nodes, "ALL")));
	int r = scontrol_resv_users_check(a->m.users);

	if (r == 0 && whole_part)
		r = partition_nodes(conf, a);
	if (r == 0)
		r = ctld_fetch(conf, REQUEST_CREATE_RESERVATION, &a->m, RESPONSE_CREATE_RESERVATION,
			       (void **)resp);
	return r;
}

int scontrol_resv_create(const struct sl_conf *conf, int argc, char **argv)
{
	struct scontrol_resv_args a;
	struct resv_name_msg *resp = NULL;
	int r;

	r = scontrol_resv_parse(stderr, argc, argv, false, time(NULL), &a);
	if (r == 0)
		r = scontrol_resv_create_check(stderr, &a.m);
	if (r == 0) {
		r = create_send(conf, &a, &resp);
		if (r < 0)
			scontrol_resv_create_failed(stdout, stderr, r);
	}
	scontrol_resv_args_done(&a);
	if (r < 0)
		return -1;
	printf("Reservation created: %s\n", s_or_null(resp->name));
	msg_free(msg_lookup(RESPONSE_CREATE_RESERVATION), resp);
	return 0;
}

/* Every failure ends with scontrol's "slurm_update error: <strerror>"; a
 * refused parse leaves nothing more specific than "No error" (or the
 * time's code), as Slurm's errno does. */
int scontrol_resv_update(const struct sl_conf *conf, int argc, char **argv)
{
	struct scontrol_resv_args a;
	int r;

	r = scontrol_resv_parse(stderr, argc, argv, true, time(NULL), &a);
	if (r < 0) {
		scontrol_resv_args_done(&a);
		cli_perror("slurm_update error", r == -ESLURM_INVALID_TIME_VALUE ? r : 0);
		return -1;
	}
	if (!a.m.name) {
		scontrol_resv_args_done(&a);
		cli_error("Reservation must be given.  No reservation update.");
		return -1;
	}
	if (a.users_pm || a.accounts_pm)
		r = merge_current(conf, &a);
	if (r == 0)
		r = scontrol_resv_users_check(a.m.users);
	if (r == 0)
		r = rpc_call_ctld_rc(conf, REQUEST_UPDATE_RESERVATION, &a.m);
	scontrol_resv_args_done(&a);
	if (r < 0) {
		cli_perror("Error updating the reservation", r);
		cli_perror("slurm_update error", r);
		return -1;
	}
	printf("Reservation updated.\n");
	return 0;
}

int scontrol_resv_delete(const struct sl_conf *conf, const char *word, const char *name)
{
	struct resv_name_msg m = {.name = (char *)name};
	char what[RESV_PERROR_MAX];
	int r = rpc_call_ctld_rc(conf, REQUEST_DELETE_RESERVATION, &m);

	if (r == 0)
		return 0;
	snprintf(what, sizeof(what), "delete_reservation %s", word);
	cli_perror(what, r);
	return -1;
}
