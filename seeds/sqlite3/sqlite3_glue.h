/* sqlite3_glue.h: the calls of SQLite's public API that the seqfuzz grammar
 * language cannot state directly (callbacks that must call the API or be
 * consistent, SQLite's printf dialect, `T **` outputs, caller-allocated
 * arrays), each wrapped in a tiny static inline function that calls the real
 * API the way a careful application does. sqlite3.api declares them.
 *
 * Resource bounds: every connection the grammar can reach is opened by
 * sqlite3_glue_open(), which installs what test/ossfuzz.c (OSS-Fuzz's own
 * harness) installs: a progress handler that interrupts long queries, a
 * VDBE-size and string-length limit, a 20 MB heap limit, and an authorizer
 * that blocks debugging pragmas. The authorizer also blocks ATTACH / VACUUM
 * INTO of real files and the pragmas that change process-wide directories, so
 * the fuzzer never touches the file system beyond SQLite's private,
 * delete-on-close temporary files.
 */
#ifndef SQLITE3_GLUE_H
#define SQLITE3_GLUE_H
#include <string.h>
#include "sqlite3.h"

/* Progress budget shared by the connections of one run (reset by every
 * sqlite3_glue_open, i.e. at the start of each run): after this many
 * callbacks (one per 10 VDBE ops) every running statement is interrupted. */
static unsigned sqlite3_glue_progress_left;

/* Progress handler: non-zero interrupts the statement (SQLITE_INTERRUPT). */
static int sqlite3_glue_progress(void *unused) {
  (void)unused;
  if (sqlite3_glue_progress_left == 0) return 1;
  sqlite3_glue_progress_left--;
  return 0;
}

/* Authorizer: ossfuzz.c's block_debug_pragmas plus no files: ATTACH (and
 * VACUUM INTO, which ATTACHes its target) only of ":memory:" or "" (a private
 * temporary database), and no *_store_directory pragmas (process-wide). */
static int sqlite3_glue_auth(void *unused, int code, const char *a1, const char *a2,
                             const char *a3, const char *a4) {
  (void)unused; (void)a2; (void)a3; (void)a4;
  if (code == SQLITE_PRAGMA && a1 &&
      (sqlite3_strnicmp("vdbe_", a1, 5) == 0 || sqlite3_stricmp("parser_trace", a1) == 0 ||
       sqlite3_stricmp("temp_store_directory", a1) == 0 ||
       sqlite3_stricmp("data_store_directory", a1) == 0))
    return SQLITE_DENY;
  if (code == SQLITE_ATTACH && (a1 == 0 || (a1[0] != 0 && strcmp(a1, ":memory:") != 0)))
    return SQLITE_DENY;
  return SQLITE_OK;
}

/* Opens a connection: ":memory:" or, if tempfile, "" (a private on-disk
 * temporary database deleted on close), with ossfuzz.c's bounds. Returns NULL
 * on failure (after closing the half-open handle, as the docs require). */
static inline sqlite3 *sqlite3_glue_open(int tempfile, int fkeys) {
  sqlite3 *db = 0;
  /* process-wide: reset first, a previous run may have changed them */
  sqlite3_hard_heap_limit64(20000000);
  sqlite3_soft_heap_limit64(0);
  if (sqlite3_open_v2(tempfile ? "" : ":memory:", &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 0) != SQLITE_OK) {
    sqlite3_close(db);
    return 0;
  }
  sqlite3_glue_progress_left = 100000;
  sqlite3_progress_handler(db, 10, sqlite3_glue_progress, 0);
  sqlite3_limit(db, SQLITE_LIMIT_VDBE_OP, 25000);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 50000);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FKEY, fkeys != 0, (int *)0);
  /* Debian compiles with SQLITE_ENABLE_FTS3_TOKENIZER, which turns on the
   * documented-unsafe two-argument fts3_tokenizer() (it takes a raw pointer
   * from SQL); switch it off like any careful application. */
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, (int *)0);
  sqlite3_set_authorizer(db, sqlite3_glue_auth, 0);
  return db;
}

/* sqlite3_get_table, then sqlite3_free_table and sqlite3_free(errmsg);
 * returns the number of result cells or -1 on error. */
static inline int sqlite3_glue_get_table(sqlite3 *db, const char *sql) {
  char **res = 0, *err = 0;
  int nrow = 0, ncol = 0, rc = sqlite3_get_table(db, sql, &res, &nrow, &ncol, &err);
  sqlite3_free_table(res);
  sqlite3_free(err);
  return rc == SQLITE_OK ? nrow * ncol : -1;
}

/* Reads every byte of a blob result (the API returns a `const void *` of
 * sqlite3_*_bytes() bytes, not a string) and returns a checksum. */
static volatile unsigned sqlite3_glue_sink; /* keeps the reads */
static inline unsigned sqlite3_glue_sum(const unsigned char *p, int n) {
  unsigned h = 0;
  int i;
  for (i = 0; p && i < n; i++) h = h * 31 + p[i];
  sqlite3_glue_sink = h;
  return h;
}
static inline unsigned sqlite3_glue_column_blob(sqlite3_stmt *st, int i) {
  const unsigned char *p = sqlite3_column_blob(st, i);
  return sqlite3_glue_sum(p, sqlite3_column_bytes(st, i));
}
static inline unsigned sqlite3_glue_value_blob(sqlite3_value *v) {
  const unsigned char *p = sqlite3_value_blob(v);
  return sqlite3_glue_sum(p, sqlite3_value_bytes(v));
}

/* sqlite3_str_appendf(p, "%z", copy of s): %z takes a string from
 * sqlite3_malloc, which SQLite frees (a format argument cannot be one). */
static inline void sqlite3_glue_str_appendf_z(sqlite3_str *p, const char *s) {
  sqlite3_str_appendf(p, "%z", sqlite3_mprintf("%s", s));
}

/* Destructor of sqlite3_str: finish it and free the result it returns. */
static inline void sqlite3_glue_str_free(sqlite3_str *p) {
  sqlite3_free(sqlite3_str_finish(p));
}

/* sqlite3_serialize: returns the size (-1 on failure) and frees the copy;
 * with SQLITE_SERIALIZE_NOCOPY the memory belongs to the connection. */
static inline sqlite3_int64 sqlite3_glue_serialize(sqlite3 *db, const char *schema,
                                                   unsigned flags) {
  sqlite3_int64 sz = -1;
  unsigned char *p = sqlite3_serialize(db, schema, &sz, flags);
  if (!p) return -1;
  sqlite3_glue_sum(p, (int)(sz < 65536 ? sz : 65536));
  if (!(flags & SQLITE_SERIALIZE_NOCOPY)) sqlite3_free(p);
  return sz;
}

/* sqlite3_deserialize of a copy of the fuzzer's bytes in sqlite3_malloc64
 * memory, with SQLITE_DESERIALIZE_FREEONCLOSE (the documented way to hand
 * the buffer over: SQLite frees it, also when the call fails). */
static inline int sqlite3_glue_deserialize(sqlite3 *db, const char *schema,
                                           const unsigned char *data, int n, int resizeable,
                                           int readonly) {
  unsigned char *p = sqlite3_malloc64(n ? n : 1);
  if (!p) return SQLITE_NOMEM;
  int rc;
  memcpy(p, data, n);
  /* sqlite3_deserialize runs "ATTACH x AS schema" internally, which the
   * file-blocking authorizer cannot tell from a user's ATTACH of file "x":
   * lift it for the call only. */
  sqlite3_set_authorizer(db, 0, 0);
  rc = sqlite3_deserialize(db, schema, p, n, n ? n : 1,
                           SQLITE_DESERIALIZE_FREEONCLOSE |
                               (resizeable ? SQLITE_DESERIALIZE_RESIZEABLE : 0) |
                               (readonly ? SQLITE_DESERIALIZE_READONLY : 0));
  sqlite3_set_authorizer(db, sqlite3_glue_auth, 0);
  return rc;
}

/* Whether a statement (or blob: a statement internally) of db is open: a
 * backup's destination must be idle (sqlite3_next_stmt returns a pointer). */
static inline int sqlite3_glue_busy(sqlite3 *db) {
  return sqlite3_next_stmt(db, 0) != 0;
}

/* sqlite3_create_filename with one URI parameter key=value (azParam is a
 * caller array of 2*nParam strings). */
static inline sqlite3_filename sqlite3_glue_create_filename(const char *db, const char *journal,
                                                           const char *wal, const char *key,
                                                           const char *value) {
  const char *az[2] = {key, value};
  return sqlite3_create_filename(db, journal, wal, 1, az);
}

/* sqlite3_drop_modules with a keep-list of at most one name (NULL: drop all). */
static inline int sqlite3_glue_drop_modules(sqlite3 *db, const char *keep) {
  const char *az[2] = {keep, 0};
  return sqlite3_drop_modules(db, keep ? az : 0);
}

/* Application-defined SQL function and collation, as an application writes
 * them: glue_fn(X, K) returns X converted by result_* call K (exercises the
 * sqlite3_value_* / sqlite3_result_* API inside a function callback);
 * glue_agg(X) is an aggregate summing lengths through aggregate_context.
 * The collation compares byte-wise (memcmp, shorter first). */
static void sqlite3_glue_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sqlite3_value *v = argc > 0 ? argv[0] : 0;
  int k = argc > 1 ? sqlite3_value_int(argv[1]) : 0;
  if (!v) { sqlite3_result_null(ctx); return; }
  switch (k & 15) {
  case 0: sqlite3_result_value(ctx, v); break;
  case 1: sqlite3_result_int64(ctx, sqlite3_value_int64(v)); break;
  case 2: sqlite3_result_double(ctx, sqlite3_value_double(v)); break;
  case 3: sqlite3_result_text(ctx, (const char *)sqlite3_value_text(v), sqlite3_value_bytes(v),
                              SQLITE_TRANSIENT); break;
  case 4: sqlite3_result_blob(ctx, sqlite3_value_blob(v), sqlite3_value_bytes(v),
                              SQLITE_TRANSIENT); break;
  case 5: sqlite3_result_zeroblob(ctx, sqlite3_value_int(v) & 0xffff); break;
  case 6: sqlite3_result_error(ctx, (const char *)sqlite3_value_text(v), -1); break;
  case 7: sqlite3_result_error_code(ctx, sqlite3_value_int(v)); break;
  case 8: sqlite3_result_value(ctx, v); sqlite3_result_subtype(ctx, 74); break;
  case 9: sqlite3_result_int(ctx, sqlite3_value_numeric_type(v)); break;
  case 10: sqlite3_result_int(ctx, (int)sqlite3_value_subtype(v) + sqlite3_value_frombind(v)); break;
  case 11: sqlite3_result_error_toobig(ctx); break;
  case 12: sqlite3_result_text64(ctx, (const char *)sqlite3_value_text(v), sqlite3_value_bytes(v),
                                 SQLITE_TRANSIENT, SQLITE_UTF8); break;
  default: sqlite3_result_null(ctx); break;
  }
}
static void sqlite3_glue_agg_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sqlite3_int64 *sum = sqlite3_aggregate_context(ctx, sizeof *sum);
  if (sum && argc > 0) *sum += sqlite3_value_bytes(argv[0]);
}
static void sqlite3_glue_agg_final(sqlite3_context *ctx) {
  sqlite3_int64 *sum = sqlite3_aggregate_context(ctx, 0);
  sqlite3_result_int64(ctx, sum ? *sum : 0);
}
static int sqlite3_glue_coll(void *unused, int n1, const void *a, int n2, const void *b) {
  int c = memcmp(a, b, n1 < n2 ? n1 : n2);
  (void)unused;
  return c ? c : n1 - n2;
}
/* Registers glue_fn (scalar) or, if aggregate, glue_agg under name. */
static inline int sqlite3_glue_create_function(sqlite3 *db, const char *name, int nArg,
                                               int flags, int aggregate) {
  if (aggregate)
    return sqlite3_create_function_v2(db, name, nArg, SQLITE_UTF8 | flags, 0, 0,
                                      sqlite3_glue_agg_step, sqlite3_glue_agg_final, 0);
  return sqlite3_create_function_v2(db, name, nArg, SQLITE_UTF8 | flags, 0, sqlite3_glue_fn, 0,
                                    0, 0);
}
static inline int sqlite3_glue_create_collation(sqlite3 *db, const char *name) {
  return sqlite3_create_collation_v2(db, name, SQLITE_UTF8, 0, sqlite3_glue_coll, 0);
}

/* The preupdate hook: installed (on) or removed (off); it calls
 * sqlite3_preupdate_count/depth/old/new, which are only legal inside it. */
#ifndef SQLITE_ENABLE_PREUPDATE_HOOK
/* sqlite3.h declares these only under SQLITE_ENABLE_PREUPDATE_HOOK, which
 * the library (Debian's options) was compiled with but this file is not. */
void *sqlite3_preupdate_hook(sqlite3 *db,
                             void (*xPreUpdate)(void *, sqlite3 *, int, char const *,
                                                char const *, sqlite3_int64, sqlite3_int64),
                             void *);
int sqlite3_preupdate_old(sqlite3 *, int, sqlite3_value **);
int sqlite3_preupdate_count(sqlite3 *);
int sqlite3_preupdate_depth(sqlite3 *);
int sqlite3_preupdate_new(sqlite3 *, int, sqlite3_value **);
#endif
static void sqlite3_glue_preupdate_cb(void *u, sqlite3 *db, int op, const char *zDb,
                                      const char *zName, sqlite3_int64 k1, sqlite3_int64 k2) {
  int i, n = sqlite3_preupdate_count(db);
  sqlite3_value *v;
  (void)u; (void)zDb; (void)zName; (void)k1; (void)k2;
  sqlite3_preupdate_depth(db);
  for (i = 0; i < n; i++) {
    if (op != SQLITE_INSERT && sqlite3_preupdate_old(db, i, &v) == SQLITE_OK)
      sqlite3_value_bytes(v);
    if (op != SQLITE_DELETE && sqlite3_preupdate_new(db, i, &v) == SQLITE_OK)
      sqlite3_value_bytes(v);
  }
}
static inline void sqlite3_glue_preupdate_hook(sqlite3 *db, int on) {
  sqlite3_preupdate_hook(db, on ? sqlite3_glue_preupdate_cb : 0, 0);
}
#endif
