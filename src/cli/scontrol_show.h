/* scontrol_show.h - scontrol's "Key=Value" records as pure renderers.
 *
 * Each function writes one record exactly as Slurm 22.05's scontrol does:
 * several lines indented by three spaces and a blank line after the
 * record, or one line with -o (fields separated by single spaces, ending
 * in "\n"). Times print in local time. Nothing here talks to a daemon.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct build_info_msg;
struct job_info;
struct node_info;
struct part_info;

struct scontrol_show_opts {
	bool one_liner;	      /* -o */
	bool details;	      /* -d: GresUsed= for nodes; per-node lines for jobs */
	uint16_t slurmd_port; /* SlurmdPort: Port= prints only when different */
	time_t now;	      /* jobs' RunTime; 0: time(NULL) */
};

/* "NodeName=..." record (scontrol show node). State= shows MIXED when only
 * part of the CPUs is allocated, as scontrol derives it. */
void scontrol_show_node(FILE *out, const struct node_info *n, const struct scontrol_show_opts *o);

/* "JobId=..." record (scontrol show job), Slurm's _sprint_job_info().
 * Fields our job_info does not carry print what Slurm prints for a job
 * without them (Reboot=0, Deadline=N/A, DelayBoot=00:00:00, Power=,
 * Scheduler=Main). With details, a job with nodes adds "JOB_GRES=" and
 * one "  Nodes=... CPU_IDs=... Mem=... GRES=" line per group of alike
 * nodes, CPU ids counted from 0 on each node (we do not know which). */
void scontrol_show_job(FILE *out, const struct job_info *j, const struct scontrol_show_opts *o);

/* "PartitionName=..." record (scontrol show partition). */
void scontrol_show_part(FILE *out, const struct part_info *p, const struct scontrol_show_opts *o);

/* "Configuration data as of <time>" and one "%-23s = %s" line per pair
 * (NULL value prints "(null)"), in the order the controller sent them.
 * The trailing blank line and ping lines are the caller's. */
void scontrol_show_config(FILE *out, const struct build_info_msg *b);

/* "show hostnames EXPR": every host of the expression, one per line.
 * Returns 0, or -EINVAL after "Invalid hostlist: EXPR" on stderr. */
int scontrol_show_hostnames(FILE *out, const char *expr);

/* "show hostlist[sorted] LIST": the names compressed ("g[1-2],n[1-4]"),
 * sorted first when asked. A LIST starting with '/' names a file of host
 * names (newlines count as commas). Returns 0, or -EINVAL / -ENOENT after
 * scontrol's message on stderr. */
int scontrol_show_hostlist(FILE *out, const char *list, bool sorted);
