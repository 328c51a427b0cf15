/* srun_dist.c - see srun_dist.h. */
#include "cli/srun_dist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/job_opt.h"
#include "cli/srun_opt.h"
#include "common/hostlist.h"
#include "common/macros.h"

/* "arbitrary" in place of the node level of s->distribution. */
static int dist_name_arbitrary(struct srun_opts *s)
{
	const char *rest = s->distribution ? strchr(s->distribution, ':') : NULL;
	char *d;

	if (asprintf(&d, "arbitrary%s", rest ? rest : "") < 0)
		return -ENOMEM;
	free(s->distribution);
	s->distribution = d;
	return 0;
}

int srun_dist_hostfile(struct srun_opts *s, char *const *envp)
{
	const char *f = job_opt_env_get(envp, "SLURM_HOSTFILE");
	char *list;

	if (!f || !*f || s->job.nodelist)
		return 0;
	/* a '/' makes job_opt_verify read it as a file */
	if (asprintf(&list, "%s%s", strchr(f, '/') ? "" : "./", f) < 0)
		return -ENOMEM;
	s->job.nodelist = list;
	s->task_dist = TASK_DIST_ARBITRARY;
	s->plane_size = 0;
	return dist_name_arbitrary(s);
}

/* The first n hosts of hl, compressed: in order (repeats kept) or sorted
 * and unique. */
static char *first_hosts(const struct hostlist *hl, size_t n, bool is_unique)
{
	struct hostlist *h = NULL;
	char *s = NULL;

	if (hostlist_new(NULL, &h) < 0)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (hostlist_push_host(h, hostlist_nth(hl, i)) < 0)
			goto out;
	if (is_unique) {
		hostlist_sort(h);
		hostlist_uniq(h);
	}
	s = hostlist_ranged_string(h);
out:
	hostlist_free(h);
	return s;
}

int srun_dist_arbitrary(struct srun_opts *s, struct job_opt_err *e)
{
	struct job_opts *j = &s->job;
	struct hostlist *hl = NULL;
	char *uniq = NULL;
	size_t n;
	int r;

	if (s->task_dist != TASK_DIST_ARBITRARY)
		return 0;
	if (!j->nodelist || !*j->nodelist) {
		s->task_dist = TASK_DIST_BLOCK; /* Slurm: arbitrary without a list */
		return 0;
	}
	r = hostlist_new(j->nodelist, &hl);
	if (r < 0 || !hostlist_count(hl)) {
		hostlist_free(hl);
		return r == -ENOMEM
			   ? r
			   : job_opt_fail(e, j->prog, JOB_OPT_EXIT_FATAL,
					  "Invalid node list for --distribution=arbitrary");
	}
	n = hostlist_count(hl);
	/* the allocation's SLURM_NTASKS is no -n here: the list counts */
	if (!j->ntasks_set || j->ntasks <= 0 || j->src[JOPT_NTASKS] != JOB_OPT_SRC_CLI) {
		j->ntasks = (int)n;
		j->ntasks_set = true;
	} else if ((size_t)j->ntasks < n) {
		n = (size_t)j->ntasks; /* Slurm: the list's first -n hosts */
	}
	free(s->task_nodes);
	s->task_nodes = first_hosts(hl, n, false);
	uniq = first_hosts(hl, n, true);
	if (uniq) {
		struct hostlist *u = NULL;

		if (hostlist_new(uniq, &u) == 0)
			j->min_nodes = j->max_nodes = (int)hostlist_count(u);
		hostlist_free(u);
		j->nodes_set = true;
		free(j->nodelist);
		j->nodelist = uniq;
	}
	hostlist_free(hl);
	return s->task_nodes && uniq ? 0 : -ENOMEM;
}
