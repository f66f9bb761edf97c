/* A hand-written fuzz harness for the kvstore demo API, written the usual
 * OSS-Fuzz way (a byte-driven switch over the API calls, with the harness
 * keeping track of handles so that it never misuses the API). The benchmark
 * baseline for seqfuzz: same library, same build flags. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kvstore.h"

typedef struct input {
  const uint8_t *p;
  size_t n;
} input;

static uint8_t byte(input *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

/* A short string: a length byte (mod 8), then that many bytes (NULs cut). */
static void str(input *in, char *out, size_t cap) {
  size_t len = byte(in) % 8, i = 0;
  for (; i < len && i + 1 < cap && in->n; i++)
    out[i] = (char)byte(in);
  out[i] = 0;
}

#define MAX_DBS 4

#ifdef COUNT_CALLS /* for the benchmark: API calls made, printed at exit */
#include <stdio.h>
static unsigned long long calls, execs;
__attribute__((destructor)) static void report(void) {
  fprintf(stderr, "handwritten: %llu executions, %llu API calls, %.1f calls per execution\n", execs,
          calls, execs ? (double)calls / (double)execs : 0.0);
}
#define COUNT() calls++
#else
#define COUNT()
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input in = {data, size};
  kv_t *dbs[MAX_DBS] = {0};
  int ndb = 0;
  kv_iter_t *it = NULL;
  kv_t *it_db = NULL;
  char key[16];
  uint8_t val[64];
#ifdef COUNT_CALLS
  execs++;
#endif
  while (in.n) {
    uint8_t op = byte(&in) % 12;
    kv_t *db = ndb ? dbs[byte(&in) % ndb] : NULL;
    if (op != 0 && !db) continue;
    if (op != 10 || it) COUNT();
    switch (op) {
    case 0:
      if (ndb < MAX_DBS) {
        unsigned cap = 1 + byte(&in) % 64;
        kv_t *d = kv_open(cap, byte(&in) & 3);
        if (d) dbs[ndb++] = d;
      }
      break;
    case 1: {
      str(&in, key, sizeof key);
      size_t vlen = byte(&in) % sizeof val;
      for (size_t i = 0; i < vlen; i++)
        val[i] = byte(&in);
      if (kv_put(db, key, val, vlen) == 0 && it_db == db) it = NULL;
      break;
    }
    case 2:
      str(&in, key, sizeof key);
      kv_lookup(db, key);
      break;
    case 3:
      str(&in, key, sizeof key);
      kv_del(db, key);
      if (it_db == db) it = NULL;
      break;
    case 4:
      kv_compact(db);
      if (it_db == db) it = NULL;
      break;
    case 5:
      if (ndb < MAX_DBS) {
        kv_t *s = kv_snapshot(db);
        if (s) dbs[ndb++] = s;
      }
      break;
    case 6: {
      int si = byte(&in) % ndb;
      kv_t *src = dbs[si];
      if (src == db) break;
      if (kv_merge(db, src) >= 0) {
        if (it_db == src || it_db == db) it = NULL;
        dbs[si] = dbs[--ndb];
      }
      break;
    }
    case 7:
      kv_count(db);
      break;
    case 8:
      kv_checksum(db);
      break;
    case 9:
      it = kv_iter(db);
      it_db = db;
      break;
    case 10:
      if (it) {
        size_t vlen;
        kv_iter_next(it, &vlen);
      }
      break;
    case 11:
      for (int i = 0; i < ndb; i++) {
        if (dbs[i] != db) continue;
        if (it_db == db) it = NULL;
        kv_close(db);
        dbs[i] = dbs[--ndb];
        break;
      }
      break;
    }
  }
  for (int i = 0; i < ndb; i++) {
    COUNT();
    kv_close(dbs[i]);
  }
  return 0;
}
