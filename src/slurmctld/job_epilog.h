/* job_epilog.h - a job's nodes run their Epilog (slurm.conf Epilog=)
 * before they take other work, as Slurm's do.
 *
 * With an Epilog configured, a job that ends (or is requeued) keeps
 * COMPLETING, and each of its nodes the COMPLETING flag (no new job
 * placed there), until that node's slurmd sends MESSAGE_EPILOG_COMPLETE;
 * an Epilog that failed drains the node ("Epilog error"). The nodes
 * still waited for are journaled with the job; a node that does not
 * report is asked again (REQUEST_TERMINATE_JOB) when it answers a ping,
 * and a node that goes DOWN is waited for no more. Without an Epilog,
 * nothing here happens: a job ends when its script reports.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct ctld;
struct epilog_complete_msg;
struct job;
struct signal_job_msg;

/* The job's nodes (job->alloc) run their Epilog now: each that is up
 * is waited for (job COMPLETING) and told REQUEST_TERMINATE_JOB. Nothing
 * without an Epilog, or while it waits already. The caller journals the
 * job (job_changed). */
void job_epilog_start(struct ctld *c, struct job *job);
/* MESSAGE_EPILOG_COMPLETE from node_name: 0, or ESLURM_INVALID_JOB_ID
 * when that job waits for no Epilog there (a late duplicate). */
int job_epilog_complete(struct ctld *c, const struct epilog_complete_msg *m);
/* The job and the place in its list of nodes owing a Prolog
 * (is_prolog: prolog_nodes) or an Epilog (epilog_nodes) of the node a
 * report (MESSAGE_EPILOG_COMPLETE, REQUEST_COMPLETE_PROLOG) names: 0, or
 * ESLURM_INVALID_JOB_ID when the job, the node, or the node in that list
 * is unknown. */
int job_node_report(struct ctld *c, const struct epilog_complete_msg *m, bool is_prolog,
		    struct job **ret_job, uint32_t *ret_k);
/* The node (index) went DOWN: no job waits for its Epilog any more. */
void job_epilog_node_down(struct ctld *c, uint32_t node_index);
/* The node answered a ping: the Epilogs it still owes, asked again. */
void job_epilog_node_alive(struct ctld *c, uint32_t node_index, time_t now);
/* After the jobs were loaded: the waits they carry count on their nodes
 * again; each node is asked again when it first answers. */
void job_epilog_recover(struct ctld *c);
/* What a terminate of the whole job tells the node's Epilog (the
 * signal_job_msg's facts; strings borrowed from job). */
void job_epilog_facts(const struct job *job, struct signal_job_msg *m);
