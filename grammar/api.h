/* api.h: the API model and the parser of the API description language.
 *
 * An API description (a `.api` file, see docs/grammar.md) says which functions
 * of a C library seqfuzz may call, the types of their parameters, who owns
 * which handle, and what counts as legal use. sf_api_parse() turns the text
 * into an immutable sf_api that every other module reads: the sequence codec,
 * the executor, the mutator, the solver and the simplifier.
 *
 * Ownership: an sf_api owns all its strings and arrays; free it with
 * sf_api_free(). It is never modified after parsing, so it may be shared. */
#ifndef SF_API_H
#define SF_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sf_buf;

/* Kinds of values a parameter or result can have. */
typedef enum sf_kind {
  SF_VOID,
  SF_BOOL,
  SF_I8,
  SF_I16,
  SF_I32,
  SF_I64,
  SF_U8,
  SF_U16,
  SF_U32,
  SF_U64,
  SF_F32,
  SF_F64,
  SF_ENUM,   /* one of named constants; type_index names the sf_enum */
  SF_FLAGS,  /* OR of named constants; type_index names the sf_enum */
  SF_STRING, /* NUL-terminated char string */
  SF_BUFFER, /* pointer to `elem` items; the count goes to param len_param */
  SF_ARRAY,  /* pointer to exactly array_len `elem` items */
  SF_HANDLE, /* pointer to an opaque object; type_index names the sf_handle_type */
} sf_kind;

/* Size in bytes of a numeric kind (1..8), 0 for the others. */
unsigned sf_kind_size(sf_kind k);
bool sf_kind_is_int(sf_kind k);
bool sf_kind_is_signed(sf_kind k);
/* Grammar spelling of a primitive kind ("u32", "f64", ...). */
const char *sf_kind_name(sf_kind k);

/* Parameter flags. */
enum {
  SF_P_OUT = 1 << 0,      /* pointer the call fills in (a handle or a number) */
  SF_P_CONSUME = 1 << 1,  /* handle ownership moves to the callee */
  SF_P_NULLABLE = 1 << 2, /* NULL is a legal argument */
  SF_P_KEEP = 1 << 3,     /* buffer/string must outlive the call (freed at the end) */
  SF_P_LENGTH = 1 << 4,   /* filled in from the buffer named by len_of */
  /* `steal`: consumed whether the call succeeds or fails (with SF_P_CONSUME). */
  SF_P_STEAL = 1 << 5,
  /* `inout T *len`: a length passed by pointer; the callee may update it. */
  SF_P_INOUT = 1 << 6,
  /* An SF_BUFFER of bytes (len_param -1) passed as a FILE * (`memfile`) or
   * a file descriptor (`memfd`) on a private in-memory copy of its bytes. */
  SF_P_MEMFILE = 1 << 7,
  SF_P_MEMFD = 1 << 8,
  /* `bool32`: an SF_BOOL passed as a C int. */
  SF_P_INT_BOOL = 1 << 9,
  /* A `consume`d memfd: the callee closes it (the harness only when the call
   * failed). */
  SF_P_GIVEN = 1 << 10,
  /* `printf fmt`, the last parameter: a format and the variadic arguments
   * its conversions take (an SF_STRING; seq.h: sf_printf_parse). */
  SF_P_PRINTF = 1 << 11,
  /* `T name = "C expression"`, or `pointer name` (a null pointer): a value
   * the build computes (`SQLITE_TRANSIENT`, `sizeof(z_stream)`), the same in
   * every call; not an input. cexpr holds the expression (NULL: 0). */
  SF_P_CONST = 1 << 12,
  /* A function pointer the harness implements with a mock (docs/grammar.md
   * §3.7): an SF_BUFFER of bytes (len_param -1) that is the mock's script;
   * type_index names the sf_callback. */
  SF_P_CALLBACK = 1 << 13,
  /* `printf(sqlite) fmt`: SQLite's dialect (seq.h: sf_printf_parse). */
  SF_P_PRINTF_SQLITE = 1 << 14,
  /* After `...` in the parameter list: passed as a variadic argument. */
  SF_P_VARIADIC = 1 << 15,
  /* A pointer to a struct of function pointers the harness fills with mocks
   * (docs/grammar.md §3.7): an SF_BUFFER of bytes holding each member's
   * script (sf_vtable_scripts); type_index names the sf_vtable. */
  SF_P_VTABLE = 1 << 16,
};

/* Comparison used by error conventions and preconditions. */
typedef enum sf_cmp {
  SF_CMP_NONE,
  SF_CMP_EQ,
  SF_CMP_NE,
  SF_CMP_LT,
  SF_CMP_LE,
  SF_CMP_GT,
  SF_CMP_GE,
  SF_CMP_NULL, /* pointer result is NULL */
} sf_cmp;

#define SF_MAX_EXCLUDED 4

typedef struct sf_param {
  const char *name;  /* NULL for a result */
  const char *ctype; /* C spelling of the type, for reproducers ("const char *") */
  sf_kind kind;
  sf_kind elem;        /* element kind of SF_BUFFER / SF_ARRAY */
  uint32_t type_index; /* sf_enum or sf_handle_type index, by kind */
  uint32_t array_len;  /* SF_ARRAY: number of elements */
  /* SF_BUFFER: index of its length parameter; a printer's string result
   * (see inverse_of): the out integer that receives its length in bytes,
   * when it may hold NULs. Else -1. */
  int32_t len_param;
  int32_t len_of; /* SF_P_LENGTH: index of the buffer it measures, else -1 */
  uint32_t flags; /* SF_P_* */
  /* Preconditions on integers and on a buffer's length (via its length
   * parameter): lo <= v <= hi (compared as signed when the kind is signed),
   * and v differs from each excluded value. Always set: no constraint means
   * the full range of the kind. */
  uint64_t lo, hi;
  uint64_t excluded[SF_MAX_EXCLUDED];
  uint32_t nexcluded;
  const char *cexpr; /* SF_P_CONST: the C expression, NULL for a null pointer */
  /* `out string *p release SYM` / `out pointer *p release SYM`: the caller
   * frees what the callee stored (when not NULL) with SYM, after the call. */
  const char *release;
} sf_param;
/* `callback RET NAME(PARAMS) ...;`: the type of a function pointer the
 * library calls back. The harness passes a mock that answers from its
 * script, one record per call in order:
 *   - the `out bytes b[n]` / `out bytes *b` chunk, if any: a length byte L,
 *     then L bytes (at most n of them are copied into b; `*b` is pointed at
 *     them);
 *   - each `out T *` number parameter: sf_kind_size(T) bytes, little endian,
 *     except `out T *n count` (flag SF_P_LENGTH), which receives the chunk's
 *     length;
 *   - the result (unless `returns count`): sf_kind_size bytes, little
 *     endian; a value outside [ret.lo, ret.hi] answers ret_default (so a
 *     random script mostly answers the default, the ordinary case, and
 *     reaches the others by exact values).
 * When the script is used up, every call answers ret_default, zero numbers
 * and empty chunks. Other parameters are read by nothing. An allocator's
 * record is one byte: 0 allocates, anything else fails (NULL); past the end
 * it allocates. */
typedef struct sf_callback {
  const char *name;
  sf_param ret; /* SF_VOID or a number; lo..hi from `returns in [lo, hi]` */
  sf_param *params;
  uint32_t nparams;
  uint64_t ret_default; /* `default K` (else 0 clamped into range) */
  bool ret_is_count;    /* `returns count`: the size of the call's chunk */
  /* An allocator, `pointer NAME(...) allocates n [* m]`: returns
   * malloc(n * m) (the parameters' indexes; alloc_by -1 for one), or NULL
   * when its record (one byte) is not 0: fault injection. alloc_size -1
   * when the callback is no allocator. */
  int32_t alloc_size, alloc_by;
  /* `void NAME(...) frees p`: free(p) (p's index), else -1. */
  int32_t frees;
  uint32_t line;
} sf_callback;
/* Longest mock script (bytes). */
#define SF_MAX_SCRIPT 4096

/* `vtable NAME [= "C type"] { [nullable] CALLBACK member; ... };`: a struct
 * of function pointers the caller fills (I/O methods, a vtable). An
 * argument of that type points to one the harness fills, each member a mock
 * (or NULL: a nullable member with an empty script). */
typedef struct sf_vtable_slot {
  const char *member;
  uint32_t callback; /* the sf_callback of its type */
  bool nullable;
} sf_vtable_slot;
typedef struct sf_vtable {
  const char *name;
  const char *ctype; /* the struct's C type */
  sf_vtable_slot *slots;
  uint32_t nslots;
  uint32_t line;
} sf_vtable;
#define SF_MAX_VTABLE_SLOTS 16
/* The script of each member of a vtable argument's value v: the members in
 * order, each a 2-byte little-endian length and that many bytes (cut at the
 * value's end; past it, empty scripts). scripts[i] points into v. */
void sf_vtable_scripts(const sf_vtable *vt, const uint8_t *v, uint32_t len, const uint8_t **scripts,
                       uint32_t *lens);

/* One record of a mock's script (one call of the mock), as the harness
 * reads it. */
typedef struct sf_script_record {
  uint32_t start, end;           /* its bytes, [start, end) */
  uint32_t chunk_off, chunk_len; /* the chunk's bytes (cut at the script's end) */
  uint32_t outs_off;             /* the out numbers, in parameter order (may be cut short) */
  bool answered;                 /* the result's bytes are all there: [end - size, end) */
} sf_script_record;
/* The records of script s of callback cb, at most max into out: how many.
 * A callback that reads no bytes (a void one without out numbers or chunk,
 * a `frees` one) has none. An allocator's record is its one byte. */
uint32_t sf_script_records(const sf_callback *cb, const uint8_t *s, uint32_t len,
                           sf_script_record *out, uint32_t max);

/* Function flags. */
enum {
  SF_F_DESTRUCTOR = 1 << 0,  /* destroys its first handle parameter (the cleanup call) */
  SF_F_OBSERVER = 1 << 1,    /* pure query of a handle: describes its abstract state */
  SF_F_INVALIDATOR = 1 << 2, /* derived: named in some function's invalidated_by */
  /* `nondeterministic`: its results may differ between two runs of one
   * sequence (a clock, an address); no oracle compares them. */
  SF_F_NONDETERMINISTIC = 1 << 3,
  /* `error ... recoverable`: a failure leaves the library as it was (the
   * call was refused); the run goes on, and what the call would have made is
   * NULL. */
  SF_F_RECOVERABLE = 1 << 4,
  /* `coverage` on a state observer: its answer is part of its handle's
   * coverage state (sf_api_coverage_state). */
  SF_F_COVERAGE = 1 << 5,
};

/* ---- contracts (docs/grammar.md §4a) ------------------------------------
 * An expression over a call: its result, its arguments, observers of its
 * handles, and their values before the call (`old`). Evaluated by the
 * harness after the call; printed as C by the reproducer. */
typedef enum sf_expr_op {
  SF_E_INT,   /* value */
  SF_E_FLOAT, /* fvalue */
  SF_E_STR,   /* str */
  SF_E_NULL,
  SF_E_RET,   /* the call's result */
  SF_E_PARAM, /* index: a parameter of the function (of an invariant: its handle, 0) */
  SF_E_CALL,  /* index: an observer, called with kids (one per input parameter) */
  SF_E_STATE, /* index: a `state` (api->states) of kids[0], a handle */
  SF_E_OLD,   /* kids[0] evaluated before the call; index: its slot */
  SF_E_NOT,
  SF_E_NEG,
  SF_E_AND,
  SF_E_OR,
  SF_E_EQ,
  SF_E_NE,
  SF_E_LT,
  SF_E_LE,
  SF_E_GT,
  SF_E_GE,
  SF_E_ADD,
  SF_E_SUB,
  SF_E_MUL,
  SF_E_DIV,
  SF_E_MOD,
} sf_expr_op;

typedef struct sf_expr {
  sf_expr_op op;
  uint32_t index;
  int64_t value;
  double fvalue;
  const char *str;
  struct sf_expr **kids;
  uint32_t nkids;
  uint32_t line, col; /* where it was written */
} sf_expr;

typedef struct sf_contract {
  const char *text; /* as written, for reports */
  sf_expr *expr;
  uint32_t nold; /* old() slots, numbered 0..nold-1 in the order they are written */
  uint32_t line;
} sf_contract;

/* `state T NAME(H *h);`: a value the harness keeps for each handle of type
 * H (0 when the handle is made), set by calls (`sets NAME(p) = EXPR`) and
 * read by contracts like an observer: the state an API's rules speak of that
 * no function of the library reports ("holds the data of a match"). */
typedef struct sf_state {
  const char *name;
  sf_param ret; /* a number, bool or enum */
  uint32_t handle;
  uint32_t line;
  bool coverage; /* `state ... coverage;`: part of the coverage state */
} sf_state;
/* `sets NAME(p) = EXPR` of a function: after each call made, state NAME of
 * the handle argument p becomes EXPR (over ret, the arguments, observers and
 * states before the call). */
typedef struct sf_set {
  uint32_t state;
  uint32_t param;
  sf_contract value;
} sf_set;
/* `invariant T v: expr;`: holds for every live value of handle type T after
 * every call that takes or makes it. */
typedef struct sf_invariant {
  uint32_t handle;
  const char *var;
  sf_contract contract;
} sf_invariant;

/* `differential NAME { ... }`: a second implementation of the API. */
typedef struct sf_differential {
  const char *name;
  const char *prefix;  /* prepended to unmapped function names; NULL: same symbol */
  const char **symbol; /* per function: its symbol in the second implementation, or NULL */
  uint8_t *ignore;     /* per function: nothing it returns is compared */
  double *tolerance;   /* per function: relative tolerance on floats (0: exact) */
  /* `release` symbols mapped in the block (else prefixed, or the same). */
  char **release_from;
  const char **release_to;
  uint32_t nreleases;
  uint32_t line;
} sf_differential;

typedef struct sf_func {
  const char *name;
  sf_param ret;     /* kind SF_VOID when the function returns nothing */
  sf_param *params; /* in C order */
  uint32_t nparams;
  uint32_t flags; /* SF_F_* */
  /* Error convention: if `ret <err_cmp> err_value` holds, the call failed and
   * produced nothing usable (no handle, no out value). */
  sf_cmp err_cmp;
  uint64_t err_value;
  /* A handle result owned by another handle: the index of that parameter (a
   * handle), or -1 when the caller owns the result. An owned result is never
   * destroyed by seqfuzz and dies with its owner or when one of the functions
   * listed in invalidated_by is called with the owner as an argument. */
  int32_t owner_param;
  uint32_t *invalidated_by; /* function indexes */
  uint32_t ninvalidated_by;
  const char *release; /* symbol that frees a returned string/buffer, or NULL */
  /* `inverse_of`: this function takes the text that function prints (its
   * index, or -1). A parser (string in, handle out): f(print(x)) builds a
   * value equal to x. A feeder (a handle and a string or byte buffer in, no
   * handle out): f(h, print(x)) gives h what a call taking h and x would
   * have moved from x into it. The simplifier uses them to replace calls
   * that built a value, or moved data between handles, with one call on
   * the printed text. */
  int32_t inverse_of;
  /* `ensures`: postconditions checked after each call made. */
  sf_contract *ensures;
  uint32_t nensures;
  /* `requires`: preconditions checked before each call; a call whose
   * precondition is false (or unknown) is not made and the run stops. */
  sf_contract *requires;
  uint32_t nrequires;
  /* `depends_on P`: the caller-owned handle result keeps a pointer to handle
   * parameter P (its index, else -1), which must outlive it: nothing
   * consumes or destroys P while the result lives. */
  int32_t depends_param;
  /* `locks P`: the result has handle argument P to itself: while it lives,
   * no call may take P (a backup and its destination connection). Index,
   * else -1. */
  int32_t locks_param;
  /* `P depends_on Q`: after the call, handle argument P keeps a pointer to
   * handle argument Q (replacing what it depended on): as for a result, Q
   * must then outlive P (indexes, else -1). */
  int32_t rebind_param, rebind_to;
  /* `sets`: states the call changes. */
  sf_set *sets;
  uint32_t nsets;
  /* `reads P->FIELD`: no library symbol; the build generates a function
   * that returns that member (a pointer member as a bool: non-NULL) of its
   * only parameter, a handle. NULL for ordinary functions. */
  const char *reads;
  /* Derived: how many handles a call produces (result + out parameters). */
  uint32_t nproduced;
  uint32_t line; /* where the function was declared */
} sf_func;

typedef struct sf_const {
  const char *name;
  int64_t value;
} sf_const;

typedef struct sf_enum {
  const char *name;
  const char *ctype;
  bool is_flags;
  sf_kind base; /* integer kind used to pass it */
  sf_const *consts;
  uint32_t nconsts;
} sf_enum;

typedef struct sf_handle_type {
  const char *name;   /* grammar name, e.g. kv_t */
  const char *ctype;  /* C spelling of the pointee, e.g. "kv_t" or "struct kv" */
  int32_t destructor; /* function index, or -1 when the library frees it itself */
  /* `refcounted`: each value is one counted reference; two values may be
   * one object, and the destructor releases one reference. */
  bool refcounted;
  /* `struct`: a caller-allocated struct the callee fills (`out T *p`): the
   * harness allocates it zeroed (its size from the embedded build, or
   * SF_STRUCT_FALLBACK) and frees it after the destructor. */
  bool is_struct;
} sf_handle_type;

/* Size of a `struct` handle when no build tells sizeof (seqfuzz run --lib):
 * generous, zeroed. */
#define SF_STRUCT_FALLBACK 65536

typedef struct sf_api {
  const char *name;
  const char *path; /* file name used in messages */
  const char **headers;
  uint32_t nheaders;
  const char **libraries;
  uint32_t nlibraries;
  sf_handle_type *handles;
  uint32_t nhandles;
  sf_enum *enums;
  uint32_t nenums;
  sf_func *funcs;
  uint32_t nfuncs;
  sf_invariant *invariants;
  uint32_t ninvariants;
  sf_callback *callbacks;
  uint32_t ncallbacks;
  sf_vtable *vtables;
  uint32_t nvtables;
  sf_state *states;
  uint32_t nstates;
  sf_differential *diff; /* NULL without a differential statement */
  /* `default nullable;`: every non-out handle and string parameter not
   * marked `nonnull` accepts NULL. */
  bool default_nullable;
  /* Strings listed with `dict`: literal values for mutation. */
  const char **dict;
  uint32_t ndict;
  /* Stable hash of everything that affects the meaning of an encoded
   * sequence (function order, signatures, constraints); whitespace, comments
   * and header/library names do not change it. */
  uint32_t fingerprint;
} sf_api;

/* Parse an API description. `path` is used only in error messages.
 * On success returns the API. On failure returns NULL and writes one or more
 * `path:line:col: message` lines (NUL-terminated, truncated to errlen) to err.
 * Never crashes on any input; all memory is released on failure. */
sf_api *sf_api_parse(const char *text, size_t len, const char *path, char *err, size_t errlen);

/* Read and parse a file. Errors as above (an unreadable file is `path: message`). */
sf_api *sf_api_load(const char *path, char *err, size_t errlen);

void sf_api_free(sf_api *api);

/* Lookups by name; -1 when absent. */
int32_t sf_api_find_func(const sf_api *api, const char *name);
int32_t sf_api_find_handle(const sf_api *api, const char *name);

/* Does parameter p take part in a sequence as an argument? Out parameters and
 * length parameters do not: the first is produced, the second derived. */
static inline bool sf_param_is_input(const sf_param *p) {
  return !(p->flags & (SF_P_OUT | SF_P_LENGTH | SF_P_CONST));
}

/* The handle type an observer of one handle observes: f is an `observer`
 * whose only input is one handle (out parameters aside) and that has no
 * `requires`. Every full run calls these on each live value at its end (its
 * abstract state). -1 when f is no such observer. */
int32_t sf_func_state_observer(const sf_func *f);
/* The state observers of handle type htype, in the API's order (the order
 * the executor observes them in): their function indexes in out[0..max).
 * Returns how many there are. */
uint32_t sf_api_state_observers(const sf_api *api, uint32_t htype, uint32_t *out, uint32_t max);

/* The coverage state of a handle type (IJON's annotated state, declared in
 * the grammar): the `coverage` state observers and `coverage` states of
 * htype. After each call made that did not fail, the harness hashes their
 * values for every handle the call took or made, and a fuzzer hands each
 * joint value seen to the engine as a feature of its own: a state no input
 * reached before is kept like new code. Does htype have one? */
bool sf_api_coverage_state(const sf_api *api, uint32_t htype);

/* The symbol the second implementation calls for function fi (the
 * function's own name when it maps nothing). Needs api->diff. */
const char *sf_diff_symbol(const sf_api *api, uint32_t fi, char *buf, size_t buflen);
/* The same for a `release` symbol: mapped in the block, else prefixed. */
const char *sf_diff_release(const sf_api *api, const char *release, char *buf, size_t buflen);

/* Does the API state any contract (an `ensures` or an `invariant`)? */
bool sf_api_has_contracts(const sf_api *api);

/* Do the oracles compare what function fi answers? Not when it is
 * `nondeterministic` or `ignore`d by the differential statement. */
bool sf_func_compared(const sf_api *api, uint32_t fi);

/* The handle type whose round trip parser fi checks (docs/grammar.md §4a):
 * fi takes one string and returns a caller-owned handle of a type with a
 * destructor, and is `inverse_of` a compared printer of one argument. -1
 * when fi is no such parser. */
int32_t sf_func_round_trip(const sf_api *api, uint32_t fi);

/* Print e. leaf(ctx, e, out) prints SF_E_RET, SF_E_PARAM and SF_E_OLD nodes
 * (and may print others itself, returning true); the rest is printed as C,
 * fully parenthesized, observer calls by name. Used for reports and for C
 * reproducers. */
typedef bool (*sf_expr_leaf_fn)(void *ctx, const sf_expr *e, struct sf_buf *out);
void sf_expr_print(const sf_api *api, const sf_expr *e, sf_expr_leaf_fn leaf, void *ctx,
                   struct sf_buf *out);

/* The symbol under which a build provides a `reads` function or the value
 * of a constant parameter ("reads:FUNC", "=FUNC.PARAM"): what `seqfuzz
 * embed` generates and the executor resolves. */
const char *sf_generated_symbol(const sf_func *f, const sf_param *constant, char *buf,
                                size_t buflen);
/* The symbol of the function that makes a vtable from its members'
 * function pointers ("vtable:NAME", `void *make(void *const *fns)`: a heap
 * struct, or NULL), which `seqfuzz embed` generates. */
const char *sf_vtable_symbol(const sf_vtable *vt, char *buf, size_t buflen);
/* The C definition of `reads` function f, named sf_reads_<f's name> (what
 * the embed file and reproducers compile): its member, or for a bool
 * whether the member is non-zero. */
void sf_reads_define(const sf_func *f, struct sf_buf *out);
/* The C definition of the function under sf_vtable_symbol (the embed
 * file's): a heap struct of vt's type, each member set from fns. */
void sf_vtable_define(const sf_vtable *vt, struct sf_buf *out);
/* Does v satisfy p's precondition (range and exclusions)? v holds the value
 * in the low sf_kind_size(p->kind) bytes, sign-extended for signed kinds. */
bool sf_param_accepts(const sf_param *p, uint64_t v);

#endif
