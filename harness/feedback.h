/* feedback.h: what a run tells the mutator, and the channel that carries it.
 *
 * After each run the harness fills an sf_feedback: where the run stopped
 * (dynamic legality: the calls before stop_call are legal), the calls the
 * library refused while the run went on (recoverable errors) and the abstract
 * state of each handle value at the end of the run (a hash of the results of
 * its type's observers; 0 when the value is dead or the type has none):
 * extension appends calls, so that is the state a reused value starts from. The
 * mutator uses the first to never extend past an illegal call and the second
 * for index pruning (a value whose state was seen before is not reused).
 *
 * libFuzzer hands records over in-process. Under AFL++ the mutator lives in
 * the afl-fuzz process: it creates a shared-memory region and names it in
 * SEQFUZZ_SHM before afl-fuzz starts the target, which writes the record of
 * each run there. Readers treat records as untrusted: sf_feedback_valid()
 * checks magic, version, bounds and the hash of the input it belongs to. */
#ifndef SF_FEEDBACK_H
#define SF_FEEDBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmp_trace.h"
#include "exec.h"

#define SF_FB_MAGIC          0x42464653u /* "SFFB" */
#define SF_FB_VERSION        9u
#define SF_FB_MAX_VALUES     256 /* states of later values are not recorded */
#define SF_FB_MAX_CMP        32  /* compared-against constants kept per run */
#define SF_FB_MAX_ANSWER_CMP 16  /* (answer, compared with) pairs of mocks, per run */
#define SF_FB_MAX_BYTES_CMP  8   /* unequal byte comparisons kept per run */
#define SF_FB_MAX_ARG_CMP    8   /* (argument, compared with) pairs kept per run */
#define SF_FB_MAX_OBS        384 /* call observations kept per run */
#define SF_FB_MAX_OBSERVERS  16  /* state observers of a type kept */
#define SF_OBS_RESULT        255 /* sf_fb_obs.slot of a call's result */
#define SF_OBS_PRE           1   /* sf_fb_obs.known: pre is set */
#define SF_OBS_POST          2   /* post is set */
#define SF_SHM_ENV           "SEQFUZZ_SHM"
#define SF_FB_EDGES_UNKNOWN  UINT32_MAX

/* One state observer's answer on a handle argument of a call, before and
 * after it (runs that record calls: sf_feedback_run_calls). slot is the
 * parameter's index, or SF_OBS_RESULT for the handle the call returned (an
 * out handle has its parameter's index); observer the index among its
 * type's state observers (sf_api_state_observers). */
typedef struct sf_fb_obs {
  uint16_t call;
  uint8_t slot, observer, known; /* known: SF_OBS_PRE | SF_OBS_POST */
  uint32_t vid;                  /* the value observed */
  int64_t pre, post;
} sf_fb_obs;

typedef struct sf_feedback {
  uint32_t magic; /* written last: a record torn by a crash is not valid */
  uint32_t version;
  uint64_t input_hash;
  uint32_t status;    /* sf_run_status */
  uint32_t stop_call; /* calls [0, stop_call) ran legally (sf_run_legal_calls); the
                       * last of them may have failed (sf_feedback_fails_last) */
  uint32_t ncalls;
  uint32_t nvalues; /* entries of state[] that are set */
  uint64_t refused; /* calls refused (sf_run_result.refused) */
  /* Edges of the target this run reached that no earlier counted run did
   * (harness/edges.h), or SF_FB_EDGES_UNKNOWN where the build cannot tell. */
  uint32_t new_edges;
  /* Constants the target compared against during the run (comparison
   * tracing, harness/cmp_trace.h), for the mutator's integer values. */
  uint32_t ncmp;
  uint64_t cmp[SF_FB_MAX_CMP];
  /* Mocks' answers and what the target compared them with, {answer,
   * operand} (cmp_trace.h: sf_cmp_trace_watch_answer), for the mutator's
   * scripts: the operand replaces the answer (input to state). */
  uint32_t nanswer_cmp;
  uint64_t answer_cmp[SF_FB_MAX_ANSWER_CMP][2];
  /* Separator bytes the target compared bytes with (cmp_trace.h), a set:
   * the mutator makes lists of names with them. */
  uint64_t separators[4];
  uint64_t state[SF_FB_MAX_VALUES];
  /* Byte comparisons (memcmp, strcmp, ...) that came out unequal, both
   * sides (cmp_trace.h: sf_bytes_cmp), for the mutator: one side found in
   * a string or buffer argument is replaced by the other (input to state).
   * After state[]: the copy of a plain run's record leaves them out. */
  uint32_t nbytes_cmp;
  sf_bytes_cmp bytes_cmp[SF_FB_MAX_BYTES_CMP];
  /* Integer arguments and values the target compared them with, {argument,
   * value} (cmp_trace.h: sf_cmp_trace_watch_arg), for the mutator: the
   * value takes the argument's place (input to state). */
  uint32_t narg_cmp;
  uint64_t arg_cmp[SF_FB_MAX_ARG_CMP][2];
  /* Runs that record calls (stateful testing, mutator/contracts.h): each
   * numeric state observer of each handle argument before and after each
   * call made, in call order (obs[0..nobs)). Under AFL++ the mutator asks
   * for it by writing the hash of the input to probe in calls_wanted (the
   * target leaves it as it is). */
  uint64_t calls_wanted;
  uint32_t nobs;
  sf_fb_obs obs[SF_FB_MAX_OBS];
} sf_feedback;

/* The hash that ties a record to its input bytes. */
uint64_t sf_feedback_input_hash(const uint8_t *data, size_t size);

/* Execute s and fill fb (input_hash given by the caller), observing: every
 * live value's state observers are called at the end, before the cleanup
 * (the mutator's probes, every AFL++ run), and the generic contracts are
 * checked on it (sf_exec_check_value). */
sf_run_status sf_feedback_run(sf_exec *x, const sf_seq *s, uint64_t input_hash, sf_feedback *fb);

/* The same, recording calls too (fb->obs): the mutator's probes when the
 * contracts stage is on, and AFL++ runs of the input in fb->calls_wanted. */
sf_run_status sf_feedback_run_calls(sf_exec *x, const sf_seq *s, uint64_t input_hash,
                                    sf_feedback *fb);

/* Seconds this process spent observing calls in sf_feedback_run_calls (the
 * state observers before and after each call): a caller that keeps them to
 * a share of its time records calls only while they are under it. */
double sf_feedback_call_observation_seconds(void);

typedef void (*sf_after_call_fn)(void *ctx, sf_exec *x, const sf_seq *s, const sf_call_outcome *o);

/* Execute s as its input says (the engine's libFuzzer runs, replays,
 * traces): observing only when s->observed (an input found by a run that
 * observed, sf_seq), so that a replay crashes where the run that found it
 * did. An observed input is also run twice more (sf_exec_check_repeat), as
 * a probe does. Fills fb (states only when observed) and *result (may be NULL);
 * after_call (may be NULL) is called after each call with fb as ctx. */
sf_run_status sf_feedback_replay(sf_exec *x, const sf_seq *s, uint64_t input_hash, sf_feedback *fb,
                                 sf_after_call_fn after_call, sf_run_result *result);

/* Did the last legal call fail by the API's error convention (the run
 * stopped there, sf_run_legal_calls)? The calls up to it may be mutated,
 * but no call may follow it. */
static inline bool sf_feedback_fails_last(const sf_feedback *fb) {
  return fb->status == SF_RUN_ERROR_RESULT && fb->stop_call > 0;
}

/* Is fb a complete record for the input with this hash? */
bool sf_feedback_valid(const sf_feedback *fb, uint64_t input_hash);

/* ---- shared-memory channel (AFL++) ------------------------------------- */
typedef struct sf_channel sf_channel;

/* Mutator side: create a region and export its name in SEQFUZZ_SHM. */
sf_channel *sf_channel_create(void);
/* Target side: attach to the region named in SEQFUZZ_SHM; NULL if none. */
sf_channel *sf_channel_attach(void);
sf_feedback *sf_channel_record(sf_channel *c);
/* Detach; the creator also removes the region. */
void sf_channel_close(sf_channel *c);

#endif
