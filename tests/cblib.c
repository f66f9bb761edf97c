#include "cblib.h"

#include <stdlib.h>
#include <string.h>

/* Is the planted bug NAME (sort, read, pull, tick, seek, reserve) on? All of them are,
 * unless the environment variable CBLIB_BUGS lists the ones wanted (so that a
 * test can look for one at a time); none with -DCBLIB_NO_BUGS. */
#ifdef CBLIB_NO_BUGS
#define BUG(name) 0
#else
#define BUG(name) bug_on(name)
static int bug_on(const char *name) {
  static const char *on;
  static int read;
  if (!read) { /* once: no string function the fuzzer would learn words from */
    on = getenv("CBLIB_BUGS");
    read = 1;
  }
  if (!on) return 1;
  size_t n = strlen(name);
  for (const char *p = on; *p; p++) {
    size_t i = 0;
    while (i < n && p[i] == name[i])
      i++;
    if (i == n) return 1;
  }
  return 0;
}
#endif

cb_box *cb_box_new(const char *version, int size) {
  if (!version || strcmp(version, CBLIB_VERSION) != 0 || size != (int)sizeof(cb_box)) return NULL;
  cb_box *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->vals = malloc(sizeof *b->vals * CB_NVALS); /* exactly: ASan sees an index past it */
  b->data = malloc(CB_DATA);
  if (!b->vals || !b->data) {
    free(b->vals);
    free(b->data);
    free(b);
    return NULL;
  }
  for (int i = 0; i < CB_NVALS; i++)
    b->vals[i] = CB_NVALS - 1 - i;
  return b;
}

static void drop_label(cb_box *b) {
  if (b->label && b->label_free == CB_TRANSIENT)
    free(b->label); /* our copy */
  else if (b->label && b->label_free != CB_STATIC)
    b->label_free(b->label);
  b->label = NULL;
  b->label_free = CB_STATIC;
}

void cb_box_free(cb_box *b) {
  if (!b) return;
  if (b->hook) b->hook(b->count); /* the last word; its answer does not matter */
  drop_label(b);
  free(b->vals);
  free(b->data);
  free(b);
}

int cb_sort(cb_box *b, int n, cb_cmp cmp, void *ctx) {
  if (!b || !cmp || n < 0 || n > CB_NVALS) return -1;
  b->count++;
  int *v = b->vals;
  if (n < 2) return 0;
  int unguarded = BUG("sort");
  /* The smallest item first: the sentinel of the insertion loop below. */
  int m = 0;
  for (int i = 1; i < n; i++)
    if (cmp(ctx, v[i], v[m]) < 0) m = i;
  int t = v[0];
  v[0] = v[m];
  v[m] = t;
  for (int i = 1; i < n; i++) {
    int x = v[i], j = i;
    /* BUG: no j > 0. Nothing sorts before the sentinel v[0] as long as the
     * comparator is consistent; when it says otherwise, j runs below 0. */
    while ((j > 0 || unguarded) && cmp(ctx, x, v[j - 1]) < 0) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
  return 0;
}

int cb_read(cb_box *b, cb_read_fn rd, void *ctx) {
  if (!b || !rd) return -1;
  b->count++;
  unsigned char chunk[CB_CHUNK] = {0};
  int total = 0;
  while (b->len < CB_DATA) {
    size_t got = 0;
    int r = rd(ctx, chunk, sizeof chunk, &got);
    if (r < 0) return -1;
    if (got > sizeof chunk) got = sizeof chunk; /* never more than the buffer */
    for (size_t i = 0; i < got && b->len < CB_DATA; i++) {
      b->data[b->len++] = chunk[i];
      total++;
      if (b->len >= 4 && memcmp(b->data + b->len - 4, "BUG!", 4) == 0) {
        /* The bytes asked for a trailer after the data. BUG: one past
         * the block. */
        b->data[BUG("read") ? CB_DATA : CB_DATA - 1] = '!';
      }
    }
    if (got == 0 || r == 0) break;
  }
  return total;
}

unsigned cb_pull(cb_box *b, cb_in_fn in, void *ctx) {
  if (!b || !in) return 0;
  b->count++;
  unsigned total = 0;
  for (int k = 0; k < 64; k++) {
    unsigned char *p = NULL;
    unsigned n = in(ctx, &p);
    if (n == 0 || !p) break;
    total += n;
    if (n == 7) {
      if (p[0] == 'Z') {                                  /* a Z record: 'Z' and 6 bytes */
        unsigned char *rec = malloc(BUG("pull") ? 4 : 6); /* BUG: 4 */
        if (!rec) break;
        for (int i = 0; i < 6; i++)
          rec[i] = p[1 + i];
        b->zrecords++;
        b->ticks += rec[0];
        free(rec);
      }
    }
  }
  return total;
}

void cb_set_hook(cb_box *b, cb_hook_fn h) {
  if (!b) return;
  b->count++;
  b->hook = h;
}

int cb_tick(cb_box *b) {
  if (!b) return 0;
  b->count++;
  if (!b->hook) return 0;
  int r = b->hook(b->count);
  if (r < 0 || r > 100) return -1; /* outside its contract */
  if (r == 0) return 0;
  if (r == 100) { /* a reset */
    b->ticks = 0;
    return r;
  }
  b->ticks += r;
  if (r == 42 && BUG("tick")) b->vals[CB_NVALS] = (int)b->ticks; /* BUG: one past the items */
  return r;
}

int cb_seek(cb_box *b, cb_seek_fn seek, void *ctx) {
  if (!b || !seek) return -1;
  b->count++;
  unsigned pos = seek(ctx, 1), end = seek(ctx, 2);
  if (end < pos) return -1;
  if (pos + end == 1000003u && end - pos == 77u && BUG("seek"))
    b->vals[CB_NVALS] = 77; /* BUG: one past the items */
  return (int)(end - pos);
}

int cb_reserve(cb_box *b, int n, unsigned size, cb_alloc_fn alloc, cb_release_fn release) {
  if (!b || !alloc || !release || n < 1 || n > 4 || size < 1 || size > 256) return -1;
  b->count++;
  int filled = 0;
  for (int i = 0; i < n; i++) {
    unsigned char *p = alloc(size);
    unsigned want = size;
    if (!p) {
      if (i == 0) return -1;
      p = b->data;                                           /* fall back on the box's own block */
      if (want > CB_DATA && !BUG("reserve")) want = CB_DATA; /* BUG: not cut to the block */
      memset(p, i, want);
      filled += (int)want;
      continue;
    }
    memset(p, i, want);
    filled += (int)want;
    release(p);
  }
  return filled;
}

int cb_load(cb_box *b, const cb_io *io, void *ctx) {
  if (!b || !io || !io->read) return -1;
  b->count++;
  size_t limit = CB_DATA - b->len;
  if (io->seek) {
    unsigned pos = io->seek(ctx, 1), end = io->seek(ctx, 2);
    if (end >= pos && end - pos < limit) limit = end - pos;
  }
  unsigned char chunk[CB_CHUNK];
  int total = 0;
  while (limit > 0) {
    size_t got = 0;
    int r = io->read(ctx, chunk, sizeof chunk, &got);
    if (r < 0) return -1;
    if (got > sizeof chunk) got = sizeof chunk;
    if (got > limit) got = limit;
    memcpy(b->data + b->len, chunk, got);
    b->len += got;
    total += (int)got;
    limit -= got;
    if (io->progress && io->progress((unsigned)total) == 100) break;
    if (got == 0 || r == 0) break;
  }
  return total;
}

int cb_label(cb_box *b, const char *label, cb_free_fn dtor) {
  if (!b || !label) return -1;
  b->count++;
  char *s = (char *)label;
  if (dtor == CB_TRANSIENT) {
    size_t n = strlen(label) + 1;
    if (!(s = malloc(n))) return -1;
    memcpy(s, label, n);
  }
  drop_label(b);
  b->label = s;
  b->label_free = dtor;
  return dtor == CB_TRANSIENT;
}

int cb_get(cb_box *b, int i) {
  return b && i >= 0 && i < CB_NVALS ? b->vals[i] : 0;
}

int cb_sum(cb_box *b) {
  if (!b) return 0;
  int s = 0;
  for (int i = 0; i < CB_NVALS; i++)
    s += b->vals[i];
  return s;
}

int cb_label_len(cb_box *b) {
  return b && b->label ? (int)strlen(b->label) : 0;
}
