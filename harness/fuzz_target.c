/* The libFuzzer entry points of a seqfuzz fuzzer (linked by
 * seqfuzz_add_fuzzer with the generated embedded API and the library).
 *
 * LLVMFuzzerTestOneInput decodes and executes one sequence. Inputs that are
 * rejected (wrong header) or whose run stopped at an illegal call return -1
 * so libFuzzer keeps them out of the corpus (never extend an illegal
 * sequence); with SEQFUZZ_OSSFUZZ it returns 0, as OSS-Fuzz requires. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "exec.h"
#include "mutator/mutate.h"

static struct {
  sf_api *api;
  sf_exec *exec;
  sf_mutator *mut;
  sf_seq seq;
} G;

static void *resolve_embedded(void *ctx, const char *name) {
  (void)ctx;
  for (const sf_symbol *s = sf_embedded_symbols; s->name; s++)
    if (strcmp(s->name, name) == 0) return s->addr;
  return NULL;
}

static void init_once(void) {
  if (G.api) return;
  char err[2048];
  G.api = sf_api_parse(sf_embedded_api_text, sf_embedded_api_len, sf_embedded_api_path, err,
                       sizeof err);
  if (!G.api) {
    fprintf(stderr, "seqfuzz: embedded API does not parse:\n%s\n", err);
    exit(1);
  }
  G.exec = sf_exec_new(G.api, resolve_embedded, NULL, err, sizeof err);
  if (!G.exec) {
    fprintf(stderr, "seqfuzz: %s\n", err);
    exit(1);
  }
  const char *max_calls = getenv("SEQFUZZ_MAX_CALLS");
  sf_mutator_options opt = {.max_calls = max_calls ? (uint32_t)atoi(max_calls) : 0};
  G.mut = sf_mutator_new(G.api, &opt);
  if (!G.mut) {
    fprintf(stderr, "seqfuzz: out of memory\n");
    exit(1);
  }
  sf_seq_init(&G.seq, G.api);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  init_once();
  return 0;
}

#ifdef SEQFUZZ_OSSFUZZ
#define REJECT 0
#else
#define REJECT (-1)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  init_once();
  if (sf_seq_decode(&G.seq, G.api, data, size) != SF_DECODE_OK) return REJECT;
  sf_run_result r;
  sf_exec_run(G.exec, &G.seq, NULL, &r);
  return r.status == SF_RUN_OK ? 0 : REJECT;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  init_once();
  uint8_t *out = malloc(max_size ? max_size : 1);
  if (!out) return 0;
  size_t n = sf_mutator_mutate(G.mut, data, size, out, max_size, seed);
  if (n) memcpy(data, out, n);
  free(out);
  return n ? n : size;
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max_out, unsigned int seed) {
  init_once();
  return sf_mutator_crossover(G.mut, d1, s1, d2, s2, out, max_out, seed);
}
