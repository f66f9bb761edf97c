/* rec_glue.h: text helpers over rec.h, as a target's glue header does (see
 * seeds/zlib/zlib_glue.h): static inline functions the grammar names.
 *
 * Two planted glue bugs; rec.c is right, the description (its glue) is not:
 *  - recg_set_line allocates its line one byte short (the length it passes
 *    to malloc) and writes the newline past it: the crash is in the glue;
 *  - recg_set_text passes rec_set the size of the pointer as the length, so
 *    the correct rec_set reads past a text shorter than 7 bytes: the crash is
 *    in the library, called from the glue. */
#ifndef REC_GLUE_H
#define REC_GLUE_H

#include <stdlib.h>
#include <string.h>

#include "rec.h"

/* Store text (without its NUL). */
static inline int recg_set_text(rec *r, const char *text) {
  return rec_set(r, (const uint8_t *)text, sizeof text); /* BUG (planted): strlen(text) */
}

/* Store text and a newline (a line record). */
static inline int recg_set_line(rec *r, const char *text) {
  size_t n = strlen(text);
  uint8_t *line = malloc(n); /* BUG (planted): n + 1, room for the newline */
  if (!line) return -1;
  memcpy(line, text, n);
  line[n] = '\n';
  int rc = rec_set(r, line, n + 1);
  free(line);
  return rc;
}

/* Append text (without its NUL). */
static inline int recg_append_text(rec *r, const char *text) {
  return rec_append(r, (const uint8_t *)text, strlen(text));
}

#endif
