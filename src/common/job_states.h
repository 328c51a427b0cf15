/* job_states.h - job states and pending/failure reasons with Slurm's names.
 *
 * A job state is a base state in the low byte plus flag bits, with the
 * numbers of Slurm 22.05. Reasons are our own numbering (they never leave
 * our protocol) with Slurm's names, which users see.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

enum job_state_base {
	JOB_PENDING = 0,
	JOB_RUNNING = 1,
	JOB_SUSPENDED = 2,
	JOB_COMPLETE = 3,
	JOB_CANCELLED = 4,
	JOB_FAILED = 5,
	JOB_TIMEOUT = 6,
	JOB_NODE_FAIL = 7,
	JOB_PREEMPTED = 8,
	JOB_BOOT_FAIL = 9,
	JOB_DEADLINE = 10,
	JOB_OOM = 11,
	_JOB_STATE_BASE_MAX,
};
#define JOB_STATE_BASE	  0x000000ffu
#define JOB_STATE_FLAGS	  0xffffff00u
#define JOB_LAUNCH_FAILED 0x00000100u
#define JOB_REQUEUE	  0x00000400u
#define JOB_REQUEUE_HOLD  0x00000800u
#define JOB_SPECIAL_EXIT  0x00001000u
#define JOB_RESIZING	  0x00002000u
#define JOB_CONFIGURING	  0x00004000u
#define JOB_COMPLETING	  0x00008000u
#define JOB_STOPPED	  0x00010000u
#define JOB_REVOKED	  0x00080000u
#define JOB_REQUEUE_FED	  0x00100000u
#define JOB_RESV_DEL_HOLD 0x00200000u
#define JOB_SIGNALING	  0x00400000u
#define JOB_STAGE_OUT	  0x00800000u

enum job_state_reason {
	WAIT_NO_REASON = 0,    /* "None" */
	WAIT_PRIORITY,	       /* "Priority" */
	WAIT_DEPENDENCY,       /* "Dependency" */
	WAIT_RESOURCES,	       /* "Resources" */
	WAIT_PART_NODE_LIMIT,  /* "PartitionNodeLimit" */
	WAIT_PART_TIME_LIMIT,  /* "PartitionTimeLimit" */
	WAIT_PART_DOWN,	       /* "PartitionDown" */
	WAIT_PART_INACTIVE,    /* "PartitionInactive" */
	WAIT_PART_CONFIG,      /* "PartitionConfig" */
	WAIT_HELD,	       /* "JobHeldAdmin" */
	WAIT_HELD_USER,	       /* "JobHeldUser" */
	WAIT_TIME,	       /* "BeginTime" */
	WAIT_NODE_NOT_AVAIL,   /* "ReqNodeNotAvail" */
	WAIT_DEP_INVALID,      /* "DependencyNeverSatisfied" */
	WAIT_ARRAY_TASK_LIMIT, /* "JobArrayTaskLimit" */
	WAIT_BAD_CONSTRAINTS,  /* "BadConstraints" */
	WAIT_CLEANING,	       /* "Cleaning" */
	WAIT_HELD_MAX_REQUEUE, /* "JobHoldMaxRequeue" */
	FAIL_LAUNCH,	       /* "JobLaunchFailure" */
	FAIL_EXIT_CODE,	       /* "NonZeroExitCode" */
	FAIL_TIMEOUT,	       /* "TimeLimit" */
	FAIL_DOWN_NODE,	       /* "NodeDown" */
	FAIL_OOM,	       /* "OutOfMemory" */
	FAIL_SYSTEM,	       /* "SystemFailure" */
	FAIL_SIGNAL,	       /* "RaisedSignal" (state_desc adds ":9(Killed)") */
	FAIL_BAD_CONSTRAINTS,  /* "BadConstraints" */
	/* Appended later; earlier numbers stay as they were. */
	WAIT_LICENSES,		  /* "Licenses" */
	WAIT_RESERVATION,	  /* "Reservation" */
	WAIT_PROLOG,		  /* "Prolog" */
	FAIL_DEADLINE,		  /* "DeadLine" */
	FAIL_INACTIVE_LIMIT,	  /* "InactiveLimit" */
	FAIL_ACCOUNT,		  /* "InvalidAccount" */
	FAIL_QOS,		  /* "InvalidQOS" */
	WAIT_QOS_NOT_ALLOWED,	  /* "QOSNotAllowed" */
	WAIT_ACCOUNT_NOT_ALLOWED, /* "AccountNotAllowed" */
	WAIT_HELD_LAUNCH_FAILED,  /* "launch failed requeued held" */
	/* association and QOS limits (slurmctld/assoc_limits.c) */
	WAIT_ASSOC_GRP_CPU,	     /* "AssocGrpCpuLimit" */
	WAIT_ASSOC_GRP_MEM,	     /* "AssocGrpMemLimit" */
	WAIT_ASSOC_GRP_NODE,	     /* "AssocGrpNodeLimit" */
	WAIT_ASSOC_GRP_GRES,	     /* "AssocGrpGRES" */
	WAIT_ASSOC_GRP_JOB,	     /* "AssocGrpJobsLimit" */
	WAIT_ASSOC_MAX_JOBS,	     /* "AssocMaxJobsLimit" */
	WAIT_ASSOC_MAX_CPU_PER_JOB,  /* "AssocMaxCpuPerJobLimit" */
	WAIT_ASSOC_MAX_MEM_PER_JOB,  /* "AssocMaxMemPerJob" */
	WAIT_ASSOC_MAX_NODE_PER_JOB, /* "AssocMaxNodePerJobLimit" */
	WAIT_ASSOC_MAX_GRES_PER_JOB, /* "AssocMaxGRESPerJob" */
	WAIT_ASSOC_MAX_WALL_PER_JOB, /* "AssocMaxWallDurationPerJobLimit" */
	WAIT_QOS_GRP_CPU,	     /* "QOSGrpCpuLimit" */
	WAIT_QOS_GRP_MEM,	     /* "QOSGrpMemLimit" */
	WAIT_QOS_GRP_NODE,	     /* "QOSGrpNodeLimit" */
	WAIT_QOS_GRP_GRES,	     /* "QOSGrpGRES" */
	WAIT_QOS_GRP_JOB,	     /* "QOSGrpJobsLimit" */
	WAIT_QOS_MAX_JOB_PER_USER,   /* "QOSMaxJobsPerUserLimit" */
	WAIT_QOS_MAX_CPU_PER_JOB,    /* "QOSMaxCpuPerJobLimit" */
	WAIT_QOS_MAX_MEM_PER_JOB,    /* "QOSMaxMemoryPerJob" */
	WAIT_QOS_MAX_NODE_PER_JOB,   /* "QOSMaxNodePerJobLimit" */
	WAIT_QOS_MAX_GRES_PER_JOB,   /* "QOSMaxGRESPerJob" */
	WAIT_QOS_MAX_WALL_PER_JOB,   /* "QOSMaxWallDurationPerJobLimit" */
	WAIT_RESV_DELETED,	     /* "ReservationDeleted": held when its reservation went */
	_JOB_REASON_MAX,
};

/* "PENDING", "RUNNING", "COMPLETED", "CANCELLED", "FAILED", "TIMEOUT",
 * "NODE_FAIL", "OUT_OF_MEMORY", ...; flags take precedence as Slurm shows
 * them ("COMPLETING", "REQUEUED", ...). Static string. */
const char *job_state_string(uint32_t state);
/* "PD", "R", "CD", "CA", "F", "TO", "NF", "OOM", "CG", ... */
const char *job_state_compact(uint32_t state);
/* Reason name as squeue %r and scontrol Reason= print it; "?" for a
 * number outside the enum. Static string. */
const char *job_reason_string(enum job_state_reason r);
/* Parse a state name or compact code (case-insensitive, exact: "PD",
 * "pending", "CG", "completing"; squeue -t, scancel -t): sets *ret to the
 * base state or to the flag (JOB_COMPLETING, ...) and returns 0, or
 * returns -EINVAL (*ret untouched). */
int job_state_from_string(const char *s, uint32_t *ret);
/* "PENDING,RUNNING,...,COMPLETING,..." every name job_state_from_string()
 * accepts, for squeue's "Valid job states include: ..." line. Static. */
const char *job_state_names(void);
/* True for COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL, PREEMPTED,
 * BOOT_FAIL, DEADLINE, OUT_OF_MEMORY (Slurm's IS_JOB_FINISHED). */
bool job_state_is_finished(uint32_t state);
