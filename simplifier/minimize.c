#include "minimize.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/sf_hash.h"
#include "../harness/options.h"

typedef struct minimizer {
  const sf_api *api;
  const sf_min_options *opt;
  sf_min_result *res;
  sf_seq cur, cand;
  /* Replacement set: the corpus given, plus one-call sequences made from the
   * grammar (each constructor that needs no handle, with minimal arguments). */
  const sf_seq **repl;
  uint32_t nrepl;
  sf_seq *synth;
  uint32_t nsynth;
  sf_buf enc;
  struct timespec start;
  bool out_of_budget;
  sf_runner *runner;
  sf_hashset *probed; /* materialization probes already run */
  bool avoid_known;   /* opt->known, and the input completes none of them */
} minimizer;

static double elapsed(const minimizer *z) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - z->start.tv_sec) + (double)(now.tv_nsec - z->start.tv_nsec) / 1e9;
}

static void progress(minimizer *z, const char *fmt, ...) {
  if (!z->opt->progress) return;
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  z->opt->progress(z->opt->ctx, line);
}

/* May another run be made? (Sets out_of_budget when not.) */
static bool budget_left(minimizer *z) {
  double max_s = z->opt->max_seconds > 0 ? z->opt->max_seconds : 60;
  uint32_t max_runs = z->opt->max_runs ? z->opt->max_runs : 5000;
  if (z->res->runs >= max_runs || elapsed(z) >= max_s) z->out_of_budget = true;
  return !z->out_of_budget;
}

/* Does s crash the same way (and not as a known bug)? */
static bool same_crash(minimizer *z, sf_seq *s) {
  if (z->avoid_known && sf_known_completes(z->opt->known, s)) {
    z->res->known_refused++;
    return false;
  }
  if (!budget_left(z)) return false;
  s->observed = z->cur.observed; /* candidates run as the input does */
  sf_buf_reset(&z->enc);
  if (sf_seq_encode(s, &z->enc)) return false;
  sf_signature sig;
  z->res->runs++;
  if (sf_runner_run(z->runner, z->enc.data, z->enc.len, &sig, NULL)) return false;
  return sf_signature_equal(&sig, &z->res->sig);
}

/* Accept cand as the new current sequence if it crashes the same way. */
static bool try_cand(minimizer *z) {
  if (sf_seq_repair(&z->cand) < 0) return false;
  if (sf_seq_equal(&z->cand, &z->cur) || !same_crash(z, &z->cand)) return false;
  sf_seq tmp = z->cur;
  z->cur = z->cand;
  z->cand = tmp;
  return true;
}

/* Is cand, repaired, shorter in bytes than cur? */
static bool cand_is_smaller(minimizer *z) {
  sf_buf a = {0}, b = {0};
  bool smaller = sf_seq_repair(&z->cand) >= 0 && sf_seq_encode(&z->cand, &a) == 0 &&
                 sf_seq_encode(&z->cur, &b) == 0 && a.len < b.len;
  sf_buf_free(&a);
  sf_buf_free(&b);
  return smaller;
}

static bool pass_prefix(minimizer *z) {
  uint32_t lo = 1, hi = z->cur.ncalls;
  while (lo < hi && !z->out_of_budget) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (sf_seq_copy(&z->cand, &z->cur)) return false;
    sf_seq_truncate(&z->cand, mid);
    if (same_crash(z, &z->cand))
      hi = mid;
    else
      lo = mid + 1;
  }
  if (hi >= z->cur.ncalls) return false;
  sf_seq_truncate(&z->cur, hi);
  progress(z, "prefix: %u calls", hi);
  return true;
}

static bool pass_remove(minimizer *z) {
  bool any = false;
  for (uint32_t i = z->cur.ncalls; i-- > 0 && !z->out_of_budget;) {
    if (i >= z->cur.ncalls) continue;
    uint32_t before = z->cur.ncalls;
    if (sf_seq_without_call(&z->cur, i, &z->cand) == 0 && try_cand(z)) {
      any = true;
      progress(z, "removal: %u -> %u calls", before, z->cur.ncalls);
    }
  }
  return any;
}

/* Replacement (Pacheco §6.1): call i and the calls that only fed it are
 * replaced by a shorter corpus sequence ending in a value of the same type;
 * every use of i's value then uses that value. */
/* A call of f with the smallest legal arguments, if it needs no handle. */
static bool minimal_call(const sf_api *api, uint32_t fi, sf_seq *s) {
  const sf_func *f = &api->funcs[fi];
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].kind == SF_HANDLE && sf_param_is_input(&f->params[i]) &&
        !(f->params[i].flags & SF_P_NULLABLE))
      return false;
  sf_seq_clear(s);
  sf_arg *a = sf_seq_add_call(s, fi);
  if (!a) return false;
  for (uint32_t i = 0; i < f->nparams; i++) {
    const sf_param *p = &f->params[i];
    if (!sf_param_is_input(p) || p->kind == SF_HANDLE) continue;
    if (p->kind == SF_STRING) continue; /* "" */
    if (p->kind == SF_BUFFER || p->kind == SF_ARRAY) {
      uint64_t lo = p->array_len, hi = p->array_len;
      if (p->kind == SF_BUFFER) sf_seq_buffer_bounds(f, p, &lo, &hi);
      uint8_t zeros[256] = {0};
      size_t n = (size_t)lo * sf_kind_size(p->elem);
      if (n > sizeof zeros || sf_seq_set_bytes(s, &a[i], zeros, n)) return false;
      continue;
    }
    a[i].bits = sf_arg_prim_ok(api, p, 0) ? 0 : sf_arg_prim_repair(api, p, p->lo);
  }
  return sf_seq_repair(s) >= 0 && s->ncalls == 1;
}

static void build_replacements(minimizer *z) {
  const sf_api *api = z->api;
  z->synth = calloc(api->nfuncs, sizeof *z->synth);
  z->repl = calloc(api->nfuncs + z->opt->ncorpus, sizeof *z->repl);
  if (!z->synth || !z->repl) return;
  for (uint32_t fi = 0; fi < api->nfuncs; fi++) {
    if (!api->funcs[fi].nproduced) continue;
    sf_seq_init(&z->synth[z->nsynth], api);
    if (minimal_call(api, fi, &z->synth[z->nsynth]))
      z->repl[z->nrepl++] = &z->synth[z->nsynth++];
    else
      sf_seq_free(&z->synth[z->nsynth]);
  }
  for (uint32_t k = 0; k < z->opt->ncorpus; k++)
    z->repl[z->nrepl++] = &z->opt->corpus[k];
}

/* How many earlier calls only fed call i (their values are used by i and by
 * no other call): replacing i makes them unused. */
static uint32_t calls_only_feeding(const sf_seq *s, uint32_t i) {
  uint32_t fed = 0;
  for (uint32_t c = 0; c < i; c++) {
    const sf_func *g = sf_seq_func(s, c);
    if (!g->nproduced) continue;
    bool used_elsewhere = false, used_by_i = false;
    for (uint32_t d = c + 1; d < s->ncalls; d++) {
      const sf_func *h = sf_seq_func(s, d);
      for (uint32_t p = 0; p < h->nparams; p++) {
        if (h->params[p].kind != SF_HANDLE || !sf_param_is_input(&h->params[p])) continue;
        uint64_t v = sf_seq_args(s, d)[p].bits;
        if (v >= s->calls[c].val0 && v < s->calls[c].val0 + g->nproduced) {
          if (d == i)
            used_by_i = true;
          else
            used_elsewhere = true;
        }
      }
    }
    fed += used_by_i && !used_elsewhere;
  }
  return fed;
}

/* cand = cur[0, i) + r + cur(i, end), every use of call i's value taking
 * r's value `stand` instead. false on OOM. */
static bool substitute(minimizer *z, uint32_t i, const sf_seq *r, uint32_t stand) {
  sf_seq_clear(&z->cand);
  uint64_t *map = malloc(((size_t)z->cur.nvals + r->nvals + 1) * sizeof *map);
  if (!map) return false;
  uint64_t *rmap = map + z->cur.nvals + 1;
  for (uint32_t v = 0; v <= z->cur.nvals; v++)
    map[v] = UINT64_MAX - 1;
  bool ok = true;
  for (uint32_t c = 0; c < z->cur.ncalls && ok; c++) {
    if (c == i) {
      for (uint32_t rc = 0; rc < r->ncalls && ok; rc++) {
        uint32_t v0 = z->cand.nvals;
        ok = sf_seq_append_from(&z->cand, r, rc, rmap) != NULL;
        for (uint32_t q = 0; q < sf_seq_func(r, rc)->nproduced; q++)
          rmap[r->calls[rc].val0 + q] = v0 + q;
      }
      map[z->cur.calls[i].val0] = rmap[stand];
      continue;
    }
    uint32_t v0 = z->cand.nvals;
    ok = sf_seq_append_from(&z->cand, &z->cur, c, map) != NULL;
    for (uint32_t q = 0; q < sf_seq_func(&z->cur, c)->nproduced; q++)
      map[z->cur.calls[c].val0 + q] = v0 + q;
  }
  free(map);
  return ok;
}

static bool pass_replace(minimizer *z) {
  if (!z->nrepl) return false;
  bool any = false;
  for (uint32_t i = z->cur.ncalls; i-- > 0 && !z->out_of_budget;) {
    if (i >= z->cur.ncalls) continue;
    const sf_func *f = sf_seq_func(&z->cur, i);
    if (f->nproduced != 1) continue;
    uint32_t htype = z->cur.vals[z->cur.calls[i].val0].htype;
    uint32_t n_removed = 1 + calls_only_feeding(&z->cur, i);
    for (uint32_t k = 0; k < z->nrepl && !z->out_of_budget; k++) {
      const sf_seq *r = z->repl[k];
      if (r->ncalls == 0 || r->ncalls > n_removed || r->api != z->api) continue;
      /* The last value of the right type in r stands in for call i's value. */
      int64_t stand = -1;
      for (uint32_t v = 0; v < r->nvals; v++)
        if (r->vals[v].htype == htype) stand = v;
      if (stand < 0) continue;
      bool ok = substitute(z, i, r, (uint32_t)stand);
      /* The calls that only fed i are now unused: removal drops them. A
       * replacement that removes no call must at least make the input
       * smaller, or replacements would go round in circles. */
      uint32_t before = z->cur.ncalls;
      if (ok && r->ncalls == n_removed && !cand_is_smaller(z)) continue;
      if (ok && try_cand(z)) {
        any = true;
        progress(z, "replacement: call %u by %u corpus call(s), %u -> %u calls", i + 1, r->ncalls,
                 before, z->cur.ncalls);
        pass_remove(z);
        break;
      }
    }
  }
  return any;
}

/* The parser (grammar `inverse_of`) that builds values of handle type htype
 * from a printer's text, or -1. */
static int32_t parser_for(const sf_api *api, uint32_t htype) {
  for (uint32_t fi = 0; fi < api->nfuncs; fi++)
    if (api->funcs[fi].inverse_of >= 0 && api->funcs[fi].ret.kind == SF_HANDLE &&
        api->funcs[fi].ret.type_index == htype)
      return (int32_t)fi;
  return -1;
}

/* What the printer printed for call `call` (1-based) in a traced run's
 * report: its bytes, appended to out. */
static bool read_printed(const char *report, uint32_t call, sf_buf *out) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, SF_TRACE_RESULT "%u: ", call);
  const char *at = report ? strstr(report, prefix) : NULL;
  if (!at) return false;
  at += strlen(prefix);
  return sf_seq_parse_string(at, strcspn(at, "\n"), out) == 0;
}

/* Run `probe` traced (once per distinct probe) and read what its last call,
 * a printer, printed. */
static bool probe_printed(minimizer *z, const sf_seq *probe, sf_buf *out) {
  sf_buf_reset(&z->enc);
  if (sf_seq_validate(probe, NULL, 0) || sf_seq_encode(probe, &z->enc)) return false;
  /* A probe tried in an earlier round failed then: not again. */
  if (!sf_hashset_insert(z->probed, sf_hash_bytes(z->enc.data, z->enc.len, 0)) || !budget_left(z))
    return false;
  sf_signature sig;
  char *report = NULL;
  z->res->runs++;
  bool ok =
      sf_run_traced(z->opt->target, z->enc.data, z->enc.len, z->opt->timeout, &sig, &report) == 0 &&
      read_printed(report, probe->ncalls, out);
  free(report);
  return ok;
}

/* Does call c take a value marked in family[] as an input handle? */
static bool call_uses(const sf_seq *s, uint32_t c, const bool *family) {
  const sf_func *f = sf_seq_func(s, c);
  for (uint32_t q = 0; q < f->nparams; q++)
    if (f->params[q].kind == SF_HANDLE && sf_param_is_input(&f->params[q]) &&
        sf_seq_args(s, c)[q].bits < s->nvals && family[sf_seq_args(s, c)[q].bits])
      return true;
  return false;
}

/* Mark in family[] value v and the values owned by it (transitively: views
 * into a tree); builder[c]: the calls after v's producer and before `end`
 * that take one of them and produce nothing else (AddItemToObject(o, ...),
 * AddNumberToObject(o, ...) returning a view of o). Returns how many. */
static uint32_t find_builders(const sf_seq *s, uint32_t producer, uint32_t end, bool *family,
                              bool *builder) {
  memset(family, 0, s->nvals * sizeof *family);
  memset(builder, 0, s->ncalls * sizeof *builder);
  family[s->calls[producer].val0] = true;
  uint32_t n = 0;
  for (uint32_t c = producer + 1; c < s->ncalls; c++) {
    const sf_func *f = sf_seq_func(s, c);
    bool uses = call_uses(s, c, family);
    bool owned = f->owner_param >= 0 && f->ret.kind == SF_HANDLE &&
                 sf_seq_args(s, c)[f->owner_param].bits < s->nvals &&
                 family[sf_seq_args(s, c)[f->owner_param].bits];
    if (owned) family[s->calls[c].val0] = true;
    if (c < end && uses && (f->nproduced == 0 || (owned && f->nproduced == 1))) {
      builder[c] = true;
      n++;
    }
  }
  return n;
}

/* Materialization: a value that calls built is replaced by one call of its
 * type's parser (grammar `inverse_of`) on the text its printer prints for
 * it just before its last use. The calls that only fed its producer, and
 * the builder calls before that use (find_builders), are then unnecessary:
 * `o = CreateObject(); AddNumberToObject(o, "a", 1); f(o)` becomes
 * `o = cJSON_Parse("{\"a\":1}"); f(o)`. The text comes from a traced run of
 * the calls before that use, followed by the printer. */
static bool pass_materialize(minimizer *z) {
  bool any = false;
  sf_seq probe, r, tmp;
  sf_seq_init(&probe, z->api);
  sf_seq_init(&r, z->api);
  sf_seq_init(&tmp, z->api);
  sf_buf text = {0};
  bool *family = NULL, *builder = NULL;
  for (uint32_t i = z->cur.ncalls; i-- > 0 && !z->out_of_budget;) {
    if (i >= z->cur.ncalls) continue;
    const sf_func *f = sf_seq_func(&z->cur, i);
    if (f->nproduced != 1 || f->ret.kind != SF_HANDLE) continue;
    int32_t pf = parser_for(z->api, f->ret.type_index);
    if (pf < 0) continue;
    free(family);
    free(builder);
    family = calloc(z->cur.nvals + 1, sizeof *family);
    builder = calloc(z->cur.ncalls + 1, sizeof *builder);
    if (!family || !builder) break;
    /* The last use of the value or of a view into it. */
    uint32_t last_use = 0;
    find_builders(&z->cur, i, 0, family, builder);
    for (uint32_t c = i + 1; c < z->cur.ncalls; c++)
      if (call_uses(&z->cur, c, family)) last_use = c;
    uint32_t builders = find_builders(&z->cur, i, last_use, family, builder);
    /* Worth it only if calls go; a parse of the text is no smaller. */
    if (!last_use || (z->cur.calls[i].func == (uint32_t)pf && !builders) ||
        builders + calls_only_feeding(&z->cur, i) == 0)
      continue;
    if (sf_seq_copy(&probe, &z->cur)) break;
    sf_seq_truncate(&probe, last_use);
    sf_arg *a = sf_seq_add_call(&probe, (uint32_t)z->api->funcs[pf].inverse_of);
    if (!a) break;
    a[0].bits = z->cur.calls[i].val0;
    sf_buf_reset(&text);
    bool printed = probe_printed(z, &probe, &text);
    sf_seq_clear(&r);
    sf_arg *pa = printed ? sf_seq_add_call(&r, (uint32_t)pf) : NULL;
    printed = pa && sf_seq_set_bytes(&r, pa, text.data, text.len) == 0 &&
              sf_seq_validate(&r, NULL, 0) == 0;
    if (!printed || !substitute(z, i, &r, r.calls[0].val0)) continue;
    /* r is one call: cand's calls keep cur's indexes. Drop the builders
     * (and what used the views they made), last first. */
    bool ok = true;
    for (uint32_t c = last_use; c-- > i + 1 && ok;) {
      if (!builder[c]) continue;
      ok = sf_seq_without_call(&z->cand, c, &tmp) == 0;
      sf_seq t = z->cand;
      z->cand = tmp;
      tmp = t;
    }
    uint32_t before = z->cur.ncalls;
    if (ok && try_cand(z)) {
      any = true;
      progress(z, "materialization: call %u by %s of its text, %u -> %u calls", i + 1,
               z->api->funcs[pf].name, before, z->cur.ncalls);
      pass_remove(z);
    }
  }
  free(family);
  free(builder);
  sf_buf_free(&text);
  sf_seq_free(&probe);
  sf_seq_free(&r);
  sf_seq_free(&tmp);
  return any;
}

/* The input handle parameter of f, other than `except`, that takes handles
 * of type htype, or -1. */
static int32_t handle_param(const sf_func *f, uint32_t htype, int32_t except) {
  for (uint32_t q = 0; q < f->nparams; q++)
    if ((int32_t)q != except && f->params[q].kind == SF_HANDLE &&
        sf_param_is_input(&f->params[q]) && f->params[q].type_index == htype)
      return (int32_t)q;
  return -1;
}

/* cand = cur with call i replaced by feeder fi giving `bytes` to value dest
 * (through parameters fh, ft), and call `skip` (or none: UINT32_MAX) left
 * out. Neither call produces values, so every value keeps its id. */
static bool build_fed(minimizer *z, uint32_t i, uint32_t fi, int32_t fh, int32_t ft, uint64_t dest,
                      const sf_buf *bytes, uint32_t skip) {
  uint64_t *same = malloc(((size_t)z->cur.nvals + 1) * sizeof *same);
  if (!same) return false;
  for (uint32_t v = 0; v <= z->cur.nvals; v++)
    same[v] = v;
  sf_seq_clear(&z->cand);
  bool ok = true;
  for (uint32_t c = 0; c < z->cur.ncalls && ok; c++) {
    if (c == skip) continue;
    if (c != i) {
      ok = sf_seq_append_from(&z->cand, &z->cur, c, same) != NULL;
      continue;
    }
    sf_arg *a = sf_seq_add_call(&z->cand, fi);
    ok = a && sf_seq_set_bytes(&z->cand, &a[ft], bytes->data, bytes->len) == 0;
    if (ok) a[fh].bits = dest;
  }
  free(same);
  return ok && sf_seq_validate(&z->cand, NULL, 0) == 0;
}

/* Whether an input handle parameter of call ci other than `except` (UINT32_MAX:
 * any) takes value w. */
static bool call_passes(const sf_seq *s, uint32_t ci, uint32_t except, uint64_t w) {
  const sf_func *f = sf_seq_func(s, ci);
  for (uint32_t q = 0; q < f->nparams; q++)
    if (q != except && f->params[q].kind == SF_HANDLE && sf_param_is_input(&f->params[q]) &&
        sf_seq_args(s, ci)[q].bits == w)
      return true;
  return false;
}

/* The call before i of feeder fi on dest whose bytes dest still holds (no
 * call in between takes dest), or UINT32_MAX. */
static uint32_t unconsumed_feed(const sf_seq *s, uint32_t i, uint32_t fi, int32_t fh,
                                uint64_t dest) {
  for (uint32_t c = i; c-- > 0;) {
    if (s->calls[c].func == fi && sf_seq_args(s, c)[fh].bits == dest) return c;
    if (call_passes(s, c, UINT32_MAX, dest)) break;
  }
  return UINT32_MAX;
}

/* Feeding: a call that moved data from one handle into another
 * (`zg_pipe(i, d)`) is replaced by the destination's feeder (grammar
 * `inverse_of` on a function of a handle and bytes) on the bytes the
 * source's printer prints just before that call: `zg_inflate_input(i,
 * x"4a4c...")`. A feeder may replace what the destination holds where the
 * moving call appended to it: then the bytes of an earlier feeder call that
 * nothing consumed since go first, in one call. The calls that only made
 * the source go afterwards (pass_remove). The printed bytes come from a
 * traced run of the calls before, followed by the printer. */
static bool pass_feed(minimizer *z) {
  bool any = false;
  const sf_api *api = z->api;
  sf_seq probe;
  sf_seq_init(&probe, api);
  sf_buf bytes = {0}, both = {0};
  for (uint32_t i = z->cur.ncalls; i-- > 0 && !z->out_of_budget;) {
    if (i >= z->cur.ncalls) continue;
    const sf_func *f = sf_seq_func(&z->cur, i);
    if (f->nproduced) continue; /* the feeder produces nothing either */
    for (uint32_t fi = 0; fi < api->nfuncs && !z->out_of_budget; fi++) {
      const sf_func *feeder = &api->funcs[fi];
      if (feeder->inverse_of < 0 || feeder->ret.kind == SF_HANDLE || fi == z->cur.calls[i].func)
        continue;
      const sf_func *printer = &api->funcs[feeder->inverse_of];
      int32_t fh = -1, ft = -1;
      for (uint32_t q = 0; q < feeder->nparams; q++) {
        if (feeder->params[q].kind == SF_HANDLE) fh = (int32_t)q;
        if (feeder->params[q].kind == SF_STRING || feeder->params[q].kind == SF_BUFFER)
          ft = (int32_t)q;
      }
      int32_t dq = handle_param(f, feeder->params[fh].type_index, -1);
      int32_t sq = dq < 0 ? -1 : handle_param(f, printer->params[0].type_index, dq);
      if (sq < 0) continue;
      uint64_t dest = sf_seq_args(&z->cur, i)[dq].bits, src = sf_seq_args(&z->cur, i)[sq].bits;
      if (dest >= z->cur.nvals || src >= z->cur.nvals) continue;
      if (sf_seq_copy(&probe, &z->cur)) goto out;
      sf_seq_truncate(&probe, i);
      sf_arg *pa = sf_seq_add_call(&probe, (uint32_t)feeder->inverse_of);
      if (!pa) goto out;
      pa[0].bits = src;
      sf_buf_reset(&bytes);
      if (!probe_printed(z, &probe, &bytes)) continue;
      uint32_t before = z->cur.ncalls;
      bool fed = build_fed(z, i, fi, fh, ft, dest, &bytes, UINT32_MAX) && try_cand(z);
      uint32_t j = fed ? UINT32_MAX : unconsumed_feed(&z->cur, i, fi, fh, dest);
      if (j != UINT32_MAX) {
        const sf_arg *held = &sf_seq_args(&z->cur, j)[ft];
        sf_buf_reset(&both);
        fed = sf_buf_append(&both, sf_seq_bytes(&z->cur, held), held->len) == 0 &&
              sf_buf_append(&both, bytes.data, bytes.len) == 0 &&
              build_fed(z, i, fi, fh, ft, dest, &both, j) && try_cand(z);
      }
      if (fed) {
        any = true;
        if (j == UINT32_MAX)
          progress(z, "feeding: call %u by %s of the %zu bytes %s printed", i + 1, feeder->name,
                   bytes.len, printer->name);
        else
          progress(z,
                   "feeding: call %u by %s of the %zu bytes %s printed, after the bytes of "
                   "call %u",
                   i + 1, feeder->name, bytes.len, printer->name, j + 1);
        pass_remove(z);
        if (z->cur.ncalls < before) progress(z, "%u -> %u calls", before, z->cur.ncalls);
        break;
      }
    }
  }
out:
  sf_buf_free(&bytes);
  sf_buf_free(&both);
  sf_seq_free(&probe);
  return any;
}

/* Merge: a handle argument takes an earlier value of the same type. Never
 * one the call already passes elsewhere: f(h, h) reads as misuse (triage
 * says so) when the crash did not need the alias. */
static bool pass_merge(minimizer *z) {
  bool any = false;
  for (uint32_t ci = 0; ci < z->cur.ncalls && !z->out_of_budget; ci++) {
    const sf_func *f = sf_seq_func(&z->cur, ci);
    for (uint32_t p = 0; p < f->nparams && !z->out_of_budget; p++) {
      if (f->params[p].kind != SF_HANDLE || !sf_param_is_input(&f->params[p])) continue;
      uint64_t v = sf_seq_args(&z->cur, ci)[p].bits;
      for (uint64_t w = 0; w < v && w < z->cur.nvals; w++) {
        if (z->cur.vals[w].htype != f->params[p].type_index || call_passes(&z->cur, ci, p, w))
          continue;
        if (sf_seq_copy(&z->cand, &z->cur)) return any;
        sf_seq_args(&z->cand, ci)[p].bits = w;
        if (try_cand(z)) {
          any = true;
          progress(z, "merge: call %u uses an earlier handle", ci + 1);
          break;
        }
      }
    }
  }
  return any;
}

static bool try_bits(minimizer *z, uint32_t ci, uint32_t p, uint64_t bits) {
  if (sf_seq_copy(&z->cand, &z->cur)) return false;
  sf_seq_args(&z->cand, ci)[p].bits = bits;
  return try_cand(z);
}

static bool try_bytes(minimizer *z, uint32_t ci, uint32_t p, const uint8_t *d, size_t n) {
  if (sf_seq_copy(&z->cand, &z->cur)) return false;
  sf_arg *a = &sf_seq_args(&z->cand, ci)[p];
  if (sf_seq_set_bytes(&z->cand, a, d, n)) return false;
  return try_cand(z);
}

/* Strings used by several calls usually have to stay equal (a key put and
 * then deleted): try replacing every occurrence of one at once by "" and "a". */
static bool pass_shrink_shared(minimizer *z) {
  bool any = false;
  static const char *const simpler[] = {"", "a"};
  for (uint32_t ci = 0; ci < z->cur.ncalls && !z->out_of_budget; ci++) {
    const sf_func *f = sf_seq_func(&z->cur, ci);
    for (uint32_t p = 0; p < f->nparams && !z->out_of_budget; p++) {
      const sf_param *pp = &f->params[p];
      if (!sf_param_is_input(pp) || (pp->kind != SF_STRING && pp->kind != SF_BUFFER)) continue;
      sf_arg a = sf_seq_args(&z->cur, ci)[p];
      if (a.len <= 1 || (pp->kind == SF_STRING && a.bits)) continue;
      char value[256];
      if (a.len >= sizeof value) continue;
      memcpy(value, sf_seq_bytes(&z->cur, &a), a.len);
      size_t vlen = a.len;
      for (int k = 0; k < 2; k++) {
        if (sf_seq_copy(&z->cand, &z->cur)) return any;
        for (uint32_t cj = 0; cj < z->cand.ncalls; cj++) {
          const sf_func *g = sf_seq_func(&z->cand, cj);
          for (uint32_t q = 0; q < g->nparams; q++) {
            sf_arg *b = &sf_seq_args(&z->cand, cj)[q];
            bool bytes = g->params[q].kind == SF_STRING || g->params[q].kind == SF_BUFFER;
            if (sf_param_is_input(&g->params[q]) && bytes && b->len == vlen &&
                memcmp(sf_seq_bytes(&z->cand, b), value, vlen) == 0)
              sf_seq_set_bytes(&z->cand, b, simpler[k], strlen(simpler[k]));
          }
        }
        if (try_cand(z)) {
          any = true;
          progress(z, "shrink: every \"%.*s\" -> \"%s\"", (int)vlen, value, simpler[k]);
          break;
        }
      }
    }
  }
  return any;
}

/* A mock's script, record by record: without each record (the calls
 * after it get the answers of the ones before), then each chunk shorter
 * (its length byte with it), which byte-wise cuts rarely find. */
static bool shrink_script(minimizer *z, uint32_t ci, uint32_t p) {
  const sf_param *pp = &sf_seq_func(&z->cur, ci)->params[p];
  const sf_callback *cb = &z->api->callbacks[pp->type_index];
  bool any = false;
  sf_script_record rec[256];
  uint8_t *cand = malloc(SF_MAX_SCRIPT);
  if (!cand) return false;
  for (uint32_t r = UINT32_MAX; !z->out_of_budget;) {
    sf_arg a = sf_seq_args(&z->cur, ci)[p];
    const uint8_t *s = sf_seq_bytes(&z->cur, &a);
    uint32_t n = sf_script_records(cb, s, a.len, rec, 256);
    if (r == UINT32_MAX || r > n) r = n;
    if (r-- == 0) break;
    /* record r out */
    size_t len = 0;
    memcpy(cand, s, rec[r].start);
    len += rec[r].start;
    memcpy(cand + len, s + rec[r].end, a.len - rec[r].end);
    len += a.len - rec[r].end;
    if (try_bytes(z, ci, p, cand, len)) {
      any = true;
      continue;
    }
    /* its chunk halved, while that keeps the crash */
    for (uint32_t keep = rec[r].chunk_len / 2; rec[r].chunk_len && !z->out_of_budget; keep /= 2) {
      a = sf_seq_args(&z->cur, ci)[p];
      s = sf_seq_bytes(&z->cur, &a);
      uint32_t cut = rec[r].chunk_len - keep;
      memcpy(cand, s, a.len);
      cand[rec[r].chunk_off - 1] = (uint8_t)keep;
      memmove(cand + rec[r].chunk_off + keep, cand + rec[r].chunk_off + rec[r].chunk_len,
              a.len - rec[r].chunk_off - rec[r].chunk_len);
      if (!try_bytes(z, ci, p, cand, a.len - cut)) break;
      any = true;
      rec[r].chunk_len = keep;
      if (!keep) break;
    }
  }
  free(cand);
  return any;
}

/* Shrink primitives toward 0 (or the range's low end) and bytes toward
 * shorter, simpler ones. */
static bool pass_shrink(minimizer *z) {
  bool any = false;
  for (uint32_t ci = 0; ci < z->cur.ncalls && !z->out_of_budget; ci++) {
    const sf_func *f = sf_seq_func(&z->cur, ci);
    for (uint32_t p = 0; p < f->nparams && !z->out_of_budget; p++) {
      const sf_param *pp = &f->params[p];
      if (!sf_param_is_input(pp) || pp->kind == SF_HANDLE) continue;
      sf_arg a = sf_seq_args(&z->cur, ci)[p];
      if (pp->kind == SF_STRING || pp->kind == SF_BUFFER) {
        if (pp->kind == SF_STRING && a.bits) continue; /* NULL */
        if ((pp->flags & SF_P_CALLBACK) && shrink_script(z, ci, p)) {
          any = true;
          a = sf_seq_args(&z->cur, ci)[p];
        }
        uint8_t *copy = malloc(a.len ? a.len : 1);
        if (!copy) return any;
        memcpy(copy, sf_seq_bytes(&z->cur, &a), a.len);
        size_t n = a.len;
        size_t esize = pp->kind == SF_BUFFER ? sf_kind_size(pp->elem) : 1;
        if (!esize) esize = 1;
        /* Shorter: empty, else without chunks of elements anywhere (halves,
         * quarters, ... single elements): the element that matters may be
         * last. */
        if (n && try_bytes(z, ci, p, copy, 0)) {
          n = 0;
          any = true;
        }
        for (size_t chunk = n / esize / 2; chunk >= 1 && !z->out_of_budget; chunk /= 2) {
          for (size_t off = 0; off + chunk * esize <= n && !z->out_of_budget;) {
            uint8_t *cand = malloc(n ? n : 1);
            if (!cand) break;
            memcpy(cand, copy, off);
            memcpy(cand + off, copy + off + chunk * esize, n - off - chunk * esize);
            if (try_bytes(z, ci, p, cand, n - chunk * esize)) {
              memcpy(copy, cand, n - chunk * esize);
              n -= chunk * esize;
              any = true;
            } else {
              off += chunk * esize;
            }
            free(cand);
          }
          if (chunk == 1) break;
        }
        /* Simpler: each byte to 'a' (strings, bytes), each wider element to 0. */
        a = sf_seq_args(&z->cur, ci)[p];
        n = a.len;
        memcpy(copy, sf_seq_bytes(&z->cur, &a), n);
        for (size_t b = 0; b + esize <= n && b < 64 * esize && !z->out_of_budget; b += esize) {
          uint8_t was[8], simple[8];
          memset(simple, esize == 1 ? 'a' : 0, esize);
          if (!memcmp(copy + b, simple, esize)) continue;
          memcpy(was, copy + b, esize);
          memcpy(copy + b, simple, esize);
          if (try_bytes(z, ci, p, copy, n))
            any = true;
          else
            memcpy(copy + b, was, esize);
        }
        free(copy);
      } else if (pp->kind != SF_ARRAY) {
        /* 0 (false, the first constant, no flags) when legal, else the low end. */
        uint64_t target =
            sf_arg_prim_ok(z->api, pp, 0) ? 0 : sf_arg_prim_repair(z->api, pp, pp->lo);
        if (a.bits == target) continue;
        if (try_bits(z, ci, p, target)) {
          any = true;
          continue;
        }
        if (pp->kind == SF_FLAGS) {
          /* Flags: each set one cleared alone, highest first (halving the
           * number would drop them in blocks and keep most: a pcre2 overread
           * that needs two compile options kept thirteen). */
          for (int k = 63; k >= 0 && !z->out_of_budget; k--) {
            uint64_t v = sf_seq_args(&z->cur, ci)[p].bits;
            if ((v >> k & 1) && try_bits(z, ci, p, v & ~(1ull << k))) any = true;
          }
          continue;
        }
        /* Halve the distance to the target while it keeps the crash. */
        uint64_t v = a.bits;
        for (int step = 0; step < 64 && !z->out_of_budget; step++) {
          uint64_t mid = sf_kind_is_signed(pp->kind)
                             ? (uint64_t)(((int64_t)v - (int64_t)target) / 2 + (int64_t)target)
                             : target + (v - target) / 2;
          mid = sf_arg_prim_repair(z->api, pp, mid);
          if (mid == v) break;
          if (!try_bits(z, ci, p, mid)) break;
          v = mid;
          any = true;
        }
      }
    }
  }
  return any;
}

int sf_minimize(const sf_api *api, const sf_seq *in, const sf_min_options *opt, sf_seq *out,
                sf_min_result *res) {
  minimizer z = {.api = api, .opt = opt, .res = res};
  memset(res, 0, sizeof *res);
  clock_gettime(CLOCK_MONOTONIC, &z.start);
  sf_seq_init(&z.cur, api);
  sf_seq_init(&z.cand, api);
  int rc = -1;
  res->calls_before = in->ncalls;
  if (sf_seq_copy(&z.cur, in) || sf_seq_encode(&z.cur, &z.enc)) goto done;
  res->runs = 1;
  z.runner = opt->runner ? opt->runner : sf_runner_new(opt->target, opt->timeout);
  if (!z.runner || sf_runner_run(z.runner, z.enc.data, z.enc.len, &res->sig, NULL) ||
      !res->sig.crashed)
    goto done;
  char sig[512];
  sf_signature_format(&res->sig, sig, sizeof sig);
  progress(&z, "crash: %s (%u calls); candidates run in %s", sig, z.cur.ncalls,
           sf_runner_mode(z.runner));
  if (opt->known && sf_known_count(opt->known)) {
    z.avoid_known = !sf_known_completes(opt->known, &z.cur);
    progress(&z,
             z.avoid_known ? "no candidate may complete one of %u known bugs"
                           : "the input completes one of the %u known bugs: none avoided",
             sf_known_count(opt->known));
  }
  build_replacements(&z);
  if (!(z.probed = sf_hashset_new(1024))) goto done;
  pass_prefix(&z);
  for (int round = 0; round < 8 && !z.out_of_budget; round++) {
    bool changed = pass_remove(&z);
    changed |= pass_replace(&z);
    changed |= pass_materialize(&z);
    changed |= pass_feed(&z);
    changed |= pass_merge(&z);
    changed |= pass_shrink_shared(&z);
    changed |= pass_shrink(&z);
    if (!changed) break;
  }
  if (z.out_of_budget) progress(&z, "budget used up: stopping with what is minimal so far");
  if (sf_seq_copy(out, &z.cur) == 0) rc = 0;
done:
  if (z.runner != opt->runner) sf_runner_free(z.runner);
  for (uint32_t k = 0; k < z.nsynth; k++)
    sf_seq_free(&z.synth[k]);
  free(z.synth);
  free(z.repl);
  sf_hashset_free(z.probed);
  res->seconds = elapsed(&z);
  res->calls_after = z.cur.ncalls;
  sf_seq_free(&z.cur);
  sf_seq_free(&z.cand);
  sf_buf_free(&z.enc);
  return rc;
}
