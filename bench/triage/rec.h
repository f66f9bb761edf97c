/* rec: a record holding one byte string (triage benchmark, case glue-len).
 * The library is correct; its glue header, rec_glue.h, is not. */
#ifndef REC_H
#define REC_H

#include <stddef.h>
#include <stdint.h>

typedef struct rec rec;

rec *rec_new(void);
void rec_free(rec *r);
/* Store a copy of the len bytes at data (len <= 4096). 0, or -1. */
int rec_set(rec *r, const uint8_t *data, size_t len);
/* Append a copy of the len bytes at data. 0, or -1 past 4096 bytes. */
int rec_append(rec *r, const uint8_t *data, size_t len);
/* Bytes stored. */
size_t rec_size(const rec *r);
/* A hash of the bytes stored. */
uint32_t rec_hash(const rec *r);

#endif
