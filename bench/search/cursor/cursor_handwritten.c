/* A hand-written libFuzzer harness for cursor.h, written the usual OSS-Fuzz
 * way: a byte picks each call, keys are small (0..15, so that puts, deletes
 * and seeks meet the same records), values are short strings from the
 * input, and the harness keeps up to four cursors, freeing them before
 * their list as the API requires. */
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"

typedef struct input {
  const uint8_t *p;
  size_t n;
} input;

static uint8_t byte(input *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

/* A value: a length byte (mod 16), then that many bytes (NULs cut). */
static void str(input *in, char *out, size_t cap) {
  size_t len = byte(in) % 16, i = 0;
  for (; i < len && i + 1 < cap && in->n; i++)
    out[i] = (char)(byte(in) | 1);
  out[i] = 0;
}

#define MAX_CURSORS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input in = {data, size};
  olist_t *l = ol_new();
  ocur_t *cur[MAX_CURSORS] = {0};
  char val[32], buf[64];
  if (!l) return 0;
  while (in.n) {
    uint8_t op = byte(&in) % 11;
    int ci = byte(&in) % MAX_CURSORS;
    ocur_t *c = cur[ci];
    switch (op) {
    case 0:
    case 1: /* puts are the commonest call */
      str(&in, val, sizeof val);
      ol_put(l, byte(&in) % 16, val);
      break;
    case 2:
      ol_del(l, byte(&in) % 16);
      break;
    case 3:
      ol_count(l);
      break;
    case 4:
      if (c) ol_cursor_free(c);
      cur[ci] = ol_cursor(l);
      break;
    case 5:
      ol_cursor_free(c);
      cur[ci] = NULL;
      break;
    case 6:
      if (c) ol_first(c);
      break;
    case 7:
      if (c) ol_seek(c, byte(&in) % 16);
      break;
    case 8:
      if (c) ol_next(c);
      break;
    case 9:
      if (c) {
        int key;
        ol_get(c, &key, buf, byte(&in) % sizeof buf);
      }
      break;
    case 10:
      if (c) ol_cursor_del(c);
      break;
    }
  }
  for (int i = 0; i < MAX_CURSORS; i++)
    ol_cursor_free(cur[i]);
  ol_free(l);
  return 0;
}
