/* doclib: a document of words, built word by word or parsed from its text,
 * with a planted bug; for the simplifier's materialization and feeding
 * (min_repro.sh). */
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

/* A document's words, each followed by a NUL (malloc'd, with one more NUL
 * at the end; free it); *len receives the length in bytes. */
char *doc_words(const doc_t *d, unsigned long *len);

/* A feed: bytes appended from documents (feed_take) or given directly
 * (feed_put); it has no parser, so the simplifier replaces a feed_take by a
 * feed_put of the words doc_words prints (feeding). */
typedef struct feed feed_t;
feed_t *feed_new(void);
/* Append doc_words(d) (the words moved; the document is left as it is). */
void feed_take(feed_t *f, const doc_t *d);
void feed_put(feed_t *f, const unsigned char *data, unsigned len);
/* Planted bug: two equal NUL-terminated words in a row overflow a heap
 * block. Returns the number of bytes held. */
int feed_check(const feed_t *f);
void feed_free(feed_t *f);

#endif
