/* sacct_fmt.c - sacct's field table, values and lines (see sacct_fmt.h).
 *
 * Purpose: the 22.05 field table (name, width, cell kind), the value of a
 * field for a job row or a step row, and Slurm's cell rules: strings are
 * cut with a '+', numbers and durations are never cut, dates are cut
 * without one; an absent value prints as blanks.
 * Job rows carry what the job asked for (Partition, ReqMem, Timelimit, who
 * ran it); step rows carry what was used (MaxRSS, AveCPU, ...); the job
 * row's CPU times are the sums over its finished steps, as Slurm adds
 * them up in sacct. Usage Slurm gathers and we do not (pages, disk, energy,
 * CPU frequency) prints the way Slurm prints a step that had none: "0".
 * Caveat: SLURM_TIME_FORMAT is not read; dates are always ISO.
 */
#include "cli/sacct_fmt.h"

#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

#include "api/id_name.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_time.h"

#define VAL_MAX 4096

enum kind {
	K_STR,	/* cut to width, last visible char '+' */
	K_NUM,	/* never cut */
	K_DATE, /* cut to width, no '+' */
};

/* clang-format off */
enum field_id {
	F_NONE, /* blank everywhere */
	F_ACCOUNT, F_ALLOC_CPUS, F_ALLOC_NODES, F_ALLOC_TRES, F_AVE_CPU, F_ZERO_STEP, F_AVE_RSS,
	F_AVE_VM, F_CLUSTER, F_COMMENT, F_CPU_TIME, F_CPU_TIME_RAW, F_DB_INDEX, F_DERIVED_EC,
	F_ELAPSED, F_ELAPSED_RAW, F_ELIGIBLE, F_END, F_EXIT_CODE, F_GID, F_GROUP, F_JOBID,
	F_JOBID_RAW, F_JOBNAME, F_USAGE_NODE, F_USAGE_TASK, F_MAX_RSS, F_MAX_RSS_NODE,
	F_MAX_RSS_TASK, F_MAX_VM, F_MAX_VM_NODE, F_MAX_VM_TASK, F_MIN_CPU, F_MIN_CPU_NODE,
	F_MIN_CPU_TASK, F_NNODES, F_NODELIST, F_NTASKS, F_PARTITION, F_QOS, F_REASON,
	F_REQ_CPUFREQ, F_REQ_CPUS, F_REQ_MEM, F_REQ_NODES, F_REQ_TRES, F_RESERVED, F_RESV_CPU,
	F_RESV_CPU_RAW, F_START, F_STATE, F_SUBMIT, F_SUSPENDED, F_SYSTEM_CPU, F_TIMELIMIT,
	F_TIMELIMIT_RAW, F_TOTAL_CPU, F_TRES_IN_AVE, F_TRES_IN_MAX, F_TRES_IN_MAX_NODE,
	F_TRES_IN_MAX_TASK, F_TRES_IN_MIN, F_TRES_IN_MIN_NODE, F_TRES_IN_MIN_TASK, F_TRES_IN_TOT,
	F_TRES_OUT, F_TRES_OUT_NODE, F_TRES_OUT_TASK, F_UID, F_USER, F_USER_CPU, F_WORK_DIR,
	F_RESV_NAME, F_RESV_ID,
};
/* clang-format on */

static const struct field {
	const char *name;
	int width;
	enum kind kind;
	enum field_id id;
} fields[] = {
    {"Account", 10, K_STR, F_ACCOUNT},
    {"AdminComment", 15, K_STR, F_NONE},
    {"AllocCPUS", 10, K_NUM, F_ALLOC_CPUS},
    {"AllocNodes", 10, K_STR, F_ALLOC_NODES},
    {"AllocTRES", 10, K_STR, F_ALLOC_TRES},
    {"AssocID", 7, K_NUM, F_NONE},
    {"AveCPU", 10, K_STR, F_AVE_CPU},
    {"AveCPUFreq", 10, K_STR, F_ZERO_STEP},
    {"AveDiskRead", 14, K_STR, F_ZERO_STEP},
    {"AveDiskWrite", 14, K_STR, F_ZERO_STEP},
    {"AvePages", 10, K_STR, F_ZERO_STEP},
    {"AveRSS", 10, K_STR, F_AVE_RSS},
    {"AveVMSize", 10, K_STR, F_AVE_VM},
    {"BlockID", 16, K_STR, F_NONE},
    {"Cluster", 10, K_STR, F_CLUSTER},
    {"Comment", 14, K_STR, F_COMMENT},
    {"Constraints", 19, K_STR, F_NONE},
    {"ConsumedEnergy", 14, K_STR, F_ZERO_STEP},
    {"ConsumedEnergyRaw", 17, K_NUM, F_ZERO_STEP},
    {"Container", 19, K_STR, F_NONE},
    {"CPUTime", 10, K_NUM, F_CPU_TIME},
    {"CPUTimeRAW", 10, K_NUM, F_CPU_TIME_RAW},
    {"DBIndex", -21, K_NUM, F_DB_INDEX},
    {"DerivedExitCode", 15, K_STR, F_DERIVED_EC},
    {"Elapsed", 10, K_NUM, F_ELAPSED},
    {"ElapsedRaw", 10, K_NUM, F_ELAPSED_RAW},
    {"Eligible", 19, K_DATE, F_ELIGIBLE},
    {"End", 19, K_DATE, F_END},
    {"ExitCode", 8, K_STR, F_EXIT_CODE},
    {"Flags", 19, K_STR, F_NONE},
    {"GID", 6, K_NUM, F_GID},
    {"Group", 9, K_STR, F_GROUP},
    {"JobID", -12, K_STR, F_JOBID},
    {"JobIDRaw", -12, K_STR, F_JOBID_RAW},
    {"JobName", 10, K_STR, F_JOBNAME},
    {"Layout", 9, K_STR, F_NONE},
    {"MaxDiskRead", 12, K_STR, F_ZERO_STEP},
    {"MaxDiskReadNode", 15, K_STR, F_USAGE_NODE},
    {"MaxDiskReadTask", 15, K_NUM, F_USAGE_TASK},
    {"MaxDiskWrite", 12, K_STR, F_ZERO_STEP},
    {"MaxDiskWriteNode", 16, K_STR, F_USAGE_NODE},
    {"MaxDiskWriteTask", 16, K_NUM, F_USAGE_TASK},
    {"MaxPages", 8, K_STR, F_ZERO_STEP},
    {"MaxPagesNode", 12, K_STR, F_USAGE_NODE},
    {"MaxPagesTask", 14, K_NUM, F_USAGE_TASK},
    {"MaxRSS", 10, K_STR, F_MAX_RSS},
    {"MaxRSSNode", 10, K_STR, F_MAX_RSS_NODE},
    {"MaxRSSTask", 10, K_NUM, F_MAX_RSS_TASK},
    {"MaxVMSize", 10, K_STR, F_MAX_VM},
    {"MaxVMSizeNode", 14, K_STR, F_MAX_VM_NODE},
    {"MaxVMSizeTask", 14, K_NUM, F_MAX_VM_TASK},
    {"McsLabel", 12, K_STR, F_NONE},
    {"MinCPU", 10, K_STR, F_MIN_CPU},
    {"MinCPUNode", 10, K_STR, F_MIN_CPU_NODE},
    {"MinCPUTask", 10, K_NUM, F_MIN_CPU_TASK},
    {"NCPUS", 10, K_NUM, F_ALLOC_CPUS},
    {"NNodes", 8, K_NUM, F_NNODES},
    {"NodeList", 15, K_STR, F_NODELIST},
    {"NTasks", 8, K_NUM, F_NTASKS},
    {"Partition", 10, K_STR, F_PARTITION},
    {"Priority", 10, K_NUM, F_NONE},
    {"QOS", 10, K_STR, F_QOS},
    {"QOSRAW", 6, K_NUM, F_NONE},
    {"Reason", 22, K_STR, F_REASON},
    {"ReqCPUFreq", 10, K_STR, F_REQ_CPUFREQ},
    {"ReqCPUFreqGov", 13, K_STR, F_REQ_CPUFREQ},
    {"ReqCPUFreqMax", 13, K_STR, F_REQ_CPUFREQ},
    {"ReqCPUFreqMin", 13, K_STR, F_REQ_CPUFREQ},
    {"ReqCPUS", 8, K_NUM, F_REQ_CPUS},
    {"ReqMem", 10, K_STR, F_REQ_MEM},
    {"ReqNodes", 8, K_STR, F_REQ_NODES},
    {"ReqTRES", 10, K_STR, F_REQ_TRES},
    {"Reservation", 20, K_STR, F_RESV_NAME},
    {"ReservationId", 8, K_NUM, F_RESV_ID},
    {"Reserved", 10, K_NUM, F_RESERVED},
    {"ResvCPU", 10, K_NUM, F_RESV_CPU},
    {"ResvCPURAW", 10, K_NUM, F_RESV_CPU_RAW},
    {"Start", 19, K_DATE, F_START},
    {"State", 10, K_STR, F_STATE},
    {"Submit", 19, K_DATE, F_SUBMIT},
    {"SubmitLine", 20, K_STR, F_NONE},
    {"Suspended", 10, K_NUM, F_SUSPENDED},
    {"SystemComment", 15, K_STR, F_NONE},
    {"SystemCPU", 10, K_STR, F_SYSTEM_CPU},
    {"Timelimit", 10, K_STR, F_TIMELIMIT},
    {"TimelimitRaw", 10, K_STR, F_TIMELIMIT_RAW},
    {"TotalCPU", 10, K_STR, F_TOTAL_CPU},
    {"TRESUsageInAve", 14, K_STR, F_TRES_IN_AVE},
    {"TRESUsageInMax", 14, K_STR, F_TRES_IN_MAX},
    {"TRESUsageInMaxNode", 18, K_STR, F_TRES_IN_MAX_NODE},
    {"TRESUsageInMaxTask", 18, K_STR, F_TRES_IN_MAX_TASK},
    {"TRESUsageInMin", 14, K_STR, F_TRES_IN_MIN},
    {"TRESUsageInMinNode", 18, K_STR, F_TRES_IN_MIN_NODE},
    {"TRESUsageInMinTask", 18, K_STR, F_TRES_IN_MIN_TASK},
    {"TRESUsageInTot", 14, K_STR, F_TRES_IN_TOT},
    {"TRESUsageOutAve", 15, K_STR, F_TRES_OUT},
    {"TRESUsageOutMax", 15, K_STR, F_TRES_OUT},
    {"TRESUsageOutMaxNode", 19, K_STR, F_TRES_OUT_NODE},
    {"TRESUsageOutMaxTask", 19, K_STR, F_TRES_OUT_TASK},
    {"TRESUsageOutMin", 15, K_STR, F_TRES_OUT},
    {"TRESUsageOutMinNode", 19, K_STR, F_TRES_OUT_NODE},
    {"TRESUsageOutMinTask", 19, K_STR, F_TRES_OUT_TASK},
    {"TRESUsageOutTot", 15, K_STR, F_TRES_OUT},
    {"UID", 6, K_NUM, F_UID},
    {"User", 9, K_STR, F_USER},
    {"UserCPU", 10, K_STR, F_USER_CPU},
    {"WCKey", 10, K_STR, F_NONE},
    {"WCKeyID", 10, K_NUM, F_NONE},
    {"WorkDir", 20, K_STR, F_WORK_DIR},
};

/* ---- columns ---- */

static int cols_push(struct sacct_cols *c, int field, int width)
{
	struct sacct_col *v = realloc(c->v, (c->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	c->v = v;
	v[c->n++] = (struct sacct_col){.field = field, .width = width};
	return 0;
}

#define SACCT_WIDTH_MAX 4096 /* of one column (%W), either way */

/* One "name[%W]" token (trimmed, non-empty). */
static int cols_add_one(struct sacct_cols *c, char *tok, char **ret_bad)
{
	char *pct = strchr(tok, '%');
	bool has_width = pct != NULL;
	int width = 0, r = 0;
	size_t len;

	if (pct) { /* atoi's reading, capped: a width is never a reason to print gigabytes */
		long w = strtol(pct + 1, NULL, 10);

		width = w > SACCT_WIDTH_MAX ? SACCT_WIDTH_MAX
			: w < -SACCT_WIDTH_MAX ? -SACCT_WIDTH_MAX : (int)w;
		*pct = '\0';
	}
	len = strlen(tok);
	if (len <= 3 && !strncasecmp("ALL", tok, len)) {
		for (size_t i = 0; i < ARRAY_SIZE(fields) && r == 0; i++)
			r = cols_push(c, (int)i, has_width ? width : fields[i].width);
		return r;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (!strncasecmp(fields[i].name, tok, len))
			return cols_push(c, (int)i, has_width ? width : fields[i].width);
	if (ret_bad)
		*ret_bad = strdup(tok);
	return -EINVAL;
}

int sacct_cols_add(struct sacct_cols *c, const char *list, char **ret_bad)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int r = copy ? 0 : -ENOMEM;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && r == 0;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;

		while (*tok == ' ' || *tok == '\t' || *tok == '\n')
			tok++;
		end = tok + strlen(tok);
		while (end > tok && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
			*--end = '\0';
		if (*tok)
			r = cols_add_one(c, tok, ret_bad);
	}
	free(copy);
	return r;
}

void sacct_cols_done(struct sacct_cols *c)
{
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

void sacct_print_field_names(FILE *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		if (i & 3)
			fputc(' ', out);
		else if (i)
			fputc('\n', out);
		fprintf(out, "%-19s", fields[i].name);
	}
	fputc('\n', out);
}

/* ---- value formats ---- */

char *sacct_cpu_str(uint64_t usec, char *buf, size_t n)
{
	uint64_t secs = usec / 1000000, ms = usec % 1000000 / 1000;
	uint64_t d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60, s = secs % 60;

	if (d || h)
		return duration_str(secs, buf, n);
	if (ms)
		snprintf(buf, n, "%02" PRIu64 ":%02" PRIu64 ".%03" PRIu64, m, s, ms);
	else
		snprintf(buf, n, "00:%02" PRIu64 ":%02" PRIu64, m, s);
	return buf;
}

static void exit_parts(uint32_t status, int *code, int *sig)
{
	*code = *sig = 0;
	if (WIFSIGNALED(status))
		*sig = WTERMSIG(status);
	else if (WIFEXITED(status))
		*code = WEXITSTATUS(status);
}

char *sacct_exit_str(uint32_t status, char *buf, size_t n)
{
	int code, sig;

	if (status == NO_VAL) {
		snprintf(buf, n, "%s", "");
		return buf;
	}
	exit_parts(status, &code, &sig);
	if (code >= 128) /* a shell's 128+signal, as Slurm shows it */
		code -= 128;
	snprintf(buf, n, "%d:%d", code, sig);
	return buf;
}

/* DerivedExitCode: like ExitCode without the 128 adjustment; unset "0:0". */
static char *derived_ec_str(uint32_t status, char *buf, size_t n)
{
	int code, sig;

	exit_parts(status == NO_VAL ? 0 : status, &code, &sig);
	snprintf(buf, n, "%d:%d", code, sig);
	return buf;
}

char *sacct_state_str(uint32_t state, uint32_t requid, char *buf, size_t n)
{
	if ((state & JOB_STATE_BASE) == JOB_CANCELLED && !(state & JOB_REQUEUE) && requid != NO_VAL
	    && requid != INFINITE)
		snprintf(buf, n, "%s by %u", job_state_string(state), requid);
	else
		snprintf(buf, n, "%s", job_state_string(state));
	return buf;
}

static const char *step_name(uint32_t step_id, char *buf, size_t n)
{
	switch (step_id) {
	case 0xfffffffau:
		return "interactive";
	case SL_BATCH_STEP:
		return "batch";
	case 0xfffffffcu:
		return "extern";
	case 0xfffffffdu:
		return "TBD";
	default:
		snprintf(buf, n, "%u", step_id);
		return buf;
	}
}

char *sacct_jobid_str(const struct acct_job_rec *j, const struct acct_step_rec *s, bool raw,
		      char *buf, size_t n)
{
	uint32_t array_id = j->array_job_id ? j->array_job_id : j->job_id;
	char id[64], sn[16];

	if (raw)
		snprintf(id, sizeof(id), "%u", j->job_id);
	else if (j->array_task_str && *j->array_task_str && j->array_task_id == NO_VAL)
		snprintf(id, sizeof(id), "%u_[%.40s]", array_id, j->array_task_str);
	else if (j->array_job_id && j->array_task_id != NO_VAL)
		snprintf(id, sizeof(id), "%u_%u", j->array_job_id, j->array_task_id);
	else
		snprintf(id, sizeof(id), "%u", j->job_id);
	if (s)
		snprintf(buf, n, "%s.%s", id, step_name(s->step_id, sn, sizeof(sn)));
	else
		snprintf(buf, n, "%s", id);
	return buf;
}

static int cmp_tres(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = strcspn(x, "="), ly = strcspn(y, "=");
	int c = strncmp(x, y, lx < ly ? lx : ly);

	return c ? c : (lx > ly) - (lx < ly);
}

char *sacct_tres_sorted(const char *tres)
{
	char *copy = strdup(tres ? tres : ""), *save = NULL, *tok, *out;
	const char **v;
	size_t n = 0, len = 0;

	if (!copy)
		return NULL;
	v = calloc(strlen(copy) / 2 + 2, sizeof(*v));
	out = malloc(strlen(copy) + 1);
	if (!v || !out) {
		free(copy);
		free(v);
		free(out);
		return NULL;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		v[n++] = tok;
	qsort(v, n, sizeof(*v), cmp_tres);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(out + len, "%s%s", i ? "," : "", v[i]);
	free(v);
	free(copy);
	return out;
}

char *sacct_size_str(uint64_t v, char unit0, const struct sacct_out *o, char *buf, size_t n)
{
	static const char units[] = "\0KMGTP";
	const char *p = unit0 ? strchr(units + 1, unit0) : NULL;
	int from = p ? (int)(p - units) : 0;

	if (v == 0) {
		snprintf(buf, n, "0");
	} else if (o && o->units && strchr(units + 1, o->units)) {
		int to = (int)(strchr(units + 1, o->units) - units);
		double d = (double)v;

		for (; from < to; from++)
			d /= 1024;
		for (; from > to; from--)
			d *= 1024;
		if (d == (double)(uint64_t)d)
			snprintf(buf, n, "%" PRIu64 "%c", (uint64_t)d, units[to]);
		else
			snprintf(buf, n, "%.2f%c", d, units[to]);
	} else if (o && o->noconvert) {
		if (from)
			snprintf(buf, n, "%" PRIu64 "%c", v, units[from]);
		else
			snprintf(buf, n, "%" PRIu64, v);
	} else {
		fmt_num_unit(v, unit0, buf, n);
	}
	return buf;
}

/* ---- one row ---- */

struct row {
	const struct acct_job_rec *j;
	const struct acct_step_rec *s; /* NULL: the job row */
	const struct sacct_out *o;
	bool usage;	  /* a step row with gathered usage */
	uint32_t cpus;	  /* AllocCPUS */
	uint64_t elapsed; /* seconds */
	uint64_t user_usec, sys_usec;
	char *owned; /* a malloc'd value to free after printing */
};

/* The count of name in a TRES string ("cpu=4,mem=..."), or -1. */
static long long tres_count(const char *tres, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = tres; p && *p;) {
		if (!strncmp(p, name, len) && p[len] == '=')
			return strtoll(p + len + 1, NULL, 10);
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return -1;
}

static uint64_t span(time_t start, time_t end, time_t now)
{
	if (!start)
		return 0;
	if (!end)
		end = now;
	return end > start ? (uint64_t)(end - start) : 0;
}

static void row_init(struct row *r, const struct sacct_out *o, const struct acct_job_rec *j,
		     const struct acct_step_rec *s)
{
	long long c;

	*r = (struct row){.j = j, .s = s, .o = o};
	c = tres_count(j->tres_alloc, "cpu");
	r->cpus = c >= 0 ? (uint32_t)c : j->start ? j->ncpus : 0;
	if (!s) {
		r->elapsed = span(j->start, j->end, o->now);
		for (uint32_t i = 0; i < j->step_count; i++) {
			const struct acct_step_rec *t = &j->steps[i];

			if ((t->state & JOB_STATE_BASE) < JOB_COMPLETE)
				continue; /* Slurm adds up finished steps only */
			r->user_usec += t->usage.user_usec;
			r->sys_usec += t->usage.sys_usec;
		}
		return;
	}
	c = tres_count(s->tres_alloc, "cpu");
	if (s->ncpus)
		r->cpus = s->ncpus;
	else if (c >= 0)
		r->cpus = (uint32_t)c;
	r->elapsed = span(s->start, s->end ? s->end : j->end, o->now);
	r->user_usec = s->usage.user_usec;
	r->sys_usec = s->usage.sys_usec;
	r->usage = s->usage.ntasks > 0;
}

static const char *usage_node(const struct row *r, bool vm)
{
	const char *n = vm ? r->s->max_vm_node : r->s->max_rss_node;

	return n && *n ? n : r->s->nodes;
}

static const char *num(char *buf, size_t n, uint64_t v)
{
	snprintf(buf, n, "%" PRIu64, v);
	return buf;
}

static const char *date(time_t t, char *buf, size_t n)
{
	return time_display(t == (time_t)INFINITE ? 0 : t, buf, n);
}

/* The input TRES usage of a step: Slurm's cpu/energy/fs/disk/mem/pages/vmem
 * entries, in name order. what: 'a'verage, 'x' max, 'n' min, 't'otal,
 * 'N'ode of the max, 'T'ask of the max. Per-task minima and maxima of CPU
 * time are known only for a single task. */
static const char *tres_in(const struct row *r, char what, char *buf, size_t n)
{
	const struct acct_usage *u = &r->s->usage;
	uint64_t cpu = (u->user_usec + u->sys_usec) / 1000000, ave_cpu = cpu / u->ntasks;
	bool one = u->ntasks == 1;
	char t1[32], t2[32], t3[32];
	const char *rn = usage_node(r, false), *vn = usage_node(r, true);

	if (what == 'n' && !one)
		return NULL;
	switch (what) {
	case 'a':
	case 't':
	case 'x':
	case 'n':
		sacct_size_str(what == 'a'   ? u->tot_rss_kb * 1024 / u->ntasks
			       : what == 't' ? u->tot_rss_kb * 1024
					     : u->max_rss_kb * 1024,
			       0, r->o, t2, sizeof(t2));
		sacct_size_str(what == 'a'   ? u->tot_vm_kb * 1024 / u->ntasks
			       : what == 't' ? u->tot_vm_kb * 1024
					     : u->max_vm_kb * 1024,
			       0, r->o, t3, sizeof(t3));
		duration_str(what == 'a' ? ave_cpu : cpu, t1, sizeof(t1));
		snprintf(buf, n, "%s%s%senergy=0,fs/disk=0,mem=%s,pages=0,vmem=%s",
			 what == 'a' || what == 't' || one ? "cpu=" : "",
			 what == 'a' || what == 't' || one ? t1 : "",
			 what == 'a' || what == 't' || one ? "," : "", t2, t3);
		return buf;
	case 'N':
		snprintf(buf, n, "%s%s%senergy=%s,fs/disk=%s,mem=%s,pages=%s,vmem=%s",
			 one ? "cpu=" : "", one ? rn : "", one ? "," : "", rn, rn, rn, rn, vn);
		return buf;
	default:
		snprintf(buf, n, "%s%u%sfs/disk=%u,mem=%u,pages=%u,vmem=%u", one ? "cpu=" : "",
			 one ? u->max_rss_task : 0, one ? "," : "", u->max_rss_task,
			 u->max_rss_task, u->max_rss_task, u->max_vm_task);
		if (!one) /* drop the "0" left where the cpu entry was */
			memmove(buf, buf + 1, strlen(buf));
		return buf;
	}
}

/* Fields only a job row has (NULL on steps). */
static const char *job_value(enum field_id id, struct row *r, char *buf, size_t n)
{
	const struct acct_job_rec *j = r->j;
	uint64_t resv;

	switch (id) {
	case F_COMMENT:
		return j->comment;
	case F_DERIVED_EC:
		return derived_ec_str(j->derived_ec, buf, n);
	case F_GID:
		return num(buf, n, j->gid);
	case F_GROUP:
		if (!id_name_gid(j->gid, buf, n))
			snprintf(buf, n, "%u", j->gid);
		return buf;
	case F_PARTITION:
		return j->partition;
	case F_QOS:
		return j->qos;
	case F_REASON:
		return job_reason_string(j->reason);
	case F_REQ_MEM:
		return sacct_size_str(j->req_mem_mb, 'M', r->o, buf, n);
	case F_REQ_TRES:
		return r->owned = sacct_tres_sorted(j->tres_req);
	case F_RESV_NAME:
		return j->resv_name;
	case F_RESV_ID: /* none: blank, as Slurm's NO_VAL */
		return j->resv_id ? num(buf, n, j->resv_id) : NULL;
	case F_RESERVED:
	case F_RESV_CPU:
	case F_RESV_CPU_RAW:
		resv = !j->eligible || j->eligible == (time_t)INFINITE
			   ? 0
			   : span(j->eligible, j->start, r->o->now);
		if (id == F_RESERVED)
			return duration_str(resv, buf, n);
		resv *= j->req_cpus;
		return id == F_RESV_CPU ? duration_str(resv, buf, n) : num(buf, n, resv);
	case F_TIMELIMIT:
	case F_TIMELIMIT_RAW:
		if (j->time_limit == INFINITE)
			return "UNLIMITED";
		if (j->time_limit == NO_VAL)
			return "Partition_Limit";
		if (!j->time_limit)
			return NULL;
		return id == F_TIMELIMIT ? mins2time_str(j->time_limit, buf, n)
					 : num(buf, n, j->time_limit);
	case F_UID:
		return num(buf, n, j->uid);
	case F_USER:
		if (j->user && *j->user)
			return j->user;
		if (!id_name_uid(j->uid, buf, n))
			snprintf(buf, n, "%u", j->uid);
		return buf;
	case F_WORK_DIR:
		return j->work_dir;
	default:
		return NULL;
	}
}

/* Fields only a step row with gathered usage has (NULL otherwise). */
static const char *usage_value(enum field_id id, struct row *r, char *buf, size_t n)
{
	const struct acct_usage *u = &r->s->usage;
	bool one = u->ntasks == 1;

	switch (id) {
	case F_AVE_CPU:
		return sacct_cpu_str((u->user_usec + u->sys_usec) / u->ntasks / 1000000 * 1000000,
				     buf, n);
	case F_AVE_RSS:
		return sacct_size_str(u->tot_rss_kb * 1024 / u->ntasks, 0, r->o, buf, n);
	case F_AVE_VM:
		return sacct_size_str(u->tot_vm_kb * 1024 / u->ntasks, 0, r->o, buf, n);
	case F_ZERO_STEP:
		return "0";
	case F_USAGE_NODE:
	case F_MAX_RSS_NODE:
		return usage_node(r, false);
	case F_USAGE_TASK:
	case F_MAX_RSS_TASK:
		return num(buf, n, u->max_rss_task);
	case F_MAX_RSS:
		return sacct_size_str(u->max_rss_kb * 1024, 0, r->o, buf, n);
	case F_MAX_VM:
		return sacct_size_str(u->max_vm_kb * 1024, 0, r->o, buf, n);
	case F_MAX_VM_NODE:
		return usage_node(r, true);
	case F_MAX_VM_TASK:
		return num(buf, n, u->max_vm_task);
	case F_MIN_CPU:
		return one ? sacct_cpu_str((u->user_usec + u->sys_usec) / 1000000 * 1000000, buf, n)
			   : NULL;
	case F_MIN_CPU_NODE:
		return one ? usage_node(r, false) : NULL;
	case F_MIN_CPU_TASK:
		return one ? num(buf, n, u->max_rss_task) : NULL;
	case F_TRES_IN_AVE:
		return tres_in(r, 'a', buf, n);
	case F_TRES_IN_MAX:
		return tres_in(r, 'x', buf, n);
	case F_TRES_IN_MIN:
		return tres_in(r, 'n', buf, n);
	case F_TRES_IN_TOT:
		return tres_in(r, 't', buf, n);
	case F_TRES_IN_MAX_NODE:
	case F_TRES_IN_MIN_NODE:
		return id == F_TRES_IN_MIN_NODE && !one ? NULL : tres_in(r, 'N', buf, n);
	case F_TRES_IN_MAX_TASK:
	case F_TRES_IN_MIN_TASK:
		return id == F_TRES_IN_MIN_TASK && !one ? NULL : tres_in(r, 'T', buf, n);
	case F_TRES_OUT:
		return "energy=0,fs/disk=0";
	case F_TRES_OUT_NODE:
		snprintf(buf, n, "energy=%s,fs/disk=%s", usage_node(r, false),
			 usage_node(r, false));
		return buf;
	case F_TRES_OUT_TASK:
		snprintf(buf, n, "fs/disk=%u", u->max_rss_task);
		return buf;
	default:
		return NULL;
	}
}

static const char *value(enum field_id id, struct row *r, char *buf, size_t n)
{
	const struct acct_job_rec *j = r->j;
	const struct acct_step_rec *s = r->s;

	switch (id) {
	case F_ACCOUNT:
		return j->account;
	case F_ALLOC_CPUS:
		return num(buf, n, r->cpus);
	case F_ALLOC_NODES:
		return fmt_num_unit(s ? s->nnodes : j->start ? j->nnodes : 0, 0, buf, n);
	case F_ALLOC_TRES:
		return r->owned = sacct_tres_sorted(s ? s->tres_alloc : j->tres_alloc);
	case F_CLUSTER:
		return r->o->cluster;
	case F_CPU_TIME:
		return duration_str(r->elapsed * r->cpus, buf, n);
	case F_CPU_TIME_RAW:
		return num(buf, n, r->elapsed * r->cpus);
	case F_DB_INDEX:
		return num(buf, n, j->inx);
	case F_ELAPSED:
		return duration_str(r->elapsed, buf, n);
	case F_ELAPSED_RAW:
		return num(buf, n, r->elapsed);
	case F_ELIGIBLE:
		return date(s ? s->start : j->eligible, buf, n);
	case F_END:
		return date(s ? (s->end ? s->end : j->end) : j->end, buf, n);
	case F_EXIT_CODE:
		return sacct_exit_str(s ? s->exit_code : j->exit_code, buf, n);
	case F_JOBID:
	case F_JOBID_RAW:
		return sacct_jobid_str(j, s, id == F_JOBID_RAW, buf, n);
	case F_JOBNAME:
		return s ? s->name : j->name;
	case F_NNODES:
		return num(buf, n, s ? s->nnodes : j->nnodes);
	case F_NODELIST:
		if (s)
			return s->nodes;
		return j->nodes && *j->nodes ? j->nodes : "None assigned";
	case F_NTASKS:
		return s ? num(buf, n, s->ntasks) : NULL;
	case F_REQ_CPUFREQ:
		return s ? "0" : "Unknown";
	case F_REQ_CPUS:
		return num(buf, n, s ? r->cpus : j->req_cpus);
	case F_REQ_NODES:
		return fmt_num_unit(s ? s->nnodes : j->req_nodes, 0, buf, n);
	case F_START:
		return date(s ? s->start : j->start, buf, n);
	case F_STATE:
		return s ? sacct_state_str(s->state, s->kill_requid, buf, n)
			 : sacct_state_str(j->state, j->kill_requid, buf, n);
	case F_SUBMIT:
		return date(s ? s->start : j->submit, buf, n);
	case F_SUSPENDED:
		return "00:00:00";
	case F_SYSTEM_CPU:
		return sacct_cpu_str(r->sys_usec, buf, n);
	case F_TOTAL_CPU:
		return sacct_cpu_str(r->user_usec + r->sys_usec, buf, n);
	case F_USER_CPU:
		return sacct_cpu_str(r->user_usec, buf, n);
	default:
		if (!s)
			return job_value(id, r, buf, n);
		return r->usage ? usage_value(id, r, buf, n) : NULL;
	}
}

/* ---- cells and lines ---- */

static void put_sep(FILE *out, const struct sacct_out *o, bool last)
{
	if (!(last && o->parsable == SACCT_PARSABLE2))
		fputs(o->delim ? o->delim : "|", out);
}

static void put_cell(FILE *out, const struct sacct_out *o, const struct sacct_col *c, const char *v,
		     bool last)
{
	enum kind kind = fields[c->field].kind;
	int w = abs(c->width), len;
	char cut[VAL_MAX];

	if (!v)
		v = "";
	if (o->parsable) {
		fputs(v, out);
		put_sep(out, o, last);
		return;
	}
	len = (int)strlen(v);
	if (kind == K_NUM) {
		fprintf(out, c->width < 0 ? "%-*s " : "%*s ", w, v);
		return;
	}
	if (kind == K_STR && len > w && w > 0 && w < (int)sizeof(cut)) {
		memcpy(cut, v, (size_t)w);
		cut[w - 1] = '+';
		cut[w] = '\0';
		v = cut;
	}
	fprintf(out, c->width < 0 ? "%-*.*s " : "%*.*s ", w, w, v);
}

void sacct_print_header(FILE *out, const struct sacct_cols *c, const struct sacct_out *o)
{
	static const char dashes[] = "----------------------------------------"
				     "----------------------------------------";

	for (size_t i = 0; i < c->n; i++) {
		const char *name = fields[c->v[i].field].name;
		int w = abs(c->v[i].width);

		if (o->parsable) {
			fputs(name, out);
			put_sep(out, o, i + 1 == c->n);
		} else {
			fprintf(out, c->v[i].width < 0 ? "%-*.*s " : "%*.*s ", w, w, name);
		}
	}
	fputc('\n', out);
	if (o->parsable)
		return;
	for (size_t i = 0; i < c->n; i++) {
		int w = abs(c->v[i].width);

		for (; w > (int)sizeof(dashes) - 1; w -= (int)sizeof(dashes) - 1)
			fputs(dashes, out);
		fprintf(out, "%.*s ", w, dashes);
	}
	fputc('\n', out);
}

void sacct_print_row(FILE *out, const struct sacct_cols *c, const struct sacct_out *o,
		     const struct acct_job_rec *j, const struct acct_step_rec *s)
{
	struct row r;

	row_init(&r, o, j, s);
	for (size_t i = 0; i < c->n; i++) {
		char buf[VAL_MAX];
		const char *v = value(fields[c->v[i].field].id, &r, buf, sizeof(buf));

		put_cell(out, o, &c->v[i], v, i + 1 == c->n);
		free(r.owned);
		r.owned = NULL;
	}
	fputc('\n', out);
}
