/* The AFL++ custom mutator (AFL_CUSTOM_MUTATOR_LIBRARY=libseqfuzz-afl.so).
 *
 * It runs inside afl-fuzz, which exports no symbols and cannot be asked for
 * anything: the API comes from SEQFUZZ_API (a .api file), and run records
 * come from the target through the shared memory this library creates in
 * afl_custom_init (before afl-fuzz starts the fork server, so the target
 * inherits SEQFUZZ_SHM). Queue entries need no side files: everything is in
 * the input bytes, so entries synced from other instances (-M/-S) work.
 * With SEQFUZZ_SOLVER_TARGET naming a tracing (libFuzzer) build of the same
 * target, a solver server runs beside afl-fuzz (solver/remote.h) and its
 * results are a mutation stage, within the same time budget as under
 * libFuzzer, and what it saw the target compare (constants, separators)
 * reaches the mutator as a libFuzzer build's run records would. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contracts/contracts.h"
#include "feedback.h"
#include "mutator/mutate.h"
#include "options.h"
#include "solver/budget.h"
#include "solver/remote.h"

typedef struct afl_seqfuzz {
  sf_api *api;
  sf_mutator *mut;
  /* Trimming: the entry as a sequence, the call tried next, the candidate. */
  sf_seq trim_cur, trim_cand;
  uint32_t trim_step, trim_total; /* total: the step count AFL++ was given */
  size_t trim_len;                /* size of the entry when trimming began */
  bool trim_skip;                 /* the candidate was not smaller: never accept */
  sf_buf trim_out;
  sf_channel *channel;
  uint8_t *out;
  size_t outcap;
  /* Stacking: the last output, mutated again until `stack` deep. */
  sf_buf last;
  uint32_t depth, stack;
  uint64_t seed, calls;
  char describe[64];
  char introspection[512];
  FILE *stats_file;
  long stats_every;
  time_t last_stats;
  /* The solver stage (NULL: none). */
  sf_solver_client *solver;
  sf_solver_stats solver_stats;
  sf_buf solved;
  sf_solver_budget budget;
  const char *contracts_out; /* SEQFUZZ_CONTRACTS_OUT: the contracts report */
} afl_seqfuzz;

void afl_custom_deinit(void *data);

void *afl_custom_init(void *afl, unsigned int seed) {
  (void)afl;
  const char *path = getenv("SEQFUZZ_API");
  if (!path) {
    fprintf(stderr, "seqfuzz: set SEQFUZZ_API to the target's .api file\n");
    return NULL;
  }
  afl_seqfuzz *st = calloc(1, sizeof *st);
  if (!st) return NULL;
  char err[4096];
  st->api = sf_api_load(path, err, sizeof err);
  if (!st->api) {
    fprintf(stderr, "seqfuzz: %s\n", err);
    free(st);
    return NULL;
  }
  sf_options opt;
  sf_options_from_env(&opt);
  /* No length control (SEQFUZZ_LEN_CONTROL): under AFL++ an execution
   * costs its fork server's round trip whatever the length, so short
   * sequences gain no speed, and hashtab's and cursor's bugs took two and
   * three times as long with it (bench/README.md, "Length control"). Nor
   * insertions drawn by what they found (SEQFUZZ_FUNC_SCHEDULE): under
   * AFL++ refcnt's and config's bugs took three to four times as long with
   * them (bench/README.md, "Insertions by what they find"). Handle
   * arguments take new objects where earlier ones fit too unless
   * SEQFUZZ_FRESH_VALUES says otherwise: fewer of them was measured under
   * libFuzzer alone (bench/README.md, "Library calls per execution"). */
  bool fresh_values = getenv("SEQFUZZ_FRESH_VALUES") ? opt.fresh_values != 0 : true;
  sf_mutator_options mo = {.max_calls = (uint32_t)opt.max_calls,
                           .no_legality = !opt.legality,
                           .no_equivalence = !opt.equivalence,
                           .no_fresh_values = !fresh_values,
                           .no_compares = !opt.compares,
                           .no_adaptive = !opt.adaptive,
                           .no_func_schedule = true,
                           .skip_repeats = true,
                           .state_features = opt.coverage_state != 0,
                           .observed_outputs = true,
                           .contracts_percent = (uint32_t)opt.contracts,
                           .probe_outputs = true};
  st->mut = sf_mutator_new(st->api, &mo);
  sf_seq_init(&st->trim_cur, st->api);
  sf_seq_init(&st->trim_cand, st->api);
  st->channel = sf_channel_create(); /* no feedback if it fails: still works */
  st->seed = seed;
  st->stats_every = opt.stats;
  st->stack = opt.stack > 0 ? (uint32_t)opt.stack : 1;
  st->contracts_out = opt.contracts ? getenv("SEQFUZZ_CONTRACTS_OUT") : NULL;
  const char *sf = getenv("SEQFUZZ_STATS_FILE");
  if (sf) st->stats_file = fopen(sf, "w");
  if (!st->mut) {
    afl_custom_deinit(st);
    return NULL;
  }
  const char *tracer = getenv(SF_SOLVER_TARGET_ENV);
  if (tracer && opt.solver) {
    st->solver = sf_solver_client_deferred(tracer, SF_SOLVER_START_COST_GUESS);
    if (!st->solver) fprintf(stderr, "seqfuzz: cannot start the solver server %s\n", tracer);
  }
  sf_solver_budget_init(&st->budget, opt.solver_budget);
  return st;
}

/* The solver stage, within its time budget (solver/budget.h). */
static size_t solver_stage(afl_seqfuzz *st, uint8_t *out, size_t max_size) {
  sf_buf_reset(&st->solved);
  int rc =
      sf_solver_client_stage(&st->solver, &st->budget, &st->solved, max_size, &st->solver_stats);
  sf_solver_hints h; /* what the tracing build saw compared: this build traces nothing */
  if (sf_solver_client_take_hints(st->solver, &h)) {
    sf_mutator_learn_compared(st->mut, h.consts, h.nconsts, h.separators);
    for (uint32_t k = 0; k < h.nargs; k++)
      sf_mutator_learn_arg_cmp(st->mut, h.args[k].input, h.args[k].pair);
  }
  if (rc != 1) return 0;
  memcpy(out, st->solved.data, st->solved.len);
  return st->solved.len;
}

static void write_stats(afl_seqfuzz *st) {
  sf_mutator_stats s;
  sf_mutator_get_stats(st->mut, &s);
  double cand = s.candidates ? (double)s.candidates : 1;
  snprintf(st->introspection, sizeof st->introspection,
           "seqfuzz: mutations %llu | pruned illegal %.1f%% equivalent %.1f%% | pool %llu states "
           "%llu | mean length %.1f | byte trials %llu, argument trials %llu",
           (unsigned long long)s.mutations, 100.0 * (double)s.pruned_illegal / cand,
           100.0 * (double)s.pruned_equiv / cand, (unsigned long long)s.pool_size,
           (unsigned long long)s.states_seen,
           s.mutations ? (double)s.calls_emitted / (double)s.mutations : 0.0,
           (unsigned long long)s.bytes_trials, (unsigned long long)s.arg_trials);
  sf_contracts *ct = sf_mutator_contracts(st->mut);
  if (ct) {
    sf_contracts_stats c;
    sf_contracts_get_stats(ct, &c);
    size_t len = strlen(st->introspection);
    snprintf(st->introspection + len, sizeof st->introspection - len,
             " | contracts: runs %llu, holding %llu, refuted %llu+%llu, plans %llu, outputs %llu",
             (unsigned long long)c.runs, (unsigned long long)c.holding,
             (unsigned long long)c.refuted_runs, (unsigned long long)c.refuted_stage,
             (unsigned long long)c.plans, (unsigned long long)s.contract_outputs);
  }
  if (st->solver) {
    const sf_solver_stats *v = &st->solver_stats;
    size_t len = strlen(st->introspection);
    snprintf(st->introspection + len, sizeof st->introspection - len,
             " | solver %.1f%%: attempts %llu, sat %llu, flips %llu, kept %llu",
             sf_solver_budget_share(&st->budget), (unsigned long long)v->attempts,
             (unsigned long long)v->sat, (unsigned long long)v->flips,
             (unsigned long long)v->confirmed);
  }
  if (st->stats_file) {
    fprintf(st->stats_file, "%ld %s\n", (long)time(NULL), st->introspection);
    fflush(st->stats_file);
  }
  if (ct && st->contracts_out) sf_contracts_save(ct, st->contracts_out);
}

static uint8_t *out_buffer(afl_seqfuzz *st, size_t max_size) {
  if (st->outcap < max_size) {
    uint8_t *p = realloc(st->out, max_size);
    if (!p) return NULL;
    st->out = p;
    st->outcap = max_size;
  }
  return st->out;
}

/* libFuzzer mutates its last output again, up to -mutate_depth (5) times,
 * running each: changes that find nothing one at a time (a second user, then
 * an authentication as that user) add up. AFL++ hands over the queue entry
 * afresh on every call, so the stacking is done here. */
static const uint8_t *stacked_input(afl_seqfuzz *st, const uint8_t *buf, size_t *size) {
  if (st->depth == 0 || st->depth >= st->stack || !st->last.len) {
    st->depth = 0;
    return buf;
  }
  *size = st->last.len;
  return st->last.data;
}

static void remember_output(afl_seqfuzz *st, const uint8_t *out, size_t n) {
  sf_buf_reset(&st->last);
  if (n && st->stack > 1 && sf_buf_append(&st->last, out, n) == 0)
    st->depth++;
  else
    st->depth = 0;
}

size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf,
                       uint8_t *add_buf, size_t add_buf_size, size_t max_size) {
  afl_seqfuzz *st = data;
  uint8_t *out = out_buffer(st, max_size);
  if (!out) {
    *out_buf = buf;
    return buf_size;
  }
  uint64_t seed = st->seed * 0x9e3779b97f4a7c15ULL + st->calls++;
  /* The record of the last run (of our last output): the stateful stage's
   * answer, or its probe's calls. */
  sf_feedback *rec = sf_channel_record(st->channel);
  if (rec) {
    sf_mutator_note_run(st->mut, rec);
    rec->calls_wanted = 0;
  }
  size_t n = solver_stage(st, out, max_size);
  if (n) {
    st->depth = 0;
    *out_buf = out;
    return n;
  }
  size_t in_size = buf_size;
  const uint8_t *in = stacked_input(st, buf, &in_size);
  if (add_buf && add_buf_size && (seed >> 61) == 0)
    n = sf_mutator_crossover(st->mut, in, in_size, add_buf, add_buf_size, out, max_size, seed);
  else
    n = sf_mutator_mutate(st->mut, in, in_size, out, max_size, seed);
  remember_output(st, out, n);
  if (rec) rec->calls_wanted = n ? sf_mutator_calls_wanted(st->mut) : 0;
  if (st->stats_every && time(NULL) - st->last_stats >= st->stats_every) {
    st->last_stats = time(NULL);
    write_stats(st);
  }
  *out_buf = n ? out : buf;
  return n; /* 0 (only repeats, or no room): afl-fuzz runs nothing */
}

uint32_t afl_custom_fuzz_count(void *data, const uint8_t *buf, size_t buf_size) {
  ((afl_seqfuzz *)data)->depth = 0; /* a new entry: stacking starts from it */
  (void)buf;
  (void)buf_size;
  return 256;
}

/* A new queue entry: the shared record is of the run that found it. */
uint8_t afl_custom_queue_new_entry(void *data, const uint8_t *filename_new_queue,
                                   const uint8_t *filename_orig_queue) {
  (void)filename_orig_queue;
  afl_seqfuzz *st = data;
  FILE *fp = fopen((const char *)filename_new_queue, "rb");
  if (!fp) return 0;
  sf_buf b = {0};
  char chunk[4096];
  size_t k;
  while ((k = fread(chunk, 1, sizeof chunk, fp)) > 0 && b.len < (1u << 24))
    if (sf_buf_append(&b, chunk, k)) break;
  fclose(fp);
  sf_mutator_add_input(st->mut, b.data, b.len, sf_channel_record(st->channel));
  st->depth = 0; /* as libFuzzer: a find ends the stack */
  sf_solver_budget_new_input(&st->budget);
  /* afl-fuzz cannot time a run of the target: a guess at the learning's
   * cost. */
  if (st->solver)
    sf_solver_client_learn(st->solver, &st->budget, SF_SOLVER_LEARN_COST_GUESS, b.data, b.len);
  sf_buf_free(&b);
  return 0; /* the file was not changed */
}

/* Structure-aware trimming: AFL++ keeps a candidate when the coverage stays
 * the same. Each step tries the entry without one call (from the last one
 * backwards), together with the calls that only depended on it, so every
 * candidate is a valid sequence (byte-level trimming would mostly cut a
 * call in half and lose the rest). */
int32_t afl_custom_init_trim(void *data, uint8_t *buf, size_t buf_size) {
  afl_seqfuzz *st = data;
  if (sf_seq_decode(&st->trim_cur, st->api, buf, buf_size) != SF_DECODE_OK) {
    st->trim_total = 0;
    return 0; /* not ours: nothing to trim */
  }
  st->trim_total = st->trim_cur.ncalls;
  st->trim_step = 0;
  st->trim_len = buf_size;
  return (int32_t)st->trim_total;
}

size_t afl_custom_trim(void *data, uint8_t **out_buf) {
  afl_seqfuzz *st = data;
  /* Steps count down from the last call: removing later calls first keeps
   * the indexes of the earlier ones. */
  uint32_t victim = st->trim_cur.ncalls - 1 - st->trim_step;
  if (sf_seq_without_call(&st->trim_cur, victim < st->trim_cur.ncalls ? victim : 0, &st->trim_cand))
    sf_seq_clear(&st->trim_cand);
  sf_buf_reset(&st->trim_out);
  st->trim_skip =
      sf_seq_encode(&st->trim_cand, &st->trim_out) != 0 || st->trim_out.len > st->trim_len;
  if (st->trim_skip) { /* AFL++ refuses a larger result: offer the current entry */
    sf_buf_reset(&st->trim_out);
    sf_seq_encode(&st->trim_cur, &st->trim_out);
  }
  *out_buf = st->trim_out.data;
  return st->trim_out.len;
}

int32_t afl_custom_post_trim(void *data, uint8_t success) {
  afl_seqfuzz *st = data;
  if (success && !st->trim_skip) {
    sf_seq tmp = st->trim_cur;
    st->trim_cur = st->trim_cand;
    st->trim_cand = tmp;
  } else {
    st->trim_step++;
  }
  /* Done (the count AFL++ was given) when every remaining call was tried. */
  if (st->trim_step >= st->trim_cur.ncalls) return (int32_t)st->trim_total;
  return (int32_t)st->trim_step;
}

const char *afl_custom_describe(void *data, size_t max_description_len) {
  afl_seqfuzz *st = data;
  snprintf(st->describe,
           sizeof st->describe < max_description_len ? sizeof st->describe : max_description_len,
           "seqfuzz-%s", sf_mutator_last_op(st->mut));
  return st->describe;
}

const char *afl_custom_introspection(void *data) {
  afl_seqfuzz *st = data;
  write_stats(st);
  return st->introspection;
}

void afl_custom_deinit(void *data) {
  afl_seqfuzz *st = data;
  if (!st) return;
  if (st->stats_file || st->contracts_out) write_stats(st);
  if (st->stats_file) fclose(st->stats_file);
  sf_channel_close(st->channel);
  sf_solver_client_free(st->solver);
  sf_buf_free(&st->solved);
  sf_seq_free(&st->trim_cur);
  sf_seq_free(&st->trim_cand);
  sf_buf_free(&st->trim_out);
  sf_buf_free(&st->last);
  sf_mutator_free(st->mut);
  sf_api_free(st->api);
  free(st->out);
  free(st);
}
