/* A hand-written libFuzzer harness for config.h, the usual OSS-Fuzz way: a
 * byte picks each call, keys come from a table of 16 (the well-known keys the
 * header documents, other valid keys, and invalid ones), values and texts are
 * input bytes, and the harness keeps a pool of live stores so that it never
 * misuses the API. Every function is reachable. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

typedef struct input {
  const uint8_t *p;
  size_t n;
} input;

static uint8_t byte(input *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

/* A string: a length byte (mod max + 1), then that many bytes (NULs cut). */
static void str(input *in, char *out, size_t max) {
  size_t len = byte(in) % (max + 1), i = 0;
  for (; i < len && in->n; i++)
    out[i] = (char)byte(in);
  out[i] = 0;
}

static const char *const keys[16] = {
    "render.cache.max_entries",
    "render.cache.preload",
    "log.output.line_prefix",
    "log.output.enabled",
    "a",
    "render.cache",
    "log.level",
    "core.worker_threads",
    "net.listen-port",
    "x.y_z.0",
    "render.cache.max_entries.extra",
    "a23456789012345678901234567890123456789012345678901234567890123",  /* CFG_KEY_MAX */
    "a234567890123456789012345678901234567890123456789012345678901234", /* one more */
    "",
    "Log.Level",
    "bad key",
};

#define MAX_CFGS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input in = {data, size};
  cfg_t *pool[MAX_CFGS] = {0};
  int n = 0;
  char value[64], text[256], out[512];
  while (in.n) {
    uint8_t op = byte(&in) % 14;
    cfg_t *c = n ? pool[byte(&in) % n] : NULL;
    if (op != 0 && !c) continue;
    const char *key = keys[byte(&in) % 16];
    switch (op) {
    case 0:
      if (n < MAX_CFGS && (c = cfg_new())) pool[n++] = c;
      break;
    case 1:
      for (int i = 0; i < n; i++)
        if (pool[i] == c) {
          cfg_free(c);
          pool[i] = pool[--n];
          break;
        }
      break;
    case 2:
      str(&in, value, sizeof value - 1);
      cfg_set(c, key, value);
      break;
    case 3: {
      /* Read it at once: the next change may free it. */
      const char *v = cfg_get(c, key);
      if (v) (void)strlen(v);
      break;
    }
    case 4: {
      int64_t dflt = (int8_t)byte(&in);
      cfg_get_int(c, key, dflt);
      break;
    }
    case 5:
      cfg_get_bool(c, key, byte(&in) & 1);
      break;
    case 6:
      cfg_unset(c, key);
      break;
    case 7:
      cfg_count(c);
      break;
    case 8: {
      size_t len = byte(&in) % sizeof text, i = 0;
      for (; i < len && in.n; i++)
        text[i] = (char)byte(&in);
      cfg_load(c, text, i);
      break;
    }
    case 9:
      free(cfg_dump(c));
      break;
    case 10:
      cfg_apply(c);
      break;
    case 11:
      cfg_cache_capacity(c);
      break;
    case 12:
      str(&in, value, 16);
      cfg_cache_slot(c, value);
      break;
    case 13: {
      str(&in, value, sizeof value - 1);
      cfg_format_log(c, value, out, 2 * (size_t)byte(&in)); /* up to sizeof out */
      break;
    }
    }
  }
  for (int i = 0; i < n; i++)
    cfg_free(pool[i]);
  return 0;
}
