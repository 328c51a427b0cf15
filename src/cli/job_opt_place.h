/* job_opt_place.h - parsers of the options that change where or how a
 * job runs beyond its counts (job_opt_place.c), for job_opt_table.c.
 */
#pragma once

struct job_opts;
struct job_opt_err;

#define PLACE_PARSER(fn) int fn(struct job_opts *o, const char *arg, struct job_opt_err *e)
PLACE_PARSER(job_opt_p_tmp);
PLACE_PARSER(job_opt_p_mincpus);
PLACE_PARSER(job_opt_p_sockets_per_node);
PLACE_PARSER(job_opt_p_cores_per_socket);
PLACE_PARSER(job_opt_p_extra_node_info);
PLACE_PARSER(job_opt_p_priority);
PLACE_PARSER(job_opt_p_uid);
PLACE_PARSER(job_opt_p_gid);
PLACE_PARSER(job_opt_p_nodefile);
PLACE_PARSER(job_opt_p_ntasks_per_core);
PLACE_PARSER(job_opt_p_mem_bind);
PLACE_PARSER(job_opt_p_use_min_nodes);
/* refused: each names its option in the error */
PLACE_PARSER(job_opt_p_contiguous);
PLACE_PARSER(job_opt_p_core_spec);
PLACE_PARSER(job_opt_p_thread_spec);
PLACE_PARSER(job_opt_p_threads_per_core);
PLACE_PARSER(job_opt_p_switches);
PLACE_PARSER(job_opt_p_overcommit);
PLACE_PARSER(job_opt_p_spread_job);
PLACE_PARSER(job_opt_p_cpu_freq);
PLACE_PARSER(job_opt_p_gpu_freq);
PLACE_PARSER(job_opt_p_deadline);
PLACE_PARSER(job_opt_p_batch);
PLACE_PARSER(job_opt_p_reboot);
PLACE_PARSER(job_opt_p_container);
PLACE_PARSER(job_opt_p_context);
#undef PLACE_PARSER

/* The --nodefile's host list, read as the user (the command runs as
 * them): names separated by white space or commas, at most
 * JOB_OPT_NODEFILE_MAX bytes. 0 with *ret (malloc'd, comma joined) or a
 * negative errno. */
#define JOB_OPT_NODEFILE_MAX (64 * 1024)
int job_opt_read_nodefile(const char *path, char **ret);
