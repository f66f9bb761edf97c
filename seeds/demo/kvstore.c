#include "kvstore.h"

#include <stdlib.h>
#include <string.h>

/* Values are reference-counted so that snapshots can share them. */
typedef struct blob {
  unsigned refs;
  size_t len;
  unsigned char data[];
} blob;

enum { SLOT_EMPTY, SLOT_LIVE, SLOT_TOMB };

typedef struct slot {
  int state;
  char *key;
  blob *val;
} slot;

struct kv_iter {
  kv_t *db;
  unsigned pos;
};

struct kv {
  unsigned cap, flags;
  size_t live, tombs;
  slot *slots;
  struct kv_iter cursor;
};

static blob *blob_new(const void *p, size_t n) {
  blob *b = malloc(sizeof *b + n);
  if (!b) return NULL;
  b->refs = 1;
  b->len = n;
  if (n) memcpy(b->data, p, n);
  return b;
}

static void blob_unref(blob *b) {
  if (b && --b->refs == 0) free(b);
}

static unsigned hash_key(const char *k) {
  unsigned h = 2166136261u;
  while (*k)
    h = (h ^ (unsigned char)*k++) * 16777619u;
  return h;
}

static slot *find(const kv_t *db, const char *key) {
  unsigned h = hash_key(key);
  for (unsigned i = 0; i < db->cap; i++) {
    slot *s = &db->slots[(h + i) % db->cap];
    if (s->state == SLOT_EMPTY) return NULL;
    if (s->state == SLOT_LIVE && strcmp(s->key, key) == 0) return s;
  }
  return NULL;
}

kv_t *kv_open(unsigned capacity, unsigned flags) {
  kv_t *db = calloc(1, sizeof *db);
  if (!db) return NULL;
  db->slots = calloc(capacity, sizeof *db->slots);
  if (!db->slots) {
    free(db);
    return NULL;
  }
  db->cap = capacity;
  db->flags = flags;
  db->cursor.db = db;
  return db;
}

static void clear_slot(slot *s) {
  free(s->key);
  blob_unref(s->val);
  memset(s, 0, sizeof *s);
}

void kv_close(kv_t *db) {
  for (unsigned i = 0; i < db->cap; i++)
    clear_slot(&db->slots[i]);
  free(db->slots);
  free(db);
}

static int insert(kv_t *db, const char *key, blob *val) {
  slot *s = find(db, key);
  if (s) {
    blob_unref(s->val);
    s->val = val;
    return 0;
  }
  unsigned h = hash_key(key);
  for (unsigned i = 0; i < db->cap; i++) {
    s = &db->slots[(h + i) % db->cap];
    if (s->state != SLOT_EMPTY) continue;
    s->key = strdup(key);
    if (!s->key) return -1;
    s->val = val;
    s->state = SLOT_LIVE;
    db->live++;
    return 0;
  }
  return -1;
}

int kv_put(kv_t *db, const char *key, const void *val, size_t vlen) {
  blob *b = blob_new(val, vlen);
  if (!b) return -1;
  if (insert(db, key, b)) {
    blob_unref(b);
    return -1;
  }
  db->cursor.pos = 0;
  return 0;
}

long kv_lookup(const kv_t *db, const char *key) {
  slot *s = find(db, key);
  return s ? (long)s->val->len : -1;
}

int kv_del(kv_t *db, const char *key) {
  slot *s = find(db, key);
  if (!s) return 1;
  s->state = SLOT_TOMB; /* the value stays attached until compaction */
  db->live--;
  db->tombs++;
  return 0;
}

int kv_compact(kv_t *db) {
  slot *old = db->slots;
  slot *fresh = calloc(db->cap, sizeof *fresh);
  if (!fresh) return 0;
  int dropped = 0;
  db->slots = fresh;
  db->live = 0;
  for (unsigned i = 0; i < db->cap; i++) {
    if (old[i].state == SLOT_TOMB) {
      free(old[i].key);
#ifdef KVSTORE_FIXED
      blob_unref(old[i].val);
#else
      free(old[i].val); /* BUG: the value may be shared with a snapshot; should be blob_unref */
#endif
      dropped++;
    } else if (old[i].state == SLOT_LIVE) {
      insert(db, old[i].key, old[i].val);
      free(old[i].key);
    }
  }
  free(old);
  db->tombs = 0;
  db->cursor.pos = 0;
  return dropped;
}

kv_t *kv_snapshot(const kv_t *db) {
  kv_t *snap = kv_open(db->cap, db->flags);
  if (!snap) return NULL;
  for (unsigned i = 0; i < db->cap; i++) {
    const slot *s = &db->slots[i];
    if (s->state == SLOT_EMPTY) continue;
    snap->slots[i].state = s->state;
    snap->slots[i].key = strdup(s->key);
    snap->slots[i].val = s->val;
    s->val->refs++;
  }
  snap->live = db->live;
  snap->tombs = db->tombs;
  return snap;
}

int kv_merge(kv_t *dst, kv_t *src) {
  if (dst->cap - dst->live - dst->tombs < src->live) return -1;
  int moved = 0;
  for (unsigned i = 0; i < src->cap; i++) {
    slot *s = &src->slots[i];
    if (s->state != SLOT_LIVE) continue;
    s->val->refs++;
    if (insert(dst, s->key, s->val) == 0)
      moved++;
    else
      blob_unref(s->val);
  }
  dst->cursor.pos = 0;
  kv_close(src);
  return moved;
}

size_t kv_count(const kv_t *db) {
  return db->live;
}

uint32_t kv_checksum(const kv_t *db) {
  uint32_t sum = 0;
  for (unsigned i = 0; i < db->cap; i++) {
    const slot *s = &db->slots[i];
    if (s->state != SLOT_LIVE) continue;
    sum = sum * 31 + hash_key(s->key);
    for (size_t j = 0; j < s->val->len; j++)
      sum = sum * 31 + s->val->data[j];
  }
  return sum;
}

kv_iter_t *kv_iter(kv_t *db) {
  db->cursor.pos = 0;
  return &db->cursor;
}

int kv_iter_next(kv_iter_t *it, size_t *vlen) {
  kv_t *db = it->db;
  while (it->pos < db->cap) {
    slot *s = &db->slots[it->pos++];
    if (s->state == SLOT_LIVE) {
      *vlen = s->val->len;
      return 1;
    }
  }
  return 0;
}
