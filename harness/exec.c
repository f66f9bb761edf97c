/* The executor: sequences to libffi calls (contract in exec.h). */
#define _GNU_SOURCE /* memfd_create */
#include "exec.h"

#include <ffi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../base/sf_clock.h"
#include "../base/sf_hash.h"
#include "exec_internal.h"
#include "known.h"

/* The calls of one run in TIMED_EVERY are timed (sf_call_stats.ticks). */
#define TIMED_EVERY 8

static struct block *block_slot(sf_exec *x, size_t n) {
  return &x->cache[(n * 0x9E3779B97F4A7C15ull) >> 58];
}

/* A block of exactly n bytes. */
static void *block_get(sf_exec *x, size_t n) {
  struct block *b = block_slot(x, n);
  if (b->p && b->size == n) { /* n may be 0: malloc(0) is a block ASan guards */
    void *p = b->p;
    b->p = NULL;
    return p;
  }
  return malloc(n);
}

static void block_put(sf_exec *x, void *p, size_t n) {
  struct block *b = block_slot(x, n);
  free(b->p); /* another size, or a second block of this one */
  *b = (struct block){p, n};
}

void sf_call_outcome_print(const sf_seq *s, const sf_call_outcome *o, sf_buf *line) {
  const sf_func *f = sf_seq_func(s, o->call);
  sf_buf_printf(line, "[%u] ", o->call + 1);
  sf_seq_print_call(s, o->call, line);
  if (!o->made) {
    sf_buf_printf(line, "  -> not made: a handle argument is NULL or a precondition is false");
  } else if (f->ret.kind == SF_HANDLE) {
    sf_buf_printf(line, "  -> %s", o->ret ? "handle" : "NULL");
  } else if (f->ret.kind == SF_STRING) {
    if (!o->str)
      sf_buf_printf(line, "  -> NULL");
    else
      sf_buf_printf(line, "  -> \"%.200s\"", o->str);
  } else if (f->ret.kind == SF_F32 || f->ret.kind == SF_F64) {
    /* Floats come as their bits: print the number, in a form the text
     * parser reads back to the same value (%.17g is exact for a double). */
    sf_buf_printf(line, "  -> %.17g", sf_float_value(f->ret.kind, o->ret));
  } else if (f->ret.kind != SF_VOID) {
    if (sf_kind_is_signed(f->ret.kind))
      sf_buf_printf(line, "  -> %lld", (long long)o->ret);
    else
      sf_buf_printf(line, "  -> %llu", (unsigned long long)o->ret);
  }
  for (uint32_t i = 0; i < f->nparams && o->made && !o->failed; i++) {
    const sf_param *p = &f->params[i];
    if (!(p->flags & (SF_P_OUT | SF_P_INOUT)) || p->kind == SF_HANDLE || p->kind == SF_BUFFER ||
        p->kind == SF_ARRAY)
      continue;
    if (p->kind == SF_STRING) { /* a borrowed string, not read */
      sf_buf_printf(line, "  %s=%s", p->name, o->outs[i] ? "(set)" : "NULL");
    } else if (p->kind == SF_F32 || p->kind == SF_F64) /* as the result: f32 in the low bits */
      sf_buf_printf(line, "  %s=%.17g", p->name, sf_float_value(p->kind, o->outs[i]));
    else if (sf_kind_is_signed(p->kind))
      sf_buf_printf(line, "  %s=%lld", p->name, (long long)sf_exec_widen(p->kind, o->outs[i]));
    else
      sf_buf_printf(line, "  %s=%llu", p->name, (unsigned long long)o->outs[i]);
  }
  if (o->failed) sf_buf_printf(line, "  (error by the API's convention)");
  if (o->mock_calls) sf_buf_printf(line, "  (mocks called %u times)", o->mock_calls);
}

bool sf_run_legal(const sf_run_result *r) {
  return r->status == SF_RUN_OK || r->status == SF_RUN_ERROR_RESULT;
}

uint32_t sf_run_legal_calls(const sf_run_result *r, const sf_seq *s) {
  if (r->status == SF_RUN_OK) return s->ncalls;
  return r->status == SF_RUN_ERROR_RESULT ? r->stop_call + 1 : r->stop_call;
}

const char *sf_run_status_name(sf_run_status st) {
  switch (st) {
  case SF_RUN_OK:
    return "ok";
  case SF_RUN_ERROR_RESULT:
    return "error-result";
  case SF_RUN_NULL_HANDLE:
    return "null-handle";
  case SF_RUN_PRECONDITION:
    return "precondition";
  case SF_RUN_INVALID:
    return "invalid";
  case SF_RUN_OOM:
    return "out-of-memory";
  case SF_RUN_KNOWN:
    return "known-bug";
  }
  return "?";
}

static ffi_type *ffi_of(const sf_api *api, const sf_param *p) {
  if (p->flags & (SF_P_OUT | SF_P_INOUT | SF_P_MEMFILE | SF_P_CALLBACK | SF_P_VTABLE))
    return &ffi_type_pointer;
  if (p->ctype && strchr(p->ctype, '*')) return &ffi_type_pointer;
  if (p->flags & (SF_P_MEMFD | SF_P_INT_BOOL)) return &ffi_type_sint32;
  sf_kind k = p->kind;
  if (k == SF_ENUM || k == SF_FLAGS) k = api->enums[p->type_index].base;
  switch (k) {
  case SF_VOID:
    return &ffi_type_void;
  case SF_BOOL:
    return &ffi_type_uint8;
  case SF_I8:
    return &ffi_type_sint8;
  case SF_I16:
    return &ffi_type_sint16;
  case SF_I32:
    return &ffi_type_sint32;
  case SF_I64:
    return &ffi_type_sint64;
  case SF_U8:
    return &ffi_type_uint8;
  case SF_U16:
    return &ffi_type_uint16;
  case SF_U32:
    return &ffi_type_uint32;
  case SF_U64:
    return &ffi_type_uint64;
  case SF_F32:
    return &ffi_type_float;
  case SF_F64:
    return &ffi_type_double;
  default:
    return &ffi_type_pointer;
  }
}

/* Where the build keeps the value of each constant parameter of function
 * fi (cmd_embed.c generates them). Nonzero, with a message, if one is
 * missing. */
static int resolve_constants(sf_exec *x, uint32_t fi, sf_resolve_fn resolve, void *ctx, char *err,
                             size_t errlen) {
  const sf_func *f = &x->api->funcs[fi];
  for (uint32_t j = 0; j < f->nparams; j++) {
    if (!(f->params[j].flags & SF_P_CONST) || !f->params[j].cexpr) continue;
    prepared *pf = &x->funcs[fi];
    if (!pf->constp && !(pf->constp = calloc(f->nparams, sizeof *pf->constp))) return -1;
    char sym[600];
    const char *name = sf_generated_symbol(f, &f->params[j], sym, sizeof sym);
    if (!(pf->constp[j] = resolve(ctx, name))) {
      if (err && errlen)
        snprintf(err, errlen, "%s: constant %s of parameter '%s' needs the embedded build", f->name,
                 f->params[j].cexpr, f->params[j].name);
      return -1;
    }
  }
  return 0;
}

/* The value of constant parameter i of function fi: the build's, or a null
 * pointer without one. */
static void const_slot(const sf_exec *x, uint32_t fi, uint32_t i, slot *out) {
  const sf_param *p = &x->api->funcs[fi].params[i];
  const void *src = x->funcs[fi].constp ? x->funcs[fi].constp[i] : NULL;
  if (src)
    memcpy(out, src,
           ffi_of(x->api, p) == &ffi_type_pointer ? sizeof(void *) : sf_kind_size(p->kind));
}

/* The functions that free what out parameters of function fi return
 * (`release`). Nonzero, with a message, if one is missing. */
static int resolve_param_releases(sf_exec *x, uint32_t fi, sf_resolve_fn resolve, void *ctx,
                                  char *err, size_t errlen) {
  const sf_func *f = &x->api->funcs[fi];
  prepared *pf = &x->funcs[fi];
  for (uint32_t j = 0; j < f->nparams; j++) {
    if (!f->params[j].release) continue;
    if (!pf->param_release && !(pf->param_release = calloc(f->nparams, sizeof *pf->param_release)))
      return -1;
    void *fn = resolve(ctx, f->params[j].release);
    memcpy(&pf->param_release[j], &fn, sizeof fn);
    if (!fn) {
      if (err && errlen) snprintf(err, errlen, "%s: symbol not found", f->params[j].release);
      return -1;
    }
  }
  return 0;
}

/* ---- mocks ----------------------------------------------------------------
 * A callback argument is a mock: a libffi closure whose answers come from the
 * script in the sequence (api.h: sf_callback says how it is read). */

static int prepare_callbacks(sf_exec *x) {
  const sf_api *api = x->api;
  if (!api->ncallbacks) return 0;
  x->cb_cif = calloc(api->ncallbacks, sizeof *x->cb_cif);
  x->cb_argtypes = calloc((size_t)api->ncallbacks * 64, sizeof *x->cb_argtypes);
  if (!x->cb_cif || !x->cb_argtypes) return -1;
  for (uint32_t c = 0; c < api->ncallbacks; c++) {
    const sf_callback *cb = &api->callbacks[c];
    ffi_type **types = &x->cb_argtypes[(size_t)c * 64];
    for (uint32_t j = 0; j < cb->nparams; j++)
      types[j] = ffi_of(api, &cb->params[j]);
    if (ffi_prep_cif(&x->cb_cif[c], FFI_DEFAULT_ABI, cb->nparams, ffi_of(api, &cb->ret), types) !=
        FFI_OK)
      return -1;
  }
  return 0;
}

/* The next n bytes of the script (little endian), 0 past its end. */
static uint64_t mock_take(sf_mock *m, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n && m->pos < m->len; i++)
    v |= (uint64_t)m->script[m->pos++] << (8 * i);
  return v;
}

/* Integer argument i of a mock's call, widened. */
static uint64_t mock_arg(const sf_callback *cb, void **args, int32_t i) {
  uint64_t v = 0;
  memcpy(&v, args[i], sf_kind_size(cb->params[i].kind));
  return sf_exec_widen(cb->params[i].kind, v);
}

static void mock_entry(ffi_cif *cif, void *ret, void **args, void *user) {
  sf_mock *m = user;
  const sf_callback *cb = m->cb;
  uint64_t chunk = 0;
  (void)cif;
  m->calls++;
  (*m->all_calls)++;
  if (cb->alloc_size >= 0) { /* an allocator: the record says whether it fails */
    uint64_t n = mock_arg(cb, args, cb->alloc_size);
    if (cb->alloc_by >= 0) n *= mock_arg(cb, args, cb->alloc_by);
    void *p = mock_take(m, 1) || n > (1u << 30) ? NULL : malloc(n ? n : 1);
    memcpy(ret, &p, sizeof p);
    return;
  }
  if (cb->frees >= 0) {
    free(*(void **)args[cb->frees]);
    return;
  }
  for (uint32_t i = 0; i < cb->nparams; i++) { /* the chunk */
    const sf_param *p = &cb->params[i];
    if (!(p->flags & SF_P_OUT) || p->kind != SF_BUFFER) continue;
    void *dst = *(void **)args[i];
    uint64_t n = mock_take(m, 1);
    if (n > m->len - m->pos) n = m->len - m->pos;
    const uint8_t *bytes = m->script + m->pos;
    m->pos += (uint32_t)n;
    if (p->len_param >= 0) { /* copied into the caller's buffer, at most its size */
      uint64_t cap = 0;
      memcpy(&cap, args[p->len_param], sf_kind_size(cb->params[p->len_param].kind));
      cap = sf_exec_widen(cb->params[p->len_param].kind, cap);
      if (n > cap) n = cap;
      if (dst && n) memcpy(dst, bytes, n);
    } else if (dst) { /* `*b` points at the bytes */
      *(const uint8_t **)dst = bytes;
    }
    chunk = n;
  }
  for (uint32_t i = 0; i < cb->nparams; i++) { /* the out numbers */
    const sf_param *p = &cb->params[i];
    if (!(p->flags & SF_P_OUT) || p->kind == SF_BUFFER) continue;
    void *dst = *(void **)args[i];
    uint64_t v = (p->flags & SF_P_LENGTH) ? chunk : mock_take(m, sf_kind_size(p->kind));
    if (dst) memcpy(dst, &v, sf_kind_size(p->kind));
    if (m->on_answer && !(p->flags & SF_P_LENGTH)) m->on_answer(v);
  }
  if (cb->ret.kind == SF_VOID) return;
  unsigned size = sf_kind_size(cb->ret.kind);
  uint64_t v = cb->ret_default;
  if (cb->ret_is_count) {
    v = chunk;
  } else if (m->pos + size <= m->len) {
    v = sf_exec_widen(cb->ret.kind, mock_take(m, size));
    if (!sf_param_accepts(&cb->ret, v))
      v = cb->ret_default;
    else if (m->on_answer)
      m->on_answer(v);
  } else {
    m->pos = m->len;
  }
  /* libffi: an integral result narrower than a register is written whole */
  if (sf_kind_is_signed(cb->ret.kind))
    *(ffi_sarg *)ret = (ffi_sarg)(int64_t)v;
  else
    *(ffi_arg *)ret = (ffi_arg)v;
}

void sf_exec_on_mock_answer(sf_exec *x, void (*fn)(uint64_t answer)) {
  x->on_mock_answer = fn;
}

void sf_exec_on_int_arg(sf_exec *x, void (*fn)(uint64_t value)) {
  x->on_int_arg = fn;
}

/* Hand call ci's integer arguments to the on_int_arg hook. */
static void tell_int_args(sf_exec *x, const sf_seq *s, uint32_t ci) {
  const sf_func *f = sf_seq_func(s, ci);
  const sf_arg *a = sf_seq_args(s, ci);
  for (uint32_t i = 0; i < f->nparams; i++) {
    const sf_param *p = &f->params[i];
    if (sf_kind_is_int(p->kind) && sf_param_is_input(p)) x->on_int_arg(a[i].bits);
  }
}

void sf_exec_set_known(sf_exec *x, const sf_known *known) {
  x->known = known;
}

/* A mock for callback type cb answering from script[0..len-1] (kept until
 * cleanup), or NULL when the pool is full. */
static void *mock_new(sf_exec *x, uint32_t cbi, const uint8_t *script, uint32_t len) {
  if (x->nmocks == x->mockcap) {
    uint32_t cap = x->mockcap ? 2 * x->mockcap : 16;
    sf_mock **ms = realloc(x->mocks, cap * sizeof *ms);
    if (!ms) return NULL;
    x->mocks = ms;
    for (; x->mockcap < cap; x->mockcap++)
      if (!(ms[x->mockcap] = calloc(1, sizeof **ms))) return NULL;
  }
  sf_mock *m = x->mocks[x->nmocks];
  if (!m->closure && !(m->closure = ffi_closure_alloc(sizeof(ffi_closure), &m->code))) return NULL;
  if (m->cb != &x->api->callbacks[cbi]) {
    if (ffi_prep_closure_loc(m->closure, &x->cb_cif[cbi], mock_entry, m, m->code) != FFI_OK)
      return NULL;
    m->cb = &x->api->callbacks[cbi];
  }
  m->script = script;
  m->all_calls = &x->mock_calls;
  m->on_answer = x->on_mock_answer;
  m->len = len;
  m->pos = m->calls = 0;
  x->nmocks++;
  return m->code;
}

static int push_ptr(void ***arr, uint32_t *n, uint32_t *cap, void *p);

/* A vtable of type vti filled with mocks answering from the members'
 * scripts in value v (kept, with the struct, until cleanup), or NULL. */
static void *vtable_new(sf_exec *x, uint32_t vti, const uint8_t *v, uint32_t len) {
  const sf_vtable *vt = &x->api->vtables[vti];
  uint8_t *copy = malloc(len ? len : 1);
  if (!copy || push_ptr(&x->kept, &x->nkept, &x->keptcap, copy)) {
    free(copy);
    return NULL;
  }
  if (len) memcpy(copy, v, len);
  const uint8_t *scripts[SF_MAX_VTABLE_SLOTS];
  uint32_t lens[SF_MAX_VTABLE_SLOTS];
  void *fns[SF_MAX_VTABLE_SLOTS] = {0};
  sf_vtable_scripts(vt, copy, len, scripts, lens);
  for (uint32_t k = 0; k < vt->nslots; k++)
    if ((lens[k] || !vt->slots[k].nullable) &&
        !(fns[k] = mock_new(x, vt->slots[k].callback, scripts[k], lens[k])))
      return NULL;
  void *made = x->vt_make[vti](fns);
  if (made && push_ptr(&x->kept, &x->nkept, &x->keptcap, made)) {
    free(made);
    return NULL;
  }
  return made;
}

/* After a run: a library that calls a mock later gets its defaults. */
static void mocks_reset(sf_exec *x) {
  for (uint32_t i = 0; i < x->nmocks; i++)
    x->mocks[i]->script = NULL, x->mocks[i]->len = x->mocks[i]->pos = 0;
  x->nmocks = 0;
}

sf_exec *sf_exec_new(const sf_api *api, sf_resolve_fn resolve, void *ctx, char *err,
                     size_t errlen) {
  sf_exec *x = calloc(1, sizeof *x);
  if (!x || !(x->funcs = calloc(api->nfuncs, sizeof *x->funcs))) {
    free(x);
    if (err && errlen) snprintf(err, errlen, "out of memory");
    return NULL;
  }
  x->api = api;
  sf_life_init(&x->life, api);
  if (api->nvtables && !(x->vt_make = calloc(api->nvtables, sizeof *x->vt_make))) {
    if (err && errlen) snprintf(err, errlen, "out of memory");
    sf_exec_free(x);
    return NULL;
  }
  for (uint32_t i = 0; i < api->nvtables; i++) {
    char sym[600];
    void *fn = resolve(ctx, sf_vtable_symbol(&api->vtables[i], sym, sizeof sym));
    memcpy(&x->vt_make[i], &fn, sizeof fn);
    if (!fn) {
      if (err && errlen)
        snprintf(err, errlen, "vtable %s needs the embedded build (seqfuzz embed)",
                 api->vtables[i].name);
      sf_exec_free(x);
      return NULL;
    }
  }
  for (uint32_t i = 0; i < api->nfuncs; i++) {
    const sf_func *f = &api->funcs[i];
    prepared *pf = &x->funcs[i];
    char sym[600];
    const char *name = f->reads ? sf_generated_symbol(f, NULL, sym, sizeof sym) : f->name;
    void *fn = resolve(ctx, name);
    memcpy(&pf->fn, &fn, sizeof fn); /* object pointer to function pointer (POSIX) */
    if (!pf->fn || resolve_constants(x, i, resolve, ctx, err, errlen) ||
        resolve_param_releases(x, i, resolve, ctx, err, errlen)) {
      if (!pf->fn && err && errlen)
        snprintf(err, errlen, "%s: symbol not found%s", name,
                 f->reads ? " (a field read needs the embedded build: seqfuzz embed)" : "");
      sf_exec_free(x);
      return NULL;
    }
    if (f->release) {
      void *rel = resolve(ctx, f->release);
      memcpy(&pf->release, &rel, sizeof rel);
      if (!pf->release) {
        if (err && errlen) snprintf(err, errlen, "%s: symbol not found", f->release);
        sf_exec_free(x);
        return NULL;
      }
    }
    for (uint32_t j = 0; j < f->nparams; j++)
      pf->argtypes[j] = ffi_of(api, &f->params[j]);
    pf->rtype = ffi_of(api, &f->ret);
    pf->variadic = f->nparams && (f->params[f->nparams - 1].flags & SF_P_PRINTF);
    uint32_t nfixed = 0; /* before `...` */
    while (nfixed < f->nparams && !(f->params[nfixed].flags & SF_P_VARIADIC))
      nfixed++;
    if ((nfixed < f->nparams ? ffi_prep_cif_var(&pf->cif, FFI_DEFAULT_ABI, nfixed, f->nparams,
                                                pf->rtype, pf->argtypes)
                             : ffi_prep_cif(&pf->cif, FFI_DEFAULT_ABI, f->nparams, pf->rtype,
                                            pf->argtypes)) != FFI_OK) {
      if (err && errlen) snprintf(err, errlen, "%s: libffi cannot prepare the call", f->name);
      sf_exec_free(x);
      return NULL;
    }
  }
  if (prepare_callbacks(x)) {
    if (err && errlen) snprintf(err, errlen, "libffi cannot prepare a callback");
    sf_exec_free(x);
    return NULL;
  }
  /* Sizes of the structs the caller allocates: the embedded build provides
   * "sizeof(C type)" as a symbol whose address is the size. */
  x->struct_size = calloc(api->nhandles + 1, sizeof *x->struct_size);
  if (!x->struct_size) {
    if (err && errlen) snprintf(err, errlen, "out of memory");
    sf_exec_free(x);
    return NULL;
  }
  for (uint32_t h = 0; h < api->nhandles; h++) {
    if (!api->handles[h].is_struct) continue;
    char name[300];
    snprintf(name, sizeof name, "sizeof(%s)", api->handles[h].ctype);
    size_t size = (size_t)(uintptr_t)resolve(ctx, name);
    x->struct_size[h] = size ? size : SF_STRUCT_FALLBACK;
  }
  x->observers = calloc(api->nhandles + 1, sizeof *x->observers);
  x->nobservers = calloc(api->nhandles + 1, sizeof *x->nobservers);
  x->call_stats = calloc(api->nfuncs + 1, sizeof *x->call_stats);
  if (!x->observers || !x->nobservers || !x->call_stats) {
    if (err && errlen) snprintf(err, errlen, "out of memory");
    sf_exec_free(x);
    return NULL;
  }
  for (uint32_t i = 0; i < api->nfuncs; i++) {
    int32_t handle = sf_func_state_observer(&api->funcs[i]);
    if (handle < 0) continue;
    uint32_t *o = realloc(x->observers[handle], (x->nobservers[handle] + 1) * sizeof *o);
    if (!o) {
      sf_exec_free(x);
      return NULL;
    }
    o[x->nobservers[handle]++] = i;
    x->observers[handle] = o;
  }
  for (uint32_t h = 0; h < api->nhandles; h++) {
    if (!sf_api_coverage_state(api, h)) continue;
    if (!x->coverage_types && !(x->coverage_types = calloc(api->nhandles, sizeof(bool)))) {
      sf_exec_free(x);
      return NULL;
    }
    x->coverage_types[h] = true;
  }
  sf_oracle_init(x);
  return x;
}

void sf_exec_free(sf_exec *x) {
  if (!x) return;
  sf_oracle_free(x);
  if (x->observers)
    for (uint32_t h = 0; h < x->api->nhandles; h++)
      free(x->observers[h]);
  free(x->observers);
  free(x->nobservers);
  free(x->coverage_types);
  free(x->call_stats);
  free(x->struct_size);
  free(x->files);
  for (uint32_t i = 0; x->funcs && i < x->api->nfuncs; i++) {
    free(x->funcs[i].constp);
    free(x->funcs[i].param_release);
  }
  free(x->funcs);
  for (uint32_t i = 0; i < x->mockcap; i++) {
    if (x->mocks[i] && x->mocks[i]->closure) ffi_closure_free(x->mocks[i]->closure);
    free(x->mocks[i]);
  }
  free(x->mocks);
  free(x->cb_cif);
  free(x->cb_argtypes);
  free(x->vt_make);
  free(x->states);
  sf_life_free(&x->life);
  free(x->ptrs);
  free(x->kept);
  free(x->gone);
  for (uint32_t i = 0; i < sizeof x->cache / sizeof *x->cache; i++)
    free(x->cache[i].p);
  free(x);
}

void *sf_exec_value(const sf_exec *x, uint32_t vid) {
  return vid < x->nptrs ? x->ptrs[vid] : NULL;
}

static int push_ptr(void ***arr, uint32_t *n, uint32_t *cap, void *p) {
  if (*n == *cap) {
    uint32_t c = *cap ? *cap * 2 : 16;
    void **q = realloc(*arr, c * sizeof *q);
    if (!q) return -1;
    *arr = q;
    *cap = c;
  }
  (*arr)[(*n)++] = p;
  return 0;
}

static bool is_gone(const sf_exec *x, void *p) {
  for (uint32_t i = 0; i < x->ngone; i++)
    if (x->gone[i] == p) return true;
  return false;
}

static void unmark_gone(sf_exec *x, void *p) {
  for (uint32_t i = 0; i < x->ngone; i++)
    if (x->gone[i] == p) x->gone[i] = x->gone[--x->ngone];
}

static uint64_t widen(sf_kind k, uint64_t raw) {
  unsigned sz = sf_kind_size(k);
  if (sz == 0 || sz >= 8) return raw;
  uint64_t low = raw & ((1ULL << (sz * 8)) - 1);
  if (!sf_kind_is_signed(k)) return low;
  unsigned shift = 64 - sz * 8;
  return (uint64_t)((int64_t)(low << shift) >> shift);
}

bool sf_exec_error_matches(const sf_api *api, const sf_func *f, uint64_t ret) {
  sf_kind k = f->ret.kind;
  if (k == SF_ENUM || k == SF_FLAGS) k = api->enums[f->ret.type_index].base;
  bool sgn = sf_kind_is_signed(k);
  int64_t a = (int64_t)ret, b = (int64_t)f->err_value;
  switch (f->err_cmp) {
  case SF_CMP_NONE:
    return false;
  case SF_CMP_NULL:
    return ret == 0;
  case SF_CMP_EQ:
    return ret == f->err_value;
  case SF_CMP_NE:
    return ret != f->err_value;
  case SF_CMP_LT:
    return sgn ? a < b : ret < f->err_value;
  case SF_CMP_LE:
    return sgn ? a <= b : ret <= f->err_value;
  case SF_CMP_GT:
    return sgn ? a > b : ret > f->err_value;
  case SF_CMP_GE:
    return sgn ? a >= b : ret >= f->err_value;
  }
  return false;
}

/* Value of an enum/flags argument as passed to C. */
static uint64_t enum_value(const sf_api *api, const sf_param *p, uint64_t bits) {
  const sf_enum *e = &api->enums[p->type_index];
  if (p->kind == SF_ENUM) return (uint64_t)e->consts[bits].value;
  uint64_t v = 0;
  for (uint32_t i = 0; i < e->nconsts; i++)
    if (bits >> i & 1) v |= (uint64_t)e->consts[i].value;
  return v;
}

/* What libffi writes a result into. */
typedef union ffi_result {
  ffi_arg a;
  uint64_t u;
  float f32;
  double f64;
  void *p;
} ffi_result;

/* A result as sf_call_outcome.ret holds it: integers widened to 64 bits,
 * floats as their bits (f32 in the low 32), pointers. */
static uint64_t result_bits(const sf_api *api, const sf_func *f, const ffi_result *rv) {
  sf_kind k = f->ret.kind;
  if (k == SF_ENUM || k == SF_FLAGS) k = api->enums[f->ret.type_index].base;
  switch (k) {
  case SF_VOID:
    return 0;
  case SF_F32: {
    uint32_t b;
    memcpy(&b, &rv->f32, 4);
    return b;
  }
  case SF_F64: {
    uint64_t b;
    memcpy(&b, &rv->f64, 8);
    return b;
  }
  case SF_HANDLE:
  case SF_STRING:
    return (uint64_t)(uintptr_t)rv->p;
  default:
    return widen(k, (uint64_t)rv->a);
  }
}

/* The out buffers of the last call, given back once nothing reads them. */
static void release_outbufs(sf_exec *x) {
  for (uint32_t k = 0; k < x->noutbufs; k++)
    block_put(x, x->outbufs[k].p, x->outbufs[k].size);
  x->noutbufs = 0;
}

/* A private in-memory file holding n bytes of d, its offset at 0: a memfd
 * (no name anywhere in the file system). -1 on failure. */
static int memfd_with(const uint8_t *d, size_t n) {
  int fd = memfd_create("seqfuzz", MFD_CLOEXEC);
  if (fd < 0) return -1;
  for (size_t off = 0; off < n;) {
    ssize_t w = write(fd, d + off, n - off);
    if (w <= 0) {
      close(fd);
      return -1;
    }
    off += (size_t)w;
  }
  if (lseek(fd, 0, SEEK_SET) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Files opened for a call: closed after it, or at the end of the run (keep). */
static int file_open(sf_exec *x, const sf_param *p, const uint8_t *d, size_t n, slot *out,
                     struct open_file *now, uint32_t *nnow) {
  int fd = memfd_with(d, n);
  if (fd < 0) return -1;
  struct open_file of = {NULL, fd};
  if (p->flags & SF_P_MEMFILE) {
    if (!(of.f = fdopen(fd, "r+"))) {
      close(fd);
      return -1;
    }
    out->p = of.f;
  } else {
    out->u = (uint64_t)(uint32_t)fd;
  }
  if (p->flags & SF_P_KEEP) {
    if (x->nfiles == x->filecap) {
      uint32_t c = x->filecap ? x->filecap * 2 : 8;
      struct open_file *q = realloc(x->files, c * sizeof *q);
      if (!q) {
        of.f ? fclose(of.f) : close(fd);
        return -1;
      }
      x->files = q;
      x->filecap = c;
    }
    x->files[x->nfiles++] = of;
  } else {
    now[(*nnow)++] = of;
  }
  return 0;
}

static void file_close(struct open_file *of) {
  if (of->f)
    fclose(of->f);
  else if (of->fd >= 0)
    close(of->fd);
}

/* A call ending with a printf format (its slot already holds the value's
 * text): the format and its arguments from sf_printf_parse, passed through a
 * variadic call interface made for them. false on OOM. */
static bool call_printf(sf_exec *x, const sf_seq *s, uint32_t ci, slot *slots, void **argp,
                        ffi_result *rv) {
  const sf_func *f = sf_seq_func(s, ci);
  prepared *pf = &x->funcs[s->calls[ci].func];
  uint32_t nfixed = f->nparams, last = nfixed - 1;
  static sf_printf fmt; /* large: not on the stack */
  const sf_arg *a = &sf_seq_args(s, ci)[last];
  sf_printf_parse(sf_seq_bytes(s, a), a->len, f->params[last].flags & SF_P_PRINTF_SQLITE, &fmt);
  ffi_type *types[64 + SF_PRINTF_MAX_ARGS];
  void *ptrs[64 + SF_PRINTF_MAX_ARGS];
  slot vals[SF_PRINTF_MAX_ARGS];
  char *strs[SF_PRINTF_MAX_ARGS];
  uint32_t nstrs = 0;
  memcpy(types, pf->argtypes, nfixed * sizeof *types);
  memcpy(ptrs, argp, nfixed * sizeof *ptrs);
  char *format = malloc(fmt.flen + 1); /* exact size, as every string argument */
  if (!format) return false;
  memcpy(format, fmt.format, fmt.flen + 1);
  slots[last].p = format;
  bool ok = true;
  for (uint32_t k = 0; k < fmt.nargs; k++) {
    const sf_printf_arg *pa = &fmt.args[k];
    ptrs[nfixed + k] = &vals[k];
    switch (pa->kind) {
    case 'i':
      types[nfixed + k] = &ffi_type_sint32;
      vals[k].u = pa->bits;
      break;
    case 'u':
      types[nfixed + k] = &ffi_type_uint32;
      vals[k].u = pa->bits;
      break;
    case 'l':
    case 'L':
      types[nfixed + k] = &ffi_type_sint64;
      vals[k].u = pa->bits;
      break;
    case 'd':
      types[nfixed + k] = &ffi_type_double;
      memcpy(&vals[k].u, &pa->d, sizeof pa->d);
      break;
    default: /* 's' */
      types[nfixed + k] = &ffi_type_pointer;
      if (!(strs[nstrs] = malloc(pa->len + 1))) {
        ok = false;
        break;
      }
      memcpy(strs[nstrs], pa->str, pa->len);
      strs[nstrs][pa->len] = 0;
      vals[k].p = strs[nstrs++];
    }
  }
  ffi_cif cif;
  if (ok && ffi_prep_cif_var(&cif, FFI_DEFAULT_ABI, nfixed, nfixed + fmt.nargs, pf->rtype, types) ==
                FFI_OK)
    ffi_call(&cif, pf->fn, rv, ptrs);
  else
    ok = false;
  for (uint32_t k = 0; k < nstrs; k++)
    free(strs[k]);
  free(format);
  return ok;
}

/* Make one call. Fills o; returns false on OOM. temps receives heap blocks
 * to free after the call. */
static bool make_call(sf_exec *x, const sf_seq *s, uint32_t ci, sf_call_outcome *o) {
  const sf_api *api = x->api;
  const sf_func *f = sf_seq_func(s, ci);
  const sf_arg *a = sf_seq_args(s, ci);
  prepared *pf = &x->funcs[s->calls[ci].func];
  slot slots[64];
  void *argp[64];
  struct block temps[64];
  uint32_t ntemps = 0;
  struct open_file files[64];
  uint32_t nfiles = 0;
  bool ok = true;
  release_outbufs(x);
  /* Loops, not memset (sf_copy_bytes says why); a length may precede its
   * buffer, and only the call's parameters' outs are read. */
  for (uint32_t i = 0; i < f->nparams; i++) {
    o->outs[i] = 0;
    slots[i] = (slot){0};
  }
  for (uint32_t i = 0; i < f->nparams && ok; i++) {
    const sf_param *p = &f->params[i];
    argp[i] = &slots[i];
    if (p->flags & SF_P_INOUT) {  /* by pointer, the value in outs */
      if (p->flags & SF_P_LENGTH) /* its buffer's count, whichever comes first */
        o->outs[i] = a[p->len_of].len / sf_kind_size(f->params[p->len_of].elem);
      else
        o->outs[i] = a[i].bits;
      slots[i].p = &o->outs[i];
      continue;
    }
    if (p->flags & SF_P_OUT) {
      size_t n = 0;
      if (p->kind == SF_ARRAY || p->kind == SF_BUFFER) { /* the caller's buffer, callee fills */
        n = (p->kind == SF_ARRAY ? p->array_len : a[p->len_param].bits) * sf_kind_size(p->elem);
      } else if (p->kind == SF_HANDLE && x->api->handles[p->type_index].is_struct) {
        n = x->struct_size[p->type_index]; /* zeroed, exact size, the harness's to free */
        void *blk = calloc(1, n);
        if (!blk) {
          ok = false;
          break;
        }
        slots[i].p = blk;
        o->outs[i] = (uint64_t)(uintptr_t)blk;
        continue;
      } else {
        slots[i].p = &o->outs[i];
        continue;
      }
      bool keep = p->flags & SF_P_KEEP; /* the callee writes into it later too */
      /* An empty buffer is the end of a 1-byte block: AddressSanitizer
       * lets a malloc(0) block's one byte be written, not this. */
      size_t size = n ? n : 1;
      char *blk = keep ? calloc(1, size) : block_get(x, size);
      if (!blk || (keep && push_ptr(&x->kept, &x->nkept, &x->keptcap, blk))) {
        if (keep) free(blk);
        ok = false;
        break;
      }
      slots[i].p = blk + (n ? 0 : 1);
      if (keep) continue;
      memset(blk, 0, size);
      n = size;
      /* Kept until the next call: a result may point into it (gzgets). */
      x->outbufs[x->noutbufs++] = (struct block){blk, n};
      continue;
    }
    if (p->flags & (SF_P_MEMFILE | SF_P_MEMFD)) {
      if (file_open(x, p, sf_seq_bytes(s, &a[i]), a[i].len, &slots[i], files, &nfiles)) ok = false;
      continue;
    }
    if (p->flags & SF_P_CONST) {
      const_slot(x, s->calls[ci].func, i, &slots[i]);
      continue;
    }
    if (p->flags & SF_P_VTABLE) { /* a struct of mocks; an empty value is NULL when nullable */
      if (!a[i].len && (p->flags & SF_P_NULLABLE)) continue;
      if (!(slots[i].p = vtable_new(x, p->type_index, sf_seq_bytes(s, &a[i]), a[i].len)))
        ok = false;
      continue;
    }
    if (p->flags & SF_P_CALLBACK) { /* a mock; an empty script is NULL when nullable */
      if (!a[i].len && (p->flags & SF_P_NULLABLE)) continue;
      uint8_t *script = malloc(a[i].len ? a[i].len : 1);
      if (!script || push_ptr(&x->kept, &x->nkept, &x->keptcap, script)) {
        free(script);
        ok = false;
        continue;
      }
      if (a[i].len) memcpy(script, sf_seq_bytes(s, &a[i]), a[i].len);
      if (!(slots[i].p = mock_new(x, p->type_index, script, a[i].len))) ok = false;
      continue;
    }
    switch (p->kind) {
    case SF_HANDLE:
      slots[i].p = a[i].bits == SF_NULL_REF ? NULL : x->ptrs[a[i].bits];
      break;
    case SF_STRING:
    case SF_BUFFER:
    case SF_ARRAY: {
      if (p->kind == SF_STRING && a[i].bits) break; /* NULL string */
      size_t n = a[i].len + (p->kind == SF_STRING ? 1 : 0);
      char *blk = (p->flags & SF_P_KEEP) ? malloc(n) : block_get(x, n);
      if (!blk) {
        ok = false;
        break;
      }
      if (a[i].len) sf_copy_bytes(blk, sf_seq_bytes(s, &a[i]), a[i].len);
      if (p->kind == SF_STRING) blk[a[i].len] = 0;
      slots[i].p = blk;
      if (p->flags & SF_P_KEEP) {
        if (push_ptr(&x->kept, &x->nkept, &x->keptcap, blk)) {
          free(blk);
          ok = false;
        }
      } else {
        temps[ntemps++] = (struct block){blk, n};
      }
      if (p->kind == SF_BUFFER) {
        uint64_t count = a[i].len / sf_kind_size(p->elem);
        if (f->params[p->len_param].flags & SF_P_INOUT)
          o->outs[p->len_param] = count; /* its slot points there */
        else
          slots[p->len_param].u = count;
      }
      break;
    }
    case SF_ENUM:
    case SF_FLAGS:
      slots[i].u = enum_value(api, p, a[i].bits);
      break;
    default:
      if (!(p->flags & SF_P_LENGTH)) slots[i].u = a[i].bits; /* floats: bits in the low bytes */
    }
  }
  ffi_result rv;
  rv.u = 0;
  uint32_t mock_calls = x->mock_calls;
  if (ok && pf->variadic) {
    ok = call_printf(x, s, ci, slots, argp, &rv);
    o->made = ok;
  } else if (ok) {
    uint32_t fi = s->calls[ci].func;
    bool count = x->new_edges && (!x->count_funcs || x->count_funcs[fi]);
    if (count) x->counted_edges += x->new_edges(); /* the calls before's */
    /* Timed in one run of TIMED_EVERY, the time counted that many times:
     * reading the cycle counter around every call cost 0.4% of cJSON's
     * time, and the weights want only each function's mean. */
    uint64_t began = x->timed ? sf_ticks_now() : 0;
    ffi_call(&pf->cif, pf->fn, &rv, argp);
    sf_call_stats *cs = &x->call_stats[fi];
    if (x->timed) cs->ticks += (sf_ticks_now() - began) * TIMED_EVERY;
    cs->calls++;
    if (count) {
      uint32_t n = x->new_edges();
      cs->first_edges += n;
      x->counted_edges += n;
    }
    o->made = true;
  }
  o->mock_calls = x->mock_calls - mock_calls;
  if (o->made) {
    o->ret = result_bits(api, f, &rv);
    o->failed = sf_exec_error_matches(api, f, o->ret);
    o->str = f->ret.kind == SF_STRING ? (const char *)rv.p : NULL;
    for (uint32_t i = 0; i < f->nparams; i++) {
      const sf_param *p = &f->params[i];
      if (p->kind == SF_STRING && (p->flags & SF_P_OUT)) {
        /* A borrowed string, often a position in an argument that need not
         * end with a NUL (a parse's end): not read; its value is whether it
         * is NULL. One the caller owns is freed now. */
        if (o->outs[i] && pf->param_release && pf->param_release[i])
          pf->param_release[i]((void *)(uintptr_t)o->outs[i]);
        o->outs[i] = o->outs[i] != 0;
      } else if ((p->flags & SF_P_GIVEN) && !o->failed) {
        for (uint32_t k = 0; k < nfiles; k++) /* the callee's to close now */
          if (files[k].fd == (int)slots[i].u) files[k].fd = -1;
      }
    }
  }
  for (uint32_t i = 0; !ok && i < f->nparams; i++) /* structs allocated for a call not made */
    if ((f->params[i].flags & SF_P_OUT) && f->params[i].kind == SF_HANDLE &&
        api->handles[f->params[i].type_index].is_struct)
      free(slots[i].p);
  for (uint32_t k = 0; k < ntemps; k++)
    block_put(x, temps[k].p, temps[k].size);
  for (uint32_t k = 0; k < nfiles; k++)
    file_close(&files[k]);
  return ok;
}

/* A struct the harness allocated for value vid: freed once the value is
 * destroyed or its content consumed (the memory stays the caller's). */
static void free_struct(sf_exec *x, uint32_t vid) {
  if (!x->api->handles[x->life.htype[vid]].is_struct) return;
  free(x->ptrs[vid]);
  x->ptrs[vid] = NULL;
}

static void call_destructor(sf_exec *x, uint32_t vid) {
  const sf_handle_type *h = &x->api->handles[x->life.htype[vid]];
  if (h->destructor < 0) return;
  const sf_func *f = &x->api->funcs[h->destructor];
  prepared *pf = &x->funcs[h->destructor];
  slot slots[64];
  uint64_t outs[64];
  void *argp[64];
  bool done = false;
  for (uint32_t i = 0; i < f->nparams; i++) {
    slots[i].u = 0;
    argp[i] = &slots[i];
    if (f->params[i].flags & SF_P_OUT) {
      slots[i].p = &outs[i];
    } else if (f->params[i].kind == SF_HANDLE && !done) {
      slots[i].p = x->ptrs[vid];
      done = true;
    }
  }
  uint64_t rv[2];
  ffi_call(&pf->cif, pf->fn, rv, argp);
  free_struct(x, vid);
}

uint64_t sf_exec_call_raw(sf_exec *x, uint32_t fi, const uint64_t *inputs) {
  const sf_func *f = &x->api->funcs[fi];
  prepared *pf = &x->funcs[fi];
  slot slots[64];
  uint64_t outs[64];
  void *argp[64];
  uint32_t in = 0;
  for (uint32_t i = 0; i < f->nparams; i++) {
    argp[i] = &slots[i];
    slots[i].u = 0;
    if (f->params[i].flags & SF_P_OUT)
      slots[i].p = &outs[i];
    else if (f->params[i].flags & SF_P_CONST)
      const_slot(x, fi, i, &slots[i]);
    else
      slots[i].u = inputs[in++];
  }
  ffi_result rv;
  rv.u = 0;
  ffi_call(&pf->cif, pf->fn, &rv, argp);
  return result_bits(x->api, f, &rv);
}

uint64_t sf_exec_widen(sf_kind k, uint64_t raw) {
  return widen(k, raw);
}

int sf_exec_observe(sf_exec *x, uint32_t vid, uint64_t *state) {
  if (vid >= x->life.n || !x->life.alive[vid] || !x->ptrs[vid]) return -1;
  uint32_t h = x->life.htype[vid];
  if (!x->nobservers[h]) return -1;
  uint64_t st = sf_hash_mix(0x0b5e, h);
  uint64_t arg = (uint64_t)(uintptr_t)x->ptrs[vid];
  for (uint32_t k = 0; k < x->nobservers[h]; k++) {
    uint32_t fi = x->observers[h][k];
    const sf_func *f = &x->api->funcs[fi];
    uint64_t rv = sf_exec_call_raw(x, fi, &arg);
    if (f->ret.kind == SF_STRING) {
      const char *str = (const char *)(uintptr_t)rv;
      st = sf_hash_mix(st, str ? sf_hash_bytes(str, strlen(str), 1) : 0);
      if (str && x->funcs[fi].release) x->funcs[fi].release((void *)str);
    } else {
      st = sf_hash_mix(st, rv);
    }
  }
  *state = st ? st : 1;
  return 0;
}

int sf_exec_observe_values(sf_exec *x, uint32_t vid, int64_t *vals, uint64_t *known, uint32_t max) {
  if (vid >= x->life.n || !x->life.alive[vid] || !x->ptrs[vid]) return -1;
  uint32_t h = x->life.htype[vid];
  uint64_t arg = (uint64_t)(uintptr_t)x->ptrs[vid];
  *known = 0;
  for (uint32_t k = 0; k < x->nobservers[h] && k < max; k++) {
    uint32_t fi = x->observers[h][k];
    const sf_param *r = &x->api->funcs[fi].ret;
    sf_kind kind = r->kind == SF_ENUM ? x->api->enums[r->type_index].base : r->kind;
    vals[k] = 0;
    if (!sf_kind_is_int(kind) && kind != SF_BOOL) continue; /* strings, floats: not kept */
    vals[k] = (int64_t)sf_exec_widen(kind, sf_exec_call_raw(x, fi, &arg));
    if (k < 64) *known |= 1ull << k;
  }
  return (int)x->nobservers[h];
}

void sf_exec_on_coverage_state(sf_exec *x, void (*fn)(uint64_t joint)) {
  x->on_coverage_state = fn;
}

/* A coverage value's class: 0, 1, 2 and 3 themselves, then one class per
 * power of two (4-7, 8-15, ...), negative values alike. A count an input
 * can raise by repeating a call then makes a few features, not one per
 * repetition (AFL++ counts hits the same way). */
static uint64_t coverage_class(int64_t v) {
  uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;               /* |v|, INT64_MIN too */
  uint64_t c = m < 4 ? m : 2 + (uint64_t)(64 - __builtin_clzll(m)); /* 4-7 -> 5, 8-15 -> 6 */
  return v < 0 ? ~c : c;
}

/* The joint value of value vid's coverage state: the classes of its type's
 * coverage observers' answers and coverage states, hashed. */
static uint64_t coverage_state(sf_exec *x, uint32_t vid) {
  const sf_api *api = x->api;
  uint32_t h = x->life.htype[vid];
  uint64_t st = sf_hash_mix(0xc0fe, h);
  uint64_t arg = (uint64_t)(uintptr_t)x->ptrs[vid];
  for (uint32_t k = 0; k < x->nobservers[h]; k++) {
    uint32_t fi = x->observers[h][k];
    const sf_func *f = &api->funcs[fi];
    if (!(f->flags & SF_F_COVERAGE)) continue;
    sf_kind kind = f->ret.kind == SF_ENUM ? api->enums[f->ret.type_index].base : f->ret.kind;
    st = sf_hash_mix(st, coverage_class((int64_t)widen(kind, sf_exec_call_raw(x, fi, &arg))));
  }
  for (uint32_t i = 0; i < api->nstates; i++)
    if (api->states[i].coverage && api->states[i].handle == h)
      st = sf_hash_mix(st, coverage_class(x->states[(size_t)vid * api->nstates + i]));
  return st;
}

/* Hand the sink value vid's coverage state, if its type has one and it lives. */
static void note_coverage(sf_exec *x, uint32_t vid) {
  if (!x->coverage_types[x->life.htype[vid]] || !x->life.alive[vid] || !x->ptrs[vid]) return;
  uint64_t joint = coverage_state(x, vid);
  if (x->on_coverage_state) x->on_coverage_state(joint);
}

/* After call ci made and not failed: the coverage state of each live handle
 * it took or made (exec.h: sf_exec_on_coverage_state). */
static void observe_coverage(sf_exec *x, const sf_seq *s, uint32_t ci) {
  const sf_func *f = sf_seq_func(s, ci);
  const sf_arg *a = sf_seq_args(s, ci);
  for (uint32_t i = 0; i < f->nparams; i++) {
    const sf_param *p = &f->params[i];
    if (p->kind == SF_HANDLE && !(p->flags & SF_P_OUT) && a[i].bits != SF_NULL_REF)
      note_coverage(x, (uint32_t)a[i].bits);
  }
  for (uint32_t v = s->calls[ci].val0; v < s->calls[ci].val0 + f->nproduced; v++)
    note_coverage(x, v);
}

void sf_exec_trace_state(sf_exec *x, bool on) {
  x->trace_state = on;
}

static void trace_state(sf_exec *x, const sf_seq *s, uint32_t ci) {
  const sf_func *f = sf_seq_func(s, ci);
  const sf_arg *a = sf_seq_args(s, ci);
  fprintf(stderr, "seqfuzz: state before [%u] %s:", ci + 1, f->name);
  for (uint32_t i = 0; i < f->nparams; i++) {
    const sf_param *p = &f->params[i];
    if (!sf_param_is_input(p)) continue;
    if (sf_kind_is_int(p->kind)) {
      fprintf(stderr, " %s=%lld", p->name, (long long)a[i].bits);
    } else if (p->kind == SF_HANDLE && a[i].bits != SF_NULL_REF && x->ptrs[a[i].bits]) {
      uint32_t h = p->type_index;
      uint64_t arg = (uint64_t)(uintptr_t)x->ptrs[a[i].bits];
      for (uint32_t k = 0; k < x->nobservers[h]; k++) {
        uint32_t oi = x->observers[h][k];
        const sf_param *r = &x->api->funcs[oi].ret;
        sf_kind kind = r->kind == SF_ENUM ? x->api->enums[r->type_index].base : r->kind;
        if (!sf_kind_is_int(kind)) continue;
        uint64_t v = sf_exec_widen(kind, sf_exec_call_raw(x, oi, &arg));
        fprintf(stderr, " %s(%s)=%lld", x->api->funcs[oi].name, p->name, (long long)v);
      }
    }
  }
  fprintf(stderr, "\n");
}

/* After value vid is destroyed or consumed: remember its pointer. */
static int mark_gone(sf_exec *x, uint32_t vid) {
  void *p = x->ptrs[vid];
  if (!p || is_gone(x, p)) return 0;
  return push_ptr(&x->gone, &x->ngone, &x->gonecap, p);
}

static void cleanup(sf_exec *x) {
  /* Dependents first (`depends_on`: one may have come before what it
   * depends on), then the rest; each pass newest first. */
  for (int pass = x->life.ndependent ? 0 : 1; pass < 2; pass++)
    for (uint32_t v = x->life.n; v-- > 0;) {
      if (!x->life.alive[v] || x->life.owner[v] != UINT32_MAX || !x->ptrs[v]) continue;
      if (pass == 0 && x->life.dependee[v] == UINT32_MAX) continue;
      /* An alias of something already freed, unless each value is one
       * counted reference of its own. */
      bool counted = x->api->handles[x->life.htype[v]].refcounted;
      if (!counted && is_gone(x, x->ptrs[v])) continue;
      void *p = x->ptrs[v];
      call_destructor(x, v);
      x->life.alive[v] = 0; /* not again in the second pass */
      if (!counted && !is_gone(x, p)) push_ptr(&x->gone, &x->ngone, &x->gonecap, p);
    }
  mocks_reset(x);
  for (uint32_t i = 0; i < x->nkept; i++)
    free(x->kept[i]);
  x->nkept = 0;
  release_outbufs(x);
  for (uint32_t i = 0; i < x->nfiles; i++)
    file_close(&x->files[i]);
  x->nfiles = 0;
  /* Forget this run's pointers: a stale copy would keep a block the library
   * leaked reachable, and the leak check at the end of a lone run (the run
   * server's children, `seqfuzz min`/`triage`) would miss it. */
  if (x->life.n) memset(x->ptrs, 0, x->life.n * sizeof *x->ptrs);
  if (x->ngone) memset(x->gone, 0, x->ngone * sizeof *x->gone);
  x->ngone = 0;
}

sf_run_status sf_exec_run(sf_exec *x, const sf_seq *s, const sf_exec_hooks *hooks,
                          sf_run_result *result) {
  sf_run_result r = {SF_RUN_OK, s->ncalls, 0, 0};
  sf_life_clear(&x->life);
  x->nkept = x->ngone = 0;
  x->known_finding = false;
  x->timed = x->runs++ % TIMED_EVERY == 0;
  sf_known_begin_run(x->known);
  if (s->api != x->api) {
    r.status = SF_RUN_INVALID;
    r.stop_call = 0;
    goto out;
  }
  if (x->nptrs < s->nvals) {
    void **p = realloc(x->ptrs, s->nvals * sizeof *p);
    if (!p) {
      r.status = SF_RUN_OOM;
      goto out;
    }
    x->ptrs = p;
    x->nptrs = s->nvals;
  }
  if (x->api->nstates) { /* every value's states start at 0 */
    size_t n = (size_t)s->nvals * x->api->nstates;
    if (x->statecap < n) {
      int64_t *st = realloc(x->states, n * sizeof *st);
      if (!st) {
        r.status = SF_RUN_OOM;
        goto out;
      }
      x->states = st;
      x->statecap = (uint32_t)n;
    }
    if (n) memset(x->states, 0, n * sizeof *x->states);
  }
  sf_call_outcome o;
  for (uint32_t ci = 0; ci < s->ncalls; ci++) {
    const sf_func *f = sf_seq_func(s, ci);
    const sf_arg *a = sf_seq_args(s, ci);
    memset(&o, 0, offsetof(sf_call_outcome, outs));
    o.call = ci;
    /* Run-time legality: handles alive (static rules) and non-NULL. */
    sf_run_status stop = SF_RUN_OK;
    for (uint32_t i = 0; i < f->nparams; i++) {
      const sf_param *p = &f->params[i];
      if (p->kind != SF_HANDLE || (p->flags & SF_P_OUT)) continue;
      if (a[i].bits == SF_NULL_REF) {
        if (!(p->flags & SF_P_NULLABLE)) stop = SF_RUN_INVALID;
      } else if (!sf_life_usable(&x->life, a[i].bits, p->type_index)) {
        stop = SF_RUN_INVALID;
      } else if (!x->ptrs[a[i].bits] && !(p->flags & SF_P_NULLABLE)) {
        stop = SF_RUN_NULL_HANDLE;
      }
      if (stop) break;
    }
    if (!stop && f->nrequires && !sf_oracle_requires_hold(x, s, ci)) stop = SF_RUN_PRECONDITION;
    if (!stop && x->known && sf_known_stops(x->known, s, ci)) stop = SF_RUN_KNOWN;
    if (stop) {
      r.status = stop;
      r.stop_call = ci;
      if (x->oracle_hooks) sf_oracle_after_call(x, s, &o);
      if (hooks && hooks->after_call) hooks->after_call(hooks->ctx, x, s, &o);
      break;
    }
    if (hooks && hooks->before_call) hooks->before_call(hooks->ctx, x, s, ci);
    if (x->oracle_hooks) sf_oracle_before_call(x, s, ci);
    if (x->trace_state) trace_state(x, s, ci);
    if (x->on_int_arg) tell_int_args(x, s, ci);
    if (!make_call(x, s, ci, &o)) {
      r.status = SF_RUN_OOM;
      r.stop_call = ci;
      break;
    }
    r.calls_made++;
    if (f->nsets) sf_oracle_apply_sets(x, s, &o);
    if (o.failed) {
      /* A failed destructor still consumed its handle, and so did a call
       * that steals; a struct allocated for an out value was never filled. */
      for (uint32_t i = 0; i < f->nparams; i++) {
        const sf_param *p = &f->params[i];
        if ((p->flags & SF_P_CONSUME) && a[i].bits != SF_NULL_REF &&
            ((f->flags & SF_F_DESTRUCTOR) || (p->flags & SF_P_STEAL))) {
          x->life.alive[a[i].bits] = 0;
          mark_gone(x, (uint32_t)a[i].bits);
          free_struct(x, (uint32_t)a[i].bits);
          /* and what it owned (owners precede what they own) */
          for (uint32_t v = (uint32_t)a[i].bits + 1; v < x->life.n; v++)
            if (x->life.owner[v] != UINT32_MAX && !x->life.alive[x->life.owner[v]])
              x->life.alive[v] = 0;
        } else if ((p->flags & SF_P_OUT) && p->kind == SF_HANDLE &&
                   x->api->handles[p->type_index].is_struct) {
          free((void *)(uintptr_t)o.outs[i]);
        }
      }
      /* A recoverable failure: the run goes on, what the call made is NULL. */
      bool go_on = (f->flags & SF_F_RECOVERABLE) != 0;
      if (go_on) {
        if (ci < 64) r.refused |= 1ULL << ci;
        if (sf_life_apply_failed(&x->life, s->calls[ci].func, a)) {
          r.status = SF_RUN_OOM;
          r.stop_call = ci;
          break;
        }
        for (uint32_t v = s->calls[ci].val0; v < x->life.n; v++)
          x->ptrs[v] = NULL;
      }
      if (x->oracle_hooks) sf_oracle_after_call(x, s, &o);
      if (hooks && hooks->after_call) hooks->after_call(hooks->ctx, x, s, &o);
      if (go_on) continue;
      r.status = SF_RUN_ERROR_RESULT;
      r.stop_call = ci;
      break;
    }
    for (uint32_t i = 0; i < f->nparams; i++)
      if ((f->params[i].flags & SF_P_CONSUME) && a[i].bits != SF_NULL_REF)
        if (mark_gone(x, (uint32_t)a[i].bits)) r.status = SF_RUN_OOM;
    if (sf_life_apply(&x->life, s->calls[ci].func, a)) r.status = SF_RUN_OOM;
    uint32_t vid = s->calls[ci].val0;
    if (f->ret.kind == SF_HANDLE) {
      x->ptrs[vid] = (void *)(uintptr_t)o.ret;
      if (f->owner_param < 0) unmark_gone(x, x->ptrs[vid]);
      vid++;
    }
    for (uint32_t i = 0; i < f->nparams; i++) {
      if (f->params[i].kind == SF_HANDLE && (f->params[i].flags & SF_P_OUT)) {
        x->ptrs[vid] = (void *)(uintptr_t)o.outs[i];
        unmark_gone(x, x->ptrs[vid]);
        vid++;
      }
    }
    if (x->oracle_hooks) sf_oracle_after_call(x, s, &o);
    if (x->coverage_types) observe_coverage(x, s, ci);
    if (hooks && hooks->after_call) hooks->after_call(hooks->ctx, x, s, &o);
    if (o.str && x->funcs[s->calls[ci].func].release)
      x->funcs[s->calls[ci].func].release((void *)o.str);
    for (uint32_t i = 0; i < f->nparams; i++) /* consumed structs: their memory is ours */
      if ((f->params[i].flags & SF_P_CONSUME) && a[i].bits != SF_NULL_REF)
        free_struct(x, (uint32_t)a[i].bits);
    if (r.status == SF_RUN_OOM) {
      r.stop_call = ci;
      break;
    }
  }
out:
  if (hooks && hooks->before_cleanup && r.status != SF_RUN_INVALID && r.status != SF_RUN_OOM)
    hooks->before_cleanup(hooks->ctx, x, s);
  if (x->oracle_hooks && r.status != SF_RUN_INVALID && r.status != SF_RUN_OOM)
    sf_oracle_before_cleanup(x, s);
  /* Values never produced (the run stopped early) must not be destroyed. */
  cleanup(x);
  if (x->oracle_hooks && r.status != SF_RUN_INVALID && r.status != SF_RUN_OOM)
    sf_oracle_after_run(x, s);
  /* A check found a known bug (by its signature): the run is set aside as
   * one that would complete a known bug's pattern, all its calls made. */
  if (x->known_finding && sf_run_legal(&r)) r.status = SF_RUN_KNOWN;
  if (result) *result = r;
  return r.status;
}

const sf_call_stats *sf_exec_call_stats(const sf_exec *x) {
  return x->call_stats;
}

void sf_exec_count_edges(sf_exec *x, uint32_t (*new_edges)(void), const bool *funcs) {
  x->new_edges = new_edges;
  x->count_funcs = funcs;
  if (new_edges) x->counted_edges = 0;
}

uint32_t sf_exec_counted_edges(const sf_exec *x) {
  return x->counted_edges;
}
