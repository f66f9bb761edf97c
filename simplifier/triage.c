#include "triage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/sf_clock.h"

/* A report's stacks: the crash stack, and when present the "freed by" and
 * "previously allocated by" stacks, each as API function names of the
 * grammar, outermost last (the order the sanitizer prints). */
#define MAX_FRAMES 32
typedef struct stack {
  int32_t funcs[MAX_FRAMES]; /* API function indexes (-1: not an API function) */
  char names[MAX_FRAMES][96];
  char files[MAX_FRAMES][64]; /* the frame's source file, base name */
  unsigned n;
  bool via_cleanup; /* passes through seqfuzz's end-of-run destruction */
} stack;

typedef struct report {
  stack crash, freed, alloc;
  bool has_freed, has_alloc;
  unsigned long long address;
  char kind[64];
} report;

static void parse_frame(const sf_api *api, const char *line, stack *st) {
  const char *in = strstr(line, " in ");
  if (!in || st->n >= MAX_FRAMES) return;
  in += 4;
  size_t k = strcspn(in, " \n");
  char fn[96];
  snprintf(fn, sizeof fn, "%.*s", (int)(k < 95 ? k : 95), in);
  if (strcmp(fn, "call_destructor") == 0 || strcmp(fn, "cleanup") == 0) st->via_cleanup = true;
  snprintf(st->names[st->n], sizeof st->names[0], "%s", fn);
  /* " /path/to/file.c:12:5" after the name (or "(module+0x...)"). */
  const char *w = in + k, *file = w + strspn(w, " ");
  size_t fl = strcspn(file, ":\n (");
  for (const char *q = file + fl; q > file; q--)
    if (q[-1] == '/') {
      fl -= (size_t)(q - file);
      file = q;
      break;
    }
  snprintf(st->files[st->n], sizeof st->files[0], "%.*s", (int)(fl < 63 ? fl : 63), file);
  st->funcs[st->n++] = sf_api_find_func(api, fn);
}

static void parse_report(const sf_api *api, const char *text, report *r) {
  memset(r, 0, sizeof *r);
  stack *cur = NULL;
  const char *p = text;
  bool crash_done = false;
  while (p && *p) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)(n < 1023 ? n : 1023), p);
    const char *m;
    if ((m = strstr(line, "ERROR: AddressSanitizer: "))) {
      m += strlen("ERROR: AddressSanitizer: ");
      if (strncmp(m, "attempting ", 11) == 0) m += 11; /* "attempting double-free" */
      snprintf(r->kind, sizeof r->kind, "%.*s", (int)strcspn(m, " "), m);
      const char *addr = strstr(line, "address 0x");
      if (addr) r->address = strtoull(addr + 8, NULL, 16);
      cur = &r->crash;
    } else if (strstr(line, "ERROR: LeakSanitizer")) {
      snprintf(r->kind, sizeof r->kind, "leak");
    } else if (strstr(line, "leak of") && strstr(line, "allocated from")) {
      if (!r->has_alloc) {
        r->has_alloc = true;
        cur = &r->alloc;
      } else {
        cur = NULL;
      }
    } else if (strstr(line, "freed by thread")) {
      r->has_freed = true;
      cur = &r->freed;
    } else if (strstr(line, "allocated by thread")) { /* "previously allocated by", too */
      r->has_alloc = true;
      cur = &r->alloc;
    } else if ((m = strstr(line, "runtime error: "))) {
      snprintf(r->kind, sizeof r->kind, "ubsan");
      cur = &r->crash; /* its stack follows, when printed */
    } else if (strstr(line, "ERROR: libFuzzer: ") || strstr(line, "ERROR: seqfuzz: ")) {
      cur = &r->crash; /* a deadly signal, a timeout: the stack follows */
    } else {
      const char *q = line;
      while (*q == ' ')
        q++;
      if (*q == '#' && cur && !(cur == &r->crash && crash_done)) {
        parse_frame(api, line, cur);
      } else if (cur == &r->crash && r->crash.n) {
        crash_done = true; /* the crash stack ends at the first non-frame line */
        cur = NULL;
      }
    }
    p = nl ? nl + 1 : NULL;
  }
}

/* The outermost API function of a stack (the one the sequence called). */
static int32_t outermost_api(const stack *st) {
  for (unsigned i = st->n; i-- > 0;)
    if (st->funcs[i] >= 0) return st->funcs[i];
  return -1;
}

static bool stack_has(const stack *st, int32_t func) {
  for (unsigned i = 0; i < st->n; i++)
    if (st->funcs[i] == func) return true;
  return false;
}

static bool borrows_handle_of(const sf_func *g, uint32_t htype) {
  for (uint32_t i = 0; i < g->nparams; i++)
    if (g->params[i].kind == SF_HANDLE && sf_param_is_input(&g->params[i]) &&
        g->params[i].type_index == htype && !(g->params[i].flags & SF_P_CONSUME))
      return true;
  return false;
}

/* out = s with argument j of call ci given a second value in the state of
 * the first: just before ci, the call that made it and every later call
 * that took it (its history: the adds that filled a set) are made again on
 * a new value, which call ci then gets. -1 when that is no valid sequence
 * of the same calls plus the history. */
static int remake_before(const sf_seq *s, uint32_t ci, uint32_t j, sf_seq *out) {
  const sf_arg *a = sf_seq_args(s, ci);
  uint64_t v = a[j].bits;
  uint32_t p = s->vals[v].call, first = s->calls[ci].val0;
  uint64_t *map = malloc(((size_t)s->nvals + 1) * sizeof *map);
  if (!map) return -1;
  sf_seq_clear(out);
  out->observed = s->observed;
  for (uint32_t x = 0; x <= s->nvals; x++)
    map[x] = x;
  bool ok = true;
  for (uint32_t c = 0; c < ci && ok; c++)
    ok = sf_seq_append_from(out, s, c, map) != NULL;
  /* The history, on the new value: map v to it once its producer ran. */
  uint64_t remade = first + (v - s->calls[p].val0);
  uint32_t nhist = 0;
  for (uint32_t c = p; c < ci && ok; c++) {
    const sf_func *f = sf_seq_func(s, c);
    const sf_arg *ca = sf_seq_args(s, c);
    bool takes_v = c == p, consumes_other = false;
    for (uint32_t k = 0; k < f->nparams; k++) {
      if (f->params[k].kind != SF_HANDLE || !sf_param_is_input(&f->params[k])) continue;
      if (ca[k].bits == v)
        takes_v = true;
      else if (f->params[k].flags & SF_P_CONSUME)
        consumes_other = true;
    }
    if (c == p && consumes_other) ok = false;        /* cannot be made twice */
    if (!ok || !takes_v || consumes_other) continue; /* what it consumed is gone */
    ok = sf_seq_append_from(out, s, c, map) != NULL;
    nhist++;
    if (c == p) map[v] = remade;
  }
  uint32_t extra = out->nvals - first;
  for (uint32_t x = 0; x <= s->nvals; x++)
    map[x] = x < first ? x : x + extra;
  for (uint32_t c = ci; c < s->ncalls && ok; c++) {
    sf_arg *na = sf_seq_append_from(out, s, c, map);
    ok = na != NULL;
    if (ok && c == ci) na[j].bits = remade;
  }
  free(map);
  return ok && sf_seq_repair(out) == 0 && out->ncalls == s->ncalls + nhist &&
                 sf_seq_validate(out, NULL, 0) == 0
             ? 0
             : -1;
}

/* out = s with argument j of call ci replaced by the k-th other handle of
 * the same type alive there. -1 when there is none or it is not valid. */
static int other_alive(const sf_seq *s, uint32_t ci, uint32_t i, uint32_t j, uint32_t k,
                       sf_seq *out) {
  const sf_arg *a = sf_seq_args(s, ci);
  sf_life life;
  sf_life_init(&life, s->api);
  int rc = 0;
  for (uint32_t c = 0; c < ci && rc == 0; c++)
    rc = sf_life_apply(&life, s->calls[c].func, sf_seq_args(s, c));
  uint32_t cand[16], n = rc ? 0 : sf_life_candidates(&life, s->vals[a[j].bits].htype, cand, 16);
  sf_life_free(&life);
  for (uint32_t m = 0; m < n && m < 16; m++) {
    if (cand[m] == a[i].bits || k-- > 0) continue;
    if (sf_seq_copy(out, s) != 0) return -1;
    sf_seq_args(out, ci)[j].bits = cand[m];
    return sf_seq_repair(out) == 0 && sf_seq_validate(out, NULL, 0) == 0 ? 0 : -1;
  }
  return -1;
}

/* Does the crash of s (signature sig) happen without the alias of
 * arguments i and j of call ci? Tried with a second value made the way the
 * first was, then with up to two others alive at that point. */
static bool crashes_without_alias(const sf_seq *s, uint32_t ci, uint32_t i, uint32_t j,
                                  sf_runner *runner, const sf_signature *sig) {
  if (!runner) return false;
  sf_seq v;
  sf_seq_init(&v, s->api);
  bool same = false;
  for (uint32_t attempt = 0; attempt < 3 && !same; attempt++) {
    int built =
        attempt == 0 ? remake_before(s, ci, j, &v) : other_alive(s, ci, i, j, attempt - 1, &v);
    sf_buf enc = {0};
    sf_signature got;
    same = built == 0 && sf_seq_encode(&v, &enc) == 0 &&
           sf_runner_run(runner, enc.data, enc.len, &got, NULL) == 0 &&
           sf_signature_equal(&got, sig);
    sf_buf_free(&enc);
  }
  sf_seq_free(&v);
  return same;
}

/* The description's header (glue: C the grammar's author wrote) whose base
 * name is file, or NULL. */
static const char *glue_header(const sf_api *api, const char *file) {
  for (uint32_t h = 0; h < api->nheaders; h++) {
    const char *base = strrchr(api->headers[h], '/');
    base = base ? base + 1 : api->headers[h];
    if (strcmp(base, file) == 0) return api->headers[h];
  }
  return NULL;
}

/* Is the innermost frame of the crash inside the target in a glue header?
 * Its function (and the header in *file), or NULL. */
static const char *glue_frame(const sf_api *api, const report *r, const sf_signature *sig,
                              const char **file) {
  if (!sig->nframes) return NULL;
  for (unsigned k = 0; k < r->crash.n; k++)
    if (strcmp(r->crash.names[k], sig->frames[0]) == 0)
      return (*file = glue_header(api, r->crash.files[k])) ? r->crash.names[k] : NULL;
  return NULL;
}

/* A buffer overflow in the library, called by a glue function, on a block
 * the glue or seqfuzz's executor allocated (an argument whose length the
 * glue passed): the glue function, or NULL. */
static const char *overrun_through_glue(const sf_api *api, const report *r, const char **file) {
  if (!strstr(r->kind, "buffer-overflow") || !r->has_alloc) return NULL;
  const char *glue = NULL;
  for (unsigned k = 1; k < r->crash.n && !glue; k++)
    if ((*file = glue_header(api, r->crash.files[k]))) glue = r->crash.names[k];
  if (!glue) return NULL;
  for (unsigned k = 0; k < r->alloc.n; k++) {
    const char *where = r->alloc.files[k];
    if (!where[0] || strstr(where, ".cpp"))
      continue; /* malloc and its kin: the sanitizer's, no source of the target */
    return glue_header(api, where) || strcmp(where, "exec.c") == 0 ? glue : NULL;
  }
  return NULL;
}

/* The handle type f makes (its result, else its one out handle), or -1. */
static int32_t made_type(const sf_func *f) {
  if (f->ret.kind == SF_HANDLE) return (int32_t)f->ret.type_index;
  int32_t t = -1;
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].kind == SF_HANDLE && (f->params[i].flags & SF_P_OUT)) {
      if (t >= 0) return -1;
      t = (int32_t)f->params[i].type_index;
    }
  return t;
}

static bool makes_type(const sf_func *f, uint32_t htype) {
  if (f->ret.kind == SF_HANDLE && f->ret.type_index == htype) return true;
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].kind == SF_HANDLE && (f->params[i].flags & SF_P_OUT) &&
        f->params[i].type_index == htype)
      return true;
  return false;
}

/* Was value v (made by call vals[v].call) made from, or later handed
 * together with, a handle of type htype (a blob opened on a connection; a
 * cursor attached to a list)? */
static bool tied_to(const sf_seq *s, uint32_t v, uint32_t htype) {
  for (uint32_t ci = s->vals[v].call; ci < s->ncalls; ci++) {
    const sf_func *f = sf_seq_func(s, ci);
    const sf_arg *a = sf_seq_args(s, ci);
    bool has_v = ci == s->vals[v].call, has_h = false;
    for (uint32_t k = 0; k < f->nparams; k++) {
      if (f->params[k].kind != SF_HANDLE || !sf_param_is_input(&f->params[k]) ||
          a[k].bits == SF_NULL_REF)
        continue;
      has_v |= a[k].bits == v;
      has_h |= a[k].bits != v && s->vals[a[k].bits].htype == htype;
    }
    if (has_v && has_h) return true;
  }
  return false;
}

/* Does func take a handle of a type of which s has a value tied to a handle
 * of type htype (tied_to)? The call of func may be the cleanup's. */
static bool works_on_made_from(const sf_seq *s, uint32_t func, uint32_t htype) {
  const sf_func *f = &s->api->funcs[func];
  for (uint32_t i = 0; i < f->nparams; i++) {
    if (f->params[i].kind != SF_HANDLE || !sf_param_is_input(&f->params[i])) continue;
    for (uint32_t v = 0; v < s->nvals; v++)
      if (s->vals[v].htype == f->params[i].type_index && tied_to(s, v, htype)) return true;
  }
  return false;
}

/* Does variant v (valid) of a crashing sequence still crash with signature
 * sig? */
static bool variant_crashes(const sf_seq *v, sf_runner *runner, const sf_signature *sig) {
  sf_buf enc = {0};
  sf_signature got;
  bool same = sf_seq_encode(v, &enc) == 0 &&
              sf_runner_run(runner, enc.data, enc.len, &got, NULL) == 0 &&
              sf_signature_equal(&got, sig);
  sf_buf_free(&enc);
  return same;
}

/* Does a type of handle h have an integer state observer (a length, a
 * count: what an index could be bounded by)? */
static bool has_int_observer(const sf_api *api, uint32_t h) {
  for (uint32_t fi = 0; fi < api->nfuncs; fi++)
    if (sf_func_state_observer(&api->funcs[fi]) == (int32_t)h &&
        sf_kind_is_int(api->funcs[fi].ret.kind))
      return true;
  return false;
}

/* An out-of-bounds access in the called function whose crash needs an
 * integer argument of the last call: with that argument at its smallest
 * legal value the crash goes away. An index or a range the documentation
 * bounds (i < list_len(l), lo <= hi) that the grammar leaves open looks like
 * this. The parameter's index, or -1. Only a function that takes a handle
 * whose state an integer observer reports (a bound the index could have). */
/* Does the crash of s (signature sig) go away with integer argument pi of
 * its last call at its lowest legal value (0, or the nearest legal one)?
 * False when that is the value it has. */
static bool gone_at_lowest(const sf_seq *s, uint32_t pi, sf_runner *runner,
                           const sf_signature *sig) {
  const sf_param *p = &sf_seq_func(s, s->ncalls - 1)->params[pi];
  uint64_t low = sf_arg_prim_repair(s->api, p, 0);
  if (low == sf_seq_args(s, s->ncalls - 1)[pi].bits) return false;
  sf_seq v;
  sf_seq_init(&v, s->api);
  bool gone = false;
  if (sf_seq_copy(&v, s) == 0) {
    sf_seq_args(&v, v.ncalls - 1)[pi].bits = low;
    gone = sf_seq_validate(&v, NULL, 0) == 0 && !variant_crashes(&v, runner, sig);
  }
  sf_seq_free(&v);
  return gone;
}

static int32_t value_sensitive_arg(const sf_seq *s, int32_t called, sf_runner *runner,
                                   const sf_signature *sig) {
  if (!runner || !s->ncalls || called < 0 || s->calls[s->ncalls - 1].func != (uint32_t)called)
    return -1;
  const sf_api *api = s->api;
  const sf_func *f = &api->funcs[called];
  bool bounded = false;
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].kind == SF_HANDLE && sf_param_is_input(&f->params[i]) &&
        has_int_observer(api, f->params[i].type_index))
      bounded = true;
  if (!bounded) return -1;
  for (uint32_t i = 0; i < f->nparams; i++)
    if (sf_param_is_input(&f->params[i]) && sf_kind_is_int(f->params[i].kind) &&
        gone_at_lowest(s, i, runner, sig))
      return (int32_t)i;
  return -1;
}

/* Was the block the access went out of an argument seqfuzz's executor
 * allocated? Its size is what the grammar told the library (a buffer and
 * its length, an array, an out buffer): running past it is the library's. */
static bool allocated_by_harness(const report *r) {
  for (unsigned k = 0; r->has_alloc && k < r->alloc.n; k++) {
    const char *where = r->alloc.files[k];
    if (!where[0] || strstr(where, ".cpp")) continue; /* the sanitizer's malloc */
    return strcmp(where, "exec.c") == 0;
  }
  return false;
}

/* From a traced run's report: an integer argument of the last call (the
 * one that crashed) not below an integer state observer of one of its
 * handles ("seqfuzz: state before [N] f: i=3 list_len(l)=2"). Writes the
 * argument, the observer call and both values; false when there is none. */
static bool index_beyond_state(const char *text, uint32_t ncalls, char *arg, char *obs,
                               long long *av, long long *ov) {
  char head[64];
  snprintf(head, sizeof head, "seqfuzz: state before [%u] ", ncalls);
  const char *line = NULL;
  for (const char *p = text; p && (p = strstr(p, head)); p += strlen(head))
    line = p + strlen(head);
  if (!line) return false;
  const char *end = strchr(line, '\n');
  size_t n = end ? (size_t)(end - line) : strlen(line);
  char buf[1024];
  if (n >= sizeof buf) return false;
  memcpy(buf, line, n);
  buf[n] = 0;
  char names[16][96];
  long long vals[16];
  bool is_obs[16];
  unsigned nv = 0;
  for (char *tok = strtok(strchr(buf, ':') ? strchr(buf, ':') + 1 : buf, " "); tok && nv < 16;
       tok = strtok(NULL, " ")) {
    char *eq = strrchr(tok, '=');
    if (!eq) continue;
    *eq = 0;
    snprintf(names[nv], sizeof names[nv], "%s", tok);
    vals[nv] = atoll(eq + 1);
    is_obs[nv++] = strchr(tok, '(') != NULL;
  }
  for (unsigned i = 0; i < nv; i++)
    for (unsigned j = 0; j < nv; j++)
      if (!is_obs[i] && is_obs[j] && vals[i] >= vals[j] && vals[i] >= 0) {
        snprintf(arg, 96, "%s", names[i]);
        snprintf(obs, 96, "%s", names[j]);
        *av = vals[i];
        *ov = vals[j];
        return true;
      }
  return false;
}

/* A string argument of the last call (of function called) that holds a
 * printf conversion, whose crash goes away with its '%' signs replaced: a
 * format passed without the arguments it names. The parameter, or -1. */
static int32_t format_without_args(const sf_seq *s, int32_t called, sf_runner *runner,
                                   const sf_signature *sig) {
  if (!runner || !s->ncalls || s->calls[s->ncalls - 1].func != (uint32_t)called) return -1;
  const sf_func *f = &s->api->funcs[called];
  const sf_arg *a = sf_seq_args(s, s->ncalls - 1);
  for (uint32_t i = 0; i < f->nparams; i++) {
    const sf_param *p = &f->params[i];
    if (p->kind != SF_STRING || !sf_param_is_input(p) || (p->flags & SF_P_PRINTF) || a[i].bits)
      continue;
    const uint8_t *d = sf_seq_bytes(s, &a[i]);
    bool conversion = false;
    for (uint32_t k = 0; k + 1 < a[i].len && !conversion; k++)
      conversion = d[k] == '%' && d[k + 1] != '%';
    if (!conversion) continue;
    sf_seq v;
    sf_seq_init(&v, s->api);
    bool gone = false;
    if (sf_seq_copy(&v, s) == 0) {
      sf_arg *va = &sf_seq_args(&v, v.ncalls - 1)[i];
      uint8_t *copy = malloc(va->len ? va->len : 1);
      if (copy) {
        memcpy(copy, sf_seq_bytes(&v, va), va->len);
        for (uint32_t k = 0; k < va->len; k++)
          if (copy[k] == '%') copy[k] = '_';
        gone = sf_seq_set_bytes(&v, va, copy, va->len) == 0 && sf_seq_validate(&v, NULL, 0) == 0 &&
               !variant_crashes(&v, runner, sig);
        free(copy);
      }
    }
    sf_seq_free(&v);
    if (gone) return (int32_t)i;
  }
  return -1;
}

/* Is the argument named arg of the last call (of function called) an index
 * whose crash the state explains? With a state of ov > 0 elements, the crash
 * must go away with the argument at 0; an empty state (ov == 0) cannot be
 * tested that way, so only an argument named as an index counts. */
static bool index_confirmed(const sf_seq *s, int32_t called, const char *arg, long long ov,
                            sf_runner *runner, const sf_signature *sig) {
  const sf_func *f = &s->api->funcs[called];
  int32_t pi = -1;
  for (uint32_t i = 0; i < f->nparams; i++)
    if (strcmp(f->params[i].name, arg) == 0) pi = (int32_t)i;
  if (pi < 0) return false;
  if (ov == 0) {
    static const char *const index_names[] = {"i",     "idx", "index", "pos",    "position",
                                              "which", "nth", "at",    "offset", "item"};
    for (size_t k = 0; k < sizeof index_names / sizeof *index_names; k++)
      if (strcmp(arg, index_names[k]) == 0) return true;
    return false;
  }
  return runner && gone_at_lowest(s, (uint32_t)pi, runner, sig);
}

/* A function that returns a new caller-owned handle of type h from one it
 * takes of the same C type: a new reference to one object (an incref). */
static bool makes_reference(const sf_api *api, const sf_func *f, uint32_t h) {
  if (f->ret.kind != SF_HANDLE || f->ret.type_index != h || f->owner_param >= 0) return false;
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].kind == SF_HANDLE && sf_param_is_input(&f->params[i]) &&
        strcmp(api->handles[f->params[i].type_index].ctype, api->handles[h].ctype) == 0)
      return true;
  return false;
}

/* Whether the destructor of p's handle type is on the stack. */
static bool destructor_on_stack(const sf_api *api, const stack *st, const sf_param *p) {
  int32_t d = api->handles[p->type_index].destructor;
  return d >= 0 && stack_has(st, d);
}

static sf_verdict classify(const sf_seq *s, const char *text, sf_runner *runner, char *reason,
                           size_t len, char *cause, size_t clen) {
  const sf_api *api = s->api;
  report r;
  parse_report(api, text ? text : "", &r);
  sf_signature sig;
  sf_signature_parse(text, text ? strlen(text) : 0, &sig);
  int32_t called = outermost_api(&r.crash);
  char hint[256] = ""; /* appended to a bug's reason */
  const char *where = called >= 0 ? api->funcs[called].name : "the library";

  /* A crash inside the glue is the description's fault, not the library's. */
  const char *glue_file = NULL, *glue = glue_frame(api, &r, &sig, &glue_file);
  if (glue) {
    snprintf(reason, len,
             "%s in %s, code of the target description (%s), not of the library: fix the glue",
             r.kind[0] ? r.kind : sig.kind, glue, glue_file);
    snprintf(cause, clen, "glue %s", glue);
    return SF_LIKELY_MISUSE;
  }
  if ((glue = overrun_through_glue(api, &r, &glue_file))) {
    snprintf(reason, len,
             "%s in %s on a block the glue function %s (%s) passed it: check the size or "
             "length the glue gives; fix the glue",
             r.kind, sig.nframes ? sig.frames[0] : where, glue, glue_file);
    snprintf(cause, clen, "glue %s", glue);
    return SF_LIKELY_MISUSE;
  }

  /* Aliasing: one handle passed to two parameters of the same call
   * (node_attach(h1, h1)). The grammar cannot forbid it except by consuming
   * one of them, and libraries rarely allow it. Only a call the report's
   * stacks pass through is suspect: an alias elsewhere (diff(x, x) is often
   * legal) says nothing about this crash, and neither does one whose crash
   * stays the same with two different handles (checked with runner). So is
   * one whose handle's destructor crashed (its stack can be too deep to show
   * the cleanup): a node given to itself is a cycle its destructor follows
   * until the stack runs out. */
  for (uint32_t ci = 0; ci < s->ncalls; ci++) {
    const sf_func *f = sf_seq_func(s, ci);
    const sf_arg *a = sf_seq_args(s, ci);
    int32_t fi = (int32_t)s->calls[ci].func;
    bool on_stack = stack_has(&r.crash, fi) || stack_has(&r.freed, fi) || stack_has(&r.alloc, fi);
    for (uint32_t i = 0; i < f->nparams; i++)
      for (uint32_t j = i + 1; j < f->nparams; j++)
        if (f->params[i].kind == SF_HANDLE && f->params[j].kind == SF_HANDLE &&
            sf_param_is_input(&f->params[i]) && sf_param_is_input(&f->params[j]) &&
            a[i].bits != SF_NULL_REF && a[i].bits == a[j].bits &&
            (on_stack || destructor_on_stack(api, &r.crash, &f->params[i])) &&
            !crashes_without_alias(s, ci, i, j, runner, &sig)) {
          snprintf(reason, len,
                   "call %u passes the same handle as '%s' and '%s' of %s; if the library does "
                   "not allow that, the grammar should say so (`requires %s != %s`)",
                   ci + 1, f->params[i].name, f->params[j].name, f->name, f->params[i].name,
                   f->params[j].name);
          snprintf(cause, clen, "alias %s %s %s", f->name, f->params[i].name, f->params[j].name);
          return SF_LIKELY_MISUSE;
        }
  }
  /* Ownership: the freed object is a handle itself (allocated by the call
   * that made it), freed while the grammar says the caller still owned it. */
  if ((strcmp(r.kind, "heap-use-after-free") == 0 || strcmp(r.kind, "double-free") == 0) &&
      r.has_freed && r.has_alloc) {
    int32_t g = outermost_api(&r.freed), c = outermost_api(&r.alloc);
    int32_t made_by_c = c >= 0 ? made_type(&api->funcs[c]) : -1;
    bool made_handle = g >= 0 && made_by_c >= 0;
    uint32_t htype = made_handle ? (uint32_t)made_by_c : 0, made = 0;
    for (uint32_t v = 0; v < s->nvals; v++)
      made += s->vals[v].htype == htype;
    /* Freed and then used inside the one destructor call of the only such
     * handle: the library's own doing, no ownership the grammar got wrong. */
    bool inside_destructor =
        made_handle && g == api->handles[htype].destructor && called == g && made == 1;
    /* Freed by its own destructor (the sequence's call or the cleanup's)
     * and used afterwards by a call on something made from it or attached
     * to it: the grammar let that outlive it. Whether it may is the
     * library's contract, not seqfuzz's to guess. */
    int32_t user = called; /* the call that used it */
    if (made_handle && g == api->handles[htype].destructor && user >= 0 && user != g &&
        works_on_made_from(s, (uint32_t)user, htype)) {
      snprintf(reason, len,
               "a %s freed by its destructor %s was used afterwards by %s: if what %s works on "
               "must not outlive its %s, the grammar should say so (`depends_on`, or `owned_by` "
               "when it dies with it); if the library promises to wait for it, this is a bug",
               api->handles[htype].name, api->funcs[g].name, api->funcs[user].name,
               api->funcs[user].name, api->handles[htype].name);
      snprintf(cause, clen, "outlive %s %s", api->handles[htype].name, api->funcs[user].name);
      return SF_LIKELY_MISUSE;
    }
    /* Freed by the last call, which the grammar lets consume it only when it
     * succeeds, and freed again by the cleanup: the call failed and took it
     * anyway ("even if the function fails"). */
    if (made_handle && g >= 0 && s->ncalls && s->calls[s->ncalls - 1].func == (uint32_t)g &&
        api->funcs[g].err_cmp != SF_CMP_NONE && r.freed.n && r.crash.via_cleanup) {
      const sf_func *gf = &api->funcs[g];
      for (uint32_t i = 0; i < gf->nparams; i++) {
        const sf_param *p = &gf->params[i];
        if (p->kind != SF_HANDLE || p->type_index != htype || !(p->flags & SF_P_CONSUME) ||
            (p->flags & SF_P_STEAL) || (gf->flags & SF_F_DESTRUCTOR))
          continue;
        snprintf(reason, len,
                 "a %s was freed by %s, whose call failed, and again at cleanup: the grammar "
                 "says '%s' is consumed only when %s succeeds; if it takes it even when it "
                 "fails, declare it `steal`",
                 api->handles[htype].name, gf->name, p->name, gf->name);
        snprintf(cause, clen, "steal %s %s", gf->name, p->name);
        return SF_LIKELY_MISUSE;
      }
    }
    /* Freed inside a call on a handle (not its destructor) that a value
     * made from it kept a pointer into, and used by a call on that value
     * (a batch whose list grew under it; a snapshot whose store was
     * compacted): a bug unless the value must have the handle to itself,
     * which only the documentation says. A hint, not a verdict. */
    for (uint32_t h = 0;
         g >= 0 && !made_handle && user >= 0 && user != g && h < api->nhandles && !hint[0]; h++) {
      if (!works_on_made_from(s, (uint32_t)user, h)) continue;
      if (borrows_handle_of(&api->funcs[g], h))
        snprintf(hint, sizeof hint,
                 "; unless what %s works on must have the %s to itself while it lives (the "
                 "grammar should then say `locks` on its maker)",
                 api->funcs[user].name, api->handles[h].name);
      else if (api->handles[h].destructor == g) /* a block the handle held, freed with it */
        snprintf(hint, sizeof hint,
                 "; unless what %s works on must not outlive the %s, or must have it to itself "
                 "while it lives (the grammar should then say `depends_on` or `locks` on its "
                 "maker)",
                 api->funcs[user].name, api->handles[h].name);
    }
    if (made_handle && !inside_destructor) {
      /* Calls of the sequence that took such a handle without consuming it. */
      char suspects[160] = "";
      for (uint32_t ci = 0; ci < s->ncalls; ci++) {
        const sf_func *f = sf_seq_func(s, ci);
        if (f->flags & (SF_F_DESTRUCTOR | SF_F_OBSERVER) || !borrows_handle_of(f, htype)) continue;
        if (strstr(suspects, f->name)) continue;
        size_t n = strlen(suspects);
        snprintf(suspects + n, sizeof suspects - n, "%s%s", n ? ", " : "", f->name);
      }
      snprintf(reason, len,
               "a %s (made by %s) was freed in %s while the grammar says the caller still owned "
               "it%s%s: a call probably took ownership without `consume`",
               api->handles[htype].name, api->funcs[c].name, api->funcs[g].name,
               suspects[0] ? "; calls that took one: " : "", suspects);
      snprintf(cause, clen, "ownership %s", api->handles[htype].name);
      return SF_LIKELY_MISUSE;
    }
  }
  /* Leaks the grammar did not tell seqfuzz to free. */
  if (strcmp(r.kind, "leak") == 0) {
    int32_t c = outermost_api(&r.alloc);
    if (c >= 0) {
      const sf_func *f = &api->funcs[c];
      if (f->ret.kind == SF_STRING && !f->release && f->owner_param < 0) {
        snprintf(reason, len, "the string %s returns is never freed: declare `release` for it",
                 f->name);
        snprintf(cause, clen, "release %s", f->name);
        return SF_LIKELY_MISUSE;
      }
      /* A reference some call made (an incref) that cleanup never released:
       * two values of one object, the second skipped as an alias. */
      uint32_t made = f->ret.kind == SF_HANDLE ? f->ret.type_index : UINT32_MAX;
      for (uint32_t ci = 0; made != UINT32_MAX && ci < s->ncalls; ci++) {
        const sf_func *g = sf_seq_func(s, ci);
        if (api->handles[made].refcounted || !makes_reference(api, g, made)) continue;
        /* The traced run says the result was an object already held. */
        char mark[48];
        snprintf(mark, sizeof mark, "seqfuzz: [%u] ", ci + 1);
        const char *line = text ? strstr(text, mark) : NULL;
        const char *eol = line ? strchr(line, '\n') : NULL;
        const char *same = line ? strstr(line, "(same object as h") : NULL;
        if (!same || (eol && same > eol)) continue;
        snprintf(reason, len,
                 "a %s made by %s leaks after %s gave another reference to it: if the type "
                 "counts references, declare it `refcounted` (cleanup then releases each)",
                 api->handles[made].name, f->name, g->name);
        snprintf(cause, clen, "refcounted %s", api->handles[made].name);
        return SF_LIKELY_MISUSE;
      }
      if (f->ret.kind == SF_HANDLE && f->owner_param < 0 &&
          api->handles[f->ret.type_index].destructor < 0) {
        snprintf(reason, len, "handle type %s (made by %s) has no destructor in the grammar",
                 api->handles[f->ret.type_index].name, f->name);
        snprintf(cause, clen, "destructor %s", api->handles[f->ret.type_index].name);
        return SF_LIKELY_MISUSE;
      }
      snprintf(reason, len,
               "memory allocated in %s is still reachable by nothing after every "
               "handle the caller owns was destroyed",
               f->name);
      return SF_LIKELY_BUG;
    }
  }
  /* A format without its arguments: the parameter should be `printf`. */
  if (called >= 0 && strcmp(r.kind, "leak") != 0) {
    int32_t i = format_without_args(s, called, runner, &sig);
    if (i >= 0) {
      const sf_func *f = &api->funcs[called];
      snprintf(reason, len,
               "%s in %s with a format in '%s' and no arguments for it (without its '%%' signs it "
               "does not crash): if %s is printf-like, declare the parameter `printf`",
               r.kind[0] ? r.kind : "crash", f->name, f->params[i].name, f->name);
      snprintf(cause, clen, "printf %s %s", f->name, f->params[i].name);
      return SF_LIKELY_MISUSE;
    }
  }
  /* NULL passed where the grammar allows it, dereferenced right there. */
  if (strcmp(r.kind, "SEGV") == 0 && r.address < 4096 && called >= 0 && r.crash.n &&
      r.crash.funcs[0] == called) {
    for (uint32_t ci = 0; ci < s->ncalls; ci++) {
      if (s->calls[ci].func != (uint32_t)called) continue;
      const sf_func *f = &api->funcs[called];
      const sf_arg *a = sf_seq_args(s, ci);
      for (uint32_t i = 0; i < f->nparams; i++) {
        const sf_param *p = &f->params[i];
        bool is_null = (p->kind == SF_HANDLE && a[i].bits == SF_NULL_REF) ||
                       (p->kind == SF_STRING && a[i].bits);
        /* Under `default nullable` the library promises NULL everywhere:
         * a crash on it is its bug. */
        if ((p->flags & SF_P_NULLABLE) && is_null && !api->default_nullable) {
          snprintf(reason, len,
                   "%s dereferences NULL passed as '%s', which the grammar declares nullable",
                   f->name, p->name);
          snprintf(cause, clen, "nullable %s %s", f->name, p->name);
          return SF_LIKELY_MISUSE;
        }
      }
    }
  }
  /* An out-of-bounds access that needs an argument's value: an index or a
   * range whose documented bound the grammar does not state. */
  if ((strstr(r.kind, "buffer-overflow") || strcmp(r.kind, "SEGV") == 0 ||
       strstr(text ? text : "", "out of bounds for type")) &&
      called >= 0 && !allocated_by_harness(&r)) {
    char arg[96], obs[96];
    long long av, ov;
    if (index_beyond_state(text ? text : "", s->ncalls, arg, obs, &av, &ov) &&
        index_confirmed(s, called, arg, ov, runner, &sig)) {
      snprintf(reason, len,
               "%s in %s with '%s' = %lld while %s = %lld: if the library documents '%s' below "
               "it, state it (`requires %s < %s`); if %s promises to check it, this is a bug",
               r.kind[0] ? r.kind : "crash", api->funcs[called].name, arg, av, obs, ov, arg, arg,
               obs, api->funcs[called].name);
      snprintf(cause, clen, "requires %s %s", api->funcs[called].name, arg);
      return SF_LIKELY_MISUSE;
    }
    int32_t i = value_sensitive_arg(s, called, runner, &sig);
    if (i >= 0) {
      const sf_func *f = &api->funcs[called];
      snprintf(reason, len,
               "%s in %s needs its argument '%s' at %lld (at its lowest legal value it does not "
               "crash): if the library documents a bound on it (an index below a length, "
               "lo <= hi), state it with `requires`; if %s promises to check it, this is a bug",
               r.kind[0] ? r.kind : "crash", f->name, f->params[i].name,
               (long long)sf_seq_args(s, s->ncalls - 1)[i].bits, f->name);
      snprintf(cause, clen, "requires %s %s", f->name, f->params[i].name);
      return SF_LIKELY_MISUSE;
    }
  }
  /* A size at the top of a declared range asking for too much memory. */
  if ((strcmp(r.kind, "allocation-size-too-big") == 0 ||
       strstr(text ? text : "", "out-of-memory")) &&
      called >= 0) {
    snprintf(reason, len,
             "%s asked for too much memory: the grammar's ranges for its sizes may "
             "be wider than the library accepts",
             where);
    snprintf(cause, clen, "size %s", where);
    return SF_LIKELY_MISUSE;
  }
  /* A bug: say where (the innermost frame in the target, and the API call
   * that led there), and who freed the memory for a use after free. */
  int32_t freer = r.has_freed ? outermost_api(&r.freed) : -1;
  const char *inner = sig.nframes ? sig.frames[0] : where;
  char at[256], freed[128] = "";
  if (r.crash.via_cleanup)
    snprintf(at, sizeof at, "while destroying the handles the caller owned");
  else if (called >= 0 && strcmp(inner, where) != 0)
    snprintf(at, sizeof at, "in %s, called by %s", inner, where);
  else
    snprintf(at, sizeof at, "in %s", inner);
  if (freer >= 0)
    snprintf(freed, sizeof freed, " (freed %sin %s)", r.crash.via_cleanup ? "earlier " : "",
             api->funcs[freer].name);
  snprintf(reason, len, "%s %s%s; every call kept to the grammar's contract%s",
           r.kind[0]     ? r.kind
           : sig.kind[0] ? sig.kind
                         : "crash",
           at, freed, hint);
  return SF_LIKELY_BUG;
}

/* A finding of the oracles: a legal sequence (the grammar's rules held, or
 * it would not have run) whose answers break a rule. */
static bool oracle_reason(const char *report, char *reason, size_t len) {
  sf_signature sig;
  sf_signature_parse(report, strlen(report), &sig);
  if (!sig.oracle) return false;
  const char *k = sig.kind, *fn = sig.frames[0], *which = sig.site;
  if (strcmp(k, "contract-violation") == 0 || strcmp(k, "invariant-violation") == 0)
    snprintf(reason, len,
             "%s of the API (%s) fails after a legal call of %s: a bug of the library, or a "
             "contract that promises more than the library does",
             which, k, fn);
  else if (strcmp(k, "divergence") == 0)
    snprintf(reason, len,
             "the two implementations disagree on the %s of %s in a legal sequence: a bug of "
             "one, unless the difference is documented (then `ignore` or `tolerance` it)",
             which, fn);
  else if (strcmp(k, "nondeterminism") == 0)
    snprintf(reason, len,
             "one sequence run twice gives two answers (%s of %s): state kept between runs, "
             "uninitialized memory, or a clock (`nondeterministic` if by design)",
             which, fn);
  else if (strcmp(k, "impure-observer") == 0)
    snprintf(reason, len,
             "observer %s %s: it is no pure query (a bug, or the grammar should not call it "
             "`observer`)",
             fn, which);
  else
    snprintf(reason, len, "%s %s: the text one function prints, its inverse does not take back", fn,
             which);
  return true;
}

sf_verdict sf_triage_classify(const sf_seq *s, const char *report, sf_runner *runner,
                              sf_triage_finding *out) {
  out->cause[0] = 0;
  if (report && oracle_reason(report, out->reason, sizeof out->reason))
    return out->verdict = SF_LIKELY_BUG;
  out->verdict =
      classify(s, report, runner, out->reason, sizeof out->reason, out->cause, sizeof out->cause);
  if (out->verdict == SF_LIKELY_BUG) out->cause[0] = 0;
  return out->verdict;
}

/* The leaked handle type of a leak report on s, with the functions s calls
 * that do not make that type in called[] (api->nfuncs entries); -1 when
 * the report is no leak of a handle an API call made. */
static int32_t lost_handle(const sf_seq *s, const char *text, uint8_t *called) {
  const sf_api *api = s->api;
  report r;
  parse_report(api, text ? text : "", &r);
  int32_t maker = r.has_alloc ? outermost_api(&r.alloc) : -1;
  int32_t made = maker >= 0 ? made_type(&api->funcs[maker]) : -1;
  if (strcmp(r.kind, "leak") != 0 || made < 0) return -1;
  memset(called, 0, api->nfuncs);
  for (uint32_t ci = 0; ci < s->ncalls; ci++)
    called[s->calls[ci].func] = !makes_type(sf_seq_func(s, ci), (uint32_t)made);
  return made;
}

bool sf_triage_same_root(const sf_seq *a, const char *report_a, const sf_seq *b,
                         const char *report_b) {
  uint32_t n = a->api->nfuncs;
  uint8_t *fa = malloc(n ? n : 1), *fb = malloc(n ? n : 1);
  bool same = false;
  if (fa && fb && a->api == b->api) {
    int32_t ta = lost_handle(a, report_a, fa), tb = lost_handle(b, report_b, fb);
    bool a_in_b = true, b_in_a = true;
    for (uint32_t fi = 0; fi < n; fi++) {
      a_in_b &= !fa[fi] || fb[fi];
      b_in_a &= !fb[fi] || fa[fi];
    }
    same = ta >= 0 && ta == tb && (a_in_b || b_in_a);
  }
  free(fa);
  free(fb);
  return same;
}

/* out = s with only the first `keep` calls of func (the later ones dropped
 * with what depended on them). */
static int keep_repeats(const sf_seq *s, uint32_t func, uint32_t keep, sf_seq *out) {
  sf_seq tmp;
  sf_seq_init(&tmp, s->api);
  int rc = sf_seq_copy(out, s);
  for (;;) {
    uint32_t n = 0, last = 0;
    for (uint32_t ci = 0; ci < out->ncalls; ci++)
      if (out->calls[ci].func == func) n++, last = ci;
    if (rc != 0 || n <= keep) break;
    if ((rc = sf_seq_without_call(out, last, &tmp)) == 0) {
      sf_seq t = *out; /* swap, no copy */
      *out = tmp;
      tmp = t;
    }
  }
  sf_seq_free(&tmp);
  return rc;
}

bool sf_triage_grows_with_repeats(const sf_seq *s, sf_runner *runner, unsigned timeout,
                                  char *reason, size_t len) {
  uint32_t func = 0, most = 0;
  for (uint32_t ci = 0; ci < s->ncalls; ci++) {
    uint32_t n = 0;
    for (uint32_t cj = 0; cj < s->ncalls; cj++)
      n += s->calls[cj].func == s->calls[ci].func;
    if (n > most) most = n, func = s->calls[ci].func;
  }
  if (most < 4) return false;
  /* Binary search for the most repetitions that still end in time (each
   * run that times out costs the limit, so a few runs, not one per count):
   * below it, a timeout; how long that run took tells growth from a hang. */
  uint32_t lo = 0, hi = most; /* lo: not known to time out; hi: times out */
  double lo_took = 0;
  sf_seq v;
  sf_seq_init(&v, s->api);
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    sf_buf enc = {0};
    sf_signature sig;
    double t0 = sf_seconds_now();
    int rc = keep_repeats(s, func, mid, &v) == 0 && sf_seq_encode(&v, &enc) == 0
                 ? sf_runner_run(runner, enc.data, enc.len, &sig, NULL)
                 : -1;
    double took = sf_seconds_now() - t0;
    sf_buf_free(&enc);
    if (rc != 0 || (sig.crashed && strcmp(sig.kind, "timeout") != 0)) {
      lo = hi = 0; /* cannot run it, or another failure: not plain work */
      break;
    }
    if (sig.crashed) {
      hi = mid;
    } else {
      lo = mid;
      lo_took = took;
    }
  }
  sf_seq_free(&v);
  bool grows = lo >= 2 && hi == lo + 1 && lo_took >= timeout / 4.0;
  if (grows)
    snprintf(reason, len,
             "the time grows with the calls of %s: with %u of its %u calls the run took %.1f s "
             "of the %u s limit and ended, with %u it timed out; work the sequence asked for, "
             "not a hang",
             s->api->funcs[func].name, lo, most, lo_took, timeout, hi);
  return grows;
}
