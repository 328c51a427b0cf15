/* part_admin.c - see part_admin.h.
 *
 * Purpose: partitions changed by admins while the controller runs. An
 * edit works on a copy of the partition (conf_part_edit() checks each
 * word as slurm.conf's parser would), is checked whole (nodes that exist,
 * one default partition), then swapped in; the node sets are resolved
 * again and the edit is merged into the kept list: the words of updates of
 * one partition are merged key by key, and a delete drops what was kept
 * of that partition, so the list stays about as long as the table.
 */
#include "part_admin.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/errprintf.h"
#include "common/hostlist.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/pack.h"
#include "common/sl_errno.h"
#include "ctld.h"
#include "job.h"
#include "node.h"
#include "part.h"

static const char *edit_name(uint16_t type)
{
	return type == REQUEST_CREATE_PARTITION	  ? "create"
	       : type == REQUEST_DELETE_PARTITION ? "delete"
						  : "update";
}

/* Nodes= of an edit: "ALL" becomes every node, each name must be one. */
static int nodes_check(struct ctld *c, struct conf_part *p, char **ret_msg)
{
	struct hostlist *hl = NULL;
	int r = 0;

	if (!p->nodes)
		return 0;
	if (hostlist_new(NULL, &hl) < 0)
		return -ENOMEM;
	if (!strcasecmp(p->nodes, "ALL")) {
		for (uint32_t i = 0; i < c->node_count && r == 0; i++)
			r = hostlist_push_host(hl, node_name(&c->nodes[i]));
	} else {
		hostlist_free(hl);
		hl = NULL;
		if (hostlist_new(p->nodes, &hl) < 0)
			r = -ESLURM_INVALID_NODE_NAME;
		for (size_t i = 0; r == 0 && i < hostlist_count(hl); i++)
			if (!node_find(c, hostlist_nth(hl, i)))
				r = -ESLURM_INVALID_NODE_NAME;
	}
	if (r == 0 && hostlist_count(hl)) {
		char *s = hostlist_ranged_string(hl);

		if (!s)
			r = -ENOMEM;
		free(p->nodes);
		p->nodes = s;
	} else if (r == 0) {
		free(p->nodes);
		p->nodes = NULL;
	}
	if (r == -ESLURM_INVALID_NODE_NAME
	    && asprintf(ret_msg, "Invalid node name: %s", p->nodes) < 0)
		*ret_msg = NULL;
	hostlist_free(hl);
	return r;
}

/* The words onto a copy of the partition (a new one for a create). */
static int edited(struct ctld *c, const struct conf_part *from, const struct part_edit_msg *m,
		  struct conf_part *ret, char **ret_msg)
{
	struct sl_error err = {{0}};
	int r = from ? conf_part_copy(ret, from) : conf_part_defaults(ret, m->name);

	for (uint32_t i = 0; r == 0 && i < m->word_count; i++) {
		r = conf_part_edit(ret, m->words[i], &err);
		if (r == -EINVAL && !(*ret_msg = strdup(err.text)))
			r = -ENOMEM;
	}
	if (r == 0)
		r = nodes_check(c, ret, ret_msg);
	if (r < 0)
		conf_part_free(ret);
	return r;
}

static bool is_in_use(const struct ctld *c, const char *name)
{
	for (uint32_t i = 0; i < c->job_count; i++) {
		const struct job *j = c->jobs[i];

		if ((job_is_pending(j) || job_is_running(j)) && j->partition
		    && !strcmp(j->partition, name))
			return true;
	}
	return false;
}

static void set_default(struct ctld *c, const struct part *keep)
{
	for (uint32_t i = 0; i < c->part_count; i++)
		if (&c->parts[i] != keep)
			c->parts[i].cfg->is_default = false;
}

static int do_create(struct ctld *c, const struct part_edit_msg *m, char **ret_msg)
{
	struct conf_part *cfg = calloc(1, sizeof(*cfg));
	struct part *parts;
	int r;

	if (!cfg)
		return -ENOMEM;
	r = edited(c, NULL, m, cfg, ret_msg);
	if (r < 0) {
		free(cfg);
		return r;
	}
	parts = realloc(c->parts, (c->part_count + 1) * sizeof(*parts));
	if (!parts) {
		conf_part_free(cfg);
		free(cfg);
		return -ENOMEM;
	}
	c->parts = parts;
	c->parts[c->part_count++] = (struct part){.cfg = cfg};
	if (cfg->is_default)
		set_default(c, &c->parts[c->part_count - 1]);
	return 0;
}

static int do_update(struct ctld *c, struct part *p, const struct part_edit_msg *m, char **ret_msg)
{
	struct conf_part cfg = {0};
	int r = edited(c, p->cfg, m, &cfg, ret_msg);

	if (r < 0)
		return r;
	conf_part_free(p->cfg);
	*p->cfg = cfg;
	if (cfg.is_default)
		set_default(c, p);
	return 0;
}

static void do_delete(struct ctld *c, struct part *p)
{
	uint32_t i = (uint32_t)(p - c->parts);

	free(p->node_idx);
	conf_part_free(p->cfg);
	free(p->cfg);
	memmove(&c->parts[i], &c->parts[i + 1], (c->part_count - i - 1) * sizeof(*c->parts));
	c->part_count--;
}

/* Apply without keeping it. */
static int apply(struct ctld *c, uint16_t type, const struct part_edit_msg *m, char **ret_msg)
{
	struct part *p = part_find(c, m->name);
	int r;

	if (!m->name || !*m->name || strlen(m->name) >= SL_NAME_MAX
	    || (type == REQUEST_CREATE_PARTITION) == (p != NULL))
		return -ESLURM_INVALID_PARTITION_NAME;
	if (type == REQUEST_DELETE_PARTITION) {
		if (is_in_use(c, m->name))
			return -ESLURM_PARTITION_IN_USE;
		do_delete(c, p);
		r = 0;
	} else {
		r = type == REQUEST_CREATE_PARTITION ? do_create(c, m, ret_msg)
						     : do_update(c, p, m, ret_msg);
	}
	return r < 0 ? r : part_table_resolve(c);
}

/* ---- the kept list ---- */

static void edit_free(struct part_edit *e)
{
	msg_lookup(REQUEST_UPDATE_PARTITION)->free(&e->m);
	*e = (struct part_edit){0};
}

static void drop(struct ctld *c, uint32_t i)
{
	edit_free(&c->part_edits[i]);
	memmove(&c->part_edits[i], &c->part_edits[i + 1],
		(c->part_edit_count - i - 1) * sizeof(*c->part_edits));
	c->part_edit_count--;
}

static size_t key_len(const char *word)
{
	return strcspn(word, "=");
}

/* The words of m into e: a key already there takes the new value. */
static int merge_words(struct part_edit *e, const struct part_edit_msg *m)
{
	for (uint32_t i = 0; i < m->word_count; i++) {
		const char *w = m->words[i];
		char *copy = strdup(w), **v;
		uint32_t k = 0;

		if (!copy)
			return -ENOMEM;
		while (k < e->m.word_count
		       && !(key_len(e->m.words[k]) == key_len(w)
			    && !strncasecmp(e->m.words[k], w, key_len(w))))
			k++;
		if (k < e->m.word_count) {
			free(e->m.words[k]);
			e->m.words[k] = copy;
			continue;
		}
		v = realloc(e->m.words, (e->m.word_count + 1) * sizeof(*v));
		if (!v) {
			free(copy);
			return -ENOMEM;
		}
		e->m.words = v;
		e->m.words[e->m.word_count++] = copy;
	}
	return 0;
}

static int keep(struct ctld *c, uint16_t type, const struct part_edit_msg *m)
{
	struct part_edit *e;
	bool was_created = false;

	if (type == REQUEST_DELETE_PARTITION) {
		for (uint32_t i = c->part_edit_count; i-- > 0;)
			if (!strcmp(c->part_edits[i].m.name, m->name)) {
				was_created |= c->part_edits[i].type == REQUEST_CREATE_PARTITION;
				drop(c, i);
			}
		if (was_created)
			return 0; /* it was never in slurm.conf: nothing to keep */
	} else if (type == REQUEST_UPDATE_PARTITION) {
		for (uint32_t i = c->part_edit_count; i-- > 0;) {
			e = &c->part_edits[i];
			if (strcmp(e->m.name, m->name))
				continue;
			if (e->type == REQUEST_DELETE_PARTITION)
				break;
			return merge_words(e, m);
		}
	}
	if (c->part_edit_count >= PART_EDITS_MAX)
		return -ENOSPC;
	e = realloc(c->part_edits, (c->part_edit_count + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	c->part_edits = e;
	e = &c->part_edits[c->part_edit_count];
	*e = (struct part_edit){.type = type};
	if (!(e->m.name = strdup(m->name)) || merge_words(e, m) < 0) {
		edit_free(e);
		return -ENOMEM;
	}
	c->part_edit_count++;
	return 0;
}

int part_admin_edit(struct ctld *c, uint16_t type, const struct part_edit_msg *m, char **ret_msg)
{
	int r;

	*ret_msg = NULL;
	if (c->part_edit_count >= PART_EDITS_MAX)
		return -ENOSPC;
	r = apply(c, type, m, ret_msg);
	if (r < 0)
		return r;
	info("%s_part: partition %s%s%s", edit_name(type), m->name, m->word_count ? ": " : "",
	     m->word_count ? m->words[0] : "");
	if (keep(c, type, m) < 0)
		error("partition %s: the edit is applied but not kept: lost at a restart", m->name);
	return 0;
}

void part_admin_replay(struct ctld *c)
{
	for (uint32_t i = 0; i < c->part_edit_count;) {
		struct part_edit *e = &c->part_edits[i];
		char *msg = NULL;
		int r = apply(c, e->type, &e->m, &msg);

		if (r < 0) {
			error("partition %s: the saved %s no longer applies (%s): dropped",
			      e->m.name, edit_name(e->type), msg ? msg : sl_strerror(r));
			free(msg);
			drop(c, i);
			continue;
		}
		i++;
	}
	if (c->part_edit_count)
		info("Recovered %u partition edits", c->part_edit_count);
}

void part_admin_forget(struct ctld *c)
{
	for (uint32_t i = 0; i < c->part_edit_count; i++)
		edit_free(&c->part_edits[i]);
	free(c->part_edits);
	c->part_edits = NULL;
	c->part_edit_count = 0;
}
