/* test_states.c - node state names match Slurm 22.05 for sinfo and
 * scontrol, and update state keywords parse as scontrol parses them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/macros.h"
#include "common/states.h"

static const struct {
	uint32_t state;
	const char *lng;
	const char *cmp;
	const char *sfx;
} display[] = {
    {NODE_STATE_IDLE, "IDLE", "IDLE", ""},
    {NODE_STATE_IDLE | NODE_STATE_NO_RESPOND, "IDLE", "IDLE", "*"},
    {NODE_STATE_ALLOCATED, "ALLOCATED", "ALLOC", ""},
    {NODE_STATE_ALLOCATED | NODE_STATE_COMPLETING, "ALLOCATED", "ALLOC", "+"},
    {NODE_STATE_ALLOCATED | NODE_STATE_COMPLETING | NODE_STATE_NO_RESPOND, "ALLOCATED", "ALLOC",
     "*"},
    {NODE_STATE_MIXED, "MIXED", "MIX", ""},
    {NODE_STATE_MIXED | NODE_STATE_PLANNED, "MIXED", "MIX", "-"},
    {NODE_STATE_IDLE | NODE_STATE_COMPLETING, "COMPLETING", "COMP", ""},
    {NODE_STATE_IDLE | NODE_STATE_DRAIN, "DRAINED", "DRAIN", ""},
    {NODE_STATE_IDLE | NODE_STATE_DRAIN | NODE_STATE_NO_RESPOND, "DRAINED", "DRAIN", "*"},
    {NODE_STATE_DOWN | NODE_STATE_DRAIN, "DRAINED", "DRAIN", ""},
    {NODE_STATE_MIXED | NODE_STATE_DRAIN, "DRAINING", "DRNG", ""},
    {NODE_STATE_ALLOCATED | NODE_STATE_DRAIN | NODE_STATE_NO_RESPOND, "DRAINING", "DRNG", "*"},
    {NODE_STATE_IDLE | NODE_STATE_COMPLETING | NODE_STATE_DRAIN, "DRAINING", "DRNG", ""},
    {NODE_STATE_IDLE | NODE_STATE_DRAIN | NODE_STATE_POWERED_DOWN, "DRAINED", "DRAIN", "~"},
    {NODE_STATE_DOWN, "DOWN", "DOWN", ""},
    {NODE_STATE_DOWN | NODE_STATE_NO_RESPOND, "DOWN", "DOWN", "*"},
    {NODE_STATE_IDLE | NODE_STATE_FAIL, "FAIL", "FAIL", ""},
    {NODE_STATE_IDLE | NODE_STATE_FAIL | NODE_STATE_NO_RESPOND, "FAIL", "FAIL", "*"},
    {NODE_STATE_ALLOCATED | NODE_STATE_FAIL, "FAILING", "FAILG", ""},
    {NODE_STATE_IDLE | NODE_STATE_MAINT, "MAINT", "MAINT", ""},
    {NODE_STATE_IDLE | NODE_STATE_MAINT | NODE_STATE_NO_RESPOND, "MAINT", "MAINT", "*"},
    {NODE_STATE_ALLOCATED | NODE_STATE_MAINT, "ALLOCATED", "ALLOC", "$"},
    {NODE_STATE_DOWN | NODE_STATE_MAINT, "DOWN", "DOWN", "$"},
    {NODE_STATE_IDLE | NODE_STATE_REBOOT_REQUESTED, "REBOOT", "BOOT", ""},
    {NODE_STATE_IDLE | NODE_STATE_REBOOT_ISSUED, "REBOOT", "BOOT", "^"},
    {NODE_STATE_DOWN | NODE_STATE_REBOOT_REQUESTED | NODE_STATE_NO_RESPOND, "REBOOT", "BOOT", "*"},
    {NODE_STATE_MIXED | NODE_STATE_REBOOT_REQUESTED, "MIXED", "MIX", "@"},
    {NODE_STATE_IDLE | NODE_STATE_POWERING_UP, "IDLE", "IDLE", "#"},
    {NODE_STATE_IDLE | NODE_STATE_POWERING_DOWN, "IDLE", "IDLE", "%"},
    {NODE_STATE_IDLE | NODE_STATE_CLOUD | NODE_STATE_POWERED_DOWN, "IDLE", "IDLE", "~"},
    {NODE_STATE_IDLE | NODE_STATE_POWER_DOWN, "IDLE", "IDLE", "!"},
    {NODE_STATE_IDLE | NODE_STATE_RES, "RESERVED", "RESV", ""},
    {NODE_STATE_IDLE | NODE_STATE_RES | NODE_STATE_NO_RESPOND, "IDLE", "IDLE", "*"},
    {NODE_STATE_IDLE | NODE_STATE_PLANNED, "PLANNED", "PLND", ""},
    {NODE_STATE_IDLE | NODE_STATE_NET, "PERFCTRS", "NPC", ""},
    {NODE_STATE_FUTURE, "FUTURE", "FUTR", ""},
    {NODE_STATE_FUTURE | NODE_STATE_NO_RESPOND, "FUTURE", "FUTR", "*"},
    {NODE_STATE_UNKNOWN, "UNKNOWN", "UNK", ""},
    {NODE_STATE_UNKNOWN | NODE_STATE_NO_RESPOND, "UNKNOWN", "UNK", "*"},
    {NODE_STATE_ERROR, "?", "?", ""},
    {0xf, "?", "?", ""},
    {NODE_STATE_IDLE | NODE_STATE_INVALID_REG, "INVAL", "INVAL", ""},
    {NODE_RESUME, "RESUME", "RESM", ""},
    {NODE_STATE_POWER_DOWN, "POWER_DOWN", "UNK", ""},
    {NODE_STATE_CLOUD, "CLOUD", "UNK", ""},
    {NODE_STATE_REBOOT_CANCEL, "CANCEL_REBOOT", "UNK", ""},
};

static void test_display_names_follow_slurm_precedence(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(display); i++) {
		uint32_t s = display[i].state;

		assert_string_equal(node_state_string(s), display[i].lng);
		assert_string_equal(node_state_compact(s), display[i].cmp);
		assert_string_equal(node_state_suffix(s), display[i].sfx);
	}
}

static const struct {
	uint32_t state;
	bool is_long;
	const char *out;
} sinfo[] = {
    /* the reference outputs: sinfo.txt, sinfo_N_l.txt, sinfo_o_custom.txt */
    {NODE_STATE_IDLE, false, "idle"},
    {NODE_STATE_MIXED, false, "mix"},
    {NODE_STATE_IDLE | NODE_STATE_COMPLETING, false, "comp"},
    {NODE_STATE_IDLE | NODE_STATE_DRAIN, false, "drain"},
    {NODE_STATE_IDLE | NODE_STATE_NO_RESPOND, false, "idle*"},
    {NODE_STATE_IDLE, true, "idle"},
    {NODE_STATE_MIXED, true, "mixed"},
    {NODE_STATE_ALLOCATED | NODE_STATE_COMPLETING, false, "alloc+"},
    {NODE_STATE_MIXED | NODE_STATE_DRAIN, true, "draining"},
    {NODE_STATE_IDLE | NODE_STATE_DRAIN | NODE_STATE_NO_RESPOND, true, "drained*"},
    {NODE_STATE_DOWN | NODE_STATE_NO_RESPOND, false, "down*"},
};

static void test_sinfo_prints_lower_case_name_and_suffix(void **state)
{
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sinfo); i++)
		assert_string_equal(
		    node_state_sinfo(sinfo[i].state, sinfo[i].is_long, buf, sizeof(buf)),
		    sinfo[i].out);
	assert_string_equal(node_state_sinfo(NODE_STATE_MIXED, true, buf, 4), "mix");
	assert_ptr_equal(node_state_sinfo(NODE_STATE_MIXED, true, buf, 0), buf);
}

static const struct {
	uint32_t state;
	const char *out;
} scontrol[] = {
    {NODE_STATE_IDLE, "IDLE"},
    {NODE_STATE_MIXED, "MIXED"},
    {NODE_STATE_ALLOCATED, "ALLOCATED"},
    {NODE_STATE_IDLE | NODE_STATE_DRAIN, "IDLE+DRAIN"},
    {NODE_STATE_MIXED | NODE_STATE_DRAIN, "MIXED+DRAIN"},
    {NODE_STATE_DOWN | NODE_STATE_NO_RESPOND, "DOWN+NOT_RESPONDING"},
    {NODE_STATE_IDLE | NODE_STATE_DRAIN | NODE_STATE_NO_RESPOND, "IDLE+DRAIN+NOT_RESPONDING"},
    {NODE_STATE_ALLOCATED | NODE_STATE_COMPLETING, "ALLOCATED+COMPLETING"},
    {NODE_STATE_IDLE | NODE_STATE_CLOUD | NODE_STATE_POWERED_DOWN, "IDLE+CLOUD+POWERED_DOWN"},
    {NODE_STATE_IDLE | NODE_STATE_MAINT | NODE_STATE_RES, "IDLE+MAINTENANCE+RESERVED"},
    {NODE_STATE_DOWN | NODE_STATE_INVALID_REG | NODE_STATE_FAIL, "DOWN+INVALID_REG+FAIL"},
    {NODE_STATE_IDLE | NODE_STATE_UNDRAIN, "IDLE+?"},
    {NODE_STATE_ERROR, "ERROR"},
    {0x7, "INVALID"},
    {NODE_STATE_UNKNOWN, "UNKNOWN"},
    {NODE_STATE_FUTURE, "FUTURE"},
};

static void test_scontrol_prints_base_and_every_flag(void **state)
{
	char buf[128];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(scontrol); i++)
		assert_string_equal(node_state_scontrol(scontrol[i].state, buf, sizeof(buf)),
				    scontrol[i].out);
	assert_string_equal(node_state_scontrol(NODE_STATE_IDLE | NODE_STATE_DRAIN, buf, 7),
			    "IDLE+D");
	assert_ptr_equal(node_state_scontrol(NODE_STATE_IDLE, buf, 0), buf);
}

static const struct {
	uint32_t flag;
	const char *out;
} flag_names[] = {
    {NODE_STATE_NET, "IDLE+PERFCTRS"},
    {NODE_STATE_RES, "IDLE+RESERVED"},
    {NODE_STATE_CLOUD, "IDLE+CLOUD"},
    {NODE_RESUME, "IDLE+RESUME"},
    {NODE_STATE_DRAIN, "IDLE+DRAIN"},
    {NODE_STATE_COMPLETING, "IDLE+COMPLETING"},
    {NODE_STATE_NO_RESPOND, "IDLE+NOT_RESPONDING"},
    {NODE_STATE_POWERED_DOWN, "IDLE+POWERED_DOWN"},
    {NODE_STATE_FAIL, "IDLE+FAIL"},
    {NODE_STATE_POWERING_UP, "IDLE+POWERING_UP"},
    {NODE_STATE_MAINT, "IDLE+MAINTENANCE"},
    {NODE_STATE_REBOOT_REQUESTED, "IDLE+REBOOT_REQUESTED"},
    {NODE_STATE_POWERING_DOWN, "IDLE+POWERING_DOWN"},
    {NODE_STATE_DYNAMIC_FUTURE, "IDLE+DYNAMIC_FUTURE"},
    {NODE_STATE_REBOOT_ISSUED, "IDLE+REBOOT_ISSUED"},
    {NODE_STATE_PLANNED, "IDLE+PLANNED"},
    {NODE_STATE_INVALID_REG, "IDLE+INVALID_REG"},
    {NODE_STATE_POWER_DOWN, "IDLE+POWER_DOWN"},
    {NODE_STATE_POWER_UP, "IDLE+POWER_UP"},
    {NODE_STATE_DYNAMIC_NORM, "IDLE+DYNAMIC_NORM"},
    /* request-only bits Slurm's table does not name */
    {NODE_STATE_UNDRAIN, "IDLE+?"},
    {NODE_STATE_REBOOT_CANCEL, "IDLE+?"},
    {NODE_STATE_POWER_DRAIN, "IDLE+?"},
    {0x80000000u, "IDLE+?"},
};

static void test_every_flag_has_an_scontrol_name(void **state)
{
	char buf[512];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(flag_names); i++)
		assert_string_equal(
		    node_state_scontrol(NODE_STATE_IDLE | flag_names[i].flag, buf, sizeof(buf)),
		    flag_names[i].out);
	node_state_scontrol(NODE_STATE_IDLE | NODE_STATE_FLAGS, buf, sizeof(buf));
	assert_string_equal(buf, "IDLE+CLOUD+COMPLETING+DRAIN+DYNAMIC_FUTURE+DYNAMIC_NORM"
				 "+INVALID_REG+FAIL+MAINTENANCE+POWER_DOWN+POWER_UP+PERFCTRS"
				 "+POWERED_DOWN+REBOOT_REQUESTED+REBOOT_ISSUED+RESERVED+RESUME"
				 "+NOT_RESPONDING+PLANNED+POWERING_UP+POWERING_DOWN"
				 "+?+?+?+?+?+?+?+?");
}

static void test_every_base_state_has_names(void **state)
{
	char buf[64];

	(void)state;
	for (uint32_t b = 0; b < _NODE_STATE_BASE_MAX; b++) {
		assert_non_null(node_state_string(b));
		assert_non_null(node_state_compact(b));
		assert_non_null(node_state_suffix(b));
		node_state_scontrol(b, buf, sizeof(buf));
		assert_true(strlen(buf) > 0);
		assert_string_not_equal(buf, "INVALID");
	}
}

static const struct {
	const char *in;
	enum node_update_state out;
} update_good[] = {
    {"DRAIN", NODE_UPDATE_DRAIN},
    {"drain", NODE_UPDATE_DRAIN},
    {"dra", NODE_UPDATE_DRAIN},
    {"DOWN", NODE_UPDATE_DOWN},
    {"dow", NODE_UPDATE_DOWN},
    {"RESUME", NODE_UPDATE_RESUME},
    {"res", NODE_UPDATE_RESUME},
    {"NoResp", NODE_UPDATE_NORESP},
    {"nor", NODE_UPDATE_NORESP},
    {"idle", NODE_UPDATE_IDLE},
    {"UNDRAIN", NODE_UPDATE_UNDRAIN},
    {"und", NODE_UPDATE_UNDRAIN},
    {"fail", NODE_UPDATE_FAIL},
    {"fut", NODE_UPDATE_FUTURE},
    {"power_down", NODE_UPDATE_POWER_DOWN},
    {"POWER_D", NODE_UPDATE_POWER_DOWN},
    {"power_down_asap", NODE_UPDATE_POWER_DOWN_ASAP},
    {"POWER_DOWN_A", NODE_UPDATE_POWER_DOWN_ASAP},
    {"POWER_DOWN_AS", NODE_UPDATE_POWER_DOWN_ASAP},
    {"power_down_force", NODE_UPDATE_POWER_DOWN_FORCE},
    {"POWER_U", NODE_UPDATE_POWER_UP},
    {"cancel_reboot", NODE_UPDATE_CANCEL_REBOOT},
    {"can", NODE_UPDATE_CANCEL_REBOOT},
    {"unk", NODE_UPDATE_UNKNOWN},
    {"alloc", NODE_UPDATE_ALLOCATED},
    {"mix", NODE_UPDATE_MIXED},
};

static const char *const update_bad[] = {
    "",	      "d",	     "dr",    "draining", "drained", "downx", "POWER",
    "POWER_", "POWER_DOWN_", "error", "resumed",  "idle ",   " idle", "completing",
};

static void test_update_states_parse_like_scontrol(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(update_good); i++) {
		enum node_update_state s = 0;

		assert_int_equal(node_update_state_from_string(update_good[i].in, &s), 0);
		assert_int_equal(s, update_good[i].out);
	}
	for (size_t i = 0; i < ARRAY_SIZE(update_bad); i++) {
		enum node_update_state s = NODE_UPDATE_IDLE;

		assert_int_equal(node_update_state_from_string(update_bad[i], &s), -EINVAL);
		assert_int_equal(s, NODE_UPDATE_IDLE);
	}
	assert_int_equal(node_update_state_from_string(NULL, NULL), -EINVAL);
}

static void test_every_update_state_has_a_name_that_round_trips(void **state)
{
	(void)state;
	for (int i = NODE_UPDATE_DOWN; i < _NODE_UPDATE_MAX; i++) {
		const char *name = node_update_state_to_string(i);
		enum node_update_state s = 0;

		assert_non_null(name);
		assert_int_equal(node_update_state_from_string(name, &s), 0);
		assert_int_equal(s, i);
	}
	assert_null(node_update_state_to_string(0));
	assert_null(node_update_state_to_string(_NODE_UPDATE_MAX));
	assert_null(node_update_state_to_string(-1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_display_names_follow_slurm_precedence),
	    cmocka_unit_test(test_sinfo_prints_lower_case_name_and_suffix),
	    cmocka_unit_test(test_scontrol_prints_base_and_every_flag),
	    cmocka_unit_test(test_every_flag_has_an_scontrol_name),
	    cmocka_unit_test(test_every_base_state_has_names),
	    cmocka_unit_test(test_update_states_parse_like_scontrol),
	    cmocka_unit_test(test_every_update_state_has_a_name_that_round_trips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
