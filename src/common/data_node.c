/* data_node.c - node records as v0.0.38 documents (data_node.h). */
#include "common/data_node.h"

#include <ctype.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>

#include "common/macros.h"
#include "common/msg.h"
#include "common/states.h"

#define N(m) offsetof(struct node_info, m)
#define NREC(k) const struct node_info *n = (k)

uint32_t data_node_state(const struct node_info *n)
{
	uint32_t idle = n->cpus > n->alloc_cpus ? n->cpus - n->alloc_cpus : 0;

	if ((idle && idle < n->cpus) || (n->alloc_tres && idle == n->cpus))
		return (n->state & NODE_STATE_FLAGS) | NODE_STATE_MIXED;
	return n->state;
}

static void w_state(struct dout *d, const char *key, const void *rec)
{
	const char *up = node_state_base_name(data_node_state(rec));
	char low[32];
	size_t i = 0;

	for (; up[i] && i < sizeof(low) - 1; i++)
		low[i] = (char)tolower((unsigned char)up[i]);
	low[i] = '\0';
	dout_str(d, key, low);
}

static void w_state_flags(struct dout *d, const char *key, const void *rec)
{
	NREC(rec);
	const char *names[32];
	size_t k = node_state_flag_list(n->state, names, ARRAY_SIZE(names));

	dout_arr(d, key);
	for (size_t i = 0; i < k; i++)
		dout_str(d, NULL, names[i]);
	dout_end(d);
}

static void w_partitions(struct dout *d, const char *key, const void *rec)
{
	dout_str_list(d, key, ((const struct node_info *)rec)->partitions);
}

static void w_free_mem(struct dout *d, const char *key, const void *rec)
{
	NREC(rec);
	dout_uint(d, key, n->free_mem >= NO_VAL64 ? 0 : n->free_mem);
}

static void w_reason_user(struct dout *d, const char *key, const void *rec)
{
	NREC(rec);
	struct passwd pw, *res = NULL;
	char tmp[1024];

	if (n->reason_uid != NO_VAL
	    && getpwuid_r((uid_t)n->reason_uid, &pw, tmp, sizeof(tmp), &res) == 0 && res)
		dout_str(d, key, res->pw_name);
	else
		dout_str(d, key, "");
}

static void w_idle_cpus(struct dout *d, const char *key, const void *rec)
{
	NREC(rec);
	dout_uint(d, key, n->cpus > n->alloc_cpus ? n->cpus - n->alloc_cpus : 0);
}

static void w_tres_used(struct dout *d, const char *key, const void *rec)
{
	NREC(rec);
	if (n->alloc_tres)
		dout_str(d, key, n->alloc_tres);
	else
		dout_null(d, key);
}

static void w_na(struct dout *d, const char *key, const void *rec _unused_)
{
	dout_str(d, key, "N/A");
}

static void w_invalid(struct dout *d, const char *key, const void *rec _unused_)
{
	dout_str(d, key, "invalid");
}

static void w_zero_num(struct dout *d, const char *key, const void *rec _unused_)
{
	dout_num(d, key, 0);
}

#define S(name, m) {name, DF_STR, 0, N(m), NULL, NULL}
#define U16(name, m) {name, DF_U16, 0, N(m), NULL, NULL}
#define U32(name, m) {name, DF_U32, 0, N(m), NULL, NULL}
#define U64(name, m) {name, DF_U64, 0, N(m), NULL, NULL}
#define T(name, m) {name, DF_TIME, 0, N(m), NULL, NULL}
#define K(name, type) {name, type, 0, 0, NULL, NULL}
#define F(name, schema, fn) {name, DF_FN, schema, 0, fn, NULL}

static const struct dfield node_fields[] = {
    S("architecture", arch),
    K("burstbuffer_network_address", DF_EMPTY),
    U16("boards", boards),
    T("boot_time", boot_time),
    S("comment", comment),
    U16("cores", cores),
    K("cpu_binding", DF_ZERO),
    {"cpu_load", DF_U32_Z, 0, N(cpu_load), NULL, NULL},
    S("extra", extra),
    F("free_memory", DS_INTEGER, w_free_mem),
    U16("cpus", cpus),
    T("last_busy", last_busy),
    S("features", features),
    S("active_features", features_act),
    S("gres", gres),
    F("gres_drained", DS_STRING, w_na),
    S("gres_used", gres_used),
    K("mcs_label", DF_EMPTY),
    S("name", name),
    F("next_state_after_reboot", DS_STRING, w_invalid),
    S("address", node_addr),
    S("hostname", node_hostname),
    F("state", DS_STRING, w_state),
    F("state_flags", DS_STRINGS, w_state_flags),
    K("next_state_after_reboot_flags", DF_NOARR),
    S("operating_system", os),
    K("owner", DF_NULL),
    F("partitions", DS_STRINGS, w_partitions),
    U16("port", port),
    U64("real_memory", real_memory),
    S("reason", reason),
    T("reason_changed_at", reason_time),
    F("reason_set_by_user", DS_STRING, w_reason_user),
    T("slurmd_start_time", slurmd_start_time),
    U16("sockets", sockets),
    U16("threads", threads),
    U32("temporary_disk", tmp_disk),
    U32("weight", weight),
    S("tres", cfg_tres),
    S("slurmd_version", version),
    U64("alloc_memory", alloc_mem),
    U16("alloc_cpus", alloc_cpus),
    F("idle_cpus", DS_INTEGER, w_idle_cpus),
    F("tres_used", DS_ANY, w_tres_used),
    F("tres_weighted", DS_NUMBER, w_zero_num),
};
DFIELD_TABLE(data_node_table, "v0.0.38_node", node_fields);

void data_nodes_member(struct dout *d, const struct node_info_msg *m, data_node_keep_fn *keep,
		       void *arg)
{
	dout_arr(d, "nodes");
	for (uint32_t i = 0; m && i < m->count; i++) {
		const struct node_info *n = &m->nodes[i];

		if (n->name && (!keep || keep(n, arg)))
			dout_record(d, NULL, &data_node_table, n);
	}
	dout_end(d);
}

void data_nodes_doc(struct dout *d, const struct node_info_msg *m, data_node_keep_fn *keep,
		    void *arg, int argc, char **argv)
{
	dout_obj(d, NULL);
	dout_meta(d, false, argc, argv);
	data_nodes_member(d, m, keep, arg);
	dout_end(d);
}
