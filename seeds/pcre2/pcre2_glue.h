/* pcre2_glue.h: what pcre2.api cannot express directly (see the comment at the
 * top of pcre2.api). Every function is small and calls the real 8-bit API the
 * way a careful application would. Include after pcre2.h (the build defines
 * PCRE2_CODE_UNIT_WIDTH=8). */
#ifndef PCRE2_GLUE_H
#define PCRE2_GLUE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------
 * Match data bookkeeping.
 * pcre2api: "After running a match, you must not free a compiled pattern ...
 * until after all operations on the match data block (for that match) have
 * taken place", and "valid data is available in the match block only when the
 * error is PCRE2_ERROR_NOMATCH, PCRE2_ERROR_PARTIAL, or one of the error codes
 * for an invalid UTF string" (a fresh block holds no data at all). seqfuzz
 * cannot state either rule, so, like an application that remembers which
 * pattern each block was used with, the glue keeps a small table of live
 * blocks and the pattern each was last matched against, and puts a block in
 * the well-defined "no match" state (a match of the never-matching pattern
 * (*FAIL) against "") when it is created, when a match leaves no valid data,
 * and when its pattern is freed. Extraction functions are then always legal.
 * ------------------------------------------------------------------------ */
#define GLUE_MAX_MD 64
static struct { pcre2_match_data *md; const pcre2_code *code; } glue_md[GLUE_MAX_MD];

/* The (*FAIL) pattern: compiled once, lives for the whole process. */
static const pcre2_code *glue_fail_code(void) {
  static pcre2_code *fail;
  int e;
  PCRE2_SIZE o;
  if (!fail) fail = pcre2_compile((PCRE2_SPTR) "(*FAIL)", 7, 0, &e, &o, NULL);
  return fail;
}

/* Put md in the "no match" state (its pattern is then the (*FAIL) one). */
static inline void glue_md_reset(pcre2_match_data *md) {
  for (int i = 0; i < GLUE_MAX_MD; i++)
    if (glue_md[i].md == md) glue_md[i].code = glue_fail_code();
  pcre2_match(glue_fail_code(), (PCRE2_SPTR) "", 0, 0, 0, md, NULL);
}

/* Record a match call's outcome: keep the pattern if the block holds valid
 * data (a match or a partial match; a no-match only for pcre2_match, which is
 * the one that then stores its (*MARK) and result code: pcre2_dfa_match
 * returns NOMATCH without updating the block's result code: a library bug,
 * seeds/pcre2/bugs/dfa-nomatch-rc.seq). Anything else,
 * including invalid-UTF errors (the block keeps its old pattern pointer),
 * resets the block. */
static inline int glue_md_note(pcre2_match_data *md, const pcre2_code *code, int rc,
                               int nomatch_ok) {
  if (!md) return rc;
  if (rc >= 0 || rc == PCRE2_ERROR_PARTIAL || (nomatch_ok && rc == PCRE2_ERROR_NOMATCH)) {
    for (int i = 0; i < GLUE_MAX_MD; i++)
      if (glue_md[i].md == md) glue_md[i].code = code;
  } else {
    glue_md_reset(md);
  }
  return rc;
}

static inline pcre2_match_data *glue_md_register(pcre2_match_data *md) {
  if (!md) return NULL;
  for (int i = 0; i < GLUE_MAX_MD; i++)
    if (!glue_md[i].md) {
      glue_md[i].md = md;
      glue_md_reset(md);
      return md;
    }
  pcre2_match_data_free(md); /* table full: report a failed creation */
  return NULL;
}

/* pcre2_match_data_create + registration (NULL on failure, as documented). */
static inline pcre2_match_data *glue_match_data_create(uint32_t ovecsize,
                                                       pcre2_general_context *g) {
  return glue_md_register(pcre2_match_data_create(ovecsize, g));
}

/* pcre2_match_data_create_from_pattern + registration. */
static inline pcre2_match_data *glue_match_data_create_from_pattern(const pcre2_code *c,
                                                                    pcre2_general_context *g) {
  return glue_md_register(pcre2_match_data_create_from_pattern(c, g));
}

/* Destructor: unregister, then pcre2_match_data_free. */
static inline void glue_match_data_free(pcre2_match_data *md) {
  for (int i = 0; i < GLUE_MAX_MD; i++)
    if (glue_md[i].md == md) glue_md[i].md = NULL, glue_md[i].code = NULL;
  pcre2_match_data_free(md);
}

/* Destructor of a compiled pattern: first detach every block that still
 * refers to it, then pcre2_code_free. */
static inline void glue_code_free(pcre2_code *c) {
  for (int i = 0; i < GLUE_MAX_MD; i++)
    if (glue_md[i].md && glue_md[i].code == c) glue_md_reset(glue_md[i].md);
  pcre2_code_free(c);
}

/* pcre2_match, pcre2_dfa_match, pcre2_jit_match with the bookkeeping above. */
static inline int glue_match(const pcre2_code *c, const uint8_t *subj, size_t len, size_t start,
                             uint32_t opts, pcre2_match_data *md, pcre2_match_context *mc) {
  return glue_md_note(md, c, pcre2_match(c, subj, len, start, opts, md, mc), 1);
}

static inline int glue_jit_match(const pcre2_code *c, const uint8_t *subj, size_t len, size_t start,
                                 uint32_t opts, pcre2_match_data *md, pcre2_match_context *mc) {
  return glue_md_note(md, c, pcre2_jit_match(c, subj, len, start, opts, md, mc), 0);
}

/* pcre2_dfa_match with a caller-provided workspace of wscount ints (the
 * workspace is scratch space; PCRE2_DFA_RESTART, which needs the workspace of
 * an earlier partial match, is not offered). */
static inline int glue_dfa_match(const pcre2_code *c, const uint8_t *subj, size_t len, size_t start,
                                 uint32_t opts, pcre2_match_data *md, pcre2_match_context *mc,
                                 uint32_t wscount) {
  int ws[1000];
  if (wscount > 1000) wscount = 1000;
  return glue_md_note(md, c, pcre2_dfa_match(c, subj, len, start, opts, md, mc, ws, wscount), 0);
}

/* pcre2_substitute into an output buffer of outsize code units (in/out
 * length). match_data may be NULL (documented). */
static inline int glue_substitute(const pcre2_code *c, const uint8_t *subj, size_t len, size_t start,
                                  uint32_t opts, pcre2_match_data *md, pcre2_match_context *mc,
                                  const uint8_t *repl, size_t rlen, uint32_t outsize) {
  PCRE2_UCHAR *out = malloc(outsize ? outsize : 1);
  PCRE2_SIZE outlen = outsize;
  int rc;
  if (!out) return PCRE2_ERROR_NOMEMORY;
  rc = pcre2_substitute(c, subj, len, start, opts, md, mc, repl, rlen, out, &outlen);
  free(out);
  /* pcre2api: afterwards md holds the final pcre2_match result (for global
   * changes a no-match), but 10.42 stores the substitution count in its
   * result code with a NULL subject (seeds/pcre2/bugs/substitute-md-rc.seq):
   * a careful user treats the block as holding no data, so reset it. */
  if (md) glue_md_reset(md);
  return rc;
}

/* ovector[2*pair + which] when pair < pcre2_get_ovector_count (the pointer
 * from pcre2_get_ovector_pointer cannot be a seqfuzz result). */
static inline size_t glue_ovector_get(pcre2_match_data *md, uint32_t pair, uint32_t which) {
  if (pair >= pcre2_get_ovector_count(md)) return PCRE2_UNSET;
  return pcre2_get_ovector_pointer(md)[2 * pair + (which & 1)];
}

/* ---------------------------------------------------------------------------
 * In/out lengths and allocated outputs.
 * ------------------------------------------------------------------------ */
/* pcre2_substring_get_by* (PCRE2_UCHAR ** output): get, then
 * pcre2_substring_free as documented. */
static inline int glue_substring_get_bynumber(pcre2_match_data *md, uint32_t n) {
  PCRE2_UCHAR *s = NULL;
  PCRE2_SIZE l;
  int rc = pcre2_substring_get_bynumber(md, n, &s, &l);
  if (rc == 0) pcre2_substring_free(s);
  return rc;
}
static inline int glue_substring_get_byname(pcre2_match_data *md, const char *name) {
  PCRE2_UCHAR *s = NULL;
  PCRE2_SIZE l;
  int rc = pcre2_substring_get_byname(md, (PCRE2_SPTR)name, &s, &l);
  if (rc == 0) pcre2_substring_free(s);
  return rc;
}

/* pcre2_substring_list_get (PCRE2_UCHAR *** and PCRE2_SIZE ** outputs; the
 * lengths list is optional), then pcre2_substring_list_free. */
static inline int glue_substring_list(pcre2_match_data *md, bool lengths) {
  PCRE2_UCHAR **list = NULL;
  PCRE2_SIZE *lens = NULL;
  int rc = pcre2_substring_list_get(md, &list, lengths ? &lens : NULL);
  if (rc == 0) pcre2_substring_list_free((PCRE2_SPTR *)list);
  return rc;
}

/* pcre2_substring_nametable_scan (PCRE2_SPTR * outputs, both optional). */
static inline int glue_substring_nametable_scan(const pcre2_code *c, const char *name, bool range) {
  PCRE2_SPTR first, last;
  return pcre2_substring_nametable_scan(c, (PCRE2_SPTR)name, range ? &first : NULL,
                                        range ? &last : NULL);
}

/* pcre2_pattern_convert with a NULL *buffer (the library allocates the
 * result); the result is freed by pcre2_converted_pattern_free (grammar
 * `release`). NULL when the conversion fails. */
static inline char *glue_pattern_convert(const uint8_t *pat, size_t len, uint32_t opts,
                                         pcre2_convert_context *cv) {
  PCRE2_UCHAR *out = NULL;
  PCRE2_SIZE outlen = 0;
  if (pcre2_pattern_convert(pat, len, opts, &out, &outlen, cv) != 0) return NULL;
  return (char *)out;
}

/* pcre2_serialize_encode of one or two patterns (a pcre2_code * array and
 * uint8_t ** / PCRE2_SIZE * outputs). NULL on failure (negative result). */
static inline uint8_t *glue_serialize_encode(const pcre2_code *a, const pcre2_code *b,
                                             pcre2_general_context *g) {
  const pcre2_code *codes[2] = {a, b};
  uint8_t *bytes = NULL;
  PCRE2_SIZE size;
  if (pcre2_serialize_encode(codes, b ? 2 : 1, &bytes, &size, g) < 0) return NULL;
  return bytes;
}

/* pcre2_serialize_decode of every pattern in bytes (produced by
 * glue_serialize_encode, as the documentation requires); returns pattern
 * number `which` (modulo the count) and frees the others. */
static inline pcre2_code *glue_serialize_decode(const uint8_t *bytes, uint32_t which,
                                                pcre2_general_context *g) {
  pcre2_code *codes[2] = {NULL, NULL};
  int32_t n = pcre2_serialize_get_number_of_codes(bytes);
  if (n < 1 || n > 2 || pcre2_serialize_decode(codes, n, bytes, g) != n) return NULL;
  which %= (uint32_t)n;
  for (int32_t i = 0; i < n; i++)
    if ((uint32_t)i != which) pcre2_code_free(codes[i]);
  return codes[which];
}

/* ---------------------------------------------------------------------------
 * Function-pointer arguments: fixed callbacks, data passed by value.
 * ------------------------------------------------------------------------ */
/* pcre2_general_context_create with the default malloc/free (NULL, NULL). */
static inline pcre2_general_context *glue_general_context_create(void) {
  return pcre2_general_context_create(NULL, NULL, NULL);
}

/* Callouts: the callback returns `ret` (0 go on, >0 fail here, <0 abort the
 * match with that code). The value travels in the data pointer itself. */
static int glue_callout_cb(pcre2_callout_block *b, void *data) {
  (void)b;
  return (int)(intptr_t)data;
}
static inline int glue_set_callout(pcre2_match_context *mc, int32_t ret) {
  return pcre2_set_callout(mc, glue_callout_cb, (void *)(intptr_t)ret);
}
static int glue_subst_callout_cb(pcre2_substitute_callout_block *b, void *data) {
  (void)b;
  return (int)(intptr_t)data;
}
static inline int glue_set_substitute_callout(pcre2_match_context *mc, int32_t ret) {
  return pcre2_set_substitute_callout(mc, glue_subst_callout_cb, (void *)(intptr_t)ret);
}
/* Compile recursion guard: fail compilation beyond max_depth. */
static int glue_guard_cb(uint32_t depth, void *data) {
  return depth > (uint32_t)(uintptr_t)data;
}
static inline int glue_set_compile_recursion_guard(pcre2_compile_context *cc, uint32_t max_depth) {
  return pcre2_set_compile_recursion_guard(cc, glue_guard_cb, (void *)(uintptr_t)max_depth);
}
/* pcre2_callout_enumerate with a callback that counts callouts and stops
 * (returns `stop_at`) after stop_at of them when stop_at > 0. */
static int glue_enum_cb(pcre2_callout_enumerate_block *b, void *data) {
  (void)b;
  return b->callout_number == (uint32_t)(uintptr_t)data ? 1 : 0;
}
static inline int glue_callout_enumerate(const pcre2_code *c, uint32_t stop_number) {
  return pcre2_callout_enumerate(c, glue_enum_cb, (void *)(uintptr_t)stop_number);
}
/* Obsolete no-op: pcre2_set_recursion_memory_management with the defaults. */
static inline int glue_set_recursion_memory_management(pcre2_match_context *mc) {
  return pcre2_set_recursion_memory_management(mc, NULL, NULL, NULL);
}

/* ---------------------------------------------------------------------------
 * Character tables.
 * pcre2api: "It is the caller's responsibility to ensure that the memory
 * containing the tables remains available while they are still in use" (by
 * the compile context and by every pattern compiled with it): seqfuzz cannot
 * state that, so compile contexts get one set of tables built by
 * pcre2_maketables once and kept for the whole process.
 * ------------------------------------------------------------------------ */
static inline int glue_set_character_tables(pcre2_compile_context *cc) {
  static const uint8_t *tables;
  if (!tables) tables = pcre2_maketables(NULL);
  if (!tables) return PCRE2_ERROR_NOMEMORY;
  return pcre2_set_character_tables(cc, tables);
}
/* Destructor for tables from pcre2_maketables: every general context of this
 * grammar uses the default allocator, so NULL is the matching context. */
static inline void glue_maketables_free(const uint8_t *tables) {
  pcre2_maketables_free(NULL, tables);
}

#endif
