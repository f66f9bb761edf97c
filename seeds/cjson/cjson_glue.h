/* cjson_glue.h: the few calls of cJSON / cJSON_Utils that cjson.api cannot
 * declare directly, each tiny. Everything else in cjson.api is the real
 * function with its real signature (preconditions are `requires` there).
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

/* Is `node` `tree` itself or a node inside it? (AddPatchToArray's bound) */
static inline cJSON_bool cj_holds(const cJSON *tree, const cJSON *node) {
  if (tree == node) return 1;
  for (const cJSON *c = tree->child; c != NULL; c = c->next)
    if (cj_holds(c, node)) return 1;
  return 0;
}

/* Is `node` a direct child of `parent`? (what the *ViaPointer preconditions
 * read: cJSON has no such query) */
static inline cJSON_bool cj_is_child(const cJSON *parent, const cJSON *node) {
  const cJSON *c;
  for (c = parent->child; c != NULL; c = c->next)
    if (c == node) return 1;
  return 0;
}

/* cJSON_CreateStringArray takes `const char *const *strings`, which the
 * grammar cannot pass: up to four strings, the first `count` of them used. */
static inline cJSON *cj_CreateStringArray(const char *s0, const char *s1, const char *s2,
                                          const char *s3, int count) {
  const char *const strings[4] = {s0, s1, s2, s3};
  return cJSON_CreateStringArray(strings, count);
}

/* cJSON_SetIntValue is a macro; it returns the value it stored. */
static inline int cj_SetIntValue(cJSON *item, int number) {
  return cJSON_SetIntValue(item, number);
}

#endif
