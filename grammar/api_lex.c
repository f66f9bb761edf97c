#include "api_lex.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void sf_lex_init(sf_lexer *lx, const char *src, size_t len) {
  memset(lx, 0, sizeof *lx);
  if (!src) src = "";
  lx->src = lx->p = src;
  lx->end = src + len;
  lx->line = lx->col = 1;
}

void sf_lex_free(sf_lexer *lx) {
  sf_buf_free(&lx->text);
}

static int peek(const sf_lexer *lx, size_t ahead) {
  return lx->p + ahead < lx->end ? (unsigned char)lx->p[ahead] : -1;
}

static void advance(sf_lexer *lx) {
  if (lx->p >= lx->end) return;
  if (*lx->p == '\n') {
    lx->line++;
    lx->col = 1;
  } else {
    lx->col++;
  }
  lx->p++;
}

/* Returns false at an unterminated block comment, whose start goes to
 * line and col. */
static bool skip_space_and_comments(sf_lexer *lx, uint32_t *line, uint32_t *col) {
  for (;;) {
    int c = peek(lx, 0);
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
      advance(lx);
    } else if (c == '#' || (c == '/' && peek(lx, 1) == '/')) {
      while (peek(lx, 0) != -1 && peek(lx, 0) != '\n')
        advance(lx);
    } else if (c == '/' && peek(lx, 1) == '*') {
      *line = lx->line;
      *col = lx->col;
      advance(lx);
      advance(lx);
      while (peek(lx, 0) != -1 && !(peek(lx, 0) == '*' && peek(lx, 1) == '/'))
        advance(lx);
      if (peek(lx, 0) == -1) return false;
      advance(lx);
      advance(lx);
    } else {
      return true;
    }
  }
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static sf_tok error_tok(sf_tok t, const char *msg) {
  t.kind = SF_TOK_ERROR;
  t.err = msg;
  return t;
}

static sf_tok lex_string(sf_lexer *lx, sf_tok t) {
  sf_buf_reset(&lx->text);
  advance(lx); /* opening quote */
  for (;;) {
    int c = peek(lx, 0);
    if (c == -1 || c == '\n') return error_tok(t, "unterminated string literal");
    if (c == '"') {
      advance(lx);
      break;
    }
    if (c == '\\') {
      int e = peek(lx, 1);
      int out;
      size_t used = 2;
      switch (e) {
      case 'n':
        out = '\n';
        break;
      case 't':
        out = '\t';
        break;
      case 'r':
        out = '\r';
        break;
      case '0':
        out = 0;
        break;
      case '\\':
        out = '\\';
        break;
      case '"':
        out = '"';
        break;
      case '\'':
        out = '\'';
        break;
      case 'x': {
        int h1 = hexval(peek(lx, 2)), h2 = hexval(peek(lx, 3));
        if (h1 < 0 || h2 < 0) return error_tok(t, "\\x needs exactly two hex digits");
        out = h1 * 16 + h2;
        used = 4;
        break;
      }
      default:
        return error_tok(t, "unknown escape sequence");
      }
      for (size_t i = 0; i < used; i++)
        advance(lx);
      if (sf_buf_putc(&lx->text, (uint8_t)out)) return error_tok(t, "out of memory");
      continue;
    }
    if (sf_buf_putc(&lx->text, (uint8_t)c)) return error_tok(t, "out of memory");
    advance(lx);
  }
  t.kind = SF_TOK_STRING;
  return t;
}

static sf_tok lex_hex(sf_lexer *lx, sf_tok t) {
  sf_buf_reset(&lx->text);
  advance(lx); /* x */
  advance(lx); /* " */
  for (;;) {
    int c = peek(lx, 0);
    if (c == '"') {
      advance(lx);
      break;
    }
    int h1 = hexval(c), h2 = hexval(peek(lx, 1));
    if (h1 < 0 || h2 < 0) return error_tok(t, "hex literal needs pairs of hex digits");
    if (sf_buf_putc(&lx->text, (uint8_t)(h1 * 16 + h2))) return error_tok(t, "out of memory");
    advance(lx);
    advance(lx);
  }
  t.kind = SF_TOK_HEX;
  return t;
}

static sf_tok lex_number(sf_lexer *lx, sf_tok t) {
  const char *s = lx->p;
  bool neg = false;
  if (*s == '-') neg = true;
  /* Find the extent: digits, letters (hex, exponent), '.', and signs after e/p. */
  const char *q = s + (neg ? 1 : 0);
  bool is_hex = q + 1 < lx->end && q[0] == '0' && (q[1] == 'x' || q[1] == 'X');
  bool is_float = false;
  const char *e = q;
  while (e < lx->end) {
    char c = *e;
    if (isalnum((unsigned char)c) || c == '_') {
      e++;
    } else if (c == '.') {
      is_float = true;
      e++;
    } else if ((c == '+' || c == '-') && e > q &&
               ((!is_hex && (e[-1] == 'e' || e[-1] == 'E')) ||
                (is_hex && (e[-1] == 'p' || e[-1] == 'P')))) {
      is_float = true;
      e++;
    } else {
      break;
    }
  }
  size_t n = (size_t)(e - s);
  while (lx->p < e)
    advance(lx); /* consume the literal even when it is malformed */
  t.len = n;
  char tmp[128];
  if (n >= sizeof tmp) return error_tok(t, "number literal too long");
  memcpy(tmp, s, n);
  tmp[n] = 0;
  if (!is_hex && (strchr(tmp, 'e') || strchr(tmp, 'E'))) is_float = true;
  if (is_hex && (strchr(tmp, 'p') || strchr(tmp, 'P'))) is_float = true;
  char *endp;
  errno = 0;
  if (is_float) {
    t.d = strtod(tmp, &endp);
    if (*endp) return error_tok(t, "malformed number literal");
    t.kind = SF_TOK_FLOAT;
  } else {
    const char *digits = tmp + (neg ? 1 : 0);
    if (*digits == '-' || *digits == '+') return error_tok(t, "malformed number literal");
    unsigned long long v = strtoull(digits, &endp, 0);
    if (*endp) return error_tok(t, "malformed number literal");
    if (errno == ERANGE) return error_tok(t, "integer literal out of range");
    if (neg && v > (1ULL << 63)) return error_tok(t, "integer literal out of range");
    t.u = neg ? (uint64_t)0 - v : v;
    t.neg = neg;
    t.kind = SF_TOK_INT;
  }
  return t;
}

sf_tok sf_lex_next(sf_lexer *lx) {
  uint32_t cline = 0, ccol = 0;
  bool closed = skip_space_and_comments(lx, &cline, &ccol);
  sf_tok t;
  memset(&t, 0, sizeof t);
  t.line = lx->line;
  t.col = lx->col;
  t.start = lx->p;
  if (!closed) {
    t.line = cline;
    t.col = ccol;
    return error_tok(t, "unterminated comment");
  }
  int c = peek(lx, 0);
  if (c == -1) {
    t.kind = SF_TOK_EOF;
    return t;
  }
  if (c == 'x' && peek(lx, 1) == '"') return lex_hex(lx, t);
  if (isalpha(c) || c == '_') {
    while (isalnum(peek(lx, 0)) || peek(lx, 0) == '_')
      advance(lx);
    t.kind = SF_TOK_IDENT;
    t.len = (size_t)(lx->p - t.start);
    return t;
  }
  if (isdigit(c) || (c == '-' && isdigit(peek(lx, 1)))) return lex_number(lx, t);
  if (c == '"') return lex_string(lx, t);
  static const char *const two[] = {"!=", "==", "<=", ">=", "->", "&&", "||", NULL};
  for (int i = 0; two[i]; i++) {
    if (c == two[i][0] && peek(lx, 1) == two[i][1]) {
      memcpy(t.punct, two[i], 3);
      advance(lx);
      advance(lx);
      t.kind = SF_TOK_PUNCT;
      t.len = 2;
      return t;
    }
  }
  if (strchr("(){}[];,=*&<>|:-+/%!.", c) && c != 0) {
    t.punct[0] = (char)c;
    advance(lx);
    t.kind = SF_TOK_PUNCT;
    t.len = 1;
    return t;
  }
  advance(lx);
  return error_tok(t, isprint(c) ? "unexpected character" : "unexpected byte");
}

bool sf_tok_is(const sf_tok *t, const char *s) {
  if (t->kind == SF_TOK_PUNCT) return strcmp(t->punct, s) == 0;
  if (t->kind == SF_TOK_IDENT) return strlen(s) == t->len && memcmp(t->start, s, t->len) == 0;
  return false;
}
