/* First-reached edges from the engine's 8-bit counters (contract in edges.h). */
#include "edges.h"

#include <stdlib.h>
#include <string.h>

#define NO_COV __attribute__((no_sanitize("coverage")))

#define MAX_TABLES 256 /* instrumented modules; more are not counted */

static struct table {
  uint8_t *start;
  size_t len;
  uint8_t *seen; /* one bit per counter; NULL if it could not be allocated */
} tables[MAX_TABLES];
static uint32_t ntables;
static uint32_t nseen;

/* The engine's own registration (libFuzzer's), reached through --wrap; weak
 * so that a build whose engine has none still links. */
void __real___sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *stop) __attribute__((weak));

NO_COV void sf_edges_watch(uint8_t *start, size_t len) {
  if (ntables < MAX_TABLES && len)
    tables[ntables++] = (struct table){start, len, calloc((len + 7) / 8, 1)};
}

NO_COV void __wrap___sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *stop) {
  if (stop > start) sf_edges_watch(start, (size_t)(stop - start));
  if (__real___sanitizer_cov_8bit_counters_init)
    __real___sanitizer_cov_8bit_counters_init(start, stop);
}

bool sf_edges_available(void) {
  return ntables > 0;
}

size_t sf_edges_count(void) {
  size_t n = 0;
  for (uint32_t t = 0; t < ntables; t++)
    n += tables[t].len;
  return n;
}

void sf_edges_clear(void) {
  for (uint32_t t = 0; t < ntables; t++)
    memset(tables[t].start, 0, tables[t].len);
}

/* Edges the counters show that no sf_edges_new() counted: all of them,
 * counted as seen from now on (mark), or only whether there is one (!mark:
 * 1 or 0, the counters only read). */
static uint32_t unseen_edges(bool mark) {
  uint32_t n = 0;
  for (uint32_t t = 0; t < ntables; t++) {
    const struct table *tb = &tables[t];
    if (!tb->seen) continue;
    for (size_t i = 0; i < tb->len; i++) {
      /* Most counters are zero: skip them eight at a time. */
      if ((i & 7) == 0 && i + 8 <= tb->len) {
        uint64_t word;
        memcpy(&word, tb->start + i, 8);
        if (!word) {
          i += 7;
          continue;
        }
      }
      if (!tb->start[i] || (tb->seen[i / 8] & (1u << (i % 8)))) continue;
      if (!mark) return 1;
      tb->seen[i / 8] |= (uint8_t)(1u << (i % 8));
      n++;
    }
  }
  return n;
}

uint32_t sf_edges_new(void) {
  uint32_t n = unseen_edges(true);
  nseen += n;
  return n;
}

bool sf_edges_any_new(void) {
  return unseen_edges(false) != 0;
}

uint32_t sf_edges_seen(void) {
  return nseen;
}
