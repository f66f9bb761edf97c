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
