/* ctld_fixture.c - see ctld_fixture.h. */
#include "ctld_fixture.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg.h"
#include "slurmctld/job.h"
#include "slurmctld/job_submit.h"
#include "slurmctld/node.h"
#include "slurmctld/license.h"
#include "slurmctld/part.h"
#include "slurmctld/part_admin.h"
#include "slurmctld/resv.h"

#define CONF_TEXT                                                                                  \
	"ClusterName=t\n"                                                                          \
	"SlurmctldHost=localhost(127.0.0.1)\n"                                                     \
	"StateSaveLocation=%s\n"                                                                   \
	"SlurmdParameters=config_overrides\n"                                                      \
	"DefMemPerCPU=100\n"                                                                       \
	"%s"                                                                                       \
	"NodeName=DEFAULT CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=4000\n"    \
	"NodeName=n[1-3] NodeAddr=127.0.0.1 Port=7001\n"                                           \
	"NodeName=g1 NodeAddr=127.0.0.1 Port=7004 Gres=gpu:4\n"                                    \
	"PartitionName=cpu Nodes=n[1-3] Default=YES MaxTime=60\n"                                  \
	"PartitionName=gpu Nodes=g1\n"

static struct ctld_fixture *fixture_of(const struct ctld *c)
{
	return (struct ctld_fixture *)((char *)c - offsetof(struct ctld_fixture, c));
}

static int record_send(struct ctld *c, const char *host, uint16_t port, uint16_t type,
		       const void *msg, uid_t peer_uid, rpc_async_done_fn *done, void *arg)
{
	struct ctld_fixture *f = fixture_of(c);
	struct sent_msg *m;

	(void)peer_uid;
	assert_true(f->nsent < ARRAY_SIZE(f->sent));
	m = &f->sent[f->nsent++];
	*m = (struct sent_msg){.type = type, .port = port, .done = done, .arg = arg};
	snprintf(m->host, sizeof(m->host), "%s", host ? host : "");
	switch (type) {
	case REQUEST_BATCH_JOB_LAUNCH:
		m->job_id = ((const struct batch_launch_msg *)msg)->job_id;
		break;
	case REQUEST_SIGNAL_TASKS:
	case REQUEST_TERMINATE_JOB:
	case REQUEST_KILL_TIMELIMIT: {
		const struct signal_job_msg *s = msg;

		m->job_id = s->job_id;
		m->step_id = s->step_id;
		m->sig_or_reason = s->signal;
		break;
	}
	case SRUN_JOB_COMPLETE:
	case SRUN_PING:
	case SRUN_TIMEOUT: {
		const struct srun_notice_msg *s = msg;

		m->job_id = s->job_id;
		m->step_id = s->step_id;
		m->sig_or_reason = s->reason;
		break;
	}
	case RESPONSE_RESOURCE_ALLOCATION:
		m->job_id = ((const struct alloc_response *)msg)->job_id;
		break;
	default:
		break;
	}
	return 0;
}

static void hook_changed(struct ctld *c, struct job *job)
{
	(void)job;
	fixture_of(c)->changed++;
}

static void hook_requeued(struct ctld *c, struct job *job, time_t now)
{
	(void)job;
	(void)now;
	fixture_of(c)->requeued++;
}

static bool hook_is_recorded(const struct ctld *c, uint64_t seq)
{
	return seq && seq <= fixture_of(c)->recorded_upto;
}

static const struct job_hook fixture_hook = {
    .changed = hook_changed,
    .requeued = hook_requeued,
    .is_recorded = hook_is_recorded,
};

static void nodes_up(struct ctld *c)
{
	for (uint32_t i = 0; i < c->node_count; i++) {
		struct node *n = &c->nodes[i];
		const struct conf_node *cfg = n->cfg;
		struct node_reg_msg m = {
		    .node_name = (char *)node_name(n),
		    .cpus = cfg->cpus,
		    .boards = 1,
		    .sockets = cfg->sockets,
		    .cores = cfg->cores_per_socket,
		    .threads = cfg->threads_per_core,
		    .real_memory = cfg->real_memory,
		};

		node_register(c, n, &m, time(NULL));
	}
}

void fixture_hooks_reset(struct ctld_fixture *f)
{
	job_hooks_clear(&f->c);
	assert_int_equal(job_hook_add(&f->c, &fixture_hook), 0);
}

struct ctld_fixture *fixture_new(const char *extra)
{
	struct ctld_fixture *f = calloc(1, sizeof(*f));
	struct sl_error err = {{0}};
	char path[128];
	FILE *fp;

	assert_non_null(f);
	log_init("test", LOG_LEVEL_ERROR, NULL, 1); /* the tests' own output stays readable */
	strcpy(f->dir, "/tmp/test_ctld_XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(path, sizeof(path), "%s/slurm.conf", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, CONF_TEXT, f->dir, extra ? extra : "");
	fclose(fp);
	if (conf_load(path, &f->c.conf, &err) < 0)
		fail_msg("conf: %s", err.text);
	f->c.boot_time = time(NULL);
	f->c.next_job_id = f->c.conf->first_job_id;
	f->c.send = record_send;
	assert_int_equal(node_table_build(&f->c), 0);
	assert_int_equal(part_table_build(&f->c), 0);
	fixture_hooks_reset(f);
	nodes_up(&f->c);
	return f;
}

/* The files in the fixture's own directory (a mkdtemp of ours). */
static void fixture_dir_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
}

void fixture_free(struct ctld_fixture *f)
{
	if (!f)
		return;
	fixture_deliver(f, 0);
	job_table_free(&f->c);
	job_hooks_clear(&f->c);
	part_admin_forget(&f->c);
	part_table_free(&f->c);
	license_table_free(&f->c);
	resv_table_free(&f->c);
	node_table_free(&f->c);
	f->c.conf = conf_free(f->c.conf);
	fixture_dir_empty(f->dir); /* slurm.conf and what the test saved there */
	rmdir(f->dir);
	free(f);
}

struct job_desc *fixture_desc(void)
{
	struct job_desc *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	*d = (struct job_desc){
	    .script = strdup("#!/bin/sh\ntrue\n"),
	    .work_dir = strdup("/tmp"),
	    .min_nodes = NO_VAL,
	    .max_nodes = NO_VAL,
	    .num_tasks = NO_VAL,
	    .ntasks_per_node = NO_VAL16,
	    .cpus_per_task = NO_VAL16,
	    .time_limit = NO_VAL,
	    .time_min = NO_VAL,
	    .mem_per_node = NO_VAL64,
	    .mem_per_cpu = NO_VAL64,
	    .requeue = NO_VAL16,
	    .nice = NO_VAL,
	    .user_id = NO_VAL,
	    .group_id = NO_VAL,
	};
	assert_non_null(d->script);
	return d;
}

int fixture_try_submit(struct ctld_fixture *f, struct job_desc *desc, struct job **ret)
{
	char *msg = NULL;
	int r = job_submit_build(&f->c, desc, getuid(), getgid(), ret, &msg);

	free(msg);
	if (r < 0) {
		job_desc_done(desc);
		free(desc);
		return r;
	}
	return job_submit_commit(&f->c, *ret);
}

struct job *fixture_submit(struct ctld_fixture *f, struct job_desc *desc)
{
	struct job *job = NULL;

	assert_int_equal(fixture_try_submit(f, desc, &job), 0);
	assert_non_null(job);
	return job;
}

uint32_t fixture_count(const struct ctld_fixture *f, uint16_t type, uint32_t job_id)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->nsent; i++)
		n += (!type || f->sent[i].type == type) && (!job_id || f->sent[i].job_id == job_id);
	return n;
}

const struct sent_msg *fixture_last(const struct ctld_fixture *f, uint16_t type)
{
	for (uint32_t i = f->nsent; i-- > 0;)
		if (f->sent[i].type == type)
			return &f->sent[i];
	return NULL;
}

void fixture_deliver(struct ctld_fixture *f, int rc)
{
	/* a callback may send more: those are delivered in the same call */
	for (uint32_t i = 0; i < f->nsent; i++) {
		struct sent_msg *m = &f->sent[i];
		rpc_async_done_fn *done = m->done;
		struct rc_msg ok = {0};

		if (!done)
			continue;
		m->done = NULL;
		if (rc == 0)
			done(m->arg, 0, RESPONSE_SLURM_RC, &ok);
		else
			done(m->arg, rc, 0, NULL);
	}
}

void fixture_clear(struct ctld_fixture *f)
{
	fixture_deliver(f, 0);
	f->nsent = 0;
}
