/* Translates inputs of the hand-written harness (kvstore_handwritten.c,
 * compiled in) into seqfuzz sequences, in text form, that make the same API
 * calls: bench/overhead.sh then replays the same work through both harnesses.
 * Linked with -Wl,--wrap for each kv_ function: the wrappers below print the
 * call and make it.
 *
 *   handwritten_trace OUT_DIR INPUT...
 *
 * writes OUT_DIR/<input name>.seq for each input whose calls all succeed (a
 * seqfuzz run stops at a call failing by the API's error convention, the
 * hand-written harness goes on: such an input would not be the same work).
 * The closes the harness makes after its loop are left out: seqfuzz's
 * executor destroys what the caller still owns by itself. */
#define _GNU_SOURCE /* vasprintf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvstore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the sequence being written --------------------------------------- */

#define MAX_LINES   4096
#define MAX_HANDLES 4096

static char *lines[MAX_LINES];
static int nlines;
/* Handle hN is handles[N - 1], a store (0) or an iterator (1) by kinds[]. */
static const void *handles[MAX_HANDLES];
static int kinds[MAX_HANDLES];
static int nhandles;
static int failed;           /* a call failed by the error convention */
static int closes_from = -1; /* first line of the trailing kv_close run */

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...) {
  if (nlines == MAX_LINES) {
    failed = 1;
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&lines[nlines], fmt, ap) < 0) lines[nlines] = NULL, failed = 1;
  va_end(ap);
  nlines++;
}

/* The newest handle for p (addresses are reused once freed). */
static int name_of(const void *p, int kind) {
  for (int i = nhandles; i-- > 0;)
    if (handles[i] == p && kinds[i] == kind) return i + 1;
  failed = 1; /* not made by a traced call: cannot happen */
  return 0;
}

static int new_name(const void *p, int kind) {
  if (nhandles == MAX_HANDLES) {
    failed = 1;
    return 0;
  }
  handles[nhandles] = p;
  kinds[nhandles] = kind;
  return ++nhandles;
}

/* A string or buffer literal of the text form. */
static char *literal(const void *data, size_t n) {
  const unsigned char *d = data;
  char *s = malloc(4 * n + 4), *o = s;
  *o++ = '"';
  for (size_t i = 0; i < n; i++) {
    if (d[i] >= 0x20 && d[i] < 0x7f && d[i] != '"' && d[i] != '\\')
      *o++ = (char)d[i];
    else
      o += sprintf(o, "\\x%02x", d[i]);
  }
  *o++ = '"';
  *o = 0;
  return s;
}

static const char *flag_names(unsigned flags) {
  static const char *const names[] = {"0", "KV_CHECKSUM", "KV_NOCOPY", "KV_CHECKSUM|KV_NOCOPY"};
  return names[flags & 3];
}

/* Any call but kv_close ends a run of closes. */
static void not_a_close(void) {
  closes_from = -1;
}

/* ---- the wrapped API ---------------------------------------------------- */

kv_t *__real_kv_open(unsigned capacity, unsigned flags);
void __real_kv_close(kv_t *db);
int __real_kv_put(kv_t *db, const char *key, const void *val, size_t vlen);
long __real_kv_lookup(const kv_t *db, const char *key);
int __real_kv_del(kv_t *db, const char *key);
int __real_kv_compact(kv_t *db);
kv_t *__real_kv_snapshot(const kv_t *db);
int __real_kv_merge(kv_t *dst, kv_t *src);
size_t __real_kv_count(const kv_t *db);
uint32_t __real_kv_checksum(const kv_t *db);
kv_iter_t *__real_kv_iter(kv_t *db);
int __real_kv_iter_next(kv_iter_t *it, size_t *vlen);

kv_t *__wrap_kv_open(unsigned capacity, unsigned flags) {
  not_a_close();
  kv_t *db = __real_kv_open(capacity, flags);
  if (!db) failed = 1;
  emit("h%d = kv_open(%u, %s);", new_name(db, 0), capacity, flag_names(flags));
  return db;
}

void __wrap_kv_close(kv_t *db) {
  if (closes_from < 0) closes_from = nlines;
  emit("kv_close(h%d);", name_of(db, 0));
  __real_kv_close(db);
}

int __wrap_kv_put(kv_t *db, const char *key, const void *val, size_t vlen) {
  not_a_close();
  char *k = literal(key, strlen(key)), *v = literal(val, vlen);
  emit("kv_put(h%d, %s, %s);", name_of(db, 0), k, v);
  free(k);
  free(v);
  int r = __real_kv_put(db, key, val, vlen);
  if (r < 0) failed = 1;
  return r;
}

#define KEY_CALL(ret, fn, const_)                                                                  \
  ret __wrap_##fn(const_ kv_t *db, const char *key) {                                              \
    not_a_close();                                                                                 \
    char *k = literal(key, strlen(key));                                                           \
    emit(#fn "(h%d, %s);", name_of(db, 0), k);                                                     \
    free(k);                                                                                       \
    return __real_##fn(db, key);                                                                   \
  }
KEY_CALL(long, kv_lookup, const)
KEY_CALL(int, kv_del, )

#define DB_CALL(ret, fn, const_)                                                                   \
  ret __wrap_##fn(const_ kv_t *db) {                                                               \
    not_a_close();                                                                                 \
    emit(#fn "(h%d);", name_of(db, 0));                                                            \
    return __real_##fn(db);                                                                        \
  }
DB_CALL(int, kv_compact, )
DB_CALL(size_t, kv_count, const)
DB_CALL(uint32_t, kv_checksum, const)

kv_t *__wrap_kv_snapshot(const kv_t *db) {
  not_a_close();
  int from = name_of(db, 0);
  kv_t *s = __real_kv_snapshot(db);
  if (!s) failed = 1;
  emit("h%d = kv_snapshot(h%d);", new_name(s, 0), from);
  return s;
}

int __wrap_kv_merge(kv_t *dst, kv_t *src) {
  not_a_close();
  emit("kv_merge(h%d, h%d);", name_of(dst, 0), name_of(src, 0));
  int r = __real_kv_merge(dst, src);
  if (r < 0) failed = 1;
  return r;
}

kv_iter_t *__wrap_kv_iter(kv_t *db) {
  not_a_close();
  int from = name_of(db, 0);
  kv_iter_t *it = __real_kv_iter(db);
  emit("h%d = kv_iter(h%d);", new_name(it, 1), from);
  return it;
}

int __wrap_kv_iter_next(kv_iter_t *it, size_t *vlen) {
  not_a_close();
  emit("kv_iter_next(h%d, &_);", name_of(it, 1));
  return __real_kv_iter_next(it, vlen);
}

/* ---- driver ------------------------------------------------------------- */

static unsigned char *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char *buf = NULL;
  size_t cap = 0, len = 0, got;
  do {
    if (len == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 4096))) break;
    got = fread(buf + len, 1, cap - len, f);
    len += got;
  } while (got);
  fclose(f);
  *n = len;
  return buf;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: handwritten_trace OUT_DIR INPUT...\n");
    return 2;
  }
  int kept = 0, skipped = 0;
  for (int a = 2; a < argc; a++) {
    size_t n;
    unsigned char *data = read_file(argv[a], &n);
    if (!data) continue;
    nlines = nhandles = failed = 0;
    closes_from = -1;
    LLVMFuzzerTestOneInput(data, n);
    free(data);
    int end = closes_from >= 0 ? closes_from : nlines;
    if (!failed) {
      const char *base = strrchr(argv[a], '/');
      char path[4096];
      snprintf(path, sizeof path, "%s/%s.seq", argv[1], base ? base + 1 : argv[a]);
      FILE *out = fopen(path, "w");
      if (out) {
        for (int i = 0; i < end; i++)
          fprintf(out, "%s\n", lines[i]);
        fclose(out);
        kept++;
      }
    } else {
      skipped++;
    }
    for (int i = 0; i < nlines; i++)
      free(lines[i]);
  }
  fprintf(stderr, "handwritten_trace: %d inputs translated, %d left out (a call failed)\n", kept,
          skipped);
  return 0;
}
