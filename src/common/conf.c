/* conf.c - conf_load(): slurm.conf (+ gres.conf beside it) into a new struct.
 *
 * Purpose: build a complete struct sl_conf or nothing. Defaults come from
 * the key table, the file is read by conf_read.c, each logical line goes
 * to the NodeName, PartitionName or top-level key parser, and then the
 * whole is checked (partition node lists, SlurmctldHost present). Nothing
 * global is touched, so a reconfigure can parse, check and then swap.
 * Also: lookups, the default path and %n/%h path templates.
 * Caveats: DownNodes=, FrontendName= and NodeSet= lines are accepted and
 * ignored (logged at debug). A missing SlurmctldHost is reported at the
 * last line of the top file, since no line is at fault.
 */
#include "conf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "conf_internal.h"
#include "log.h"
#include "macros.h"

#ifndef SL_DEFAULT_CONF
#define SL_DEFAULT_CONF "/etc/slurm/slurm.conf"
#endif

DEFINE_FREEP(struct sl_conf, conf_free)

struct sl_conf *conf_free(struct sl_conf *c)
{
	if (!c)
		return NULL;
	free(c->path);
	free(c->cluster_name);
	free(c->control_machine);
	free(c->control_addr);
	free(c->slurm_user);
	free(c->slurmd_user);
	free(c->auth_type);
	free(c->auth_info);
	free(c->auth_alt_types);
	free(c->auth_alt_params);
	free(c->munge_socket);
	free(c->state_save_location);
	free(c->slurmd_spool_dir);
	free(c->slurmctld_pidfile);
	free(c->slurmd_pidfile);
	free(c->slurmctld_logfile);
	free(c->slurmd_logfile);
	free(c->gres_types);
	free(c->select_type);
	free(c->select_type_params);
	free(c->scheduler_type);
	free(c->priority_type);
	free(c->propagate_rlimits);
	free(c->propagate_rlimits_except);
	free(c->prio_weight_tres);
	free(c->mail_prog);
	free(c->prolog);
	free(c->epilog);
	free(c->health_check_program);
	free(c->reboot_program);
	free(c->licenses);
	free(c->task_prolog);
	free(c->task_epilog);
	free(c->srun_prolog);
	free(c->srun_epilog);
	free(c->prolog_slurmctld);
	free(c->epilog_slurmctld);
	free(c->private_data);
	free(c->acct_storage_type);
	free(c->acct_storage_loc);
	for (uint32_t i = 0; i < c->node_count; i++)
		conf_node_done(&c->nodes[i]);
	free(c->nodes);
	for (uint32_t i = 0; i < c->part_count; i++)
		conf_part_done(&c->parts[i]);
	free(c->parts);
	for (uint32_t i = 0; i < c->gres_count; i++) {
		free(c->gres[i].node_name);
		free(c->gres[i].name);
		free(c->gres[i].type);
		free(c->gres[i].file);
		free(c->gres[i].cores);
	}
	free(c->gres);
	conf_cgroup_done(&c->cgroup);
	conf_container_done(&c->container);
	for (uint32_t i = 0; i < c->kv_count; i++) {
		free(c->kv[i].key);
		free(c->kv[i].value);
	}
	free(c->kv);
	free(c);
	return NULL;
}

static void conf_build_done(struct conf_build *b)
{
	if (!b->c)
		return;
	conf_part_build_done(b);
	conf_node_build_done(b);
}

static int conf_line(void *arg, const struct conf_where *at, struct conf_tok *t, size_t n,
		     struct sl_error *err)
{
	static const char *const ignored[] = {"DownNodes", "FrontendName", "NodeSet"};
	struct conf_build *b = arg;
	int r;

	if (b->is_client && (strcaseeq(t[0].key, "NodeName") || strcaseeq(t[0].key, "PartitionName")))
		return 0;
	if (strcaseeq(t[0].key, "NodeName"))
		return conf_node_line(b, at, t, n, err);
	if (strcaseeq(t[0].key, "PartitionName"))
		return conf_part_line(b, at, t, n, err);
	for (size_t i = 0; i < ARRAY_SIZE(ignored); i++) {
		if (strcaseeq(t[0].key, ignored[i])) {
			debug("%s:%u: %s=%s line accepted, not acted on", at->file, at->line,
			      ignored[i], t[0].val);
			return 0;
		}
	}
	for (size_t i = 0; i < n; i++) {
		r = conf_keys_set(b->c, &t[i], at, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Whole-file checks and values that depend on keys read in any order. */
static int conf_finish(struct sl_conf *c, const char *path, int lines, struct sl_error *err)
{
	if (!c->control_machine)
		return errprintf(err, -EINVAL, "%s:%d: SlurmctldHost is not set", path, lines);
	if (!c->control_addr) {
		c->control_addr = strdup(c->control_machine);
		if (!c->control_addr)
			return errprintf(err, -ENOMEM, "%s: out of memory", path);
	}
	for (uint32_t i = 0; i < c->node_count; i++)
		if (!c->nodes[i].port)
			c->nodes[i].port = c->slurmd_port;
	if (c->job_container == CONTAINER_TMPFS && !(c->prolog_flags & PROLOG_FLAG_CONTAIN))
		return errprintf(err, -EINVAL,
				 "%s: JobContainerType=job_container/tmpfs needs PrologFlags=Contain",
				 path);
	return 0;
}

/* name (gres.conf, cgroup.conf) in the directory of path, if there is
 * one, read by load. */
static int conf_load_beside(struct sl_conf *c, const char *path, const char *name,
			    int (*load)(const char *, struct sl_conf *, struct sl_error *),
			    struct sl_error *err)
{
	_cleanup_free_ char *file = NULL;
	const char *slash = strrchr(path, '/');
	int r;

	if (slash)
		r = asprintf(&file, "%.*s/%s", (int)(slash - path), path, name);
	else
		r = asprintf(&file, "%s", name);
	if (r < 0) {
		file = NULL;
		return errprintf(err, -ENOMEM, "%s: out of memory", path);
	}
	if (access(file, F_OK) < 0)
		return 0;
	return load(file, c, err);
}

static int conf_load_as(const char *path, bool is_client, struct sl_conf **ret,
			struct sl_error *err)
{
	/* c before b: cleanups run in reverse, and b's reads c's counts */
	_cleanup_(conf_freep) struct sl_conf *c = NULL;
	_cleanup_(conf_build_done) struct conf_build b = {.is_client = is_client};
	int r, lines;

	c = calloc(1, sizeof(*c));
	if (!c || !(c->path = strdup(path)))
		return errprintf(err, -ENOMEM, "%s: out of memory", path);
	b.c = c;
	r = conf_keys_defaults(c, err);
	if (r >= 0 && conf_cgroup_defaults(&c->cgroup) < 0)
		r = errprintf(err, -ENOMEM, "%s: out of memory", path);
	if (r >= 0)
		r = conf_node_build_init(&b);
	if (r >= 0)
		r = conf_part_build_init(&b);
	if (r < 0)
		return r;
	lines = conf_read_file(path, conf_line, &b, err);
	if (lines < 0)
		return lines;
	r = conf_part_finish(&b, err);
	if (r >= 0)
		r = conf_finish(c, path, lines, err);
	if (r >= 0 && !is_client)
		r = conf_load_beside(c, path, "gres.conf", conf_gres_load, err);
	if (r >= 0 && !is_client)
		r = conf_load_beside(c, path, "cgroup.conf", conf_cgroup_load, err);
	if (r >= 0 && !is_client && c->job_container == CONTAINER_TMPFS)
		r = conf_load_beside(c, path, "job_container.conf", conf_container_load, err);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(c);
	return 0;
}

int conf_load(const char *path, struct sl_conf **ret, struct sl_error *err)
{
	return conf_load_as(path, false, ret, err);
}

int conf_load_client(const char *path, struct sl_conf **ret, struct sl_error *err)
{
	return conf_load_as(path, true, ret, err);
}

const char *conf_default_path(void)
{
	const char *env = getenv("SLURM_CONF");

	return env && *env ? env : SL_DEFAULT_CONF;
}

const struct conf_node *conf_node_find(const struct sl_conf *c, const char *name)
{
	if (!c || !name)
		return NULL;
	for (uint32_t i = 0; i < c->node_count; i++)
		if (streq(c->nodes[i].name, name))
			return &c->nodes[i];
	return NULL;
}

const struct conf_part *conf_part_find(const struct sl_conf *c, const char *name)
{
	if (!c || !name)
		return NULL;
	for (uint32_t i = 0; i < c->part_count; i++)
		if (streq(c->parts[i].name, name))
			return &c->parts[i];
	return NULL;
}

bool conf_is_acct_enabled(const struct sl_conf *c)
{
	return c->acct_storage_type && !strcaseeq(c->acct_storage_type, "accounting_storage/none");
}

char *conf_acct_storage_path(const struct sl_conf *c)
{
	char *s = NULL;

	if (c->acct_storage_loc)
		return strdup(c->acct_storage_loc);
	if (asprintf(&s, "%s/job_accounting.db",
		     c->state_save_location ? c->state_save_location : "/var/spool")
	    < 0)
		return NULL;
	return s;
}

/* What "%<ch>" stands for in a path template; NULL when not special. */
static const char *expand_one(char ch, const char *node_name, const char *host_name)
{
	switch (ch) {
	case 'n':
		return node_name;
	case 'h':
		return host_name;
	case '%':
		return "%";
	default:
		return NULL;
	}
}

char *conf_expand_path(const char *tmpl, const char *node_name, const char *host_name)
{
	size_t len = 0;
	char *out, *w;

	if (!tmpl)
		return NULL;
	node_name = node_name ? node_name : "";
	host_name = host_name ? host_name : "";
	for (const char *s = tmpl; *s; s++) {
		const char *rep = s[0] == '%' ? expand_one(s[1], node_name, host_name) : NULL;

		len += rep ? strlen(rep) : 1;
		s += rep ? 1 : 0;
	}
	out = malloc(len + 1);
	if (!out)
		return NULL;
	w = out;
	for (const char *s = tmpl; *s; s++) {
		const char *rep = s[0] == '%' ? expand_one(s[1], node_name, host_name) : NULL;

		if (rep) {
			w = stpcpy(w, rep);
			s++;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
	return out;
}

char *conf_container_base(const struct sl_conf *c, const char *node, const char *host)
{
	struct container_node cn;

	conf_container_of(c, node, &cn);
	if (c->job_container != CONTAINER_TMPFS || !cn.base_path) {
		errno = ENOENT;
		return NULL;
	}
	return conf_expand_path(cn.base_path, node, host);
}
