/* pmix_srv.c - see pmix_srv.h.
 *
 * Threads: libpmix runs its own progress thread and calls fence_nb there.
 * The callback copies the node's blob into a request and writes its
 * pointer into a pipe; the stepd's loop reads it, sends the blob to srun
 * (IO_PMI_FENCE chunks) and, when srun's IO_PMI_KVS answer is whole,
 * hands every node's blobs to libpmix's callback (which may be called
 * from any thread). One fence at a time per node, as PMIx orders them.
 */
#include "pmix_srv.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "stepd.h"

#ifndef SL_HAVE_PMIX

#include "env.h"

int pmix_srv_init(struct stepd *s)
{
	const char *type = env_launch_get(s, "SLURM_MPI_TYPE");

	if (s->launch && type && strncmp(type, "pmix", 4) == 0)
		return log_errno(-EPROTONOSUPPORT, "%s: --mpi=pmix: built without libpmix",
				 s->label);
	return 0;
}

int pmix_srv_task_env(struct stepd *s, uint32_t ltid)
{
	(void)s;
	(void)ltid;
	return 0;
}

void pmix_srv_free(struct stepd *s)
{
	(void)s;
}

#else /* SL_HAVE_PMIX */

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/hostlist.h"
#include "common/io_proto.h"
#include "common/job_env.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/safe_fs.h"
#include "env.h"
#include "loop.h"
#include "pmi.h"
#include "proctree.h"
#include "step.h"
#include "step_io.h"

/* libpmix is opened when a step asks for --mpi=pmix, not linked: loading
 * it (and libhwloc, libudev below it) costs every other stepd about 4 ms
 * of CPU. The header's names and its macros (PMIX_INFO_LOAD,
 * PMIX_INFO_FREE) call through these pointers. */
static struct {
	void *dl;
	__typeof__(PMIx_Error_string) *error_string;
	__typeof__(PMIx_Info_load) *info_load;
	__typeof__(PMIx_Value_destruct) *value_destruct;
	__typeof__(PMIx_generate_ppn) *generate_ppn;
	__typeof__(PMIx_generate_regex) *generate_regex;
	__typeof__(PMIx_server_init) *server_init;
	__typeof__(PMIx_server_finalize) *server_finalize;
	__typeof__(PMIx_server_register_client) *server_register_client;
	__typeof__(PMIx_server_register_nspace) *server_register_nspace;
	__typeof__(PMIx_server_setup_fork) *server_setup_fork;
} pmix_dl;

#define PMIx_Error_string	    pmix_dl.error_string
#define PMIx_Info_load		    pmix_dl.info_load
#define PMIx_Value_destruct	    pmix_dl.value_destruct
#define PMIx_generate_ppn	    pmix_dl.generate_ppn
#define PMIx_generate_regex	    pmix_dl.generate_regex
#define PMIx_server_init	    pmix_dl.server_init
#define PMIx_server_finalize	    pmix_dl.server_finalize
#define PMIx_server_register_client pmix_dl.server_register_client
#define PMIx_server_register_nspace pmix_dl.server_register_nspace
#define PMIx_server_setup_fork	    pmix_dl.server_setup_fork

/* One function of libpmix into its pointer; false when it has none. */
#define PMIX_DL_SYM(field, name)                                                 \
	((pmix_dl.field = (__typeof__(pmix_dl.field))dlsym(pmix_dl.dl, name)) != NULL \
	 || (missing = name, false))

/* Open SL_PMIX_LIB and find every function above: 0 or -ELIBACC. */
static int pmix_dl_open(const struct stepd *s)
{
	const char *missing = NULL;

	if (pmix_dl.server_setup_fork)
		return 0;
	/* global: libpmix's own components resolve its symbols */
	pmix_dl.dl = dlopen(SL_PMIX_LIB, RTLD_NOW | RTLD_GLOBAL);
	if (!pmix_dl.dl)
		return log_errno(-ELIBACC, "%s: --mpi=pmix: %s", s->label, dlerror());
	if (PMIX_DL_SYM(error_string, "PMIx_Error_string")
	    && PMIX_DL_SYM(info_load, "PMIx_Info_load")
	    && PMIX_DL_SYM(value_destruct, "PMIx_Value_destruct")
	    && PMIX_DL_SYM(generate_ppn, "PMIx_generate_ppn")
	    && PMIX_DL_SYM(generate_regex, "PMIx_generate_regex")
	    && PMIX_DL_SYM(server_init, "PMIx_server_init")
	    && PMIX_DL_SYM(server_finalize, "PMIx_server_finalize")
	    && PMIX_DL_SYM(server_register_client, "PMIx_server_register_client")
	    && PMIX_DL_SYM(server_register_nspace, "PMIx_server_register_nspace")
	    && PMIX_DL_SYM(server_setup_fork, "PMIx_server_setup_fork"))
		return 0;
	error("%s: --mpi=pmix: %s has no %s", s->label, SL_PMIX_LIB, missing);
	dlclose(pmix_dl.dl);
	memset(&pmix_dl, 0, sizeof(pmix_dl));
	return -ELIBACC;
}

#define PMIX_KVS_MAX   (64u << 20)

struct fence_req {     /* one fence_nb (or abort) call, from libpmix's thread */
	bool is_abort; /* PMIx_Abort: status in ndata, rank in cbdata's place */
	char *data;
	size_t ndata;
	pmix_modex_cbfunc_t cbfunc;
	void *cbdata;
};

struct pmix_step {
	char nspace[PMIX_MAX_NSLEN + 1];
	char tmpdir[256]; /* <SlurmdSpoolDir>/<dirname>: root's, 0711 */
	char dirname[64]; /* pmix.<job>.<step> */
	char ***env; /* per local task: setup_fork's variables */
	uint32_t ntasks;
	int pipe[2]; /* fence requests, libpmix's thread -> the loop */
	int pipe_id;
	struct fence_req *fence; /* the one in flight */
	uint8_t *all;		 /* srun's answer so far */
	size_t all_len;
	bool is_server_up; /* PMIx_server_init succeeded */
};

/* The one server of this process (libpmix has one too). */
static struct stepd *the_stepd;

static void release_all(void *cbdata)
{
	free(cbdata);
}

/* srun's IO_PMI_KVS: every node's blob; whole, it ends the fence. */
static void pmix_frame_in(struct stepd *s, const struct io_hdr *h, const uint8_t *p)
{
	struct pmix_step *x = s->pmix;
	struct fence_req *f;
	uint8_t *v;

	if (!x || !x->fence || h->type != IO_PMI_KVS)
		return;
	if (x->all_len + h->len > PMIX_KVS_MAX || !(v = realloc(x->all, x->all_len + h->len + 1))) {
		error("%s: PMIx fence: the answer from srun is too big", s->label);
		return;
	}
	x->all = v;
	memcpy(v + x->all_len, p, h->len);
	x->all_len += h->len;
	if (h->ltid)
		return;
	f = TAKE_PTR(x->fence);
	debug("%s: PMIx fence done: %zu bytes from every node", s->label, x->all_len);
	/* libpmix copies what it needs; release_all frees ours after */
	f->cbfunc(PMIX_SUCCESS, (const char *)x->all, x->all_len, f->cbdata, release_all, x->all);
	x->all = NULL;
	x->all_len = 0;
	free(f->data);
	free(f);
}

/* The loop: a fence request from libpmix's thread goes to srun. */
static void fence_ready(void *arg, short revents)
{
	struct stepd *s = arg;
	struct pmix_step *x = s->pmix;
	struct fence_req *f;
	size_t off = 0;

	(void)revents;
	if (read(x->pipe[0], &f, sizeof(f)) != (ssize_t)sizeof(f))
		return;
	if (f->is_abort) { /* here, not on libpmix's thread: the tables are ours */
		uint32_t be = htobe32((uint32_t)f->ndata);

		error("%s: a rank called PMIx_Abort (status %d)%s%s: the step is killed", s->label,
		      (int)f->ndata, f->data ? ": " : "", f->data ? f->data : "");
		step_io_frame(s, IO_PMI_ABORT, 0, 0, &be, sizeof(be)); /* srun ends the others */
		step_io_flush(s);
		proctree_signal(s, SIGKILL);
		free(f->data);
		free(f);
		return;
	}
	if (x->fence) { /* PMIx never overlaps fences of one namespace */
		error("%s: PMIx fence while one is in flight: refused", s->label);
		f->cbfunc(PMIX_ERROR, NULL, 0, f->cbdata, NULL, NULL);
		free(f->data);
		free(f);
		return;
	}
	x->fence = f;
	do {
		size_t n = f->ndata - off > IO_PAYLOAD_MAX ? IO_PAYLOAD_MAX : f->ndata - off;

		step_io_frame(s, IO_PMI_FENCE, 0, off + n < f->ndata, f->data + off, n);
		off += n;
	} while (off < f->ndata);
	step_io_flush(s);
}

/* libpmix's thread. */
static pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
			      size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
			      void *cbdata)
{
	struct fence_req *f = calloc(1, sizeof(*f));

	(void)procs;
	(void)nprocs;
	(void)info;
	(void)ninfo;
	if (!f || !(f->data = malloc(ndata ? ndata : 1))) {
		free(f);
		return PMIX_ERR_NOMEM;
	}
	if (ndata)
		memcpy(f->data, data, ndata);
	f->ndata = ndata;
	f->cbfunc = cbfunc;
	f->cbdata = cbdata;
	if (!the_stepd || write(the_stepd->pmix->pipe[1], &f, sizeof(f)) != (ssize_t)sizeof(f)) {
		free(f->data);
		free(f);
		return PMIX_ERROR;
	}
	return PMIX_SUCCESS;
}

static pmix_status_t client_connected(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb,
				      void *cbdata)
{
	(void)p;
	(void)obj;
	if (cb)
		cb(PMIX_SUCCESS, cbdata);
	return PMIX_SUCCESS;
}

static pmix_status_t client_finalized(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb,
				      void *cbdata)
{
	return client_connected(p, obj, cb, cbdata);
}

static pmix_status_t abort_fn(const pmix_proc_t *p, void *obj, int status, const char msg[],
			      pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cb, void *cbdata)
{
	struct fence_req *f = calloc(1, sizeof(*f));

	(void)p;
	(void)obj;
	(void)procs;
	(void)nprocs;
	if (f) { /* to the loop, which kills the step */
		f->is_abort = true;
		f->ndata = (size_t)(unsigned)status;
		f->data = msg ? strdup(msg) : NULL;
		if (!the_stepd
		    || write(the_stepd->pmix->pipe[1], &f, sizeof(f)) != (ssize_t)sizeof(f)) {
			free(f->data);
			free(f);
		}
	}
	if (cb)
		cb(PMIX_SUCCESS, cbdata);
	return PMIX_SUCCESS;
}

static pmix_status_t direct_modex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
				  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	(void)proc;
	(void)info;
	(void)ninfo;
	(void)cbfunc;
	(void)cbdata;
	return PMIX_ERR_NOT_SUPPORTED; /* the fences carry every node's data */
}

static volatile int op_done;
static pmix_status_t op_status;

static void op_cb(pmix_status_t status, void *cbdata)
{
	(void)cbdata;
	op_status = status;
	op_done = 1;
}

/* Wait for a registration's callback (from libpmix's thread). */
static pmix_status_t op_wait(pmix_status_t rc)
{
	if (rc == PMIX_OPERATION_SUCCEEDED)
		return PMIX_SUCCESS;
	if (rc != PMIX_SUCCESS)
		return rc;
	for (int i = 0; !op_done && i < 10000; i++)
		usleep(1000);
	return op_done ? op_status : PMIX_ERR_TIMEOUT;
}

/* "0,2,4;1,3" into buf (big enough): the ranks of each node in turn. */
static int ranks_fill(char *buf, const uint32_t *node_of, uint32_t ntasks, uint32_t nnodes)
{
	_cleanup_free_ uint32_t *first = calloc(nnodes + 1, sizeof(*first));
	_cleanup_free_ uint32_t *ids = calloc(ntasks, sizeof(*ids));
	char *end = buf;

	if (!first || !ids)
		return -ENOMEM;
	for (uint32_t t = 0; t < ntasks; t++)
		first[node_of[t] + 1]++;
	for (uint32_t i = 0; i < nnodes; i++)
		first[i + 1] += first[i];
	for (uint32_t t = 0; t < ntasks; t++)
		ids[first[node_of[t]]++] = t; /* first[i] ends as node i+1's start */
	for (uint32_t i = 0, k = 0; i < nnodes; i++) {
		if (i)
			*end++ = ';';
		for (uint32_t j = 0; k < first[i]; j++, k++)
			end += sprintf(end, "%s%u", j ? "," : "", ids[k]);
	}
	*end = '\0';
	return 0;
}

/* "n1,n2" and "0,2,4;1,3" (every node's ranks, from the task map). */
static int maps(const struct stepd *s, char **ret_nodes, char **ret_ranks)
{
	const struct launch_tasks_msg *m = s->launch;
	struct hostlist *hl = NULL;
	uint32_t *node_of = calloc(m->num_tasks ? m->num_tasks : 1, sizeof(*node_of));
	size_t nlen = 1, rlen = 1 + (size_t)m->num_tasks * 11, n = 0;
	char *nodes = NULL, *ranks = NULL;
	int r = -EINVAL;

	if (node_of && hostlist_new(m->step_nodes, &hl) == 0)
		n = hostlist_count(hl);
	if (!n || n != m->num_nodes
	    || task_map_expand(&m->map, m->num_nodes, m->num_tasks, node_of) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		nlen += strlen(hostlist_nth(hl, i)) + 1;
		rlen++;
	}
	r = -ENOMEM;
	if (!(nodes = calloc(1, nlen)) || !(ranks = calloc(1, rlen)))
		goto out;
	for (size_t i = 0; i < n; i++)
		strcat(strcat(nodes, i ? "," : ""), hostlist_nth(hl, i));
	/* node by node, each node's ranks ascending: one pass per node would
	 * be nodes x tasks, so append through per-node cursors instead */
	if (ranks_fill(ranks, node_of, m->num_tasks, (uint32_t)n) < 0)
		goto out;
	*ret_nodes = TAKE_PTR(nodes);
	*ret_ranks = TAKE_PTR(ranks);
	r = 0;
out:
	free(nodes);
	free(ranks);
	free(node_of);
	hostlist_free(hl);
	return r;
}

static int register_nspace(struct stepd *s, struct pmix_step *x)
{
	const struct launch_tasks_msg *m = s->launch;
	_cleanup_free_ char *nodes = NULL, *ranks = NULL, *peers = NULL;
	char *regex = NULL, *ppn = NULL;
	uint32_t size = m->num_tasks, local = s->step->ntasks, nnodes = m->num_nodes,
		 nodeid = m->node_id;
	pmix_info_t *info;
	size_t k = 0;
	pmix_status_t rc;

	if (maps(s, &nodes, &ranks) < 0 || !(peers = calloc(1, (size_t)local * 11 + 1)))
		return -ENOMEM;
	for (uint32_t i = 0; i < local; i++)
		sprintf(peers + strlen(peers), "%s%u", i ? "," : "", s->step->tasks[i].gtid);
	if (PMIx_generate_regex(nodes, &regex) != PMIX_SUCCESS
	    || PMIx_generate_ppn(ranks, &ppn) != PMIX_SUCCESS)
		return -EINVAL;
	PMIX_INFO_CREATE(info, 10);
	PMIX_INFO_LOAD(&info[k], PMIX_UNIV_SIZE, &size, PMIX_UINT32), k++;
	PMIX_INFO_LOAD(&info[k], PMIX_JOB_SIZE, &size, PMIX_UINT32), k++;
	PMIX_INFO_LOAD(&info[k], PMIX_MAX_PROCS, &size, PMIX_UINT32), k++;
	PMIX_INFO_LOAD(&info[k], PMIX_LOCAL_SIZE, &local, PMIX_UINT32), k++;
	PMIX_INFO_LOAD(&info[k], PMIX_LOCAL_PEERS, peers, PMIX_STRING), k++;
	PMIX_INFO_LOAD(&info[k], PMIX_NODE_MAP, regex, PMIX_STRING), k++;
	PMIX_INFO_LOAD(&info[k], PMIX_PROC_MAP, ppn, PMIX_STRING), k++;
	PMIX_INFO_LOAD(&info[k], PMIX_NUM_NODES, &nnodes, PMIX_UINT32), k++;
	PMIX_INFO_LOAD(&info[k], PMIX_NODEID, &nodeid, PMIX_UINT32), k++;
	PMIX_INFO_LOAD(&info[k], PMIX_HOSTNAME, s->node_name, PMIX_STRING), k++;
	op_done = 0;
	rc = op_wait(PMIx_server_register_nspace(x->nspace, (int)local, info, k, op_cb, NULL));
	PMIX_INFO_FREE(info, k);
	free(regex);
	free(ppn);
	if (rc != PMIX_SUCCESS)
		return log_errno(-EIO, "%s: PMIx_server_register_nspace: %s", s->label,
				 PMIx_Error_string(rc));
	return 0;
}

static int register_clients(struct stepd *s, struct pmix_step *x)
{
	x->env = calloc(s->step->ntasks, sizeof(*x->env));
	if (!x->env)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->step->ntasks; i++) {
		pmix_proc_t p;
		pmix_status_t rc;

		PMIX_PROC_LOAD(&p, x->nspace, s->step->tasks[i].gtid);
		op_done = 0;
		rc = op_wait(PMIx_server_register_client(&p, s->uid, s->gid, NULL, op_cb, NULL));
		if (rc == PMIX_SUCCESS)
			rc = PMIx_server_setup_fork(&p, &x->env[i]);
		if (rc != PMIX_SUCCESS)
			return log_errno(-EIO, "%s: PMIx client %u: %s", s->label,
					 s->step->tasks[i].gtid, PMIx_Error_string(rc));
	}
	return 0;
}

/*
 * The user's tasks connect to what the server puts in its directory. It
 * is root's and 0711: the tasks reach the socket and the dstore files by
 * name, and cannot add, rename or replace anything in it, so the removal
 * at the end has nothing of the user's to follow (the dstore's own
 * subdirectory, which libpmix gives the user, is walked fd by fd).
 */
static int pmix_tmpdir_make(struct stepd *s, struct pmix_step *x)
{
	_cleanup_close_ int spool = -1, fd = -1;

	snprintf(x->dirname, sizeof(x->dirname), "pmix.%u.%u", s->job_id, s->step_id);
	snprintf(x->tmpdir, sizeof(x->tmpdir), "%s/%s", s->spool_dir, x->dirname);
	spool = safe_open_dir(s->spool_dir);
	if (spool < 0)
		return log_errno(spool, "%s: SlurmdSpoolDir %s", s->label, s->spool_dir);
	fd = safe_mkdir_at(spool, x->dirname, 0711, 0, 0, s->uid);
	if (fd < 0) {
		x->dirname[0] = '\0'; /* not ours to remove */
		return log_errno(fd, "%s: %s", s->label, x->tmpdir);
	}
	return 0;
}

int pmix_srv_init(struct stepd *s)
{
	static pmix_server_module_t module = {
	    .client_connected = client_connected,
	    .client_finalized = client_finalized,
	    .abort = abort_fn,
	    .fence_nb = fence_nb,
	    .direct_modex = direct_modex,
	};
	const char *type = env_launch_get(s, "SLURM_MPI_TYPE");
	struct pmix_step *x;
	pmix_info_t *info;
	pmix_status_t rc;
	int r;

	if (!s->launch || !type || strncmp(type, "pmix", 4) != 0)
		return 0;
	r = pmix_dl_open(s);
	if (r < 0)
		return r;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->pipe[0] = x->pipe[1] = -1;
	x->ntasks = s->step->ntasks;
	s->pmix = x;
	the_stepd = s;
	snprintf(x->nspace, sizeof(x->nspace), "slurm.pmix.%u.%u", s->job_id, s->step_id);
	r = pmix_tmpdir_make(s, x);
	if (r < 0)
		return r;
	if (pipe2(x->pipe, O_CLOEXEC) < 0)
		return -errno;
	x->pipe_id = loop_fd_add(s->loop, STEPD_PRIO_IO, x->pipe[0], POLLIN, fence_ready, s);
	if (x->pipe_id < 0)
		return -ENOMEM;
	PMIX_INFO_CREATE(info, 2);
	PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, x->tmpdir, PMIX_STRING);
	PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, x->tmpdir, PMIX_STRING);
	rc = PMIx_server_init(&module, info, 2);
	PMIX_INFO_FREE(info, 2);
	x->is_server_up = rc == PMIX_SUCCESS;
	if (rc != PMIX_SUCCESS)
		return log_errno(-EIO, "%s: PMIx_server_init: %s", s->label, PMIx_Error_string(rc));
	r = register_nspace(s, x);
	if (r == 0)
		r = register_clients(s, x);
	if (r == 0) {
		s->step->on_pmi_frame = pmix_frame_in;
		debug("%s: PMIx server for %u local task(s), namespace %s", s->label, x->ntasks,
		      x->nspace);
	}
	return r;
}

int pmix_srv_task_env(struct stepd *s, uint32_t ltid)
{
	const struct pmix_step *x = s->pmix;

	if (!x || !x->env || ltid >= x->ntasks)
		return 0;
	for (char **e = x->env[ltid]; e && *e; e++) {
		const char *eq = strchr(*e, '=');

		char name[256];

		if (!eq || (size_t)(eq - *e) >= sizeof(name))
			continue;
		memcpy(name, *e, (size_t)(eq - *e));
		name[eq - *e] = '\0';
		if (job_env_set(&s->env, name, "%s", eq + 1) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* libpmix's files (socket, dstore) in the step's own directory. */
static void rm_tmpdir(const struct stepd *s, const struct pmix_step *x)
{
	int r;

	if (!x->dirname[0])
		return;
	r = safe_rmtree(s->spool_dir, x->dirname, s->uid, 0);
	if (r < 0)
		info("%s: %s not removed whole: %s", s->label, x->tmpdir, strerror(-r));
}

void pmix_srv_free(struct stepd *s)
{
	struct pmix_step *x = s->pmix;

	if (!x)
		return;
	if (x->is_server_up)
		PMIx_server_finalize();
	the_stepd = NULL;
	if (x->pipe_id >= 0)
		loop_fd_set(s->loop, x->pipe_id, -1, 0);
	for (int i = 0; i < 2; i++)
		if (x->pipe[i] >= 0)
			close(x->pipe[i]);
	for (uint32_t i = 0; x->env && i < x->ntasks; i++) {
		for (char **e = x->env[i]; e && *e; e++)
			free(*e);
		free(x->env[i]);
	}
	free(x->env);
	rm_tmpdir(s, x);
	free(x->all);
	if (x->fence) {
		free(x->fence->data);
		free(x->fence);
	}
	free(x);
	s->pmix = NULL;
}

#endif /* SL_HAVE_PMIX */
