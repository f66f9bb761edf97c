/* sb: a growable string buffer. */
#ifndef SB_H
#define SB_H
#include <stddef.h>

typedef struct sb sb_t;

#define SB_MAX_CAPACITY 4096

/* A buffer with room for cap bytes (1 to SB_MAX_CAPACITY); NULL on error. */
sb_t *sb_new(size_t cap);
void sb_free(sb_t *b);
/* Appends len bytes of data; 0, or -1 when the buffer is full. */
int sb_append(sb_t *b, const char *data, size_t len);
/* Gives back the room the buffer does not use. */
void sb_shrink(sb_t *b);
/* Empties the buffer. */
void sb_clear(sb_t *b);
size_t sb_len(const sb_t *b);
/* The contents, NUL-terminated. */
const char *sb_str(const sb_t *b);
#endif
