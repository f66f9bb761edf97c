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
 * Match data: what only a pointer into it or a T ** output can give.
 * ------------------------------------------------------------------------ */
/* ovector[2*pair + which] when pair < pcre2_get_ovector_count (the pointer
 * from pcre2_get_ovector_pointer cannot be a seqfuzz result). */
static inline size_t glue_ovector_get(pcre2_match_data *md, uint32_t pair, uint32_t which) {
  if (pair >= pcre2_get_ovector_count(md)) return PCRE2_UNSET;
  return pcre2_get_ovector_pointer(md)[2 * pair + (which & 1)];
}

/* ---------------------------------------------------------------------------
 * Serialization: arrays of patterns.
 * ------------------------------------------------------------------------ */
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
