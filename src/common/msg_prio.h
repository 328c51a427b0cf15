/* msg_prio.h - REQUEST_PRIORITY_FACTORS / RESPONSE_PRIORITY_FACTORS: the
 * multifactor factors of pending jobs, for sprio.
 */
#pragma once
#include <stdint.h>

struct prio_factors_req {  /* REQUEST_PRIORITY_FACTORS */
	uint32_t *job_ids; /* none: every pending job */
	uint32_t job_id_count;
	uint32_t *uids; /* none: every user */
	uint32_t uid_count;
};

struct prio_job_factors {
	uint32_t job_id, user_id;
	char *partition, *account, *qos;
	uint32_t priority; /* the job's, as squeue shows it */
	uint32_t nice;	   /* NICE_OFFSET based */
	/* normalized factors (0..1 unless a NO_NORMAL_* flag) */
	double age, assoc, fairshare, job_size, part, qos_f;
	uint32_t tres_count; /* = the response's */
	double *tres;
};

struct prio_factors_resp { /* RESPONSE_PRIORITY_FACTORS */
	uint32_t w_age, w_assoc, w_fairshare, w_job_size, w_partition, w_qos;
	uint32_t flags;	     /* PriorityFlags (MAX_TRES changes the TRES sum) */
	uint32_t tres_count; /* PriorityWeightTRES, in its order */
	char **tres_names;
	double *tres_weights;
	uint32_t count;
	struct prio_job_factors *jobs;
};
