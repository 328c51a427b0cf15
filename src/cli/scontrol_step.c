/* scontrol_step.c - "scontrol show step": Slurm 22.05's step record.
 *
 * Purpose: print RESPONSE_JOB_STEP_INFO records exactly as
 * slurm_sprint_job_step_info() lays them out:
 *   StepId=12.0 UserId=0 StartTime=2026-12-02T13:00:00 TimeLimit=UNLIMITED
 *      State=RUNNING Partition=debug NodeList=n[1-2]
 *      Nodes=2 CPUs=4 Tasks=4 Name=hostname Network=(null)
 *      TRES=cpu=4,mem=400M,node=2
 *      ResvPorts=(null)
 *      CPUFreqReq=Default Dist=Block
 *      SrunHost:Pid=vm:12345
 * Caveats: our step_info carries no network, reserved ports, cpu
 * frequency or task distribution: they print Slurm's values for a step
 * without them, and Dist=Block (srun's default layout here) for every
 * step but the batch step, which has no distribution in Slurm either.
 */
#include "cli/scontrol_step.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fmt.h"
#include "cli/scontrol_show.h"
#include "common/hostlist.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/parse_time.h"

void scontrol_step_id_parse(const char *s, struct scontrol_step_id *ret)
{
	char *end;

	*ret = (struct scontrol_step_id){NO_VAL, NO_VAL, NO_VAL};
	if (!s)
		return;
	ret->job_id = (uint32_t)strtoul(s, &end, 10);
	if (*end == '_')
		ret->array_id = (uint32_t)strtoul(end + 1, &end, 10);
	if (*end == '.') {
		if (!strncmp(end + 1, "batch", 5))
			ret->step_id = SL_BATCH_STEP;
		else if (!strncmp(end + 1, "extern", 6))
			ret->step_id = SL_EXTERN_STEP;
		else
			ret->step_id = (uint32_t)strtoul(end + 1, &end, 10);
	}
}

/* log_build_step_id_str(STEP_ID_FLAG_NO_PREFIX | STEP_ID_FLAG_NO_JOB). */
static const char *step_word(uint32_t step, char *buf, size_t n)
{
	if (step == SL_BATCH_STEP)
		snprintf(buf, n, "batch");
	else if (step == SL_EXTERN_STEP)
		snprintf(buf, n, "extern");
	else
		snprintf(buf, n, "%u", step);
	return buf;
}

static size_t node_count(const char *nodes)
{
	struct hostlist *hl = NULL;
	size_t n = 0;

	if (nodes && *nodes && hostlist_new(nodes, &hl) == 0)
		n = hostlist_count(hl);
	hostlist_free(hl);
	return n;
}

static const char *s_or_null(const char *s)
{
	return s ? s : "(null)";
}

void scontrol_show_step(FILE *out, const struct step_info *s, const struct scontrol_show_opts *o)
{
	const char *le = o->one_liner ? " " : "\n   ";
	char when[64], limit[64], word[32], cnt[32];

	if (s->array_job_id)
		fprintf(out, "StepId=%u_%u.", s->array_job_id, s->array_task_id);
	else
		fprintf(out, "StepId=%u.", s->job_id);
	if (s->start_time == 0 || s->start_time == (time_t)INFINITE)
		snprintf(when, sizeof(when), "Unknown");
	else
		time_display(s->start_time, when, sizeof(when));
	if (s->time_limit == INFINITE)
		snprintf(limit, sizeof(limit), "UNLIMITED");
	else
		secs2time_str(s->time_limit * 60, limit, sizeof(limit));
	fprintf(out, "%s UserId=%u StartTime=%s TimeLimit=%s", step_word(s->step_id, word, 32),
		s->user_id, when, limit);
	fprintf(out, "%sState=%s Partition=%s NodeList=%s", le, job_state_string(s->state),
		s_or_null(s->partition), s_or_null(s->nodes));
	fprintf(out, "%sNodes=%s CPUs=%u Tasks=%u Name=%s Network=(null)", le,
		fmt_num_unit(node_count(s->nodes), 0, cnt, sizeof(cnt)), s->num_cpus, s->num_tasks,
		s_or_null(s->name));
	fprintf(out, "%sTRES=%s", le, s_or_null(s->tres_alloc_str));
	fprintf(out, "%sResvPorts=(null)", le);
	fprintf(out, "%sCPUFreqReq=Default%s", le,
		s->step_id == SL_BATCH_STEP ? "" : " Dist=Block");
	fprintf(out, "%sSrunHost:Pid=%s:%u", le, s_or_null(s->srun_host), s->srun_pid);
	fputs(o->one_liner ? "\n" : "\n\n", out);
}

static bool step_match(const struct step_info *s, const struct scontrol_step_id *id)
{
	if (id->job_id == NO_VAL)
		return true;
	if (id->array_id != NO_VAL) {
		if (!s->array_job_id || s->array_job_id != id->job_id
		    || s->array_task_id != id->array_id)
			return false;
	} else if (s->job_id != id->job_id) {
		return false;
	}
	return id->step_id == NO_VAL || s->step_id == id->step_id;
}

int scontrol_step_print(FILE *out, const struct step_info_msg *m, const char *id,
			const struct scontrol_show_opts *o, int quiet)
{
	struct scontrol_step_id want;
	uint32_t shown = 0;
	char word[32];

	scontrol_step_id_parse(id, &want);
	for (uint32_t i = 0; i < m->count; i++)
		if (step_match(&m->steps[i], &want)) {
			scontrol_show_step(out, &m->steps[i], o);
			shown++;
		}
	if (shown)
		return 0;
	if (!id) {
		if (quiet != 1)
			fprintf(out, "No job steps in the system\n");
		return 0;
	}
	if (quiet != 1) {
		step_word(want.step_id, word, sizeof(word));
		if (want.array_id == NO_VAL)
			fprintf(out, "Job step %u.%s not found\n", want.job_id, word);
		else
			fprintf(out, "Job step %u_%u.%s not found\n", want.job_id, want.array_id,
				word);
	}
	return -ENOENT;
}
