/* scontrol_show.c - what "scontrol show ..." prints, as pure renderers.
 *
 * Purpose: print the records of "scontrol show node|partition|config"
 * exactly as Slurm 22.05 lays them out, trailing spaces included (they
 * come from Slurm writing "Key=value " and then the line end), and the
 * host list expansions of "show hostnames|hostlist|hostlistsorted".
 * Input: one wire record; output: text on a FILE*.
 * Caveats: fields our wire structs do not carry print Slurm's values for
 * a cluster without them: Owner=N/A, MCS_label=N/A, CapWatts=n/a,
 * CurrentWatts=0 AveWatts=0, ExtSensors*=n/s, CPUEfctv=CPUTot (no
 * specialized cores), SelectTypeParameters=NONE, PreemptMode from the
 * partition (0 = OFF).
 */
#include "cli/scontrol_show.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/hostlist.h"
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
	return time_to_iso(t, buf, n);
}

/* Slurm's uid_to_string: the user name, "root" for 0, else the number. */
static const char *user_of(uint32_t uid, char *buf, size_t n)
{
	if (uid == 0)
		snprintf(buf, n, "root");
	else if (!cli_uid_name(uid, buf, n))
		snprintf(buf, n, "%u", uid);
	return buf;
}

/* scontrol asks for SHOW_MIXED: a node with only part of its CPUs (or
 * only other resources) allocated shows as MIXED, flags kept. */
static uint32_t shown_state(const struct node_info *n)
{
	uint32_t idle = n->cpus > n->alloc_cpus ? n->cpus - n->alloc_cpus : 0;

	if ((idle && idle < n->cpus) || (n->alloc_tres && idle == n->cpus))
		return (n->state & NODE_STATE_FLAGS) | NODE_STATE_MIXED;
	return n->state;
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
