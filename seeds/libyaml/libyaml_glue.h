/* libyaml_glue.h: the few calls of libyaml 0.2.5 that libyaml.api cannot
 * describe directly (see the comment at the top of libyaml.api).
 *
 * libyaml's objects (yaml_parser_t, yaml_emitter_t, yaml_event_t,
 * yaml_token_t, yaml_document_t) are structs the CALLER allocates and the
 * library fills ("@param[out] event  An empty event object").  seqfuzz handles
 * are pointers produced by a call, so the glue below allocates zeroed storage,
 * lets the real function fill it, and frees the storage after the library's
 * own *_delete.  Preconditions the library only asserts (a source or encoding
 * set once, open before close, valid node ids, no mixing of scan/parse/load)
 * are checked here: a refused call returns the API's failure value (0 or
 * NULL), so the run stops as on any error, instead of tripping an assert.
 * Everything else goes to the real functions, declared in libyaml.api with
 * their real signatures.
 */
#ifndef LIBYAML_GLUE_H
#define LIBYAML_GLUE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---------------------------------------------------------------- parser */

/* A parser plus what its input needs; the yaml_parser_t comes first, so a
 * glue_parser * is a valid yaml_parser_t * for the real functions. */
typedef struct {
  yaml_parser_t parser;
  int mode;                 /* 0 unused, 1 scan, 2 parse, 3 load (never mixed) */
  FILE *file;               /* yaml_parser_set_input_file's stream, or NULL */
  const unsigned char *src; /* yaml_parser_set_input's data */
  size_t len, pos, chunk;
} glue_parser;

/* yaml_parser_initialize on fresh storage; NULL when it fails. */
static inline glue_parser *glue_parser_alloc(void) {
  glue_parser *g = (glue_parser *)calloc(1, sizeof *g);
  if (g && !yaml_parser_initialize(&g->parser)) {
    free(g);
    return NULL;
  }
  return g;
}

/* Destructor: yaml_parser_delete, then close the input file (the caller's
 * job per the header) and free the storage. */
static inline void glue_parser_free(yaml_parser_t *p) {
  glue_parser *g = (glue_parser *)p;
  yaml_parser_delete(&g->parser);
  if (g->file) fclose(g->file);
  free(g);
}

/* A parser reading a string: yaml_parser_initialize +
 * yaml_parser_set_input_string (input is `keep`: it must outlive the parser). */
static inline yaml_parser_t *glue_parser_new_string(const unsigned char *input, size_t size) {
  glue_parser *g = glue_parser_alloc();
  if (g) yaml_parser_set_input_string(&g->parser, input, size);
  return g ? &g->parser : NULL;
}

/* A parser reading a FILE: the bytes are opened with fmemopen and given to
 * yaml_parser_set_input_file; glue_parser_free closes the stream. */
static inline yaml_parser_t *glue_parser_new_file(const unsigned char *input, size_t size) {
  /* fmemopen rejects size 0: an empty input is /dev/null */
  FILE *f = size ? fmemopen((void *)input, size, "rb") : fopen("/dev/null", "rb");
  glue_parser *g;
  if (!f) return NULL;
  g = glue_parser_alloc();
  if (!g) {
    fclose(f);
    return NULL;
  }
  g->file = f;
  yaml_parser_set_input_file(&g->parser, f);
  return &g->parser;
}

/* The yaml_read_handler_t of glue_parser_new_reader: at most `chunk` bytes
 * per call, so the reader sees data arrive in pieces. */
static inline int glue_read_handler(void *data, unsigned char *buffer, size_t size,
                                    size_t *size_read) {
  glue_parser *g = (glue_parser *)data;
  size_t n = g->len - g->pos;
  if (n > size) n = size;
  if (n > g->chunk) n = g->chunk;
  memcpy(buffer, g->src + g->pos, n);
  g->pos += n;
  *size_read = n; /* 0 at the end: EOF */
  return 1;
}

/* A parser with a generic read handler: yaml_parser_set_input. */
static inline yaml_parser_t *glue_parser_new_reader(const unsigned char *input, size_t size,
                                                    uint8_t chunk) {
  glue_parser *g = glue_parser_alloc();
  if (!g) return NULL;
  g->src = input;
  g->len = size;
  g->chunk = chunk;
  yaml_parser_set_input(&g->parser, glue_read_handler, g);
  return &g->parser;
}

/* yaml_parser_set_encoding, which asserts that the encoding is neither set
 * nor detected yet (detection happens at the first read): refused (0)
 * otherwise. */
static inline int glue_parser_set_encoding(yaml_parser_t *p, yaml_encoding_t encoding) {
  if (p->encoding) return 0;
  yaml_parser_set_encoding(p, encoding);
  return 1;
}

/* The header forbids alternating scan, parse and load on one parser. */
static inline int glue_parser_mode(yaml_parser_t *p, int mode) {
  glue_parser *g = (glue_parser *)p;
  if (g->mode && g->mode != mode) return 0;
  g->mode = mode;
  return 1;
}

/* yaml_parser_scan into a fresh token; NULL on failure (or mixed use). */
static inline yaml_token_t *glue_parser_scan(yaml_parser_t *p) {
  yaml_token_t *t;
  if (!glue_parser_mode(p, 1) || !(t = (yaml_token_t *)calloc(1, sizeof *t))) return NULL;
  if (!yaml_parser_scan(p, t)) {
    free(t); /* the token is left empty on failure */
    return NULL;
  }
  return t;
}

/* Destructor: yaml_token_delete + free. */
static inline void glue_token_free(yaml_token_t *t) {
  yaml_token_delete(t);
  free(t);
}

/* yaml_parser_parse into a fresh event; NULL on failure. */
static inline yaml_event_t *glue_parser_parse(yaml_parser_t *p) {
  yaml_event_t *e;
  if (!glue_parser_mode(p, 2) || !(e = (yaml_event_t *)calloc(1, sizeof *e))) return NULL;
  if (!yaml_parser_parse(p, e)) {
    free(e);
    return NULL;
  }
  return e;
}

/* The loops every libyaml user writes (its tests/run-parser.c and
 * run-scanner.c, the fuzzers): yaml_parser_parse (scan) until STREAM-END,
 * deleting each event (token). Returns how many it read, 0 on error. A
 * parser past STREAM-END hands out empty events (tokens): that ends the
 * loop too. */
static inline int glue_parser_parse_all(yaml_parser_t *p) {
  if (!glue_parser_mode(p, 2)) return 0;
  for (int n = 1;; n++) {
    yaml_event_t e;
    if (!yaml_parser_parse(p, &e)) return 0;
    int done = e.type == YAML_STREAM_END_EVENT || e.type == YAML_NO_EVENT;
    yaml_event_delete(&e);
    if (done) return n;
  }
}

static inline int glue_parser_scan_all(yaml_parser_t *p) {
  if (!glue_parser_mode(p, 1)) return 0;
  for (int n = 1;; n++) {
    yaml_token_t t;
    if (!yaml_parser_scan(p, &t)) return 0;
    int done = t.type == YAML_STREAM_END_TOKEN || t.type == YAML_NO_TOKEN;
    yaml_token_delete(&t);
    if (done) return n;
  }
}

/* yaml_parser_load into a fresh document; NULL on failure (the loader has
 * then deleted the document's content itself). */
static inline yaml_document_t *glue_parser_load(yaml_parser_t *p) {
  yaml_document_t *d;
  if (!glue_parser_mode(p, 3) || !(d = (yaml_document_t *)calloc(1, sizeof *d))) return NULL;
  if (!yaml_parser_load(p, d)) {
    free(d);
    return NULL;
  }
  return d;
}

/* Observer: the parser's error state (yaml_error_type_t). */
static inline int glue_parser_error(yaml_parser_t *p) { return (int)p->error; }

/* Observer: a digest of a token, reading every string it carries. */
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

/* ---------------------------------------------------------------- events */

/* Fresh event storage for a constructor; released again when it fails. */
#define GLUE_EVENT(call)                                                  \
  yaml_event_t *e = (yaml_event_t *)calloc(1, sizeof *e);                 \
  if (e && !(call)) {                                                     \
    free(e);                                                              \
    e = NULL;                                                             \
  }                                                                       \
  return e

/* Destructor: yaml_event_delete + free. */
static inline void glue_event_free(yaml_event_t *e) {
  yaml_event_delete(e);
  free(e);
}

static inline yaml_event_t *glue_stream_start_event(yaml_encoding_t encoding) {
  GLUE_EVENT(yaml_stream_start_event_initialize(e, encoding));
}

static inline yaml_event_t *glue_stream_end_event(void) {
  GLUE_EVENT(yaml_stream_end_event_initialize(e));
}

/* yaml_document_start_event_initialize with an optional %YAML directive
 * (with_version) and an optional single %TAG directive (both strings
 * non-NULL); otherwise NULL / an empty list, as the header allows. */
static inline yaml_event_t *glue_document_start_event(int with_version, int major, int minor,
                                                      const char *tag_handle,
                                                      const char *tag_prefix, int implicit) {
  yaml_version_directive_t v = {major, minor};
  yaml_tag_directive_t t = {(yaml_char_t *)tag_handle, (yaml_char_t *)tag_prefix};
  int tags = tag_handle && tag_prefix;
  GLUE_EVENT(yaml_document_start_event_initialize(e, with_version ? &v : NULL,
                                                  tags ? &t : NULL, tags ? &t + 1 : NULL,
                                                  implicit));
}

static inline yaml_event_t *glue_document_end_event(int implicit) {
  GLUE_EVENT(yaml_document_end_event_initialize(e, implicit));
}

static inline yaml_event_t *glue_alias_event(const char *anchor) {
  GLUE_EVENT(yaml_alias_event_initialize(e, (const yaml_char_t *)anchor));
}

static inline yaml_event_t *glue_scalar_event(const char *anchor, const char *tag,
                                              const unsigned char *value, int length,
                                              int plain_implicit, int quoted_implicit,
                                              yaml_scalar_style_t style) {
  GLUE_EVENT(yaml_scalar_event_initialize(e, (const yaml_char_t *)anchor,
                                          (const yaml_char_t *)tag, value, length,
                                          plain_implicit, quoted_implicit, style));
}

static inline yaml_event_t *glue_sequence_start_event(const char *anchor, const char *tag,
                                                      int implicit, yaml_sequence_style_t style) {
  GLUE_EVENT(yaml_sequence_start_event_initialize(e, (const yaml_char_t *)anchor,
                                                  (const yaml_char_t *)tag, implicit, style));
}

static inline yaml_event_t *glue_sequence_end_event(void) {
  GLUE_EVENT(yaml_sequence_end_event_initialize(e));
}

static inline yaml_event_t *glue_mapping_start_event(const char *anchor, const char *tag,
                                                     int implicit, yaml_mapping_style_t style) {
  GLUE_EVENT(yaml_mapping_start_event_initialize(e, (const yaml_char_t *)anchor,
                                                 (const yaml_char_t *)tag, implicit, style));
}

static inline yaml_event_t *glue_mapping_end_event(void) {
  GLUE_EVENT(yaml_mapping_end_event_initialize(e));
}

/* Observer: a digest of an event, reading its anchor, tag and value. */
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

/* ------------------------------------------------------------- documents */

/* yaml_document_initialize on fresh storage, directives as for
 * glue_document_start_event; NULL on failure. */
static inline yaml_document_t *glue_document_new(int with_version, int major, int minor,
                                                 const char *tag_handle, const char *tag_prefix,
                                                 int start_implicit, int end_implicit) {
  yaml_version_directive_t v = {major, minor};
  yaml_tag_directive_t t = {(yaml_char_t *)tag_handle, (yaml_char_t *)tag_prefix};
  int tags = tag_handle && tag_prefix;
  yaml_document_t *d = (yaml_document_t *)calloc(1, sizeof *d);
  if (d && !yaml_document_initialize(d, with_version ? &v : NULL, tags ? &t : NULL,
                                     tags ? &t + 1 : NULL, start_implicit, end_implicit)) {
    free(d);
    d = NULL;
  }
  return d;
}

/* Destructor: yaml_document_delete + free. */
static inline void glue_document_free(yaml_document_t *d) {
  yaml_document_delete(d);
  free(d);
}

/* Whether id names a node of d (of the given type, unless YAML_NO_NODE). */
static inline int glue_node_ok(yaml_document_t *d, int id, yaml_node_type_t type) {
  if (id <= 0 || id > d->nodes.top - d->nodes.start) return 0;
  return type == YAML_NO_NODE || d->nodes.start[id - 1].type == type;
}

/* yaml_document_append_sequence_item, whose ids the library asserts:
 * refused (0) unless `sequence` is a sequence node and `item` a node. */
static inline int glue_document_append_sequence_item(yaml_document_t *d, int sequence, int item) {
  if (!glue_node_ok(d, sequence, YAML_SEQUENCE_NODE) || !glue_node_ok(d, item, YAML_NO_NODE))
    return 0;
  return yaml_document_append_sequence_item(d, sequence, item);
}

/* yaml_document_append_mapping_pair, checked the same way. */
static inline int glue_document_append_mapping_pair(yaml_document_t *d, int mapping, int key,
                                                    int value) {
  if (!glue_node_ok(d, mapping, YAML_MAPPING_NODE) || !glue_node_ok(d, key, YAML_NO_NODE) ||
      !glue_node_ok(d, value, YAML_NO_NODE))
    return 0;
  return yaml_document_append_mapping_pair(d, mapping, key, value);
}

/* Observer: a digest of a node (yaml_document_get_node's result), reading
 * its tag, scalar value, items and pairs. */
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

/* --------------------------------------------------------------- emitter */

/* An emitter plus its output; the yaml_emitter_t comes first. */
typedef struct {
  yaml_emitter_t emitter;
  unsigned char *out; /* yaml_emitter_set_output_string's buffer */
  size_t size, written;
  FILE *file;         /* yaml_emitter_set_output_file's stream */
  uint32_t digest;    /* what the write handler saw */
} glue_emitter;

static inline glue_emitter *glue_emitter_alloc(void) {
  glue_emitter *g = (glue_emitter *)calloc(1, sizeof *g);
  if (g && !yaml_emitter_initialize(&g->emitter)) {
    free(g);
    return NULL;
  }
  return g;
}

/* Destructor: yaml_emitter_delete, then release the output. */
static inline void glue_emitter_free(yaml_emitter_t *e) {
  glue_emitter *g = (glue_emitter *)e;
  yaml_emitter_delete(&g->emitter);
  if (g->file) fclose(g->file);
  free(g->out);
  free(g);
}

/* An emitter writing into a glue-owned buffer of `size` bytes:
 * yaml_emitter_set_output_string (too small a buffer is a write error). */
static inline yaml_emitter_t *glue_emitter_new_string(size_t size) {
  glue_emitter *g = glue_emitter_alloc();
  if (!g) return NULL;
  g->size = size;
  if (!(g->out = (unsigned char *)malloc(size ? size : 1))) {
    glue_emitter_free(&g->emitter);
    return NULL;
  }
  yaml_emitter_set_output_string(&g->emitter, g->out, size, &g->written);
  return &g->emitter;
}

/* An emitter writing to a FILE (/dev/null): yaml_emitter_set_output_file. */
static inline yaml_emitter_t *glue_emitter_new_file(void) {
  FILE *f = fopen("/dev/null", "wb");
  glue_emitter *g;
  if (!f) return NULL;
  if (!(g = glue_emitter_alloc())) {
    fclose(f);
    return NULL;
  }
  g->file = f;
  yaml_emitter_set_output_file(&g->emitter, f);
  return &g->emitter;
}

/* The yaml_write_handler_t of glue_emitter_new_handler: reads every byte
 * (into a digest) and discards it. */
static inline int glue_write_handler(void *data, unsigned char *buffer, size_t size) {
  glue_emitter *g = (glue_emitter *)data;
  for (size_t i = 0; i < size; i++) g->digest = g->digest * 31 + buffer[i];
  g->written += size;
  return 1;
}

/* An emitter with a generic write handler: yaml_emitter_set_output. */
static inline yaml_emitter_t *glue_emitter_new_handler(void) {
  glue_emitter *g = glue_emitter_alloc();
  if (g) yaml_emitter_set_output(&g->emitter, glue_write_handler, g);
  return g ? &g->emitter : NULL;
}

/* yaml_emitter_set_encoding, which asserts that no encoding is set yet (the
 * STREAM-START event sets one): refused (0) otherwise. */
static inline int glue_emitter_set_encoding(yaml_emitter_t *e, yaml_encoding_t encoding) {
  if (e->encoding) return 0;
  yaml_emitter_set_encoding(e, encoding);
  return 1;
}

/* yaml_emitter_emit takes the event's content "even if the function fails":
 * the event handle is consumed.  On success the storage is freed; on failure
 * it is emptied (its content belongs to the emitter now) and left to the
 * destructor, since seqfuzz keeps a handle alive after a failed call. */
static inline int glue_emitter_emit(yaml_emitter_t *em, yaml_event_t *ev) {
  if (yaml_emitter_emit(em, ev)) {
    free(ev);
    return 1;
  }
  memset(ev, 0, sizeof *ev);
  return 0;
}

/* yaml_emitter_dump, which destroys the document "even if the function
 * fails": the document handle is consumed in both cases (no error
 * convention: a failed call would keep it, and the nodes seqfuzz holds on it,
 * alive), so the storage is freed in both cases.  Returns dump's result. */
static inline int glue_emitter_dump(yaml_emitter_t *em, yaml_document_t *d) {
  int r = yaml_emitter_dump(em, d);
  free(d);
  return r;
}

/* yaml_emitter_open, which asserts the emitter is not opened yet. */
static inline int glue_emitter_open(yaml_emitter_t *e) {
  return e->opened ? 0 : yaml_emitter_open(e);
}

/* yaml_emitter_close, which asserts the emitter is opened. */
static inline int glue_emitter_close(yaml_emitter_t *e) {
  return e->opened ? yaml_emitter_close(e) : 0;
}

/* yaml_emitter_flush, which asserts that the output encoding is known
 * (after STREAM-START or yaml_emitter_set_encoding). */
static inline int glue_emitter_flush(yaml_emitter_t *e) {
  return e->encoding ? yaml_emitter_flush(e) : 0;
}

/* Observer: the emitter's error state (yaml_error_type_t). */
static inline int glue_emitter_error(yaml_emitter_t *e) { return (int)e->error; }

/* Observer: bytes written so far, reading the string output if any. */
static inline uint64_t glue_emitter_output(yaml_emitter_t *e) {
  glue_emitter *g = (glue_emitter *)e;
  uint32_t h = g->digest;
  if (g->out)
    for (size_t i = 0; i < g->written && i < g->size; i++) h = h * 31 + g->out[i];
  return ((uint64_t)h << 32) ^ g->written;
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

/* The first document of `text` (yaml_parser_load), in storage that
 * glue_document_free releases. NULL on a scanner, parser or loader error,
 * and when the text holds no document: yaml_parser_load then returns a
 * document without a root node ("the document end has been reached"), which
 * is not a document glue_document_print prints. The parser is deleted before
 * returning: the document owns copies of everything it holds. */
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
  if (!ok) {
    free(d);
    return NULL;
  }
  if (!yaml_document_get_root_node(d)) {
    glue_document_free(d);
    return NULL;
  }
  return d;
}

#endif
