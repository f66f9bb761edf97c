/* A hand-written fuzz harness for refcnt, written the usual OSS-Fuzz way: a
 * byte-driven switch over the API calls. The harness keeps the references it
 * holds (owned[]) and the borrowed ones (borrowed[], each with the owned
 * slot of the map it came from) so that it never misuses the API: a
 * borrowed reference is dropped whenever its map reference is modified or
 * released, and every owned reference is released at the end. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "refcnt.h"

typedef struct input {
  const uint8_t *p;
  size_t n;
} input;

static uint8_t byte(input *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

/* Keys and strings come from a small pool, so that lookups hit. */
static const char *const keys[16] = {"a",  "b",    "c",     "d",    "id", "name", "items", "x",
                                     "y0", "long", "key 1", "key2", "",   "k",    "v",     "zz"};

static const char *key(input *in) {
  return keys[byte(in) % 16];
}

#define NOWNED    16
#define NBORROWED 8

typedef struct state {
  rc_val *owned[NOWNED];
  rc_val *borrowed[NBORROWED];
  int from[NBORROWED]; /* the owned slot a borrowed reference belongs to */
} state;

static int free_owned_slot(state *st) {
  for (int i = 0; i < NOWNED; i++)
    if (!st->owned[i]) return i;
  return -1;
}

/* A live owned slot chosen by the next byte, or -1 when there is none. */
static int pick_owned(state *st, input *in) {
  int start = byte(in) % NOWNED;
  for (int k = 0; k < NOWNED; k++) {
    int i = (start + k) % NOWNED;
    if (st->owned[i]) return i;
  }
  return -1;
}

static int pick_borrowed(state *st, input *in) {
  int start = byte(in) % NBORROWED;
  for (int k = 0; k < NBORROWED; k++) {
    int i = (start + k) % NBORROWED;
    if (st->borrowed[i]) return i;
  }
  return -1;
}

/* The map reference in owned slot i is modified or released: what was
 * borrowed from it is no longer valid. */
static void forget_borrowed(state *st, int i) {
  for (int b = 0; b < NBORROWED; b++)
    if (st->borrowed[b] && st->from[b] == i) st->borrowed[b] = NULL;
}

static void keep_owned(state *st, rc_val *v) {
  if (!v) return;
  int i = free_owned_slot(st);
  if (i < 0) {
    rc_decref(v);
    return;
  }
  st->owned[i] = v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input in = {data, size};
  state st;
  memset(&st, 0, sizeof st);
  while (in.n) {
    uint8_t op = byte(&in) % 14;
    int o = -1, b = -1;
    switch (op) {
    case 0: {
      int64_t v = (int8_t)byte(&in);
      keep_owned(&st, rc_new_int(v));
      break;
    }
    case 1:
      keep_owned(&st, rc_new_str(key(&in)));
      break;
    case 2:
      keep_owned(&st, rc_new_map());
      break;
    case 3:
      if ((b = pick_borrowed(&st, &in)) >= 0) keep_owned(&st, rc_incref(st.borrowed[b]));
      break;
    case 4:
      if ((o = pick_owned(&st, &in)) >= 0) {
        forget_borrowed(&st, o);
        rc_decref(st.owned[o]);
        st.owned[o] = NULL;
      }
      break;
    case 5: /* borrows the value */
      if ((o = pick_owned(&st, &in)) >= 0 && (b = pick_borrowed(&st, &in)) >= 0) {
        const char *k = key(&in);
        rc_map_set(st.owned[o], k, st.borrowed[b]);
        forget_borrowed(&st, o);
      }
      break;
    case 6: { /* steals the value, even when it fails */
      if ((o = pick_owned(&st, &in)) < 0) break;
      int v = pick_owned(&st, &in);
      if (v < 0 || v == o) break;
      const char *k = key(&in);
      forget_borrowed(&st, v);
      rc_map_set_new(st.owned[o], k, st.owned[v]);
      st.owned[v] = NULL;
      forget_borrowed(&st, o);
      break;
    }
    case 7:
      if ((o = pick_owned(&st, &in)) >= 0) {
        rc_val *v = rc_map_get(st.owned[o], key(&in));
        if (v) {
          b = byte(&in) % NBORROWED;
          st.borrowed[b] = v;
          st.from[b] = o;
        }
      }
      break;
    case 8:
      if ((o = pick_owned(&st, &in)) >= 0) {
        rc_val *v = rc_map_take(st.owned[o], key(&in));
        forget_borrowed(&st, o);
        keep_owned(&st, v);
      }
      break;
    case 9:
      if ((o = pick_owned(&st, &in)) >= 0) {
        rc_map_del(st.owned[o], key(&in));
        forget_borrowed(&st, o);
      }
      break;
    case 10:
      if ((o = pick_owned(&st, &in)) >= 0) keep_owned(&st, rc_copy(st.owned[o]));
      break;
    case 11:
      if ((o = pick_owned(&st, &in)) >= 0) (void)rc_len(st.owned[o]);
      break;
    case 12:
      if ((o = pick_owned(&st, &in)) >= 0) (void)rc_hash(st.owned[o]);
      break;
    case 13:
      if ((b = pick_borrowed(&st, &in)) >= 0) (void)rc_refcount(st.borrowed[b]);
      break;
    }
  }
  for (int i = NOWNED; i-- > 0;)
    if (st.owned[i]) rc_decref(st.owned[i]);
  return 0;
}
