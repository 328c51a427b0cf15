/* assoc_store.h - sacctmgr's records (clusters, accounts, users,
 * associations, QOS) in the accounting store's SQLite file, in their own
 * tables. Used at start (load, before the loop serves) and by the
 * accounting thread (save); nothing here touches controller state, so it
 * is unit-tested on a temporary file.
 */
#pragma once

struct assoc_dump;
struct assoc_store;

/* Open (creating the tables when missing). 0 or a negative code. */
int assoc_store_open(const char *path, struct assoc_store **ret);
void assoc_store_close(struct assoc_store *st); /* NULL-safe */
/* Every record into *d (zeroed first; owned by d). 0 or a negative code. */
int assoc_store_load(struct assoc_store *st, struct assoc_dump *d);
/* Replace every record by d's, in one transaction. 0 or a negative code
 * (nothing changed then). */
int assoc_store_save(struct assoc_store *st, const struct assoc_dump *d);
