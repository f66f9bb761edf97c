/* Helpers shared by the unit tests (cmocka). */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "grammar/api.h"
#include "sequence/seq.h"

static inline sf_api *load_api_file(const char *path) {
  char err[4096];
  sf_api *api = sf_api_load(path, err, sizeof err);
  if (!api) fprintf(stderr, "%s\n", err);
  assert_non_null(api);
  return api;
}

static inline sf_api *parse_api_text(const char *text) {
  char err[4096];
  sf_api *api = sf_api_parse(text, strlen(text), "t.api", err, sizeof err);
  if (!api) fprintf(stderr, "%s\n", err);
  assert_non_null(api);
  return api;
}

/* Parse a text sequence that must be valid. */
static inline void parse_seq_ok(sf_seq *s, const sf_api *api, const char *text) {
  char err[1024];
  int rc = sf_seq_parse_text(s, api, text, strlen(text), "t.seq", err, sizeof err);
  if (rc) fprintf(stderr, "%s\n", err);
  assert_int_equal(rc, 0);
}

static inline void assert_valid(const sf_seq *s) {
  char err[512];
  int rc = sf_seq_validate(s, err, sizeof err);
  if (rc) fprintf(stderr, "invalid: %s\n", err);
  assert_int_equal(rc, 0);
}

#endif
