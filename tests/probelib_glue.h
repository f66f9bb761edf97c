/* probelib_glue.h: the description's C for probelib (tests/findings.sh).
 * Its bug is planted: the name is copied with 8 bytes too many, so the
 * overflow is in this file, not in the library. */
#ifndef PROBELIB_GLUE_H
#define PROBELIB_GLUE_H

#include <stdlib.h>
#include <string.h>

#include "probelib.h"

static inline void pg_rename(tally *t, const char *name) {
  size_t n = strlen(name) + 8; /* the glue's bug */
  char *copy = malloc(n + 1);
  memcpy(copy, name, n);
  copy[n] = 0;
  tally_set_name(t, copy, (unsigned)strlen(name));
  free(copy);
}

#endif
