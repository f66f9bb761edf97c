/* pcre2_jit_glue.h: the glue of pcre2_jit.api, a differential target: the
 * interpreter (first implementation) against the JIT (second implementation,
 * the *_jit functions, mapped in the grammar's `differential` block). Include
 * after pcre2.h (the build defines PCRE2_CODE_UNIT_WIDTH=8).
 *
 * pcre2jit(3): JIT matching "yields exactly the same results" as the
 * interpreter, with documented exceptions that the glue keeps out of the
 * comparison (each one is marked "documented difference" below):
 *  - resource limits: "the details of exactly what is counted [for the match
 *    limit] are not the same", the depth and heap limits do not apply to JIT,
 *    and JIT has its own PCRE2_ERROR_JIT_STACKLIMIT;
 *  - start-up optimizations: pcre2api (PCRE2_NO_START_OPTIMIZE) says they
 *    may change the outcome of patterns with (*COMMIT) and the mark returned
 *    after a failed or partial match, and the JIT compiler has its own
 *    (PCRE2_NO_START_OPTIMIZE "does affect the output of the JIT compiler");
 *  - callout_flags are always 0 under JIT (not observed here), and callouts
 *    may be skipped by optimizations ("MISSING CALLOUTS" in pcre2callout(3)):
 *    callouts only return 0 or 1 (go on / fail here), whose effect on the
 *    result does not depend on which ones run; a negative return (abandon
 *    the match) would.
 * Everything the grammar observes is a snapshot the glue takes right after
 * each match (struct pj_md), so no observer reads a match data block after
 * its pattern or subject is gone (pcre2api forbids that).
 */
#ifndef PCRE2_JIT_GLUE_H
#define PCRE2_JIT_GLUE_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pairs of the ovector kept in a snapshot: create_from_pattern makes one per
 * group + 1, which can be 65536; the first PJ_MAX_PAIRS are compared. */
#define PJ_MAX_PAIRS 128

/* Match data as the grammar sees it: the block and the snapshot of the last
 * match made with it. */
struct pj_md {
  pcre2_match_data *md;
  int rc;          /* the match's result */
  uint32_t npairs; /* ovector pairs set by the last match (see pj__snap) */
  PCRE2_SIZE startchar;
  int has_mark; /* a mark name after a successful match */
  uint32_t mark_len;
  uint8_t mark[256]; /* mark names are at most 255 code units */
  PCRE2_SIZE ov[2 * PJ_MAX_PAIRS];
  char markstr[4 * 256 + 1]; /* what the observers return */
  char summary[2 * PJ_MAX_PAIRS * 22 + 4 * 256 + 64];
};

/* Printable ASCII as is, anything else (and the backslash) as \xNN; dst
 * has room for 4 * n + 1 bytes. Returns the length written. */
static inline size_t pj__esc(char *dst, const uint8_t *p, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
      dst[k++] = (char)p[i];
    else
      k += (size_t)sprintf(dst + k, "\\x%02x", p[i]);
  }
  dst[k] = 0;
  return k;
}

/* ---- compiling ---------------------------------------------------------- */

/* Documented difference (start-up optimizations): a pattern that may contain
 * (*COMMIT) is compiled with PCRE2_NO_START_OPTIMIZE in both implementations,
 * which pcre2api says makes (*COMMIT) "considered at every possible starting
 * position" whatever the engine. A plain text test: a false positive only
 * turns the optimizations off for that pattern. */
static inline uint32_t pj__options(const uint8_t *pat, size_t len, uint32_t opts) {
  static const char verb[] = "COMMIT";
  for (size_t i = 0; i + sizeof verb - 1 <= len; i++)
    if (memcmp(pat + i, verb, sizeof verb - 1) == 0) return opts | PCRE2_NO_START_OPTIMIZE;
  return opts;
}

/* First implementation: pcre2_compile only (pcre2_match then always runs the
 * interpreter). The pattern is passed with its length, as seeds/pcre2 does (10.42 reads
 * one byte past a pattern that ends inside "(*LIMIT_MATCH=" and the like:
 * seeds/pcre2/bugs/limit-match-overread.seq, set aside in campaigns by
 * bench/known-patterns/pcre2-jit). */
static inline pcre2_code *pj_compile(const uint8_t *pat, size_t len, uint32_t opts,
                                     pcre2_compile_context *cc, int *err, size_t *erroff) {
  PCRE2_SIZE off = 0;
  pcre2_code *c = pcre2_compile(pat, len, pj__options(pat, len, opts), err, &off, cc);
  *erroff = off;
  return c;
}

/* JIT for all three modes (pcre2partial: partial matches run the JIT only
 * when their mode was compiled). A failed pcre2_jit_compile is not an error
 * (unsupported item, pattern too big): pcre2_match then falls back to the
 * interpreter, as documented, and both implementations agree trivially. */
static inline void pj__jit(pcre2_code *c) {
  if (c) pcre2_jit_compile(c, PCRE2_JIT_COMPLETE | PCRE2_JIT_PARTIAL_SOFT | PCRE2_JIT_PARTIAL_HARD);
}

/* Second implementation: pcre2_compile, then pcre2_jit_compile. */
static inline pcre2_code *pj_compile_jit(const uint8_t *pat, size_t len, uint32_t opts,
                                         pcre2_compile_context *cc, int *err, size_t *erroff) {
  pcre2_code *c = pj_compile(pat, len, opts, cc, err, erroff);
  pj__jit(c);
  return c;
}

/* pcre2_code_copy does not copy JIT data (pcre2api): the second
 * implementation JIT-compiles the copy, as an application would. */
static inline pcre2_code *pj_code_copy(const pcre2_code *c) {
  return pcre2_code_copy(c);
}
static inline pcre2_code *pj_code_copy_jit(const pcre2_code *c) {
  pcre2_code *d = pcre2_code_copy(c);
  pj__jit(d);
  return d;
}

static inline pcre2_compile_context *pj_compile_context_create(void) {
  return pcre2_compile_context_create(NULL);
}

/* Number of capture groups (the same compiled pattern in both). */
static inline int pj_capture_count(const pcre2_code *c) {
  uint32_t n = 0;
  if (pcre2_pattern_info(c, PCRE2_INFO_CAPTURECOUNT, &n) != 0) return -1;
  return (int)n;
}

/* ---- match contexts ----------------------------------------------------- */

static inline pcre2_match_context *pj_match_context_create(void) {
  return pcre2_match_context_create(NULL);
}

/* One JIT stack of 1 MiB for the whole process (pcre2jit: "512KiB to 1MiB
 * should be more than enough for any pattern"); matches run one at a time. */
static inline pcre2_jit_stack *pj__stack(void) {
  static pcre2_jit_stack *s;
  if (!s) s = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
  return s;
}

/* Second implementation: the context also gets the big JIT stack (the
 * interpreter ignores it). */
static inline pcre2_match_context *pj_match_context_create_jit(void) {
  pcre2_match_context *m = pcre2_match_context_create(NULL);
  if (m) pcre2_jit_stack_assign(m, NULL, pj__stack());
  return m;
}

/* Callouts return `ret`, 0 (go on) or 1 (fail at this point, "as if a
 * lookahead assertion had failed"); the value travels in the data pointer. */
static int pj__callout(pcre2_callout_block *b, void *data) {
  (void)b;
  return (int)(intptr_t)data;
}
static inline int pj_set_callout(pcre2_match_context *m, int32_t ret) {
  return pcre2_set_callout(m, pj__callout, (void *)(intptr_t)ret);
}

/* ---- match data --------------------------------------------------------- */

static inline struct pj_md *pj__md_new(pcre2_match_data *md) {
  struct pj_md *m;
  if (!md) return NULL;
  m = calloc(1, sizeof *m);
  if (!m) {
    pcre2_match_data_free(md);
    return NULL;
  }
  m->md = md;
  m->rc = PCRE2_ERROR_NOMATCH; /* "no match yet": nothing to observe */
  return m;
}
static inline struct pj_md *pj_match_data_create(uint32_t pairs) {
  return pj__md_new(pcre2_match_data_create(pairs, NULL));
}
static inline struct pj_md *pj_match_data_create_from_pattern(const pcre2_code *c) {
  return pj__md_new(pcre2_match_data_create_from_pattern(c, NULL));
}
static inline void pj_match_data_free(struct pj_md *m) {
  pcre2_match_data_free(m->md);
  free(m);
}

/* Take the snapshot of a match that returned rc, with what pcre2api says is
 * defined after it: after a match (rc > 0) the pairs of every group up to
 * the pattern's highest (unused ones are PCRE2_UNSET: "Offset values that
 * correspond to unused groups at the end of the expression are also set to
 * PCRE2_UNSET"), after rc == 0 (ovector too small) all pairs; after a
 * partial match the first pair; startchar after both. The mark only after a
 * match: after a no-match or partial match it is "the last encountered
 * name", which depends on the start-up optimizations (documented
 * difference, see the top of this file). */
static inline int pj__snap(struct pj_md *m, const pcre2_code *c, int rc) {
  uint32_t cap = 0, n = 0, count = pcre2_get_ovector_count(m->md);
  PCRE2_SPTR mark;
  m->rc = rc;
  m->has_mark = 0;
  m->npairs = 0;
  m->startchar = 0;
  if (rc >= 0) {
    pcre2_pattern_info(c, PCRE2_INFO_CAPTURECOUNT, &cap);
    n = rc == 0 ? count : (cap + 1 < count ? cap + 1 : count);
  } else if (rc == PCRE2_ERROR_PARTIAL) {
    n = 1;
  }
  if (n > PJ_MAX_PAIRS) n = PJ_MAX_PAIRS;
  if (n) {
    memcpy(m->ov, pcre2_get_ovector_pointer(m->md), 2 * n * sizeof m->ov[0]);
    m->startchar = pcre2_get_startchar(m->md);
  }
  m->npairs = n;
  if (rc >= 0 && (mark = pcre2_get_mark(m->md)) != NULL) {
    /* "The length of the name ... is stored in the code unit that precedes
     * the name." */
    m->has_mark = 1;
    m->mark_len = mark[-1];
    memcpy(m->mark, mark, m->mark_len);
  }
  return rc;
}

/* ---- matching ----------------------------------------------------------- */

/* Results that say a resource ran out rather than answer the question. */
static inline int pj__is_limit(int rc) {
  return rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
         rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT ||
         rc == PCRE2_ERROR_NOMEMORY;
}

/* First implementation: pcre2_match on a pattern without JIT data, so the
 * interpreter. */
static inline int pj_match(const pcre2_code *c, const uint8_t *subj, size_t len, size_t start,
                           uint32_t opts, struct pj_md *m, pcre2_match_context *mc) {
  return pj__snap(m, c, pcre2_match(c, subj, len, start, opts, m->md, mc));
}

/* Second implementation: pcre2_match on the JIT-compiled pattern (the JIT
 * runs unless the options are ones JIT does not support, then pcre2_match
 * itself falls back to the interpreter: documented).
 * Documented difference (resource limits): the JIT answer is compared only
 * when both engines answer. So the interpreter runs first (PCRE2_NO_JIT): if
 * it runs out of a resource, its result is the result (the first
 * implementation reports exactly that); if only the JIT runs out (counted
 * differently, or JIT stack), the interpreter's answer is, as an application
 * falling back to PCRE2_NO_JIT gets. The interpreter runs on the caller's
 * block, as in the first implementation: 10.42 keeps the interpreter's
 * backtracking frames in the match data and only checks the heap limit when
 * it grows them, so whether PCRE2_ERROR_HEAPLIMIT comes depends on the
 * block's earlier matches (the JIT does not use that vector). */
static inline int pj_match_jit(const pcre2_code *c, const uint8_t *subj, size_t len, size_t start,
                               uint32_t opts, struct pj_md *m, pcre2_match_context *mc) {
  int ri, rj;
  ri = pcre2_match(c, subj, len, start, opts | PCRE2_NO_JIT, m->md, mc);
  if (pj__is_limit(ri)) {
    rj = ri;
  } else {
    rj = pcre2_match(c, subj, len, start, opts, m->md, mc);
    if (pj__is_limit(rj)) /* the JIT ran out: the interpreter's answer */
      rj = pcre2_match(c, subj, len, start, opts | PCRE2_NO_JIT, m->md, mc);
  }
  return pj__snap(m, c, rj);
}

/* pcre2_substitute (it matches through pcre2_match, so the JIT runs in the
 * second implementation) into a 4096-unit buffer; the result is a string
 * "rc=N len=L out=..." (freed with free). No match data is passed (10.42
 * leaves a wrong result code in it: seeds/pcre2/bugs/substitute-md-rc.seq). */
static inline char *pj__substitute(const pcre2_code *c, const uint8_t *subj, size_t len,
                                   size_t start, uint32_t opts, pcre2_match_context *mc,
                                   const uint8_t *repl, size_t rlen, int *rc_out) {
  enum { CAP = 4096 };
  PCRE2_UCHAR *out = malloc(CAP);
  PCRE2_SIZE outlen = CAP;
  char *s;
  int rc;
  if (!out) return NULL;
  rc = pcre2_substitute(c, subj, len, start, opts, NULL, mc, repl, rlen, out, &outlen);
  *rc_out = rc;
  s = malloc(64 + 4 * CAP);
  if (s) {
    size_t k = (size_t)snprintf(s, 64, "rc=%d len=%zu out=", rc, (size_t)outlen);
    /* The output is defined only on success (rc >= 0). */
    pj__esc(s + k, out, rc >= 0 && outlen <= CAP ? outlen : 0);
  }
  free(out);
  return s;
}
static inline char *pj_substitute(const pcre2_code *c, const uint8_t *subj, size_t len,
                                  size_t start, uint32_t opts, pcre2_match_context *mc,
                                  const uint8_t *repl, size_t rlen) {
  int rc;
  return pj__substitute(c, subj, len, start, opts, mc, repl, rlen, &rc);
}
/* Second implementation, with the resource-limit rule of pj_match_jit. */
static inline char *pj_substitute_jit(const pcre2_code *c, const uint8_t *subj, size_t len,
                                      size_t start, uint32_t opts, pcre2_match_context *mc,
                                      const uint8_t *repl, size_t rlen) {
  int ri, rj;
  char *si = pj__substitute(c, subj, len, start, opts | PCRE2_NO_JIT, mc, repl, rlen, &ri), *sj;
  if (!si || pj__is_limit(ri)) return si;
  sj = pj__substitute(c, subj, len, start, opts, mc, repl, rlen, &rj);
  if (!sj || pj__is_limit(rj)) {
    free(sj);
    return si;
  }
  free(si);
  return sj;
}

/* ---- observers (of the snapshot) ---------------------------------------- */

static inline int pj_rc(struct pj_md *m) {
  return m->rc;
}
static inline size_t pj_startchar(struct pj_md *m) {
  return m->npairs ? m->startchar : 0;
}
/* ovector[2*pair + which] of the snapshot; PCRE2_UNSET beyond it. */
static inline size_t pj_ovector(struct pj_md *m, uint32_t pair, uint32_t which) {
  return pair < m->npairs ? m->ov[2 * pair + (which & 1)] : PCRE2_UNSET;
}
/* The mark name after a successful match ("" when there is none). */
static inline const char *pj_mark(struct pj_md *m) {
  pj__esc(m->markstr, m->mark, m->has_mark ? m->mark_len : 0);
  return m->markstr;
}
/* Everything in one line: "rc=2 start=0 0-5 2-3 - mark=A". */
static inline const char *pj_summary(struct pj_md *m) {
  char *s = m->summary;
  size_t k = (size_t)sprintf(s, "rc=%d", m->rc);
  if (m->npairs) k += (size_t)sprintf(s + k, " start=%zu", (size_t)m->startchar);
  for (uint32_t i = 0; i < m->npairs; i++) {
    if (m->ov[2 * i] == PCRE2_UNSET)
      k += (size_t)sprintf(s + k, " -");
    else
      k += (size_t)sprintf(s + k, " %zu-%zu", (size_t)m->ov[2 * i], (size_t)m->ov[2 * i + 1]);
  }
  if (m->has_mark) sprintf(s + k, " mark=%s", pj_mark(m));
  return s;
}

#endif
