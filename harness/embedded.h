/* embedded.h: what `seqfuzz embed API -o FILE.c` generates, and the fuzz
 * target reads: the API text, its file name, whether it marks a coverage
 * state (api.h: sf_api_coverage_state; known before main, when AFL++'s map
 * must be sized), and the address of every function it names (taken in C,
 * so the linker pulls them in and no dlsym or -rdynamic is needed). */
#ifndef SF_EMBEDDED_H
#define SF_EMBEDDED_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sf_symbol {
  const char *name;
  void *addr;
} sf_symbol;

extern const char sf_embedded_api_text[];
extern const size_t sf_embedded_api_len;
extern const char sf_embedded_api_path[];
extern const bool sf_embedded_coverage_state;
extern const sf_symbol sf_embedded_symbols[]; /* ends with {NULL, NULL} */

#endif
