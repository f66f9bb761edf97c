/* init_draft.c: C headers -> a draft grammar, through libclang (init_draft.h).
 *
 * One translation unit includes every header; only declarations whose
 * expansion location is in one of them are drafted (types they use may come
 * from elsewhere). Two passes over the functions: the first counts how each
 * struct is used (which decides the handle types), the second maps every
 * parameter with the handle types known. Guesses read names, signatures and
 * doc comments only: the user confirms them. */
#define _GNU_SOURCE
#include <clang-c/Index.h>
#include <ctype.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "init_draft.h"

/* ---- small helpers ------------------------------------------------------ */

/* The draft is a one-shot command: running out of memory ends it. */
static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) {
    fputs("seqfuzz: out of memory\n", stderr);
    exit(1);
  }
  return q;
}
static char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  return memcpy(xrealloc(NULL, n), s, n);
}
static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0) s = NULL;
  va_end(ap);
  if (!s) xrealloc(NULL, SIZE_MAX); /* reports and exits */
  return s;
}
#define GROW(arr, n, cap)                                                                          \
  do {                                                                                             \
    if ((n) == (cap)) {                                                                            \
      (cap) = (cap) ? 2 * (cap) : 16;                                                              \
      (arr) = xrealloc((arr), (cap) * sizeof *(arr));                                              \
    }                                                                                              \
  } while (0)

static char *cx(CXString s) {
  const char *c = clang_getCString(s);
  char *r = xstrdup(c ? c : "");
  clang_disposeString(s);
  return r;
}
static void bprintf(sf_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(sf_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n < 0 || sf_buf_append(b, s, (size_t)n)) xrealloc(NULL, SIZE_MAX);
  free(s);
}
/* A guess fragment, "; "-separated in one comment line. */
static void add_guess(sf_buf *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_guess(sf_buf *g, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n < 0) xrealloc(NULL, SIZE_MAX);
  if (g->len) bprintf(g, "; ");
  bprintf(g, "%s", s);
  free(s);
}
static void lower(char *s) {
  for (; *s; s++)
    *s = (char)tolower((unsigned char)*s);
}
static bool ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

/* ---- the model ------------------------------------------------------------ */

typedef struct record {
  char *usr, *tag; /* tag "" when anonymous */
  char *tdef;      /* the typedef naming it */
  char *ptr_tdef;  /* a typedef naming a pointer to it (zlib's gzFile) */
  bool complete, system, is_union;
  unsigned uses, returned, inits, out_docs;
  unsigned nfuncs; /* functions that use it */
  size_t last;     /* 1 + the last of them counted */
  char *init_fn;   /* a function that initializes it (for the comment) */
  int handle;      /* index in handles, or -1 */
} record;

typedef struct dhandle {
  char *name, *ctype; /* ctype NULL: the name */
  bool is_struct;
  char *why;
  int destructor, dtor_rank; /* function index and its word's rank, or -1 */
} dhandle;

typedef struct dconst {
  char *name;
  int64_t v;
  bool big; /* v holds a uint64_t above INT64_MAX */
  unsigned line;
  int header;
} dconst;

typedef struct denum {
  char *usr; /* NULL for a group of #defines */
  char *tag, *tdef, *name, *ctype;
  bool system, in_header, used, flags, from_macros;
  dconst *c;
  uint32_t n, cap;
  char *why;
} denum;

typedef struct dparam {
  char *name, *text, *ctext;
  int handle;      /* an input handle: its type, else -1 */
  bool is_pointer; /* a string, handle, buffer... (for the error guess) */
} dparam;

enum { RK_VOID, RK_INT, RK_UINT, RK_OTHER_NUM, RK_STRING, RK_HANDLE };

typedef struct dfunc {
  char *name, *symbol, *cproto, *doc;
  char *ret_text;
  int ret_kind, ret_handle;
  dparam *p;
  uint32_t np;
  char *bad; /* why the grammar cannot express it, or NULL */
  bool is_static, destructor, ctor, mutable_string;
  int owned_by;      /* parameter index, or -1 */
  int consume;       /* parameter index, or -1 */
  int out_handle;    /* the first `out H **` / `out S *` parameter, or -1 */
  int out_type;      /* its handle type */
  const char *error; /* "null", "< 0", "== 0", "!= 0", or NULL */
  char *release;     /* a free function for a char * result */
  sf_buf guesses;    /* "; "-separated */
  sf_buf notes;      /* probe notes, one per line */
} dfunc;

struct sf_draft {
  char *api_name;
  sf_buf head; /* header and library lines with their comments */
  char **header_names;
  uint32_t nheader_names;
  record *recs;
  uint32_t nrecs, caprecs;
  dhandle *handles;
  uint32_t nhandles, caphandles;
  denum *enums;
  uint32_t nenums, capenums;
  dfunc *funcs;
  uint32_t nfuncs, capfuncs;
  char **dict;
  uint32_t ndict, capdict;
  char **fnmacros;
  uint32_t nfnmacros, capfnmacros;
  /* Macros that rename declarations: a name spelled PREFIX<digits> is
   * drafted as the macro's name (pcre2.h: pcre2_compile -> pcre2_compile_8). */
  char **ren_from, **ren_to;
  uint32_t nren, capren, capren_to;
  /* Integer constants by name (enum constants and evaluated #defines), for
   * evaluating later #defines. */
  dconst *ints;
  uint32_t nints, capints;
  /* Names the grammar's one namespace already holds (docs/grammar.md §2). */
  char **names;
  uint32_t nnames, capnames;
  /* Error conventions the headers suggest. */
  char *neg_errors; /* "Z_ERRNO, Z_STREAM_ERROR, ..." */
  char *ok_zero;    /* "SQLITE_OK" */
};

/* ---- names ------------------------------------------------------------------ */

static const char *const builtin_types[] = {
    "bool",     "i8",      "i16",     "i32",     "i64",     "u8",       "u16",      "u32",
    "u64",      "int8_t",  "int16_t", "int32_t", "int64_t", "uint8_t",  "uint16_t", "uint32_t",
    "uint64_t", "char",    "short",   "int",     "long",    "unsigned", "size_t",   "f32",
    "float",    "f64",     "double",  "string",  "bytes",   "bool32",   "memfile",  "memfd",
    "printf",   "pointer", "void",    "const",   NULL};

static bool name_taken(const sf_draft *d, const char *n) {
  for (uint32_t i = 0; i < d->nnames; i++)
    if (strcmp(d->names[i], n) == 0) return true;
  return false;
}
static void take_name(sf_draft *d, const char *n) {
  GROW(d->names, d->nnames, d->capnames);
  d->names[d->nnames++] = xstrdup(n);
}
/* n itself, or n with a suffix, whichever is free; taken. */
static char *unique_name(sf_draft *d, const char *n) {
  char *r = xstrdup(n);
  for (int k = 2; name_taken(d, r); k++) {
    free(r);
    r = xprintf("%s_%d", n, k);
  }
  take_name(d, r);
  return r;
}
static bool is_ident(const char *s) {
  if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return false;
  return true;
}
/* The grammar's name for a C declaration's name (undoing a renaming macro). */
static const char *renamed(const sf_draft *d, const char *n) {
  for (uint32_t i = 0; i < d->nren; i++) {
    size_t k = strlen(d->ren_from[i]);
    if (strncmp(n, d->ren_from[i], k) != 0) continue;
    const char *rest = n + k;
    bool digits = true;
    for (const char *q = rest; *q; q++)
      digits = digits && isdigit((unsigned char)*q);
    if (digits) return d->ren_to[i];
  }
  return n;
}

/* Words of a C name, lowercased: split at '_' and at lower->upper changes;
 * trailing version words (v2, 64, digits) dropped. */
#define MAX_WORDS 16
static int name_words(const char *name, char w[MAX_WORDS][48]) {
  int n = 0;
  size_t len = 0;
  for (const char *s = name;; s++) {
    bool boundary = !*s || *s == '_' ||
                    (s > name && isupper((unsigned char)*s) && islower((unsigned char)s[-1]));
    if (boundary && len) {
      bool vnum = w[n][0] == 'v' && len > 1 && isdigit((unsigned char)w[n][1]);
      while (!vnum && len > 1 && isdigit((unsigned char)w[n][len - 1]))
        len--; /* init2 -> init, sqlite3 -> sqlite (v2 stays: a version word) */
      w[n][len] = 0;
      lower(w[n]);
      if (n < MAX_WORDS - 1) n++;
      len = 0;
    }
    if (!*s) break;
    if (*s != '_' && len < 47) w[n][len++] = *s;
  }
  while (n > 1) {
    const char *t = w[n - 1];
    bool version = (t[0] == 'v' && isdigit((unsigned char)t[1])) || isdigit((unsigned char)t[0]);
    if (!version) break;
    n--;
  }
  return n;
}
/* Does the name have word `word`, or (names without separators: gzopen)
 * does its last word end with it? */
static bool has_word(const char *name, const char *const *words, const char **which) {
  char w[MAX_WORDS][48];
  int n = name_words(name, w);
  for (const char *const *k = words; *k; k++)
    for (int i = 0; i < n; i++)
      if (strcmp(w[i], *k) == 0 || (i == n - 1 && ends_with(w[i], *k))) {
        if (which) *which = *k;
        return true;
      }
  return false;
}
static bool last_word_is(const char *name, const char *const *words, const char **which) {
  char w[MAX_WORDS][48];
  int n = name_words(name, w);
  if (!n) return false;
  for (const char *const *k = words; *k; k++)
    if (strcmp(w[n - 1], *k) == 0 || ends_with(w[n - 1], *k)) {
      if (which) *which = *k;
      return true;
    }
  return false;
}

static const char *const ctor_words[] = {"new",     "create", "open",      "init", "initialize",
                                         "alloc",   "dup",    "duplicate", "copy", "clone",
                                         "compile", "parse",  NULL};
/* In rank order: with several candidates, the first word wins. */
static const char *const dtor_words[] = {"free",  "destroy",  "delete",  "close", "release",
                                         "unref", "finalize", "dispose", "end",   NULL};
static const char *const getter_words[] = {"get",    "first",  "next", "last", "prev",   "root",
                                           "parent", "child",  "item", "find", "lookup", "current",
                                           "peek",   "handle", "head", "tail", "db",     NULL};
static const char *const init_words[] = {"init", "initialize", "initialise", NULL};
static const char *const query_words[] = {"is",    "has",    "get",     "count",   "size",
                                          "len",   "length", "version", "compare", "cmp",
                                          "equal", "hash",   "bound",   "flags",   NULL};

/* ---- libclang types -> grammar types ---------------------------------------- */

typedef enum tkind {
  TK_BAD,
  TK_VOID,
  TK_NUM,
  TK_ENUM,
  TK_BYTEPTR,  /* pointer to a 1-byte integer or void */
  TK_NUMPTR,   /* pointer to another number or an enum */
  TK_HANDLE,   /* pointer to a handle struct */
  TK_HANDLEPP, /* pointer to a pointer to one */
  TK_CHARPP,   /* char ** */
  TK_VOIDPP,   /* void ** */
  TK_FILE,     /* FILE * */
} tkind;

typedef struct tinfo {
  tkind k;
  char g[96]; /* grammar type (for pointers: of the pointee) */
  bool pconst, is_char, is_int, is_signed, sizeish, is_enum;
  int handle;
  char why[160];
} tinfo;

static CXType desugar(CXType t) {
  for (int guard = 0; guard < 32; guard++) {
    if (t.kind == CXType_Elaborated)
      t = clang_Type_getNamedType(t);
    else if (t.kind == CXType_Typedef)
      t = clang_getTypedefDeclUnderlyingType(clang_getTypeDeclaration(t));
    else
      break;
  }
  return t;
}

static record *record_get(sf_draft *d, CXType canon) {
  CXCursor decl = clang_getTypeDeclaration(canon);
  char *usr = cx(clang_getCursorUSR(decl));
  for (uint32_t i = 0; i < d->nrecs; i++)
    if (strcmp(d->recs[i].usr, usr) == 0) {
      free(usr);
      return &d->recs[i];
    }
  GROW(d->recs, d->nrecs, d->caprecs);
  record *r = &d->recs[d->nrecs++];
  memset(r, 0, sizeof *r);
  r->usr = usr;
  r->tag = clang_Cursor_isAnonymous(decl) ? xstrdup("") : cx(clang_getCursorSpelling(decl));
  r->complete = clang_Type_getSizeOf(canon) >= 0;
  r->is_union = clang_getCursorKind(decl) == CXCursor_UnionDecl;
  CXFile f = NULL;
  CXSourceLocation loc = clang_getCursorLocation(decl);
  clang_getExpansionLocation(loc, &f, NULL, NULL, NULL);
  r->system = !f || clang_Location_isInSystemHeader(loc);
  r->handle = -1;
  return r;
}

static denum *enum_get(sf_draft *d, CXCursor decl) {
  char *usr = cx(clang_getCursorUSR(decl));
  for (uint32_t i = 0; i < d->nenums; i++)
    if (d->enums[i].usr && strcmp(d->enums[i].usr, usr) == 0) {
      free(usr);
      return &d->enums[i];
    }
  GROW(d->enums, d->nenums, d->capenums);
  denum *e = &d->enums[d->nenums++];
  memset(e, 0, sizeof *e);
  e->usr = usr;
  e->tag = clang_Cursor_isAnonymous(decl) ? NULL : cx(clang_getCursorSpelling(decl));
  if (e->tag && !*e->tag) {
    free(e->tag);
    e->tag = NULL;
  }
  CXFile f = NULL;
  CXSourceLocation loc = clang_getCursorLocation(decl);
  clang_getExpansionLocation(loc, &f, NULL, NULL, NULL);
  e->system = !f || clang_Location_isInSystemHeader(loc);
  return e;
}

/* Constants left after name clashes (name_enums): an enum without is not declared. */
static bool enum_has_consts(const denum *e) {
  for (uint32_t k = 0; k < e->n; k++)
    if (e->c[k].name) return true;
  return false;
}

static bool is_file_record(const record *r) {
  return r->system &&
         (strcmp(r->tag, "_IO_FILE") == 0 || (r->tdef && strcmp(r->tdef, "FILE") == 0));
}

/* A number's grammar type: the C alias the grammar knows (size_t,
 * uint32_t...) when the declaration spells one, else the kind's name. */
static bool num_info(CXType t, tinfo *ti, bool allow_bool32) {
  bool boolish = false, sizeish = false;
  const char *alias = NULL;
  static const char *const aliases[] = {"size_t",  "int8_t",   "int16_t",  "int32_t",  "int64_t",
                                        "uint8_t", "uint16_t", "uint32_t", "uint64_t", NULL};
  CXType u = t;
  for (int guard = 0; guard < 32; guard++) {
    if (u.kind == CXType_Elaborated) {
      u = clang_Type_getNamedType(u);
      continue;
    }
    if (u.kind != CXType_Typedef) break;
    char *n = cx(clang_getTypedefName(u));
    for (int i = 0; aliases[i] && !alias; i++)
      if (strcmp(n, aliases[i]) == 0) alias = aliases[i];
    if (strcasestr(n, "bool")) boolish = true;
    if (strcasestr(n, "size")) sizeish = true;
    free(n);
    u = clang_getTypedefDeclUnderlyingType(clang_getTypeDeclaration(u));
  }
  CXType c = clang_getCanonicalType(t);
  const char *g = NULL;
  bool is_int = true, sign = true;
  long long size = clang_Type_getSizeOf(c);
  switch (c.kind) {
  case CXType_Bool:
    g = "bool", is_int = false;
    break;
  case CXType_Char_S:
  case CXType_SChar:
    g = "char";
    break;
  case CXType_Char_U:
  case CXType_UChar:
    g = "u8", sign = false;
    break;
  case CXType_Short:
    g = "short";
    break;
  case CXType_UShort:
    g = "u16", sign = false;
    break;
  case CXType_Int:
    g = "int";
    break;
  case CXType_UInt:
    g = "unsigned", sign = false;
    break;
  case CXType_Long:
    g = "long";
    break;
  case CXType_LongLong:
    g = "i64";
    break;
  case CXType_ULong:
  case CXType_ULongLong:
    g = "u64", sign = false;
    break;
  case CXType_WChar:
  case CXType_Char16:
  case CXType_Char32:
    sign = c.kind == CXType_WChar;
    g = size == 2 ? (sign ? "i16" : "u16") : (sign ? "i32" : "u32");
    break;
  case CXType_Float:
    g = "float", is_int = false;
    break;
  case CXType_Double:
    g = "double", is_int = false;
    break;
  default:
    return false;
  }
  if (alias && is_int) {
    /* Only when it means the same width and signedness (LP64). */
    bool asign = alias[0] == 'i';
    long long asize = strcmp(alias, "size_t") == 0 ? 8 : atoi(alias + (asign ? 3 : 4)) / 8;
    if (strcmp(alias, "size_t") == 0) asign = false;
    if (asize == size && asign == sign) g = alias;
  }
  if (allow_bool32 && boolish && c.kind == CXType_Int) g = "bool32", is_int = false;
  snprintf(ti->g, sizeof ti->g, "%s", g);
  ti->is_int = is_int;
  ti->is_signed = sign;
  ti->sizeish = sizeish || (alias && strcmp(alias, "size_t") == 0);
  return true;
}

static bool one_byte_int(enum CXTypeKind k) {
  return k == CXType_Char_S || k == CXType_SChar || k == CXType_Char_U || k == CXType_UChar;
}

static void classify(sf_draft *d, CXType t, tinfo *ti, bool allow_bool32) {
  memset(ti, 0, sizeof *ti);
  ti->handle = -1;
  char *sp = cx(clang_getTypeSpelling(t));
  bool valist = strstr(sp, "va_list") != NULL;
  CXType c = clang_getCanonicalType(t);
  if (valist) {
    ti->k = TK_BAD;
    snprintf(ti->why, sizeof ti->why, "a va_list");
    free(sp);
    return;
  }
  if (c.kind == CXType_Void) {
    ti->k = TK_VOID;
  } else if (c.kind == CXType_Enum) {
    denum *e = enum_get(d, clang_getTypeDeclaration(c));
    if (!e->system && e->name && enum_has_consts(e)) {
      e->used = true;
      ti->k = TK_ENUM;
      ti->is_enum = true;
      snprintf(ti->g, sizeof ti->g, "%s", e->name);
    } else {
      ti->k = TK_NUM;
      snprintf(ti->g, sizeof ti->g, "int");
      ti->is_int = ti->is_signed = true;
    }
  } else if (num_info(t, ti, allow_bool32)) {
    ti->k = TK_NUM;
  } else if (c.kind == CXType_Record) {
    ti->k = TK_BAD;
    snprintf(ti->why, sizeof ti->why, "a struct passed by value (%s)", sp);
  } else if (c.kind == CXType_Pointer) {
    CXType p = clang_getPointeeType(c);
    ti->pconst = clang_isConstQualifiedType(p);
    CXType u = desugar(t);
    CXType pn = u.kind == CXType_Pointer ? clang_getPointeeType(u) : p;
    if (p.kind == CXType_FunctionProto || p.kind == CXType_FunctionNoProto) {
      ti->k = TK_BAD;
      snprintf(ti->why, sizeof ti->why, "a function pointer (a `callback`, docs/grammar.md 3.7)");
    } else if (p.kind == CXType_Void) {
      ti->k = TK_BYTEPTR;
    } else if (one_byte_int(p.kind)) {
      ti->k = TK_BYTEPTR;
      ti->is_char = true;
    } else if (p.kind == CXType_Enum || num_info(pn, ti, false)) {
      if (p.kind == CXType_Enum) {
        tinfo e;
        classify(d, pn, &e, false);
        snprintf(ti->g, sizeof ti->g, "%s", e.g);
        ti->is_enum = e.k == TK_ENUM;
        ti->is_int = !ti->is_enum;
      }
      ti->k = TK_NUMPTR;
    } else if (p.kind == CXType_Record) {
      record *r = record_get(d, p);
      if (is_file_record(r)) {
        ti->k = TK_FILE;
      } else if (r->handle >= 0) {
        ti->k = TK_HANDLE;
        ti->handle = r->handle;
      } else {
        ti->k = TK_BAD;
        snprintf(ti->why, sizeof ti->why, "a pointer to %s %s%s", r->is_union ? "union" : "struct",
                 *r->tag ? r->tag : "(anonymous)",
                 r->system ? " (a system type)" : ", not drafted as a handle (used once)");
      }
    } else if (p.kind == CXType_Pointer) {
      CXType pp = clang_getPointeeType(p);
      if (ti->pconst) {
        ti->k = TK_BAD;
        snprintf(ti->why, sizeof ti->why, "an array of pointers (%s)", sp);
      } else if (pp.kind == CXType_Record && record_get(d, pp)->handle >= 0) {
        ti->k = TK_HANDLEPP;
        ti->handle = record_get(d, pp)->handle;
      } else if (one_byte_int(pp.kind)) {
        ti->k = TK_CHARPP;
      } else if (pp.kind == CXType_Void) {
        ti->k = TK_VOIDPP;
      } else {
        ti->k = TK_BAD;
        snprintf(ti->why, sizeof ti->why, "a pointer to a pointer (%s)", sp);
      }
    } else {
      ti->k = TK_BAD;
      snprintf(ti->why, sizeof ti->why, "type %s", sp);
    }
  } else {
    ti->k = TK_BAD;
    snprintf(ti->why, sizeof ti->why, "type %s", sp);
  }
  free(sp);
}

/* Is this integer parameter the length of the buffer before it? */
static bool lengthish(const char *name, const tinfo *ti) {
  if (ti->k != TK_NUM || !ti->is_int) return false;
  if (ti->sizeish) return true;
  if (name[0] == 'n' && isupper((unsigned char)name[1])) return true; /* nByte */
  char l[128];
  snprintf(l, sizeof l, "%s", name);
  lower(l);
  static const char *const suf[] = {"len", "length", "size", "sz", "count", "cnt", "bytes", NULL};
  for (int i = 0; suf[i]; i++)
    if (ends_with(l, suf[i])) return true;
  return strcmp(l, "n") == 0 || strcmp(l, "num") == 0 || strcmp(l, "nbyte") == 0;
}

/* ---- doc comments ------------------------------------------------------------ */

/* The comment documenting c, lowercased with markup words dropped, or NULL.
 * An ordinary comment counts only when it names the function: zlib writes
 * its documentation after each prototype, where clang attaches it to the
 * next declaration. */
static char *doc_of(CXCursor c, const char *name) {
  char *raw = cx(clang_Cursor_getRawCommentText(c));
  if (!*raw) {
    free(raw);
    return NULL;
  }
  bool doc =
      strncmp(raw, "/**", 3) == 0 || strncmp(raw, "///", 3) == 0 || strncmp(raw, "/*!", 3) == 0;
  if (!doc && !strstr(raw, name)) {
    free(raw);
    return NULL;
  }
  lower(raw);
  /* "@c 0 on error" -> "0 on error"; whitespace collapsed. */
  char *w = raw;
  for (char *r = raw; *r;) {
    if ((r[0] == '@' || r[0] == '\\') && r[1] == 'c' && isspace((unsigned char)r[2])) {
      r += 3;
      continue;
    }
    if (isspace((unsigned char)*r) || (*r == '*' && r[1] != '/')) {
      while (isspace((unsigned char)*r) || (*r == '*' && r[1] != '/'))
        r++;
      if (w > raw && w[-1] != ' ') *w++ = ' ';
      continue;
    }
    *w++ = *r++;
  }
  *w = 0;
  return raw;
}
/* Does `a` occur within `span` characters of `b`? */
static bool near(const char *doc, const char *a, const char *b, size_t span) {
  for (const char *p = strstr(doc, a); p; p = strstr(p + 1, a))
    for (const char *q = strstr(doc, b); q; q = strstr(q + 1, b))
      if ((size_t)(p > q ? p - q : q - p) <= span) return true;
  return false;
}
static bool doc_param_out(const char *doc, const char *pname) {
  if (!doc || !*pname) return false;
  char l[128];
  snprintf(l, sizeof l, "%s", pname);
  lower(l);
  for (const char *p = doc; (p = strstr(p, "param[out]")); p++) {
    const char *q = p + 10;
    while (*q == ' ')
      q++;
    size_t n = strlen(l);
    if (strncmp(q, l, n) == 0 && !(isalnum((unsigned char)q[n]) || q[n] == '_')) return true;
  }
  return false;
}

/* ---- #define constants ------------------------------------------------------- */

static bool lookup_int(const sf_draft *d, const char *n, int64_t *v) {
  for (uint32_t i = d->nints; i-- > 0;)
    if (strcmp(d->ints[i].name, n) == 0) return *v = d->ints[i].v, true;
  return false;
}
static void add_int(sf_draft *d, const char *name, int64_t v, bool big) {
  GROW(d->ints, d->nints, d->capints);
  d->ints[d->nints++] = (dconst){xstrdup(name), v, big, 0, -1};
}

/* An integer constant expression of a macro body: literals, earlier
 * constants, casts to integer keywords, C's unary and binary operators. */
typedef struct ev {
  char **t;
  CXTokenKind *k;
  unsigned n, i;
  const sf_draft *d;
  bool ok, big;
} ev;

static int64_t ev_bin(ev *e, int minprec);
static bool int_keyword(const char *t) {
  static const char *const kw[] = {"int", "unsigned", "signed", "long", "short", "char", NULL};
  for (int i = 0; kw[i]; i++)
    if (strcmp(t, kw[i]) == 0) return true;
  return false;
}
static int64_t ev_unary(ev *e) {
  if (!e->ok || e->i >= e->n) return e->ok = false, 0;
  const char *t = e->t[e->i];
  if (strcmp(t, "-") == 0 || strcmp(t, "+") == 0 || strcmp(t, "~") == 0 || strcmp(t, "!") == 0) {
    e->i++;
    uint64_t v = (uint64_t)ev_unary(e);
    return t[0] == '-'   ? (int64_t)(0 - v)
           : t[0] == '~' ? (int64_t)~v
           : t[0] == '!' ? !v
                         : (int64_t)v;
  }
  if (strcmp(t, "(") == 0) {
    unsigned j = e->i + 1;
    while (j < e->n && e->k[j] == CXToken_Keyword && int_keyword(e->t[j]))
      j++;
    if (j > e->i + 1 && j < e->n && strcmp(e->t[j], ")") == 0) { /* a cast */
      e->i = j + 1;
      return ev_unary(e);
    }
    e->i++;
    int64_t v = ev_bin(e, 1);
    if (e->i >= e->n || strcmp(e->t[e->i], ")") != 0) return e->ok = false, 0;
    e->i++;
    return v;
  }
  if (e->k[e->i] == CXToken_Literal && isdigit((unsigned char)t[0])) {
    char num[64];
    snprintf(num, sizeof num, "%s", t);
    size_t n = strlen(num);
    while (n && strchr("uUlL", num[n - 1]))
      num[--n] = 0;
    bool hex = num[0] == '0' && (num[1] == 'x' || num[1] == 'X');
    if (strchr(num, '.') || (!hex && strpbrk(num, "eE"))) return e->ok = false, 0;
    char *end;
    unsigned long long v = strtoull(num, &end, 0);
    if (*end) return e->ok = false, 0;
    if (v > INT64_MAX) e->big = true;
    e->i++;
    return (int64_t)v;
  }
  int64_t v;
  if (e->k[e->i] == CXToken_Identifier && lookup_int(e->d, t, &v)) {
    e->i++;
    return v;
  }
  return e->ok = false, 0;
}
static int ev_prec(const char *op) {
  static const struct {
    const char *op;
    int prec;
  } ops[] = {{"*", 10}, {"/", 10}, {"%", 10}, {"+", 9},  {"-", 9},  {"<<", 8},
             {">>", 8}, {"<", 7},  {">", 7},  {"<=", 7}, {">=", 7}, {"==", 6},
             {"!=", 6}, {"&", 5},  {"^", 4},  {"|", 3},  {"&&", 2}, {"||", 1}};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (strcmp(op, ops[i].op) == 0) return ops[i].prec;
  return -1;
}
static int64_t ev_bin(ev *e, int minprec) {
  int64_t l = ev_unary(e);
  while (e->ok && e->i < e->n) {
    const char *op = e->t[e->i];
    int p = ev_prec(op);
    if (p < 0 || p < minprec) break;
    e->i++;
    int64_t r = ev_bin(e, p + 1);
    if (!e->ok) break;
    uint64_t a = (uint64_t)l, b = (uint64_t)r;
    if ((!strcmp(op, "/") || !strcmp(op, "%")) && (r == 0 || (l == INT64_MIN && r == -1)))
      return e->ok = false, 0;
    if ((!strcmp(op, "<<") || !strcmp(op, ">>")) && (r < 0 || r > 63)) return e->ok = false, 0;
    switch (op[0]) {
    case '*':
      l = (int64_t)(a * b);
      break;
    case '/':
      l = l / r;
      break;
    case '%':
      l = l % r;
      break;
    case '+':
      l = (int64_t)(a + b);
      break;
    case '-':
      l = (int64_t)(a - b);
      break;
    case '<':
      l = op[1] == '<' ? (int64_t)(a << r) : op[1] == '=' ? l <= r : l < r;
      break;
    case '>':
      l = op[1] == '>' ? l >> r : op[1] == '=' ? l >= r : l > r;
      break;
    case '=':
      l = l == r;
      break;
    case '!':
      l = l != r;
      break;
    case '&':
      l = op[1] ? (l && r) : (int64_t)(a & b);
      break;
    case '^':
      l = (int64_t)(a ^ b);
      break;
    case '|':
      l = op[1] ? (l || r) : (int64_t)(a | b);
      break;
    }
  }
  return l;
}

/* A string literal body the grammar's lexer reads the same (its escapes
 * only, no NUL): the text between the quotes, else NULL. */
static char *dict_string(char **t, CXTokenKind *k, unsigned n) {
  sf_buf b = {0};
  for (unsigned i = 0; i < n; i++) {
    size_t len = strlen(t[i]);
    if (k[i] != CXToken_Literal || t[i][0] != '"' || len < 2) goto no;
    for (size_t j = 1; j + 1 < len; j++) {
      if (t[i][j] == '\\') {
        char c = t[i][j + 1];
        if (c == 'x') {
          if (!isxdigit((unsigned char)t[i][j + 2]) || !isxdigit((unsigned char)t[i][j + 3]) ||
              isxdigit((unsigned char)t[i][j + 4]) || (t[i][j + 2] == '0' && t[i][j + 3] == '0'))
            goto no;
        } else if (!strchr("ntr\\\"'", c)) {
          goto no; /* \0, octal, \a ...: not in the grammar's escapes (or a NUL) */
        }
        bprintf(&b, "%.*s", c == 'x' ? 4 : 2, t[i] + j);
        j += c == 'x' ? 3 : 1;
      } else {
        bprintf(&b, "%c", t[i][j]);
      }
    }
  }
  if (!b.len) goto no;
  return sf_buf_cstr(&b);
no:
  sf_buf_free(&b);
  return NULL;
}

/* ---- the translation unit --------------------------------------------------- */

typedef struct cvec {
  CXCursor *c;
  uint32_t n, cap;
} cvec;

typedef struct tuctx {
  sf_draft *d;
  CXTranslationUnit tu;
  CXFile *hf;
  uint32_t nhf;
  cvec typedefs, records, enums, funcs, macros;
} tuctx;

/* Which given header a declaration is in (where it was expanded: pcre2.h
 * declares its functions through macros), or -1. */
static int in_header(const tuctx *t, CXCursor c, unsigned *line) {
  CXFile f = NULL;
  clang_getExpansionLocation(clang_getCursorLocation(c), &f, line, NULL, NULL);
  if (!f) return -1;
  for (uint32_t i = 0; i < t->nhf; i++)
    if (t->hf[i] && clang_File_isEqual(f, t->hf[i])) return (int)i;
  return -1;
}
static void cpush(cvec *v, CXCursor c) {
  GROW(v->c, v->n, v->cap);
  v->c[v->n++] = c;
}
static enum CXChildVisitResult visit_top(CXCursor c, CXCursor parent, CXClientData cd) {
  (void)parent;
  tuctx *t = cd;
  switch (clang_getCursorKind(c)) {
  case CXCursor_TypedefDecl:
    cpush(&t->typedefs, c);
    break;
  case CXCursor_StructDecl:
  case CXCursor_UnionDecl:
    cpush(&t->records, c);
    break;
  case CXCursor_EnumDecl:
    cpush(&t->enums, c);
    break;
  case CXCursor_FunctionDecl:
    if (in_header(t, c, NULL) >= 0) cpush(&t->funcs, c);
    break;
  case CXCursor_MacroDefinition:
    if (in_header(t, c, NULL) >= 0) cpush(&t->macros, c);
    break;
  default:
    break;
  }
  return CXChildVisit_Continue;
}

static enum CXChildVisitResult visit_enum_const(CXCursor c, CXCursor parent, CXClientData cd) {
  (void)parent;
  denum *e = cd;
  if (clang_getCursorKind(c) != CXCursor_EnumConstantDecl) return CXChildVisit_Continue;
  CXType it = clang_getCanonicalType(clang_getEnumDeclIntegerType(parent));
  bool uns = it.kind == CXType_UInt || it.kind == CXType_ULong || it.kind == CXType_ULongLong ||
             it.kind == CXType_UShort || it.kind == CXType_UChar;
  GROW(e->c, e->n, e->cap);
  dconst *k = &e->c[e->n++];
  memset(k, 0, sizeof *k);
  k->name = cx(clang_getCursorSpelling(c));
  if (uns) {
    unsigned long long v = clang_getEnumConstantDeclUnsignedValue(c);
    k->v = (int64_t)v;
    k->big = v > INT64_MAX;
  } else {
    k->v = clang_getEnumConstantDeclValue(c);
  }
  return CXChildVisit_Continue;
}

static void tokens_of(CXTranslationUnit tu, CXCursor c, char ***t, CXTokenKind **k, unsigned *n) {
  CXToken *toks = NULL;
  clang_tokenize(tu, clang_getCursorExtent(c), &toks, n);
  *t = xrealloc(NULL, (*n + 1) * sizeof **t);
  *k = xrealloc(NULL, (*n + 1) * sizeof **k);
  for (unsigned i = 0; i < *n; i++) {
    (*t)[i] = cx(clang_getTokenSpelling(tu, toks[i]));
    (*k)[i] = clang_getTokenKind(toks[i]);
  }
  clang_disposeTokens(tu, toks, *n);
}
static void free_tokens(char **t, CXTokenKind *k, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    free(t[i]);
  free(t);
  free(k);
}

/* Renaming macros first (declarations are named through them), the rest
 * once enum constants are known (#defines refer to them). */
static void scan_renames(tuctx *t) {
  sf_draft *d = t->d;
  for (uint32_t m = 0; m < t->macros.n; m++) {
    CXCursor c = t->macros.c[m];
    if (clang_Cursor_isMacroFunctionLike(c)) continue;
    char **tok;
    CXTokenKind *k;
    unsigned n;
    tokens_of(t->tu, c, &tok, &k, &n);
    for (unsigned i = 1; n && i < n; i++) {
      size_t len = strlen(tok[0]);
      if (k[i] == CXToken_Identifier && strncmp(tok[i], tok[0], len) == 0 &&
          strcmp(tok[i] + len, "_") == 0) {
        GROW(d->ren_from, d->nren, d->capren);
        GROW(d->ren_to, d->nren, d->capren_to);
        d->ren_from[d->nren] = xstrdup(tok[i]);
        d->ren_to[d->nren++] = xstrdup(tok[0]);
        break;
      }
    }
    free_tokens(tok, k, n);
  }
}

static bool is_rename_target(const sf_draft *d, const char *n) {
  for (uint32_t i = 0; i < d->nren; i++)
    if (strcmp(d->ren_to[i], n) == 0) return true;
  return false;
}

static void scan_macros(tuctx *t, dconst **out, uint32_t *nout) {
  sf_draft *d = t->d;
  uint32_t cap = 0;
  for (uint32_t m = 0; m < t->macros.n; m++) {
    CXCursor c = t->macros.c[m];
    char *name = cx(clang_getCursorSpelling(c));
    unsigned line = 0;
    int h = in_header(t, c, &line);
    if (clang_Cursor_isMacroFunctionLike(c)) {
      bool lowercase = false;
      for (const char *s = name; *s; s++)
        lowercase = lowercase || islower((unsigned char)*s);
      bool dup = false;
      for (uint32_t i = 0; i < d->nfnmacros && !dup; i++)
        dup = strcmp(d->fnmacros[i], name) == 0;
      if (lowercase && !dup && name[0] != '_') {
        GROW(d->fnmacros, d->nfnmacros, d->capfnmacros);
        d->fnmacros[d->nfnmacros++] = xstrdup(name);
      }
      free(name);
      continue;
    }
    char **tok;
    CXTokenKind *k;
    unsigned n;
    tokens_of(t->tu, c, &tok, &k, &n);
    if (n >= 2 && !is_rename_target(d, name)) {
      ev e = {tok + 1, k + 1, n - 1, 0, d, true, false};
      int64_t v = ev_bin(&e, 1);
      char *s;
      if (e.ok && e.i == e.n) {
        add_int(d, name, v, e.big);
        if (name[0] != '_') {
          GROW(*out, *nout, cap);
          (*out)[(*nout)++] = (dconst){xstrdup(name), v, e.big, line, h};
        }
      } else if ((s = dict_string(tok + 1, k + 1, n - 1))) {
        bool dup = false;
        for (uint32_t i = 0; i < d->ndict && !dup; i++)
          dup = strcmp(d->dict[i], s) == 0;
        if (dup) {
          free(s);
        } else {
          GROW(d->dict, d->ndict, d->capdict);
          d->dict[d->ndict++] = s;
        }
      }
    }
    free_tokens(tok, k, n);
    free(name);
  }
}

/* Every nonzero value a distinct power of two, at least three of them: a
 * set of flags. */
static bool looks_like_flags(const denum *e) {
  if (e->n > 32) return false;
  uint64_t seen = 0;
  unsigned bits = 0;
  for (uint32_t i = 0; i < e->n; i++) {
    uint64_t v = (uint64_t)e->c[i].v;
    if (!v) continue;
    if (e->c[i].v < 0 || (v & (v - 1)) || (seen & v)) return false;
    seen |= v;
    bits++;
  }
  return bits >= 3;
}

/* #define constants grouped as they are written: consecutive lines of one
 * header with one first word (Z_NO_FLUSH .. Z_TREES); lone ones of a header
 * together. */
static void group_macros(sf_draft *d, dconst *m, uint32_t n) {
  uint32_t *lone_enum = xrealloc(NULL, (d->nheader_names + 1) * sizeof *lone_enum);
  for (uint32_t h = 0; h <= d->nheader_names; h++)
    lone_enum[h] = UINT32_MAX;
  for (uint32_t i = 0; i < n;) {
    uint32_t j = i + 1;
    const char *us = strchr(m[i].name, '_');
    size_t w = us ? (size_t)(us - m[i].name) + 1 : strlen(m[i].name);
    while (j < n && m[j].header == m[i].header && m[j].line == m[j - 1].line + 1 &&
           strncmp(m[j].name, m[i].name, w) == 0)
      j++;
    denum *e;
    uint32_t h = m[i].header < 0 ? d->nheader_names : (uint32_t)m[i].header;
    if (j - i == 1 && lone_enum[h] != UINT32_MAX) {
      e = &d->enums[lone_enum[h]];
    } else {
      GROW(d->enums, d->nenums, d->capenums);
      e = &d->enums[d->nenums++];
      memset(e, 0, sizeof *e);
      e->from_macros = e->in_header = true;
      char base[96];
      if (j - i == 1) {
        const char *hn = h < d->nheader_names ? d->header_names[h] : "header";
        const char *slash = strrchr(hn, '/');
        snprintf(base, sizeof base, "consts_%s", slash ? slash + 1 : hn);
        for (char *p = base; *p; p++)
          if (!isalnum((unsigned char)*p)) *p = '_';
        lone_enum[h] = d->nenums - 1;
      } else {
        snprintf(base, sizeof base, "consts_%s", m[i].name);
      }
      lower(base);
      e->tag = xstrdup(base);
    }
    for (uint32_t q = i; q < j; q++) {
      GROW(e->c, e->n, e->cap);
      e->c[e->n++] = (dconst){xstrdup(m[q].name), m[q].v, m[q].big, m[q].line, m[q].header};
    }
    i = j;
  }
  free(lone_enum);
}

/* ---- functions ------------------------------------------------------------------ */

static char *c_param_text(CXType t, const char *name) {
  char *sp = cx(clang_getTypeSpelling(t));
  char *r = xprintf("%s%s%s", sp, *name && !ends_with(sp, "*") ? " " : "", name);
  free(sp);
  return r;
}

/* Pass A: what each struct is to the functions (handle or not). */
static void count_uses(sf_draft *d, CXCursor c, dfunc *f) {
  size_t fn = (size_t)(f - d->funcs) + 1;
  bool init_name = last_word_is(f->name, init_words, NULL);
  int np = clang_Cursor_getNumArguments(c);
  for (int i = -1; i < np; i++) {
    CXCursor a = i < 0 ? c : clang_Cursor_getArgument(c, (unsigned)i);
    CXType t =
        clang_getCanonicalType(i < 0 ? clang_getCursorResultType(c) : clang_getCursorType(a));
    if (t.kind != CXType_Pointer) continue;
    CXType p = clang_getPointeeType(t);
    if (p.kind == CXType_Record) {
      record *r = record_get(d, p);
      r->uses++;
      if (r->last != fn) r->last = fn, r->nfuncs++;
      if (i < 0) r->returned++;
      if (i == 0 && init_name) {
        r->inits++;
        if (!r->init_fn) r->init_fn = xstrdup(f->name);
      }
      char *pn = i >= 0 ? cx(clang_getCursorSpelling(a)) : xstrdup("");
      if (i >= 0 && doc_param_out(f->doc, pn)) r->out_docs++;
      free(pn);
    } else if (p.kind == CXType_Pointer) {
      CXType pp = clang_getPointeeType(p);
      if (pp.kind == CXType_Record) {
        record *r = record_get(d, pp);
        r->uses++;
        if (r->last != fn) r->last = fn, r->nfuncs++;
        r->returned++; /* made through an out pointer */
      }
    }
  }
}

static void decide_handles(sf_draft *d) {
  for (uint32_t i = 0; i < d->nrecs; i++) {
    record *r = &d->recs[i];
    if (r->system || !r->uses || is_file_record(r)) continue;
    const char *kind = r->is_union ? "union" : "struct";
    char *why = NULL;
    bool is_struct = false;
    if (!r->complete) {
      why = xprintf("opaque handle (%s %s is never defined; used by %u functions)", kind,
                    *r->tag ? r->tag : "(anonymous)", r->nfuncs);
    } else if (!r->returned && (r->inits || r->out_docs)) {
      is_struct = true;
      why = xprintf("a struct the caller allocates and the library fills (never returned; %s%s)",
                    r->init_fn ? "initialized by " : "documented [out]",
                    r->init_fn ? r->init_fn : "");
    } else if (r->nfuncs >= 2) {
      why = xprintf("handle (%s%s%s * is used by %u functions)", r->tdef ? "" : kind,
                    r->tdef ? "" : " ", r->tdef ? r->tdef : r->tag, r->nfuncs);
    } else {
      continue;
    }
    const char *base = r->tdef ? r->tdef : r->ptr_tdef ? r->ptr_tdef : *r->tag ? r->tag : NULL;
    if (!base) {
      free(why);
      continue; /* an anonymous struct without a typedef has no C spelling */
    }
    GROW(d->handles, d->nhandles, d->caphandles);
    dhandle *h = &d->handles[d->nhandles];
    memset(h, 0, sizeof *h);
    h->name = unique_name(d, base);
    if (!r->tdef)
      h->ctype = xprintf("%s %s", kind, r->tag);
    else if (strcmp(h->name, r->tdef) != 0)
      h->ctype = xstrdup(r->tdef);
    h->is_struct = is_struct;
    h->why = why;
    h->destructor = h->dtor_rank = -1;
    r->handle = (int)d->nhandles++;
  }
}

static void set_bad(dfunc *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_bad(dfunc *f, const char *fmt, ...) {
  if (f->bad) return; /* the first reason is enough */
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&f->bad, fmt, ap) < 0) xrealloc(NULL, SIZE_MAX);
  va_end(ap);
}

/* Pass B: the signature in the grammar's terms. */
static void draft_signature(sf_draft *d, CXCursor c, dfunc *f) {
  CXType ft = clang_getCursorType(c);
  bool variadic = ft.kind == CXType_FunctionProto && clang_isFunctionTypeVariadic(ft);
  int np = clang_Cursor_getNumArguments(c);
  if (np < 0) np = 0;
  f->is_static = clang_Cursor_getStorageClass(c) == CX_SC_Static;
  f->out_handle = f->owned_by = f->consume = -1;

  /* The result. */
  tinfo rt;
  CXType rtype = clang_getCursorResultType(c);
  classify(d, rtype, &rt, true);
  f->ret_handle = -1;
  switch (rt.k) {
  case TK_VOID:
    f->ret_text = xstrdup("void"), f->ret_kind = RK_VOID;
    break;
  case TK_NUM:
  case TK_ENUM:
    f->ret_text = xstrdup(rt.g);
    f->ret_kind = rt.is_int ? (rt.is_signed ? RK_INT : RK_UINT) : RK_OTHER_NUM;
    break;
  case TK_BYTEPTR:
    if (rt.is_char) {
      f->ret_text = xstrdup(rt.pconst ? "string" : "char *");
      f->ret_kind = RK_STRING;
      f->mutable_string = !rt.pconst;
    }
    break;
  case TK_HANDLE:
    if (!d->handles[rt.handle].is_struct) {
      f->ret_text = xprintf("%s *", d->handles[rt.handle].name);
      f->ret_kind = RK_HANDLE;
      f->ret_handle = rt.handle;
    }
    break;
  default:
    break;
  }
  if (!f->ret_text) {
    char *sp = cx(clang_getTypeSpelling(rtype));
    set_bad(f, "returns %s (a result is a number, a string or a handle)", sp);
    free(sp);
    f->ret_text = xstrdup("void");
  }

  /* The C prototype, for comments. */
  sf_buf proto = {0};
  char *rsp = cx(clang_getTypeSpelling(rtype));
  bprintf(&proto, "%s%s%s(", rsp, ends_with(rsp, "*") ? "" : " ", f->symbol);
  free(rsp);

  f->p = xrealloc(NULL, ((size_t)np + 1) * sizeof *f->p);
  f->np = (uint32_t)np;
  tinfo *ti = xrealloc(NULL, ((size_t)np + 1) * sizeof *ti);
  for (int i = 0; i < np; i++) {
    CXCursor a = clang_Cursor_getArgument(c, (unsigned)i);
    dparam *p = &f->p[i];
    memset(p, 0, sizeof *p);
    p->handle = -1;
    p->name = cx(clang_getCursorSpelling(a));
    bool clash = false; /* an unnamed one's p<N> may be another's real name */
    for (int k = 0; k < i; k++)
      clash = clash || strcmp(f->p[k].name, p->name) == 0;
    if (!is_ident(p->name) || clash) {
      free(p->name);
      p->name = xprintf("p%d%s", i + 1, clash ? "_" : "");
    }
    CXType t = clang_getCursorType(a);
    p->ctext = c_param_text(t, p->name);
    bprintf(&proto, "%s%s", i ? ", " : "", p->ctext);
    classify(d, t, &ti[i], true);
  }
  if (variadic) bprintf(&proto, "%s...", np ? ", " : "");
  if (!np && !variadic) bprintf(&proto, "void");
  bprintf(&proto, ")");
  f->cproto = sf_buf_cstr(&proto);
  if (!f->cproto) xrealloc(NULL, SIZE_MAX);

  bool init_name = last_word_is(f->name, init_words, NULL);
  bool inout_next = false;
  for (int i = 0; i < np; i++) {
    dparam *p = &f->p[i];
    tinfo *t = &ti[i], *nt = i + 1 < np ? &ti[i + 1] : NULL;
    const char *nn = i + 1 < np ? f->p[i + 1].name : "";
    bool next_len = nt && lengthish(nn, nt);
    p->is_pointer = t->k != TK_NUM && t->k != TK_ENUM;
    switch (t->k) {
    case TK_BAD:
      set_bad(f, "parameter '%s' is %s", p->name, t->why);
      break;
    case TK_VOID:
      set_bad(f, "parameter '%s' is void", p->name);
      break;
    case TK_NUM:
    case TK_ENUM:
      p->text = xprintf("%s %s", t->g, p->name), p->is_pointer = false;
      break;
    case TK_BYTEPTR:
      if (next_len && !inout_next) {
        p->text = xprintf("%sbytes %s[%s]", t->pconst ? "" : "out ", p->name, nn);
        if (t->pconst)
          add_guess(&f->guesses, "%s[%s]: a buffer and its length", p->name, nn);
        else
          add_guess(&f->guesses, "%s[%s]: a buffer the call fills (the caller allocates %s bytes)",
                    p->name, nn, nn);
      } else if (!t->pconst && nt && nt->k == TK_NUMPTR && !nt->pconst && nt->is_int &&
                 lengthish(nn, &(tinfo){.k = TK_NUM, .is_int = true, .sizeish = nt->sizeish})) {
        p->text = xprintf("out bytes %s[%s]", p->name, nn);
        add_guess(&f->guesses, "%s[%s]: a buffer the call fills, its size passed by pointer",
                  p->name, nn);
        inout_next = true;
      } else if (t->is_char) {
        p->text = xprintf("string %s", p->name);
        if (!t->pconst)
          add_guess(&f->guesses, "%s: a string (char *: the call gets a writable copy)", p->name);
      } else {
        p->text = xprintf("pointer %s", p->name);
        add_guess(&f->guesses, "%s: an untyped pointer, passed as NULL", p->name);
      }
      continue;
    case TK_NUMPTR:
      if (inout_next) {
        p->text = xprintf("inout %s *%s", t->g, p->name);
        inout_next = false;
      } else if (next_len && !t->is_enum && strcmp(t->g, "bool32") != 0) {
        p->text = xprintf("%s%s %s[%s]", t->pconst ? "" : "out ", t->g, p->name, nn);
        add_guess(&f->guesses, "%s[%s]: an array and its length", p->name, nn);
      } else if (!t->pconst) {
        p->text = xprintf("out %s *%s", t->g, p->name);
        add_guess(&f->guesses, "%s: an out parameter", p->name);
      } else if (!t->is_enum) {
        p->text = xprintf("%s %s[1]", t->g, p->name);
        add_guess(&f->guesses, "%s: a pointer to one %s", p->name, t->g);
      } else {
        set_bad(f, "parameter '%s' is a pointer to a const enum", p->name);
      }
      continue;
    case TK_HANDLE: {
      const dhandle *h = &d->handles[t->handle];
      bool out = h->is_struct && ((i == 0 && init_name) || doc_param_out(f->doc, p->name));
      p->text = xprintf("%s%s *%s", out ? "out " : "", h->name, p->name);
      if (out) {
        if (f->out_handle < 0) f->out_handle = i, f->out_type = t->handle;
        add_guess(&f->guesses, "%s: filled by the call (out: a new %s)", p->name, h->name);
      } else {
        p->handle = t->handle;
      }
      break;
    }
    case TK_HANDLEPP:
      p->text = xprintf("out %s **%s", d->handles[t->handle].name, p->name);
      add_guess(&f->guesses, "%s: the call stores a new %s there (out)", p->name,
                d->handles[t->handle].name);
      if (f->out_handle < 0) f->out_handle = i, f->out_type = t->handle;
      break;
    case TK_CHARPP:
      p->text = xprintf("out string *%s", p->name);
      add_guess(&f->guesses,
                "%s: the call stores a string there (out; if the caller frees it: "
                "release SYM)",
                p->name);
      break;
    case TK_VOIDPP:
      p->text = xprintf("out pointer *%s", p->name);
      break;
    case TK_FILE:
      p->text = xprintf("memfile %s", p->name);
      add_guess(&f->guesses, "%s: a FILE *, given as a private in-memory file", p->name);
      break;
    }
    if (inout_next) { /* the buffer's size pointer did not follow after all */
      inout_next = false;
    }
  }
  if (variadic) {
    dparam *last = np ? &f->p[np - 1] : NULL;
    char l[128] = "";
    if (last) snprintf(l, sizeof l, "%s", last->name), lower(l);
    char fl[128];
    snprintf(fl, sizeof fl, "%s", f->name);
    lower(fl);
    if (last && ti[np - 1].k == TK_BYTEPTR && ti[np - 1].is_char && ti[np - 1].pconst &&
        (strstr(l, "fmt") || strstr(l, "format") || strstr(fl, "printf"))) {
      free(last->text);
      last->text = xprintf("printf %s", last->name);
      add_guess(&f->guesses, "%s, ...: a printf format and its arguments", last->name);
    } else {
      set_bad(f, "it takes variadic arguments (...)");
    }
  }
  free(ti);
  if (np > 64) set_bad(f, "it has more than 64 parameters");
  for (const char *const *b = builtin_types; *b; b++)
    if (strcmp(*b, f->name) == 0) set_bad(f, "its name is a type name of the grammar");
  if (f->is_static)
    add_guess(&f->guesses, "static in the header: only an embedded build can call it");
}

/* A free function for a char * result: X_free(void *) with the longest
 * prefix in common. */
static char *find_release(const sf_draft *d, const char *name, CXCursor *cur) {
  const char *best = NULL;
  size_t best_common = 0;
  for (uint32_t i = 0; i < d->nfuncs; i++) {
    const dfunc *g = &d->funcs[i];
    if (g->np != 1 || g->ret_kind != RK_VOID ||
        !last_word_is(g->name, (const char *const[]){"free", NULL}, NULL))
      continue;
    CXType t = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(cur[i], 0)));
    if (t.kind != CXType_Pointer || clang_getPointeeType(t).kind != CXType_Void) continue;
    size_t common = 0;
    while (name[common] && name[common] == g->name[common])
      common++;
    if (common > best_common) best = g->name, best_common = common;
  }
  return best ? xstrdup(best) : NULL;
}

static void draft_roles(sf_draft *d, CXCursor *cur) {
  for (uint32_t fi = 0; fi < d->nfuncs; fi++) {
    dfunc *f = &d->funcs[fi];
    if (f->bad) continue;
    const char *w = NULL;
    int first_handle = -1;
    bool any_pointer = false;
    for (uint32_t i = 0; i < f->np; i++) {
      if (f->p[i].handle >= 0 && first_handle < 0) first_handle = (int)i;
      any_pointer = any_pointer || f->p[i].is_pointer;
    }
    const char *doc = f->doc;
    if (f->ret_kind == RK_HANDLE) {
      const char *hn = d->handles[f->ret_handle].name;
      if (has_word(f->name, ctor_words, &w)) {
        f->ctor = true;
        f->error = "null";
        char wl[MAX_WORDS][48];
        int nw = name_words(f->name, wl);
        bool last = nw && strcmp(wl[nw - 1], w) == 0;
        add_guess(&f->guesses, "constructor (returns %s *, name %s %s%s); NULL on error", hn,
                  last ? "ends in" : "has", last ? "_" : "", w);
      } else if (first_handle >= 0 && has_word(f->name, getter_words, &w)) {
        f->owned_by = first_handle;
        add_guess(&f->guesses,
                  "borrowed: the result belongs to %s (a getter: '%s'); if the caller must free "
                  "it, drop owned_by",
                  f->p[first_handle].name, w);
      } else {
        add_guess(&f->guesses, "the caller owns the %s * it returns", hn);
        if (doc && near(doc, "null", "error", 40)) f->error = "null";
        if (doc && near(doc, "null", "fail", 40)) f->error = "null";
        if (f->error) add_guess(&f->guesses, "NULL on error (its comment says so)");
      }
    } else if (f->out_handle >= 0 && has_word(f->name, ctor_words, &w)) {
      f->ctor = true;
      add_guess(&f->guesses, "constructor (%s gets a new %s; name has '%s')",
                f->p[f->out_handle].name, d->handles[f->out_type].name, w);
    }
    /* Destructor candidates: one handle in, nothing else, freeing name. */
    if (f->np == 1 && f->p[0].handle >= 0 &&
        (f->ret_kind == RK_VOID || f->ret_kind == RK_INT || f->ret_kind == RK_UINT) &&
        last_word_is(f->name, dtor_words, &w)) {
      int rank = 0;
      while (strcmp(dtor_words[rank], w) != 0)
        rank++;
      dhandle *h = &d->handles[f->p[0].handle];
      if (h->destructor < 0 || rank < h->dtor_rank) h->destructor = (int)fi, h->dtor_rank = rank;
    }
    if (f->mutable_string) {
      f->release = find_release(d, f->name, cur);
      if (f->release)
        add_guess(&f->guesses, "the caller frees the string with %s", f->release);
      else
        add_guess(&f->guesses, "char * result: if the caller frees it, add release SYM");
    }
    /* Error conventions of int results. */
    if (f->ret_kind == RK_INT || f->ret_kind == RK_UINT) {
      if (doc && (strstr(doc, "0 on error") || strstr(doc, "0 on failure") ||
                  strstr(doc, "zero on error") || strstr(doc, "0 if an error"))) {
        f->error = "== 0";
        add_guess(&f->guesses, "error == 0 (its comment: 0 on error)");
      } else if (f->ret_kind == RK_INT && doc && near(doc, "negative", "error", 40)) {
        f->error = "< 0";
        add_guess(&f->guesses, "error < 0 (its comment: negative on error)");
      } else if (f->ret_kind == RK_INT && f->out_handle >= 0 && d->ok_zero) {
        f->error = "!= 0";
        add_guess(&f->guesses, "error != 0 (%s is 0: anything else leaves no new %s)", d->ok_zero,
                  d->handles[f->out_type].name);
      } else if (f->ret_kind == RK_INT && d->neg_errors && any_pointer &&
                 !has_word(f->name, query_words, NULL) &&
                 !last_word_is(f->name, dtor_words, NULL)) {
        f->error = "< 0";
        add_guess(&f->guesses, "error < 0 (the header's error codes are negative: %s)",
                  d->neg_errors);
      }
    }
  }
  /* One destructor per handle type; other freeing calls consume it. */
  for (uint32_t fi = 0; fi < d->nfuncs; fi++) {
    dfunc *f = &d->funcs[fi];
    if (f->bad || f->np != 1 || f->p[0].handle < 0) continue;
    dhandle *h = &d->handles[f->p[0].handle];
    const char *w = NULL;
    if (h->destructor == (int)fi) {
      f->destructor = true;
      f->error = NULL;
      char wl[MAX_WORDS][48];
      int nw = name_words(f->name, wl);
      last_word_is(f->name, dtor_words, &w);
      bool exact = nw && strcmp(wl[nw - 1], w) == 0;
      add_guess(&f->guesses, "destructor (takes one %s *, name %s %s%s)", h->name,
                exact ? "ends in" : "ends with", exact ? "_" : "", w);
    } else if (h->destructor >= 0 &&
               (f->ret_kind == RK_VOID || f->ret_kind == RK_INT || f->ret_kind == RK_UINT) &&
               last_word_is(f->name, dtor_words, &w)) {
      f->consume = 0;
      add_guess(&f->guesses, "frees its %s too? (consume: a handle type has one destructor, %s)",
                h->name, d->funcs[h->destructor].name);
    }
  }
}

/* ---- names of enums, constants ------------------------------------------------ */

static void name_enums(sf_draft *d) {
  for (uint32_t i = 0; i < d->nenums; i++) { /* C enums: their type names first */
    denum *e = &d->enums[i];
    if (e->from_macros || e->system || !e->n) continue;
    char base[128];
    if (e->tdef || e->tag)
      snprintf(base, sizeof base, "%s", e->tdef ? e->tdef : e->tag);
    else
      snprintf(base, sizeof base, "consts_%s", e->c[0].name), lower(base);
    e->name = unique_name(d, base);
    if (e->tdef && strcmp(e->name, e->tdef) != 0)
      e->ctype = xstrdup(e->tdef);
    else if (!e->tdef)
      e->ctype = e->tag ? xprintf("enum %s", e->tag) : xstrdup("int");
  }
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t i = 0; i < d->nenums; i++) {
      denum *e = &d->enums[i];
      if (e->system || !e->n || e->from_macros != (pass == 1)) continue;
      if (e->from_macros) e->name = unique_name(d, e->tag);
      for (uint32_t k = 0; k < e->n; k++) {
        dconst *c = &e->c[k];
        if (name_taken(d, c->name) || !is_ident(c->name)) {
          free(c->name); /* the grammar has one namespace: a clash leaves it out */
          c->name = NULL;
        } else {
          take_name(d, c->name);
        }
      }
      e->flags = looks_like_flags(e);
    }
}

static bool enum_emitted(const denum *e) {
  return !e->system && e->name && (e->in_header || e->used) && enum_has_consts(e);
}

/* Error codes the headers define: negative ones (zlib's Z_STREAM_ERROR),
 * or an OK that is 0 (SQLITE_OK). */
static void error_codes(sf_draft *d) {
  sf_buf neg = {0};
  unsigned nneg = 0;
  for (uint32_t i = 0; i < d->nenums; i++) {
    const denum *e = &d->enums[i];
    if (!e->in_header) continue;
    for (uint32_t k = 0; k < e->n; k++) {
      const dconst *c = &e->c[k];
      if (!c->name) continue;
      if (!c->big && c->v < 0 && strstr(c->name, "ERR")) {
        if (nneg < 3) bprintf(&neg, "%s%s", nneg ? ", " : "", c->name);
        nneg++;
      }
      if (!d->ok_zero && c->v == 0 && ends_with(c->name, "_OK")) d->ok_zero = xstrdup(c->name);
    }
  }
  if (nneg > 3) bprintf(&neg, ", ...");
  d->neg_errors = nneg ? sf_buf_cstr(&neg) : NULL;
  if (!nneg) sf_buf_free(&neg);
}

/* ---- paths ------------------------------------------------------------------------ */

/* path relative to dir when it is below it, else NULL. */
static const char *below(const char *path, const char *dir) {
  size_t n = strlen(dir);
  if (n == 1 && dir[0] == '/') return path + 1;
  return strncmp(path, dir, n) == 0 && path[n] == '/' ? path + n + 1 : NULL;
}
static char *out_dir(const char *out_path) {
  char *copy = xstrdup(out_path ? out_path : "x");
  char *r = realpath(out_path ? dirname(copy) : ".", NULL);
  free(copy);
  return r;
}
static void put_quoted(sf_buf *b, const char *s) {
  bprintf(b, "\"");
  for (; *s; s++)
    bprintf(b, "%s%c", *s == '"' || *s == '\\' ? "\\" : "", *s);
  bprintf(b, "\"");
}
static char *ident_of(const char *path, bool strip_lib) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strip_lib && strncmp(base, "lib", 3) == 0 && base[3]) base += 3;
  char *r = xstrdup(base);
  char *dot = strchr(r, '.');
  if (dot && dot != r) *dot = 0;
  for (char *p = r; *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '_') *p = '_';
  if (!*r || isdigit((unsigned char)*r)) {
    char *t = xprintf("api_%s", r);
    free(r);
    r = t;
  }
  return r;
}

static void draft_head(sf_draft *d, const sf_draft_opts *o, char **real) {
  char *od = out_dir(o->out_path);
  d->api_name = ident_of(o->lib ? o->lib : o->headers[0], o->lib != NULL);
  for (uint32_t i = 0; i < o->nheaders; i++) {
    const char *rel = od ? below(real[i], od) : NULL;
    const char *inc_dir = NULL;
    for (uint32_t k = 0; !rel && k < o->nincludes; k++) {
      char *ri = realpath(o->includes[k], NULL);
      if (ri && (rel = below(real[i], ri))) inc_dir = o->includes[k];
      free(ri);
    }
    if (rel && inc_dir) bprintf(&d->head, "# found under -I %s\n", inc_dir);
    if (!rel) {
      const char *slash = strrchr(real[i], '/');
      rel = slash ? slash + 1 : real[i];
      char *dir = xstrdup(real[i]);
      bprintf(&d->head, "# guess: %s is in %s: build with -I that directory\n", rel, dirname(dir));
      free(dir);
    }
    bprintf(&d->head, "header ");
    put_quoted(&d->head, rel);
    bprintf(&d->head, ";\n");
  }
  if (o->lib) {
    char *rl = strchr(o->lib, '/') ? realpath(o->lib, NULL) : NULL;
    const char *rel = rl && od ? below(rl, od) : NULL;
    bprintf(&d->head, "library ");
    put_quoted(&d->head, rel ? rel : o->lib);
    bprintf(&d->head, ";\n");
    free(rl);
  }
  free(od);
}

/* ---- parsing ------------------------------------------------------------------------- */

static void free_draft_ctx(tuctx *t) {
  free(t->typedefs.c);
  free(t->records.c);
  free(t->enums.c);
  free(t->funcs.c);
  free(t->macros.c);
  free(t->hf);
}

sf_draft *sf_draft_new(const sf_draft_opts *o, char *err, size_t errlen) {
  char **real = xrealloc(NULL, (o->nheaders + 1) * sizeof *real);
  for (uint32_t i = 0; i < o->nheaders; i++) {
    FILE *fp = fopen(o->headers[i], "r");
    real[i] = fp ? realpath(o->headers[i], NULL) : NULL;
    bool readable = fp && (fgetc(fp), !ferror(fp)); /* a directory opens, but does not read */
    if (fp) fclose(fp);
    if (!real[i] || !readable) {
      snprintf(err, errlen, "%s: cannot open file", o->headers[i]);
      for (uint32_t k = 0; k <= i; k++)
        free(real[k]);
      free(real);
      return NULL;
    }
  }
  sf_draft *d = xrealloc(NULL, sizeof *d);
  memset(d, 0, sizeof *d);
  for (const char *const *b = builtin_types; *b; b++)
    take_name(d, *b);
  d->header_names = xrealloc(NULL, (o->nheaders + 1) * sizeof *d->header_names);
  d->nheader_names = o->nheaders;
  for (uint32_t i = 0; i < o->nheaders; i++)
    d->header_names[i] = ident_of(real[i], false);
  draft_head(d, o, real);

  /* One translation unit including every header. libclang's crash recovery
   * would leave its signal handlers behind (the probe's children need the
   * default ones), and its parser thread is not needed. */
  setenv("LIBCLANG_DISABLE_CRASH_RECOVERY", "1", 0);
  setenv("LIBCLANG_NOTHREADS", "1", 0);
  sf_buf src = {0};
  const char **args =
      xrealloc(NULL, (8 + 2 * (size_t)(o->nincludes + o->ndefines + o->nheaders)) * sizeof *args);
  int na = 0;
  args[na++] = "-xc";
  args[na++] = "-std=gnu11";
  args[na++] = "-fparse-all-comments";
  args[na++] = "-ferror-limit=20";
  char **dirs = xrealloc(NULL, (o->nheaders + 1) * sizeof *dirs);
  for (uint32_t i = 0; i < o->nincludes; i++)
    args[na++] = "-I", args[na++] = o->includes[i];
  for (uint32_t i = 0; i < o->ndefines; i++)
    args[na++] = "-D", args[na++] = o->defines[i];
  for (uint32_t i = 0; i < o->nheaders; i++) {
    char *copy = xstrdup(real[i]);
    dirs[i] = xstrdup(dirname(copy));
    free(copy);
    args[na++] = "-I", args[na++] = dirs[i];
    bprintf(&src, "#include \"%s\"\n", real[i]);
  }
  char *srctext = sf_buf_cstr(&src);
  if (!srctext) xrealloc(NULL, SIZE_MAX);
  struct CXUnsavedFile uf = {"/seqfuzz-init/draft.c", srctext, (unsigned long)src.len};
  CXIndex idx = clang_createIndex(0, 0);
  CXTranslationUnit tu = NULL;
  enum CXErrorCode rc = clang_parseTranslationUnit2(
      idx, uf.Filename, args, na, &uf, 1,
      CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_SkipFunctionBodies, &tu);
  sf_draft *ret = d;
  tuctx t = {0};
  if (rc != CXError_Success || !tu) {
    snprintf(err, errlen, "libclang could not parse the headers (error %d)", (int)rc);
    ret = NULL;
    goto out;
  }
  sf_buf errs = {0};
  unsigned nerr = 0;
  for (unsigned i = 0; i < clang_getNumDiagnostics(tu); i++) {
    CXDiagnostic g = clang_getDiagnostic(tu, i);
    if (clang_getDiagnosticSeverity(g) >= CXDiagnostic_Error && nerr++ < 5) {
      char *s = cx(clang_formatDiagnostic(g, CXDiagnostic_DisplaySourceLocation |
                                                 CXDiagnostic_DisplayColumn));
      bprintf(&errs, "%s\n", s);
      free(s);
    }
    clang_disposeDiagnostic(g);
  }
  if (nerr) {
    snprintf(err, errlen,
             "%.*s%sthe headers do not parse (%u errors): give include directories with -I "
             "DIR and macros with -D NAME=VALUE",
             (int)errs.len, (const char *)errs.data, nerr > 5 ? "...\n" : "", nerr);
    sf_buf_free(&errs);
    ret = NULL;
    goto out;
  }
  sf_buf_free(&errs);

  t.d = d;
  t.tu = tu;
  t.nhf = o->nheaders;
  t.hf = xrealloc(NULL, (o->nheaders + 1) * sizeof *t.hf);
  for (uint32_t i = 0; i < o->nheaders; i++)
    t.hf[i] = clang_getFile(tu, real[i]);
  clang_visitChildren(clang_getTranslationUnitCursor(tu), visit_top, &t);
  scan_renames(&t);

  /* Enums and their constants (also what #defines may refer to). */
  for (uint32_t i = 0; i < t.enums.n; i++) {
    CXCursor c = t.enums.c[i];
    denum *e = enum_get(d, c);
    if (in_header(&t, c, NULL) >= 0) e->in_header = true;
    if (clang_isCursorDefinition(c) && !e->n) {
      clang_visitChildren(c, visit_enum_const, e);
      for (uint32_t k = 0; k < e->n; k++)
        add_int(d, e->c[k].name, e->c[k].v, e->c[k].big);
    }
  }
  /* Typedef names of structs and enums. */
  for (uint32_t i = 0; i < t.typedefs.n; i++) {
    CXCursor c = t.typedefs.c[i];
    char *n = cx(clang_getCursorSpelling(c));
    const char *nm = renamed(d, n);
    CXType u = clang_getCanonicalType(clang_getTypedefDeclUnderlyingType(c));
    char **slot = NULL;
    if (u.kind == CXType_Record) {
      slot = &record_get(d, u)->tdef;
    } else if (u.kind == CXType_Pointer && clang_getPointeeType(u).kind == CXType_Record) {
      slot = &record_get(d, clang_getPointeeType(u))->ptr_tdef;
    } else if (u.kind == CXType_Enum) {
      slot = &enum_get(d, clang_getTypeDeclaration(u))->tdef;
    }
    if (slot && (!*slot || ((*slot)[0] == '_' && nm[0] != '_'))) {
      free(*slot);
      *slot = xstrdup(nm);
    }
    free(n);
  }

  dconst *macros = NULL;
  uint32_t nmacros = 0;
  scan_macros(&t, &macros, &nmacros);
  group_macros(d, macros, nmacros);
  for (uint32_t i = 0; i < nmacros; i++)
    free(macros[i].name);
  free(macros);

  /* Functions: pass A (uses of structs), names. */
  CXCursor *cur = xrealloc(NULL, (t.funcs.n + 1) * sizeof *cur);
  for (uint32_t i = 0; i < t.funcs.n; i++) {
    CXCursor c = t.funcs.c[i];
    char *sym = cx(clang_getCursorSpelling(c));
    const char *nm = renamed(d, sym);
    bool dup = false;
    for (uint32_t k = 0; k < d->nfuncs && !dup; k++)
      dup = strcmp(d->funcs[k].name, nm) == 0;
    if (dup || !is_ident(nm)) {
      free(sym);
      continue;
    }
    GROW(d->funcs, d->nfuncs, d->capfuncs);
    dfunc *f = &d->funcs[d->nfuncs];
    memset(f, 0, sizeof *f);
    f->symbol = sym;
    f->name = xstrdup(nm);
    f->doc = doc_of(c, f->name);
    cur[d->nfuncs++] = c;
    if (!name_taken(d, f->name)) take_name(d, f->name);
    count_uses(d, c, f);
  }
  decide_handles(d);
  name_enums(d);
  for (uint32_t i = 0; i < d->nfuncs; i++)
    draft_signature(d, cur[i], &d->funcs[i]);
  error_codes(d);
  draft_roles(d, cur);
  free(cur);

out:
  free_draft_ctx(&t);
  if (tu) clang_disposeTranslationUnit(tu);
  clang_disposeIndex(idx);
  free(srctext);
  for (uint32_t i = 0; i < o->nheaders; i++)
    free(dirs[i]), free(real[i]);
  free(dirs);
  free(real);
  free(args);
  if (!ret) sf_draft_free(d);
  return ret;
}

/* ---- rendering ------------------------------------------------------------------------ */

static void render_enum(sf_buf *b, const denum *e) {
  int64_t lo = 0, hi = 0;
  bool big = false, first = true;
  for (uint32_t k = 0; k < e->n; k++) {
    if (!e->c[k].name) continue;
    if (e->c[k].big) {
      big = true;
      continue;
    }
    if (first || e->c[k].v < lo) lo = e->c[k].v;
    if (first || e->c[k].v > hi) hi = e->c[k].v;
    first = false;
  }
  const char *base = NULL;
  if (e->flags) {
    if (big || lo < 0 || hi > (int64_t)UINT32_MAX) base = lo < 0 ? "i64" : "u64";
  } else if (big) {
    base = "u64";
  } else if (lo < INT32_MIN || hi > INT32_MAX) {
    base = lo >= 0 && hi <= (int64_t)UINT32_MAX ? "u32" : "i64";
  }
  sf_buf line = {0};
  bprintf(&line, "%s %s", e->flags ? "flags" : "enum", e->name);
  if (e->ctype) {
    bprintf(&line, " = ");
    put_quoted(&line, e->ctype);
  }
  if (base) bprintf(&line, " : %s", base);
  bprintf(&line, " {");
  size_t head = line.len;
  sf_buf body = {0};
  bool one_line = true;
  size_t col = head;
  first = true;
  for (uint32_t k = 0; k < e->n; k++) {
    const dconst *c = &e->c[k];
    if (!c->name) continue;
    char item[256];
    if (c->big)
      snprintf(item, sizeof item, "%s = %llu", c->name, (unsigned long long)c->v);
    else
      snprintf(item, sizeof item, "%s = %lld", c->name, (long long)c->v);
    if (col + strlen(item) + 4 > 100) {
      one_line = false;
      bprintf(&body, "%s\n ", first ? "" : ",");
      col = 1;
    } else if (!first) {
      bprintf(&body, ",");
      col++;
    }
    bprintf(&body, " %s", item);
    col += strlen(item) + 1;
    first = false;
  }
  bprintf(b, "%.*s%.*s%s}\n", (int)line.len, (const char *)line.data, (int)body.len,
          (const char *)body.data, one_line ? " " : "\n");
  sf_buf_free(&line);
  sf_buf_free(&body);
}

int sf_draft_render(const sf_draft *d, bool probe, const bool *keep, sf_buf *out) {
  bprintf(out,
          "# Drafted by `seqfuzz init` (docs/grammar.md). A line after `# guess:` is a guess\n"
          "# from the C declarations alone: confirm or fix it, then run `seqfuzz check`.\n"
          "# Functions the grammar cannot express are commented out with the reason.\n"
          "api %s;\n%.*s",
          d->api_name, (int)d->head.len, (const char *)d->head.data);
  if (d->nhandles) bprintf(out, "\n# ---- handle types\n");
  for (uint32_t i = 0; i < d->nhandles; i++) {
    const dhandle *h = &d->handles[i];
    bprintf(out, "# guess: %s%s\nhandle %s", h->why,
            h->destructor < 0 ? " (no destructor found)" : "", h->name);
    if (h->ctype) {
      bprintf(out, " = ");
      put_quoted(out, h->ctype);
    }
    bprintf(out, "%s;\n", h->is_struct ? " struct" : "");
  }
  bool any_enum = false;
  for (uint32_t i = 0; i < d->nenums; i++) {
    const denum *e = &d->enums[i];
    if (!enum_emitted(e)) continue;
    if (!any_enum) bprintf(out, "\n# ---- enums and constants\n");
    any_enum = true;
    if (e->from_macros)
      bprintf(out, "# guess: #define constants as %s: a parameter may take this type%s\n",
              e->flags ? "flags" : "an enum",
              e->flags ? " (every value a distinct power of two)" : "");
    else if (e->flags)
      bprintf(out, "# guess: flags (every value a distinct power of two: any OR of them)\n");
    render_enum(out, e);
  }
  if (d->ndict) {
    bprintf(out, "\n# guess: the headers' string constants, for the mutator\ndict");
    size_t col = 4;
    for (uint32_t i = 0; i < d->ndict; i++) {
      size_t w = strlen(d->dict[i]) + 3;
      if (i && col + w > 98)
        bprintf(out, ",\n    "), col = 4;
      else if (i)
        bprintf(out, ","), col++;
      bprintf(out, " \"%s\"", d->dict[i]);
      col += w;
    }
    bprintf(out, ";\n");
  }
  bprintf(out, "\n# ---- functions, in header order\n");
  if (probe) bprintf(out, "default nullable;\n");
  for (uint32_t fi = 0; fi < d->nfuncs; fi++) {
    const dfunc *f = &d->funcs[fi];
    if (probe && (f->bad || (keep && !keep[fi]))) continue;
    if (f->notes.len || f->guesses.len || f->bad) bprintf(out, "\n"); /* a commented block */
    if (f->notes.len) bprintf(out, "%.*s", (int)f->notes.len, (const char *)f->notes.data);
    if (f->bad) {
      bprintf(out, "# not expressible: %s: %s\n#   %s;\n", f->name, f->bad, f->cproto);
      continue;
    }
    if (f->guesses.len)
      bprintf(out, "# guess: %.*s\n", (int)f->guesses.len, (const char *)f->guesses.data);
    bprintf(out, "func %s%s%s(", f->ret_text, ends_with(f->ret_text, "*") ? "" : " ", f->name);
    for (uint32_t i = 0; i < f->np; i++)
      bprintf(out, "%s%s%s", i ? ", " : "", f->consume == (int)i ? "consume " : "", f->p[i].text);
    bprintf(out, "%s)", f->np ? "" : "void");
    if (f->destructor) bprintf(out, " destructor");
    if (f->error) bprintf(out, " error %s", f->error);
    if (f->owned_by >= 0) bprintf(out, " owned_by %s", f->p[f->owned_by].name);
    if (f->release && !probe) bprintf(out, " release %s", f->release);
    bprintf(out, ";\n");
  }
  if (d->nfnmacros && !probe) {
    bprintf(out,
            "\n# Function-like macros (a glue function in a header of yours can call them):\n#  ");
    size_t col = 3;
    for (uint32_t i = 0; i < d->nfnmacros; i++) {
      size_t w = strlen(d->fnmacros[i]) + 2;
      if (col + w > 98) bprintf(out, "\n#  "), col = 3;
      bprintf(out, " %s%s", d->fnmacros[i], i + 1 < d->nfnmacros ? "," : "\n");
      col += w;
    }
  }
  return 0;
}

/* ---- the rest of the interface --------------------------------------------------------- */

uint32_t sf_draft_nfuncs(const sf_draft *d) {
  return d->nfuncs;
}
const char *sf_draft_func_name(const sf_draft *d, uint32_t i) {
  return d->funcs[i].name;
}
const char *sf_draft_func_symbol(const sf_draft *d, uint32_t i) {
  return d->funcs[i].symbol;
}
bool sf_draft_func_expressible(const sf_draft *d, uint32_t i) {
  return !d->funcs[i].bad;
}

int sf_draft_func_note(sf_draft *d, uint32_t i, const char *note) {
  bprintf(&d->funcs[i].notes, "# %s\n", note);
  return 0;
}

void sf_draft_summary(const sf_draft *d, char *buf, size_t len) {
  uint32_t bad = 0, enums = 0, guessed = 0;
  for (uint32_t i = 0; i < d->nfuncs; i++) {
    bad += d->funcs[i].bad != NULL;
    guessed += !d->funcs[i].bad && d->funcs[i].guesses.len;
  }
  for (uint32_t i = 0; i < d->nenums; i++)
    enums += enum_emitted(&d->enums[i]);
  snprintf(buf, len,
           "%u functions (%u with guesses to confirm, %u not expressible: commented out), %u "
           "handle types, %u enums, %u dict strings",
           d->nfuncs - bad, guessed, bad, d->nhandles, enums, d->ndict);
}

void sf_draft_free(sf_draft *d) {
  if (!d) return;
  free(d->api_name);
  sf_buf_free(&d->head);
  for (uint32_t i = 0; i < d->nheader_names; i++)
    free(d->header_names[i]);
  free(d->header_names);
  for (uint32_t i = 0; i < d->nrecs; i++) {
    record *r = &d->recs[i];
    free(r->usr), free(r->tag), free(r->tdef), free(r->ptr_tdef), free(r->init_fn);
  }
  free(d->recs);
  for (uint32_t i = 0; i < d->nhandles; i++)
    free(d->handles[i].name), free(d->handles[i].ctype), free(d->handles[i].why);
  free(d->handles);
  for (uint32_t i = 0; i < d->nenums; i++) {
    denum *e = &d->enums[i];
    for (uint32_t k = 0; k < e->n; k++)
      free(e->c[k].name);
    free(e->c), free(e->usr), free(e->tag), free(e->tdef), free(e->name), free(e->ctype);
    free(e->why);
  }
  free(d->enums);
  for (uint32_t i = 0; i < d->nfuncs; i++) {
    dfunc *f = &d->funcs[i];
    for (uint32_t k = 0; k < f->np; k++)
      free(f->p[k].name), free(f->p[k].text), free(f->p[k].ctext);
    free(f->p), free(f->name), free(f->symbol), free(f->cproto), free(f->doc);
    free(f->ret_text), free(f->bad), free(f->release);
    sf_buf_free(&f->guesses);
    sf_buf_free(&f->notes);
  }
  free(d->funcs);
  for (uint32_t i = 0; i < d->ndict; i++)
    free(d->dict[i]);
  free(d->dict);
  for (uint32_t i = 0; i < d->nfnmacros; i++)
    free(d->fnmacros[i]);
  free(d->fnmacros);
  for (uint32_t i = 0; i < d->nren; i++)
    free(d->ren_from[i]), free(d->ren_to[i]);
  free(d->ren_from), free(d->ren_to);
  for (uint32_t i = 0; i < d->nints; i++)
    free(d->ints[i].name);
  free(d->ints);
  for (uint32_t i = 0; i < d->nnames; i++)
    free(d->names[i]);
  free(d->names);
  free(d->neg_errors), free(d->ok_zero);
  free(d);
}
