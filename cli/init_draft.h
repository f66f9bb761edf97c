/* init_draft.h: a draft grammar (.api) from C headers, for `seqfuzz init`.
 *
 * sf_draft_new() parses the headers with libclang (one translation unit that
 * includes them all) and turns the declarations found in them into the
 * grammar's terms (docs/grammar.md): functions with mapped parameter types,
 * handle types (opaque structs, struct pointers several functions take,
 * caller-allocated structs), constructors, destructors, buffer/length pairs,
 * out parameters, error conventions, enums, #define constants (as enums) and
 * string constants (as `dict`). Every guess is rendered with a `# guess:`
 * comment; a function the grammar cannot express is rendered commented out
 * with the reason, never dropped.
 *
 * Contract: the rendered draft parses (sf_api_parse) whenever the headers
 * parsed without errors; cmd_init.c checks it before writing. The model
 * keeps only its own strings: no libclang object outlives sf_draft_new, so
 * the caller may fork afterwards (the probe). */
#ifndef SF_INIT_DRAFT_H
#define SF_INIT_DRAFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sf_buf.h"

typedef struct sf_draft_opts {
  const char *const *headers; /* as given on the command line */
  uint32_t nheaders;
  const char *const *includes; /* -I DIR */
  uint32_t nincludes;
  const char *const *defines; /* -D NAME[=VALUE] */
  uint32_t ndefines;
  const char *lib;      /* --lib, or NULL */
  const char *out_path; /* -o, or NULL (paths then relative to the working directory) */
} sf_draft_opts;

typedef struct sf_draft sf_draft;

/* Parse and draft. NULL on failure with the reason in err: a header that
 * cannot be read, or libclang's errors (the first few, with a hint). */
sf_draft *sf_draft_new(const sf_draft_opts *o, char *err, size_t errlen);
void sf_draft_free(sf_draft *d);

/* Append the draft's text to out. With probe, the variant the probe loads:
 * `default nullable;` (so a probe may pass NULL), no `release`, and of the
 * expressible functions only those with keep[i] set (keep may be NULL: all).
 * -1 on OOM. */
int sf_draft_render(const sf_draft *d, bool probe, const bool *keep, sf_buf *out);

/* The functions found, in header order (expressible or not). */
uint32_t sf_draft_nfuncs(const sf_draft *d);
/* Its name in the grammar, and its symbol in the library (they differ when
 * a macro renames it, as pcre2.h's pcre2_compile -> pcre2_compile_8). */
const char *sf_draft_func_name(const sf_draft *d, uint32_t i);
const char *sf_draft_func_symbol(const sf_draft *d, uint32_t i);
/* Drafted as a `func` (false: commented out with its reason). */
bool sf_draft_func_expressible(const sf_draft *d, uint32_t i);
/* Add a comment line (text without '#') rendered just above function i. -1 on OOM. */
int sf_draft_func_note(sf_draft *d, uint32_t i, const char *note);

/* One line for stderr: what was drafted. */
void sf_draft_summary(const sf_draft *d, char *buf, size_t len);

#endif
