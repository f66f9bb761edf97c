/* objlib: a test library for the executor. Objects come from a fixed pool so
 * that a double free or a use after free is counted, not suffered. */
#ifndef OBJLIB_H
#define OBJLIB_H

#include <stddef.h>

typedef struct obj obj;
typedef struct tok tok;

obj *obj_new(int id);                   /* NULL when id < 0 (error) */
obj *obj_maybe(int v);                  /* NULL when v == 0 (not an error) */
void obj_free(obj *o);                  /* destructor: frees adopted children too */
int obj_adopt(obj *parent, obj *child); /* parent owns child; -1 when full (nothing happens) */
obj *obj_child(obj *parent, int i);     /* owned by parent */
int obj_fail(obj *o, int code);         /* returns code (error when < 0) */
long obj_sum(obj *o, const unsigned char *data, size_t n);
void obj_keep(obj *o, const char *s); /* stores s; read by obj_kept_len later */
long obj_kept_len(obj *o);
char *obj_name(obj *o); /* malloc'd; release with obj_str_free */
void obj_str_free(char *s);
tok *tok_open(int fail_close);
int tok_close(tok *t); /* returns -1 when opened with fail_close, still frees */

/* Counters the tests read. */
typedef struct objlib_stats {
  int live, freed, double_frees, bad_uses, names_released, toks_live;
  long last_sum, last_n;
} objlib_stats;
extern objlib_stats objlib;
void objlib_reset(void);
/* Address of an objlib function by name (an sf_resolve_fn). */
void *objlib_resolve(void *ctx, const char *name);

#endif
