/* acct_store.c - the accounting store on SQLite (acct_store.h).
 *
 * Purpose: one row per job run (table job) and one per step (table step),
 * upserted by the accounting thread and read back a page at a time for
 * sacct and seff.
 * Owns: the sqlite3 handle and the write statements, prepared once and kept
 * for the store's life (the thread may write thousands of rows a second).
 * The columns of both tables are listed once (job_cols, step_cols); the
 * CREATE TABLE, the upserts and the SELECTs are generated from those lists,
 * so a field cannot be written without being read back.
 * Queries are one statement per page built from the filters
 * (acct_store_filter.c), with every value from the request bound as a
 * parameter, never pasted into the text.
 * The schema's version is SQLite's user_version; an older file is brought
 * up to date when opened (store_migrate), a newer one refused.
 * The row key is (job_id, submit, restart_cnt), like Slurm's id_job +
 * time_submit: job ids that come again (slurmctld -c, MaxJobId wrapping)
 * start new rows instead of replacing old ones.
 * Caveat: a step row is never deleted: a put carries the steps it knows,
 * the others stay as they were.
 */
#include "slurmctld/acct_store.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/hostlist.h"
#include "common/job_states.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/msg_acct.h"
#include "common/sl_errno.h"
#include "slurmctld/acct_store_filter.h"

#define STORE_SCHEMA_VERSION 2 /* 2: job.resv_name, job.resv_id */
#define STORE_BUSY_MS	     10000
#define STORE_CACHE_KIB	     "32768"	 /* page cache, KiB */
#define STORE_MMAP	     "268435456" /* bytes of the file read through mmap */
#define STORE_PARAMS_MAX     32766	 /* SQLite's default SQLITE_MAX_VARIABLE_NUMBER */

enum col_type { COL_U32, COL_U64, COL_TIME, COL_STR, COL_STEP_ID };

struct col {
	const char *name;
	enum col_type type;
	size_t off;
};

#define JC(n, t, f)                                                                                \
	{                                                                                          \
		n, t, offsetof(struct acct_job_rec, f)                                             \
	}
#define SC(n, t, f)                                                                                \
	{                                                                                          \
		n, t, offsetof(struct acct_step_rec, f)                                            \
	}

/* job_id and restart_cnt first: they are the conflict target. */
static const struct col job_cols[] = {
    JC("job_id", COL_U32, job_id),
    JC("restart_cnt", COL_U32, restart_cnt),
    JC("array_job_id", COL_U32, array_job_id),
    JC("array_task_id", COL_U32, array_task_id),
    JC("array_task_str", COL_STR, array_task_str),
    JC("name", COL_STR, name),
    JC("uid", COL_U32, uid),
    JC("gid", COL_U32, gid),
    JC("user", COL_STR, user),
    JC("account", COL_STR, account),
    JC("partition", COL_STR, partition),
    JC("qos", COL_STR, qos),
    JC("state", COL_U32, state),
    JC("reason", COL_U32, reason),
    JC("exit_code", COL_U32, exit_code),
    JC("derived_ec", COL_U32, derived_ec),
    JC("kill_requid", COL_U32, kill_requid),
    JC("nodes", COL_STR, nodes),
    JC("nnodes", COL_U32, nnodes),
    JC("ncpus", COL_U32, ncpus),
    JC("req_cpus", COL_U32, req_cpus),
    JC("req_nodes", COL_U32, req_nodes),
    JC("req_mem_mb", COL_U64, req_mem_mb),
    JC("mem_per_cpu", COL_U32, mem_per_cpu),
    JC("time_limit", COL_U32, time_limit),
    JC("submit", COL_TIME, submit),
    JC("eligible", COL_TIME, eligible),
    JC("start_time", COL_TIME, start),
    JC("end_time", COL_TIME, end),
    JC("work_dir", COL_STR, work_dir),
    JC("comment", COL_STR, comment),
    JC("tres_req", COL_STR, tres_req),
    JC("tres_alloc", COL_STR, tres_alloc),
    JC("resv_name", COL_STR, resv_name),
    JC("resv_id", COL_U32, resv_id),
};

/* step_id first: with job_inx it is the key. */
static const struct col step_cols[] = {
    SC("step_id", COL_STEP_ID, step_id),
    SC("name", COL_STR, name),
    SC("state", COL_U32, state),
    SC("exit_code", COL_U32, exit_code),
    SC("kill_requid", COL_U32, kill_requid),
    SC("nodes", COL_STR, nodes),
    SC("nnodes", COL_U32, nnodes),
    SC("ntasks", COL_U32, ntasks),
    SC("ncpus", COL_U32, ncpus),
    SC("start_time", COL_TIME, start),
    SC("end_time", COL_TIME, end),
    SC("tres_alloc", COL_STR, tres_alloc),
    SC("user_usec", COL_U64, usage.user_usec),
    SC("sys_usec", COL_U64, usage.sys_usec),
    SC("max_rss_kb", COL_U64, usage.max_rss_kb),
    SC("tot_rss_kb", COL_U64, usage.tot_rss_kb),
    SC("max_vm_kb", COL_U64, usage.max_vm_kb),
    SC("tot_vm_kb", COL_U64, usage.tot_vm_kb),
    SC("max_rss_task", COL_U32, usage.max_rss_task),
    SC("max_vm_task", COL_U32, usage.max_vm_task),
    SC("usage_ntasks", COL_U32, usage.ntasks),
    SC("max_rss_node", COL_STR, max_rss_node),
    SC("max_vm_node", COL_STR, max_vm_node),
};

struct acct_store {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *begin, *commit, *rollback;
	sqlite3_stmt *sp_begin, *sp_release, *sp_rollback; /* one put, nested or not */
	sqlite3_stmt *put_job, *put_step;
	sqlite3_stmt *steps_range; /* steps of job_inx BETWEEN ?1 AND ?2 */
	char *job_select;	   /* "SELECT inx, <job_cols> FROM job" */
};

static int code_from_sqlite(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_IOERR:
		return -EIO;
	case SQLITE_PERM:
	case SQLITE_READONLY:
	case SQLITE_CANTOPEN:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_TOOBIG: /* the row itself: acct_store_put's caller drops it */
		return -E2BIG;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
		return -EINVAL;
	default: /* CORRUPT, NOTADB, SCHEMA, ...: the store is unusable */
		return -ESLURM_DB_CONNECTION;
	}
}

/* Log what failed with SQLite's own words, return our code. */
static int store_fail(const struct acct_store *st, int rc, const char *what)
{
	error("accounting store %s: %s: %s", st->path, what,
	      st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
	return code_from_sqlite(rc);
}

/* Run a statement kept for the store's life to its end. */
static int run_kept(struct acct_store *st, sqlite3_stmt *s, const char *what)
{
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		;
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? 0 : store_fail(st, rc, what);
}

static int prepare(struct acct_store *st, const char *sql, sqlite3_stmt **ret)
{
	int rc = sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, ret, NULL);

	return rc == SQLITE_OK ? 0 : store_fail(st, rc, "prepare");
}

/* ---- columns: SQL text, bind, read ---- */

/* "a, b, c", or ", a, b, c" after other columns. */
static void cols_list(FILE *f, bool is_after, const struct col *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i || is_after ? ", " : "", c[i].name);
}

static void cols_create(FILE *f, const struct col *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, ", %s %s", c[i].name,
			c[i].type == COL_STR ? "TEXT" : "INTEGER NOT NULL");
}

static int cols_bind(sqlite3_stmt *s, int first, const struct col *c, size_t n, const void *rec)
{
	int rc = SQLITE_OK;

	for (size_t i = 0; i < n && rc == SQLITE_OK; i++) {
		const char *p = (const char *)rec + c[i].off;
		int k = first + (int)i;

		switch (c[i].type) {
		case COL_U32:
			rc = sqlite3_bind_int64(s, k, *(const uint32_t *)p);
			break;
		case COL_U64: /* NO_VAL64 goes in as -2 and comes back the same */
			rc = sqlite3_bind_int64(s, k, (int64_t) * (const uint64_t *)p);
			break;
		case COL_TIME:
			rc = sqlite3_bind_int64(s, k, *(const time_t *)p);
			break;
		case COL_STR:
			rc = sqlite3_bind_text(s, k, *(char *const *)p, -1, SQLITE_STATIC);
			break;
		case COL_STEP_ID: /* batch (0xfffffffb) is -5: sorts before step 0 */
			rc = sqlite3_bind_int64(s, k, (int32_t) * (const uint32_t *)p);
			break;
		}
	}
	return rc;
}

static int cols_read(sqlite3_stmt *s, int first, const struct col *c, size_t n, void *rec)
{
	for (size_t i = 0; i < n; i++) {
		char *p = (char *)rec + c[i].off;
		int k = first + (int)i;
		const unsigned char *text;

		switch (c[i].type) {
		case COL_U32:
			*(uint32_t *)p = (uint32_t)sqlite3_column_int64(s, k);
			break;
		case COL_U64:
			*(uint64_t *)p = (uint64_t)sqlite3_column_int64(s, k);
			break;
		case COL_TIME:
			*(time_t *)p = (time_t)sqlite3_column_int64(s, k);
			break;
		case COL_STR:
			text = sqlite3_column_text(s, k);
			*(char **)p = NULL;
			if (text && !(*(char **)p = strdup((const char *)text)))
				return -ENOMEM;
			break;
		case COL_STEP_ID:
			*(uint32_t *)p = (uint32_t)(int32_t)sqlite3_column_int64(s, k);
			break;
		}
	}
	return 0;
}

/* ---- open / close ---- */

static char *sql_job_table(void)
{
	char *sql = NULL;
	size_t len;
	FILE *f = open_memstream(&sql, &len);

	if (!f)
		return NULL;
	fputs("CREATE TABLE IF NOT EXISTS job (inx INTEGER PRIMARY KEY AUTOINCREMENT", f);
	cols_create(f, job_cols, ARRAY_SIZE(job_cols));
	fputs(", UNIQUE (job_id, submit, restart_cnt));\n"
	      "CREATE TABLE IF NOT EXISTS step (job_inx INTEGER NOT NULL",
	      f);
	cols_create(f, step_cols, ARRAY_SIZE(step_cols));
	fputs(", PRIMARY KEY (job_inx, step_id)) WITHOUT ROWID;\n"
	      "CREATE INDEX IF NOT EXISTS job_array_job ON job (array_job_id);\n"
	      "CREATE INDEX IF NOT EXISTS job_uid ON job (uid);\n"
	      "CREATE INDEX IF NOT EXISTS job_end ON job (end_time);\n",
	      f);
	return fclose(f) == 0 ? sql : (free(sql), NULL);
}

/* INSERT ... ON CONFLICT DO UPDATE (never INSERT OR REPLACE, which would
 * delete the row and give it a new inx). */
static char *sql_upsert(const char *table, const char *lead, const char *key, const struct col *c,
			size_t n, size_t nkey, const char *returning)
{
	char *sql = NULL;
	size_t len;
	FILE *f = open_memstream(&sql, &len);

	if (!f)
		return NULL;
	fprintf(f, "INSERT INTO %s (%s%s", table, lead, *lead ? ", " : "");
	cols_list(f, false, c, n);
	fprintf(f, ") VALUES (%s", *lead ? "?, " : "");
	for (size_t i = 0; i < n; i++)
		fputs(i ? ", ?" : "?", f);
	fprintf(f, ") ON CONFLICT (%s) DO UPDATE SET ", key);
	/* derived_ec: the highest step exit of the run; a step whose row is
	 * written leaves the job (step_retire_recorded), so a later row of the
	 * job may not know it */
	for (size_t i = nkey; i < n; i++) {
		bool is_max = streq(c[i].name, "derived_ec");

		fprintf(f, "%s%s = %s%s%sexcluded.%s%s", i > nkey ? ", " : "", c[i].name,
			is_max ? "max(" : "", is_max ? c[i].name : "", is_max ? ", " : "",
			c[i].name, is_max ? ")" : "");
	}
	fputs(returning, f);
	return fclose(f) == 0 ? sql : (free(sql), NULL);
}

static char *sql_select(const char *lead, const struct col *c, size_t n, const char *rest)
{
	char *sql = NULL;
	size_t len;
	FILE *f = open_memstream(&sql, &len);

	if (!f)
		return NULL;
	fprintf(f, "SELECT %s", lead);
	cols_list(f, true, c, n);
	fputs(rest, f);
	return fclose(f) == 0 ? sql : (free(sql), NULL);
}

/* What brings a file of version v (the index) up to v + 1. */
static const char *const store_migrations[STORE_SCHEMA_VERSION] = {
    [1] = "ALTER TABLE job ADD COLUMN resv_name TEXT;\n"
	  "ALTER TABLE job ADD COLUMN resv_id INTEGER NOT NULL DEFAULT 0;\n",
};

/* The tables (made when missing, version 0), an older file's migrations,
 * and the version, in one transaction: a newer file is refused before it
 * is touched. */
static int store_schema(struct acct_store *st)
{
	_cleanup_free_ char *create = sql_job_table();
	char set_version[64];
	sqlite3_stmt *s = NULL;
	int rc, version;

	if (!create)
		return -ENOMEM;
	rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return store_fail(st, rc, "begin schema");
	rc = sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW)
		rc = SQLITE_OK;
	version = rc == SQLITE_OK ? sqlite3_column_int(s, 0) : 0;
	sqlite3_finalize(s);
	if (rc != SQLITE_OK) {
		int r = store_fail(st, rc, "read schema version");

		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return r;
	}
	if (version > STORE_SCHEMA_VERSION) {
		error(
		    "accounting store %s: schema version %d is newer than this controller's (%d), "
		    "refusing to use it",
		    st->path, version, STORE_SCHEMA_VERSION);
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return -ESLURM_DB_CONNECTION;
	}
	rc = sqlite3_exec(st->db, create, NULL, NULL, NULL);
	/* a new file (0) has the tables as they are now */
	for (int v = version ? version : STORE_SCHEMA_VERSION;
	     rc == SQLITE_OK && v < STORE_SCHEMA_VERSION; v++)
		rc = sqlite3_exec(st->db, store_migrations[v], NULL, NULL, NULL);
	snprintf(set_version, sizeof(set_version), "PRAGMA user_version = %d; COMMIT",
		 STORE_SCHEMA_VERSION);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(st->db, set_version, NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		int r = store_fail(st, rc, "create schema");

		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return r;
	}
	if (version && version < STORE_SCHEMA_VERSION)
		info("accounting store %s: schema version %d brought up to %d", st->path, version,
		     STORE_SCHEMA_VERSION);
	return 0;
}

static int store_prepare_all(struct acct_store *st)
{
	_cleanup_free_ char *job_up = NULL, *step_up = NULL, *steps = NULL;
	int r;

	job_up = sql_upsert("job", "", "job_id, submit, restart_cnt", job_cols,
			    ARRAY_SIZE(job_cols), 2, " RETURNING inx");
	step_up = sql_upsert("step", "job_inx", "job_inx, step_id", step_cols,
			     ARRAY_SIZE(step_cols), 1, "");
	steps = sql_select("job_inx", step_cols, ARRAY_SIZE(step_cols),
			   " FROM step WHERE job_inx BETWEEN ?1 AND ?2 ORDER BY job_inx, step_id");
	st->job_select = sql_select("inx", job_cols, ARRAY_SIZE(job_cols), " FROM job");
	if (!job_up || !step_up || !steps || !st->job_select)
		return -ENOMEM;
	if ((r = prepare(st, "BEGIN IMMEDIATE", &st->begin)) < 0
	    || (r = prepare(st, "COMMIT", &st->commit)) < 0
	    || (r = prepare(st, "ROLLBACK", &st->rollback)) < 0
	    || (r = prepare(st, "SAVEPOINT put", &st->sp_begin)) < 0
	    || (r = prepare(st, "RELEASE put", &st->sp_release)) < 0
	    || (r = prepare(st, "ROLLBACK TO put", &st->sp_rollback)) < 0
	    || (r = prepare(st, job_up, &st->put_job)) < 0
	    || (r = prepare(st, step_up, &st->put_step)) < 0
	    || (r = prepare(st, steps, &st->steps_range)) < 0)
		return r;
	return 0;
}

/* Create the file 0600 before SQLite does (it would use 0644 & ~umask; the
 * -wal and -shm files copy the database file's mode). The descriptor is
 * closed before SQLite opens the file: closing any descriptor of a file
 * drops the process's POSIX locks on it. */
static int store_create_file(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0) {
		int r = -errno;

		error("accounting store %s: open: %s", path, strerror(-r));
		return r;
	}
	close(fd);
	return 0;
}

/* sacct -N's list, sorted for a binary search per job host (the list
 * may name ACCT_Q_NODES_MAX hosts, each job row a few). */
struct node_set {
	struct hostlist *hl;
	const char **names; /* hl's, sorted by strcmp */
	size_t n;
};

static void node_set_destroy(void *p)
{
	struct node_set *ns = p;

	if (!ns)
		return;
	hostlist_free(ns->hl);
	free(ns->names);
	free(ns);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static struct node_set *node_set_new(const char *list)
{
	struct node_set *ns = calloc(1, sizeof(*ns));

	if (!ns || hostlist_count_expr(list, ACCT_Q_NODES_MAX, NULL) < 0
	    || hostlist_new(list, &ns->hl) < 0) {
		free(ns);
		return NULL;
	}
	ns->n = hostlist_count(ns->hl);
	ns->names = calloc(ns->n + 1, sizeof(*ns->names));
	if (!ns->names) {
		node_set_destroy(ns);
		return NULL;
	}
	for (size_t i = 0; i < ns->n; i++)
		ns->names[i] = hostlist_nth(ns->hl, i);
	qsort(ns->names, ns->n, sizeof(*ns->names), name_cmp);
	return ns;
}

/* SQL sl_nodes_meet(job_nodes, list): 1 when a node of the job's hostlist
 * is in the hostlist list (sacct -N), parsed once per statement. An
 * unparsable list matches nothing (rpc_acct.c refuses it first), as does
 * a job without nodes. */
static void sql_nodes_meet(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *job = (const char *)sqlite3_value_text(argv[0]);
	struct node_set *want = sqlite3_get_auxdata(ctx, 1), *own = NULL;
	struct hostlist *have = NULL;
	int met = 0;

	(void)argc;
	if (!want) {
		const char *list = (const char *)sqlite3_value_text(argv[1]);

		if (!list || !(own = node_set_new(list))) {
			sqlite3_result_int(ctx, 0);
			return;
		}
		want = own;
	}
	if (job && *job && hostlist_new(job, &have) == 0)
		for (size_t i = 0; i < hostlist_count(have) && !met; i++) {
			const char *h = hostlist_nth(have, i);

			met = bsearch(&h, want->names, want->n, sizeof(*want->names), name_cmp)
			      != NULL;
		}
	hostlist_free(have);
	sqlite3_result_int(ctx, met);
	if (own) /* kept for the next rows, or destroyed now if SQLite will not */
		sqlite3_set_auxdata(ctx, 1, own, node_set_destroy);
}

int acct_store_open(const char *path, struct acct_store **ret)
{
	struct acct_store *st;
	int rc, r;

	r = store_create_file(path);
	if (r < 0)
		return r;
	st = calloc(1, sizeof(*st));
	if (!st || !(st->path = strdup(path))) {
		free(st);
		return -ENOMEM;
	}
	/* One thread at a time uses the handle (acct.c's), so no mutex. */
	rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		r = store_fail(st, rc, "open");
		goto fail;
	}
	sqlite3_busy_timeout(st->db, STORE_BUSY_MS);
	rc = sqlite3_create_function(st->db, "sl_nodes_meet", 2,
				     SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL,
				     sql_nodes_meet, NULL, NULL);
	if (rc != SQLITE_OK) {
		r = store_fail(st, rc, "register sl_nodes_meet");
		goto fail;
	}
	/* A page cache that holds a big batch (the default 2 MiB spills to
	 * the WAL mid-transaction), and reads through mmap. */
	rc =
	    sqlite3_exec(st->db,
			 "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
			 "PRAGMA cache_size = -" STORE_CACHE_KIB "; PRAGMA mmap_size = " STORE_MMAP,
			 NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		r = store_fail(st, rc, "set journal mode");
		goto fail;
	}
	r = store_schema(st);
	if (r < 0)
		goto fail;
	r = store_prepare_all(st);
	if (r < 0)
		goto fail;
	*ret = st;
	return 0;
fail:
	acct_store_close(st);
	return r;
}

void acct_store_close(struct acct_store *st)
{
	if (!st)
		return;
	sqlite3_finalize(st->begin);
	sqlite3_finalize(st->commit);
	sqlite3_finalize(st->rollback);
	sqlite3_finalize(st->sp_begin);
	sqlite3_finalize(st->sp_release);
	sqlite3_finalize(st->sp_rollback);
	sqlite3_finalize(st->put_job);
	sqlite3_finalize(st->put_step);
	sqlite3_finalize(st->steps_range);
	if (st->db && sqlite3_close(st->db) != SQLITE_OK)
		debug("accounting store %s: close: %s", st->path, sqlite3_errmsg(st->db));
	free(st->job_select);
	free(st->path);
	free(st);
}

/* ---- writes ---- */

int acct_store_begin(struct acct_store *st)
{
	return run_kept(st, st->begin, "begin");
}

int acct_store_commit(struct acct_store *st)
{
	int r = run_kept(st, st->commit, "commit");

	/* A failed COMMIT may leave the transaction open: end it, so the
	 * next batch starts clean (its rows are queued again by the caller). */
	if (r < 0 && !sqlite3_get_autocommit(st->db))
		(void)run_kept(st, st->rollback, "rollback");
	return r;
}

static int put_rows(struct acct_store *st, const struct acct_job_rec *rec)
{
	int64_t inx = 0;
	int rc;

	rc = cols_bind(st->put_job, 1, job_cols, ARRAY_SIZE(job_cols), rec);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st->put_job)) == SQLITE_ROW) {
		inx = sqlite3_column_int64(st->put_job, 0);
		rc = SQLITE_OK;
	}
	sqlite3_reset(st->put_job);
	sqlite3_clear_bindings(st->put_job);
	if (rc != SQLITE_DONE)
		return store_fail(st, rc, "write job row");

	for (uint32_t i = 0; rec->steps && i < rec->step_count; i++) {
		rc = sqlite3_bind_int64(st->put_step, 1, inx);
		if (rc == SQLITE_OK)
			rc = cols_bind(st->put_step, 2, step_cols, ARRAY_SIZE(step_cols),
				       &rec->steps[i]);
		if (rc == SQLITE_OK)
			rc = sqlite3_step(st->put_step);
		sqlite3_reset(st->put_step);
		sqlite3_clear_bindings(st->put_step);
		if (rc != SQLITE_DONE)
			return store_fail(st, rc, "write step row");
	}
	return 0;
}

/* The job and its steps go in together or not at all, inside the caller's
 * transaction (a savepoint) or as one of their own. */
int acct_store_put(struct acct_store *st, const struct acct_job_rec *rec)
{
	int r;

	r = run_kept(st, st->sp_begin, "savepoint");
	if (r < 0)
		return r;
	r = put_rows(st, rec);
	if (r < 0) {
		(void)run_kept(st, st->sp_rollback, "rollback to savepoint");
		(void)run_kept(st, st->sp_release, "release savepoint");
		return r;
	}
	return run_kept(st, st->sp_release, "release savepoint");
}

/* ---- query: one statement per page from the filters ---- */

/* The page's statement, every parameter bound. */
static int query_prepare(struct acct_store *st, const struct acct_query_req *q, uint32_t limit,
			 uint64_t hi, sqlite3_stmt **ret)
{
	_cleanup_(acct_filter_done) struct acct_filter b = {0};
	sqlite3_stmt *s = NULL;
	int r, rc;

	if (!(b.f = open_memstream(&b.sql, &b.sql_len)))
		return -ENOMEM;
	fprintf(b.f, "%s WHERE inx > ", st->job_select);
	r = acct_filter_param(&b, q->after > INT64_MAX ? INT64_MAX : (int64_t)q->after, NULL);
	fputs(" AND inx <= ", b.f);
	r = r ?: acct_filter_param(&b, hi > INT64_MAX ? INT64_MAX : (int64_t)hi, NULL);
	r = r ?: acct_filter_where(&b, q);
	fputs(" ORDER BY inx LIMIT ", b.f);
	r = r ?: acct_filter_param(&b, (int64_t)limit + 1, NULL); /* one more: is there more */
	if (r < 0)
		return r;
	if (b.n > STORE_PARAMS_MAX)
		return -EINVAL;
	if (fclose(b.f) != 0) {
		b.f = NULL;
		return -ENOMEM;
	}
	b.f = NULL;
	rc = sqlite3_prepare_v2(st->db, b.sql, -1, &s, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < b.n; i++)
		rc = b.p[i].s ? sqlite3_bind_text(s, (int)i + 1, b.p[i].s, -1, SQLITE_TRANSIENT)
			      : sqlite3_bind_int64(s, (int)i + 1, b.p[i].i);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(s);
		return store_fail(st, rc, "prepare query");
	}
	*ret = s;
	return 0;
}

static void jobs_free(struct acct_job_rec *jobs, uint32_t n)
{
	for (uint32_t i = 0; jobs && i < n; i++)
		acct_job_rec_done(&jobs[i]);
	free(jobs);
}

/* Read the step row of s into a new slot of job's steps (grown by doubling). */
static int step_append(sqlite3_stmt *s, struct acct_job_rec *job)
{
	uint32_t n = job->step_count;

	if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) { /* 0, 4, 8, 16, ...: full */
		struct acct_step_rec *p = realloc(job->steps, (n ? 2 * n : 4) * sizeof(*p));

		if (!p)
			return -ENOMEM;
		job->steps = p;
	}
	memset(&job->steps[n], 0, sizeof(job->steps[n]));
	job->step_count++;
	return cols_read(s, 1, step_cols, ARRAY_SIZE(step_cols), &job->steps[n]);
}

/* Steps of the page's jobs (sorted by inx): one range scan
 * when the jobs are dense in inx, else one lookup per job. */
static int query_steps(struct acct_store *st, struct acct_job_rec *jobs, uint32_t count)
{
	sqlite3_stmt *s = st->steps_range;
	uint64_t first = jobs[0].inx, last = jobs[count - 1].inx;
	bool is_dense = last - first < 4 * (uint64_t)count;
	uint32_t j = 0;
	int r = 0, rc = SQLITE_DONE;

	for (uint32_t k = 0; k < count && r == 0; k = is_dense ? count : k + 1) {
		sqlite3_bind_int64(s, 1, (int64_t)(is_dense ? first : jobs[k].inx));
		sqlite3_bind_int64(s, 2, (int64_t)(is_dense ? last : jobs[k].inx));
		while (r == 0 && (rc = sqlite3_step(s)) == SQLITE_ROW) {
			uint64_t inx = (uint64_t)sqlite3_column_int64(s, 0);

			while (j < count && jobs[j].inx < inx)
				j++;
			if (j < count && jobs[j].inx == inx)
				r = step_append(s, &jobs[j]);
		}
		sqlite3_reset(s);
		if (r == 0 && rc != SQLITE_DONE)
			r = store_fail(st, rc, "read steps");
	}
	sqlite3_clear_bindings(s);
	return r;
}

/* The page's jobs into resp->jobs, allocated for the whole limit: a big
 * block is mapped lazily, so the pages never touched cost nothing, and
 * nothing is copied as the array fills. */
static int query_jobs(struct acct_store *st, sqlite3_stmt *s, uint32_t limit,
		      struct acct_query_resp *resp)
{
	int rc, r = 0;

	resp->jobs = malloc(limit * sizeof(*resp->jobs));
	if (!resp->jobs)
		return -ENOMEM;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct acct_job_rec *job;

		if (resp->count == limit) {
			resp->is_more = true;
			break;
		}
		job = &resp->jobs[resp->count++];
		memset(job, 0, sizeof(*job));
		job->inx = (uint64_t)sqlite3_column_int64(s, 0);
		r = cols_read(s, 1, job_cols, ARRAY_SIZE(job_cols), job);
		if (r < 0)
			return r;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(st, rc, "read jobs");
	return 0;
}

#define REPLY_BUDGET (16u << 20) /* packed bytes of one page, well under MaxMessageSize */
uint32_t acct_store_scan_rows = 100000; /* rows one page looks at, at most */

static size_t slen(const char *s)
{
	return s ? strlen(s) + 4 : 4;
}

/* About what a row packs to (msg_acct.c): fixed fields plus its strings. */
static size_t rec_size(const struct acct_job_rec *j)
{
	size_t n = 174 + slen(j->array_task_str) + slen(j->name) + slen(j->user)
		   + slen(j->account) + slen(j->partition) + slen(j->qos) + slen(j->nodes)
		   + slen(j->work_dir) + slen(j->comment) + slen(j->tres_req) + slen(j->tres_alloc)
		   + slen(j->resv_name);

	for (uint32_t i = 0; i < j->step_count; i++) {
		const struct acct_step_rec *t = &j->steps[i];

		n += 130 + slen(t->name) + slen(t->nodes) + slen(t->tres_alloc)
		     + slen(t->max_rss_node) + slen(t->max_vm_node);
	}
	return n;
}

/* Cut the page at REPLY_BUDGET bytes (keeping at least one job): long
 * comments or jobs with thousands of steps must not make a reply too big
 * to send. The rest comes with the next page. */
static void page_trim(struct acct_query_resp *resp)
{
	size_t total = 0;

	for (uint32_t i = 0; i < resp->count; i++) {
		total += rec_size(&resp->jobs[i]);
		if (i > 0 && total > REPLY_BUDGET) {
			for (uint32_t k = i; k < resp->count; k++)
				acct_job_rec_done(&resp->jobs[k]);
			resp->count = i;
			resp->is_more = true;
			return;
		}
	}
}

/* The highest row index (0: none). */
static int max_inx(struct acct_store *st, uint64_t *ret)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(st->db, "SELECT max(inx) FROM job", -1, &s, NULL);

	if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW)
		*ret = (uint64_t)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : store_fail(st, rc, "read the last row");
}

int acct_store_query(struct acct_store *st, const struct acct_query_req *q,
		     struct acct_query_resp *resp)
{
	uint32_t limit = q->limit < 1		       ? 1
			 : q->limit > ACCT_Q_LIMIT_MAX ? ACCT_Q_LIMIT_MAX
						       : q->limit;
	uint64_t hi, last = 0;
	sqlite3_stmt *s = NULL;
	int r;

	resp->jobs = NULL;
	resp->count = 0;
	resp->last = q->after;
	resp->is_more = false;
	/* a page looks at acct_store_scan_rows rows at most, whatever the filters
	 * (sacct -N over a million rows is many short pages, not one long
	 * one that holds up the writes queued behind it) */
	hi = q->after > UINT64_MAX - acct_store_scan_rows ? UINT64_MAX
							  : q->after + acct_store_scan_rows;
	r = max_inx(st, &last);
	r = r ?: query_prepare(st, q, limit, hi, &s);
	if (r < 0)
		return r;
	r = query_jobs(st, s, limit, resp);
	sqlite3_finalize(s);
	if (r == 0 && resp->count && !(q->flags & ACCT_Q_NO_STEPS))
		r = query_steps(st, resp->jobs, resp->count);
	if (r < 0) {
		jobs_free(resp->jobs, resp->count);
		resp->jobs = NULL;
		resp->count = 0;
		resp->is_more = false;
		return r;
	}
	if (resp->count)
		page_trim(resp);
	if (resp->count && resp->is_more) { /* cut short: on from its last job */
		resp->last = resp->jobs[resp->count - 1].inx;
		return 0;
	}
	if (!resp->count) {
		free(resp->jobs);
		resp->jobs = NULL;
	}
	resp->is_more = hi < last; /* every match up to hi sent: on from hi */
	resp->last = resp->is_more ? hi : last > q->after ? last : q->after;
	return 0;
}
