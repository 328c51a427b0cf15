/* conf_container.c - job_container.conf (JobContainerType=job_container/tmpfs)
 * into struct container_conf.
 *
 * Keys, as Slurm 22.05 reads them: BasePath= (where each job's private
 * directories and its namespace file live; %n and %h expanded by the
 * node), AutoBasePath= (create BasePath when missing), Dirs= (the
 * directories made private, default "/tmp,/dev/shm"), InitScript= (run
 * before the job's namespace is built). A line that starts with NodeName=
 * sets them for those nodes only; a line without one for every node. A
 * node with no BasePath is an error where it is looked up; an unknown key
 * or a bad value is one here ("file:line: ..."), as in slurm.conf.
 */
#include "conf_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "limits.h"
#include "macros.h"

#define CONTAINER_DIRS_DEFAULT "/tmp,/dev/shm"

static void entry_done(struct container_entry *e)
{
	free(e->nodes);
	free(e->base_path);
	free(e->dirs);
	free(e->init_script);
	*e = (struct container_entry){0};
}

void conf_container_done(struct container_conf *g)
{
	for (uint32_t i = 0; i < g->count; i++)
		entry_done(&g->v[i]);
	free(g->v);
	*g = (struct container_conf){0};
}

static bool is_bool(const char *v, bool *ret)
{
	if (strcaseeq(v, "true") || strcaseeq(v, "yes") || strcaseeq(v, "1"))
		*ret = true;
	else if (strcaseeq(v, "false") || strcaseeq(v, "no") || strcaseeq(v, "0"))
		*ret = false;
	else
		return false;
	return true;
}

/* Dirs=: absolute paths, no "..", at most SL_CONTAINER_DIRS of them. */
static bool dirs_ok(const char *v)
{
	_cleanup_free_ char *copy = strdup(v);
	unsigned n = 0;

	if (!copy || !*v)
		return false;
	for (char *save = NULL, *d = strtok_r(copy, ",", &save); d; d = strtok_r(NULL, ",", &save))
		if (d[0] != '/' || strstr(d, "/..") || ++n > SL_CONTAINER_DIRS)
			return false;
	return n > 0;
}

static int container_line(void *arg, const struct conf_where *at, struct conf_tok *t, size_t n,
			  struct sl_error *err)
{
	struct container_conf *g = arg;
	struct container_entry e = {0}, *v;

	for (size_t i = 0; i < n; i++) {
		const char *k = t[i].key, *val = t[i].val;
		char **dst = NULL;

		if (strcaseeq(k, "NodeName") && i == 0) {
			struct hostlist *hl = NULL;

			if (hostlist_new(val, &hl) < 0)
				goto bad;
			hostlist_free(hl);
			dst = &e.nodes;
		} else if (strcaseeq(k, "BasePath")) {
			if (val[0] != '/')
				goto bad;
			dst = &e.base_path;
		} else if (strcaseeq(k, "Dirs")) {
			if (!dirs_ok(val))
				goto bad;
			dst = &e.dirs;
		} else if (strcaseeq(k, "InitScript")) {
			if (val[0] != '/')
				goto bad;
			dst = &e.init_script;
		} else if (strcaseeq(k, "AutoBasePath")) {
			if (!is_bool(val, &e.auto_base_path))
				goto bad;
			e.has_auto = true;
			continue;
		} else if (strcaseeq(k, "Shared")) {
			continue; /* later Slurm's; nothing to share here */
		} else {
			entry_done(&e);
			return errprintf(err, -EINVAL, "%s:%u: unknown job_container.conf key '%s'",
					 at->file, at->line, k);
		}
		free(*dst);
		if (!(*dst = strdup(val))) {
			entry_done(&e);
			return errprintf(err, -ENOMEM, "%s: out of memory", at->file);
		}
		continue;
	bad:
		entry_done(&e);
		return errprintf(err, -EINVAL, "%s:%u: %s=%s: bad value", at->file, at->line, k,
				 val);
	}
	v = realloc(g->v, (g->count + 1) * sizeof(*v));
	if (!v) {
		entry_done(&e);
		return errprintf(err, -ENOMEM, "%s: out of memory", at->file);
	}
	g->v = v;
	g->v[g->count++] = e;
	return 0;
}

int conf_container_load(const char *path, struct sl_conf *c, struct sl_error *err)
{
	struct container_conf g = {0};
	int r = conf_read_file(path, container_line, &g, err);

	if (r < 0) {
		conf_container_done(&g);
		return r;
	}
	conf_container_done(&c->container);
	c->container = g;
	c->container.is_read = true;
	return 0;
}

static bool entry_is_for(const struct container_entry *e, const char *node)
{
	struct hostlist *hl = NULL;
	bool is_for;

	if (!e->nodes)
		return true;
	if (hostlist_new(e->nodes, &hl) < 0)
		return false;
	is_for = hostlist_find(hl, node) >= 0;
	hostlist_free(hl);
	return is_for;
}

void conf_container_of(const struct sl_conf *c, const char *node, struct container_node *ret)
{
	*ret = (struct container_node){.dirs = CONTAINER_DIRS_DEFAULT};
	/* in file order: a later line for the node overrides an earlier one */
	for (uint32_t i = 0; i < c->container.count; i++) {
		const struct container_entry *e = &c->container.v[i];

		if (!entry_is_for(e, node))
			continue;
		if (e->base_path)
			ret->base_path = e->base_path;
		if (e->dirs)
			ret->dirs = e->dirs;
		if (e->init_script)
			ret->init_script = e->init_script;
		if (e->has_auto)
			ret->auto_base_path = e->auto_base_path;
	}
}
