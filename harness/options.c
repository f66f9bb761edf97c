#include "options.h"

#include <errno.h>
#include <stdlib.h>

static void read_one(const char *env, long *value) {
  const char *s = getenv(env);
  if (!s || !*s) return;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (*end || errno || v < 0) {
    fprintf(stderr, "seqfuzz: ignoring %s=%s (expected a non-negative integer)\n", env, s);
    return;
  }
  *value = v;
}

void sf_options_from_env(sf_options *o) {
#define SF_OPTION(name, env, def, help)                                                            \
  o->name = def;                                                                                   \
  read_one(env, &o->name);
#include "options.def"
#undef SF_OPTION
}

void sf_options_print(const sf_options *o, FILE *out) {
#define SF_OPTION(name, env, def, help) fprintf(out, "  %-20s %-6ld %s\n", env, o->name, help);
#include "options.def"
#undef SF_OPTION
}
