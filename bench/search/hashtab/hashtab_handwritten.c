/* A hand-written libFuzzer harness for hashtab.h, written the usual OSS-Fuzz
 * way: a byte picks each call, keys come from a pool of 16 names (so that
 * puts, gets and deletes meet the same keys), values are short strings from
 * the input, and the harness tracks its tables and iterators so that it
 * never misuses the API (an iterator dies with any ht_put or ht_clear on its
 * table). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hashtab.h"

typedef struct input {
  const uint8_t *p;
  size_t n;
} input;

static uint8_t byte(input *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

static const char *const keys[16] = {
    "",   "a",    "b",      "c",      "key",   "name", "id",    "x1",
    "x2", "user", "user:1", "user:2", "alpha", "beta", "gamma", "a much longer key name"};

/* A value: a length byte (mod 16), then that many bytes (NULs cut). */
static void str(input *in, char *out, size_t cap) {
  size_t len = byte(in) % 16, i = 0;
  for (; i < len && i + 1 < cap && in->n; i++)
    out[i] = (char)(byte(in) | 1);
  out[i] = 0;
}

#define MAX_TABLES 2
#define MAX_ITERS  4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input in = {data, size};
  ht_t *tabs[MAX_TABLES] = {0};
  ht_iter_t *its[MAX_ITERS] = {0};
  int it_tab[MAX_ITERS] = {0};
  char val[32], buf[64];
  while (in.n) {
    uint8_t op = byte(&in) % 11;
    int ti = byte(&in) % MAX_TABLES;
    ht_t *t = tabs[ti];
    if (op != 0 && !t) continue;
    switch (op) {
    case 0:
      if (!t) tabs[ti] = ht_new(byte(&in) % 65);
      break;
    case 1:
    case 2: { /* puts are the commonest call */
      const char *k = keys[byte(&in) % 16];
      str(&in, val, sizeof val);
      ht_put(t, k, val); /* documented to invalidate iterators, even when it fails */
      for (int i = 0; i < MAX_ITERS; i++)
        if (its[i] && it_tab[i] == ti) its[i] = NULL;
      break;
    }
    case 3:
      ht_get(t, keys[byte(&in) % 16], buf, byte(&in) % sizeof buf);
      break;
    case 4:
    case 5:
      ht_del(t, keys[byte(&in) % 16]);
      break;
    case 6:
      ht_count(t);
      ht_capacity(t);
      break;
    case 7:
      ht_clear(t);
      for (int i = 0; i < MAX_ITERS; i++)
        if (its[i] && it_tab[i] == ti) its[i] = NULL;
      break;
    case 8: {
      int i = byte(&in) % MAX_ITERS;
      its[i] = ht_iter(t);
      it_tab[i] = ti;
      break;
    }
    case 9: {
      int i = byte(&in) % MAX_ITERS;
      const char *k, *v;
      if (its[i]) ht_iter_next(its[i], &k, &v);
      break;
    }
    case 10:
      for (int i = 0; i < MAX_ITERS; i++)
        if (its[i] && it_tab[i] == ti) its[i] = NULL;
      ht_free(t);
      tabs[ti] = NULL;
      break;
    }
  }
  for (int i = 0; i < MAX_TABLES; i++)
    ht_free(tabs[i]);
  return 0;
}
