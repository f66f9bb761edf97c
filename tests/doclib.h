/* doclib: a document of words, built word by word or parsed from its text,
 * with a planted bug; for the simplifier's materialization (min_repro.sh). */
#ifndef DOCLIB_H
#define DOCLIB_H

typedef struct doc doc_t;

doc_t *doc_new(void);
/* Append a word (no spaces, not empty): 0, or -1 if it is not a word or the
 * document is full (16 words). */
int doc_add(doc_t *d, const char *word);
/* The words of `text`, separated by single spaces (NULL if it has none or
 * more than 16). */
doc_t *doc_parse(const char *text);
/* The words separated by single spaces (malloc'd; free it). */
char *doc_print(const doc_t *d);
/* Planted bug: a document of three or more words whose first and last words
 * are the same overflows a heap block. Returns the number of words. */
int doc_check(const doc_t *d);
void doc_free(doc_t *d);

#endif
