/* refcnt: reference-counted document values (integers, strings and maps of
 * string keys to values), in the style of jansson and CPython.
 *
 * REFERENCE RULES
 *  - Every function that returns `rc_val *` documented as a NEW reference
 *    gives the caller one reference, which the caller releases with
 *    rc_decref(). A value is freed when its last reference is released; a
 *    map releases the references it holds on its values when it is freed.
 *  - A BORROWED reference (rc_map_get) is owned by the map it came from. The
 *    caller must not rc_decref() it. It stays valid until that map is
 *    modified (rc_map_set, rc_map_set_new, rc_map_del, rc_map_take) or
 *    freed; rc_incref() turns it into a reference of the caller's own.
 *  - rc_map_set() BORROWS its value (the map takes a reference of its own;
 *    the caller keeps theirs). rc_map_set_new() STEALS it: the caller's
 *    reference goes to the map, or is released when the call fails.
 *  - Sharing freezes a map: while a map has more than one reference (a map
 *    that holds it, or a second reference of the caller), the calls that
 *    modify it fail with RC_ESHARED. rc_copy() gives an unshared copy. So a
 *    value never contains itself, and a borrowed reference can only be
 *    invalidated through the one reference that may modify its map.
 * Passing NULL where a value is expected fails (RC_EINVAL, or NULL). */
#ifndef REFCNT_H
#define REFCNT_H

#include <stddef.h>
#include <stdint.h>

typedef struct rc_val rc_val;

typedef enum rc_kind { RC_INT = 0, RC_STR = 1, RC_MAP = 2 } rc_kind;

#define RC_OK       0
#define RC_NOTFOUND 1  /* rc_map_del: the key is absent (not an error) */
#define RC_EINVAL   -1 /* a NULL argument, or a map given itself */
#define RC_EKIND    -2 /* the value is not a map */
#define RC_ESHARED  -3 /* the map has more than one reference: frozen */
#define RC_ENOMEM   -4

/* A new integer, string (a copy of s) or empty map: a new reference, or
 * NULL when out of memory (or s is NULL). */
rc_val *rc_new_int(int64_t v);
rc_val *rc_new_str(const char *s);
rc_val *rc_new_map(void);

/* Adds a reference to v and returns v (a new reference); NULL if v is NULL. */
rc_val *rc_incref(rc_val *v);
/* Releases one reference; frees v when it was the last. NULL is ignored. */
void rc_decref(rc_val *v);

/* Sets map[key] = val, replacing any previous value. Borrows val: the map
 * takes a reference of its own. 0, or RC_EINVAL, RC_EKIND, RC_ESHARED,
 * RC_ENOMEM; on failure nothing changes. val may be any live reference,
 * borrowed ones included (also one borrowed from map itself). */
int rc_map_set(rc_val *map, const char *key, rc_val *val);
/* As rc_map_set but steals val: the caller's reference passes to the map,
 * and is released when the call fails. val must not be the reference passed
 * as map. */
int rc_map_set_new(rc_val *map, const char *key, rc_val *val);
/* map[key]: a borrowed reference (see above), or NULL when map is not a map
 * or has no such key. */
rc_val *rc_map_get(rc_val *map, const char *key);
/* Removes map[key] and returns the map's reference to it (a new reference
 * for the caller), or NULL when absent, not a map, or shared. */
rc_val *rc_map_take(rc_val *map, const char *key);
/* Removes map[key] and releases it: 0, RC_NOTFOUND, or RC_EINVAL, RC_EKIND,
 * RC_ESHARED. */
int rc_map_del(rc_val *map, const char *key);

/* A copy of v with one reference (a new reference): an integer or a string
 * copied, a map with the same keys referencing the same values (shallow).
 * NULL when out of memory or v is NULL. */
rc_val *rc_copy(rc_val *v);

/* The number of entries of a map, bytes of a string, 0 for an integer. */
size_t rc_len(const rc_val *v);
/* A hash of the whole value (deep: a map's keys and values, whatever the
 * order they were set in). */
uint64_t rc_hash(const rc_val *v);
/* The number of references to v (the caller's and the maps'). */
int rc_refcount(const rc_val *v);

#endif
