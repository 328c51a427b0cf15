/* seff_fmt.c - seff's report and per-user table, pure functions over the
 * accounting store's rows (see seff_fmt.h).
 *
 * The report follows upstream contrib/seff 2.1 as shipped with Slurm
 * 22.05: the same lines, words, rounding and units. Two inputs differ from
 * upstream's: Memory Utilized is the largest step's sum of task RSS peaks
 * (our usage gathering keeps that sum exactly; upstream 22.05 estimated it
 * as the largest task peak times the step's task count, newer upstream
 * uses the same sum), and the request is our row's whole ReqMem, shown
 * per core when it was asked per cpu (the row's mem_per_cpu).
 */
#include "seff_fmt.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sacct_opt.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg_acct.h"
#include "common/parse_time.h"

#define USEC_PER_SEC 1000000ull
#define KB_PER_GB    (1024.0 * 1024.0)

/* Upstream sums whole seconds and microsecond parts apart, then rounds
 * the microseconds once: keep that, so the same usage gives the same
 * second. */
static uint64_t job_cpu_secs(const struct acct_job_rec *j)
{
	uint64_t secs = 0, usecs = 0;

	for (uint32_t i = 0; i < j->step_count; i++) {
		const struct acct_usage *u = &j->steps[i].usage;

		secs += u->user_usec / USEC_PER_SEC + u->sys_usec / USEC_PER_SEC;
		usecs += u->user_usec % USEC_PER_SEC + u->sys_usec % USEC_PER_SEC;
	}
	return secs + (uint64_t)((double)usecs / USEC_PER_SEC + 0.5);
}

static uint64_t job_wall_secs(const struct acct_job_rec *j, time_t now)
{
	time_t end = j->end ? j->end : now;

	if (!j->start || end <= j->start)
		return 0;
	return (uint64_t)(end - j->start);
}

void seff_job_from_rec(const struct acct_job_rec *j, time_t now, struct seff_job *ret)
{
	struct seff_job s = {
	    .job_id = j->job_id,
	    .array_job_id = j->array_job_id,
	    .array_task_id = j->array_task_id,
	    .array_task_str = j->array_task_str,
	    .user = j->user,
	    .state = j->state,
	    .exit_status = (j->exit_code >> 8) & 0xff,
	    /* nothing is allocated before the start: upstream shows "Cores: 1" */
	    .ncpus = j->ncpus && j->start ? j->ncpus : 1,
	    .nnodes = j->nnodes && j->start ? j->nnodes : 1,
	    .cpu_secs = job_cpu_secs(j),
	    .wall_secs = job_wall_secs(j, now),
	    .req_mem_kb = j->req_mem_mb * 1024,
	    .is_mem_per_cpu = j->mem_per_cpu != 0,
	};

	/* The largest step, strictly: equal sums keep the first (upstream). */
	for (uint32_t i = 0; i < j->step_count; i++) {
		const struct acct_usage *u = &j->steps[i].usage;

		if (u->tot_rss_kb > s.mem_kb) {
			s.mem_kb = u->tot_rss_kb;
			s.mem_ntasks = u->ntasks;
		}
	}
	*ret = s;
}

/* The unit exponent as upstream computes it, floating point included, so
 * the boundaries fall where its do. Below 1 KiB the log is negative and
 * Perl's int() truncates towards zero: KB. */
static int kb_exp(double kb)
{
	int e = (int)(log(kb) / log(1024.0));

	return e < 0 ? 0 : e;
}

char *seff_kbytes_str(double kb, char *buf, size_t n)
{
	static const char *const units[] = {"K", "M", "G", "T", "P", "E"};
	const char *unit;
	int e;

	if (kb == 0) {
		snprintf(buf, n, "%.2f %sB", 0.0, "M");
		return buf;
	}
	e = kb_exp(kb);
	unit = e < (int)ARRAY_SIZE(units) ? units[e] : ""; /* upstream: no unit past E */
	snprintf(buf, n, "%.2f %sB", kb / pow(1024.0, e), unit);
	return buf;
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

static bool state_is(const struct seff_job *s, const char *name)
{
	return streq(job_state_string(s->state), name);
}

static void report_head(FILE *f, const struct seff_job *s)
{
	fprintf(f, "Job ID: %" PRIu32 "\n", s->job_id);
	if (s->array_job_id && s->array_task_id == NO_VAL)
		fprintf(f, "Array Job ID: %" PRIu32 "_[%s]\n", s->array_job_id,
			str_or_empty(s->array_task_str));
	else if (s->array_job_id)
		fprintf(f, "Array Job ID: %" PRIu32 "_%" PRIu32 "\n", s->array_job_id,
			s->array_task_id);
	fprintf(f, "Cluster: %s\n", str_or_empty(s->cluster));
	fprintf(f, "User/Group: %s/%s\n", str_or_empty(s->user), str_or_empty(s->group));
	if (state_is(s, "PENDING") || state_is(s, "RUNNING"))
		fprintf(f, "State: %s\n", job_state_string(s->state));
	else
		fprintf(f, "State: %s (exit code %" PRIu32 ")\n", job_state_string(s->state),
			s->exit_status);
	if (s->ncpus == 1) {
		fprintf(f, "Cores: %" PRIu32 "\n", s->ncpus);
	} else {
		fprintf(f, "Nodes: %" PRIu32 "\n", s->nnodes);
		fprintf(f, "Cores per node: %" PRIu32 "\n", s->ncpus / s->nnodes);
	}
}

static void report_memory(FILE *f, const struct seff_job *s)
{
	char used[32], req[32], part[32];
	double eff = s->req_mem_kb ? (double)s->mem_kb / (double)s->req_mem_kb * 100 : 0.0;
	double share;

	/* One task measured: the number is exact; else a sum of peaks that
	 * need not have happened together. */
	fprintf(f, "Memory Utilized: %s%s\n",
		seff_kbytes_str((double)s->mem_kb, used, sizeof(used)),
		s->mem_ntasks == 1 ? "" : " (estimated maximum)");
	seff_kbytes_str((double)s->req_mem_kb, req, sizeof(req));
	if (s->mem_ntasks == 1) {
		fprintf(f, "Memory Efficiency: %.2f%% of %s\n", eff, req);
		return;
	}
	share = (double)s->req_mem_kb / (s->is_mem_per_cpu ? s->ncpus : s->nnodes);
	fprintf(f, "Memory Efficiency: %.2f%% of %s (%s/%s)\n", eff, req,
		seff_kbytes_str(share, part, sizeof(part)), s->is_mem_per_cpu ? "core" : "node");
}

void seff_report(FILE *f, const struct seff_job *s)
{
	char a[32], b[32];
	uint64_t core_wall = s->wall_secs * s->ncpus;
	double eff = core_wall ? (double)s->cpu_secs / (double)core_wall * 100 : 0.0;

	report_head(f, s);
	if (state_is(s, "PENDING")) {
		fputs("Efficiency not available for jobs in the PENDING state.\n", f);
		return;
	}
	fprintf(f, "CPU Utilized: %s\n", duration_str(s->cpu_secs, a, sizeof(a)));
	fprintf(f, "CPU Efficiency: %.2f%% of %s core-walltime\n", eff,
		duration_str(core_wall, b, sizeof(b)));
	fprintf(f, "Job Wall-clock time: %s\n", duration_str(s->wall_secs, a, sizeof(a)));
	report_memory(f, s);
	if (state_is(s, "RUNNING"))
		fputs("WARNING: Efficiency statistics may be misleading for RUNNING jobs.\n", f);
}

void seff_debug(FILE *f, const struct seff_job *s)
{
	char arr[48] = "";

	if (s->array_job_id)
		snprintf(arr, sizeof(arr), "%" PRIu32 "_%" PRIu32, s->array_job_id,
			 s->array_task_id);
	fputs("Slurm data: JobID ArrayJobID User Group State Clustername Ncpus Nnodes Ntasks "
	      "Reqmem PerNode Cput Walltime Mem ExitStatus\n",
	      f);
	fprintf(f,
		"Slurm data: %" PRIu32 " %s %s %s %s %s %" PRIu32 " %" PRIu32 " %" PRIu32
		" %" PRIu64 " %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32 "\n\n",
		s->job_id, arr, str_or_empty(s->user), str_or_empty(s->group),
		job_state_string(s->state), str_or_empty(s->cluster), s->ncpus, s->nnodes,
		s->mem_ntasks, s->req_mem_kb, !s->is_mem_per_cpu, s->cpu_secs, s->wall_secs,
		s->mem_kb, s->exit_status);
}

/* ---- job ids and row selection ---- */

int seff_parse_id(const char *s, uint32_t *ret_job, uint32_t *ret_task)
{
	struct sacct_sel sel;

	if (sacct_parse_sel(s, &sel) < 0)
		return -EINVAL;
	*ret_job = sel.job_id;
	*ret_task = sel.task_id;
	return 0;
}

/* A row superseded by a later run of the same job. */
static bool is_older_run(const struct acct_job_rec *jobs, size_t n, size_t i)
{
	for (size_t k = 0; k < n; k++)
		if (k != i && jobs[k].job_id == jobs[i].job_id
		    && (jobs[k].restart_cnt > jobs[i].restart_cnt
			|| (jobs[k].restart_cnt == jobs[i].restart_cnt && k > i)))
			return true;
	return false;
}

static int cmp_task(const void *a, const void *b)
{
	const struct acct_job_rec *x = *(const struct acct_job_rec *const *)a;
	const struct acct_job_rec *y = *(const struct acct_job_rec *const *)b;

	if (x->array_task_id != y->array_task_id)
		return x->array_task_id < y->array_task_id ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

size_t seff_select(const struct acct_job_rec *jobs, size_t n, uint32_t job_id, uint32_t task_id,
		   const struct acct_job_rec **out)
{
	bool is_array = false;
	size_t count = 0;

	for (size_t i = 0; i < n; i++)
		if (jobs[i].array_job_id == job_id)
			is_array = true;
	for (size_t i = 0; i < n; i++) {
		const struct acct_job_rec *j = &jobs[i];
		bool is_match;

		if (task_id != NO_VAL)
			is_match = j->array_job_id == job_id && j->array_task_id == task_id;
		else if (is_array)
			is_match = j->array_job_id == job_id;
		else
			is_match = j->job_id == job_id;
		if (is_match && !is_older_run(jobs, n, i))
			out[count++] = j;
	}
	/* NO_VAL (the pending tasks) sorts after every task id */
	if (count > 1)
		qsort(out, count, sizeof(*out), cmp_task);
	return count;
}

/* ---- seff -u: the per-user table ---- */

enum col {
	COL_JOBID,
	COL_NAME,
	COL_STATE,
	COL_ELAPSED,
	COL_CPUS,
	COL_CPUEFF,
	COL_REQMEM,
	COL_MAXMEM,
	COL_MEMEFF,
	COL_IDLE,
	COL_UNUSED,
	_COL_MAX,
};

static const struct {
	const char *title;
	bool is_left;
} cols[] = {
    [COL_JOBID] = {"JobID", true},	  [COL_NAME] = {"JobName", true},
    [COL_STATE] = {"State", true},	  [COL_ELAPSED] = {"Elapsed", false},
    [COL_CPUS] = {"CPUs", false},	  [COL_CPUEFF] = {"CPUEff", false},
    [COL_REQMEM] = {"ReqMem", false},	  [COL_MAXMEM] = {"MaxMem", false},
    [COL_MEMEFF] = {"MemEff", false},	  [COL_IDLE] = {"IdleCore-h", false},
    [COL_UNUSED] = {"UnusedGB-h", false},
};
_Static_assert(ARRAY_SIZE(cols) == _COL_MAX, "cols[] must name every column");

/* One line of the table. */
struct seff_row {
	const struct acct_job_rec *rec;
	uint64_t wall_secs, cpu_secs, mem_kb, req_mem_kb;
	uint32_t ncpus;
	double idle_core_h; /* (cores x wall time - CPU time) in hours, >= 0 */
	double unused_gb_h; /* (requested - used memory) in GiB x wall hours, >= 0 */
	double waste;	    /* idle_core_h + unused_gb_h: the sort key */
};

#define CELL_MAX 40
#define NAME_CUT 20 /* longer job names end in '+', as sacct cuts them */

typedef char seff_cells[_COL_MAX][CELL_MAX];

static bool row_is_finished(const struct acct_job_rec *j)
{
	return j->start && j->end && (job_state_is_finished(j->state) || (j->state & JOB_REQUEUE));
}

static void row_fill(struct seff_row *r, const struct acct_job_rec *j)
{
	struct seff_job s;
	double core_wall, hours;

	seff_job_from_rec(j, j->end, &s);
	*r = (struct seff_row){
	    .rec = j,
	    .wall_secs = s.wall_secs,
	    .cpu_secs = s.cpu_secs,
	    .mem_kb = s.mem_kb,
	    .req_mem_kb = s.req_mem_kb,
	    .ncpus = s.ncpus,
	};
	hours = (double)s.wall_secs / 3600;
	core_wall = (double)s.wall_secs * s.ncpus;
	if (core_wall > (double)s.cpu_secs)
		r->idle_core_h = (core_wall - (double)s.cpu_secs) / 3600;
	if (s.req_mem_kb > s.mem_kb)
		r->unused_gb_h = (double)(s.req_mem_kb - s.mem_kb) / KB_PER_GB * hours;
	r->waste = r->idle_core_h + r->unused_gb_h;
}

static int cmp_waste(const void *a, const void *b)
{
	const struct seff_row *x = a, *y = b;

	if (x->waste != y->waste)
		return x->waste > y->waste ? -1 : 1;
	if (x->rec->job_id != y->rec->job_id)
		return x->rec->job_id < y->rec->job_id ? -1 : 1;
	return x->rec->restart_cnt < y->rec->restart_cnt ? -1 : 1;
}

/* Memory in a few characters: "0", "512K", "2.97M", "31.2G", "100M". */
static char *mem_short(uint64_t kb, char *buf, size_t n)
{
	static const char units[] = "KMGTPE";
	double v;
	int e;

	if (!kb) {
		snprintf(buf, n, "0");
		return buf;
	}
	e = kb_exp((double)kb);
	if (e > 5)
		e = 5;
	v = (double)kb / pow(1024.0, e);
	snprintf(buf, n, v >= 99.995 ? "%.0f%c" : v >= 9.995 ? "%.1f%c" : "%.2f%c", v, units[e]);
	return buf;
}

static void pct(char *buf, size_t n, double part, double whole)
{
	if (whole > 0)
		snprintf(buf, n, "%.1f%%", part / whole * 100);
	else
		snprintf(buf, n, "-");
}

static void row_cells(const struct seff_row *r, seff_cells c)
{
	const struct acct_job_rec *j = r->rec;
	const char *name = j->name ? j->name : "";

	if (j->array_job_id && j->array_task_id != NO_VAL)
		snprintf(c[COL_JOBID], CELL_MAX, "%" PRIu32 "_%" PRIu32, j->array_job_id,
			 j->array_task_id);
	else
		snprintf(c[COL_JOBID], CELL_MAX, "%" PRIu32, j->job_id);
	if (strlen(name) > NAME_CUT)
		snprintf(c[COL_NAME], CELL_MAX, "%.*s+", NAME_CUT - 1, name);
	else
		snprintf(c[COL_NAME], CELL_MAX, "%s", name);
	snprintf(c[COL_STATE], CELL_MAX, "%s", job_state_string(j->state));
	duration_str(r->wall_secs, c[COL_ELAPSED], CELL_MAX);
	snprintf(c[COL_CPUS], CELL_MAX, "%" PRIu32, r->ncpus);
	pct(c[COL_CPUEFF], CELL_MAX, (double)r->cpu_secs, (double)r->wall_secs * r->ncpus);
	mem_short(r->req_mem_kb, c[COL_REQMEM], CELL_MAX);
	mem_short(r->mem_kb, c[COL_MAXMEM], CELL_MAX);
	pct(c[COL_MEMEFF], CELL_MAX, (double)r->mem_kb, (double)r->req_mem_kb);
	snprintf(c[COL_IDLE], CELL_MAX, "%.2f", r->idle_core_h);
	snprintf(c[COL_UNUSED], CELL_MAX, "%.2f", r->unused_gb_h);
}

static void print_line(FILE *f, const int *width, char cells[_COL_MAX][CELL_MAX])
{
	for (int i = 0; i < _COL_MAX; i++) {
		const char *sep = i ? "  " : "";

		if (cols[i].is_left && i < _COL_MAX - 1)
			fprintf(f, "%s%-*s", sep, width[i], cells[i]);
		else
			fprintf(f, "%s%*s", sep, width[i], cells[i]);
	}
	fputc('\n', f);
}

size_t seff_user_table(FILE *f, const char *user, time_t start, time_t end,
		       const struct acct_job_rec *jobs, size_t n)
{
	_cleanup_free_ struct seff_row *rows = calloc(n ? n : 1, sizeof(*rows));
	_cleanup_free_ seff_cells *cells = NULL;
	seff_cells head;
	int width[_COL_MAX];
	char from[32], to[32];
	size_t count = 0;

	if (!rows)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (row_is_finished(&jobs[i]))
			row_fill(&rows[count++], &jobs[i]);
	if (!count) {
		fprintf(f, "No finished jobs for %s in that window.\n", user);
		return 0;
	}
	cells = calloc(count, sizeof(*cells));
	if (!cells)
		return 0;
	qsort(rows, count, sizeof(*rows), cmp_waste);
	for (int c = 0; c < _COL_MAX; c++) {
		snprintf(head[c], CELL_MAX, "%s", cols[c].title);
		width[c] = (int)strlen(head[c]);
	}
	for (size_t i = 0; i < count; i++) {
		row_cells(&rows[i], cells[i]);
		for (int c = 0; c < _COL_MAX; c++)
			if ((int)strlen(cells[i][c]) > width[c])
				width[c] = (int)strlen(cells[i][c]);
	}
	fprintf(f, "Finished jobs of %s from %s to %s, most over-allocated first:\n", user,
		time_display(start, from, sizeof(from)), time_display(end, to, sizeof(to)));
	print_line(f, width, head);
	for (int c = 0; c < _COL_MAX; c++) {
		memset(head[c], '-', (size_t)width[c]);
		head[c][width[c]] = '\0';
	}
	print_line(f, width, head);
	for (size_t i = 0; i < count; i++)
		print_line(f, width, cells[i]);
	fputs("Hint: worst first by IdleCore-h + UnusedGB-h (unused core-hours + unused memory "
	      "GiB-hours); shrink -c/-n where CPUEff is low, --mem where MemEff is low.\n",
	      f);
	return count;
}
