/* config: a configuration store (see config.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#define KEY_CACHE_MAX  "render.cache.max_entries"
#define KEY_PRELOAD    "render.cache.preload"
#define KEY_PREFIX     "log.output.line_prefix"
#define KEY_LOG_ON     "log.output.enabled"
#define DEFAULT_CACHE  4
#define MAX_CACHE_SLOT 64

struct entry {
  char *key, *value;
};

struct slot {
  char name[CFG_NAME_MAX + 1];
};

struct cfg {
  struct entry *e; /* sorted by key, for lookups and cfg_dump */
  size_t n, cap;
  /* The applied settings. */
  struct slot *slots;
  int nslots, used;
  char prefix[CFG_PREFIX_MAX + 1];
  int log_on;
};

cfg_t *cfg_new(void) {
  cfg_t *c = calloc(1, sizeof *c);
  if (c) c->log_on = 1;
  return c;
}

void cfg_free(cfg_t *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) {
    free(c->e[i].key);
    free(c->e[i].value);
  }
  free(c->e);
  free(c->slots);
  free(c);
}

static char *copy_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  return d ? memcpy(d, s, n) : NULL;
}

static int key_ok(const char *k) {
  size_t n = strlen(k);
  if (n == 0 || n > CFG_KEY_MAX) return 0;
  for (; *k; k++)
    if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '.' || *k == '_' ||
          *k == '-'))
      return 0;
  return 1;
}

static int value_ok(const char *v) {
  return strlen(v) <= CFG_VALUE_MAX && !strchr(v, '\n');
}

/* The index of key, or where it would be inserted (with *found = 0). */
static size_t find(const cfg_t *c, const char *key, int *found) {
  size_t lo = 0, hi = c->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int d = strcmp(c->e[mid].key, key);
    if (d == 0) {
      *found = 1;
      return mid;
    }
    if (d < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  *found = 0;
  return lo;
}

int cfg_set(cfg_t *c, const char *key, const char *value) {
  if (!key_ok(key) || !value_ok(value)) return -1;
  char *v = copy_str(value);
  if (!v) return -1;
  int found;
  size_t i = find(c, key, &found);
  if (found) {
    free(c->e[i].value);
    c->e[i].value = v;
    return 0;
  }
  if (c->n == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 8;
    struct entry *e = realloc(c->e, cap * sizeof *e);
    if (!e) goto fail;
    c->e = e, c->cap = cap;
  }
  char *k = copy_str(key);
  if (!k) goto fail;
  memmove(c->e + i + 1, c->e + i, (c->n - i) * sizeof *c->e);
  c->e[i].key = k, c->e[i].value = v;
  c->n++;
  return 0;
fail:
  free(v);
  return -1;
}

const char *cfg_get(const cfg_t *c, const char *key) {
  int found;
  size_t i = find(c, key, &found);
  return found ? c->e[i].value : NULL;
}

static int parse_int(const char *s, int64_t *out) {
  int neg = 0, base = 10;
  if (*s == '+' || *s == '-') neg = *s++ == '-';
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, s += 2;
  if (!*s) return 0;
  uint64_t v = 0;
  for (; *s; s++) {
    int d = *s >= '0' && *s <= '9'   ? *s - '0'
            : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
            : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
                                     : 99;
    if (d >= base || v > (UINT64_MAX - (unsigned)d) / (unsigned)base) return 0;
    v = v * (unsigned)base + (unsigned)d;
  }
  if (v > (uint64_t)INT64_MAX + neg) return 0;
  /* Through unsigned negation: -2^63 has no positive int64_t. */
  *out = neg ? (int64_t)(~v + 1) : (int64_t)v;
  return 1;
}

int64_t cfg_get_int(const cfg_t *c, const char *key, int64_t dflt) {
  const char *v = cfg_get(c, key);
  int64_t r;
  return v && parse_int(v, &r) ? r : dflt;
}

/* 1, 0, or -1 when v is not a boolean word. */
static int parse_bool(const char *v) {
  static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off",
                                                                              "0"};
  for (int i = 0; i < 4; i++) {
    if (!strcmp(v, yes[i])) return 1;
    if (!strcmp(v, no[i])) return 0;
  }
  return -1;
}

int cfg_get_bool(const cfg_t *c, const char *key, int dflt) {
  const char *v = cfg_get(c, key);
  int b = v ? parse_bool(v) : -1;
  return b < 0 ? dflt : b;
}

int cfg_unset(cfg_t *c, const char *key) {
  int found;
  size_t i = find(c, key, &found);
  if (!found) return 0;
  free(c->e[i].key);
  free(c->e[i].value);
  memmove(c->e + i, c->e + i + 1, (c->n - i - 1) * sizeof *c->e);
  c->n--;
  return 1;
}

size_t cfg_count(const cfg_t *c) {
  return c->n;
}

static int blank(char ch) {
  return ch == ' ' || ch == '\t' || ch == '\r';
}

/* Copies [s, e) without the blanks around it into out (cap bytes); 0 if it
 * does not fit. */
static int trimmed(const char *s, const char *e, char *out, size_t cap) {
  while (s < e && blank(*s))
    s++;
  while (e > s && blank(e[-1]))
    e--;
  if ((size_t)(e - s) >= cap) return 0;
  memcpy(out, s, (size_t)(e - s));
  out[e - s] = 0;
  return 1;
}

int cfg_load(cfg_t *c, const char *text, size_t len) {
  const char *p = text, *end = text + len;
  int set = 0;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *eol = nl ? nl : end;
    const char *s = p;
    p = nl ? nl + 1 : end;
    while (s < eol && blank(*s))
      s++;
    if (s == eol || *s == '#') continue;
    const char *eq = memchr(s, '=', (size_t)(eol - s));
    char key[CFG_KEY_MAX + 1], value[CFG_VALUE_MAX + 1];
    /* A NUL inside the line would cut the key or the value short. */
    if (!eq || memchr(s, 0, (size_t)(eol - s))) return -1;
    if (!trimmed(s, eq, key, sizeof key) || !trimmed(eq + 1, eol, value, sizeof value)) return -1;
    if (cfg_set(c, key, value) < 0) return -1;
    set++;
  }
  return set;
}

char *cfg_dump(const cfg_t *c) {
  size_t total = 1;
  for (size_t i = 0; i < c->n; i++)
    total += strlen(c->e[i].key) + strlen(c->e[i].value) + 4;
  char *out = malloc(total), *p = out;
  if (!out) return NULL;
  for (size_t i = 0; i < c->n; i++) {
    size_t kl = strlen(c->e[i].key), vl = strlen(c->e[i].value);
    memcpy(p, c->e[i].key, kl), p += kl;
    memcpy(p, " = ", 3), p += 3;
    memcpy(p, c->e[i].value, vl), p += vl;
    *p++ = '\n';
  }
  *p = 0;
  return out;
}

static int name_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_' || ch == '-';
}

/* Loads the names of list into slots (cap of them). Returns how many were
 * loaded, or -1 if a name is not valid. */
static int preload(struct slot *slots, int cap, const char *list) {
  int n = 0;
  const char *p = list;
  for (;;) {
    const char *s = p;
    while (*p && *p != ',')
      p++;
    char name[CFG_NAME_MAX + 1];
    if (!trimmed(s, p, name, sizeof name)) return -1;
    for (const char *q = name; *q; q++)
      if (!name_char(*q)) return -1;
    int skip = !name[0]; /* an empty name (",,"), or one loaded already */
    for (int i = 0; i < n && !skip; i++)
      skip = !strcmp(slots[i].name, name);
#ifdef SEARCH_NO_BUGS
    if (!skip && n < cap) {
#else
    /* Off by one: admits a name into slots[cap], past the array. */
    if (!skip && n <= cap) {
#endif
      memcpy(slots[n].name, name, sizeof name);
      n++;
    }
    if (!*p) return n;
    p++;
  }
}

int cfg_apply(cfg_t *c) {
  int64_t cap = DEFAULT_CACHE;
  const char *v = cfg_get(c, KEY_CACHE_MAX);
  if (v && (!parse_int(v, &cap) || cap < 1 || cap > MAX_CACHE_SLOT)) return -1;
  const char *prefix = cfg_get(c, KEY_PREFIX);
  if (prefix && strlen(prefix) > CFG_PREFIX_MAX) return -1;
  int log_on = 1;
  v = cfg_get(c, KEY_LOG_ON);
  if (v && (log_on = parse_bool(v)) < 0) return -1;
  /* Build the new cache aside: a failure leaves the applied one in force. */
  struct slot *slots = calloc((size_t)cap, sizeof *slots);
  if (!slots) return -1;
  const char *list = cfg_get(c, KEY_PRELOAD);
  int used = list ? preload(slots, (int)cap, list) : 0;
  if (used < 0) {
    free(slots);
    return -1;
  }
  free(c->slots);
  c->slots = slots, c->nslots = (int)cap, c->used = used;
  strcpy(c->prefix, prefix ? prefix : "");
  c->log_on = log_on;
  return 0;
}

int cfg_cache_capacity(const cfg_t *c) {
  return c->nslots;
}

int cfg_cache_slot(const cfg_t *c, const char *name) {
  for (int i = 0; i < c->used; i++)
    if (!strcmp(c->slots[i].name, name)) return i;
  return -1;
}

size_t cfg_format_log(const cfg_t *c, const char *msg, char *buf, size_t cap) {
  if (!c->log_on) return 0;
  size_t pl = strlen(c->prefix), ml = strlen(msg);
  if (cap) {
    size_t n = pl + ml < cap ? pl + ml : cap - 1;
    size_t a = n < pl ? n : pl;
    memcpy(buf, c->prefix, a);
    memcpy(buf + a, msg, n - a);
    buf[n] = 0;
  }
  return pl + ml;
}
