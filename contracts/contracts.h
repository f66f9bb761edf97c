/* contracts.h: stateful testing (Wei et al., ../shared/papers): contracts
 * inferred from passing runs, and plans for calls that break them.
 *
 * Learning. A run that recorded calls (harness/feedback.h:
 * sf_feedback_run_calls) tells, for each call made, the numeric state
 * observers of its handle arguments before it and after it (and of the
 * handle it made). sf_contracts_learn() folds one such run into:
 *  - the store: per handle type, the distinct abstract states (vectors of
 *    observer answers) seen after a call that later calls may follow, each
 *    with where it was made (the entry's hash, how many of its calls, which
 *    value), and the transitions (function f, called on a handle in state
 *    A, left it in state B), with one call that did it; both bounded;
 *  - per function, summaries from which candidate contracts follow
 *    (templates): an observer of a handle argument equal to a constant, at
 *    least or at most the least or greatest value seen, compared with an
 *    integer argument (<, <=, ==, !=, >=, >); a nullable handle never NULL;
 *    two handle arguments never the same; after the call, an observer equal
 *    to a constant, to old(itself) plus a constant, compared with old(itself)
 *    or with an argument. A contract is reported once its support (calls
 *    that agree) reaches SF_CONTRACT_SUPPORT, and dropped (refuted) when a
 *    call contradicts it.
 * Every call made counts for preconditions (one that fails by the error
 * convention ran legally too); postconditions count the calls that did not
 * fail.
 *
 * Violating. sf_contracts_plan() picks a precondition p of f that holds and
 * builds a plan: a stored state where p is false (an observer's value out
 * of what was seen; an argument chosen to break a relation; NULL; one value
 * for two arguments), the corpus entry prefix that made it, then a call of
 * f on it. When no stored state is false for p, a recorded transition whose
 * result is, applied to a stored state equal to its start. The mutator
 * builds the sequence (mutator/mutate.c); the grammar's own rules still
 * hold there (a `requires` is checked at run time: the run stops, misuse is
 * never a finding). sf_contracts_outcome() takes the result: f made without
 * a crash refutes p (a crash is a finding the engine keeps).
 *
 * Deterministic for a given sequence of calls. Records are untrusted (AFL++
 * shared memory): anything out of range is ignored. */
#ifndef SF_CONTRACTS_H
#define SF_CONTRACTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../grammar/api.h"
#include "../harness/feedback.h"
#include "../sequence/seq.h"

#define SF_CONTRACT_SUPPORT 5 /* agreeing calls before a contract is reported */

typedef struct sf_contracts sf_contracts;

/* NULL on OOM. */
sf_contracts *sf_contracts_new(const sf_api *api);
/* Keep at most n states per handle type (default and most: 256; tests). */
void sf_contracts_set_capacity(sf_contracts *c, uint32_t n);
void sf_contracts_free(sf_contracts *c);

/* Fold in one run of s (the input with hash entry) that recorded calls. */
void sf_contracts_learn(sf_contracts *c, uint64_t entry, const sf_seq *s, const sf_feedback *fb);

/* How a plan binds one parameter of the call it ends with. */
typedef enum sf_plan_bind {
  SF_BIND_VALUE = 1, /* bits: a value id of the prefix */
  SF_BIND_NULL,      /* the null handle */
  SF_BIND_INT,       /* bits: an integer argument's value (sign-extended) */
} sf_plan_bind;

typedef struct sf_contract_plan {
  uint32_t contract; /* sf_contracts_outcome's key */
  uint64_t entry;    /* the corpus entry whose first prefix calls make the state */
  uint32_t prefix;   /* (entry 0, prefix 0: start from nothing) */
  /* A transition first: call via_call of entry via_entry, its parameter
   * via_slot bound to value via_vid of the prefix (has_via). */
  bool has_via;
  uint64_t via_entry;
  uint32_t via_call, via_slot, via_vid;
  uint32_t func; /* then a call of func */
  uint32_t nbind;
  struct {
    uint32_t param;
    sf_plan_bind how;
    uint64_t bits;
  } bind[4];
} sf_contract_plan;

/* Is the corpus entry with this hash still there to build from? */
typedef bool (*sf_entry_alive_fn)(void *ctx, uint64_t entry);

/* A plan breaking a precondition not tried too often yet (r chooses among
 * them). 0 with *plan set, -1 when there is none. */
int sf_contracts_plan(sf_contracts *c, uint64_t r, sf_entry_alive_fn alive, void *ctx,
                      sf_contract_plan *plan);

typedef enum sf_plan_result {
  SF_PLAN_NOT_MADE, /* the run stopped before the call (a rule, a NULL, an error earlier) */
  SF_PLAN_RAN,      /* the call was made and succeeded */
  SF_PLAN_FAILED,   /* the call was made and failed by its error convention */
} sf_plan_result;

/* The outcome of a plan's run (the call made: the precondition is refuted). */
void sf_contracts_outcome(sf_contracts *c, const sf_contract_plan *plan, sf_plan_result result);

typedef struct sf_contracts_stats {
  uint64_t runs;          /* runs learned from */
  uint64_t calls;         /* calls learned from */
  uint64_t states;        /* stored states (all types) */
  uint64_t transitions;   /* stored transitions */
  uint64_t inferred;      /* contracts ever reported */
  uint64_t holding;       /* of them, still holding */
  uint64_t refuted_runs;  /* refuted by a later corpus run */
  uint64_t refuted_stage; /* refuted by a plan's run */
  uint64_t plans;         /* plans made */
  uint64_t plans_via;     /* of them, through a transition */
  uint64_t not_made;      /* plans whose call was not made */
} sf_contracts_stats;

void sf_contracts_get_stats(sf_contracts *c, sf_contracts_stats *st);

/* The contracts, per function, as grammar lines a user can copy into the
 * .api file (`requires`, `ensures`), each with its support; then the
 * refuted ones as comments with what refuted them. */
void sf_contracts_write(sf_contracts *c, FILE *out);
/* The same into path, replaced whole (written beside it, then renamed, so
 * readers never see half a report). -1 when it cannot be written. */
int sf_contracts_save(sf_contracts *c, const char *path);

#endif
