/* job_states.c - job state and reason names as Slurm 22.05 prints them.
 *
 * Purpose: one place for the words squeue, scontrol, scancel and the
 * controller's log use for a job's state and pending/failure reason.
 * Owns: three name tables indexed by enum (R24: designated initializers,
 * a size assert each, a unit test that no slot is NULL) and the flag
 * precedence table: a state with a flag bit shows the first flag in
 * Slurm's order (COMPLETING before STAGE_OUT before CONFIGURING ...).
 */
#include "common/job_states.h"

#include <errno.h>
#include <stddef.h>
#include <strings.h>

#include "common/macros.h"

static const char *const base_names[] = {
    [JOB_PENDING] = "PENDING",	   [JOB_RUNNING] = "RUNNING",	  [JOB_SUSPENDED] = "SUSPENDED",
    [JOB_COMPLETE] = "COMPLETED",  [JOB_CANCELLED] = "CANCELLED", [JOB_FAILED] = "FAILED",
    [JOB_TIMEOUT] = "TIMEOUT",	   [JOB_NODE_FAIL] = "NODE_FAIL", [JOB_PREEMPTED] = "PREEMPTED",
    [JOB_BOOT_FAIL] = "BOOT_FAIL", [JOB_DEADLINE] = "DEADLINE",	  [JOB_OOM] = "OUT_OF_MEMORY",
};
_Static_assert(ARRAY_SIZE(base_names) == _JOB_STATE_BASE_MAX,
	       "base_names[] must name every job_state_base");

static const char *const base_compact[] = {
    [JOB_PENDING] = "PD",   [JOB_RUNNING] = "R",    [JOB_SUSPENDED] = "S", [JOB_COMPLETE] = "CD",
    [JOB_CANCELLED] = "CA", [JOB_FAILED] = "F",	    [JOB_TIMEOUT] = "TO",  [JOB_NODE_FAIL] = "NF",
    [JOB_PREEMPTED] = "PR", [JOB_BOOT_FAIL] = "BF", [JOB_DEADLINE] = "DL", [JOB_OOM] = "OOM",
};
_Static_assert(ARRAY_SIZE(base_compact) == _JOB_STATE_BASE_MAX,
	       "base_compact[] must name every job_state_base");

/* Display precedence of the flag bits, as Slurm's job_state_string(). */
static const struct {
	uint32_t bit;
	const char *name, *compact;
} flags[] = {
    {JOB_COMPLETING, "COMPLETING", "CG"},
    {JOB_STAGE_OUT, "STAGE_OUT", "SO"},
    {JOB_CONFIGURING, "CONFIGURING", "CF"},
    {JOB_RESIZING, "RESIZING", "RS"},
    {JOB_REQUEUE, "REQUEUED", "RQ"},
    {JOB_REQUEUE_FED, "REQUEUE_FED", "RF"},
    {JOB_REQUEUE_HOLD, "REQUEUE_HOLD", "RH"},
    {JOB_SPECIAL_EXIT, "SPECIAL_EXIT", "SE"},
    {JOB_STOPPED, "STOPPED", "ST"},
    {JOB_REVOKED, "REVOKED", "RV"},
    {JOB_RESV_DEL_HOLD, "RESV_DEL_HOLD", "RD"},
    {JOB_SIGNALING, "SIGNALING", "SI"},
};

static const char *const reason_names[] = {
    [WAIT_NO_REASON] = "None",
    [WAIT_PRIORITY] = "Priority",
    [WAIT_DEPENDENCY] = "Dependency",
    [WAIT_RESOURCES] = "Resources",
    [WAIT_PART_NODE_LIMIT] = "PartitionNodeLimit",
    [WAIT_PART_TIME_LIMIT] = "PartitionTimeLimit",
    [WAIT_PART_DOWN] = "PartitionDown",
    [WAIT_PART_INACTIVE] = "PartitionInactive",
    [WAIT_PART_CONFIG] = "PartitionConfig",
    [WAIT_HELD] = "JobHeldAdmin",
    [WAIT_HELD_USER] = "JobHeldUser",
    [WAIT_TIME] = "BeginTime",
    [WAIT_NODE_NOT_AVAIL] = "ReqNodeNotAvail",
    [WAIT_DEP_INVALID] = "DependencyNeverSatisfied",
    [WAIT_ARRAY_TASK_LIMIT] = "JobArrayTaskLimit",
    [WAIT_BAD_CONSTRAINTS] = "BadConstraints",
    [WAIT_CLEANING] = "Cleaning",
    [WAIT_HELD_MAX_REQUEUE] = "JobHoldMaxRequeue",
    [FAIL_LAUNCH] = "JobLaunchFailure",
    [FAIL_EXIT_CODE] = "NonZeroExitCode",
    [FAIL_TIMEOUT] = "TimeLimit",
    [FAIL_DOWN_NODE] = "NodeDown",
    [FAIL_OOM] = "OutOfMemory",
    [FAIL_SYSTEM] = "SystemFailure",
    [FAIL_SIGNAL] = "RaisedSignal",
    [FAIL_BAD_CONSTRAINTS] = "BadConstraints",
    [WAIT_LICENSES] = "Licenses",
    [WAIT_RESERVATION] = "Reservation",
    [WAIT_PROLOG] = "Prolog",
    [FAIL_DEADLINE] = "DeadLine",
    [FAIL_INACTIVE_LIMIT] = "InactiveLimit",
    [FAIL_ACCOUNT] = "InvalidAccount",
    [FAIL_QOS] = "InvalidQOS",
    [WAIT_QOS_NOT_ALLOWED] = "QOSNotAllowed",
    [WAIT_ACCOUNT_NOT_ALLOWED] = "AccountNotAllowed",
    [WAIT_HELD_LAUNCH_FAILED] = "launch failed requeued held",
    [WAIT_ASSOC_GRP_CPU] = "AssocGrpCpuLimit",
    [WAIT_ASSOC_GRP_MEM] = "AssocGrpMemLimit",
    [WAIT_ASSOC_GRP_NODE] = "AssocGrpNodeLimit",
    [WAIT_ASSOC_GRP_GRES] = "AssocGrpGRES",
    [WAIT_ASSOC_GRP_JOB] = "AssocGrpJobsLimit",
    [WAIT_ASSOC_MAX_JOBS] = "AssocMaxJobsLimit",
    [WAIT_ASSOC_MAX_CPU_PER_JOB] = "AssocMaxCpuPerJobLimit",
    [WAIT_ASSOC_MAX_MEM_PER_JOB] = "AssocMaxMemPerJob",
    [WAIT_ASSOC_MAX_NODE_PER_JOB] = "AssocMaxNodePerJobLimit",
    [WAIT_ASSOC_MAX_GRES_PER_JOB] = "AssocMaxGRESPerJob",
    [WAIT_ASSOC_MAX_WALL_PER_JOB] = "AssocMaxWallDurationPerJobLimit",
    [WAIT_QOS_GRP_CPU] = "QOSGrpCpuLimit",
    [WAIT_QOS_GRP_MEM] = "QOSGrpMemLimit",
    [WAIT_QOS_GRP_NODE] = "QOSGrpNodeLimit",
    [WAIT_QOS_GRP_GRES] = "QOSGrpGRES",
    [WAIT_QOS_GRP_JOB] = "QOSGrpJobsLimit",
    [WAIT_QOS_MAX_JOB_PER_USER] = "QOSMaxJobsPerUserLimit",
    [WAIT_QOS_MAX_CPU_PER_JOB] = "QOSMaxCpuPerJobLimit",
    [WAIT_QOS_MAX_MEM_PER_JOB] = "QOSMaxMemoryPerJob",
    [WAIT_QOS_MAX_NODE_PER_JOB] = "QOSMaxNodePerJobLimit",
    [WAIT_QOS_MAX_GRES_PER_JOB] = "QOSMaxGRESPerJob",
    [WAIT_QOS_MAX_WALL_PER_JOB] = "QOSMaxWallDurationPerJobLimit",
    [WAIT_RESV_DELETED] = "ReservationDeleted",
};
_Static_assert(ARRAY_SIZE(reason_names) == _JOB_REASON_MAX,
	       "reason_names[] must name every job_state_reason");

const char *job_state_string(uint32_t state)
{
	uint32_t base = state & JOB_STATE_BASE;

	for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
		if (state & flags[i].bit)
			return flags[i].name;
	return base < _JOB_STATE_BASE_MAX ? base_names[base] : "?";
}

const char *job_state_compact(uint32_t state)
{
	uint32_t base = state & JOB_STATE_BASE;

	for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
		if (state & flags[i].bit)
			return flags[i].compact;
	return base < _JOB_STATE_BASE_MAX ? base_compact[base] : "?";
}

const char *job_reason_string(enum job_state_reason r)
{
	return (unsigned)r < _JOB_REASON_MAX && reason_names[r] ? reason_names[r] : "?";
}

int job_state_from_string(const char *s, uint32_t *ret)
{
	if (!s)
		return -EINVAL;
	for (uint32_t i = 0; i < _JOB_STATE_BASE_MAX; i++) {
		if (!strcasecmp(s, base_names[i]) || !strcasecmp(s, base_compact[i])) {
			*ret = i;
			return 0;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++) {
		if (!strcasecmp(s, flags[i].name) || !strcasecmp(s, flags[i].compact)) {
			*ret = flags[i].bit;
			return 0;
		}
	}
	return -EINVAL;
}

const char *job_state_names(void)
{
	/* Slurm's list: every base state, then the flags squeue names. */
	return "PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,TIMEOUT,"
	       "NODE_FAIL,PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,"
	       "CONFIGURING,RESIZING,RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,REQUEUE_HOLD,"
	       "REVOKED,SIGNALING,SPECIAL_EXIT,STAGE_OUT,STOPPED";
}

bool job_state_is_finished(uint32_t state)
{
	return (state & JOB_STATE_BASE) > JOB_SUSPENDED;
}
