/* srun_opt.h - srun's options: the shared job model (job_opt.h) plus what
 * only srun has (labels, I/O routing, signals, step flags), from the
 * command line over srun's input variables (SLURM_NTASKS, SLURM_NNODES,
 * SRUN_CPUS_PER_TASK, ...). Inside an allocation (SLURM_JOB_ID or
 * --jobid) the job's SLURM_NNODES/SLURM_NTASKS act as -N/-n defaults and
 * SLURM_JOB_NAME is not a -J, as in Slurm.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "cli/job_opt.h"
#include "common/task_map.h"

struct srun_opts {
	struct job_opts job;		 /* -n -N -c -p -t --mem -w -x -J ... */
	char *ofname, *efname, *ifname;	 /* -o -e -i as given, NULL */
	char *mpi, *cpu_bind, *distribution, *hint;
	char *task_prolog, *task_epilog; /* --task-prolog, --task-epilog: run by the stepd */
	char *prolog, *epilog;		 /* --prolog, --epilog: run here (SrunProlog, SrunEpilog) */
	enum task_dist task_dist;	 /* -m's node level */
	uint16_t plane_size;		 /* plane=N */
	char *task_nodes;		 /* arbitrary: the node of each task (hostlist,
					  * task order, repeats kept) */
	int ntasks_per_socket;		 /* --ntasks-per-socket, 0: not given */
	bool label, unbuffered, kill_bad_exit, disable_status, quit_on_interrupt;
	bool overlap, exact, pty, preserve_env;
	bool multi_prog;		 /* --multi-prog: argv[0] is its file (made absolute) */
	char *multi_prog_path;		 /* ... owned */
	int max_wait;			 /* -W seconds, 0: none */
	int immediate;			 /* -I: seconds to wait for resources, 0: not given */
	int relative;			 /* -r: the step's first node in the allocation, -1 none */
	uint32_t jobid;			 /* --jobid / SLURM_JOB_ID, 0: none */
	char **argv;			 /* the command, borrowed from main's argv */
	int argc;
};

/* Parse and verify. Returns 0, JOB_OPT_STOP (help/usage/version printed
 * by the caller with srun_opt_print_stop()) or < 0 with err. Lines that
 * are warnings ("can't run ...") go into info (size n). */
int srun_opt_parse(struct srun_opts *s, int argc, char **argv, char *const *envp, char *info,
		   size_t n, struct job_opt_err *err);
void srun_opt_print_stop(const struct srun_opts *s);
void srun_opts_done(struct srun_opts *s);
