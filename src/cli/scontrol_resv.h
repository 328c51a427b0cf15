/* scontrol_resv.h - scontrol's advanced reservations: create, update,
 * delete and show reservation, in Slurm 22.05's words.
 *
 * The words of a request are read into a struct resv_desc_msg by
 * scontrol_resv_parse() and checked by scontrol_resv_create_check();
 * records are printed by scontrol_resv_print(). These write only to the
 * FILE they are given, so unit tests call them directly. The verbs
 * (scontrol_resv_create/_update/_delete) talk to the controller and
 * print on stdout/stderr as scontrol does.
 */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "common/msg_resv.h"

struct sl_conf;

/* A parsed request: m borrows the words' values; what +=/-= had to
 * rewrite ("Users+=a,b" is sent as "+a,+b", as Slurm sends it) is held in
 * owned[] until scontrol_resv_args_done(). */
struct scontrol_resv_args {
	struct resv_desc_msg m;
	char users_pm, accounts_pm; /* '+' / '-' of Users+= / Accounts-=, or 0 */
	char *owned[6];
	int n_owned;
};

/* Release what args holds (not args itself); safe on a zeroed or
 * half-parsed one. */
void scontrol_resv_args_done(struct scontrol_resv_args *a);

/* The words after "create" or "update" (any order; a word without '='
 * starting with "res", such as "reservation", is skipped, as Slurm does)
 * into a->m, which starts cleared: times 0, duration and node_cnt
 * NO_VAL, strings NULL, no flags. Keys and their shortest abbreviations
 * are Slurm's: Accounts, Flags (2), Users, ReservationName, StartTime
 * (2), EndTime, Duration, NodeCnt/NodeCount (5), Nodes (5),
 * PartitionName; Users, Accounts and Flags also take "+=" / "-=".
 * Times are Slurm's formats ("now+1hour", "2026-12-07T18:00") read
 * relative to now. Keys Slurm knows but this wire cannot carry (Groups,
 * CoreCnt, Features, Licenses, TRES, Watts, BurstBuffer, MaxStartDelay,
 * Skip) are refused. Each error goes to err as "<prog>: error: <text>.
 * <tail>", tail "No reservation update." or "No reservation created."
 * Returns 0, -ESLURM_INVALID_TIME_VALUE for an unreadable time, or
 * -EINVAL for any other error; a->m is not to be sent then. */
int scontrol_resv_parse(FILE *err, int argc, char **argv, bool is_update, time_t now,
			struct scontrol_resv_args *a);

/* scontrol's checks before a create, in its order: a start time, an end
 * time or a duration, StartTime + Duration = EndTime when both are given,
 * start not after end, Nodes or NodeCnt (or a partition), Users or
 * Accounts. Returns 0, or -EINVAL after its message on err. */
int scontrol_resv_create_check(FILE *err, const struct resv_desc_msg *m);

/* The list a reservation's Users= or Accounts= becomes after cur (a comma
 * list, NULL for none) is changed by change, the "+a,+b" / "-a" words
 * that Users+=a,b / Users-=a make: '+' names are appended unless listed,
 * '-' names removed. Returns the new list ("" for none; caller frees) or
 * NULL on ENOMEM. The controller replaces a list whole, so update merges
 * the current one here. */
char *scontrol_resv_list_merge(const char *cur, const char *change);

/* Each name of a Users= list is a user of this host (name or number):
 * the controller leaves that check to scontrol. 0, or
 * -ESLURM_USER_ID_MISSING ("Invalid user id", what Slurm's controller
 * answers). */
int scontrol_resv_users_check(const char *users);

/* A refused create: "Error creating the reservation: <strerror>" on err,
 * then, for Requested nodes are busy and its sibling code, Slurm's note
 * that such a reservation must fit one partition on out. */
void scontrol_resv_create_failed(FILE *out, FILE *err, int code);

/* "ReservationName=..." record as scontrol show reservation prints it:
 * five lines and a blank one, or one line with one_liner. State= is
 * ACTIVE when start <= now <= end. Times in local time. */
void scontrol_resv_print(FILE *out, const struct resv_info *r, bool one_liner, time_t now);

/* show reservation [NAME]: every record, or the one named; "No
 * reservations in the system" when there is none (unless quiet), and
 * "Reservation NAME not found" (unless quiet) with -ENOENT for an
 * unknown name. Returns 0 or -ENOENT. */
int scontrol_resv_show(FILE *out, const struct resv_info_msg *m, const char *name, bool one_liner,
		       bool quiet, time_t now);

/* The verbs. Each prints scontrol's messages (stdout and stderr) and
 * returns 0, or -1 when scontrol exits 1. create and update take the
 * words after the verb; delete the entity word as typed (for the error
 * prefix, "delete_reservation ReservationName=x: <strerror>") and the
 * name. Before sending, create and update check the Users= names; create
 * turns PartitionName=P without Nodes/NodeCnt (or with Nodes=ALL) into
 * P's nodes, as Slurm reserves them; update merges Users+=/-= and
 * Accounts+=/-= into the reservation's current lists. */
int scontrol_resv_create(const struct sl_conf *conf, int argc, char **argv);
int scontrol_resv_update(const struct sl_conf *conf, int argc, char **argv);
int scontrol_resv_delete(const struct sl_conf *conf, const char *word, const char *name);
