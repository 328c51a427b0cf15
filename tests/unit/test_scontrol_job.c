/* test_scontrol_job.c - scontrol's job verbs against the reference text.
 *
 * The records equal the jobs behind tests/reference/
 * scontrol_show_job_*.txt (2026-12-02, times in UTC, "now" 08:52:13, the
 * moment the running jobs show RunTime=00:00:08 and 00:00:07) and must
 * print byte for byte the same. Only Scheduler=Backfill of the array task
 * differs: job_info carries no "scheduled by backfill" flag, so it prints
 * Scheduler=Main (see the array test). Also covered: show job's filter and
 * its errors, -d's per-node lines, the job id expressions of hold/release
 * and the words of "update JobId=...".
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "render.h"

#include "cli/scontrol_job.h"
#include "cli/scontrol_show.h"
#include "common/job_states.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"

static const char ref_running[] =
    "JobId=11203 JobName=blocker\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294895641 Nice=0 Account=root QOS=normal\n"
    "   JobState=RUNNING Reason=None Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
    "   RunTime=00:00:08 TimeLimit=00:10:00 TimeMin=N/A\n"
    "   SubmitTime=2026-12-02T08:52:04 EligibleTime=2026-12-02T08:52:04\n"
    "   AccrueTime=2026-12-02T08:52:04\n"
    "   StartTime=2026-12-02T08:52:05 EndTime=2026-12-02T09:02:05 Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-02T08:52:05 Scheduler=Main\n"
    "   Partition=gpu-queue AllocNode:Sid=localhost:2214\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=g[1-2]\n"
    "   BatchHost=g1\n"
    "   NumNodes=2 NumCPUs=8 NumTasks=2 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=8,mem=800M,node=2,billing=8,gres/gpu=8\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=NO Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=(null)\n"
    "   WorkDir=/var/lib/slurm/jobs/golden\n"
    "   StdErr=/var/lib/slurm/jobs/golden/slurm-11203.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/var/lib/slurm/jobs/golden/slurm-11203.out\n"
    "   Power=\n"
    "   \n"
    "\n";

static const char ref_pending_resources[] =
    "JobId=11204 JobName=wants_res\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294895640 Nice=0 Account=root QOS=normal\n"
    "   JobState=PENDING Reason=Resources Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
    "   RunTime=00:00:00 TimeLimit=00:05:00 TimeMin=N/A\n"
    "   SubmitTime=2026-12-02T08:52:05 EligibleTime=2026-12-02T08:52:05\n"
    "   AccrueTime=2026-12-02T08:52:05\n"
    "   StartTime=2026-12-02T09:02:05 EndTime=2026-12-02T09:07:05 Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-02T08:52:08 Scheduler=Main\n"
    "   Partition=gpu-queue AllocNode:Sid=localhost:2214\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList= SchedNodeList=g[1-2]\n"
    "   NumNodes=2-2 NumCPUs=2 NumTasks=2 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=2,mem=200M,node=2,billing=2\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=(null)\n"
    "   WorkDir=/var/lib/slurm/jobs/golden\n"
    "   StdErr=/var/lib/slurm/jobs/golden/slurm-11204.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/var/lib/slurm/jobs/golden/slurm-11204.out\n"
    "   Power=\n"
    "   \n"
    "\n";

static const char ref_pending_priority[] =
    "JobId=11205 JobName=wants_pri\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294895639 Nice=0 Account=root QOS=normal\n"
    "   JobState=PENDING Reason=Priority Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
    "   RunTime=00:00:00 TimeLimit=00:05:00 TimeMin=N/A\n"
    "   SubmitTime=2026-12-02T08:52:05 EligibleTime=2026-12-02T08:52:05\n"
    "   AccrueTime=2026-12-02T08:52:05\n"
    "   StartTime=2026-12-02T09:07:00 EndTime=2026-12-02T09:12:00 Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-02T08:52:08 Scheduler=Main\n"
    "   Partition=gpu-queue AllocNode:Sid=localhost:2214\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList= SchedNodeList=g1\n"
    "   NumNodes=1-1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=1,mem=100M,node=1,billing=1\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=(null)\n"
    "   WorkDir=/var/lib/slurm/jobs/golden\n"
    "   StdErr=/var/lib/slurm/jobs/golden/slurm-11205.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/var/lib/slurm/jobs/golden/slurm-11205.out\n"
    "   Power=\n"
    "   \n"
    "\n";

static const char ref_pending_dependency[] =
    "JobId=11206 JobName=wants_dep\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294895638 Nice=0 Account=root QOS=normal\n"
    "   JobState=PENDING Reason=Dependency Dependency=afterok:11203(unfulfilled)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
    "   RunTime=00:00:00 TimeLimit=1-00:00:00 TimeMin=N/A\n"
    "   SubmitTime=2026-12-02T08:52:05 EligibleTime=Unknown\n"
    "   AccrueTime=Unknown\n"
    "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-02T08:52:05 Scheduler=Main\n"
    "   Partition=gpu-queue AllocNode:Sid=localhost:2214\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=\n"
    "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=1,mem=100M,node=1,billing=1\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=(null)\n"
    "   WorkDir=/var/lib/slurm/jobs/golden\n"
    "   StdErr=/var/lib/slurm/jobs/golden/slurm-11206.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/var/lib/slurm/jobs/golden/slurm-11206.out\n"
    "   Power=\n"
    "   \n"
    "\n";

static const char ref_held[] =
    "JobId=11207 JobName=held_user\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=0 Nice=0 Account=root QOS=normal\n"
    "   JobState=PENDING Reason=JobHeldUser Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
    "   RunTime=00:00:00 TimeLimit=1-00:00:00 TimeMin=N/A\n"
    "   SubmitTime=2026-12-02T08:52:05 EligibleTime=Unknown\n"
    "   AccrueTime=Unknown\n"
    "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-02T08:52:05 Scheduler=Main\n"
    "   Partition=cpu-queue AllocNode:Sid=localhost:2214\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=\n"
    "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=1,mem=100M,node=1,billing=1\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=(null)\n"
    "   WorkDir=/var/lib/slurm/jobs/golden\n"
    "   StdErr=/var/lib/slurm/jobs/golden/slurm-11207.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/var/lib/slurm/jobs/golden/slurm-11207.out\n"
    "   Power=\n"
    "   \n"
    "\n";

static const char ref_failed[] =
    "JobId=11199 JobName=fail_job\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294895645 Nice=0 Account=root QOS=normal\n"
    "   JobState=FAILED Reason=NonZeroExitCode Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=3:0\n"
    "   RunTime=00:00:00 TimeLimit=1-00:00:00 TimeMin=N/A\n"
    "   SubmitTime=2026-12-02T08:52:01 EligibleTime=2026-12-02T08:52:01\n"
    "   AccrueTime=2026-12-02T08:52:01\n"
    "   StartTime=2026-12-02T08:52:02 EndTime=2026-12-02T08:52:02 Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-02T08:52:02 Scheduler=Main\n"
    "   Partition=cpu-queue AllocNode:Sid=localhost:2214\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=n1\n"
    "   BatchHost=n1\n"
    "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=1,mem=100M,node=1,billing=1\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=(null)\n"
    "   WorkDir=/var/lib/slurm/jobs/golden\n"
    "   StdErr=/var/lib/slurm/jobs/golden/fail-11199.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/var/lib/slurm/jobs/golden/fail-11199.out\n"
    "   Power=\n"
    "   \n"
    "\n";

static const char ref_completed[] =
    "JobId=11201 JobName=ok_job\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294895643 Nice=0 Account=root QOS=normal\n"
    "   JobState=COMPLETED Reason=None Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
    "   RunTime=00:00:02 TimeLimit=1-00:00:00 TimeMin=N/A\n"
    "   SubmitTime=2026-12-02T08:52:01 EligibleTime=2026-12-02T08:52:01\n"
    "   AccrueTime=2026-12-02T08:52:01\n"
    "   StartTime=2026-12-02T08:52:02 EndTime=2026-12-02T08:52:04 Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-02T08:52:02 Scheduler=Main\n"
    "   Partition=cpu-queue AllocNode:Sid=localhost:2214\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=n1\n"
    "   BatchHost=n1\n"
    "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=1,mem=100M,node=1,billing=1\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=(null)\n"
    "   WorkDir=/var/lib/slurm/jobs/golden\n"
    "   StdErr=/var/lib/slurm/jobs/golden/ok-11201.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/var/lib/slurm/jobs/golden/ok-11201.out\n"
    "   Power=\n"
    "   \n"
    "\n";

static const char ref_array_task[] =
    "JobId=11210 ArrayJobId=11209 ArrayTaskId=1 ArrayTaskThrottle=2 JobName=arr\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294895636 Nice=0 Account=root QOS=normal\n"
    "   JobState=RUNNING Reason=None Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
    "   RunTime=00:00:07 TimeLimit=1-00:00:00 TimeMin=N/A\n"
    "   SubmitTime=2026-12-02T08:52:05 EligibleTime=2026-12-02T08:52:06\n"
    "   AccrueTime=Unknown\n"
    "   StartTime=2026-12-02T08:52:06 EndTime=2026-12-03T08:52:06 Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-02T08:52:06 Scheduler=Backfill\n"
    "   Partition=cpu-queue AllocNode:Sid=localhost:2214\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=n1\n"
    "   BatchHost=n1\n"
    "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=1,mem=100M,node=1,billing=1\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=(null)\n"
    "   WorkDir=/var/lib/slurm/jobs/golden\n"
    "   StdErr=/var/lib/slurm/jobs/golden/arr-11209_1.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/var/lib/slurm/jobs/golden/arr-11209_1.out\n"
    "   Power=\n"
    "   \n"
    "\n";

static const char ref_array_pending[] =
    "JobId=11209 ArrayJobId=11209 ArrayTaskId=3-20%2 ArrayTaskThrottle=2 JobName=arr\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294895636 Nice=0 Account=root QOS=normal\n"
    "   JobState=PENDING Reason=JobArrayTaskLimit Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
    "   RunTime=00:00:00 TimeLimit=1-00:00:00 TimeMin=N/A\n"
    "   SubmitTime=2026-12-02T08:52:05 EligibleTime=Unknown\n"
    "   AccrueTime=Unknown\n"
    "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-02T08:52:06 Scheduler=Main\n"
    "   Partition=cpu-queue AllocNode:Sid=localhost:2214\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=\n"
    "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=1,mem=100M,node=1,billing=1\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=(null)\n"
    "   WorkDir=/var/lib/slurm/jobs/golden\n"
    "   StdErr=/var/lib/slurm/jobs/golden/arr-11209_4294967294.out\n"
    "   StdIn=/dev/null\n"
    "   StdOut=/var/lib/slurm/jobs/golden/arr-11209_4294967294.out\n"
    "   Power=\n"
    "   \n"
    "\n"
    "JobId=11211 ArrayJobId=11209 ArrayTaskId=2 ArrayTaskThrottle=2 JobName=arr\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294895636 Nice=0 Account=root QOS=normal\n"
    "   JobState=RUNNING Reason=None Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
    "   RunTime=00:00:07 TimeLimit=1-00:00:00 TimeMin=N/A\n"
    "   SubmitTime=2026-12-02T08:52:05 EligibleTime=2026-12-02T08:52:06\n"
    "   AccrueTime=Unknown\n"
    "   StartTime=2026-12-02T08:52:06 EndTime=2026-12-03T08:52:06 Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-02T08:52:06 Scheduler=Backfill\n"
    "   Partition=cpu-queue AllocNode:Sid=localhost:2214\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=n1\n";

static const char ref_oneliner[] =
    "JobId=11203 JobName=blocker UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294895641 "
    "Nice=0 Account=root QOS=normal JobState=RUNNING Reason=None Dependency=(null) Requeue=1 "
    "Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:08 TimeLimit=00:10:00 TimeMin=N/A "
    "SubmitTime=2026-12-02T08:52:04 EligibleTime=2026-12-02T08:52:04 "
    "AccrueTime=2026-12-02T08:52:04 StartTime=2026-12-02T08:52:05 EndTime=2026-12-02T09:02:05 "
    "Deadline=N/A SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-02T08:52:05 "
    "Scheduler=Main Partition=gpu-queue AllocNode:Sid=localhost:2214 ReqNodeList=(null) "
    "ExcNodeList=(null) NodeList=g[1-2] BatchHost=g1 NumNodes=2 NumCPUs=8 NumTasks=2 CPUs/Task=1 "
    "ReqB:S:C:T=0:0:*:* TRES=cpu=8,mem=800M,node=2,billing=8,gres/gpu=8 Socks/Node=* "
    "NtasksPerN:B:S:C=0:0:*:* CoreSpec=* MinCPUsNode=1 MinMemoryCPU=100M MinTmpDiskNode=0 "
    "Features=(null) DelayBoot=00:00:00 OverSubscribe=NO Contiguous=0 Licenses=(null) "
    "Network=(null) Command=(null) WorkDir=/var/lib/slurm/jobs/golden "
    "StdErr=/var/lib/slurm/jobs/golden/slurm-11203.out StdIn=/dev/null "
    "StdOut=/var/lib/slurm/jobs/golden/slurm-11203.out Power= \n";

#define DIR	"/var/lib/slurm/jobs/golden"
#define PRIO(n) (4294895600u + (n))

/* A time in December 2026, UTC. */
static time_t dec(int d, int h, int mi, int s)
{
	return utc(2026, 12, d, h, mi, s);
}

/* What every reference job shares: root, 1 task of 1 CPU, 100M per CPU. */
static struct job_info job(uint32_t id, const char *name, const char *part, uint32_t prio,
			   uint32_t state, uint32_t limit, const char *out)
{
	return (struct job_info){
	    .job_id = id,
	    .array_task_id = NO_VAL,
	    .name = (char *)name,
	    .user_name = "root",
	    .group_name = "root",
	    .priority = prio,
	    .nice = NICE_OFFSET,
	    .account = "root",
	    .qos = "normal",
	    .job_state = state,
	    .requeue = 1,
	    .batch_flag = 1,
	    .time_limit = limit,
	    .time_min = NO_VAL,
	    .partition = (char *)part,
	    .alloc_node = "localhost",
	    .alloc_sid = 2214,
	    .num_nodes = 1,
	    .num_cpus = 1,
	    .num_tasks = 1,
	    .cpus_per_task = 1,
	    .tres_req_str = "cpu=1,mem=100M,node=1,billing=1",
	    .pn_min_cpus = 1,
	    .pn_min_memory = 100 | MEM_PER_CPU,
	    .shared = 1,
	    .work_dir = DIR,
	    .std_in = "/dev/null",
	    .std_out = (char *)out,
	    .std_err = (char *)out,
	};
}

static void times(struct job_info *j, time_t submit, time_t eligible, time_t start, time_t end,
		  time_t eval)
{
	j->submit_time = submit;
	j->eligible_time = eligible;
	j->accrue_time = eligible;
	j->start_time = start;
	j->end_time = end;
	j->last_sched_eval = eval;
}

static void ran_on(struct job_info *j, const char *nodes, const char *host)
{
	j->nodes = (char *)nodes;
	j->batch_host = (char *)host;
	j->tres_alloc_str = j->tres_req_str;
}

static struct job_info blocker(void)
{
	struct job_info j =
	    job(11203, "blocker", "gpu-queue", PRIO(41), JOB_RUNNING, 10, DIR "/slurm-11203.out");

	times(&j, dec(2, 8, 52, 4), dec(2, 8, 52, 4), dec(2, 8, 52, 5), dec(2, 9, 2, 5),
	      dec(2, 8, 52, 5));
	ran_on(&j, "g[1-2]", "g1");
	j.num_nodes = 2, j.num_cpus = 8, j.num_tasks = 2, j.shared = 0;
	j.tres_alloc_str = "cpu=8,mem=800M,node=2,billing=8,gres/gpu=8";
	return j;
}

static struct job_info pending(uint32_t id, const char *name, uint32_t prio, uint32_t limit,
			       enum job_state_reason why)
{
	char *out = NULL;
	struct job_info j;

	assert_true(asprintf(&out, DIR "/slurm-%u.out", id) > 0);
	j = job(id, name, "gpu-queue", prio, JOB_PENDING, limit, out);
	j.state_reason = (uint16_t)why;
	times(&j, dec(2, 8, 52, 5), 0, 0, 0, dec(2, 8, 52, 5));
	return j;
}

static void pending_done(struct job_info *j)
{
	free(j->std_out);
}

static struct job_info array_meta(void)
{
	struct job_info j = job(11209, "arr", "cpu-queue", PRIO(36), JOB_PENDING, 1440,
				DIR "/arr-11209_4294967294.out");

	j.array_job_id = 11209;
	j.array_task_str = "3-20";
	j.array_max_tasks = 2;
	j.state_reason = WAIT_ARRAY_TASK_LIMIT;
	times(&j, dec(2, 8, 52, 5), 0, 0, 0, dec(2, 8, 52, 6));
	return j;
}

static struct job_info array_task(uint32_t id, uint32_t task, const char *out)
{
	struct job_info j = job(id, "arr", "cpu-queue", PRIO(36), JOB_RUNNING, 1440, out);

	j.array_job_id = 11209;
	j.array_task_id = task;
	j.array_max_tasks = 2;
	times(&j, dec(2, 8, 52, 5), dec(2, 8, 52, 6), dec(2, 8, 52, 6), dec(3, 8, 52, 6),
	      dec(2, 8, 52, 6));
	j.accrue_time = 0;
	ran_on(&j, "n1", "n1");
	return j;
}

static const struct scontrol_show_opts multi = {.slurmd_port = 6818};

static struct scontrol_show_opts at_now(bool one_liner, bool details)
{
	struct scontrol_show_opts o = multi;

	o.one_liner = one_liner;
	o.details = details;
	o.now = dec(2, 8, 52, 13);
	return o;
}

static void test_running_and_oneliner(void **state)
{
	struct scontrol_show_opts o = at_now(false, false);
	struct job_info j = blocker();

	(void)state;
	check_render(RENDER(scontrol_show_job(out, &j, &o)), ref_running);
	o.one_liner = true;
	check_render(RENDER(scontrol_show_job(out, &j, &o)), ref_oneliner);
}

static void test_pending_jobs(void **state)
{
	struct scontrol_show_opts o = at_now(false, false);
	struct job_info res = pending(11204, "wants_res", PRIO(40), 5, WAIT_RESOURCES);
	struct job_info pri = pending(11205, "wants_pri", PRIO(39), 5, WAIT_PRIORITY);
	struct job_info dep = pending(11206, "wants_dep", PRIO(38), 1440, WAIT_DEPENDENCY);
	struct job_info held = pending(11207, "held_user", 0, 1440, WAIT_HELD_USER);

	(void)state;
	times(&res, dec(2, 8, 52, 5), dec(2, 8, 52, 5), dec(2, 9, 2, 5), dec(2, 9, 7, 5),
	      dec(2, 8, 52, 8));
	res.sched_nodes = "g[1-2]";
	res.num_nodes = res.max_nodes = 2, res.num_cpus = res.num_tasks = 2;
	res.tres_req_str = "cpu=2,mem=200M,node=2,billing=2";
	check_render(RENDER(scontrol_show_job(out, &res, &o)), ref_pending_resources);
	times(&pri, dec(2, 8, 52, 5), dec(2, 8, 52, 5), dec(2, 9, 7, 0), dec(2, 9, 12, 0),
	      dec(2, 8, 52, 8));
	pri.sched_nodes = "g1";
	pri.max_nodes = 1;
	check_render(RENDER(scontrol_show_job(out, &pri, &o)), ref_pending_priority);
	dep.dependency = "afterok:11203(unfulfilled)";
	check_render(RENDER(scontrol_show_job(out, &dep, &o)), ref_pending_dependency);
	held.partition = "cpu-queue";
	check_render(RENDER(scontrol_show_job(out, &held, &o)), ref_held);
	pending_done(&res), pending_done(&pri), pending_done(&dep), pending_done(&held);
}

static void test_finished_jobs(void **state)
{
	struct scontrol_show_opts o = at_now(false, false);
	struct job_info fail =
	    job(11199, "fail_job", "cpu-queue", PRIO(45), JOB_FAILED, 1440, DIR "/fail-11199.out");
	struct job_info ok =
	    job(11201, "ok_job", "cpu-queue", PRIO(43), JOB_COMPLETE, 1440, DIR "/ok-11201.out");

	(void)state;
	times(&fail, dec(2, 8, 52, 1), dec(2, 8, 52, 1), dec(2, 8, 52, 2), dec(2, 8, 52, 2),
	      dec(2, 8, 52, 2));
	ran_on(&fail, "n1", "n1");
	fail.state_reason = FAIL_EXIT_CODE;
	fail.exit_code = 3 << 8;
	check_render(RENDER(scontrol_show_job(out, &fail, &o)), ref_failed);
	times(&ok, dec(2, 8, 52, 1), dec(2, 8, 52, 1), dec(2, 8, 52, 2), dec(2, 8, 52, 4),
	      dec(2, 8, 52, 2));
	ran_on(&ok, "n1", "n1");
	check_render(RENDER(scontrol_show_job(out, &ok, &o)), ref_completed);
}

/* show job 11209 (the meta record and its tasks, in the controller's
 * order) and show job 11209_1. */
static void test_arrays(void **state)
{
	struct scontrol_show_opts o = at_now(false, false);
	struct job_info j[3] = {array_meta(), array_task(11211, 2, DIR "/arr-11209_2.out"),
				array_task(11210, 1, DIR "/arr-11209_1.out")};
	struct job_info_msg m = {.count = 3, .jobs = j};
	char *want = strdup(ref_array_task), *p, *got;

	(void)state;
	assert_non_null(want);
	p = strstr(want, "Scheduler=Backfill");
	assert_non_null(p);
	memmove(p + strlen("Scheduler=Main"), p + strlen("Scheduler=Backfill"),
		strlen(p + strlen("Scheduler=Backfill")) + 1);
	memcpy(p, "Scheduler=Main", strlen("Scheduler=Main"));
	check_render(RENDER(assert_int_equal(scontrol_job_print(out, &m, "11209_1", &o, 0), 0)), want);
	free(want);
	got = RENDER(assert_int_equal(scontrol_job_print(out, &m, "11209", &o, 0), 0));
	/* the reference is "| head -40": its last line is Backfill's too */
	p = strstr(ref_array_pending, "Scheduler=Backfill");
	assert_non_null(p);
	assert_memory_equal(got, ref_array_pending, (size_t)(p - ref_array_pending));
	free(got);
}

static void test_show_job_filter_and_errors(void **state)
{
	struct scontrol_show_opts o = at_now(true, false);
	struct job_info j[2] = {array_meta(), blocker()};
	struct job_info_msg m = {.count = 2, .jobs = j}, none = {.count = 0};
	char *got;

	(void)state;
	got = RENDER(assert_int_equal(scontrol_job_print(out, &m, "11209_5", &o, 0), 0));
	assert_non_null(strstr(got, "JobId=11209 ArrayJobId=11209 ArrayTaskId=5 "
				    "ArrayTaskThrottle=2 JobName=arr "));
	assert_null(strstr(got, "11203"));
	free(got);
	check_render(RENDER(assert_int_equal(scontrol_job_print(out, &m, "99999999", &o, 0),
				      -ESLURM_INVALID_JOB_ID)),
	      "");
	check_render(RENDER(assert_int_equal(scontrol_job_print(out, &m, "11209_99", &o, 0), -ENOENT)),
	      "Job 11209_99 not found\n");
	check_render(RENDER(assert_int_equal(scontrol_job_print(out, &m, "11209_99", &o, 1), -ENOENT)),
	      "");
	check_render(RENDER(assert_int_equal(scontrol_job_print(out, &none, NULL, &o, 0), 0)),
	      "No jobs in the system\n");
	got = RENDER(assert_int_equal(scontrol_job_print(out, &m, NULL, &o, 0), 0));
	assert_non_null(strstr(got, "JobId=11203 JobName=blocker"));
	free(got);
	assert_true(scontrol_job_id_valid("11209_3"));
	assert_false(scontrol_job_id_valid("abc"));
	assert_false(scontrol_job_id_valid(""));
}

/* -d: DerivedExitCode, JOB_GRES and one line per group of alike nodes;
 * a blank in a state_desc reads as '_'. */
static void test_details(void **state)
{
	struct scontrol_show_opts o = at_now(true, true);
	struct job_info j = blocker();
	char *got;

	(void)state;
	j.cpus_per_node = "4(x2)";
	j.gres_detail = "gpu:4(IDX:0-3);gpu:4(IDX:0-3)";
	got = RENDER(scontrol_show_job(out, &j, &o));
	assert_non_null(strstr(got, " ExitCode=0:0 DerivedExitCode=0:0 RunTime="));
	assert_non_null(strstr(got, " CoreSpec=* JOB_GRES=gpu:8 "
				    "  Nodes=g[1-2] CPU_IDs=0-3 Mem=400 GRES=gpu:4(IDX:0-3) "
				    "MinCPUsNode=1 "));
	free(got);
	j.gres_detail = "gpu:4(IDX:0-3);gpu:2(IDX:0-1)";
	j.state_desc = "ReqNodeNotAvail, UnavailableNodes:n[1-2]";
	o.one_liner = false;
	got = RENDER(scontrol_show_job(out, &j, &o));
	assert_non_null(strstr(got, "\n     Nodes=g1 CPU_IDs=0-3 Mem=400 GRES=gpu:4(IDX:0-3)\n"
				    "     Nodes=g2 CPU_IDs=0-3 Mem=400 GRES=gpu:2(IDX:0-1)\n"));
	assert_non_null(strstr(got, "Reason=ReqNodeNotAvail,_UnavailableNodes:n[1-2] "));
	free(got);
}

/* Optional lines: Comment after WorkDir, TresPerNode and MailUser after
 * Power; unlimited limits; a job not yet given a node range. */
static void test_optional_lines(void **state)
{
	struct scontrol_show_opts o = at_now(true, false);
	struct job_info j = blocker();
	char *got;

	(void)state;
	j.comment = "hello";
	j.tres_per_node = "gres/gpu:2";
	j.mail_user = "root";
	j.mail_type = MAIL_JOB_BEGIN | MAIL_JOB_END;
	j.time_limit = INFINITE;
	j.end_time = dec(9, 0, 0, 0);
	j.nice = NICE_OFFSET - 5;
	got = RENDER(scontrol_show_job(out, &j, &o));
	assert_non_null(strstr(got, "WorkDir=" DIR " Comment=hello  StdErr="));
	assert_non_null(strstr(got, " Power= TresPerNode=gres:gpu:2 MailUser=root "
				    "MailType=BEGIN,END \n"));
	assert_non_null(strstr(got, "TimeLimit=UNLIMITED TimeMin=N/A"));
	assert_non_null(strstr(got, "EndTime=Unknown Deadline=N/A"));
	assert_non_null(strstr(got, "Nice=-5 "));
	free(got);
}

static void expect_ids(const char *expr, const char *want)
{
	char **v = NULL, *joined = NULL;
	size_t n = 0, len = 0;
	FILE *f = open_memstream(&joined, &len);

	assert_non_null(f);
	assert_int_equal(scontrol_job_ids(expr, &v, &n), 0);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "|" : "", v[i]);
	fclose(f);
	assert_string_equal(joined, want);
	free(joined);
	scontrol_job_ids_free(v, n);
}

static void test_job_id_expressions(void **state)
{
	char **v = NULL;
	size_t n = 0;

	(void)state;
	expect_ids("12", "12");
	expect_ids("12,13 14", "12|13|14");
	expect_ids("12_3", "12_3");
	expect_ids("12_[1-3]", "12_1-3");
	expect_ids("12_[1,5]", "12_1,5");
	expect_ids("[12-14]", "12|13|14");
	expect_ids("[12-13]_4,20", "12_4|13_4|20");
	expect_ids("12+1", "12+1");
	assert_int_equal(scontrol_job_ids("abc", &v, &n), -EINVAL);
	assert_int_equal(scontrol_job_ids("12-14", &v, &n), -EINVAL);
	assert_int_equal(scontrol_job_ids("12__3", &v, &n), -EINVAL);
	assert_int_equal(scontrol_job_ids("12_[3", &v, &n), -EINVAL);
	assert_int_equal(scontrol_job_ids("", &v, &n), -EINVAL);
	assert_true(scontrol_job_requeue_flag("Incomplete"));
	assert_true(scontrol_job_requeue_flag("State=SpecialExit"));
	assert_false(scontrol_job_requeue_flag("12"));
}

static int parse(char *line, struct update_job_msg *m, int *delta, const char **ids)
{
	char *argv[16];
	int argc = 0;

	for (char *t = strtok(line, " "); t && argc < 16; t = strtok(NULL, " "))
		argv[argc++] = t;
	return scontrol_job_update_parse(argc, argv, m, delta, ids);
}

static void test_update_words(void **state)
{
	struct update_job_msg m;
	const char *ids = NULL;
	int delta = 0;
	char l1[] = "jobid=11205 timelimit=3";
	char l2[] = "JobId 12 Partition=gpu-queue NumNodes=2-3 Name=x Nice=-5 Priority=7";
	char l3[] = "JobId=12 TimeLimit=+1:00:00";
	char l4[] = "Name=x Nice";
	char l5[] = "JobId=12 TimeLimit=abc";
	char l6[] = "JobId=12 Shared=yes";
	char l7[] = "JobId=12";
	char l8[] = "JobId=12 Nice=9999999999";
	char l9[] = "JobId=12 Partition+=p";
	char l10[] = "JobId";

	(void)state;
	assert_int_equal(parse(l1, &m, &delta, &ids), 0);
	assert_string_equal(ids, "11205");
	assert_int_equal(m.time_limit, 3);
	assert_int_equal(delta, 0);
	assert_int_equal(m.priority, NO_VAL);
	assert_int_equal(parse(l2, &m, &delta, &ids), 0);
	assert_string_equal(ids, "12");
	assert_string_equal(m.partition, "gpu-queue");
	assert_int_equal(m.min_nodes, 2);
	assert_int_equal(m.max_nodes, 3);
	assert_string_equal(m.name, "x");
	assert_int_equal(m.nice, NICE_OFFSET - 5);
	assert_int_equal(m.priority, 7);
	assert_int_equal(m.time_limit, NO_VAL);
	assert_int_equal(parse(l3, &m, &delta, &ids), 0);
	assert_int_equal(delta, 1);
	assert_int_equal(m.time_limit, 60);
	assert_int_equal(parse(l4, &m, &delta, &ids), 0);
	assert_null(ids);
	assert_int_equal(m.nice, NICE_OFFSET + 100);
	assert_int_equal(parse(l5, &m, &delta, &ids), -EINVAL);
	assert_int_equal(parse(l6, &m, &delta, &ids), -EINVAL);
	assert_int_equal(parse(l7, &m, &delta, &ids), -EINVAL); /* No changes specified */
	assert_int_equal(parse(l8, &m, &delta, &ids), -EINVAL);
	assert_int_equal(parse(l9, &m, &delta, &ids), -EINVAL);
	assert_int_equal(parse(l10, &m, &delta, &ids), -EINVAL);
}

static int setup(void **state)
{
	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_running_and_oneliner),
	    cmocka_unit_test(test_pending_jobs),
	    cmocka_unit_test(test_finished_jobs),
	    cmocka_unit_test(test_arrays),
	    cmocka_unit_test(test_show_job_filter_and_errors),
	    cmocka_unit_test(test_details),
	    cmocka_unit_test(test_optional_lines),
	    cmocka_unit_test(test_job_id_expressions),
	    cmocka_unit_test(test_update_words),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
