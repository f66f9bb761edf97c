/* The API parser: good grammars build the right model; bad ones get an exact
 * `file:line:col: message`; the fingerprint ignores layout, not meaning. */
#include "test_util.h"

static void test_demo_api_model(void **state) {
  (void)state;
  sf_api *api = load_api_file(DEMO_API);
  assert_string_equal(api->name, "kvstore");
  assert_int_equal(api->nfuncs, 12);
  assert_int_equal(api->nhandles, 2);
  assert_int_equal(api->nheaders, 1);
  assert_string_equal(api->headers[0], "kvstore.h");
  assert_int_equal(api->ndict, 3);

  const sf_func *open = &api->funcs[sf_api_find_func(api, "kv_open")];
  assert_int_equal(open->ret.kind, SF_HANDLE);
  assert_int_equal(open->err_cmp, SF_CMP_NULL);
  assert_int_equal(open->params[0].kind, SF_U32);
  assert_int_equal(open->params[0].lo, 1);
  assert_int_equal(open->params[0].hi, 64);
  assert_int_equal(open->params[1].kind, SF_FLAGS);
  assert_int_equal(open->nproduced, 1);

  const sf_func *put = &api->funcs[sf_api_find_func(api, "kv_put")];
  assert_int_equal(put->params[2].kind, SF_BUFFER);
  assert_int_equal(put->params[2].elem, SF_U8);
  assert_int_equal(put->params[2].len_param, 3);
  assert_true(put->params[3].flags & SF_P_LENGTH);
  assert_int_equal(put->params[3].len_of, 2);
  assert_int_equal(put->params[3].hi, 1024);
  assert_false(sf_param_is_input(&put->params[3]));
  assert_int_equal(put->err_cmp, SF_CMP_LT);
  assert_int_equal((int64_t)put->err_value, 0);
  assert_string_equal(put->params[1].ctype, "const char *");

  int32_t close = sf_api_find_func(api, "kv_close");
  assert_true(api->funcs[close].flags & SF_F_DESTRUCTOR);
  assert_true(api->funcs[close].params[0].flags & SF_P_CONSUME);
  assert_int_equal(api->handles[sf_api_find_handle(api, "kv_t")].destructor, close);
  assert_int_equal(api->handles[sf_api_find_handle(api, "kv_iter_t")].destructor, -1);

  const sf_func *merge = &api->funcs[sf_api_find_func(api, "kv_merge")];
  assert_true(merge->params[1].flags & SF_P_CONSUME);
  assert_false(merge->params[0].flags & SF_P_CONSUME);

  const sf_func *iter = &api->funcs[sf_api_find_func(api, "kv_iter")];
  assert_int_equal(iter->owner_param, 0);
  assert_int_equal(iter->ninvalidated_by, 4);
  assert_int_equal(iter->invalidated_by[0], sf_api_find_func(api, "kv_put"));

  const sf_func *next = &api->funcs[sf_api_find_func(api, "kv_iter_next")];
  assert_true(next->params[1].flags & SF_P_OUT);
  assert_int_equal(next->params[1].kind, SF_U64);
  assert_int_equal(next->nproduced, 0);
  assert_true(api->funcs[sf_api_find_func(api, "kv_count")].flags & SF_F_OBSERVER);
  sf_api_free(api);
}

static void test_types_and_constraints(void **state) {
  (void)state;
  sf_api *api = parse_api_text(
      "api t;\n"
      "handle h = \"struct h\";\n"
      "enum mode : u8 { M_A = 0, M_B = 5 }\n"
      "func h *mk(out h **second, i8 a in [-3, 3], u16 b != 0 != 7, i64 c >= -1, f32 x, f64 y,\n"
      "           bool z, mode m, nullable string s, u8 key[16], i32 v[n], u32 n < 9,\n"
      "           out u32 *cnt) error null;\n"
      "func void h_free(h *p) destructor;\n"
      "func const char *h_str(h *p) owned_by p;\n"
      "func int h_try(h *p) error < 0 recoverable observer;\n");
  const sf_func *f = &api->funcs[0];
  assert_false(f->flags & SF_F_RECOVERABLE);
  assert_true(api->funcs[3].flags & SF_F_RECOVERABLE);
  assert_int_equal(api->funcs[3].err_cmp, SF_CMP_LT);
  assert_int_equal(f->nparams, 13);
  assert_int_equal(f->nproduced, 2);
  assert_int_equal((int64_t)f->params[1].lo, -3);
  assert_int_equal((int64_t)f->params[1].hi, 3);
  assert_int_equal(f->params[2].nexcluded, 2);
  assert_false(sf_param_accepts(&f->params[2], 7));
  assert_true(sf_param_accepts(&f->params[2], 8));
  assert_int_equal((int64_t)f->params[3].lo, -1);
  assert_int_equal(f->params[7].kind, SF_ENUM);
  assert_int_equal(api->enums[0].base, SF_U8);
  assert_int_equal(api->enums[0].consts[1].value, 5);
  assert_true(f->params[8].flags & SF_P_NULLABLE);
  assert_int_equal(f->params[9].kind, SF_ARRAY);
  assert_int_equal(f->params[9].array_len, 16);
  assert_int_equal(f->params[10].kind, SF_BUFFER);
  assert_int_equal(f->params[10].elem, SF_I32);
  assert_int_equal(f->params[11].hi, 8);
  assert_string_equal(f->params[0].ctype, "struct h **");
  assert_int_equal(api->funcs[2].ret.kind, SF_STRING);
  sf_api_free(api);
}

/* Each bad grammar and the exact first error it must produce. */
static const struct {
  const char *text;
  const char *error;
} bad[] = {
    {"api t;\nfunc void f(int x);\nfunc void f(int y);\n", "t.api:3:11: 'f' is already declared"},
    {"api t;\nfunc void f(wat x);\n", "t.api:2:13: unknown type 'wat'"},
    {"api t;\nhandle h;\nfunc void f(h x);\n", "t.api:3:13: a handle is passed as 'T *name'"},
    {"api t;\nfunc void f(int x in [5, 1]);\n", "t.api:2:19: range [5, 1] is empty or outside i32"},
    {"api t;\nfunc void f(u8 x in [0, 300]);\n",
     "t.api:2:18: range [0, 300] is empty or outside u8"},
    {"api t;\nfunc void f(bytes b[m], int n);\n", "t.api:2:21: no parameter named 'm'"},
    {"api t;\nfunc void f(bytes b);\n",
     "t.api:2:13: bytes needs a length: bytes name[n] or bytes name[16]"},
    {"api t;\nfunc int f(int x) error null;\n", "t.api:2:25: 'error null' needs a pointer result"},
    {"api t;\nfunc int f(int x) recoverable;\n",
     "t.api:2:19: 'recoverable' goes right after an error convention (error < 0 recoverable)"},
    {"api t;\nhandle h;\nfunc h *f(int x) invalidated_by g;\n",
     "t.api:3:34: invalidated_by needs owned_by"},
    {"api t;\nhandle h;\nfunc h *f(h *p) owned_by q;\n", "t.api:3:26: no parameter named 'q'"},
    {"api t;\nhandle h;\nfunc h *f(h *p) owned_by p invalidated_by nope;\n",
     "t.api:3:43: no function named 'nope'"},
    {"api t;\nfunc void f(int x) destructor;\n",
     "t.api:2:20: a destructor needs a handle parameter"},
    {"api t;\nfunc void f(int x);\nbogus;\n",
     "t.api:3:1: expected a declaration (api, header, library, handle, default, enum, flags, "
     "dict, callback, vtable, state, func, "
     "invariant or differential)"},
    {"api t;\nheader \"a.h;\n", "t.api:2:8: unterminated string literal"},
    {"api t;\nfunc void f(int x != 99999999999999999999);\n",
     "t.api:2:22: integer literal out of range"},
    {"func void f(int x);\n", "t.api:1:1: missing 'api NAME;' declaration"},
    {"api t;\n", "t.api:1:1: the API declares no function"},
    {"api t;\nenum e { A = 1 }\nenum g { A = 2 }\nfunc void f(e x);\n",
     "t.api:3:10: constant 'A' is already declared"},
    {"api t;\nfunc void f(int x)\n", "t.api:3:1: expected ';'"},
    {"api t;\nfunc void f(consume int x);\n", "t.api:2:21: only handle parameters can be consumed"},
    {"api t;\nfunc void f(int x @);\n", "t.api:2:19: unexpected character"},
    {"api t;\nfunc void f(int x);\n/* never closed\nfunc void g(int y);\n",
     "t.api:3:1: unterminated comment"},
    {"api t;\nfunc void f(int x >= 10 in [0, 5]);\n",
     "t.api:2:25: constraints leave no legal value"},
    {"api t;\nfunc void f(u32 x == 5 != 5);\n", "t.api:2:24: constraints leave no legal value"},
    {"api t;\nfunc size_t f(int x) error < 0;\n",
     "t.api:2:30: this error convention can never hold for u64"},
    {"api t;\nfunc u8 f(int x) error == 300;\n", "t.api:2:27: 300 is outside the result type u8"},
    {"api t;\nhandle h;\nfunc h *p(string s, int n) inverse_of q;\n",
     "t.api:3:28: inverse_of needs a function of one string returning a handle, or of one handle "
     "and one string or byte buffer returning no handle"},
    {"api t;\nhandle h;\nfunc void p(h *d, h *e, string s) inverse_of q;\n",
     "t.api:3:35: inverse_of needs a function of one string returning a handle, or of one handle "
     "and one string or byte buffer returning no handle"},
    {"api t;\nhandle h;\nfunc void p(h *d, string s) inverse_of q;\n"
     "func string q(h *x, out u64 *n);\n",
     "t.api:3:40: 'q' returns bytes (with a length): 'p' must take a byte buffer, not a string"},
    {"api t;\nhandle h;\nfunc h *p(string s) inverse_of q;\nfunc string q(h *x, out u64 *n);\n",
     "t.api:3:32: 'q' returns bytes (with a length): 'p' must take a byte buffer, not a string"},
    {"api t;\nhandle h;\nfunc void p(h *d, bytes b[n], u32 n) inverse_of q;\n"
     "func string q(h *x, int n);\n",
     "t.api:3:49: 'q' must return a string from one handle (and its length in an out integer)"},
    {"api t;\nhandle h;\nhandle g;\nfunc h *p(string s) inverse_of q;\nfunc string q(g *x);\n",
     "t.api:4:32: 'q' must return a string from one 'h' handle"},
    {"api t;\nhandle h;\nfunc h *p(string s) inverse_of nope;\n",
     "t.api:3:32: no function named 'nope'"},
    /* Contracts (ensures, invariant) and the differential statement. */
    {"api t;\nhandle h;\nfunc int f(h *p, int x) ensures y > 0;\n",
     "t.api:3:33: unknown name 'y' (a parameter, 'ret', a constant or an observer)"},
    {"api t;\nhandle h;\nfunc int n(h *p) observer;\ninvariant h v: n(v) == old(n(v));\n",
     "t.api:4:24: old() is for postconditions: an invariant holds at all times"},
    {"api t;\nfunc int f(int x) ensures old(ret) == 0;\n",
     "t.api:2:31: 'ret' has no value before the call"},
    {"api t;\nfunc int f(int x) ensures old(old(x)) == 0;\n", "t.api:2:31: old() inside old()"},
    /* Rules of issue 18: preconditions, dependents, C shapes. */
    {"api t;\nfunc int f(int x) requires ret > 0;\n",
     "t.api:2:28: 'ret' has no value before the call"},
    {"api t;\nfunc int f(int x) requires old(x) > 0;\n",
     "t.api:2:28: old() is for postconditions: a precondition is read before the call"},
    {"api t;\nfunc int f(out int *x) requires x > 0;\n",
     "t.api:2:33: 'x' is written by the call: it has no value before it"},
    {"api t;\nhandle h;\nfunc h *f(h *p) depends_on q;\n", "t.api:3:28: no parameter named 'q'"},
    {"api t;\nhandle h;\nfunc h *f(consume h *p) depends_on p;\n",
     "t.api:3:36: what a result depends on must be a borrowed handle parameter"},
    {"api t;\nhandle h;\nfunc int f(h *p) depends_on p;\n",
     "t.api:3:18: depends_on needs a handle result"},
    {"api t;\nhandle h;\nfunc h *f(h *p) owned_by p depends_on p;\n",
     "t.api:3:40: an owned result dies with its owner: drop depends_on or owned_by"},
    {"api t;\nhandle h;\nfunc int f(h *p);\ndefault nullable;\n",
     "t.api:4:1: 'default nullable' comes before every func"},
    {"api t;\nfunc int f(steal int x);\n", "t.api:2:18: only handle parameters can be consumed"},
    {"api t;\nfunc int f(inout out int *x);\n", "t.api:2:22: inout takes no other qualifier"},
    {"api t;\nfunc int f(memfile *m);\n",
     "t.api:2:12: a memfile or memfd is written 'memfile name': its bytes are the value"},
    {"api t;\nfunc int f(out memfile m);\n", "t.api:2:16: a memfile takes only keep"},
    {"api t;\nhandle s struct;\nfunc int f(out s **p);\n",
     "t.api:3:16: a struct the caller allocates is written 'out T *name'"},
    {"api t;\nfunc int f(out bool32 b);\n", "t.api:2:16: bool32 is passed by value"},
    {"api t;\nhandle h;\nfunc void f(h *p, out int *k) ensures old(k) == 0;\n",
     "t.api:3:43: 'k' is written by the call: it has no value before it"},
    {"api t;\nfunc void f(int x) ensures ret == 0;\n",
     "t.api:2:28: 'ret': the function returns nothing"},
    {"api t;\nhandle h;\nfunc int f(h *p) ensures g(p) == 0;\nfunc int g(h *p);\n",
     "t.api:3:26: 'g' is not an observer: a contract may call only observers"},
    {"api t;\nhandle h;\nfunc int f(h *p) ensures n(p, 1) == 0;\nfunc int n(h *p) observer;\n",
     "t.api:3:26: 'n' takes 1 argument, not 2"},
    {"api t;\nhandle h;\nfunc int f(h *p) ensures nope(p) == 0;\n",
     "t.api:3:26: no function named 'nope'"},
    {"api t;\nhandle h;\nhandle g;\nfunc int n(h *p) observer;\n"
     "func int f(g *q) ensures n(q) == 0;\n",
     "t.api:5:26: argument 1 of 'n' must be h"},
    {"api t;\nfunc int f(int x) ensures x + ;\n", "t.api:2:31: expected a value, a name or '('"},
    {"api t;\nhandle h;\ninvariant q v: 1;\nfunc void f(h *p);\n",
     "t.api:3:11: expected a handle type"},
    {"api t;\nfunc int f(int x);\ndifferential b { zz = b_zz; }\n",
     "t.api:3:18: no function or release symbol named 'zz' (declare it before the block)"},
    {"api t;\nfunc int f(int x);\ndifferential b { ignore f, zz; }\n",
     "t.api:3:28: no function named 'zz' (declare it before the block)"},
    {"api t;\nfunc int f(int x);\ndifferential b { prefix \"b_\"; }\nfunc int g(int y);\n",
     "t.api:4:6: functions are declared before the differential statement"},
    {"api t;\nfunc int f(int x);\ndifferential b { tolerance f 2; }\n",
     "t.api:3:30: a relative tolerance is at least 0 and below 1"},
    {"api t;\nfunc int f(int x);\ndifferential b { }\ndifferential c { }\n",
     "t.api:4:14: one differential statement per API"},
    /* Callbacks, constants, field reads, states, locks, variadics. */
    {"api t;\ncallback double cb(int x);\n",
     "t.api:2:10: a callback returns void, an integer or (an allocator) a pointer"},
    {"api t;\ncallback pointer cb(size_t n);\n",
     "t.api:2:30: a callback returning a pointer is an allocator: 'allocates n'"},
    {"api t;\ncallback pointer cb(pointer n) allocates n;\n",
     "t.api:2:42: expected an integer parameter (the size)"},
    {"api t;\ncallback int cb(pointer p) frees p;\n", "t.api:2:28: a free callback returns void"},
    {"api t;\ncallback int cb(out bytes b[n]);\n", "t.api:2:29: no integer parameter named 'n'"},
    {"api t;\ncallback int cb(pointer p) returns count;\n",
     "t.api:2:28: 'returns count' needs an 'out bytes' chunk"},
    {"api t;\ncallback int cb(out int *n count);\n",
     "t.api:2:1: a 'count' needs an 'out bytes' chunk"},
    {"api t;\ncallback int cb(int x) returns in [0, 1] default 7;\n",
     "t.api:2:51: the default is outside the callback's range"},
    {"api t;\ncallback void cb(void);\nfunc int f(out cb c);\n",
     "t.api:3:16: a callback is written 'CALLBACK name' (nullable allowed)"},
    {"api t;\nvtable io { int read; };\n",
     "t.api:2:13: a vtable member is 'CALLBACK name' (nullable allowed)"},
    {"api t;\ncallback void cb(void);\nvtable io { cb a; cb a; };\n",
     "t.api:3:19: duplicate member"},
    {"api t;\nvtable io { };\n", "t.api:2:1: a vtable has at least one member"},
    {"api t;\ncallback void cb(void);\nvtable io { cb a; };\nfunc int f(io v);\n",
     "t.api:4:12: a vtable is passed as 'VTABLE *name' (nullable allowed)"},
    {"api t;\ncallback void cb(void);\nvtable cb { cb a; };\n",
     "t.api:3:8: a callback has this name"},
    {"api t;\nfunc int f(int x = 3);\n", "t.api:2:20: expected a C expression in quotes"},
    {"api t;\nfunc int f(consume int x = \"1\");\n",
     "t.api:2:20: a constant is a number, a string or a pointer, with no qualifier"},
    {"api t;\nhandle h;\nfunc int f(h *p, int x) reads p->n;\n",
     "t.api:3:25: a field read takes exactly one handle parameter"},
    {"api t;\nhandle h;\nfunc int f(h *p) reads q->n;\n",
     "t.api:3:24: expected the parameter's name, then '->' and a member"},
    {"api t;\nhandle h;\nfunc int f(h *p) reads p.n;\n",
     "t.api:3:18: write 'reads p->member' (the handle is a pointer)"},
    {"api t;\nstate int s(int *x);\n",
     "t.api:2:13: a state belongs to a handle: 'state T name(H *h)'"},
    {"api t;\nhandle h;\nfunc void f(h *p) sets s(p) = 1;\n",
     "t.api:3:24: expected a state declared before ('state T name(H *h);')"},
    {"api t;\nhandle h;\nhandle g;\nstate int s(h *x);\nfunc void f(g *p) sets s(p) = 1;\n",
     "t.api:5:26: expected an input parameter of the state's handle type"},
    {"api t;\nhandle h;\nstate int s(h *x);\nfunc void f(h *p) requires s(p, p) == 0;\n",
     "t.api:4:28: state 's' takes one h"},
    {"api t;\nhandle h;\nfunc int f(h *p) coverage;\n",
     "t.api:3:18: coverage marks an observer that takes only its handle and returns a number, a "
     "bool or an enum (no requires)"},
    {"api t;\nhandle h;\nfunc int f(h *p, int i) observer coverage;\n",
     "t.api:3:34: coverage marks an observer that takes only its handle and returns a number, a "
     "bool or an enum (no requires)"},
    {"api t;\nhandle h;\nfunc string f(h *p) coverage observer;\n",
     "t.api:3:21: coverage marks an observer that takes only its handle and returns a number, a "
     "bool or an enum (no requires)"},
    {"api t;\nhandle h;\nstate int s(h *x) coverage observer;\n", "t.api:3:28: expected ';'"},
    {"api t;\nhandle h;\nfunc void f(h *p, h *q) p depends_on p;\n",
     "t.api:3:25: a handle cannot depend on itself"},
    {"api t;\nhandle h;\nfunc int f(h *p) locks p;\n",
     "t.api:3:18: locks needs a handle result the caller owns"},
    {"api t;\nfunc int f(..., int x);\n", "t.api:2:12: expected a type"},
    {"api t;\nfunc int f(int x, ..., char c);\n",
     "t.api:2:24: a variadic argument is promoted: write int or double"},
    {"api t;\nfunc int f(printf(c) fmt);\n", "t.api:2:19: expected 'sqlite'"},
    {"api t;\nfunc int f(pointer p[4]);\n", "t.api:2:21: a constant is one value, not an array"},
    {"api t;\nfunc int f(out pointer p[4]);\n", "t.api:2:16: a pointer is a constant ('pointer p' "
                                                "or 'pointer p = \"EXPR\"') or 'out pointer *p'"},
};

static void test_bad_grammars(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char err[1024];
    sf_api *api = sf_api_parse(bad[i].text, strlen(bad[i].text), "t.api", err, sizeof err);
    assert_null(api);
    char first[1024];
    snprintf(first, sizeof first, "%s", err);
    char *nl = strchr(first, '\n');
    if (nl) *nl = 0;
    if (strcmp(first, bad[i].error) != 0)
      fprintf(stderr, "case %zu: got '%s'\n   expected '%s'\n", i, first, bad[i].error);
    assert_string_equal(first, bad[i].error);
  }
}

/* The shapes of issues 18 and 19 as the model holds them. */
static void test_callbacks_constants_states(void **state) {
  (void)state;
  const char *text =
      "api t;\nhandle h;\nhandle b;\n"
      "callback int rd(pointer d, out bytes buf[size], size_t size, out size_t *got count)\n"
      "    returns in [0, 1] default 1;\n"
      "callback u32 in(pointer d, out bytes *buf) returns count;\n"
      "callback pointer al(pointer o, u32 items, u32 size) allocates items * size;\n"
      "callback void fr(pointer o, pointer p) frees p;\n"
      "state bool full(h *x);\n"
      "state int uses(h *x) coverage;\n"
      "func h *mk(pointer alloc, string v = \"VERSION\", int size = \"(int)sizeof(struct h)\");\n"
      "func void set(h *p, nullable rd r, in i);\n"
      "func int n(h *p) observer reads p->a.n;\n"
      "func int m(h *p) coverage observer;\n"
      "func int use(h *p, h *q) p depends_on q sets full(p) = ret == -1 || ret >= 2;\n"
      "func int get(h *p, out string *s release free_it, out pointer *l) requires full(p);\n"
      "func b *lock(h *p) locks p;\n"
      "func int cfg(h *p, int op, ..., int on, out int *res);\n"
      "func int pr(printf(sqlite) fmt);\n"
      "vtable io = \"struct io\" { rd read; nullable in input; };\n"
      "func int load(h *p, nullable io *m);\n";
  char err[1024];
  sf_api *api = sf_api_parse(text, strlen(text), "t.api", err, sizeof err);
  if (!api) fprintf(stderr, "%s\n", err);
  assert_non_null(api);
  assert_int_equal(api->ncallbacks, 4);
  /* `coverage`: on a state, on an observer (either order of attributes). */
  assert_false(api->states[0].coverage);
  assert_true(api->states[1].coverage);
  assert_true(api->funcs[sf_api_find_func(api, "m")].flags & SF_F_COVERAGE);
  assert_false(api->funcs[sf_api_find_func(api, "n")].flags & SF_F_COVERAGE);
  assert_true(sf_api_coverage_state(api, 0));  /* h */
  assert_false(sf_api_coverage_state(api, 1)); /* b */
  assert_int_equal(api->nvtables, 1);
  assert_string_equal(api->vtables[0].ctype, "struct io");
  assert_int_equal(api->vtables[0].nslots, 2);
  assert_string_equal(api->vtables[0].slots[1].member, "input");
  assert_int_equal(api->vtables[0].slots[1].callback, 1);
  assert_true(api->vtables[0].slots[1].nullable);
  assert_false(api->vtables[0].slots[0].nullable);
  const sf_param *io = &api->funcs[sf_api_find_func(api, "load")].params[1];
  assert_true(io->flags & SF_P_VTABLE);
  assert_true(io->flags & SF_P_NULLABLE);
  assert_string_equal(io->ctype, "struct io *");
  /* a value: each member's script after its 2-byte length; cut at the end */
  const uint8_t v[] = {2, 0, 'a', 'b', 9, 0, 'c'};
  const uint8_t *scripts[2];
  uint32_t lens[2];
  sf_vtable_scripts(&api->vtables[0], v, sizeof v, scripts, lens);
  assert_int_equal(lens[0], 2);
  assert_memory_equal(scripts[0], "ab", 2);
  assert_int_equal(lens[1], 1);
  assert_int_equal(scripts[1][0], 'c');
  sf_vtable_scripts(&api->vtables[0], v, 3, scripts, lens);
  assert_int_equal(lens[0], 1);
  assert_int_equal(lens[1], 0);
  assert_int_equal(api->callbacks[2].alloc_size, 1);
  assert_int_equal(api->callbacks[2].alloc_by, 2);
  assert_int_equal(api->callbacks[3].frees, 1);
  assert_int_equal(api->callbacks[3].alloc_size, -1);
  const sf_callback *rd = &api->callbacks[0];
  assert_int_equal(rd->nparams, 4);
  assert_int_equal(rd->params[1].kind, SF_BUFFER);
  assert_int_equal(rd->params[1].len_param, 2);
  assert_true(rd->params[3].flags & SF_P_LENGTH); /* count */
  assert_int_equal(rd->ret_default, 1);
  assert_true(api->callbacks[1].ret_is_count);
  assert_int_equal(api->callbacks[1].params[1].len_param, -1);
  const sf_func *mk = &api->funcs[sf_api_find_func(api, "mk")];
  for (uint32_t j = 0; j < 3; j++) {
    assert_true(mk->params[j].flags & SF_P_CONST);
    assert_false(sf_param_is_input(&mk->params[j]));
  }
  assert_null(mk->params[0].cexpr);
  assert_string_equal(mk->params[2].cexpr, "(int)sizeof(struct h)");
  const sf_func *set = &api->funcs[sf_api_find_func(api, "set")];
  assert_true(set->params[1].flags & SF_P_CALLBACK);
  assert_true(set->params[1].flags & SF_P_NULLABLE);
  assert_int_equal(set->params[2].type_index, 1);
  assert_string_equal(api->funcs[sf_api_find_func(api, "n")].reads, "->a.n");
  const sf_func *use = &api->funcs[sf_api_find_func(api, "use")];
  assert_int_equal(use->rebind_param, 0);
  assert_int_equal(use->rebind_to, 1);
  assert_int_equal(use->nsets, 1);
  /* `-1` is minus one (the lexer negates a negative literal once) */
  const sf_expr *eq = use->sets[0].value.expr->kids[0];
  assert_int_equal(eq->op, SF_E_EQ);
  assert_int_equal(eq->kids[1]->value, -1);
  const sf_func *get = &api->funcs[sf_api_find_func(api, "get")];
  assert_string_equal(get->params[1].release, "free_it");
  assert_string_equal(get->params[2].ctype, "void **");
  assert_int_equal(get->requires[0].expr->op, SF_E_STATE);
  assert_int_equal(sf_func_state_observer(get), -1); /* preconditions: not a state observer */
  assert_int_equal(api->funcs[sf_api_find_func(api, "lock")].locks_param, 0);
  const sf_func *cfg = &api->funcs[sf_api_find_func(api, "cfg")];
  assert_false(cfg->params[1].flags & SF_P_VARIADIC);
  assert_true(cfg->params[2].flags & SF_P_VARIADIC);
  assert_true(cfg->params[3].flags & SF_P_VARIADIC);
  assert_true(api->funcs[sf_api_find_func(api, "pr")].params[0].flags & SF_P_PRINTF_SQLITE);
  sf_api_free(api);
}

static void test_reports_every_error(void **state) {
  (void)state;
  const char *text =
      "api t;\nfunc void f(wat x);\nfunc void g(int y in [2, 1]);\nfunc void h(int z);\n";
  char err[1024];
  assert_null(sf_api_parse(text, strlen(text), "t.api", err, sizeof err));
  assert_non_null(strstr(err, "t.api:2:13: unknown type 'wat'"));
  assert_non_null(strstr(err, "t.api:3:19: range [2, 1] is empty"));
}

/* A flags result can carry an error convention (its base integer compares). */
static void test_flags_result_error(void **state) {
  (void)state;
  sf_api *api =
      parse_api_text("api t; flags fl : u8 { A = 1, B = 2 } func fl f(int x) error == 0;");
  assert_int_equal(api->funcs[0].ret.kind, SF_FLAGS);
  assert_int_equal(api->funcs[0].err_cmp, SF_CMP_EQ);
  sf_api_free(api);
  char err[256];
  const char *bad = "api t; flags fl : u8 { A = 1 } func fl f(int x) error == 300;";
  assert_null(sf_api_parse(bad, strlen(bad), "t.api", err, sizeof err));
  assert_non_null(strstr(err, "300 is outside the result type u8"));
}

/* inverse_of: a parser names the printer whose text it reads. */
static void test_inverse_of(void **state) {
  (void)state;
  sf_api *api = parse_api_text("api t; handle h; func h *parse(string s) error null inverse_of "
                               "print; func string print(h *x); func void other(h *x);");
  assert_int_equal(api->funcs[0].inverse_of, 1);
  assert_int_equal(api->funcs[1].inverse_of, -1);
  assert_int_equal(api->funcs[2].inverse_of, -1);
  assert_int_equal(api->funcs[1].ret.len_param, -1);
  sf_api_free(api);
  /* A feeder of bytes, its printer giving the length in an out integer. */
  api = parse_api_text("api t; handle h; handle g; func void put(h *d, bytes b[n], u32 n) "
                       "inverse_of pending; func string pending(g *x, out u64 *len);");
  assert_int_equal(api->funcs[0].inverse_of, 1);
  assert_int_equal(api->funcs[1].ret.len_param, 1);
  sf_api_free(api);
}

/* Contracts and the differential statement in the model; observers may be
 * declared after the contracts that call them. */
static void test_oracles_model(void **state) {
  (void)state;
  sf_api *api = parse_api_text(
      "api t; handle h;\n"
      "func h *mk(int n) error null;\n"
      "func void rm(h *p) destructor;\n"
      "func int add(h *p, int v) error < 0\n"
      "  ensures ret < 0 || size(p) == old(size(p)) + 1\n"
      "  ensures old(size(p)) >= 0 && name(p) != \"x\";\n"
      "func long clock(h *p) nondeterministic;\n"
      "func int size(h *p) observer;\n"
      "func char *name(h *p) observer;\n"
      "invariant h it: size(it) >= 0;\n"
      "differential v2 { prefix \"v2_\"; rm = v2_destroy; ignore clock; tolerance size 0.5; }\n");
  const sf_func *add = &api->funcs[sf_api_find_func(api, "add")];
  assert_int_equal(add->nensures, 2);
  assert_int_equal(add->ensures[0].nold, 1);
  assert_int_equal(add->ensures[1].nold, 1);
  assert_int_equal(add->ensures[0].line, 5);
  assert_string_equal(add->ensures[0].text, "ret < 0 || size(p) == old(size(p)) + 1");
  const sf_expr *e = add->ensures[0].expr;
  assert_int_equal(e->op, SF_E_OR);
  assert_int_equal(e->kids[1]->op, SF_E_EQ);
  assert_int_equal(e->kids[1]->kids[0]->op, SF_E_CALL);
  assert_int_equal(e->kids[1]->kids[0]->index, sf_api_find_func(api, "size"));
  assert_int_equal(e->kids[1]->kids[1]->op, SF_E_ADD);
  assert_int_equal(e->kids[1]->kids[1]->kids[0]->op, SF_E_OLD);
  assert_true(api->funcs[sf_api_find_func(api, "clock")].flags & SF_F_NONDETERMINISTIC);
  assert_int_equal(api->ninvariants, 1);
  assert_int_equal(api->invariants[0].handle, 0);
  assert_string_equal(api->invariants[0].var, "it");
  assert_int_equal(api->invariants[0].contract.nold, 0);
  assert_non_null(api->diff);
  assert_string_equal(api->diff->name, "v2");
  char buf[64];
  assert_string_equal(sf_diff_symbol(api, (uint32_t)sf_api_find_func(api, "rm"), buf, sizeof buf),
                      "v2_destroy");
  assert_string_equal(sf_diff_symbol(api, (uint32_t)sf_api_find_func(api, "add"), buf, sizeof buf),
                      "v2_add");
  assert_true(api->diff->ignore[sf_api_find_func(api, "clock")]);
  assert_false(api->diff->ignore[sf_api_find_func(api, "add")]);
  assert_true(api->diff->tolerance[sf_api_find_func(api, "size")] == 0.5);
  sf_api_free(api);
  /* Without a prefix, an unmapped function calls its own symbol. */
  api = parse_api_text("api t; func int f(int x); func int g(int x); differential b { g = gb; }");
  assert_string_equal(sf_diff_symbol(api, 0, buf, sizeof buf), "f");
  assert_string_equal(sf_diff_symbol(api, 1, buf, sizeof buf), "gb");
  sf_api_free(api);
}

/* Oracles do not change what an input means: binary inputs stay valid. */
static void test_fingerprint_ignores_oracles(void **state) {
  (void)state;
  sf_api *a = parse_api_text("api t; handle h; func h *mk(int n) error null;\n"
                             "func int f(h *p, int v); func int n(h *p) observer;\n");
  sf_api *b = parse_api_text("api t; handle h; func h *mk(int n) error null ensures ret != null;\n"
                             "func int f(h *p, int v) nondeterministic ensures n(p) >= old(n(p));\n"
                             "func int n(h *p) observer;\n"
                             "invariant h x: n(x) >= 0;\n"
                             "differential two { prefix \"two_\"; ignore f; }\n");
  assert_int_equal(a->fingerprint, b->fingerprint);
  sf_api_free(a);
  sf_api_free(b);
}

static void test_fingerprint(void **state) {
  (void)state;
  const char *a = "api t; handle h; func h *mk(int n in [1, 4]) error null;";
  const char *b =
      "# comment\napi t;\n\nhandle h;   // more\nfunc h *mk(int n in [1,4])\n  error null;\n"
      "header \"x.h\";\n";
  const char *c = "api t; handle h; func h *mk(int n in [1, 5]) error null;";
  sf_api *x = parse_api_text(a), *y = parse_api_text(b), *z = parse_api_text(c);
  assert_int_equal(x->fingerprint, y->fingerprint);
  assert_int_not_equal(x->fingerprint, z->fingerprint);
  sf_api_free(x);
  sf_api_free(y);
  sf_api_free(z);
}

/* Every prefix of a good grammar must parse or fail cleanly (no crash, no
 * leak under ASan/LSan). */
static void test_prefixes_and_garbage(void **state) {
  (void)state;
  FILE *fp = fopen(DEMO_API, "rb");
  assert_non_null(fp);
  char text[8192];
  size_t n = fread(text, 1, sizeof text, fp);
  fclose(fp);
  char err[256];
  for (size_t len = 0; len <= n; len++)
    sf_api_free(sf_api_parse(text, len, "p.api", err, sizeof err));
  srand(7);
  for (int i = 0; i < 2000; i++) {
    char junk[512];
    memcpy(junk, text, sizeof junk);
    for (int k = 0; k < 8; k++)
      junk[rand() % (int)sizeof junk] = (char)rand();
    sf_api_free(sf_api_parse(junk, sizeof junk, "j.api", err, sizeof err));
    sf_api_free(sf_api_parse(junk, sizeof junk, "j.api", NULL, 0));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_demo_api_model),
      cmocka_unit_test(test_types_and_constraints),
      cmocka_unit_test(test_bad_grammars),
      cmocka_unit_test(test_callbacks_constants_states),
      cmocka_unit_test(test_reports_every_error),
      cmocka_unit_test(test_inverse_of),
      cmocka_unit_test(test_fingerprint),
      cmocka_unit_test(test_flags_result_error),
      cmocka_unit_test(test_prefixes_and_garbage),
      cmocka_unit_test(test_oracles_model),
      cmocka_unit_test(test_fingerprint_ignores_oracles),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
