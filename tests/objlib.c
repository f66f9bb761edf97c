#include "objlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL  256
#define MAGIC 0x0b1ec7

struct obj {
  int magic, id;
  obj *children[2];
  int nchildren;
  const char *kept;
};
struct tok {
  int open, fail_close;
};

static obj pool[POOL];
static int used;
static tok toks[POOL];
static int tused;
objlib_stats objlib;

void objlib_reset(void) {
  memset(pool, 0, sizeof pool);
  memset(toks, 0, sizeof toks);
  used = tused = 0;
  memset(&objlib, 0, sizeof objlib);
}

static int check(obj *o) {
  if (!o || o->magic != MAGIC) {
    objlib.bad_uses++;
    return 0;
  }
  return 1;
}

obj *obj_new(int id) {
  if (id < 0 || used == POOL) return NULL;
  obj *o = &pool[used++];
  o->magic = MAGIC;
  o->id = id;
  objlib.live++;
  return o;
}

obj *obj_maybe(int v) {
  return v ? obj_new(v) : NULL;
}

void obj_free(obj *o) {
  if (!o || o->magic != MAGIC) {
    objlib.double_frees++;
    return;
  }
  for (int i = 0; i < o->nchildren; i++)
    obj_free(o->children[i]);
  o->magic = 0;
  objlib.live--;
  objlib.freed++;
}

int obj_adopt(obj *parent, obj *child) {
  if (!check(parent) || !check(child)) return -2;
  if (parent->nchildren == 2) return -1;
  parent->children[parent->nchildren++] = child;
  return 0;
}

obj *obj_child(obj *parent, int i) {
  if (!check(parent)) return NULL;
  return i >= 0 && i < parent->nchildren ? parent->children[i] : NULL;
}

int obj_fail(obj *o, int code) {
  check(o);
  return code;
}

long obj_sum(obj *o, const unsigned char *data, size_t n) {
  check(o);
  long s = 0;
  for (size_t i = 0; i < n; i++)
    s += data[i];
  objlib.last_sum = s;
  objlib.last_n = (long)n;
  return s;
}

void obj_keep(obj *o, const char *s) {
  if (check(o)) o->kept = s;
}

long obj_kept_len(obj *o) {
  return check(o) && o->kept ? (long)strlen(o->kept) : -1;
}

char *obj_name(obj *o) {
  char *s = malloc(32);
  if (s) snprintf(s, 32, "obj-%d", check(o) ? o->id : -1);
  return s;
}

void obj_str_free(char *s) {
  free(s);
  objlib.names_released++;
}

tok *tok_open(int fail_close) {
  if (tused == POOL) return NULL;
  tok *t = &toks[tused++];
  t->open = 1;
  t->fail_close = fail_close;
  objlib.toks_live++;
  return t;
}

int tok_close(tok *t) {
  if (!t->open) {
    objlib.double_frees++;
    return -1;
  }
  t->open = 0;
  objlib.toks_live--;
  return t->fail_close ? -1 : 0;
}

#define SYM(f)                                                                                     \
  { #f, (void *)&f }
static const struct {
  const char *name;
  void *addr;
} symbols[] = {SYM(obj_new),      SYM(obj_maybe), SYM(obj_free), SYM(obj_adopt),    SYM(obj_child),
               SYM(obj_fail),     SYM(obj_sum),   SYM(obj_keep), SYM(obj_kept_len), SYM(obj_name),
               SYM(obj_str_free), SYM(tok_open),  SYM(tok_close)};

void *objlib_resolve(void *ctx, const char *name) {
  (void)ctx;
  for (size_t i = 0; i < sizeof symbols / sizeof *symbols; i++)
    if (strcmp(symbols[i].name, name) == 0) return symbols[i].addr;
  return NULL;
}
