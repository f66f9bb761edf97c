/* cjson_glue.h: the few calls of cJSON / cJSON_Utils that cjson.api cannot
 * declare directly. Each function is tiny and calls the real API the way a
 * careful user would; everything else in cjson.api is the real function with
 * its real signature.
 *
 * Two handle types share the C type cJSON (see cjson.api): "cJSON" is a
 * caller-owned tree (freed with cJSON_Delete), "item" is a borrowed node inside
 * some tree. The glue functions below take cJSON* for both.
 */
#ifndef CJSON_SEQFUZZ_GLUE_H
#define CJSON_SEQFUZZ_GLUE_H

#include <stddef.h>
#include "cJSON.h"
#include "cJSON_Utils.h"

/* A borrowed view of a whole tree: the root itself, seen as a node. The
 * grammar declares the result owned by the root and invalidated by every call
 * that removes or frees nodes of that tree, so node handles never dangle. */
static inline cJSON *cj_item(cJSON *root) {
  return root;
}

/* Whether cJSON_Parse can build a tree like `node` (at nesting level `depth`
 * of its containers): none of its items is cJSON_Raw ("cJSON will never create
 * this type when parsing. Also note that cJSON doesn't check if it is valid
 * JSON", README: the raw text is printed verbatim), and its arrays and objects
 * are nested at most CJSON_NESTING_LIMIT deep (parse_array and parse_object
 * refuse deeper ones; the printer has no limit). */
static inline int cj_parsable(const cJSON *node, int depth) {
  const cJSON *c;
  if (cJSON_IsRaw(node)) return 0;
  if (cJSON_IsArray(node) || cJSON_IsObject(node)) {
    if (++depth > CJSON_NESTING_LIMIT) return 0;
    for (c = node->child; c != NULL; c = c->next)
      if (!cj_parsable(c, depth)) return 0;
  }
  return 1;
}

/* The text of a whole tree, what cJSON_Parse reads back (the grammar says
 * cJSON_Parse is its inverse_of): the simplifier prints a tree some calls
 * built with it and replaces those calls with one parse of the text, and the
 * harness checks that the text parses and prints back the same. A tree no
 * parse can build (see cj_parsable) is refused (NULL, as when printing fails):
 * its text is not one that cJSON_Parse takes back. */
static inline char *cj_print(cJSON *root) {
  if (!cj_parsable(root, 0)) return NULL;
  return cJSON_PrintUnformatted(root);
}

/* Is `node` a direct child of `parent`? (a precondition of the *ViaPointer
 * functions that the grammar cannot state) */
static inline int cj_is_child(const cJSON *parent, const cJSON *node) {
  const cJSON *c;
  for (c = parent->child; c != NULL; c = c->next)
    if (c == node) return 1;
  return 0;
}

/* cJSON_ParseWithOpts: return_parse_end is a `const char **` output; the glue
 * reports it as an offset into `value` (on failure it is the error position,
 * which the header says equals cJSON_GetErrorPtr()). */
static inline cJSON *cj_ParseWithOpts(const char *value, cJSON_bool require_null_terminated,
                                      size_t *end_offset) {
  const char *end = NULL;
  cJSON *r = cJSON_ParseWithOpts(value, &end, require_null_terminated);
  *end_offset = end ? (size_t)(end - value) : 0;
  return r;
}

/* cJSON_ParseWithLengthOpts: same output, on a buffer that need not be
 * NUL-terminated (the executor passes exactly `length` bytes). */
static inline cJSON *cj_ParseWithLengthOpts(const char *value, size_t length,
                                            cJSON_bool require_null_terminated,
                                            size_t *end_offset) {
  const char *end = NULL;
  cJSON *r = cJSON_ParseWithLengthOpts(value, length, &end, require_null_terminated);
  *end_offset = end ? (size_t)(end - value) : 0;
  return r;
}

/* cJSON_CreateStringArray takes `const char *const *strings`, which the
 * grammar cannot pass: up to four strings, the first `count` of them used. */
static inline cJSON *cj_CreateStringArray(const char *s0, const char *s1, const char *s2,
                                          const char *s3, int count) {
  const char *const strings[4] = {s0, s1, s2, s3};
  return cJSON_CreateStringArray(strings, count);
}

/* The *Array functions below insert an item without a key. In an object that
 * would make a member without a name (a malformed object that cJSON_Utils
 * later dereferences), so a careful user calls them on arrays only; the glue
 * refuses (returns false, consuming nothing) otherwise. */
static inline cJSON_bool cj_AddItemToArray(cJSON *array, cJSON *item) {
  if (!cJSON_IsArray(array)) return 0;
  return cJSON_AddItemToArray(array, item);
}

static inline cJSON_bool cj_InsertItemInArray(cJSON *array, int which, cJSON *newitem) {
  if (!cJSON_IsArray(array)) return 0;
  return cJSON_InsertItemInArray(array, which, newitem);
}

static inline cJSON_bool cj_ReplaceItemInArray(cJSON *array, int which, cJSON *newitem) {
  if (!cJSON_IsArray(array)) return 0;
  return cJSON_ReplaceItemInArray(array, which, newitem);
}

static inline void cj_AddPatchToArray(cJSON *array, const char *operation, const char *path,
                                      const cJSON *value) {
  if (!cJSON_IsArray(array)) return;
  cJSONUtils_AddPatchToArray(array, operation, path, value);
}

/* Members with a key go into objects only. cJSON does not check: a keyed
 * member in an array or a string is malformed, and in an item made by
 * cJSON_CreateStringReference (a reference owns nothing, not even children)
 * it is never freed. The glue refuses (false or NULL, consuming nothing). */
static inline cJSON_bool cj_AddItemToObject(cJSON *object, const char *string, cJSON *item) {
  if (!cJSON_IsObject(object)) return 0;
  return cJSON_AddItemToObject(object, string, item);
}

static inline cJSON_bool cj_AddItemToObjectCS(cJSON *object, const char *string, cJSON *item) {
  if (!cJSON_IsObject(object)) return 0;
  return cJSON_AddItemToObjectCS(object, string, item);
}

/* cj_AddNullToObject ... cj_AddArrayToObject: cJSON_Add<What>ToObject on
 * objects only (see above); NULL otherwise, like the call's own failure. */
#define CJ_ADD_TO_OBJECT(what, params, args)                                                       \
  static inline cJSON *cj_Add##what##ToObject params {                                             \
    if (!cJSON_IsObject(object)) return NULL;                                                      \
    return cJSON_Add##what##ToObject args;                                                         \
  }
CJ_ADD_TO_OBJECT(Null, (cJSON * object, const char *name), (object, name))
CJ_ADD_TO_OBJECT(True, (cJSON * object, const char *name), (object, name))
CJ_ADD_TO_OBJECT(False, (cJSON * object, const char *name), (object, name))
CJ_ADD_TO_OBJECT(Bool, (cJSON * object, const char *name, cJSON_bool b), (object, name, b))
CJ_ADD_TO_OBJECT(Number, (cJSON * object, const char *name, double n), (object, name, n))
CJ_ADD_TO_OBJECT(String, (cJSON * object, const char *name, const char *s), (object, name, s))
CJ_ADD_TO_OBJECT(Raw, (cJSON * object, const char *name, const char *raw), (object, name, raw))
CJ_ADD_TO_OBJECT(Object, (cJSON * object, const char *name), (object, name))
CJ_ADD_TO_OBJECT(Array, (cJSON * object, const char *name), (object, name))
#undef CJ_ADD_TO_OBJECT

/* cJSON_DetachItemViaPointer: `item` must be a child of `parent`. Returns
 * NULL (nothing detached) when it is not. */
static inline cJSON *cj_DetachItemViaPointer(cJSON *parent, cJSON *item) {
  if (!cj_is_child(parent, item)) return NULL;
  return cJSON_DetachItemViaPointer(parent, item);
}

/* cJSON_ReplaceItemViaPointer: `item` must be a child of `parent`; in an
 * object the replacement keeps its own key, so it must have one (e.g. an item
 * detached from an object). Returns false (consuming nothing) otherwise. */
static inline cJSON_bool cj_ReplaceItemViaPointer(cJSON *parent, cJSON *item, cJSON *replacement) {
  if (!cj_is_child(parent, item)) return 0;
  if (!cJSON_IsArray(parent) && replacement->string == NULL) return 0;
  return cJSON_ReplaceItemViaPointer(parent, item, replacement);
}

/* cJSONUtils_ApplyPatches{,CaseSensitive}: `object` is modified while the
 * const `patches` list is walked, so the two must be different trees (patching
 * the patch list itself frees the entry being read). Two live roots are
 * disjoint or the same, so the glue refuses only object == patches (-1). */
static inline int cj_ApplyPatches(cJSON *object, const cJSON *patches) {
  if (object == patches) return -1;
  return cJSONUtils_ApplyPatches(object, patches);
}

static inline int cj_ApplyPatchesCaseSensitive(cJSON *object, const cJSON *patches) {
  if (object == patches) return -1;
  return cJSONUtils_ApplyPatchesCaseSensitive(object, patches);
}

/* cJSON_SetIntValue is a macro; it returns the value it stored. */
static inline int cj_SetIntValue(cJSON *item, int number) {
  return cJSON_SetIntValue(item, number);
}

#endif
