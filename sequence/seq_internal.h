/* Helpers shared by the files of sequence/ (not part of the public API). */
#ifndef SF_SEQ_INTERNAL_H
#define SF_SEQ_INTERNAL_H

#include "seq.h"

/* Canonicalize array elements in place (bool to 0/1, one NaN). */
void sf_seq_canon_elems(sf_kind elem, uint8_t *d, uint32_t len);

#endif
