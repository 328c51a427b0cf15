/* id_name.h - user and group names of ids and ids of names, for the
 * listings of the commands (squeue, sacct, scontrol, sdiag, seff).
 *
 * Name lookups remember the last answers per thread (a listing of 5,000
 * jobs of a few users asked the password database 5,000 times: half of
 * squeue's time).
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* User name of uid into buf (size n, truncated to it); false (buf
 * unchanged) when the uid is unknown or the database fails. */
bool id_name_uid(uint32_t uid, char *buf, size_t n);
/* Group name of gid, the same way. */
bool id_name_gid(uint32_t gid, char *buf, size_t n);
/* A user name or a numeric uid of an existing user -> uid (squeue -u,
 * scancel -u); false (*ret unchanged) otherwise. */
bool id_name_uid_of(const char *name, uint32_t *ret);
/* A group name or a numeric gid of an existing group -> gid (sacct -g). */
bool id_name_gid_of(const char *name, uint32_t *ret);
