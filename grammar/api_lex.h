/* api_lex.h: tokens of the API description language (private to grammar/).
 * Shared by the API parser and the sequence text parser, which use the same
 * lexical rules (identifiers, integers, floats, string literals, comments). */
#ifndef SF_API_LEX_H
#define SF_API_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/sf_buf.h"

typedef enum sf_tok_kind {
  SF_TOK_EOF,
  SF_TOK_IDENT,
  SF_TOK_INT,    /* integer literal, value in u (neg set when written with '-') */
  SF_TOK_FLOAT,  /* floating literal (also nan, inf), value in d */
  SF_TOK_STRING, /* "..." decoded into the lexer's text buffer */
  SF_TOK_HEX,    /* x"..." hex bytes decoded into the text buffer */
  SF_TOK_PUNCT,  /* one or two characters in punct */
  SF_TOK_ERROR,  /* message in err */
} sf_tok_kind;

typedef struct sf_tok {
  sf_tok_kind kind;
  uint32_t line, col;
  const char *start; /* points into the source */
  size_t len;
  uint64_t u;
  bool neg;
  double d;
  char punct[3];
  const char *err;
} sf_tok;

typedef struct sf_lexer {
  const char *src, *end, *p;
  uint32_t line, col;
  sf_buf text; /* decoded string / hex literal of the last token */
} sf_lexer;

void sf_lex_init(sf_lexer *lx, const char *src, size_t len);
void sf_lex_free(sf_lexer *lx);
/* Read the next token. Numbers: a leading '-' directly before a digit is part
 * of the literal. Never reads past the end; never fails except with
 * SF_TOK_ERROR (e.g. unterminated string, out-of-range integer). */
sf_tok sf_lex_next(sf_lexer *lx);
bool sf_tok_is(const sf_tok *t, const char *ident_or_punct);

#endif
