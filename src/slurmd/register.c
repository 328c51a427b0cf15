/* register.c - slurmd's registration with the controller: hardware as
 * detected (or as configured with SlurmdParameters=config_overrides),
 * sent asynchronously, retried with exponential backoff (1 s .. 60 s)
 * until the controller answers.
 */
#include "slurmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/hw_detect.h"
#include "common/log.h"
#include "common/msg.h"
#include "common/rpc_async.h"
#include "common/sl_errno.h"

#define REG_BACKOFF_MAX 60

int slurmd_reg_msg_fill(struct slurmd *d, struct node_reg_msg *m)
{
	struct hw_info hw = { 0 };
	int r;

	r = hw_detect(&hw, NULL);
	if (r < 0)
		return r;
	*m = (struct node_reg_msg){
		.node_name = strdup(d->node_name),
		.hostname = strdup(d->hostname),
		.arch = hw.arch,
		.os = hw.os,
		.version = strdup(SL_VERSION),
		.gres = strdup(d->gres ? d->gres : ""),
		.cpus = hw.cpus,
		.boards = hw.boards,
		.sockets = hw.sockets,
		.cores = hw.cores_per_socket,
		.threads = hw.threads_per_core,
		.real_memory = hw.real_memory_mb,
		.tmp_disk = hw.tmp_disk_mb,
		.cpu_load = hw.cpu_load_x100,
		.free_mem = hw.free_mem_mb,
		.boot_time = hw.boot_time,
		.slurmd_start_time = d->start_time,
		.instance = d->instance,
		.port = d->cfg->port,
	};
	if (d->conf->config_overrides) {
		m->cpus = d->cfg->cpus;
		m->boards = d->cfg->boards;
		m->sockets = d->cfg->sockets;
		m->cores = d->cfg->cores_per_socket;
		m->threads = d->cfg->threads_per_core;
		m->real_memory = d->cfg->real_memory;
		m->tmp_disk = d->cfg->tmp_disk;
		free(m->gres);
		m->gres = strdup(d->cfg->gres ? d->cfg->gres : "");
	}
	if (!m->node_name || !m->hostname || !m->version || !m->gres)
		return -ENOMEM;
	return slurmd_spool_steps(d, &m->steps, &m->step_count);
}

static void reg_schedule(struct slurmd *d, unsigned delay_s)
{
	struct timeval tv = { .tv_sec = delay_s };

	evtimer_add(d->reg_timer, &tv);
}

static void reg_done_cb(void *arg, int rc, uint16_t type, void *msg)
{
	struct slurmd *d = arg;

	if (rc == 0 && type == RESPONSE_SLURM_RC)
		rc = -(int)((struct rc_msg *)msg)->rc;
	if (rc == 0) {
		if (!d->is_registered)
			info("slurmd registered with the controller");
		d->is_registered = true;
		d->reg_backoff_s = 1;
		slurmd_spool_resend(d); /* the controller is there: what waited goes now */
		return;
	}
	error("Unable to register: %s; retrying in %u s", sl_strerror(rc), d->reg_backoff_s);
	reg_schedule(d, d->reg_backoff_s);
	d->reg_backoff_s = d->reg_backoff_s * 2 > REG_BACKOFF_MAX ? REG_BACKOFF_MAX
								  : d->reg_backoff_s * 2;
}

static void reg_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct slurmd *d = arg;
	struct node_reg_msg m = { 0 };
	const char *host = d->conf->control_addr ? d->conf->control_addr
						 : d->conf->control_machine;
	int r;

	(void)fd;
	(void)what;
	r = slurmd_reg_msg_fill(d, &m);
	if (r == 0)
		r = rpc_async_call(d->base, d->conf->munge_socket, host, d->conf->slurmctld_port,
				   MESSAGE_NODE_REGISTRATION_STATUS, &m,
				   d->conf->slurm_user_id, d->conf->message_timeout,
				   reg_done_cb, d);
	msg_lookup(MESSAGE_NODE_REGISTRATION_STATUS)->free(&m);
	if (r < 0)
		reg_done_cb(d, r, 0, NULL);
}

int slurmd_register_start(struct slurmd *d)
{
	d->reg_backoff_s = 1;
	d->reg_timer = evtimer_new(d->base, reg_timer_cb, d);
	if (!d->reg_timer)
		return -ENOMEM;
	reg_schedule(d, 0);
	return 0;
}

void slurmd_register_stop(struct slurmd *d)
{
	if (d->reg_timer)
		event_free(d->reg_timer);
	d->reg_timer = NULL;
}
