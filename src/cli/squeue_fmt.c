/* squeue_fmt.c - squeue's engine: filter, fold arrays, sort, print.
 *
 * Purpose: turn RESPONSE_JOB_INFO records into squeue's text exactly as
 * Slurm 22.05 lays it out.
 * Action, in Slurm's order: (1) filter (ids, accounts, qos, states, nodes,
 * users, names, then partitions); a -j 12_5 naming a task still inside a
 * pending meta record narrows that record to the named tasks; (2) fold
 * pending array tasks that were split off back into their meta record
 * (not with -r); (3) sort: first by expected start time, latest first,
 * then by each -S key from the last to the first, every pass stable, so
 * ties keep the controller's order; (4) print, -r expanding a meta record
 * into one line per task at its sorted place.
 * Owns: the letter table (-o letter, -O name, header, value printer).
 * Caveat: fields our job_info does not carry (reservation, wckey, sockets
 * per node ...) print what Slurm prints for a job without them.
 */
#include "cli/squeue_fmt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/id_name.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/squeue_cell.h"
#include "common/hostlist.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_time.h"

#define IDSET_MAX    (1u << 20) /* tasks one array string may name */

#define SORT_PRE_MAX 4 /* sort keys computed once per record, not per comparison */

struct srec {
	const struct job_info *j;  /* the message's record, or mine */
	struct job_info *mine;	   /* a shallow copy, once the record changes */
	char *own_tasks;	   /* replaces j->array_task_str once narrowed or folded */
	char *own_desc;		   /* replaces j->state_desc once task reasons merged */
	const char *part;	   /* j->partition, one pointer per name (sorting on P) */
	size_t pos;		   /* place in the controller's order */
	int64_t pre[SORT_PRE_MAX]; /* sort keys computed once (struct sort_ctx's pre) */
};

/* The record to change: the srec's own copy (strings still the
 * message's), made at the first change, so that the message stays as it
 * was sent and a listing of 100,000 records copies only those that
 * change (array records). NULL when out of memory. */
static struct job_info *rec_mut(struct srec *r)
{
	if (!r->mine) {
		r->mine = malloc(sizeof(*r->mine));
		if (!r->mine)
			return NULL;
		*r->mine = *r->j;
		r->j = r->mine;
	}
	return r->mine;
}

/* Frees what r owns (the srec itself is in build()'s block). */
static void srec_done(struct srec *r)
{
	free(r->own_tasks);
	free(r->own_desc);
	free(r->mine);
	r->own_tasks = r->own_desc = NULL;
	r->mine = NULL;
}

typedef const char *val_fn(const struct job_info *j, const struct squeue_opts *o, struct cell *c);

/* ---- small helpers ---- */

static const char *time_str(time_t t, struct cell *c)
{
	if (t == 0)
		return "N/A";
	if (t == (time_t)INFINITE)
		return "Unknown";
	return time_display(t, c->buf, sizeof(c->buf));
}

static long time_used(const struct job_info *j, time_t now)
{
	time_t end;

	if (j->start_time == 0 || (j->job_state & JOB_STATE_BASE) == JOB_PENDING)
		return 0;
	if ((j->job_state & JOB_STATE_BASE) == JOB_SUSPENDED)
		return (long)j->pre_sus_time;
	if ((j->job_state & JOB_STATE_BASE) == JOB_RUNNING || j->end_time == 0)
		end = now;
	else
		end = j->end_time;
	if (j->suspend_time)
		return (long)(end - j->suspend_time) + (long)j->pre_sus_time;
	return (long)(end - j->start_time);
}

/* "3-20" plus "%2" when throttled, as Slurm's array_task_str carries it. */
static const char *tasks_str(const struct job_info *j, struct cell *c)
{
	if (!j->array_max_tasks)
		return j->array_task_str;
	return squeue_cellf(c, "%s%%%u", j->array_task_str, j->array_max_tasks);
}

static bool is_array_task(const struct job_info *j)
{
	return j->array_job_id && j->array_task_id != NO_VAL;
}

/* ---- the letters ---- */

#define V(fn)                                                                                      \
	static const char *fn(const struct job_info *j _unused_,                                   \
			      const struct squeue_opts *o _unused_, struct cell *c _unused_)

V(v_job_id)
{
	if (j->array_task_str && j->array_max_tasks)
		return squeue_cellf(c, "%u_[%s%%%u]", j->array_job_id, j->array_task_str,
				    j->array_max_tasks);
	if (j->array_task_str)
		return squeue_cellf(c, "%u_[%s]", j->array_job_id, j->array_task_str);
	if (is_array_task(j))
		return squeue_cellf(c, "%u_%u", j->array_job_id, j->array_task_id);
	return squeue_cell_int(c, j->job_id);
}
V(v_array_job_id)
{
	return squeue_cellf(c, "%u",
			    j->array_task_str || is_array_task(j) ? j->array_job_id : j->job_id);
}
V(v_array_task_id)
{
	if (j->array_task_str)
		return tasks_str(j, c);
	return is_array_task(j) ? squeue_cellf(c, "%u", j->array_task_id) : "N/A";
}
V(v_batch_host)
{
	const char *h = j->batch_flag ? j->batch_host : j->alloc_node;

	return h ? h : "n/a";
}
V(v_tres_per_node)
{
	return j->tres_per_node ? j->tres_per_node : "N/A";
}
V(v_min_cpus)
{
	return fmt_num_unit(j->pn_min_cpus, 0, c->buf, sizeof(c->buf));
}
V(v_tmp_disk)
{
	return fmt_num_unit(j->pn_min_tmp_disk, 'M', c->buf, sizeof(c->buf));
}
V(v_min_memory)
{
	return fmt_num_unit(j->pn_min_memory & ~MEM_PER_CPU, 'M', c->buf, sizeof(c->buf));
}
V(v_end_time)
{
	if (j->time_limit == INFINITE && j->end_time > o->now)
		return "NONE";
	return time_str(j->end_time, c);
}
V(v_group)
{
	char name[64];

	if (id_name_gid(j->group_id, name, sizeof(name)) && name[0])
		return squeue_cellf(c, "%s", name);
	return squeue_cellf(c, "%d", (int)j->group_id);
}
V(v_oversub)
{
	static const char *const words[] = {"NO", "OK", "USER", "MCS", "YES"};

	return j->shared < ARRAY_SIZE(words) ? words[j->shared] : "OK";
}
V(v_time_limit)
{
	if (j->time_limit == INFINITE)
		return "UNLIMITED";
	if (j->time_limit == NO_VAL)
		return "NOT_SET";
	c->cut = false;
	return squeue_secs_str((long)j->time_limit * 60, c);
}
V(v_time_left)
{
	if (j->time_limit == INFINITE)
		return "UNLIMITED";
	if (j->time_limit == NO_VAL)
		return "NOT_SET";
	c->cut = false;
	return squeue_secs_str((long)j->time_limit * 60 - time_used(j, o->now), c);
}
V(v_time_used)
{
	c->cut = false;
	return squeue_secs_str(time_used(j, o->now), c);
}
V(v_req_nodes)
{
	return squeue_nodes_str(j->req_nodes, c);
}
V(v_node_list)
{
	return squeue_nodes_str(j->nodes, c);
}
V(v_exc_nodes)
{
	return squeue_nodes_str(j->exc_nodes, c);
}
V(v_priority)
{
	return squeue_cellf(c, "%16.14f", (double)j->priority / (double)0xffffffffu);
}
V(v_priority_long)
{
	return squeue_cellf(c, "%u", j->priority);
}
V(v_reason)
{
	return j->state_desc ? j->state_desc : job_reason_string(j->state_reason);
}
V(v_reason_list)
{
	uint32_t base = j->job_state & JOB_STATE_BASE;
	const char *why;
	size_t n;

	if ((j->job_state & JOB_COMPLETING)
	    || !(base == JOB_PENDING || (j->job_state & JOB_STAGE_OUT) || base == JOB_TIMEOUT
		 || base == JOB_OOM || base == JOB_DEADLINE || base == JOB_FAILED))
		return squeue_nodes_str(j->nodes, c);
	why = v_reason(j, o, c);
	n = strlen(why);
	if (n + 3 > sizeof(c->buf))
		return squeue_cellf(c, "(%s)", why);
	/* "(%s)" without a format parsed a line */
	c->buf[0] = '(';
	memcpy(c->buf + 1, why, n);
	memcpy(c->buf + 1 + n, ")", 2);
	return c->buf;
}
V(v_state_compact)
{
	return job_state_compact(j->job_state);
}
V(v_state)
{
	return job_state_string(j->job_state);
}
V(v_user)
{
	if (id_name_uid(j->user_id, c->buf, sizeof(c->buf)))
		return c->buf;
	return j->user_name ? j->user_name : squeue_cellf(c, "%u", j->user_id);
}
V(v_nice)
{
	return squeue_cellf(c, "%d", j->nice == NO_VAL ? 0 : (int)(j->nice - NICE_OFFSET));
}
V(v_sched_nodes)
{
	c->cut = false;
	return j->sched_nodes;
}
V(v_tres_alloc)
{
	return j->tres_alloc_str ? j->tres_alloc_str : j->tres_req_str ? j->tres_req_str : "N/A";
}
V(v_std_out)
{
	return j->std_out ? j->std_out : squeue_cellf(c, "%s/slurm-%u.out", j->work_dir, j->job_id);
}
V(v_std_err)
{
	if (!j->batch_flag)
		return "N/A";
	return j->std_err ? j->std_err : v_std_out(j, o, c);
}
V(v_cpt)
{
	return j->cpus_per_task == NO_VAL16 ? "N/A" : squeue_cellf(c, "%d", j->cpus_per_task);
}
V(v_max_nodes)
{
	return squeue_cellf(c, "%d", (int)(j->max_nodes ? j->max_nodes : j->num_nodes));
}
V(v_min_time)
{
	return squeue_secs_str((long)j->time_min * 60, c);
}
V(v_nt_per_node)
{
	if (j->ntasks_per_node == NO_VAL16 || j->ntasks_per_node == INFINITE16)
		return "N/A";
	return squeue_cellf(c, "%d", j->ntasks_per_node);
}
V(v_pending_time)
{
	if (j->start_time && j->start_time < o->now)
		return squeue_cellf(c, "%d", (int)(j->start_time - j->submit_time));
	return squeue_cellf(c, "%d", (int)(o->now - j->submit_time));
}
V(v_zero_secs)
{
	return squeue_secs_str(0, c);
}

/* How a letter finds its value: a function, or a field of job_info printed
 * as a string, a signed number ("%d", as Slurm's _print_int) or a time. */
enum kind { K_FN, K_STR, K_INT32, K_INT16, K_TIME, K_CONST };

struct letter {
	char c;		  /* -o letter; 0: -O name only */
	const char *name; /* -O name */
	const char *header;
	enum kind kind;
	size_t off;	  /* the field, for K_STR .. K_TIME */
	val_fn *value;	  /* K_FN */
	const char *text; /* K_CONST; NULL prints "(null)" */
	bool header_full; /* header is never cut (node list columns) */
};

#define FN(fn) K_FN, 0, fn, NULL
#define STR(f) K_STR, offsetof(struct job_info, f), NULL, NULL
#define I32(f) K_INT32, offsetof(struct job_info, f), NULL, NULL
#define I16(f) K_INT16, offsetof(struct job_info, f), NULL, NULL
#define TIM(f) K_TIME, offsetof(struct job_info, f), NULL, NULL
#define TXT(s) K_CONST, 0, NULL, s

static const struct letter letters[] = {
    {'a', "Account", "ACCOUNT", STR(account), false},
    {'A', "JobID", "JOBID", I32(job_id), false},
    {'b', "tres-per-node", "TRES_PER_NODE", FN(v_tres_per_node), false},
    {'B', "BatchHost", "EXEC_HOST", FN(v_batch_host), false},
    {'c', "MinCpus", "MIN_CPUS", FN(v_min_cpus), false},
    {'C', "NumCPUs", "CPUS", I32(num_cpus), false},
    {'d', "MinTmpDisk", "MIN_TMP_DISK", FN(v_tmp_disk), false},
    {'D', "NumNodes", "NODES", I32(num_nodes), false},
    {'e', "EndTime", "END_TIME", FN(v_end_time), false},
    {'E', "Dependency", "DEPENDENCY", STR(dependency), false},
    {'f', "Feature", "FEATURES", STR(features), false},
    {'F', "ArrayJobID", "ARRAY_JOB_ID", FN(v_array_job_id), false},
    {'g', "GroupName", "GROUP", FN(v_group), false},
    {'G', "GroupID", "GROUP", I32(group_id), false},
    {'h', "OverSubscribe", "OVER_SUBSCRIBE", FN(v_oversub), false},
    {'H', "Sockets", "SOCKETS_PER_NODE", TXT("*"), false},
    {'i', "JobArrayID", "JOBID", FN(v_job_id), false},
    {'I', "Cores", "CORES_PER_SOCKET", TXT("*"), false},
    {'j', "Name", "NAME", STR(name), false},
    {'J', "Threads", "THREADS_PER_CORE", TXT("*"), false},
    {'k', "Comment", "COMMENT", STR(comment), false},
    {'K', "ArrayTaskID", "ARRAY_TASK_ID", FN(v_array_task_id), false},
    {'l', "TimeLimit", "TIME_LIMIT", FN(v_time_limit), false},
    {'L', "TimeLeft", "TIME_LEFT", FN(v_time_left), false},
    {'m', "MinMemory", "MIN_MEMORY", FN(v_min_memory), false},
    {'M', "TimeUsed", "TIME", FN(v_time_used), false},
    {'n', "ReqNodes", "REQ_NODES", FN(v_req_nodes), false},
    {'N', "NodeList", "NODELIST", FN(v_node_list), true},
    {'o', "Command", "COMMAND", STR(command), false},
    {'O', "Contiguous", "CONTIGUOUS", I16(contiguous), false},
    {'p', "Priority", "PRIORITY", FN(v_priority), false},
    {'P', "Partition", "PARTITION", STR(partition), false},
    {'q', "QOS", "QOS", STR(qos), false},
    {'Q', "PriorityLong", "PRIORITY", FN(v_priority_long), false},
    {'r', "Reason", "REASON", FN(v_reason), false},
    {'R', "ReasonList", "NODELIST(REASON)", FN(v_reason_list), true},
    {'S', "StartTime", "START_TIME", TIM(start_time), false},
    {'t', "StateCompact", "ST", FN(v_state_compact), false},
    {'T', "State", "STATE", FN(v_state), false},
    {'u', "UserName", "USER", FN(v_user), false},
    {'U', "UserID", "UID", I32(user_id), false},
    {'v', "Reservation", "RESERVATION", STR(resv_name), false},
    {'V', "SubmitTime", "SUBMIT_TIME", TIM(submit_time), false},
    {'w', "WCKey", "WCKEY", TXT(NULL), false},
    {'W', "Licenses", "LICENSES", STR(licenses), false},
    {'x', "ExcNodes", "EXC_NODES", FN(v_exc_nodes), false},
    {'y', "Nice", "NICE", FN(v_nice), false},
    {'Y', "SchedNodes", "SCHEDNODES", FN(v_sched_nodes), true},
    {'z', "SCT", "S:C:T", TXT("*:*:*"), false},
    {'Z', "WorkDir", "WORK_DIR", STR(work_dir), false},
    {0, "AccrueTime", "ACCRUE_TIME", TIM(accrue_time), false},
    {0, "AllocNodes", "ALLOC_NODES", STR(alloc_node), false},
    {0, "AllocSID", "ALLOC_SID", I32(alloc_sid), false},
    {0, "BatchFlag", "BATCH_FLAG", I16(batch_flag), false},
    {0, "cpus-per-task", "CPUS_PER_TASK", FN(v_cpt), false},
    {0, "Deadline", "DEADLINE", TXT("N/A"), false},
    {0, "DelayBoot", "DELAY_BOOT", FN(v_zero_secs), false},
    {0, "DerivedEC", "DERIVED_EC", I32(derived_ec), false},
    {0, "EligibleTime", "ELIGIBLE_TIME", TIM(eligible_time), false},
    {0, "exit_code", "EXIT_CODE", I32(exit_code), false},
    {0, "Gres", "TRES_PER_NODE", FN(v_tres_per_node), false},
    {0, "LastSchedEval", "LAST_SCHED_EVAL", TIM(last_sched_eval), false},
    {0, "MaxNodes", "MAX_NODES", FN(v_max_nodes), false},
    {0, "MinTime", "TIME_MIN", FN(v_min_time), false},
    {0, "Network", "NETWORK", STR(network), false},
    {0, "NTPerNode", "NTASKS_PER_NODE", FN(v_nt_per_node), false},
    {0, "NumTasks", "TASKS", I32(num_tasks), false},
    {0, "PendingTime", "PENDING_TIME", FN(v_pending_time), false},
    {0, "Requeue", "REQUEUE", I16(requeue), false},
    {0, "RestartCnt", "RESTART_COUNT", I16(restart_cnt), false},
    {0, "STDERR", "STDERR", FN(v_std_err), false},
    {0, "STDIN", "STDIN", STR(std_in), false},
    {0, "STDOUT", "STDOUT", FN(v_std_out), false},
    {0, "tres", "TRES_ALLOC", FN(v_tres_alloc), false},
    {0, "tres-alloc", "TRES_ALLOC", FN(v_tres_alloc), false},
};

static const char *letter_value(const struct letter *l, const struct job_info *j,
				const struct squeue_opts *o, struct cell *c)
{
	const char *field = (const char *)j + l->off;

	switch (l->kind) {
	case K_FN:
		return l->value(j, o, c);
	case K_STR:
		return *(char *const *)(const void *)field;
	case K_INT32:
		return squeue_cell_int(c, (int)*(const uint32_t *)(const void *)field);
	case K_INT16:
		return squeue_cell_int(c, *(const uint16_t *)(const void *)field);
	case K_TIME:
		return time_str(*(const time_t *)(const void *)field, c);
	case K_CONST:
		break;
	}
	return l->text;
}

static int letter_id(char ch, const void *arg _unused_)
{
	for (size_t k = 0; k < ARRAY_SIZE(letters); k++)
		if (letters[k].c && letters[k].c == ch)
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

/* The fields whose value reads a string a brief record leaves out
 * (job_info_brief): squeue asks for full records when it prints one
 * (test_squeue_fmt.c checks every other field prints the same from a
 * brief record). */
static const char *const full_fields[] = {
    "tres-per-node", "BatchHost", "Dependency", "Feature", "Comment", "ReqNodes",
    "Command",	     "Licenses",  "ExcNodes",	"WorkDir", "AllocNodes", "Gres",
    "Network",	     "STDERR",	  "STDIN",	"STDOUT",  "tres",	 "tres-alloc",
};

static bool letter_is_brief(const struct letter *l)
{
	for (size_t i = 0; i < ARRAY_SIZE(full_fields); i++)
		if (strcaseeq(full_fields[i], l->name))
			return false;
	return true;
}

const char *squeue_field_name(size_t i)
{
	return i < ARRAY_SIZE(letters) ? letters[i].name : NULL;
}

bool squeue_wants_brief(const struct squeue_opts *o)
{
	struct fmt_spec f = {.n = 0};
	bool brief;
	int r;

	if (!o->format && o->format_long)
		r = fmt_parse_long(&f, o->format_long, name_id, NULL);
	else
		r = fmt_parse_short(&f, o->format ? o->format : squeue_builtin_format(o), false,
				    letter_id, NULL);
	brief = r == 0;
	for (size_t i = 0; brief && i < f.n; i++)
		brief = f.v[i].id < 0 || letter_is_brief(&letters[f.v[i].id]);
	fmt_spec_done(&f);
	/* sort keys: only B (BatchHost) reads a left-out string */
	return brief && !(o->sort && strchr(o->sort, 'B'));
}

const char *squeue_builtin_format(const struct squeue_opts *o)
{
	if (o->start_flag)
		return "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";
	if (o->long_flag)
		return "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
	return "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
}

/* ---- printing ---- */

static void print_line(FILE *out, const struct fmt_spec *f, const struct job_info *j,
		       const struct squeue_opts *o)
{
	for (size_t i = 0; i < f->n; i++) {
		const struct fmt_field *fl = &f->v[i];

		if (fl->id >= 0) {
			const struct letter *l = &letters[fl->id];
			struct cell c; /* buf is written before it is read */
			const char *v;

			c.own = NULL;
			c.cut = true;

			if (!j) {
				fmt_put_cell(out, l->header, fl->width, fl->right, !l->header_full);
			} else {
				v = letter_value(l, j, o, &c);
				squeue_put_value(out, v, fl, c.cut);
				free(c.own);
			}
		}
		if (fl->suffix)
			fputs(fl->suffix, out);
	}
	fputc('\n', out);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* ---- filters ---- */

/* Any partition of the job (comma list) in the -p list. */
static bool part_match(const char *filter, const char *parts)
{
	for (const char *p = parts; p && *p;) {
		size_t tl = strcspn(p, ",");
		char *tok = strndup(p, tl);
		bool hit = tok && fmt_list_has(filter, tok, false);

		free(tok);
		if (hit)
			return true;
		p += tl + (p[tl] == ',');
	}
	return false;
}

static bool state_match(const struct squeue_opts *o, uint32_t st)
{
	uint32_t base = st & JOB_STATE_BASE;

	if (o->all_states)
		return true;
	if (!o->states)
		return base == JOB_PENDING || base == JOB_RUNNING || base == JOB_SUSPENDED
		       || (st & (JOB_STAGE_OUT | JOB_COMPLETING));
	for (size_t i = 0; i < o->n_states; i++) {
		uint32_t s = o->states[i];

		if ((s & JOB_STATE_FLAGS) ? (s & st) != 0 : s == st)
			return true;
	}
	return false;
}

void squeue_pick_states(const struct squeue_opts *o, uint32_t *ret_bases, uint32_t *ret_flags)
{
	uint32_t bases = 0, flags = 0;

	*ret_bases = *ret_flags = 0;
	if (o->all_states)
		return;
	if (!o->states) { /* state_match's default */
		*ret_bases = 1u << JOB_PENDING | 1u << JOB_RUNNING | 1u << JOB_SUSPENDED;
		*ret_flags = JOB_STAGE_OUT | JOB_COMPLETING;
		return;
	}
	for (size_t i = 0; i < o->n_states; i++) {
		uint32_t s = o->states[i], base = s & JOB_STATE_BASE;

		if ((s & JOB_STATE_FLAGS) && base)
			return; /* matched bit by bit (state_match): no pair says it */
		if (s & JOB_STATE_FLAGS)
			flags |= s;
		else if (base < 32)
			bases |= 1u << base; /* a superset of the exact match */
		else
			return;
	}
	*ret_bases = bases;
	*ret_flags = flags;
}

/* A -j entry naming tasks still inside this pending meta record narrows
 * it to those tasks. Returns 0, or -ENOMEM. */
static int narrow_array(struct srec *r, const struct squeue_opts *o)
{
	struct job_info *mine;
	uint32_t *have = NULL, *keep;
	size_t n = 0, k = 0;
	int e = fmt_idset_parse(r->j->array_task_str, &have, &n);

	if (e < 0)
		return e == -ENOMEM ? e : 0;
	keep = have;
	for (size_t i = 0; i < n; i++)
		for (size_t q = 0; q < o->n_jobs; q++)
			if (o->jobs[q].job_id == r->j->array_job_id
			    && o->jobs[q].array_id == have[i]) {
				keep[k++] = have[i];
				break;
			}
	mine = rec_mut(r);
	if (mine && k == 1) {
		mine->array_task_id = keep[0];
		mine->array_task_str = NULL;
	} else if (!mine || !(r->own_tasks = fmt_idset_format(keep, k))) {
		free(have);
		return -ENOMEM;
	} else {
		mine->array_task_str = r->own_tasks;
	}
	free(have);
	return 0;
}

/* Slurm's _filter_job() then _filter_job_part(): 1 to drop, 0 to keep. */
static int filter(struct srec *r, const struct squeue_opts *o, const struct hostlist *want)
{
	const struct job_info *j = r->j;
	bool partial = false, hit = !o->jobs;

	if (j->job_id == 0)
		return 1;
	for (size_t q = 0; q < o->n_jobs && !hit; q++) {
		const struct squeue_job_id *id = &o->jobs[q];

		if ((id->array_id == NO_VAL
		     && (id->job_id == j->array_job_id || id->job_id == j->job_id))
		    || (id->array_id == j->array_task_id && id->job_id == j->array_job_id)) {
			hit = true;
		} else if (id->array_id != NO_VAL && id->job_id == j->array_job_id
			   && fmt_idset_has(j->array_task_str, id->array_id)) {
			hit = partial = true;
		}
	}
	if (!hit)
		return 1;
	if ((o->accounts && !fmt_list_has(o->accounts, j->account, true))
	    || (o->qos && !fmt_list_has(o->qos, j->qos, true)) || !state_match(o, j->job_state)
	    || (want && !squeue_nodes_intersect(want, j->nodes)))
		return 1;
	if (o->has_users) {
		hit = false;
		for (size_t i = 0; i < o->n_users && !hit; i++)
			hit = o->users[i] == j->user_id;
		if (!hit)
			return 1;
	}
	if ((o->names && !fmt_list_has(o->names, j->name, true))
	    || (o->partitions && !part_match(o->partitions, j->partition)))
		return 1;
	return partial ? narrow_array(r, o) : 0;
}

bool squeue_job_keep(const struct squeue_opts *o, const struct hostlist *want,
		     const struct job_info *j)
{
	struct srec r = {.j = j};
	int k = filter(&r, o, want);

	free(r.own_tasks);
	free(r.mine);
	return k != 1;
}

/* ---- folding split-off pending tasks back into their meta record ---- */

/* Slurm's _merge_job_reason: "Priority,Resources" when tasks differ. */
static int merge_reason(struct srec *meta, const struct job_info *task)
{
	const char *have, *add = job_reason_string(task->state_reason);
	struct job_info *mine;
	char *s;

	if (meta->j->state_reason == task->state_reason)
		return 0;
	have = meta->j->state_desc ? meta->j->state_desc : job_reason_string(meta->j->state_reason);
	if (strstr(have, add))
		return 0;
	if (!(mine = rec_mut(meta)) || asprintf(&s, "%s,%s", have, add) < 0)
		return -ENOMEM;
	free(meta->own_desc);
	mine->state_desc = meta->own_desc = s;
	return 0;
}

static bool is_pending(const struct job_info *j)
{
	return (j->job_state & JOB_STATE_BASE) == JOB_PENDING;
}

static int fold_one(struct srec *meta, struct srec **v, size_t n)
{
	uint32_t *ids = NULL, *nv;
	size_t nid = 0, added = 0;
	int r = fmt_idset_parse(meta->j->array_task_str, &ids, &nid);

	if (r < 0)
		return r == -ENOMEM ? r : 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		struct srec *t = v[i];

		if (!t || t == meta || !is_pending(t->j)
		    || t->j->array_job_id != meta->j->array_job_id || !is_array_task(t->j)
		    || !streq(t->j->name ? t->j->name : "", meta->j->name ? meta->j->name : "")
		    || !streq(t->j->partition ? t->j->partition : "",
			      meta->j->partition ? meta->j->partition : ""))
			continue;
		if (!(nv = realloc(ids, (nid + 1) * sizeof(*ids)))) {
			r = -ENOMEM;
			break;
		}
		ids = nv;
		ids[nid++] = t->j->array_task_id;
		r = merge_reason(meta, t->j);
		v[i] = NULL; /* the caller frees dropped records */
		srec_done(t);
		added++;
	}
	if (r == 0 && added) {
		struct job_info *mine = rec_mut(meta);

		qsort(ids, nid, sizeof(*ids), cmp_u32);
		free(meta->own_tasks);
		meta->own_tasks = mine ? fmt_idset_format(ids, nid) : NULL;
		if (mine)
			mine->array_task_str = meta->own_tasks;
		r = meta->own_tasks ? 0 : -ENOMEM;
	}
	free(ids);
	return r;
}

/* ---- sorting ---- */

struct sort_ctx {
	char key;
	bool reverse;
	time_t now;
	int pre; /* index in srec's pre[] when computed once, else -1 */
};

static int diff_s64(int64_t a, int64_t b)
{
	return a > b ? 1 : a < b ? -1 : 0;
}

/* _get_start_time: unknown starts sort as "in 100 s", late pending as now. */
static time_t start_of(const struct job_info *j, time_t now)
{
	if (j->start_time == 0)
		return now + 100;
	if (is_pending(j) && j->start_time < now)
		return now;
	return j->start_time;
}

static uint32_t sort_id(const struct job_info *j, bool minor)
{
	if (!is_array_task(j))
		return minor ? NO_VAL : j->job_id;
	return minor ? j->array_task_id : j->array_job_id;
}

static int key_diff(const struct job_info *a, const struct job_info *b, const struct sort_ctx *x)
{
	char ua[256], ub[256];
	int d;

	switch (x->key) {
	case 'B':
		return squeue_diff_str(a->batch_host, b->batch_host);
	case 'C':
		return squeue_diff_u64(a->num_cpus, b->num_cpus);
	case 'd':
		return squeue_diff_u64(a->pn_min_tmp_disk, b->pn_min_tmp_disk);
	case 'D':
		return squeue_diff_u64(a->num_nodes, b->num_nodes);
	case 'e':
		return diff_s64(a->end_time, b->end_time);
	case 'g':
	case 'G':
		return squeue_diff_u64(a->group_id, b->group_id);
	case 'i':
		d = squeue_diff_u64(sort_id(a, false), sort_id(b, false));
		return d ? d : squeue_diff_u64(sort_id(a, true), sort_id(b, true));
	case 'j':
		return squeue_diff_str(a->name, b->name);
	case 'l':
		return squeue_diff_u64(a->time_limit, b->time_limit);
	case 'L':
		return diff_s64(
		    a->time_limit >= NO_VAL ? INFINITE
					    : (int64_t)a->time_limit * 60 - time_used(a, x->now),
		    b->time_limit >= NO_VAL ? INFINITE
					    : (int64_t)b->time_limit * 60 - time_used(b, x->now));
	case 'm':
		return squeue_diff_u64(a->pn_min_memory & ~MEM_PER_CPU,
				       b->pn_min_memory & ~MEM_PER_CPU);
	case 'M':
		return diff_s64(time_used(a, x->now), time_used(b, x->now));
	case 'N':
		return squeue_diff_str(a->nodes, b->nodes);
	case 'p':
	case 'Q':
		return squeue_diff_u64(a->priority, b->priority);
	case 'P':
		return squeue_diff_str(a->partition, b->partition);
	case 'S':
		return diff_s64(start_of(a, x->now), start_of(b, x->now));
	case 't':
		return squeue_diff_str(job_state_compact(a->job_state),
				       job_state_compact(b->job_state));
	case 'T':
		return squeue_diff_str(job_state_string(a->job_state),
				       job_state_string(b->job_state));
	case 'u':
		if (!id_name_uid(a->user_id, ua, sizeof(ua)))
			snprintf(ua, sizeof(ua), "%u", a->user_id);
		if (!id_name_uid(b->user_id, ub, sizeof(ub)))
			snprintf(ub, sizeof(ub), "%u", b->user_id);
		return strcmp(ua, ub);
	case 'U':
		return squeue_diff_u64(a->user_id, b->user_id);
	case 'V':
		return diff_s64(a->submit_time, b->submit_time);
	}
	return 0; /* keys Slurm accepts but does not sort on */
}

/* Slurm's sort_job_list() sorts stably once a key, from the last key to
 * the first, after a pre-sort by start time (latest first): the same
 * order as one sort on (first key, ..., last key, start time, the
 * controller's order), which is what happens here, in one pass over the
 * records rather than one a key. */
struct sort_keys {
	const struct sort_ctx *v; /* in Slurm's order of passes: v[n - 1] counts most */
	size_t n;
};

/* Keys whose order is that of one integer a record: computed once into
 * srec's pre[] rather than in each of the n log n comparisons (a short
 * state name as its first 8 bytes, big-endian, orders as strcmp does). */
static bool key_pre(const struct job_info *j, const struct sort_ctx *x, int64_t *ret)
{
	const char *s;
	uint64_t v = 0;

	switch (x->key) {
	case 'p':
	case 'Q':
		*ret = j->priority;
		return true;
	case 'S':
		*ret = start_of(j, x->now);
		return true;
	case 't':
		s = job_state_compact(j->job_state);
		if (!s || strlen(s) > 7)
			return false;
		for (size_t i = 0; i < 8; i++)
			v = v << 8 | (uint8_t)(*s ? *s++ : 0);
		*ret = (int64_t)v; /* under 2^63: the first byte is ASCII */
		return true;
	}
	return false;
}

static int cmp_rec(const void *pa, const void *pb, void *arg)
{
	const struct srec *a = *(struct srec *const *)pa, *b = *(struct srec *const *)pb;
	const struct sort_keys *k = arg;

	for (size_t i = k->n; i-- > 0;) {
		const struct sort_ctx *x = &k->v[i];
		int d = x->pre >= 0	? diff_s64(a->pre[x->pre], b->pre[x->pre])
			: x->key == 'P' ? squeue_diff_str(a->part, b->part)
					: key_diff(a->j, b->j, x);

		if (d)
			return k->v[i].reverse ? -d : d;
	}
	return squeue_diff_u64(a->pos, b->pos);
}

/* Sort on keys (v[n - 1] counts most), those key_pre() knows computed
 * once a record first: the most significant ones, as many as fit. */
static int sort_with(struct srec **v, size_t n, struct sort_ctx *keys, size_t nkeys)
{
	struct sort_keys k = {.v = keys, .n = nkeys};
	int npre = 0;

	for (size_t i = nkeys; i-- > 0;) {
		int64_t val;

		keys[i].pre = -1;
		if (npre == SORT_PRE_MAX || !n)
			continue;
		for (size_t r = 0; r < n; r++) {
			if (!key_pre(v[r]->j, &keys[i], &val))
				break; /* not this key: compared as it is */
			v[r]->pre[npre] = val;
			if (r + 1 == n)
				keys[i].pre = npre++;
		}
	}
	for (size_t i = 0; i < n; i++)
		v[i]->pos = i;
	qsort_r(v, n, sizeof(*v), cmp_rec, &k);
	return 0;
}

static int sort_recs(struct srec **v, size_t n, const struct squeue_opts *o)
{
	const char *spec = o->sort ? o->sort : o->start_flag ? "S" : "P,t,-p";
	static const char valid[] = "BcCdDefgGhHiIjJlLmMnNOpPQStTuUvVz";
	size_t len = strlen(spec);
	_cleanup_free_ struct sort_ctx *keys = calloc(len + 1, sizeof(*keys));
	struct sort_keys k = {.v = keys, .n = 0};

	if (!keys)
		return -ENOMEM;
	/* sort_jobs_by_start_time(): latest first */
	keys[k.n++] = (struct sort_ctx){.key = 'S', .reverse = true, .now = o->now};
	for (size_t i = len; i-- > 0;) {
		char ch = spec[i];

		if (ch == ',' || ch == '+' || ch == '-')
			continue;
		if (i + 1 >= 7 && !strncasecmp(spec + i - 6, "cluster", 7)) {
			i -= 6; /* one cluster: nothing to sort */
			continue;
		}
		if (ch == 'b') {
			fflush(stdout);
			fprintf(stderr, "%s: Invalid sort specification: b\n", cli_prog());
			continue;
		}
		if (!strchr(valid, ch)) {
			cli_error("Invalid sort specification: %c", ch);
			return -EINVAL;
		}
		keys[k.n++] = (struct sort_ctx){
		    .key = ch, .reverse = i > 0 && spec[i - 1] == '-', .now = o->now};
	}
	return sort_with(v, n, keys, k.n);
}

/* ---- the whole pass ---- */

/* The records build() keeps, in order, and the block holding them all
 * (one allocation for a listing, not one a job). */
struct recs {
	struct srec **v;
	size_t n;
	struct srec *blk;
};

static void recs_free(struct recs *x)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i])
			srec_done(x->v[i]);
	free(x->v);
	free(x->blk);
}

/* One pointer for every record of a partition among the first n names
 * seen (a cluster has few): the sort on P then compares pointers, not
 * names, for most pairs. Past n names, the record's own string. */
static const char *part_intern(const char **parts, size_t n, const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!parts[i])
			return parts[i] = name;
		if (parts[i] == name || strcmp(parts[i], name) == 0)
			return parts[i];
	}
	return name;
}

/* Filtered, folded records of every page, in the controller's order. */
static int build(const struct squeue_opts *o, const struct job_info_msg *const *pages,
		 size_t n_pages, const struct hostlist *want, struct recs *ret)
{
	struct recs x = {.n = 0};
	const char *parts[16] = {NULL};
	size_t total = 0, k = 0;
	int r = 0;

	for (size_t p = 0; p < n_pages; p++)
		total += pages[p]->count;
	x.v = calloc(total + 1, sizeof(*x.v));
	x.blk = calloc(total + 1, sizeof(*x.blk));
	if (!x.v || !x.blk)
		r = -ENOMEM;
	for (size_t p = 0; r == 0 && p < n_pages; p++) {
		for (uint32_t i = 0; r == 0 && i < pages[p]->count; i++) {
			struct srec *s = &x.blk[k++];

			s->j = &pages[p]->jobs[i];
			s->part = part_intern(parts, ARRAY_SIZE(parts), s->j->partition);
			x.v[x.n++] = s;
			r = filter(s, o, want);
			if (r == 1) {
				srec_done(s);
				x.v[--x.n] = NULL;
				r = 0;
			}
		}
	}
	for (size_t i = 0; r == 0 && !o->array_flag && i < x.n; i++)
		if (x.v[i] && is_pending(x.v[i]->j) && x.v[i]->j->array_task_str)
			r = fold_one(x.v[i], x.v, x.n);
	k = 0;
	for (size_t i = 0; x.v && i < x.n; i++) /* close the gaps folding left */
		if (x.v[i])
			x.v[k++] = x.v[i];
	x.n = k;
	if (r < 0) {
		recs_free(&x);
		return r;
	}
	*ret = x;
	return 0;
}

/* -r: a meta record prints one line per pending task, in task order. */
static int print_rec(FILE *out, const struct fmt_spec *f, const struct srec *s,
		     const struct squeue_opts *o)
{
	struct job_info j;
	uint32_t *ids = NULL;
	size_t n = 0;
	int r;

	if (!o->array_flag || !s->j->array_task_str) {
		print_line(out, f, s->j, o);
		return 0;
	}
	j = *s->j;
	r = fmt_idset_parse(j.array_task_str, &ids, &n);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	j.array_task_str = NULL;
	for (size_t i = 0; i < n; i++) {
		j.array_task_id = ids[i];
		print_line(out, f, &j, o);
	}
	free(ids);
	return 0;
}

static int parse_format(struct fmt_spec *f, const struct squeue_opts *o)
{
	bool is_long = !o->format && o->format_long;
	int r;

	if (is_long)
		r = fmt_parse_long(f, o->format_long, name_id, NULL);
	else
		r = fmt_parse_short(f, o->format ? o->format : squeue_builtin_format(o), false,
				    letter_id, NULL);
	for (size_t i = 0; r == 0 && i < f->n; i++) {
		if (f->v[i].id != FMT_INVALID)
			continue;
		if (is_long)
			cli_error("Invalid job format specification: %s", f->v[i].raw);
		else
			cli_error("Invalid job format specification: %c",
				  f->v[i].letter ? f->v[i].letter : ' ');
	}
	return r;
}

int squeue_print_pages(FILE *out, const struct squeue_opts *o,
		       const struct job_info_msg *const *pages, size_t n_pages)
{
	struct fmt_spec f = {.n = 0};
	struct hostlist *want = NULL;
	struct recs x = {.n = 0};
	int r = parse_format(&f, o);

	if (r == 0 && o->nodes)
		r = hostlist_new(o->nodes, &want);
	if (r == 0 && !o->no_header)
		print_line(out, &f, NULL, o);
	if (r == 0)
		r = build(o, pages, n_pages, want, &x);
	if (r == 0)
		r = sort_recs(x.v, x.n, o);
	for (size_t i = 0; r == 0 && i < x.n; i++)
		r = print_rec(out, &f, x.v[i], o);
	recs_free(&x);
	hostlist_free(want);
	fmt_spec_done(&f);
	return r;
}

int squeue_print(FILE *out, const struct squeue_opts *o, const struct job_info_msg *m)
{
	return squeue_print_pages(out, o, &m, 1);
}
