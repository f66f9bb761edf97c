/* solverlib: a planted bug behind two arithmetic guards on the arguments
 * (for the solver's end-to-end test): `a + b == 1000003` and then
 * `a - b == 77` must both hold. Neither constant is the argument to pass. */
#ifndef SOLVERLIB_H
#define SOLVERLIB_H

#include <stdint.h>

typedef struct pair pair;

pair *pair_new(void);
void pair_free(pair *p);
/* Counts one event; returns the new count. */
int pair_note(pair *p, uint32_t a, uint32_t b);

#endif
