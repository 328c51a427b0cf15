/* msg_resv.h - advanced reservations on the wire: scontrol create/update
 * (REQUEST_CREATE_RESERVATION, REQUEST_UPDATE_RESERVATION: resv_desc_msg;
 * the create is answered RESPONSE_CREATE_RESERVATION with the name),
 * delete (REQUEST_DELETE_RESERVATION: resv_name_msg) and show/sinfo -T
 * (REQUEST_RESERVATION_INFO with a part_info_req, answered
 * RESPONSE_RESERVATION_INFO). Pack/unpack/free in msg_resv.c.
 *
 * Times are absolute (scontrol turns "now+1hour" into one); durations
 * are minutes.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Flags= words (Slurm's). SPEC_NODES and ALL_NODES are set by the
 * controller (Nodes= named, Nodes=ALL), never asked for. */
#define RESV_FLAG_MAINT		     0x0001u
#define RESV_FLAG_FLEX		     0x0002u
#define RESV_FLAG_OVERLAP	     0x0004u
#define RESV_FLAG_IGNORE_JOBS	     0x0008u
#define RESV_FLAG_DAILY		     0x0010u
#define RESV_FLAG_WEEKDAY	     0x0020u
#define RESV_FLAG_WEEKLY	     0x0040u
#define RESV_FLAG_NO_HOLD_JOBS_AFTER 0x0080u
#define RESV_FLAG_SPEC_NODES	     0x0100u
#define RESV_FLAG_ALL_NODES	     0x0200u
#define RESV_FLAGS_USER		     0x00ffu /* what Flags= may set or clear */
#define RESV_FLAGS_REPEAT	     (RESV_FLAG_DAILY | RESV_FLAG_WEEKDAY | RESV_FLAG_WEEKLY)

#define RESV_DURATION_UNLIMITED (365u * 24 * 60) /* Duration=UNLIMITED: a year, as Slurm */

struct resv_desc_msg {
	char *name;	      /* create: NULL = the controller names it (user_N) */
	time_t start_time;    /* 0: not given */
	time_t end_time;      /* 0: not given */
	uint32_t duration;    /* minutes, NO_VAL: not given */
	char *node_list;      /* hostlist or "ALL"; NULL: not given */
	uint32_t node_cnt;    /* NO_VAL: not given */
	char *partition;      /* NULL: not given */
	char *users;	      /* comma list of names; NULL: not given */
	char *accounts;	      /* comma list; NULL: not given */
	uint32_t flags;	      /* RESV_FLAG_* to set */
	uint32_t flags_clear; /* update: RESV_FLAG_* to clear (Flags-=, Flags=-X) */
};

struct resv_name_msg {
	char *name;
};

struct resv_info {
	char *name;
	time_t start_time, end_time;
	char *node_list; /* "" when none */
	uint32_t node_cnt, core_cnt;
	char *partition; /* NULL prints (null) */
	uint32_t flags;
	char *tres; /* "cpu=8" */
	char *users, *accounts;
};

struct resv_info_msg {
	time_t last_update;
	uint32_t count;
	struct resv_info *resvs;
};

/* "MAINT,OVERLAP,SPEC_NODES" in Slurm's order into buf (size n); "" for
 * none. Returns buf. */
const char *resv_flags_string(uint32_t flags, char *buf, size_t n);
/* A Flags= value ("MAINT,OVERLAP", words case-insensitive; with
 * is_update also "-MAINT" to clear) into *set / *clear. -EINVAL for an
 * unknown word, one Flags= may not set (SPEC_NODES...), or more than one
 * of DAILY, WEEKDAY, WEEKLY. */
int resv_flags_parse(const char *s, bool is_update, uint32_t *set, uint32_t *clear);
