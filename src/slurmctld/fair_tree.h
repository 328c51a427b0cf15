/* fair_tree.h - Slurm's Fair Tree fairshare over the association tree.
 *
 * Level fairshare of an association = S / U among its siblings: S its
 * share of the siblings' Fairshare= total, U its share of their decayed
 * usage (infinite with no usage, 0 with no shares). From the root down,
 * siblings are visited in decreasing level fairshare, accounts recursed
 * into where they stand, so every user under a better-served account ranks
 * below every user under a less-served one. The users get ranks N..1 in
 * that order (users tied on level fairshare share the higher rank, and a
 * user tied with a sibling account shares it with that account's first
 * user; tied accounts have their children merged and sorted together); a
 * user's
 * fairshare factor is rank / N. An account with Fairshare=parent is
 * skipped: its children stand among its siblings.
 */
#pragma once

struct assoc_table;

/* Sets level_fs of every live association and fs_factor of every user
 * association (0 for deleted ones and users with no shares). Pure: reads
 * parent, shares_raw, usage_raw, user, acct, is_deleted. Returns 0 or
 * -ENOMEM (factors then partly set). */
int fair_tree_compute(struct assoc_table *t);
