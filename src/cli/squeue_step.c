/* squeue_step.c - squeue -s: the job step view, as Slurm 22.05 prints it.
 *
 * Purpose: turn RESPONSE_JOB_STEP_INFO records into squeue's step text.
 * Action, in Slurm's order: (1) filter (_filter_step: pending steps, -j,
 * -p, the -s list, -w, -u); (2) sort by each key of -S (default "P,i")
 * from the last to the first, every pass stable; (3) print.
 * Owns: the step letter table. The format engine (fmt.c) and the option
 * struct are shared with the job view (squeue_fmt.c).
 * Caveat: step fields our step_info does not carry (network, resv ports,
 * cpu frequency, tres per node ...) print what Slurm prints for a step
 * without them: "(null)".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "api/id_name.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/squeue_cell.h"
#include "cli/squeue_fmt.h"
#include "common/hostlist.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_time.h"

typedef const char *sval_fn(const struct step_info *s, const struct squeue_opts *o, struct cell *c);

/* "12.0", "12.batch", "123_4.0" (log_build_step_id_str without prefix). */
static void step_id_str(const struct step_info *s, char *buf, size_t n)
{
	int pos = 0;

	if (s->array_job_id)
		pos = snprintf(buf, n, "%u_%u.", s->array_job_id, s->array_task_id);
	else
		pos = snprintf(buf, n, "%u.", s->job_id);
	if (pos < 0 || (size_t)pos >= n)
		return;
	if (s->step_id == SL_BATCH_STEP)
		snprintf(buf + pos, n - (size_t)pos, "batch");
	else if (s->step_id == SL_EXTERN_STEP)
		snprintf(buf + pos, n - (size_t)pos, "extern");
	else
		snprintf(buf + pos, n - (size_t)pos, "%u", s->step_id);
}

static long step_time_used(const struct step_info *s, time_t now)
{
	if (!s->start_time)
		return 0;
	return (long)(now - s->start_time);
}

#define V(fn)                                                                                      \
	static const char *fn(const struct step_info *s _unused_,                                  \
			      const struct squeue_opts *o _unused_, struct cell *c _unused_)

V(v_id)
{
	step_id_str(s, c->buf, sizeof(c->buf));
	return c->buf;
}
V(v_name)
{
	return s->name;
}
V(v_partition)
{
	return s->partition;
}
V(v_user)
{
	if (id_name_uid(s->user_id, c->buf, sizeof(c->buf)))
		return c->buf;
	return squeue_cellf(c, "%u", s->user_id);
}
V(v_uid)
{
	return squeue_cellf(c, "%d", (int)s->user_id);
}
V(v_time_limit)
{
	if (s->time_limit == INFINITE)
		return "UNLIMITED";
	c->cut = false;
	return squeue_secs_str((long)s->time_limit * 60, c);
}
V(v_time_used)
{
	c->cut = false;
	return squeue_secs_str(step_time_used(s, o->now), c);
}
V(v_start)
{
	if (!s->start_time)
		return "N/A";
	return time_display(s->start_time, c->buf, sizeof(c->buf));
}
V(v_nodes)
{
	return squeue_nodes_str(s->nodes, c);
}
V(v_tasks)
{
	return squeue_cellf(c, "%d", (int)s->num_tasks);
}
V(v_cpus)
{
	return squeue_cellf(c, "%d", (int)s->num_cpus);
}
V(v_array_job_id)
{
	return squeue_cellf(c, "%d",
			    (int)(s->array_job_id != NO_VAL ? s->array_job_id : s->job_id));
}
V(v_array_task_id)
{
	if (s->array_task_id == NO_VAL)
		return "N/A";
	return squeue_cellf(c, "%d", (int)s->array_task_id);
}
V(v_job_id)
{
	return squeue_cellf(c, "%d", (int)s->job_id);
}
V(v_state)
{
	return job_state_string(s->state);
}
V(v_null)
{
	return NULL;
}
V(v_cpu_freq)
{
	return "Unknown-Unknown:Unknown";
}

struct sletter {
	char c;		  /* -o letter; 0: -O name only */
	const char *name; /* -O name; NULL: -o letter only */
	const char *header;
	sval_fn *value;
	bool header_left; /* the header ignores '.' (START_TIME) */
	bool header_full; /* the header is never cut (NODELIST) */
};

/* opts.c's step letters and -O names; "numtask" is Slurm's spelling, the
 * man page's "NumTasks" is taken too. */
static const struct sletter sletters[] = {
    {'A', "NumTask", "TASKS", v_tasks, false, false},
    {0, "NumTasks", "TASKS", v_tasks, false, false},
    {'b', "tres-per-node", "TRES_PER_JOB", v_null, false, false},
    {0, "Gres", "TRES_PER_JOB", v_null, false, false},
    {'i', "StepId", "STEPID", v_id, false, false},
    {'j', "StepName", "NAME", v_name, false, false},
    {'l', "TimeLimit", "TIME_LIMIT", v_time_limit, false, false},
    {'M', "TimeUsed", "TIME", v_time_used, false, false},
    {'N', "Nodes", "NODELIST", v_nodes, false, true},
    {'P', "Partition", "PARTITION", v_partition, false, false},
    {'S', "StartTime", "START_TIME", v_start, true, false},
    {'U', "UserId", "UID", v_uid, false, false},
    {'u', "UserName", "USER", v_user, false, false},
    {0, "Cluster", "CLUSTER", v_null, false, false},
    {0, "ArrayJobId", "ARRAY_JOB_ID", v_array_job_id, false, false},
    {0, "ArrayTaskId", "ARRAY_TASK_ID", v_array_task_id, false, false},
    {0, "JobId", "JOB_ID", v_job_id, false, false},
    {0, "Network", "NETWORK", v_null, false, false},
    {0, "NumCPUs", "NUM_CPUS", v_cpus, false, false},
    {0, "CPUFreq", "CPU_FREQ", v_cpu_freq, false, false},
    {0, "ResvPorts", "RESERVED_PORTS", v_null, false, false},
    {0, "StepState", "STATE", v_state, false, false},
    {0, "cpus-per-tres", "CPUS_PER_TRES", v_null, false, false},
    {0, "mem-per-tres", "MEM_PER_TRES", v_null, false, false},
    {0, "tres-bind", "TRES_BIND", v_null, false, false},
    {0, "tres-freq", "TRES_FREQ", v_null, false, false},
    {0, "tres-per-job", "TRES_PER_STEP", v_null, false, false},
    {0, "tres-per-step", "TRES_PER_STEP", v_null, false, false},
    {0, "tres-per-socket", "TRES_PER_SOCKET", v_null, false, false},
    {0, "tres-per-task", "TRES_PER_TASK", v_null, false, false},
    {0, "Container", "CONTAINER", v_null, false, false},
};

static int sletter_id(char ch, const void *arg _unused_)
{
	for (size_t k = 0; k < ARRAY_SIZE(sletters); k++)
		if (sletters[k].c && sletters[k].c == ch)
			return (int)k;
	return -1;
}

static int sname_id(const char *name, const void *arg _unused_)
{
	for (size_t k = 0; k < ARRAY_SIZE(sletters); k++)
		if (sletters[k].name && strcaseeq(sletters[k].name, name))
			return (int)k;
	return -1;
}

/* ---- printing ---- */

static void print_line(FILE *out, const struct fmt_spec *f, const struct step_info *s,
		       const struct squeue_opts *o)
{
	for (size_t i = 0; i < f->n; i++) {
		const struct fmt_field *fl = &f->v[i];

		if (fl->id >= 0) {
			const struct sletter *l = &sletters[fl->id];
			struct cell c = {.cut = true};

			if (!s) {
				fmt_put_cell(out, l->header, fl->width,
					     fl->right && !l->header_left, !l->header_full);
			} else {
				const char *v = l->value(s, o, &c);

				squeue_put_value(out, v, fl, c.cut);
				free(c.own);
			}
		}
		if (fl->suffix)
			fputs(fl->suffix, out);
	}
	fputc('\n', out);
}

static int parse_format(struct fmt_spec *f, const struct squeue_opts *o)
{
	bool is_long = !o->format && o->format_long;
	int r;

	if (is_long)
		r = fmt_parse_long(f, o->format_long, sname_id, NULL);
	else
		r = fmt_parse_short(f, o->format ? o->format : SQUEUE_STEP_FORMAT, false,
				    sletter_id, NULL);
	for (size_t i = 0; r == 0 && i < f->n; i++) {
		if (f->v[i].id != FMT_INVALID)
			continue;
		if (is_long)
			cli_error("Invalid job step format specification: %s", f->v[i].raw);
		else
			cli_error("Invalid job step format specification: %c",
				  f->v[i].letter ? f->v[i].letter : ' ');
	}
	return r;
}

/* ---- filters (Slurm's _filter_step) ---- */

static bool job_match(uint32_t want_job, uint32_t want_task, const struct step_info *s)
{
	if (want_task == NO_VAL)
		return want_job == s->job_id || (s->array_job_id && want_job == s->array_job_id);
	return s->array_job_id && want_job == s->array_job_id && want_task == s->array_task_id;
}

static bool keep(const struct step_info *s, const struct squeue_opts *o,
		 const struct hostlist *want)
{
	bool hit;

	if ((s->state & JOB_STATE_BASE) == JOB_PENDING)
		return false;
	if (o->jobs) {
		hit = false;
		for (size_t i = 0; i < o->n_jobs && !hit; i++)
			hit = job_match(o->jobs[i].job_id, o->jobs[i].array_id, s);
		if (!hit)
			return false;
	}
	if (o->partitions && !fmt_list_has(o->partitions, s->partition, false))
		return false;
	if (o->steps) {
		hit = false;
		for (size_t i = 0; i < o->n_steps && !hit; i++)
			hit = o->steps[i].step_id == s->step_id
			      && job_match(o->steps[i].job_id, o->steps[i].array_id, s);
		if (!hit)
			return false;
	}
	if (want && !squeue_nodes_intersect(want, s->nodes))
		return false;
	if (o->has_users) {
		hit = false;
		for (size_t i = 0; i < o->n_users && !hit; i++)
			hit = o->users[i] == s->user_id;
		if (!hit)
			return false;
	}
	return true;
}

/* ---- sorting (Slurm's sort_step_list) ---- */

struct srt {
	const struct step_info *s;
	size_t pos;
};

struct sort_ctx {
	char key;
	bool reverse;
	time_t now;
};

static int key_diff(const struct step_info *a, const struct step_info *b, const struct sort_ctx *x)
{
	char ua[256], ub[256];
	int d;

	switch (x->key) {
	case 'i':
		d = squeue_diff_u64(a->job_id, b->job_id);
		return d ? d : squeue_diff_u64(a->step_id, b->step_id);
	case 'N':
		return squeue_diff_str(a->nodes, b->nodes);
	case 'P':
		return squeue_diff_str(a->partition, b->partition);
	case 'S':
		return squeue_diff_u64((uint64_t)a->start_time, (uint64_t)b->start_time);
	case 'M':
		return squeue_diff_u64((uint64_t)step_time_used(a, x->now),
				       (uint64_t)step_time_used(b, x->now));
	case 'u':
		if (!id_name_uid(a->user_id, ua, sizeof(ua)))
			snprintf(ua, sizeof(ua), "%u", a->user_id);
		if (!id_name_uid(b->user_id, ub, sizeof(ub)))
			snprintf(ub, sizeof(ub), "%u", b->user_id);
		return strcmp(ua, ub);
	case 'U':
		return squeue_diff_u64(a->user_id, b->user_id);
	}
	return 0;
}

static int cmp_srt(const void *pa, const void *pb, void *arg)
{
	const struct srt *a = pa, *b = pb;
	const struct sort_ctx *x = arg;
	int d = key_diff(a->s, b->s, x);

	if (x->reverse)
		d = -d;
	return d ? d : squeue_diff_u64(a->pos, b->pos);
}

static void sort_steps(struct srt *v, size_t n, const struct squeue_opts *o)
{
	const char *spec = o->sort ? o->sort : "P,i";
	struct sort_ctx x = {.now = o->now};

	for (size_t i = strlen(spec); i-- > 0;) {
		char ch = spec[i];

		if (ch == ',' || ch == '+' || ch == '-' || !strchr("iNPSMuU", ch))
			continue;
		x.key = ch;
		x.reverse = i > 0 && spec[i - 1] == '-';
		for (size_t k = 0; k < n; k++)
			v[k].pos = k;
		qsort_r(v, n, sizeof(*v), cmp_srt, &x);
	}
}

int squeue_print_steps(FILE *out, const struct squeue_opts *o, const struct step_info_msg *m)
{
	struct fmt_spec f = {.n = 0};
	struct hostlist *want = NULL;
	struct srt *v = NULL;
	size_t n = 0;
	int r = parse_format(&f, o);

	if (r == 0 && o->nodes)
		r = hostlist_new(o->nodes, &want);
	if (r == 0 && !o->no_header)
		print_line(out, &f, NULL, o);
	if (r == 0 && !(v = calloc((size_t)m->count + 1, sizeof(*v))))
		r = -ENOMEM;
	for (uint32_t i = 0; r == 0 && i < m->count; i++)
		if (keep(&m->steps[i], o, want))
			v[n++].s = &m->steps[i];
	if (r == 0)
		sort_steps(v, n, o);
	for (size_t i = 0; r == 0 && i < n; i++)
		print_line(out, &f, v[i].s, o);
	free(v);
	hostlist_free(want);
	fmt_spec_done(&f);
	return r;
}
