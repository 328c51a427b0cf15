/* assoc_store.c - sacctmgr's records in SQLite (assoc_store.h).
 *
 * Purpose: keep the association table across restarts.
 * Owns: its sqlite3 handle (a second connection to the accounting file).
 * Each table's columns are listed once (struct col) and the CREATE, INSERT
 * and SELECT are generated from the list, so a field cannot be written
 * without being read back. A save rewrites every table in one
 * transaction: sacctmgr changes are rare and the tables small.
 */
#include "slurmctld/assoc_store.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "common/log.h"
#include "common/msg_assoc.h"

#define BUSY_MS 10000

enum col_type { COL_U32, COL_U64, COL_DBL, COL_STR };

struct col {
	const char *name;
	enum col_type type;
	size_t off;
};

struct table {
	const char *name;
	size_t size; /* of one record */
	const struct col *cols;
	size_t ncols;
};

#define C(s, n, t, f)                                                                              \
	{                                                                                          \
		n, t, offsetof(struct s, f)                                                        \
	}
#define LIM(s, pre, f)                                                                             \
	C(s, pre "grp_jobs", COL_U32, f.grp_jobs), C(s, pre "grp_submit", COL_U32, f.grp_submit),  \
	    C(s, pre "max_jobs", COL_U32, f.max_jobs),                                             \
	    C(s, pre "max_submit", COL_U32, f.max_submit)
#define TRES(s, pre, f)                                                                            \
	C(s, pre "_cpu", COL_U64, f[0]), C(s, pre "_mem", COL_U64, f[1]),                          \
	    C(s, pre "_node", COL_U64, f[2]), C(s, pre "_gpu", COL_U64, f[3])

static const struct col assoc_cols[] = {
    C(assoc_rec, "id", COL_U32, id),
    C(assoc_rec, "parent_id", COL_U32, parent_id),
    C(assoc_rec, "acct", COL_STR, acct),
    C(assoc_rec, "user", COL_STR, user),
    C(assoc_rec, "partition", COL_STR, partition),
    C(assoc_rec, "shares", COL_U32, shares),
    C(assoc_rec, "def_qos_id", COL_U32, def_qos_id),
    C(assoc_rec, "qos_ids", COL_STR, qos_ids),
    LIM(assoc_rec, "", lim),
    C(assoc_rec, "max_wall", COL_U32, lim.max_wall),
    TRES(assoc_rec, "grp_tres", lim.grp_tres),
    TRES(assoc_rec, "max_tres_pj", lim.max_tres_pj),
    C(assoc_rec, "usage_raw", COL_DBL, usage_raw),
};

static const struct col qos_cols[] = {
    C(qos_rec, "id", COL_U32, id),
    C(qos_rec, "name", COL_STR, name),
    C(qos_rec, "description", COL_STR, description),
    C(qos_rec, "preempt", COL_STR, preempt),
    C(qos_rec, "preempt_mode", COL_STR, preempt_mode),
    C(qos_rec, "priority", COL_U32, priority),
    C(qos_rec, "grace_time", COL_U32, grace_time),
    C(qos_rec, "usage_factor", COL_DBL, usage_factor),
    C(qos_rec, "max_wall", COL_U32, max_wall),
    C(qos_rec, "max_jobs_pu", COL_U32, max_jobs_pu),
    C(qos_rec, "max_submit_pu", COL_U32, max_submit_pu),
    C(qos_rec, "grp_jobs", COL_U32, grp_jobs),
    TRES(qos_rec, "grp_tres", grp_tres),
    TRES(qos_rec, "max_tres_pj", max_tres_pj),
};

static const struct col user_cols[] = {
    C(user_rec, "name", COL_STR, name),
    C(user_rec, "default_acct", COL_STR, default_acct),
    C(user_rec, "admin_level", COL_U32, admin_level),
};

static const struct col acct_cols[] = {
    C(account_rec, "name", COL_STR, name),
    C(account_rec, "description", COL_STR, description),
    C(account_rec, "organization", COL_STR, organization),
};

struct cluster_row {
	char *name;
};
static const struct col cluster_cols[] = {C(cluster_row, "name", COL_STR, name)};

struct meta_row {
	uint32_t next_assoc_id, next_qos_id;
};
static const struct col meta_cols[] = {
    C(meta_row, "next_assoc_id", COL_U32, next_assoc_id),
    C(meta_row, "next_qos_id", COL_U32, next_qos_id),
};

#define T(n, s, c)                                                                                 \
	{                                                                                          \
		n, sizeof(struct s), c, sizeof(c) / sizeof(c[0])                                   \
	}
enum { T_ASSOC, T_QOS, T_USER, T_ACCT, T_CLUSTER, T_META, T_N };
static const struct table tables[T_N] = {
    T("sa_assoc", assoc_rec, assoc_cols),	T("sa_qos", qos_rec, qos_cols),
    T("sa_user", user_rec, user_cols),		T("sa_account", account_rec, acct_cols),
    T("sa_cluster", cluster_row, cluster_cols), T("sa_meta", meta_row, meta_cols),
};

struct assoc_store {
	sqlite3 *db;
};

static int db_err(sqlite3 *db, int rc, const char *what)
{
	error("accounting: associations: %s: %s", what,
	      db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
	return rc == SQLITE_NOMEM ? -ENOMEM : rc == SQLITE_FULL ? -ENOSPC : -EIO;
}

static int exec(sqlite3 *db, const char *sql)
{
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_err(db, rc, sql);
}

/* "CREATE TABLE IF NOT EXISTS t (a, b)", "INSERT INTO t VALUES (?,?)" or
 * "SELECT a, b FROM t" into buf. */
static void table_sql(const struct table *t, int kind, char *buf, size_t n)
{
	size_t len;

	if (kind == 0)
		len = (size_t)snprintf(buf, n, "CREATE TABLE IF NOT EXISTS %s (", t->name);
	else if (kind == 1)
		len = (size_t)snprintf(buf, n, "INSERT INTO %s VALUES (", t->name);
	else
		len = (size_t)snprintf(buf, n, "SELECT ");
	for (size_t i = 0; i < t->ncols && len < n; i++) {
		const char *sep = i ? ", " : "";
		const char *ty = t->cols[i].type == COL_STR   ? "TEXT"
				 : t->cols[i].type == COL_DBL ? "REAL"
							      : "INTEGER";

		if (kind == 0)
			len += (size_t)snprintf(buf + len, n - len, "%s\"%s\" %s", sep,
						t->cols[i].name, ty);
		else if (kind == 1)
			len += (size_t)snprintf(buf + len, n - len, "%s?", sep);
		else
			len +=
			    (size_t)snprintf(buf + len, n - len, "%s\"%s\"", sep, t->cols[i].name);
	}
	if (len < n)
		snprintf(buf + len, n - len, kind == 2 ? " FROM %s" : ")",
			 kind == 2 ? t->name : "");
}

int assoc_store_open(const char *path, struct assoc_store **ret)
{
	struct assoc_store *st = calloc(1, sizeof(*st));
	char sql[2048];
	int rc, r = 0;

	if (!st)
		return -ENOMEM;
	rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		r = db_err(st->db, rc, path);
		assoc_store_close(st);
		return r;
	}
	sqlite3_busy_timeout(st->db, BUSY_MS);
	for (int i = 0; r == 0 && i < T_N; i++) {
		table_sql(&tables[i], 0, sql, sizeof(sql));
		r = exec(st->db, sql);
	}
	if (r < 0) {
		assoc_store_close(st);
		return r;
	}
	*ret = st;
	return 0;
}

void assoc_store_close(struct assoc_store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	free(st);
}

static int put_rows(sqlite3 *db, const struct table *t, const void *rows, uint32_t n)
{
	char sql[2048];
	sqlite3_stmt *s = NULL;
	int rc;

	table_sql(t, 1, sql, sizeof(sql));
	rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
	for (uint32_t i = 0; rc == SQLITE_OK && i < n; i++) {
		const char *row = (const char *)rows + (size_t)i * t->size;

		for (size_t k = 0; k < t->ncols; k++) {
			const void *f = row + t->cols[k].off;
			int col = (int)k + 1;

			if (t->cols[k].type == COL_U32)
				sqlite3_bind_int64(s, col, *(const uint32_t *)f);
			else if (t->cols[k].type == COL_U64) /* the bits: INFINITE64 too */
				sqlite3_bind_int64(s, col, (sqlite3_int64) * (const uint64_t *)f);
			else if (t->cols[k].type == COL_DBL)
				sqlite3_bind_double(s, col, *(const double *)f);
			else if (*(char *const *)f)
				sqlite3_bind_text(s, col, *(char *const *)f, -1, SQLITE_STATIC);
			else
				sqlite3_bind_null(s, col);
		}
		rc = sqlite3_step(s);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? 0 : db_err(db, rc, t->name);
}

int assoc_store_save(struct assoc_store *st, const struct assoc_dump *d)
{
	struct meta_row meta = {d->next_assoc_id, d->next_qos_id};
	struct cluster_row *cl = calloc(d->cluster_count + 1, sizeof(*cl));
	char sql[128];
	int r;

	if (!cl)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->cluster_count; i++)
		cl[i].name = d->clusters[i];
	r = exec(st->db, "BEGIN IMMEDIATE");
	for (int i = 0; r == 0 && i < T_N; i++) {
		snprintf(sql, sizeof(sql), "DELETE FROM %s", tables[i].name);
		r = exec(st->db, sql);
	}
	if (r == 0)
		r = put_rows(st->db, &tables[T_ASSOC], d->assocs, d->assoc_count);
	if (r == 0)
		r = put_rows(st->db, &tables[T_QOS], d->qos, d->qos_count);
	if (r == 0)
		r = put_rows(st->db, &tables[T_USER], d->users, d->user_count);
	if (r == 0)
		r = put_rows(st->db, &tables[T_ACCT], d->accts, d->acct_count);
	if (r == 0)
		r = put_rows(st->db, &tables[T_CLUSTER], cl, d->cluster_count);
	if (r == 0)
		r = put_rows(st->db, &tables[T_META], &meta, 1);
	free(cl);
	if (r == 0)
		r = exec(st->db, "COMMIT");
	if (r < 0)
		exec(st->db, "ROLLBACK");
	return r;
}

static int read_row(sqlite3_stmt *s, const struct table *t, char *row)
{
	for (size_t k = 0; k < t->ncols; k++) {
		void *f = row + t->cols[k].off;
		int col = (int)k;

		if (t->cols[k].type == COL_U32)
			*(uint32_t *)f = (uint32_t)sqlite3_column_int64(s, col);
		else if (t->cols[k].type == COL_U64)
			*(uint64_t *)f = (uint64_t)sqlite3_column_int64(s, col);
		else if (t->cols[k].type == COL_DBL)
			*(double *)f = sqlite3_column_double(s, col);
		else if (sqlite3_column_type(s, col) != SQLITE_NULL) {
			const unsigned char *txt = sqlite3_column_text(s, col);

			if (!txt || !(*(char **)f = strdup((const char *)txt)))
				return -ENOMEM;
		}
	}
	return 0;
}

/* Every row of t into a calloc'd array (*ret, *ret_n). */
static int get_rows(sqlite3 *db, const struct table *t, void **ret, uint32_t *ret_n)
{
	char sql[2048];
	sqlite3_stmt *s = NULL;
	uint32_t n = 0, cap = 0;
	char *rows = NULL;
	int rc, r = 0;

	table_sql(t, 2, sql, sizeof(sql));
	rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
	while (rc == SQLITE_OK && r == 0 && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		rc = SQLITE_OK;
		if (n == cap) {
			char *nr = realloc(rows, (size_t)(cap = cap * 2 + 8) * t->size);

			if (!nr) {
				r = -ENOMEM;
				break;
			}
			rows = nr;
		}
		memset(rows + (size_t)n * t->size, 0, t->size);
		r = read_row(s, t, rows + (size_t)n * t->size);
		n++; /* a partial row is freed with the rest */
	}
	sqlite3_finalize(s);
	if (r == 0 && rc != SQLITE_DONE && rc != SQLITE_OK)
		r = db_err(db, rc, t->name);
	*ret = rows;
	*ret_n = n;
	return r;
}

int assoc_store_load(struct assoc_store *st, struct assoc_dump *d)
{
	struct cluster_row *cl = NULL;
	struct meta_row *meta = NULL;
	uint32_t ncl = 0, nmeta = 0;
	int r;

	*d = (struct assoc_dump){0};
	r = get_rows(st->db, &tables[T_ASSOC], (void **)&d->assocs, &d->assoc_count);
	if (r == 0)
		r = get_rows(st->db, &tables[T_QOS], (void **)&d->qos, &d->qos_count);
	if (r == 0)
		r = get_rows(st->db, &tables[T_USER], (void **)&d->users, &d->user_count);
	if (r == 0)
		r = get_rows(st->db, &tables[T_ACCT], (void **)&d->accts, &d->acct_count);
	if (r == 0)
		r = get_rows(st->db, &tables[T_CLUSTER], (void **)&cl, &ncl);
	if (r == 0 && ncl && !(d->clusters = calloc(ncl, sizeof(char *))))
		r = -ENOMEM;
	for (uint32_t i = 0; i < ncl; i++) {
		if (d->clusters)
			d->clusters[d->cluster_count++] = cl[i].name;
		else
			free(cl[i].name);
	}
	free(cl);
	if (r == 0)
		r = get_rows(st->db, &tables[T_META], (void **)&meta, &nmeta);
	if (r == 0 && nmeta) {
		d->next_assoc_id = meta[0].next_assoc_id;
		d->next_qos_id = meta[0].next_qos_id;
	}
	free(meta);
	if (r < 0)
		assoc_dump_free(d);
	return r;
}
