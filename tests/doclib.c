#include "doclib.h"

#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 16

struct doc {
  char *words[MAX_WORDS];
  int n;
};

doc_t *doc_new(void) {
  return calloc(1, sizeof(doc_t));
}

int doc_add(doc_t *d, const char *word) {
  if (!*word || strchr(word, ' ') || d->n == MAX_WORDS) return -1;
  d->words[d->n++] = strdup(word);
  return 0;
}

doc_t *doc_parse(const char *text) {
  doc_t *d = doc_new();
  char *copy = strdup(text);
  int ok = 1;
  for (char *save = NULL, *w = strtok_r(copy, " ", &save); w && ok; w = strtok_r(NULL, " ", &save))
    ok = doc_add(d, w) == 0;
  free(copy);
  if (!ok || d->n == 0) {
    doc_free(d);
    return NULL;
  }
  return d;
}

char *doc_print(const doc_t *d) {
  size_t len = 1;
  for (int i = 0; i < d->n; i++)
    len += strlen(d->words[i]) + 1;
  char *out = malloc(len);
  out[0] = 0;
  for (int i = 0; i < d->n; i++) {
    if (i) strcat(out, " ");
    strcat(out, d->words[i]);
  }
  return out;
}

int doc_check(const doc_t *d) {
  if (d->n >= 3 && strcmp(d->words[0], d->words[d->n - 1]) == 0) {
    char *marks = malloc((size_t)d->n);
    for (int i = 0; i <= d->n; i++) /* the planted bug: one past the end */
      marks[i] = 1;
    int r = marks[0];
    free(marks);
    return r + d->n;
  }
  return d->n;
}

void doc_free(doc_t *d) {
  for (int i = 0; i < d->n; i++)
    free(d->words[i]);
  free(d);
}

char *doc_words(const doc_t *d, unsigned long *len) {
  size_t n = 0;
  for (int i = 0; i < d->n; i++)
    n += strlen(d->words[i]) + 1;
  char *out = calloc(1, n + 1), *at = out; /* a NUL after the last one too */
  for (int i = 0; i < d->n; i++)
    at = stpcpy(at, d->words[i]) + 1;
  *len = n;
  return out;
}

struct feed {
  unsigned char *data;
  size_t len;
};

feed_t *feed_new(void) {
  return calloc(1, sizeof(feed_t));
}

void feed_put(feed_t *f, const unsigned char *data, unsigned len) {
  unsigned char *p = realloc(f->data, f->len + len + 1);
  if (!p) abort();
  if (len) memcpy(p + f->len, data, len);
  f->data = p;
  f->len += len;
}

void feed_take(feed_t *f, const doc_t *d) {
  unsigned long n;
  char *w = doc_words(d, &n);
  feed_put(f, (const unsigned char *)w, (unsigned)n);
  free(w);
}

int feed_check(const feed_t *f) {
  /* Words: runs ending in a NUL. */
  const unsigned char *prev = NULL;
  for (size_t at = 0; at < f->len;) {
    const unsigned char *w = f->data + at, *end = memchr(w, 0, f->len - at);
    if (!end) break;
    if (end > w && prev && strcmp((const char *)prev, (const char *)w) == 0) {
      char *marks = malloc(f->len);
      marks[f->len] = 1; /* the planted bug: one past the end */
      int r = marks[0];
      free(marks);
      return r;
    }
    prev = w;
    at = (size_t)(end - f->data) + 1;
  }
  return (int)f->len;
}

void feed_free(feed_t *f) {
  free(f->data);
  free(f);
}
