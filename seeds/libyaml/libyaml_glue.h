/* libyaml_glue.h: what libyaml.api cannot say about libyaml 0.2.5 (see the
 * comment at the top of libyaml.api): observers that compute from struct
 * fields (digests, a stage), the %YAML / %TAG directive structs, the
 * parse/scan loop, and the round trip's printer and parser.
 * Everything else is called directly: the objects are `struct` handles the
 * harness allocates for the real initializers and frees after the real
 * *_delete.
 */
#ifndef LIBYAML_GLUE_H
#define LIBYAML_GLUE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ------------------------------------------------------------- observers */

/* Which of scan and parse/load read from the parser (yaml.h: they must not
 * be alternated): 0 nothing yet; 1 the scanner produced tokens while the
 * parser state never left STREAM-START (yaml_parser_scan); 2 parsed, at a
 * document boundary (what yaml_parser_load leaves, and what it may start
 * from); 3 parsed, inside a document. */
static inline int glue_parser_stage(yaml_parser_t *p) {
  switch (p->state) {
  case YAML_PARSE_STREAM_START_STATE: return p->stream_start_produced ? 1 : 0;
  case YAML_PARSE_IMPLICIT_DOCUMENT_START_STATE:
  case YAML_PARSE_DOCUMENT_START_STATE:
  case YAML_PARSE_END_STATE: return 2;
  default: return 3;
  }
}

/* A digest of a token, reading every string it carries. */
static inline uint32_t glue_token_digest(yaml_token_t *t) {
  uint32_t h = (uint32_t)t->type * 2654435761u;
  const unsigned char *s = NULL, *s2 = NULL;
  size_t n = 0;
  switch (t->type) {
  case YAML_ALIAS_TOKEN: s = t->data.alias.value; break;
  case YAML_ANCHOR_TOKEN: s = t->data.anchor.value; break;
  case YAML_TAG_TOKEN: s = t->data.tag.handle; s2 = t->data.tag.suffix; break;
  case YAML_TAG_DIRECTIVE_TOKEN: s = t->data.tag_directive.handle; s2 = t->data.tag_directive.prefix; break;
  case YAML_SCALAR_TOKEN:
    for (n = 0; n < t->data.scalar.length; n++) h = h * 31 + t->data.scalar.value[n];
    break;
  default: break;
  }
  for (; s && *s; s++) h = h * 31 + *s;
  for (; s2 && *s2; s2++) h = h * 31 + *s2;
  return h;
}

/* A digest of an event, reading its anchor, tag and value. */
static inline uint32_t glue_event_digest(yaml_event_t *e) {
  uint32_t h = (uint32_t)e->type * 2654435761u;
  const unsigned char *s = NULL, *s2 = NULL;
  size_t n;
  switch (e->type) {
  case YAML_ALIAS_EVENT: s = e->data.alias.anchor; break;
  case YAML_SCALAR_EVENT:
    s = e->data.scalar.anchor;
    s2 = e->data.scalar.tag;
    for (n = 0; n < e->data.scalar.length; n++) h = h * 31 + e->data.scalar.value[n];
    break;
  case YAML_SEQUENCE_START_EVENT: s = e->data.sequence_start.anchor; s2 = e->data.sequence_start.tag; break;
  case YAML_MAPPING_START_EVENT: s = e->data.mapping_start.anchor; s2 = e->data.mapping_start.tag; break;
  default: break;
  }
  for (; s && *s; s++) h = h * 31 + *s;
  for (; s2 && *s2; s2++) h = h * 31 + *s2;
  return h;
}

/* The number of nodes of a document: valid ids are 1 to it. */
static inline int glue_document_nodes(yaml_document_t *d) {
  return (int)(d->nodes.top - d->nodes.start);
}

/* The type of node `id` (YAML_NO_NODE when there is none), for the ids
 * yaml_document_append_sequence_item / _mapping_pair assert on. */
static inline yaml_node_type_t glue_document_node_type(yaml_document_t *d, int id) {
  return id > 0 && id <= glue_document_nodes(d) ? d->nodes.start[id - 1].type : YAML_NO_NODE;
}

/* A digest of a node (yaml_document_get_node's result), reading its tag,
 * scalar value, items and pairs. */
static inline uint32_t glue_node_digest(yaml_node_t *n) {
  uint32_t h = (uint32_t)n->type * 2654435761u;
  const unsigned char *s;
  size_t i;
  for (s = n->tag; s && *s; s++) h = h * 31 + *s;
  if (n->type == YAML_SCALAR_NODE)
    for (i = 0; i < n->data.scalar.length; i++) h = h * 31 + n->data.scalar.value[i];
  if (n->type == YAML_SEQUENCE_NODE)
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
      h = h * 31 + (uint32_t)*it;
  if (n->type == YAML_MAPPING_NODE)
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
      h = h * 31 + (uint32_t)p->key * 7 + (uint32_t)p->value;
  return h;
}

/* A digest of what was written to a string output and how many bytes
 * (yaml_emitter_set_output_string fills all of output.string;
 * yaml_emitter_set_output_file sets only output.file, which shares its first
 * field, so size_written stays NULL, as with a handler of one's own). */
static inline uint64_t glue_emitter_output(yaml_emitter_t *e) {
  uint64_t h = 0, n = 0;
  if (e->write_handler && e->output.string.size_written) {
    n = *e->output.string.size_written;
    for (size_t i = 0; i < n && i < e->output.string.size; i++)
      h = h * 31 + e->output.string.buffer[i];
  }
  return (h << 32) ^ n;
}

/* ------------------------------------------------- directives, the loops */

/* yaml_document_start_event_initialize with an optional %YAML directive
 * (with_version) and an optional single %TAG directive (both strings
 * non-NULL); otherwise NULL / an empty list, as the header allows. */
static inline int glue_document_start_event_initialize(yaml_event_t *e, int with_version,
                                                       int major, int minor,
                                                       const char *tag_handle,
                                                       const char *tag_prefix, int implicit) {
  yaml_version_directive_t v = {major, minor};
  yaml_tag_directive_t t = {(yaml_char_t *)tag_handle, (yaml_char_t *)tag_prefix};
  int tags = tag_handle && tag_prefix;
  return yaml_document_start_event_initialize(e, with_version ? &v : NULL, tags ? &t : NULL,
                                              tags ? &t + 1 : NULL, implicit);
}

/* yaml_document_initialize, directives as above. */
static inline int glue_document_initialize(yaml_document_t *d, int with_version, int major,
                                           int minor, const char *tag_handle,
                                           const char *tag_prefix, int start_implicit,
                                           int end_implicit) {
  yaml_version_directive_t v = {major, minor};
  yaml_tag_directive_t t = {(yaml_char_t *)tag_handle, (yaml_char_t *)tag_prefix};
  int tags = tag_handle && tag_prefix;
  return yaml_document_initialize(d, with_version ? &v : NULL, tags ? &t : NULL,
                                  tags ? &t + 1 : NULL, start_implicit, end_implicit);
}

/* The loops every libyaml user writes (its tests/run-parser.c and
 * run-scanner.c, the fuzzers): yaml_parser_parse (scan) until STREAM-END,
 * deleting each event (token). Returns how many it read, 0 on error. A
 * parser past STREAM-END hands out empty events (tokens): that ends the
 * loop too. */
static inline int glue_parser_parse_all(yaml_parser_t *p) {
  for (int n = 1;; n++) {
    yaml_event_t e;
    if (!yaml_parser_parse(p, &e)) return 0;
    int done = e.type == YAML_STREAM_END_EVENT || e.type == YAML_NO_EVENT;
    yaml_event_delete(&e);
    if (done) return n;
  }
}

static inline int glue_parser_scan_all(yaml_parser_t *p) {
  for (int n = 1;; n++) {
    yaml_token_t t;
    if (!yaml_parser_scan(p, &t)) return 0;
    int done = t.type == YAML_STREAM_END_TOKEN || t.type == YAML_NO_TOKEN;
    yaml_token_delete(&t);
    if (done) return n;
  }
}

/* ------------------------------------------------------------ round trip */

/* A document's text and back: glue_document_print and glue_document_parse,
 * which libyaml.api pairs with `inverse_of`, so the harness checks that the
 * parser accepts what the printer prints and that the parsed document prints
 * the same text (docs/grammar.md, section 4a), and the simplifier may replace
 * a document some calls built by one parse of its text. */

/* The output of glue_document_print: a buffer that grows, always with room
 * for a NUL after `len` bytes. */
typedef struct {
  unsigned char *data;
  size_t len, cap;
} glue_text;

/* The yaml_write_handler_t of glue_document_print: appends (0 = no memory,
 * which the emitter reports as a write error). */
static inline int glue_text_write(void *data, unsigned char *buffer, size_t size) {
  glue_text *t = (glue_text *)data;
  if (t->cap - t->len <= size) {
    size_t cap = t->cap ? t->cap : 256;
    while (cap - t->len <= size)
      cap *= 2;
    unsigned char *p = (unsigned char *)realloc(t->data, cap);
    if (!p) return 0;
    t->data = p;
    t->cap = cap;
  }
  memcpy(t->data + t->len, buffer, size);
  t->len += size;
  return 1;
}

/* The tag a node is printed with: its own, except the non-specific tag "!",
 * which yaml_parser_load resolves to the default tag of the node's kind
 * (loader.c: "!" becomes YAML_DEFAULT_SCALAR_TAG, _SEQUENCE_TAG or
 * _MAPPING_TAG, the YAML spec's resolution of "!"), so that a node built
 * with "!" prints as the node its text loads as (NULL: the add_* functions
 * put in the default tag). The emitter writes "!" as the verbatim tag
 * "!<%21>", which the parser reads back as "!". */
static inline const yaml_char_t *glue_print_tag(const yaml_char_t *tag) {
  return tag && strcmp((const char *)tag, "!") == 0 ? NULL : tag;
}

/* A deep copy of d into `copy` (yaml_emitter_dump destroys the document it
 * is given): the same %YAML and %TAG directives and implicit flags, then node
 * by node, in order, the same tag (see glue_print_tag), value and style, so
 * that every node keeps its id and items and pairs are copied as ids
 * (anchored and recursive structures stay what they are). 1 on success; 0
 * with `copy` deleted. */
static inline int glue_document_copy(yaml_document_t *copy, yaml_document_t *d) {
  yaml_node_t *n;
  if (!yaml_document_initialize(copy, d->version_directive, d->tag_directives.start,
                                d->tag_directives.end, d->start_implicit, d->end_implicit))
    return 0;
  for (n = d->nodes.start; n < d->nodes.top; n++) {
    const yaml_char_t *tag = glue_print_tag(n->tag);
    int id = 0;
    if (n->type == YAML_SCALAR_NODE && n->data.scalar.length <= INT32_MAX)
      id = yaml_document_add_scalar(copy, tag, n->data.scalar.value, (int)n->data.scalar.length,
                                    n->data.scalar.style);
    else if (n->type == YAML_SEQUENCE_NODE)
      id = yaml_document_add_sequence(copy, tag, n->data.sequence.style);
    else if (n->type == YAML_MAPPING_NODE)
      id = yaml_document_add_mapping(copy, tag, n->data.mapping.style);
    if (id != (int)(n - d->nodes.start) + 1) goto fail;
  }
  for (n = d->nodes.start; n < d->nodes.top; n++) {
    int id = (int)(n - d->nodes.start) + 1;
    if (n->type == YAML_SEQUENCE_NODE) {
      yaml_node_item_t *it;
      for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
        if (!yaml_document_append_sequence_item(copy, id, *it)) goto fail;
    } else if (n->type == YAML_MAPPING_NODE) {
      yaml_node_pair_t *p;
      for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
        if (!yaml_document_append_mapping_pair(copy, id, p->key, p->value)) goto fail;
    }
  }
  return 1;
fail:
  yaml_document_delete(copy);
  return 0;
}

/* The text of a document as yaml_emitter_dump writes it (one document in a
 * stream of its own, UTF-8, the emitter's default settings), from a deep copy
 * so that `d` is left as it was; NUL-terminated and malloc'd (freed with
 * free). NULL when the emitter fails (it checks what the library's
 * constructors do not: tags, directives, anchors), and for a document with no
 * nodes: yaml_emitter_dump writes no document for it (it closes the stream),
 * and yaml_parser_load hands out such a document only as the end of the
 * stream, so it has no text that glue_document_parse would take back. */
static inline char *glue_document_print(yaml_document_t *d) {
  yaml_document_t copy;
  yaml_emitter_t em;
  glue_text t = {NULL, 0, 0};
  int ok;
  if (d->nodes.start == d->nodes.top || !glue_document_copy(&copy, d)) return NULL;
  if (!yaml_emitter_initialize(&em)) {
    yaml_document_delete(&copy);
    return NULL;
  }
  yaml_emitter_set_output(&em, glue_text_write, &t);
  ok = yaml_emitter_open(&em);
  if (ok)
    ok = yaml_emitter_dump(&em, &copy); /* deletes the copy, also when it fails */
  else
    yaml_document_delete(&copy);
  ok = ok && yaml_emitter_close(&em) && yaml_emitter_flush(&em);
  yaml_emitter_delete(&em);
  if (!ok || !t.data) {
    free(t.data);
    return NULL;
  }
  t.data[t.len] = '\0';
  return (char *)t.data;
}

/* The first document of `text` (yaml_parser_load), in malloc'd storage as
 * the harness gives a `struct` handle (it frees it after yaml_document_delete).
 * NULL on a scanner, parser or loader error, and when the text holds no
 * document: yaml_parser_load then returns a document without a root node
 * ("the document end has been reached"), which is not a document
 * glue_document_print prints. The parser is deleted before returning: the
 * document owns copies of everything it holds. */
static inline yaml_document_t *glue_document_parse(const char *text) {
  yaml_parser_t parser;
  yaml_document_t *d = (yaml_document_t *)calloc(1, sizeof *d);
  int ok;
  if (!d) return NULL;
  if (!yaml_parser_initialize(&parser)) {
    free(d);
    return NULL;
  }
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
  ok = yaml_parser_load(&parser, d);
  yaml_parser_delete(&parser);
  if (ok && !yaml_document_get_root_node(d)) {
    yaml_document_delete(d);
    ok = 0;
  }
  if (!ok) {
    free(d);
    return NULL;
  }
  return d; /* malloc'd: the harness frees a struct's storage after its destructor */
}

#endif
