/* exec_internal.h: the executor's state, shared by exec.c (calls, handle
 * lifetimes) and oracle.c (contracts, differential and repeat checks, generic
 * contracts). Private to harness/: other modules use exec.h. */
#ifndef SF_EXEC_INTERNAL_H
#define SF_EXEC_INTERNAL_H

#include <ffi.h>
#include <stdio.h>

#include "exec.h"

/* One argument as libffi reads it: the bytes at the slot's address. */
typedef union slot {
  uint64_t u; /* integers (little endian: narrower ones in the low bytes), float bits */
  void *p;
} slot;

typedef struct prepared {
  void (*fn)(void);
  void (*release)(void *);
  ffi_cif cif;
  ffi_type *argtypes[64];
  ffi_type *rtype;
  bool variadic; /* ends with a printf format: prepared per call */
  /* Where the build keeps each constant parameter's value (NULL: a null
   * pointer); NULL when the function has none. */
  const void **constp;
  void (**param_release)(void *); /* per parameter (`release`), or NULL */
} prepared;

/* A mock standing in for one callback argument (api.h: sf_callback): a
 * libffi closure that answers from its script. Closures are made once and
 * reused by later runs (each mock has storage of its own: the closure points
 * at it). */
typedef struct sf_mock {
  ffi_closure *closure;
  void *code; /* the function pointer handed to the library */
  const sf_callback *cb;
  const uint8_t *script; /* a `keep` copy: the library may call it until cleanup */
  uint32_t len, pos;
  uint32_t calls;
  uint32_t *all_calls; /* the executor's count of mock calls */
  void (*on_answer)(uint64_t answer);
} sf_mock;

struct sf_exec {
  const sf_api *api;
  prepared *funcs;
  uint32_t **observers; /* per handle type: observers taking just that handle */
  uint32_t *nobservers;
  /* Per-run state, kept to reuse the storage. */
  sf_life life;
  void **ptrs; /* run-time pointer of each value id */
  uint32_t nptrs;
  void **kept; /* `keep` blocks freed at the end of the run */
  uint32_t nkept, keptcap;
  void **gone; /* pointers consumed during the run (alias guard) */
  uint32_t ngone, gonecap;
  /* Argument blocks of exact sizes, kept between calls: ASan still sees the
   * exact bounds of each, without a malloc and free per argument. One block
   * per slot, the slot chosen by the size (a scan of every block for one of
   * the right size cost more than the malloc it saved, with strings of many
   * lengths). */
  struct block {
    void *p; /* NULL: an empty slot */
    size_t size;
  } cache[64];
  struct block outbufs[64]; /* the last call's out buffers (a result may point in) */
  uint32_t noutbufs;
  struct sf_oracle *oracle; /* oracle.c's state; NULL until first needed */
  size_t *struct_size;      /* per handle type: bytes of a `struct` handle */
  /* memfiles and memfds of `keep` parameters, closed at the end of the run */
  struct open_file {
    FILE *f; /* a memfile (fclose closes fd too), or NULL */
    int fd;  /* -1: the callee's to close */
  } * files;
  uint32_t nfiles, filecap;
  /* sf_exec_run calls oracle.c around each call: the API has contracts, or
   * the run is recorded (differential mode, repeat check). Off, a run costs
   * nothing more than before the oracles. */
  bool oracle_hooks;
  bool trace_state; /* sf_exec_trace_state */
  /* per vtable type: the embed file's function that makes one (heap) from
   * its members' function pointers (sf_vtable_symbol) */
  void *(**vt_make)(void *const *fns);
  uint32_t mock_calls; /* calls of any mock, for sf_call_outcome */
  void (*on_mock_answer)(uint64_t answer);
  void (*on_int_arg)(uint64_t value);
  const struct sf_known *known; /* sf_exec_set_known */
  bool known_finding;           /* this run: a check found a known bug (oracle.c) */
  ffi_cif *cb_cif;              /* per callback type */
  ffi_type **cb_argtypes;       /* per callback type, 64 slots */
  sf_mock **mocks;
  uint32_t nmocks, mockcap;    /* used in this run; made so far */
  sf_call_stats *call_stats;   /* per function (sf_exec_call_stats) */
  uint32_t runs;               /* runs made, for timing one in TIMED_EVERY */
  bool timed;                  /* this run's calls are timed */
  uint32_t (*new_edges)(void); /* sf_exec_count_edges */
  const bool *count_funcs;
  uint32_t counted_edges;
  /* `state`s: nstates per value id, 0 when the value is made. */
  int64_t *states;
  uint32_t statecap;
  /* Per handle type: has it a coverage state (sf_api_coverage_state)?
   * NULL when no type has. */
  bool *coverage_types;
  void (*on_coverage_state)(uint64_t joint); /* sf_exec_on_coverage_state */
};

/* Call function fi with its input parameters' values in order (handles and
 * strings as pointers, numbers as their bits; out parameters get scratch
 * space). Returns the raw result (integers widened, floats as bits,
 * pointers). */
uint64_t sf_exec_call_raw(sf_exec *x, uint32_t fi, const uint64_t *inputs);

/* Widen the low bytes of raw to 64 bits as kind k's value. */
uint64_t sf_exec_widen(sf_kind k, uint64_t raw);

/* Does ret match f's error convention? */
bool sf_exec_error_matches(const sf_api *api, const sf_func *f, uint64_t ret);

/* oracle.c: set up what the API's contracts need (sf_exec_new). */
void sf_oracle_init(sf_exec *x);
/* oracle.c, called by sf_exec_run (each a no-op without contracts, twin,
 * recording). */
void sf_oracle_before_call(sf_exec *x, const sf_seq *s, uint32_t ci);
void sf_oracle_after_call(sf_exec *x, const sf_seq *s, const sf_call_outcome *o);
void sf_oracle_before_cleanup(sf_exec *x, const sf_seq *s);
void sf_oracle_after_run(sf_exec *x, const sf_seq *s);
void sf_oracle_free(sf_exec *x);
/* oracle.c: the `sets` of the call just made (o). */
void sf_oracle_apply_sets(sf_exec *x, const sf_seq *s, const sf_call_outcome *o);
/* oracle.c: do the `requires` of call ci hold? (false also when unknown) */
bool sf_oracle_requires_hold(sf_exec *x, const sf_seq *s, uint32_t ci);

#endif
