/* sinfo_fmt.c - sinfo's format engine: format strings, letters, printing.
 *
 * Purpose: turn node and partition tables into sinfo's text.
 * Input: node_info_msg + part_info_msg + struct sinfo_opts.
 * Action: (1) parse the format into fields; every letter shown adds a
 * "match" bit; (2) sinfo_rec.c groups and sorts the lines; (3) print,
 * "%#X" columns as wide as their longest value.
 * Owns: the letter table (header, -O name, match bit, value printer).
 * Caveat: value printers return malloc'd text and NULL only on ENOMEM,
 * which prints as an empty cell rather than failing the whole command.
 */
#include "cli/sinfo_fmt.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/id_name.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/sinfo_rec.h"
#include "common/hostlist.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_time.h"
#include "common/states.h"

typedef char *value_fn(const struct rec *r, const struct sinfo_opts *o, int width);

struct letter {
	char c;		  /* -o letter; 0: -O name only */
	const char *name; /* -O name */
	const char *header;
	uint64_t match;
	value_fn *value;  /* malloc'd text, NULL on ENOMEM */
	int auto_min;	  /* least width of "%#X"; 0: the header's length */
	bool header_full; /* header is never cut (node list columns) */
};

/* ---- small text helpers ---- */

static char *dupf(const char *fmt, ...) _printf_(1, 2);
static char *dupf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* NULL prints "(null)", as glibc's printf does for sinfo. */
static char *dups(const char *s)
{
	return strdup(s ? s : "(null)");
}

/* Slurm's convert_num_unit(CONVERT_NUM_UNIT_EXACT) without a unit when
 * unit is set, else the plain number. */
static void num_str(uint64_t v, bool unit, char *buf, size_t n)
{
	if (unit)
		fmt_num_unit(v, 0, buf, n);
	else
		snprintf(buf, n, "%" PRIu64, v);
}

/* "4", "4+" (differing values, no range) or "1-infinite" (range). */
static char *minmax(uint64_t lo, uint64_t hi, bool range, bool unit)
{
	char a[32], b[32];

	num_str(lo, unit, a, sizeof(a));
	num_str(hi, unit, b, sizeof(b));
	if (lo == hi)
		return dups(b);
	if (!range)
		return dupf("%s+", a);
	if (hi == INFINITE)
		return dupf("%s-infinite", a);
	return dupf("%s-%s", a, b);
}

/* sinfo's durations: "M:SS", "H:MM:SS", "D-HH:MM:SS". */
static char *limit_str(uint32_t mins)
{
	char buf[32];

	if (mins == INFINITE)
		return dups("infinite");
	if (mins == NO_VAL)
		return dups("n/a");
	return dups(secs2elapsed_str(mins * 60u, buf, sizeof(buf)));
}

static char *hl_str(struct hostlist *hl)
{
	return hostlist_ranged_string(hl);
}

/* ---- the letters ---- */

#define V(fn)                                                                                      \
	static char *fn(const struct rec *r _unused_, const struct sinfo_opts *o _unused_,         \
			int w _unused_)
#define NEED_PART                                                                                  \
	do {                                                                                       \
		if (!r->part)                                                                      \
			return dups("n/a");                                                        \
	} while (0)

V(v_avail)
{
	NEED_PART;
	switch (r->part->state_up) {
	case PART_STATE_UP:
		return dups("up");
	case PART_STATE_DOWN:
		return dups("down");
	case PART_STATE_DRAIN:
		return dups("drain");
	case PART_STATE_INACTIVE:
		return dups("inact");
	}
	return dups("unknown");
}
V(v_nodes_ai)
{
	return dupf("%u/%u", r->n_alloc, r->n_idle);
}
V(v_nodes_aiot)
{
	return dupf("%u/%u/%u/%u", r->n_alloc, r->n_idle, r->n_other, r->n_total);
}
V(v_cpus_aiot)
{
	return dupf("%u/%u/%u/%u", r->c_alloc, r->c_idle, r->c_other, r->c_total);
}
V(v_nodes)
{
	return dupf("%u", r->n_total);
}
V(v_feat)
{
	return dups(r->first ? r->first->features : NULL);
}
V(v_feat_act)
{
	return dups(r->first ? r->first->features_act : NULL);
}
V(v_gres)
{
	return dups(r->first ? r->first->gres : NULL);
}
V(v_gres_used)
{
	return dups(r->first ? r->first->gres_used : NULL);
}
V(v_comment)
{
	return dups(r->first ? r->first->comment : NULL);
}
V(v_cpus)
{
	return minmax(r->min_cpus, r->max_cpus, false, true);
}
V(v_disk)
{
	return minmax(r->min_disk, r->max_disk, false, false);
}
V(v_mem)
{
	return minmax(r->min_mem, r->max_mem, false, false);
}
V(v_weight)
{
	return minmax(r->min_weight, r->max_weight, false, false);
}
V(v_sockets)
{
	return minmax(r->min_sock, r->max_sock, false, true);
}
V(v_cores)
{
	return minmax(r->min_core, r->max_core, false, true);
}
V(v_threads)
{
	return minmax(r->min_thr, r->max_thr, false, true);
}
V(v_allocmem)
{
	return dupf("%" PRIu64, r->first ? r->first->alloc_mem : 0);
}
V(v_port)
{
	return minmax(r->first ? r->first->port : 0, r->first ? r->first->port : 0, 0, 1);
}
V(v_sct)
{
	char *s = minmax(r->min_sock, r->max_sock, false, true);
	char *c = minmax(r->min_core, r->max_core, false, true);
	char *t = minmax(r->min_thr, r->max_thr, false, true);
	char *out = (s && c && t) ? dupf("%s:%s:%s", s, c, t) : NULL;

	free(s);
	free(c);
	free(t);
	return out;
}
V(v_load)
{
	char a[16], b[16];

	if (r->min_load == NO_VAL)
		snprintf(a, sizeof(a), "N/A");
	else
		snprintf(a, sizeof(a), "%.2f", r->min_load / 100.0);
	if (r->max_load == NO_VAL)
		snprintf(b, sizeof(b), "N/A");
	else
		snprintf(b, sizeof(b), "%.2f", r->max_load / 100.0);
	return r->min_load == r->max_load ? dups(b) : dupf("%s-%s", a, b);
}
V(v_free)
{
	char a[24], b[24];

	snprintf(a, sizeof(a), r->min_free == NO_VAL64 ? "N/A" : "%" PRIu64, r->min_free);
	snprintf(b, sizeof(b), r->max_free == NO_VAL64 ? "N/A" : "%" PRIu64, r->max_free);
	return r->min_free == r->max_free ? dups(b) : dupf("%s-%s", a, b);
}
V(v_reason)
{
	const char *s = r->first ? r->first->reason : NULL;

	return dups(!s || !strncmp(s, "(null)", 6) ? "none" : s);
}
V(v_timestamp)
{
	char buf[32];

	if (!r->first || !r->first->reason_time)
		return dups("Unknown");
	return dups(time_display(r->first->reason_time, buf, sizeof(buf)));
}
static char *user_str(const struct rec *r, bool with_uid)
{
	char name[256];
	uint32_t uid = r->first ? r->first->reason_uid : NO_VAL;

	if (uid == NO_VAL)
		return dups("Unknown");
	if (!id_name_uid(uid, name, sizeof(name)))
		return dupf("Unk(%u)", uid);
	return with_uid ? dupf("%s(%u)", name, uid) : dups(name);
}
V(v_user)
{
	return user_str(r, false);
}
V(v_user_long)
{
	return user_str(r, true);
}
V(v_version)
{
	return dups(r->first && r->first->version ? r->first->version : "N/A");
}
V(v_cluster)
{
	return dups(o->cluster_name ? o->cluster_name : "N/A");
}
V(v_resv)
{
	return dups(""); /* reservations are not reported yet */
}
V(v_nodelist)
{
	return hl_str(r->nodes);
}
V(v_hosts)
{
	return hl_str(r->hosts);
}
V(v_addrs)
{
	return hl_str(r->addrs);
}
V(v_state_c)
{
	char buf[64];

	return dups(r->n_total ? node_state_sinfo(r->state, false, buf, sizeof(buf)) : "n/a");
}
V(v_state_l)
{
	char buf[64];

	return dups(r->n_total ? node_state_sinfo(r->state, true, buf, sizeof(buf)) : "n/a");
}
V(v_state_complete)
{
	char buf[256];

	if (!r->n_total)
		return dups("n/a");
	node_state_scontrol(r->state, buf, sizeof(buf));
	for (char *p = buf; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return dups(buf);
}
V(v_part)
{
	char *s;

	NEED_PART;
	if (!(r->part->flags & PART_FLAG_DEFAULT))
		return dups(r->part->name);
	if (w == 0 || strlen(r->part->name) < (size_t)w)
		return dupf("%s*", r->part->name);
	s = dups(r->part->name); /* no room: the star replaces the last shown char */
	if (s)
		s[w - 1] = '*';
	return s;
}
V(v_part_name)
{
	NEED_PART;
	return dups(r->part->name);
}
V(v_groups)
{
	NEED_PART;
	return dups(r->part->allow_groups ? r->part->allow_groups : "all");
}
V(v_alloc_nodes)
{
	NEED_PART;
	return dups(r->part->alloc_nodes ? r->part->alloc_nodes : "all");
}
V(v_root)
{
	NEED_PART;
	return dups(r->part->flags & PART_FLAG_ROOT_ONLY ? "yes" : "no");
}
V(v_oversub)
{
	char buf[32];

	NEED_PART;
	return dups(cli_oversubscribe_str(r->part->over_subscribe, buf, sizeof(buf)));
}
V(v_preempt)
{
	char buf[64];

	NEED_PART;
	return dups(cli_preempt_mode_str(r->part->preempt_mode, buf, sizeof(buf)));
}
V(v_time)
{
	NEED_PART;
	return limit_str(r->part->max_time);
}
V(v_deftime)
{
	NEED_PART;
	return limit_str(r->part->default_time);
}
V(v_size)
{
	uint32_t lo;

	NEED_PART;
	lo = r->part->min_nodes;
	if (lo < 1 && r->part->max_nodes > 0)
		lo = 1;
	return minmax(lo, r->part->max_nodes, true, true);
}
V(v_maxcpus)
{
	NEED_PART;
	if (r->part->max_cpus_per_node == INFINITE)
		return dups("UNLIMITED");
	return dupf("%u", r->part->max_cpus_per_node);
}
V(v_ptier)
{
	NEED_PART;
	return minmax(r->part->priority_tier, r->part->priority_tier, true, true);
}
V(v_pjob)
{
	NEED_PART;
	return minmax(r->part->priority_job_factor, r->part->priority_job_factor, true, true);
}

static const struct letter letters[] = {
    {'a', "Available", "AVAIL", M_AVAIL, v_avail, 0, false},
    {'A', "NodeAI", "NODES(A/I)", 0, v_nodes_ai, 0, false},
    {'b', "features_act", "ACTIVE_FEATURES", M_FEAT_ACT, v_feat_act, 0, false},
    {'B', "MaxCPUsPerNode", "MAX_CPUS_PER_NODE", M_MAXCPU, v_maxcpus, 0, false},
    {'c', "CPUs", "CPUS", M_CPUS, v_cpus, 0, false},
    {'C', "CPUsState", "CPUS(A/I/O/T)", M_CPUS, v_cpus_aiot, 0, false},
    {'d', "Disk", "TMP_DISK", M_DISK, v_disk, 0, false},
    {'D', "Nodes", "NODES", 0, v_nodes, 0, false},
    {'e', "FreeMem", "FREE_MEM", M_FREE, v_free, 0, false},
    {'E', "Reason", "REASON", M_REASON, v_reason, 0, false},
    {'f', "Features", "AVAIL_FEATURES", M_FEAT, v_feat, 0, false},
    {'F', "NodeAIOT", "NODES(A/I/O/T)", 0, v_nodes_aiot, 0, false},
    {'g', "Groups", "GROUPS", M_GROUPS, v_groups, 0, false},
    {'G', "Gres", "GRES", M_GRES, v_gres, 0, false},
    {'h', "OverSubscribe", "OVERSUBSCRIBE", M_OVERSUB, v_oversub, 0, false},
    {'H', "TimeStamp", "TIMESTAMP", M_RTIME, v_timestamp, 0, false},
    {'i', "Reservation", "RESERVATION", 0, v_resv, 0, false},
    {'I', "PriorityJobFactor", "PRIO_JOB_FACTOR", M_PJOB, v_pjob, 0, false},
    {'l', "Time", "TIMELIMIT", M_TIME, v_time, 0, false},
    {'L', "DefaultTime", "DEFAULTTIME", M_DEFTIME, v_deftime, 0, false},
    {'m', "Memory", "MEMORY", M_MEM, v_mem, 0, false},
    {'M', "PreemptMode", "PREEMPT_MODE", M_PREEMPT, v_preempt, 0, false},
    {'n', "NodeHost", "HOSTNAMES", M_HOSTS, v_hosts, 9, true},
    {'N', "NodeList", "NODELIST", 0, v_nodelist, 9, true},
    {'o', "NodeAddr", "NODE_ADDR", M_ADDR, v_addrs, 9, true},
    {'O', "CPUsLoad", "CPU_LOAD", M_LOAD, v_load, 0, false},
    {'p', "PriorityTier", "PRIO_TIER", M_PTIER, v_ptier, 0, false},
    {'P', "Partition", "PARTITION", M_PART, v_part, 9, false},
    {'r', "Root", "ROOT", M_ROOT, v_root, 0, false},
    {'R', "PartitionName", "PARTITION", M_PART, v_part_name, 9, false},
    {'s', "Size", "JOB_SIZE", M_SIZE, v_size, 0, false},
    {'S', "AllocNodes", "ALLOCNODES", 0, v_alloc_nodes, 0, false},
    {'t', "StateCompact", "STATE", M_STATE, v_state_c, 0, false},
    {'T', "StateLong", "STATE", M_STATE, v_state_l, 0, false},
    {'u', "User", "USER", M_RUSER, v_user, 0, false},
    {'U', "UserLong", "USER", M_RUSER, v_user_long, 0, false},
    {'v', "Version", "VERSION", M_VERSION, v_version, 0, false},
    {'V', "Cluster", "CLUSTER", 0, v_cluster, 0, false},
    {'w', "Weight", "WEIGHT", M_WEIGHT, v_weight, 0, false},
    {'X', "Sockets", "SOCKETS", M_SOCK, v_sockets, 0, false},
    {'Y', "Cores", "CORES", M_CORE, v_cores, 0, false},
    {'Z', "Threads", "THREADS", M_THREAD, v_threads, 0, false},
    {'z', "SocketCoreThread", "S:C:T", M_SCT, v_sct, 0, false},
    {0, "AllocMem", "ALLOCMEM", M_ALLOCMEM, v_allocmem, 0, false},
    {0, "Comment", "COMMENT", M_COMMENT, v_comment, 0, false},
    {0, "GresUsed", "GRES_USED", M_GRES_USED, v_gres_used, 0, false},
    {0, "Port", "PORT", M_PORT, v_port, 0, false},
    {0, "StateComplete", "STATECOMPLETE", M_STATE_CMPL, v_state_complete, 0, false},
};

/* ---- format parsing ---- */

static int letter_id(char c, const void *arg _unused_)
{
	for (size_t k = 0; k < ARRAY_SIZE(letters); k++)
		if (letters[k].c && letters[k].c == c)
			return (int)k;
	return -1;
}

static int name_id(const char *name, const void *arg _unused_)
{
	for (size_t k = 0; k < ARRAY_SIZE(letters); k++)
		if (strcaseeq(letters[k].name, name))
			return (int)k;
	return -1;
}

/* The letter of a field, NULL for literal text and invalid tokens. */
static const struct letter *letter_of(const struct fmt_field *fl)
{
	return fl->id >= 0 ? &letters[fl->id] : NULL;
}

/* Parse, report unknown letters as sinfo does (the token then prints as
 * written; an unknown -O name prints only its suffix), and collect the
 * match bits of the letters shown. */
static int fmt_parse(struct fmt_spec *f, const struct sinfo_opts *o, uint64_t *ret_match)
{
	bool is_long = !o->format && o->format_long;
	int r;

	if (is_long)
		r = fmt_parse_long(f, o->format_long, name_id, NULL);
	else
		r = fmt_parse_short(f, o->format ? o->format : sinfo_builtin_format(o), true,
				    letter_id, NULL);
	*ret_match = 0;
	for (size_t i = 0; r == 0 && i < f->n; i++) {
		struct fmt_field *fl = &f->v[i];

		if (fl->id >= 0) {
			*ret_match |= letters[fl->id].match;
		} else if (fl->id == FMT_INVALID && is_long) {
			cli_error("Invalid job format specification: %s", fl->raw);
		} else if (fl->id == FMT_INVALID) {
			fflush(stdout);
			fprintf(stderr, "Invalid node format specification: %c\n",
				fl->letter ? fl->letter : ' ');
			free(fl->suffix);
			fl->suffix = fl->raw; /* printed as written */
			fl->raw = NULL;
		}
	}
	return r;
}

const char *sinfo_builtin_format(const struct sinfo_opts *o)
{
	if (o->summarize)
		return "%#P %.5a %.10l %.16F %N";
	if (o->node_flag)
		return o->long_flag ? "%#N %.6D %.#P %.11T %4c %.8z %.6m %.8d %.6w %.8f %20E"
				    : "%#N %.6D %.#P %6t";
	if (o->list_reasons)
		return o->long_flag ? "%20E %12U %19H %6t %N" : "%20E %9u %19H %N";
	return o->long_flag ? "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %.11i %N"
			    : "%#P %.5a %.10l %.6D %.6t %N";
}

/* ---- printing ---- */

static void print_line(FILE *out, const struct fmt_spec *f, const int *w, const struct rec *r,
		       const struct sinfo_opts *o)
{
	for (size_t i = 0; i < f->n; i++) {
		const struct fmt_field *fl = &f->v[i];
		const struct letter *l = letter_of(fl);

		if (l && !r) {
			fmt_put_cell(out, l->header, w[i], fl->right, !l->header_full);
		} else if (l) {
			char *v = l->value(r, o, w[i]);

			fmt_put_cell(out, v ? v : "", w[i], fl->right, true);
			free(v);
		}
		if (fl->suffix)
			fputs(fl->suffix, out);
	}
	fputc('\n', out);
}

/* "%#X": the longest value of the column, at least the letter's minimum. */
static void widths(const struct fmt_spec *f, const struct recs *rs, const struct sinfo_opts *o,
		   int *w)
{
	for (size_t i = 0; i < f->n; i++) {
		const struct letter *l = letter_of(&f->v[i]);

		w[i] = f->v[i].width;
		if (!l || !f->v[i].autow)
			continue;
		w[i] = l->auto_min ? l->auto_min : (int)strlen(l->header);
		for (size_t j = 0; j < rs->n; j++) {
			char *v = l->value(rs->v[j], o, 0);

			if (v && (int)strlen(v) > w[i])
				w[i] = (int)strlen(v);
			free(v);
		}
	}
}

int sinfo_print(FILE *out, const struct sinfo_opts *o, const struct node_info_msg *nodes,
		const struct part_info_msg *parts)
{
	struct fmt_spec f = {.n = 0};
	struct recs rs = {.n = 0};
	uint64_t match = 0;
	int *w = NULL, r;

	r = fmt_parse(&f, o, &match);
	if (r == 0)
		r = sinfo_rec_build(o, match, nodes, parts, &rs);
	if (r == 0 && !(w = calloc(f.n + 1, sizeof(*w))))
		r = -ENOMEM;
	if (r == 0) {
		sinfo_rec_sort(o, &rs);
		widths(&f, &rs, o, w);
		if (!o->no_header)
			print_line(out, &f, w, NULL, o);
		for (size_t i = 0; i < rs.n; i++)
			print_line(out, &f, w, rs.v[i], o);
	}
	sinfo_recs_done(&rs);
	free(w);
	fmt_spec_done(&f);
	return r;
}

void sinfo_print_date(FILE *out, time_t now)
{
	fmt_print_date(out, now);
}

void sinfo_print_resv(FILE *out, const struct resv_info_msg *m, bool no_header, time_t now)
{
	int width = 9; /* strlen("RESV_NAME") */

	if (!m->count) {
		fputs("No reservations in the system\n", out);
		return;
	}
	for (uint32_t i = 0; i < m->count; i++)
		if (m->resvs[i].name && (int)strlen(m->resvs[i].name) > width)
			width = (int)strlen(m->resvs[i].name);
	if (!no_header)
		fprintf(out, "%-*s  %8s  %19s  %19s  %11s  %s\n", width, "RESV_NAME", "STATE",
			"START_TIME", "END_TIME", "DURATION", "NODELIST");
	for (uint32_t i = 0; i < m->count; i++) {
		const struct resv_info *r = &m->resvs[i];
		char start[64], end[64], dur[32];
		uint32_t secs =
		    r->end_time > r->start_time ? (uint32_t)(r->end_time - r->start_time) : 0;

		fprintf(
		    out, "%-*s  %8s  %19s  %19s  %11s  %s\n", width, r->name ? r->name : "(null)",
		    r->start_time <= now && now <= r->end_time ? "ACTIVE" : "INACTIVE",
		    time_display(r->start_time, start, sizeof(start)),
		    time_display(r->end_time, end, sizeof(end)),
		    secs2time_str(secs, dur, sizeof(dur)), r->node_list ? r->node_list : "(null)");
	}
}
