/* scontrol_show.c - what "scontrol show ..." prints, as pure renderers.
 *
 * Purpose: print the records of "scontrol show node|partition|config"
 * exactly as Slurm 22.05 lays them out, trailing spaces included (they
 * come from Slurm writing "Key=value " and then the line end), and the
 * host list expansions of "show hostnames|hostlist|hostlistsorted".
 * Input: one wire record; output: text on a FILE*.
 * Jobs follow Slurm's _sprint_job_info(): the optional lines (BatchHost,
 * Comment, TresPerNode, MailUser) appear only when set.
 * Caveats: fields our wire structs do not carry print Slurm's values for
 * a cluster without them: Owner=N/A, MCS_label=N/A, CapWatts=n/a,
 * CurrentWatts=0 AveWatts=0, ExtSensors*=n/s, CPUEfctv=CPUTot (no
 * specialized cores), SelectTypeParameters=NONE, PreemptMode from the
 * partition (0 = OFF).
 */
#include "cli/scontrol_show.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "api/id_name.h"
#include "cli/cli.h"
#include "cli/fmt.h"
#include "common/data_job.h"
#include "common/data_node.h"
#include "common/hostlist.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_time.h"
#include "common/states.h"

static const char *s_or(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

/* Slurm's slurm_make_time_str: ISO local time, "Unknown" for 0. */
static const char *iso(time_t t, char *buf, size_t n)
{
	return time_display(t, buf, n);
}

/* Slurm's uid_to_string: the user name, "root" for 0, else the number. */
static const char *user_of(uint32_t uid, char *buf, size_t n)
{
	if (uid == 0)
		snprintf(buf, n, "root");
	else if (!id_name_uid(uid, buf, n))
		snprintf(buf, n, "%u", uid);
	return buf;
}

/* scontrol asks for SHOW_MIXED: a node with only part of its CPUs (or
 * only other resources) allocated shows as MIXED, flags kept. */
static uint32_t shown_state(const struct node_info *n)
{
	return data_node_state(n);
}

/* "Reason=<text> [user@time]"; later lines of a multi-line reason are
 * indented under the first. */
static void print_reason(FILE *out, const struct node_info *n, const char *le)
{
	const char *s = n->reason;
	char user[256], when[32];

	for (int line = 0; *s; line++) {
		size_t len = strcspn(s, "\n");

		if (len) {
			fputs(le, out);
			fprintf(out, "%s%.*s", line ? "       " : "Reason=", (int)len, s);
			if (line == 0 && n->reason_time)
				fprintf(out, " [%s@%s]", user_of(n->reason_uid, user, sizeof(user)),
					iso(n->reason_time, when, sizeof(when)));
		} else {
			line--; /* empty pieces are skipped, like strtok does */
		}
		s += len + (s[len] == '\n');
	}
}

void scontrol_show_node(FILE *out, const struct node_info *n, const struct scontrol_show_opts *o)
{
	const char *le = o->one_liner ? " " : "\n   ";
	char a[32], b[32], state[256];

	fprintf(out, "NodeName=%s ", s_or(n->name, "(null)"));
	if (n->arch)
		fprintf(out, "Arch=%s ", n->arch);
	fprintf(out, "CoresPerSocket=%u %s", n->cores, le);

	fprintf(out, "CPUAlloc=%u CPUEfctv=%u CPUTot=%u ", n->alloc_cpus, n->cpus, n->cpus);
	if (n->cpu_load == NO_VAL)
		fprintf(out, "CPULoad=N/A%s", le);
	else
		fprintf(out, "CPULoad=%.2f%s", n->cpu_load / 100.0, le);
	fprintf(out, "AvailableFeatures=%s%s", s_or(n->features, "(null)"), le);
	fprintf(out, "ActiveFeatures=%s%s", s_or(n->features_act, "(null)"), le);
	fprintf(out, "Gres=%s%s", s_or(n->gres, "(null)"), le);
	if (o->details && n->gres_used)
		fprintf(out, "GresUsed=%s%s", n->gres_used, le);

	/* The address line prints only the parts that are known (Port only
	 * when it differs from SlurmdPort) and is left out when empty. */
	if (n->node_addr)
		fprintf(out, "NodeAddr=%s ", n->node_addr);
	if (n->node_hostname)
		fprintf(out, "NodeHostName=%s ", n->node_hostname);
	if (n->port != o->slurmd_port)
		fprintf(out, "Port=%u ", n->port);
	if (n->version)
		fprintf(out, "Version=%s", n->version);
	if (n->node_addr || n->node_hostname || n->port != o->slurmd_port || n->version)
		fputs(le, out);
	if (n->os)
		fprintf(out, "OS=%s %s", n->os, le);

	fprintf(out, "RealMemory=%" PRIu64 " AllocMem=%" PRIu64 " ", n->real_memory, n->alloc_mem);
	if (n->free_mem == NO_VAL64)
		fprintf(out, "FreeMem=N/A ");
	else
		fprintf(out, "FreeMem=%" PRIu64 " ", n->free_mem);
	fprintf(out, "Sockets=%u Boards=%u%s", n->sockets, n->boards, le);

	node_state_scontrol(shown_state(n), state, sizeof(state));
	fprintf(out, "State=%s ThreadsPerCore=%u TmpDisk=%u Weight=%u Owner=N/A MCS_label=N/A%s",
		state, n->threads, n->tmp_disk, n->weight, le);
	if (n->partitions)
		fprintf(out, "Partitions=%s %s", n->partitions, le);

	fprintf(out, "BootTime=%s ", n->boot_time ? iso(n->boot_time, a, sizeof(a)) : "None");
	fprintf(out, "SlurmdStartTime=%s%s",
		n->slurmd_start_time ? iso(n->slurmd_start_time, b, sizeof(b)) : "None", le);
	fprintf(out, "LastBusyTime=%s%s", iso(n->last_busy, a, sizeof(a)), le);
	fprintf(out, "CfgTRES=%s%s", s_or(n->cfg_tres, "(null)"), le);
	fprintf(out, "AllocTRES=%s%s", s_or(n->alloc_tres, ""), le);
	fprintf(out, "CapWatts=n/a%s", le);
	fprintf(out, "CurrentWatts=0 AveWatts=0%s", le);
	fprintf(out, "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s");

	if (n->reason && n->reason[0])
		print_reason(out, n, le);
	if (n->comment)
		fprintf(out, "%sComment=%s", le, n->comment);
	if (n->extra)
		fprintf(out, "%sExtra=%s", le, n->extra);
	fputs(o->one_liner ? "\n" : "\n\n", out);
}

/* MaxTime=/DefaultTime= words: a limit, or Slurm's names for none. */
static const char *limit(uint32_t mins, const char *unset, char *buf, size_t n)
{
	if (mins == INFINITE)
		return "UNLIMITED";
	if (mins == NO_VAL)
		return unset;
	return mins2time_str(mins, buf, n);
}

static void print_mem_limit(FILE *out, const char *what, uint64_t per_cpu, uint64_t per_node)
{
	if (per_cpu)
		fprintf(out, "%sMemPerCPU=%" PRIu64, what, per_cpu);
	else if (per_node && per_node != INFINITE64)
		fprintf(out, "%sMemPerNode=%" PRIu64, what, per_node);
	else
		fprintf(out, "%sMemPerNode=UNLIMITED", what);
}

void scontrol_show_part(FILE *out, const struct part_info *p, const struct scontrol_show_opts *o)
{
	const char *le = o->one_liner ? " " : "\n   ";
	char buf[64];

	fprintf(out, "PartitionName=%s%s", s_or(p->name, "(null)"), le);
	fprintf(out, "AllowGroups=%s AllowAccounts=%s AllowQos=%s%s",
		p->allow_groups && *p->allow_groups ? p->allow_groups : "ALL",
		p->allow_accounts && *p->allow_accounts ? p->allow_accounts : "ALL",
		p->allow_qos && *p->allow_qos ? p->allow_qos : "ALL", le);
	fprintf(out, "AllocNodes=%s Default=%s QoS=%s%s", s_or(p->alloc_nodes, "ALL"),
		p->flags & PART_FLAG_DEFAULT ? "YES" : "NO", s_or(p->qos, "N/A"), le);
	fprintf(out, "DefaultTime=%s DisableRootJobs=%s ExclusiveUser=%s GraceTime=%u Hidden=%s%s",
		limit(p->default_time, "NONE", buf, sizeof(buf)),
		p->flags & PART_FLAG_NO_ROOT ? "YES" : "NO",
		p->flags & PART_FLAG_EXCLUSIVE_USER ? "YES" : "NO", p->grace_time,
		p->flags & PART_FLAG_HIDDEN ? "YES" : "NO", le);
	if (p->max_nodes == INFINITE)
		fprintf(out, "MaxNodes=UNLIMITED");
	else
		fprintf(out, "MaxNodes=%u", p->max_nodes);
	fprintf(out, " MaxTime=%s MinNodes=%u LLN=%s", limit(p->max_time, "NONE", buf, sizeof(buf)),
		p->min_nodes, p->flags & PART_FLAG_LLN ? "YES" : "NO");
	if (p->max_cpus_per_node == INFINITE)
		fprintf(out, " MaxCPUsPerNode=UNLIMITED%s", le);
	else
		fprintf(out, " MaxCPUsPerNode=%u%s", p->max_cpus_per_node, le);
	fprintf(out, "Nodes=%s%s", s_or(p->nodes, "(null)"), le);
	fprintf(
	    out, "PriorityJobFactor=%u PriorityTier=%u RootOnly=%s ReqResv=%s OverSubscribe=%s%s",
	    p->priority_job_factor, p->priority_tier, p->flags & PART_FLAG_ROOT_ONLY ? "YES" : "NO",
	    p->flags & PART_FLAG_REQ_RESV ? "YES" : "NO",
	    cli_oversubscribe_str(p->over_subscribe, buf, sizeof(buf)), le);
	if (p->over_time_limit == NO_VAL16)
		fprintf(out, "OverTimeLimit=NONE");
	else if (p->over_time_limit == INFINITE16)
		fprintf(out, "OverTimeLimit=UNLIMITED");
	else
		fprintf(out, "OverTimeLimit=%u", p->over_time_limit);
	fprintf(out, " PreemptMode=%s%s", cli_preempt_mode_str(p->preempt_mode, buf, sizeof(buf)),
		le);
	fprintf(out, "State=%s TotalCPUs=%u TotalNodes=%u SelectTypeParameters=NONE%s",
		p->state_up == PART_STATE_UP	     ? "UP"
		: p->state_up == PART_STATE_DOWN     ? "DOWN"
		: p->state_up == PART_STATE_INACTIVE ? "INACTIVE"
		: p->state_up == PART_STATE_DRAIN    ? "DRAIN"
						     : "UNKNOWN",
		p->total_cpus, p->total_nodes, le);
	fprintf(out, "JobDefaults=%s%s", s_or(p->job_defaults, "(null)"), le);
	print_mem_limit(out, "Def", p->def_mem_per_cpu, p->def_mem_per_node);
	print_mem_limit(out, " Max", p->max_mem_per_cpu, p->max_mem_per_node);
	if (p->tres)
		fprintf(out, "%sTRES=%s", le, p->tres);
	fputs(o->one_liner ? "\n" : "\n\n", out);
}

void scontrol_show_config(FILE *out, const struct build_info_msg *b)
{
	char when[32];

	fprintf(out, "Configuration data as of %s\n", iso(b->last_update, when, sizeof(when)));
	for (uint32_t i = 0; i < b->count; i++)
		fprintf(out, "%-23s = %s\n", s_or(b->pairs[i].key, "(null)"),
			s_or(b->pairs[i].value, "(null)"));
}

int scontrol_show_hostnames(FILE *out, const char *expr)
{
	struct hostlist *hl = NULL;

	if (hostlist_new(expr, &hl) < 0) {
		fprintf(stderr, "Invalid hostlist: %s\n", expr);
		return -EINVAL;
	}
	for (size_t i = 0; i < hostlist_count(hl); i++)
		fprintf(out, "%s\n", hostlist_nth(hl, i));
	hostlist_free(hl);
	return 0;
}

int scontrol_show_hostlist(FILE *out, const char *list, bool sorted)
{
	struct hostlist *hl = NULL;
	char *text = NULL, *ranged;
	int r = 0;

	if (list[0] == '/') {
		FILE *f = fopen(list, "r");
		size_t cap = 0;

		if (!f || getdelim(&text, &cap, '\0', f) < 0) {
			fprintf(stderr, "Can not open %s\n", list);
			if (f)
				fclose(f);
			free(text);
			return -ENOENT;
		}
		fclose(f);
		for (char *p = text; *p; p++)
			*p = *p == '\n' ? ',' : *p;
		list = text;
	}
	if (hostlist_new(list, &hl) < 0) {
		fprintf(stderr, "Invalid hostlist: %s\n", list);
		r = -EINVAL;
	} else {
		if (sorted)
			hostlist_sort(hl);
		ranged = hostlist_ranged_string(hl);
		fprintf(out, "%s\n", ranged ? ranged : "");
		free(ranged);
		hostlist_free(hl);
	}
	free(text);
	return r;
}

/* ---- jobs ---- */

/* slurm_make_time_str(): 0 and INFINITE are "Unknown". */
static const char *job_time(time_t t, char *buf, size_t n)
{
	if (t == (time_t)INFINITE)
		return "Unknown";
	return time_display(t, buf, n);
}

/* A wait status as "exit:signal". */
static void print_exit(FILE *out, const char *key, uint32_t status)
{
	int st = (int)status;
	unsigned code = 0, sig = 0;

	if (WIFSIGNALED(st))
		sig = (unsigned)WTERMSIG(st);
	else if (WIFEXITED(st))
		code = (unsigned)WEXITSTATUS(st);
	fprintf(out, "%s=%u:%u", key, code, sig);
}

static long run_time(const struct job_info *j, time_t now)
{
	uint32_t base = j->job_state & JOB_STATE_BASE;
	time_t end;
	long t;

	if (base == JOB_PENDING)
		return 0;
	if (base == JOB_SUSPENDED)
		return (long)j->pre_sus_time;
	end = (base == JOB_RUNNING || j->end_time == 0) ? now : j->end_time;
	if (j->suspend_time)
		t = (long)(end - j->suspend_time) + (long)j->pre_sus_time;
	else
		t = (long)(end - j->start_time);
	return t < 0 ? 0 : t;
}

static void print_ids(FILE *out, const struct job_info *j)
{
	fprintf(out, "JobId=%u ", j->job_id);
	if (j->array_job_id) {
		fprintf(out, "ArrayJobId=%u ", j->array_job_id);
		if (j->array_task_str && j->array_max_tasks)
			fprintf(out, "ArrayTaskId=%s%%%u ", j->array_task_str, j->array_max_tasks);
		else if (j->array_task_str)
			fprintf(out, "ArrayTaskId=%s ", j->array_task_str);
		else
			fprintf(out, "ArrayTaskId=%u ", j->array_task_id);
		if (j->array_max_tasks)
			fprintf(out, "ArrayTaskThrottle=%u ", j->array_max_tasks);
	}
	fprintf(out, "JobName=%s", s_or(j->name, "(null)"));
}

static const char *group_of(const struct job_info *j, char *buf, size_t n)
{
	struct group gr, *res = NULL;
	char tmp[1024];

	if (getgrgid_r((gid_t)j->group_id, &gr, tmp, sizeof(tmp), &res) == 0 && res)
		snprintf(buf, n, "%s", res->gr_name);
	else if (j->group_name)
		snprintf(buf, n, "%s", j->group_name);
	else
		snprintf(buf, n, "%u", j->group_id);
	return buf;
}

/* Reason=: state_desc (blanks made '_', as scontrol does) or the name. */
static void print_reason_word(FILE *out, const struct job_info *j)
{
	const char *s = j->state_desc;

	if (!s) {
		fprintf(out, "Reason=%s ", job_reason_string(j->state_reason));
		return;
	}
	fputs("Reason=", out);
	for (; *s; s++)
		fputc(isspace((unsigned char)*s) ? '_' : *s, out);
	fputc(' ', out);
}

/* NumNodes=: a pending job shows the range it asked for ("2-2"). */
static void print_sizes(FILE *out, const struct job_info *j)
{
	uint32_t lo = j->num_nodes, hi = 0;

	if ((j->job_state & JOB_STATE_BASE) == JOB_PENDING) {
		hi = j->max_nodes;
		if (hi && hi < lo)
			lo = hi;
	}
	if (hi)
		fprintf(out, "NumNodes=%u-%u ", lo, hi);
	else
		fprintf(out, "NumNodes=%u ", lo);
	fprintf(out, "NumCPUs=%u ", j->num_cpus);
	if (j->num_tasks == NO_VAL)
		fprintf(out, "NumTasks=N/A ");
	else
		fprintf(out, "NumTasks=%u ", j->num_tasks);
	if (j->cpus_per_task == NO_VAL16)
		fprintf(out, "CPUs/Task=N/A ");
	else
		fprintf(out, "CPUs/Task=%u ", j->cpus_per_task);
	fprintf(out, "ReqB:S:C:T=0:0:*:*");
}

/* The i-th ';'-separated piece of gres_detail into buf ("" if none). */
static const char *gres_on(const char *detail, size_t i, char *buf, size_t n)
{
	const char *p = detail;

	for (; p && i; i--)
		p = (p = strchr(p, ';')) ? p + 1 : NULL;
	snprintf(buf, n, "%.*s", p ? (int)strcspn(p, ";") : 0, p ? p : "");
	return buf;
}

/* JOB_GRES=: the job's "gres/gpu=8" TRES as "gpu:8", "(null)" without. */
static void print_job_gres(FILE *out, const struct job_info *j, const char *le)
{
	const char *t = j->tres_alloc_str ? j->tres_alloc_str : j->tres_req_str;
	bool any = false;

	fputs("JOB_GRES=", out);
	for (const char *p = t ? strstr(t, "gres/") : NULL; p; p = strstr(p + 1, "gres/")) {
		size_t len = strcspn(p + 5, ",");
		const char *eq = memchr(p + 5, '=', len);

		if (!eq)
			continue;
		fprintf(out, "%s%.*s:%.*s", any ? "," : "", (int)(eq - p - 5), p + 5,
			(int)(len - (size_t)(eq - p - 5) - 1), eq + 1);
		any = true;
	}
	fprintf(out, "%s%s", any ? "" : "(null)", le);
}

/* -d: one line per run of nodes with the same CPUs, memory and GRES. */
static void print_node_detail(FILE *out, const struct job_info *j, const char *le)
{
	struct hostlist *hl = NULL, *run = NULL;
	char last[256] = "", cur[256], gres[128];
	uint32_t per = j->num_nodes ? j->num_cpus / j->num_nodes : j->num_cpus;
	uint64_t mem = j->pn_min_memory & ~MEM_PER_CPU;

	if (!j->nodes || !*j->nodes || hostlist_new(j->nodes, &hl) < 0
	    || hostlist_new("", &run) < 0)
		goto done;
	print_job_gres(out, j, le);
	for (size_t i = 0; i <= hostlist_count(hl); i++) {
		if (i < hostlist_count(hl)) {
			uint32_t cpus = j->cpus_per_node ? data_job_cpus_on(j->cpus_per_node, i) : per;
			uint64_t m = j->pn_min_memory & MEM_PER_CPU ? mem * cpus : mem;

			if (cpus > 1)
				snprintf(cur, sizeof(cur), "CPU_IDs=0-%u Mem=%" PRIu64 " GRES=%s",
					 cpus - 1, m,
					 gres_on(j->gres_detail, i, gres, sizeof(gres)));
			else
				snprintf(cur, sizeof(cur), "CPU_IDs=0 Mem=%" PRIu64 " GRES=%s", m,
					 gres_on(j->gres_detail, i, gres, sizeof(gres)));
		}
		if (hostlist_count(run) && (i == hostlist_count(hl) || strcmp(cur, last))) {
			char *names = hostlist_ranged_string(run);

			fprintf(out, "  Nodes=%s %s%s", names ? names : "", last, le);
			free(names);
			hostlist_free(run);
			if (hostlist_new("", &run) < 0)
				break;
		}
		if (i < hostlist_count(hl)) {
			(void)hostlist_push_host(run, hostlist_nth(hl, i));
			snprintf(last, sizeof(last), "%s", cur);
		}
	}
done:
	hostlist_free(run);
	hostlist_free(hl);
}

static const char *share_str(uint16_t shared)
{
	static const char *const words[] = {"NO", "OK", "USER", "MCS", "YES"};

	return shared < ARRAY_SIZE(words) ? words[shared] : "OK";
}

/* "<le>Key=gres:gpu:2" from our "gres/gpu:2"; nothing when v is NULL. */
static void print_gres_line(FILE *out, const char *le, const char *key, const char *v)
{
	if (!v)
		return;
	fprintf(out, "%s%s=", le, key);
	for (const char *p = v; *p; p++)
		fputc(*p == '/' && p - v >= 4 && !strncmp(p - 4, "gres", 4) ? ':' : *p, out);
}

/* StdErr/StdIn/StdOut as slurm_get_job_std*(): the default names. */

static void print_std(FILE *out, const struct job_info *j, const char *le)
{
	char dflt[4096];

	if (j->array_job_id)
		snprintf(dflt, sizeof(dflt), "%s/slurm-%u_%u.out", s_or(j->work_dir, "(null)"),
			 j->array_job_id, j->array_task_id);
	else
		snprintf(dflt, sizeof(dflt), "%s/slurm-%u.out", s_or(j->work_dir, "(null)"),
			 j->job_id);
	fprintf(out, "%sStdErr=%s", le, s_or(j->std_err, dflt));
	fprintf(out, "%sStdIn=%s", le, s_or(j->std_in, "/dev/null"));
	fprintf(out, "%sStdOut=%s", le, s_or(j->std_out, dflt));
}

/* MailType= words in Slurm's print_mail_type() order. */
static void print_mail(FILE *out, uint16_t t)
{
	static const struct {
		uint16_t bit;
		const char *name;
	} words[] = {
	    {MAIL_INVALID_DEPEND, "INVALID_DEPEND"},
	    {MAIL_JOB_BEGIN, "BEGIN"},
	    {MAIL_JOB_END, "END"},
	    {MAIL_JOB_FAIL, "FAIL"},
	    {MAIL_JOB_REQUEUE, "REQUEUE"},
	    {MAIL_JOB_STAGE_OUT, "STAGE_OUT"},
	    {MAIL_JOB_TIME50, "TIME_LIMIT_50"},
	    {MAIL_JOB_TIME80, "TIME_LIMIT_80"},
	    {MAIL_JOB_TIME90, "TIME_LIMIT_90"},
	    {MAIL_JOB_TIME100, "TIME_LIMIT"},
	    {MAIL_ARRAY_TASKS, "ARRAY_TASKS"},
	};
	const char *sep = "";

	for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
		if (t & words[i].bit) {
			fprintf(out, "%s%s", sep, words[i].name);
			sep = ",";
		}
	}
}

static void print_times(FILE *out, const struct job_info *j, time_t now, const char *le)
{
	char a[64], b[64];

	secs2time_str((uint32_t)run_time(j, now), a, sizeof(a));
	fprintf(out, "RunTime=%s ", a);
	if (j->time_limit == NO_VAL)
		fprintf(out, "TimeLimit=Partition_Limit ");
	else
		fprintf(out, "TimeLimit=%s ", mins2time_str(j->time_limit, a, sizeof(a)));
	if (j->time_min == 0 || j->time_min == NO_VAL)
		fprintf(out, "TimeMin=N/A%s", le);
	else
		fprintf(out, "TimeMin=%s%s", mins2time_str(j->time_min, a, sizeof(a)), le);
	fprintf(out, "SubmitTime=%s EligibleTime=%s%s", job_time(j->submit_time, a, sizeof(a)),
		job_time(j->eligible_time, b, sizeof(b)), le);
	fprintf(out, "AccrueTime=%s%s", job_time(j->accrue_time, a, sizeof(a)), le);
	fprintf(out, "StartTime=%s ", job_time(j->start_time, a, sizeof(a)));
	if (j->time_limit == INFINITE && j->end_time > now)
		fprintf(out, "EndTime=Unknown ");
	else
		fprintf(out, "EndTime=%s ", job_time(j->end_time, a, sizeof(a)));
	fprintf(out, "Deadline=N/A%s", le);
	fprintf(out, "SuspendTime=%s SecsPreSuspend=%u ",
		j->suspend_time ? job_time(j->suspend_time, a, sizeof(a)) : "None",
		j->pre_sus_time);
	fprintf(out, "LastSchedEval=%s Scheduler=%s%s", job_time(j->last_sched_eval, a, sizeof(a)),
		j->sched_by == JOB_SCHED_BF	   ? "Backfill"
		: j->sched_by == JOB_SCHED_BF_PLAN ? "Backfill:*"
						   : "Main",
		le);
}

void scontrol_show_job(FILE *out, const struct job_info *j, const struct scontrol_show_opts *o)
{
	const char *le = o->one_liner ? " " : "\n   ";
	time_t now = o->now ? o->now : time(NULL);
	char user[256], group[256], a[64], b[64];
	uint64_t mem = j->pn_min_memory & ~MEM_PER_CPU;

	print_ids(out, j);
	fputs(le, out);
	if (!id_name_uid(j->user_id, user, sizeof(user)))
		snprintf(user, sizeof(user), "%s", j->user_name ? j->user_name : "");
	if (!*user)
		snprintf(user, sizeof(user), "%u", j->user_id);
	fprintf(out, "UserId=%s(%u) GroupId=%s(%u) MCS_label=N/A%s", user, j->user_id,
		group_of(j, group, sizeof(group)), j->group_id, le);
	fprintf(out, "Priority=%u Nice=%d Account=%s QOS=%s%s", j->priority,
		j->nice == NO_VAL || j->nice == 0 ? 0 : (int)((int64_t)j->nice - NICE_OFFSET),
		s_or(j->account, "(null)"), s_or(j->qos, "(null)"), le);
	fprintf(out, "JobState=%s ", job_state_string(j->job_state));
	print_reason_word(out, j);
	fprintf(out, "Dependency=%s%s", s_or(j->dependency, "(null)"), le);
	/* ours, not Slurm's: why a pending job waits, in words (not in -o,
	 * whose one line tools split on spaces) */
	if (j->reason_detail && !o->one_liner)
		fprintf(out, "Explanation=%s%s", j->reason_detail, le);
	fprintf(out, "Requeue=%u Restarts=%u BatchFlag=%u Reboot=0 ", j->requeue, j->restart_cnt,
		j->batch_flag);
	print_exit(out, "ExitCode", j->exit_code);
	fputs(le, out);
	if (o->details) {
		print_exit(out, "DerivedExitCode", j->derived_ec);
		fputs(le, out);
	}
	print_times(out, j, now, le);
	fprintf(out, "Partition=%s AllocNode:Sid=%s:%u%s", s_or(j->partition, "(null)"),
		s_or(j->alloc_node, "(null)"), j->alloc_sid, le);
	fprintf(out, "ReqNodeList=%s ExcNodeList=%s%s", s_or(j->req_nodes, "(null)"),
		s_or(j->exc_nodes, "(null)"), le);
	fprintf(out, "NodeList=%s", s_or(j->nodes, ""));
	if (j->sched_nodes)
		fprintf(out, " SchedNodeList=%s", j->sched_nodes);
	fputs(le, out);
	if (j->batch_host)
		fprintf(out, "BatchHost=%s%s", j->batch_host, le);
	print_sizes(out, j);
	fputs(le, out);
	fprintf(out, "TRES=%s%s",
		s_or(j->tres_alloc_str ? j->tres_alloc_str : j->tres_req_str, "(null)"), le);
	if (j->ntasks_per_node == NO_VAL16)
		fprintf(out, "Socks/Node=* NtasksPerN:B:S:C=*:0:*:* CoreSpec=*%s", le);
	else
		fprintf(out, "Socks/Node=* NtasksPerN:B:S:C=%u:0:*:* CoreSpec=*%s",
			j->ntasks_per_node, le);
	if (o->details)
		print_node_detail(out, j, le);
	fprintf(out, "MinCPUsNode=%u MinMemory%s=%s MinTmpDiskNode=%s%s", j->pn_min_cpus,
		j->pn_min_memory & MEM_PER_CPU ? "CPU" : "Node",
		fmt_num_unit(mem, 'M', a, sizeof(a)),
		fmt_num_unit(j->pn_min_tmp_disk, 'M', b, sizeof(b)), le);
	fprintf(out, "Features=%s DelayBoot=00:00:00%s", s_or(j->features, "(null)"), le);
	if (j->resv_name)
		fprintf(out, "Reservation=%s%s", j->resv_name, le);
	fprintf(out, "OverSubscribe=%s Contiguous=%u Licenses=%s Network=%s%s",
		share_str(j->shared), j->contiguous, s_or(j->licenses, "(null)"),
		s_or(j->network, "(null)"), le);
	fprintf(out, "Command=%s%s", s_or(j->command, "(null)"), le);
	fprintf(out, "WorkDir=%s", s_or(j->work_dir, "(null)"));
	if (j->comment)
		fprintf(out, "%sComment=%s ", le, j->comment);
	if (j->batch_flag)
		print_std(out, j, le);
	fprintf(out, "%sPower=", le);
	/* 22.05 names GRES "gres:gpu:2" where we keep "gres/gpu:2" */
	print_gres_line(out, le, "CpusPerTres", j->cpus_per_tres);
	print_gres_line(out, le, "MemPerTres", j->mem_per_tres);
	print_gres_line(out, le, "TresPerJob", j->tres_per_job);
	print_gres_line(out, le, "TresPerNode", j->tres_per_node);
	print_gres_line(out, le, "TresPerSocket", j->tres_per_socket);
	print_gres_line(out, le, "TresPerTask", j->tres_per_task);
	if (j->mail_type && j->mail_user) {
		fprintf(out, "%sMailUser=%s MailType=", le, j->mail_user);
		print_mail(out, j->mail_type);
	}
	fputs(le, out);
	fputs(o->one_liner ? "\n" : "\n\n", out);
}
