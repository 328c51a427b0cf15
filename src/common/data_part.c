/* data_part.c - partition records as v0.0.38 documents (data_part.h). */
#include "common/data_part.h"

#include <stddef.h>

#include "common/macros.h"
#include "common/msg.h"

#define P(m) offsetof(struct part_info, m)

static void w_flags(struct dout *d, const char *key, const void *rec)
{
	static const struct {
		uint16_t bit;
		const char *name;
	} names[] = {
	    {PART_FLAG_DEFAULT, "default"},	   {PART_FLAG_HIDDEN, "hidden"},
	    {PART_FLAG_NO_ROOT, "no_root"},	   {PART_FLAG_ROOT_ONLY, "root_only"},
	    {PART_FLAG_REQ_RESV, "req_resv"},	   {PART_FLAG_LLN, "lln"},
	    {PART_FLAG_EXCLUSIVE_USER, "exclusive_user"},
	};
	uint16_t flags = ((const struct part_info *)rec)->flags;

	dout_arr(d, key);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (flags & names[i].bit)
			dout_str(d, NULL, names[i].name);
	dout_end(d);
}

/* PreemptMode: only OFF exists here. */
static void w_preempt(struct dout *d, const char *key, const void *rec)
{
	dout_arr(d, key);
	dout_str(d, NULL, ((const struct part_info *)rec)->preempt_mode ? "suspend" : "disabled");
	dout_end(d);
}

static void w_state(struct dout *d, const char *key, const void *rec)
{
	switch (((const struct part_info *)rec)->state_up) {
	case PART_STATE_UP: dout_str(d, key, "UP"); break;
	case PART_STATE_DOWN: dout_str(d, key, "DOWN"); break;
	case PART_STATE_DRAIN: dout_str(d, key, "DRAIN"); break;
	default: dout_str(d, key, "INACTIVE");
	}
}

#define S(name, m) {name, DF_STR, 0, P(m), NULL, NULL}
#define U16(name, m) {name, DF_U16, 0, P(m), NULL, NULL}
#define U32(name, m) {name, DF_U32, 0, P(m), NULL, NULL}
#define U64(name, m) {name, DF_U64, 0, P(m), NULL, NULL}
#define NV(name, m) {name, DF_U32_NV, 0, P(m), NULL, NULL}
#define K(name, type) {name, type, 0, 0, NULL, NULL}
#define F(name, schema, fn) {name, DF_FN, schema, 0, fn, NULL}

static const struct dfield part_fields[] = {
    F("flags", DS_STRINGS, w_flags),
    F("preemption_mode", DS_STRINGS, w_preempt),
    S("allowed_allocation_nodes", alloc_nodes),
    S("allowed_accounts", allow_accounts),
    S("allowed_groups", allow_groups),
    S("allowed_qos", allow_qos),
    K("alternative", DF_EMPTY),
    K("billing_weights", DF_EMPTY),
    U64("default_memory_per_cpu", def_mem_per_cpu),
    NV("default_time_limit", default_time),
    K("denied_accounts", DF_EMPTY),
    K("denied_qos", DF_EMPTY),
    U32("preemption_grace_time", grace_time),
    NV("maximum_cpus_per_node", max_cpus_per_node),
    U64("maximum_memory_per_node", max_mem_per_node),
    NV("maximum_nodes_per_job", max_nodes),
    NV("max_time_limit", max_time),
    U32("min_nodes_per_job", min_nodes),
    S("name", name),
    S("nodes", nodes),
    {"over_time_limit", DF_U16_NV, 0, P(over_time_limit), NULL, NULL},
    U16("priority_job_factor", priority_job_factor),
    U16("priority_tier", priority_tier),
    S("qos", qos),
    F("state", DS_STRING, w_state),
    U32("total_cpus", total_cpus),
    U32("total_nodes", total_nodes),
    S("tres", tres),
};
DFIELD_TABLE(data_part_table, "v0.0.38_partition", part_fields);

void data_parts_member(struct dout *d, const struct part_info_msg *m, data_part_keep_fn *keep,
		       void *arg)
{
	dout_arr(d, "partitions");
	for (uint32_t i = 0; m && i < m->count; i++)
		if (!keep || keep(&m->parts[i], arg))
			dout_record(d, NULL, &data_part_table, &m->parts[i]);
	dout_end(d);
}

void data_parts_doc(struct dout *d, const struct part_info_msg *m, data_part_keep_fn *keep,
		    void *arg, int argc, char **argv)
{
	dout_obj(d, NULL);
	dout_meta(d, false, argc, argv);
	data_parts_member(d, m, keep, arg);
	dout_end(d);
}
