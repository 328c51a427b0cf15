/* test_scontrol_resv.c - scontrol's reservation verbs and sinfo -T
 * against Slurm 22.05 as captured on a 3-node cluster.
 *
 * The words of "scontrol create/update reservation" are parsed at a fixed
 * "now" (2026-12-07T17:06:25 UTC) and the requests compared field by
 * field; every client-side refusal is compared with Slurm's text, byte for
 * byte. The records of "scontrol show reservation" (multi-line and -o) and
 * the rows of "sinfo -T" are built from the values Slurm showed and must
 * print the same bytes. Times print in UTC (main() sets TZ).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "render.h"

#include "cli/cli.h"
#include "cli/scontrol_resv.h"
#include "cli/sinfo_fmt.h"
#include "common/macros.h"
#include "common/msg.h"
#include "common/sl_errno.h"

#define NOW utc(2026, 12, 7, 17, 6, 25)


/* Split a command line's words (at single spaces) into argv. */
struct words {
	char buf[512];
	char *v[32];
	int n;
};

static void split(struct words *w, const char *line)
{
	snprintf(w->buf, sizeof(w->buf), "%s", line);
	w->n = 0;
	for (char *p = strtok(w->buf, " "); p && w->n < 32; p = strtok(NULL, " "))
		w->v[w->n++] = p;
}

/* Parse line; returns the code, the error text in *err_text (owned).
 * a->m borrows the words until the next call. */
static int parse(const char *line, bool is_update, struct scontrol_resv_args *a, char **err_text)
{
	static struct words w;
	int r = 0;

	split(&w, line);
	*err_text = RENDER(r = scontrol_resv_parse(out, w.n, w.v, is_update, NOW, a));
	return r;
}

/* Parse and check a create line; the whole error output. */
static char *create_errors(const char *line)
{
	struct scontrol_resv_args a;
	char *err = NULL;
	int r = parse(line, false, &a, &err);

	if (r == 0) {
		free(err);
		err = RENDER(r = scontrol_resv_create_check(out, &a.m));
		assert_int_equal(r, err[0] ? -EINVAL : 0);
	}
	scontrol_resv_args_done(&a);
	return err;
}

static void test_create_parse(void **state _unused_)
{
	struct scontrol_resv_args a;
	char *err;

	assert_int_equal(parse("reservation ReservationName=maint StartTime=now Duration=60 "
			       "Nodes=n1 Users=root Flags=MAINT,IGNORE_JOBS",
			       false, &a, &err),
			 0);
	check_render(err, "");
	assert_string_equal(a.m.name, "maint");
	assert_int_equal(a.m.start_time, NOW);
	assert_int_equal(a.m.end_time, 0);
	assert_int_equal(a.m.duration, 60);
	assert_string_equal(a.m.node_list, "n1");
	assert_int_equal(a.m.node_cnt, NO_VAL);
	assert_null(a.m.partition);
	assert_string_equal(a.m.users, "root");
	assert_null(a.m.accounts);
	assert_int_equal(a.m.flags, RESV_FLAG_MAINT | RESV_FLAG_IGNORE_JOBS);
	assert_int_equal(a.m.flags_clear, 0);
	check_render(RENDER(assert_int_equal(scontrol_resv_create_check(out, &a.m), 0)), "");
	scontrol_resv_args_done(&a);

	/* no name: the controller makes one (root_2) */
	assert_int_equal(parse("reservation StartTime=now+1hour Duration=2:00:00 NodeCnt=2 "
			       "Users=root Flags=DAILY",
			       false, &a, &err),
			 0);
	check_render(err, "");
	assert_null(a.m.name);
	assert_int_equal(a.m.start_time, NOW + 3600);
	assert_int_equal(a.m.duration, 120);
	assert_null(a.m.node_list);
	assert_int_equal(a.m.node_cnt, 2);
	assert_int_equal(a.m.flags, RESV_FLAG_DAILY);
	scontrol_resv_args_done(&a);

	/* "create res ...", abbreviations, Accounts alone, PartitionName */
	assert_int_equal(parse("res Res=u6 St=now D=1-0 NodeC=2k A=acme P=debug Fl=OVERLAP,WEEKLY "
			       "E=2026-12-08T17:06:25",
			       false, &a, &err),
			 0);
	check_render(err, "");
	assert_string_equal(a.m.name, "u6");
	assert_int_equal(a.m.duration, 24 * 60);
	assert_int_equal(a.m.node_cnt, 2048);
	assert_string_equal(a.m.accounts, "acme");
	assert_string_equal(a.m.partition, "debug");
	assert_int_equal(a.m.end_time, NOW + 86400);
	assert_int_equal(a.m.flags, RESV_FLAG_OVERLAP | RESV_FLAG_WEEKLY);
	check_render(RENDER(assert_int_equal(scontrol_resv_create_check(out, &a.m), 0)), "");
	scontrol_resv_args_done(&a);

	/* u9: Duration=UNLIMITED is a year; Nodes=ALL goes as typed */
	assert_int_equal(parse("reservation ReservationName=u9 StartTime=now Duration=UNLIMITED "
			       "Nodes=ALL Users=root Flags=OVERLAP,MAINT,IGNORE_JOBS",
			       false, &a, &err),
			 0);
	check_render(err, "");
	assert_int_equal(a.m.duration, RESV_DURATION_UNLIMITED);
	assert_string_equal(a.m.node_list, "ALL");
	scontrol_resv_args_done(&a);
}

static void test_create_refusals(void **state _unused_)
{
	/* the captured refusals, in scontrol's order of checks */
	check_render(create_errors("reservation ReservationName=y Duration=60 Nodes=n1 Users=root"),
	      "scontrol: error: A start time must be given.  No reservation created.\n");
	check_render(create_errors("reservation ReservationName=y StartTime=now Nodes=n1 Users=root"),
	      "scontrol: error: An end time or duration must be given.  No reservation created.\n");
	check_render(create_errors("reservation ReservationName=y StartTime=now Duration=60 Users=root"),
	      "scontrol: error: CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be "
	      "specified.  No reservation created.\n");
	check_render(create_errors("reservation ReservationName=y StartTime=now Duration=60 Nodes=n2"),
	      "scontrol: error: Either Users/Groups and/or Accounts must be specified.  No "
	      "reservation created.\n");
	check_render(create_errors("reservation ReservationName=z StartTime=now Duration=60 Nodes=n2 "
			    "Users=root Flags=OVERLAP,FLEX,SPEC_NODES,NO_HOLD_JOBS_AFTER,WEEKLY,"
			    "WEEKDAY"),
	      "scontrol: error: Error parsing flags OVERLAP,FLEX,SPEC_NODES,NO_HOLD_JOBS_AFTER,"
	      "WEEKLY,WEEKDAY.  No reservation created.\n");
	check_render(create_errors("reservation ReservationName=u8 StartTime=now+1hour EndTime=now "
			    "Nodes=n2 Users=root Flags=OVERLAP"),
	      "scontrol: error: Start time cannot be after end time.  No reservation created.\n");
	/* u7: both an end and a duration, consistent: accepted */
	check_render(create_errors("reservation ReservationName=u7 StartTime=now EndTime=now+1hour "
			    "Duration=60 Nodes=n2 Users=root Flags=OVERLAP"),
	      "");
	check_render(create_errors("reservation ReservationName=u7 StartTime=now EndTime=now+1hour "
			    "Duration=30 Nodes=n2 Users=root"),
	      "scontrol: error: StartTime + Duration does not equal EndTime.  No reservation "
	      "created.\n");
	/* a partition alone is enough for the client (Slurm takes its nodes) */
	check_render(create_errors("res StartTime=now Duration=5 PartitionName=debug Users=root"), "");
	check_render(create_errors("res StartTime=now Duration=5 NodeCnt=0 Users=root"),
	      "scontrol: error: CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be "
	      "specified.  No reservation created.\n");
}

static void test_parse_errors(void **state _unused_)
{
	struct scontrol_resv_args a;
	char *err;

	assert_int_equal(parse("res Foo=1 StartTime=now", false, &a, &err), -EINVAL);
	check_render(err, "scontrol: error: Unknown parameter Foo=1.  No reservation created.\n");
	/* too short for StartTime (2), NodeCnt and Nodes (5) */
	assert_int_equal(parse("S=now", false, &a, &err), -EINVAL);
	check_render(err, "scontrol: error: Unknown parameter S=now.  No reservation created.\n");
	assert_int_equal(parse("Node=3", true, &a, &err), -EINVAL);
	check_render(err, "scontrol: error: Unknown parameter Node=3.  No reservation update.\n");
	assert_int_equal(parse("res bogus", false, &a, &err), -EINVAL);
	check_render(err, "scontrol: error: Misformatted parameter 'bogus', most options have a parameter "
		   "after '='.  No reservation created.\n");
	assert_int_equal(parse("StartTime=garbage", false, &a, &err), -ESLURM_INVALID_TIME_VALUE);
	check_render(err, "Invalid time specification (pos=0): garbage\n"
		   "scontrol: error: Invalid start time StartTime=garbage.  No reservation "
		   "created.\n");
	assert_int_equal(parse("EndTime=now+x", true, &a, &err), -ESLURM_INVALID_TIME_VALUE);
	assert_non_null(strstr(err, "scontrol: error: Invalid end time EndTime=now+x.  No "
				    "reservation update.\n"));
	free(err);
	assert_int_equal(parse("Duration=1:2:3:4", false, &a, &err), -EINVAL);
	check_render(err,
	      "scontrol: error: Invalid duration Duration=1:2:3:4.  No reservation created.\n");
	assert_int_equal(parse("NodeCnt=two", false, &a, &err), -EINVAL);
	check_render(err, "scontrol: error: Invalid node count two\n");
	assert_int_equal(parse("Users=root Users=bob", false, &a, &err), -EINVAL);
	check_render(err, "scontrol: error: Parameter Users=bob specified more than once\n");
	assert_int_equal(parse("ReservationName=x StartTime+=1", true, &a, &err), -EINVAL);
	check_render(err, "scontrol: error: The +=/-= notation is not supported when updating StartTime.  "
		   "No reservation update.\n");
	assert_int_equal(parse("CoreCnt=4", false, &a, &err), -EINVAL);
	check_render(err, "scontrol: error: Parameter CoreCnt=4 is not supported by this build.  No "
		   "reservation created.\n");
	assert_int_equal(parse("Flags=-MAINT", false, &a, &err), -EINVAL);
	check_render(err, "scontrol: error: Error parsing flags -MAINT.  No reservation created.\n");
	scontrol_resv_args_done(&a);
}

static void test_update_parse(void **state _unused_)
{
	struct scontrol_resv_args a;
	char *err;

	/* fields not given stay unset */
	assert_int_equal(parse("ReservationName=x Duration=120", true, &a, &err), 0);
	check_render(err, "");
	assert_string_equal(a.m.name, "x");
	assert_int_equal(a.m.duration, 120);
	assert_int_equal(a.m.start_time, 0);
	assert_int_equal(a.m.end_time, 0);
	assert_int_equal(a.m.node_cnt, NO_VAL);
	assert_null(a.m.node_list);
	assert_null(a.m.users);
	assert_int_equal(a.m.flags | a.m.flags_clear, 0);

	/* the capture's refusal: SPEC_NODES is not the user's to clear */
	assert_int_equal(parse("ReservationName=x Flags-=SPEC_NODES", true, &a, &err), -EINVAL);
	check_render(err, "scontrol: error: Error parsing flags -SPEC_NODES.  No reservation update.\n");

	assert_int_equal(parse("ReservationName=x Flags+=OVERLAP", true, &a, &err), 0);
	check_render(err, "");
	assert_int_equal(a.m.flags, RESV_FLAG_OVERLAP);
	assert_int_equal(a.m.flags_clear, 0);
	assert_int_equal(parse("ReservationName=x Flags=MAINT", true, &a, &err), 0);
	check_render(err, "");
	assert_int_equal(a.m.flags, RESV_FLAG_MAINT);
	assert_int_equal(parse("ReservationName=x Flags=-MAINT,+FLEX", true, &a, &err), 0);
	check_render(err, "");
	assert_int_equal(a.m.flags, RESV_FLAG_FLEX);
	assert_int_equal(a.m.flags_clear, RESV_FLAG_MAINT);
	assert_int_equal(parse("ReservationName=x Flags-=MAINT,OVERLAP", true, &a, &err), 0);
	check_render(err, "");
	assert_int_equal(a.m.flags, 0);
	assert_int_equal(a.m.flags_clear, RESV_FLAG_MAINT | RESV_FLAG_OVERLAP);
	assert_int_equal(parse("ReservationName=x Flags+=BOGUS", true, &a, &err), -EINVAL);
	check_render(err, "scontrol: error: Error parsing flags +BOGUS.  No reservation update.\n");
	/* an empty Flags= changes nothing, as in Slurm */
	assert_int_equal(parse("ReservationName=x Flags=", true, &a, &err), 0);
	check_render(err, "");

	assert_int_equal(parse("ReservationName=x Nodes=n[2-3]", true, &a, &err), 0);
	check_render(err, "");
	assert_string_equal(a.m.node_list, "n[2-3]");
	assert_int_equal(parse("ReservationName=x StartTime=now+2hours", true, &a, &err), 0);
	check_render(err, "");
	assert_int_equal(a.m.start_time, NOW + 7200);

	/* Users+= / Accounts-=: sent as Slurm sends them */
	assert_int_equal(parse("ReservationName=x Users+=bob,eve Accounts-=acme", true, &a, &err),
			 0);
	check_render(err, "");
	assert_string_equal(a.m.users, "+bob,+eve");
	assert_string_equal(a.m.accounts, "-acme");
	assert_int_equal(a.users_pm, '+');
	assert_int_equal(a.accounts_pm, '-');
	scontrol_resv_args_done(&a);
}

/* Users+=/-= against the reservation's list (the controller replaces a
 * list whole), and the user names scontrol checks for the controller. */
static void test_lists_and_users(void **state _unused_)
{
	check_render(scontrol_resv_list_merge("root", "+bob,+eve"), "root,bob,eve");
	check_render(scontrol_resv_list_merge("root,bob", "+bob"), "root,bob");
	check_render(scontrol_resv_list_merge("root,bob,eve", "-bob"), "root,eve");
	check_render(scontrol_resv_list_merge("root", "-bob"), "root");
	check_render(scontrol_resv_list_merge("root", "-root"), "");
	check_render(scontrol_resv_list_merge(NULL, "+acme"), "acme");
	check_render(scontrol_resv_list_merge("a,b,c", "-a,-c"), "b");

	assert_int_equal(scontrol_resv_users_check("root"), 0);
	assert_int_equal(scontrol_resv_users_check("0"), 0);
	assert_int_equal(scontrol_resv_users_check(NULL), 0);
	assert_int_equal(scontrol_resv_users_check("root,nosuchuser_xq"), -ESLURM_USER_ID_MISSING);
	assert_int_equal(scontrol_resv_users_check("-root"), -ESLURM_USER_ID_MISSING);
	check_render(RENDER(scontrol_resv_create_failed(stdout, out, -ESLURM_USER_ID_MISSING)),
	      "Error creating the reservation: Invalid user id\n");
}

/* Run fn with fd 2 going to a file; what it wrote there. */
static char *stderr_of(int (*fn)(const struct sl_conf *, int, char **), const char *line, int want)
{
	char path[] = "/tmp/test_scontrol_resv.XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	struct words w;
	char *buf = calloc(1, 4096);
	FILE *f;

	assert_true(fd >= 0 && saved >= 0 && buf);
	split(&w, line);
	fflush(stderr);
	dup2(fd, 2);
	assert_int_equal(fn(NULL, w.n, w.v), want);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fdopen(fd, "r");
	rewind(f);
	assert_true(fread(buf, 1, 4095, f) < 4095);
	fclose(f);
	unlink(path);
	return buf;
}

static void test_verbs_refuse_before_sending(void **state _unused_)
{
	/* scontrol update: the parse error and Slurm's "slurm_update error" */
	check_render(stderr_of(scontrol_resv_update, "ReservationName=x Flags-=SPEC_NODES", -1),
	      "scontrol: error: Error parsing flags -SPEC_NODES.  No reservation update.\n"
	      "slurm_update error: No error\n");
	check_render(stderr_of(scontrol_resv_create,
			"reservation ReservationName=y Duration=60 Nodes=n1 "
			"Users=root",
			-1),
	      "scontrol: error: A start time must be given.  No reservation created.\n");
}

static void test_create_failed(void **state _unused_)
{
	char *err = NULL;
	size_t len = 0;
	FILE *e = open_memstream(&err, &len);

	check_render(RENDER(scontrol_resv_create_failed(out, e, -ESLURM_NODES_BUSY)),
	      "Note, unless nodes are directly requested a reservation must exist in a single "
	      "partition.\nIf no partition is requested the default partition is assumed.\n");
	fclose(e);
	check_render(err, "Error creating the reservation: Requested nodes are busy\n");

	e = open_memstream(&err, &len);
	check_render(RENDER(scontrol_resv_create_failed(out, e, -ESLURM_RESERVATION_OVERLAP)), "");
	fclose(e);
	check_render(err, "Error creating the reservation: Requested reservation overlaps with another "
		   "reservation\n");
	e = open_memstream(&err, &len);
	check_render(RENDER(scontrol_resv_create_failed(out, e, -ESLURM_RESERVATION_NAME_DUP)), "");
	fclose(e);
	check_render(err, "Error creating the reservation: Duplicate reservation name\n");
}

/* The reservations of the second capture. */
static struct resv_info resvs[] = {
    {.name = "maint",
     .node_list = "n1",
     .node_cnt = 1,
     .core_cnt = 4,
     .flags = RESV_FLAG_MAINT | RESV_FLAG_IGNORE_JOBS | RESV_FLAG_SPEC_NODES,
     .tres = "cpu=4",
     .users = "root"},
    {.name = "root_2",
     .node_list = "n[1-2]",
     .node_cnt = 2,
     .core_cnt = 8,
     .partition = "debug",
     .flags = RESV_FLAG_DAILY,
     .tres = "cpu=8",
     .users = "root"},
    {.name = "o1",
     .node_list = "n3",
     .node_cnt = 1,
     .core_cnt = 4,
     .flags = RESV_FLAG_SPEC_NODES,
     .tres = "cpu=4",
     .users = "root"},
    {.name = "o3",
     .node_list = "n3",
     .node_cnt = 1,
     .core_cnt = 4,
     .flags = RESV_FLAG_OVERLAP | RESV_FLAG_SPEC_NODES,
     .tres = "cpu=4",
     .users = "root"},
    {.name = "u6",
     .node_list = "n2",
     .node_cnt = 1,
     .core_cnt = 4,
     .flags = RESV_FLAG_OVERLAP | RESV_FLAG_WEEKLY | RESV_FLAG_SPEC_NODES,
     .tres = "cpu=4",
     .accounts = "acme"},
    {.name = "u7",
     .node_list = "n2",
     .node_cnt = 1,
     .core_cnt = 4,
     .flags = RESV_FLAG_OVERLAP | RESV_FLAG_SPEC_NODES,
     .tres = "cpu=4",
     .users = "root"},
    {.name = "u9",
     .node_list = "n[1-3]",
     .node_cnt = 3,
     .core_cnt = 12,
     .flags = RESV_FLAG_MAINT | RESV_FLAG_OVERLAP | RESV_FLAG_IGNORE_JOBS | RESV_FLAG_SPEC_NODES
	      | RESV_FLAG_ALL_NODES,
     .tres = "cpu=12",
     .users = "root"},
};

static void set_times(void)
{
	time_t t0 = NOW, t1 = utc(2026, 12, 7, 17, 6, 36);

	resvs[0].start_time = t0;
	resvs[0].end_time = t0 + 3600;
	resvs[1].start_time = t0 + 3600;
	resvs[1].end_time = t0 + 3 * 3600;
	for (int i = 2; i < 7; i++) {
		resvs[i].start_time = t1;
		resvs[i].end_time = t1 + 3600;
	}
	resvs[6].end_time = utc(2027, 12, 7, 17, 6, 36);
}

static const char show_all[] =
    "ReservationName=maint StartTime=2026-12-07T17:06:25 EndTime=2026-12-07T18:06:25 "
    "Duration=01:00:00\n"
    "   Nodes=n1 NodeCnt=1 CoreCnt=4 Features=(null) PartitionName=(null) "
    "Flags=MAINT,IGNORE_JOBS,SPEC_NODES\n"
    "   TRES=cpu=4\n"
    "   Users=root Groups=(null) Accounts=(null) Licenses=(null) State=ACTIVE "
    "BurstBuffer=(null) Watts=n/a\n"
    "   MaxStartDelay=(null)\n"
    "\n"
    "ReservationName=root_2 StartTime=2026-12-07T18:06:25 EndTime=2026-12-07T20:06:25 "
    "Duration=02:00:00\n"
    "   Nodes=n[1-2] NodeCnt=2 CoreCnt=8 Features=(null) PartitionName=debug Flags=DAILY\n"
    "   TRES=cpu=8\n"
    "   Users=root Groups=(null) Accounts=(null) Licenses=(null) State=INACTIVE "
    "BurstBuffer=(null) Watts=n/a\n"
    "   MaxStartDelay=(null)\n"
    "\n";

static const char show_u6_u9[] =
    "ReservationName=u6 StartTime=2026-12-07T17:06:36 EndTime=2026-12-07T18:06:36 "
    "Duration=01:00:00\n"
    "   Nodes=n2 NodeCnt=1 CoreCnt=4 Features=(null) PartitionName=(null) "
    "Flags=OVERLAP,WEEKLY,SPEC_NODES\n"
    "   TRES=cpu=4\n"
    "   Users=(null) Groups=(null) Accounts=acme Licenses=(null) State=ACTIVE "
    "BurstBuffer=(null) Watts=n/a\n"
    "   MaxStartDelay=(null)\n"
    "\n"
    "ReservationName=u9 StartTime=2026-12-07T17:06:36 EndTime=2027-12-07T17:06:36 "
    "Duration=365-00:00:00\n"
    "   Nodes=n[1-3] NodeCnt=3 CoreCnt=12 Features=(null) PartitionName=(null) "
    "Flags=MAINT,OVERLAP,IGNORE_JOBS,SPEC_NODES,ALL_NODES\n"
    "   TRES=cpu=12\n"
    "   Users=root Groups=(null) Accounts=(null) Licenses=(null) State=ACTIVE "
    "BurstBuffer=(null) Watts=n/a\n"
    "   MaxStartDelay=(null)\n"
    "\n";

static void test_show(void **state _unused_)
{
	struct resv_info_msg two = {.count = 2, .resvs = resvs};
	struct resv_info_msg none = {.count = 0};
	time_t now = utc(2026, 12, 7, 17, 6, 41);
	int r = 0;

	set_times();
	check_render(RENDER(scontrol_resv_show(out, &two, NULL, false, false, now)), show_all);
	check_render(RENDER(scontrol_resv_print(out, &resvs[4], false, now);
		     scontrol_resv_print(out, &resvs[6], false, now)),
	      show_u6_u9);
	check_render(RENDER(r = scontrol_resv_show(out, &two, "maint", true, false, now)),
	      "ReservationName=maint StartTime=2026-12-07T17:06:25 EndTime=2026-12-07T18:06:25 "
	      "Duration=01:00:00 Nodes=n1 NodeCnt=1 CoreCnt=4 Features=(null) "
	      "PartitionName=(null) Flags=MAINT,IGNORE_JOBS,SPEC_NODES TRES=cpu=4 Users=root "
	      "Groups=(null) Accounts=(null) Licenses=(null) State=ACTIVE BurstBuffer=(null) "
	      "Watts=n/a MaxStartDelay=(null)\n");
	assert_int_equal(r, 0);
	check_render(RENDER(r = scontrol_resv_show(out, &two, "nope", false, false, now)),
	      "Reservation nope not found\n");
	assert_int_equal(r, -ENOENT);
	check_render(RENDER(r = scontrol_resv_show(out, &two, "nope", false, true, now)), "");
	assert_int_equal(r, -ENOENT);
	check_render(RENDER(r = scontrol_resv_show(out, &none, NULL, false, false, now)),
	      "No reservations in the system\n");
	assert_int_equal(r, 0);
	check_render(RENDER(scontrol_resv_show(out, &none, NULL, false, true, now)), "");
	/* the edges of ACTIVE: its start and its end included */
	for (int i = 0; i < 4; i++) {
		static const int off[] = {3599, 3600, 3 * 3600, 3 * 3600 + 1};
		char *got = RENDER(scontrol_resv_print(out, &resvs[1], true, NOW + off[i]));

		assert_non_null(strstr(got, i == 1 || i == 2 ? "State=ACTIVE" : "State=INACTIVE"));
		free(got);
	}
}

static const char sinfo_t[] =
    "RESV_NAME     STATE           START_TIME             END_TIME     DURATION  NODELIST\n"
    "maint        ACTIVE  2026-12-07T17:06:25  2026-12-07T18:06:25     01:00:00  n1\n"
    "root_2     INACTIVE  2026-12-07T18:06:25  2026-12-07T20:06:25     02:00:00  n[1-2]\n"
    "o1           ACTIVE  2026-12-07T17:06:36  2026-12-07T18:06:36     01:00:00  n3\n"
    "o3           ACTIVE  2026-12-07T17:06:36  2026-12-07T18:06:36     01:00:00  n3\n"
    "u6           ACTIVE  2026-12-07T17:06:36  2026-12-07T18:06:36     01:00:00  n2\n"
    "u7           ACTIVE  2026-12-07T17:06:36  2026-12-07T18:06:36     01:00:00  n2\n"
    "u9           ACTIVE  2026-12-07T17:06:36  2027-12-07T17:06:36  365-00:00:00  n[1-3]\n";

static void test_sinfo_resv(void **state _unused_)
{
	struct resv_info_msg all = {.count = 7, .resvs = resvs};
	struct resv_info_msg none = {.count = 0};
	struct resv_info one = resvs[0];
	struct resv_info_msg longer = {.count = 1, .resvs = &one};
	time_t now = utc(2026, 12, 7, 17, 6, 41);

	set_times();
	check_render(RENDER(sinfo_print_resv(out, &all, false, now)), sinfo_t);
	check_render(RENDER(sinfo_print_resv(out, &all, true, now)), strchr(sinfo_t, '\n') + 1);
	check_render(RENDER(sinfo_print_resv(out, &none, false, now)), "No reservations in the system\n");
	check_render(RENDER(sinfo_print_resv(out, &none, true, now)), "No reservations in the system\n");
	/* the name column grows with the longest name */
	one.name = "maintenance_window";
	check_render(RENDER(sinfo_print_resv(out, &longer, false, now)),
	      "RESV_NAME"
	      "              "
	      "STATE           START_TIME             END_TIME     "
	      "DURATION  NODELIST\n"
	      "maintenance_window"
	      "    "
	      "ACTIVE  2026-12-07T17:06:25  2026-12-07T18:06:25     "
	      "01:00:00  n1\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_create_parse),
	    cmocka_unit_test(test_create_refusals),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_update_parse),
	    cmocka_unit_test(test_lists_and_users),
	    cmocka_unit_test(test_verbs_refuse_before_sending),
	    cmocka_unit_test(test_create_failed),
	    cmocka_unit_test(test_show),
	    cmocka_unit_test(test_sinfo_resv),
	};

	cli_init("scontrol");
	setenv("TZ", "UTC", 1);
	tzset();
	unsetenv("SLURM_TIME_FORMAT");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
