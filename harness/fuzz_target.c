/* The libFuzzer entry points of a seqfuzz fuzzer (linked by
 * seqfuzz_add_fuzzer with the generated embedded API and the library). The
 * same binary runs under AFL++ when linked with libAFLDriver.a: then run
 * records go to the shared memory named in SEQFUZZ_SHM (the mutator lives in
 * afl-fuzz, see afl_mutator.c).
 *
 * LLVMFuzzerTestOneInput decodes and executes one sequence (bytes that are
 * not a seqfuzz input run the sequence the mutator generates from them, see
 * sf_mutator_interpret). Runs that stopped at an illegal call (legality
 * pruning; a call failing by the error convention is legal, see
 * sf_run_legal) return -1 so libFuzzer keeps them out of the corpus; with
 * SEQFUZZ_OSSFUZZ it returns only 0, as OSS-Fuzz requires. The solver
 * stage runs in a server process, this binary started again with
 * SEQFUZZ_SOLVER_SERVE (solver/remote.h), which serves AFL++'s mutator the
 * same way. Options: harness/options.def (environment variables). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/sf_io.h"
#include "cmp_trace.h"
#include "contracts/contracts.h"
#include "edges.h"
#include "embedded.h"
#include "exec.h"
#include "feedback.h"
#include "mutator/mutate.h"
#include "options.h"
#include "known.h"
#include "run_server.h"
#include "solver/budget.h"
#include "campaign.h"
#include "solver/remote.h"
#include "solver/solver.h"
#include "state_features.h"

/* libFuzzer's own byte mutator (libAFLDriver's returns 0: no mutation). */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct {
  sf_api *api;
  sf_exec *exec;
  sf_exec *twin; /* differential mode: the second implementation */
  sf_mutator *mut;
  sf_seq seq, probe_seq;
  sf_options opt;
  sf_channel *channel; /* AFL++ mode */
  sf_feedback local;   /* libFuzzer mode */
  uint64_t execs, illegal, foreign;
  uint64_t known_hits;       /* runs stopped before a known bug (harness/known.h) */
  const char *contracts_out; /* SEQFUZZ_CONTRACTS_OUT: the contracts report, kept current */
  bool mutated;              /* the engine asked for a mutation */
  sf_known *known;           /* SEQFUZZ_KNOWN's patterns, or NULL */
  const char *known_dir;
  struct timespec known_mtime; /* the directory's, when loaded */
  time_t known_checked;
  time_t last_stats;
  /* The solver runs in a server process, this binary started again
   * (solver/remote.h), from the first corpus entry on. */
  bool solver_wanted;       /* SEQFUZZ_SOLVER, and the server not tried yet */
  sf_solver_client *remote; /* the server; NULL: none */
  double start_cost;        /* CPU seconds this process took to start (its server's) */
  sf_solver_stats solver_stats;
  sf_buf solved;
  sf_solver_budget budget;
  sf_solver *solver; /* in the server process: the solver itself */
  /* Where libFuzzer writes its artifacts (-artifact_prefix, or beside
   * -exact_artifact_path): a probed entry is written there first. */
  char artifact_prefix[4096];
  char probe_artifact[4200]; /* the file of the probe under way, or "" */
  double started;            /* seconds: the process's start */
  bool fork_job;             /* a job of libFuzzer's fork mode (-features_dir=) */
  char campaign_path[4200];  /* a fork-mode job's campaign counts (harness/campaign.h), or "" */
  sf_campaign_set *observed; /* a fork-mode job's: entries an earlier job observed */
  uint64_t checked;          /* probes that ran the generic checks (within their budget) */
  uint64_t outputs;          /* the mutator's outputs (mutations and crossovers) */
  uint64_t outputs_checked;  /* of them, run again with the generic checks */
  sf_buf sampled;            /* the output sample_output kept, */
  uint64_t sampled_hash;     /* and its hash (0: none) */
  uint64_t last_run_hash;    /* the engine's last run (libFuzzer), */
  bool last_run_legal;       /* and whether it was legal */
  double output_seconds;     /* check_sampled_output's runs, their checks aside */
  sf_feedback output_fb;     /* its record, not kept */
} G;

static void set_running_call(void *ctx, sf_exec *x, const sf_seq *s, const sf_call_outcome *o) {
  (void)ctx;
  (void)x;
  (void)s;
  sf_cmp_trace_set_call(o->call + 1);
}

/* The solver's runner: a run with every comparison recorded. */
static uint32_t traced_run(void *ctx, const sf_seq *s, const sf_cmp_record **rec) {
  (void)ctx;
  sf_exec_hooks hooks = {NULL, set_running_call, NULL, NULL};
  sf_run_result r;
  sf_cmp_trace_begin_records();
  sf_exec_run(G.exec, s, &hooks, &r);
  return sf_cmp_trace_end_records(rec);
}

static void *resolve_embedded(void *ctx, const char *name) {
  (void)ctx;
  for (const sf_symbol *s = sf_embedded_symbols; s->name; s++)
    if (strcmp(s->name, name) == 0) return s->addr;
  return NULL;
}

/* The second implementation's symbol for each function (api->diff). */
static void *resolve_twin(void *ctx, const char *name) {
  int32_t fi = sf_api_find_func(G.api, name);
  char buf[512];
  return resolve_embedded(ctx, fi < 0 ? sf_diff_release(G.api, name, buf, sizeof buf)
                                      : sf_diff_symbol(G.api, (uint32_t)fi, buf, sizeof buf));
}

/* The solver's client, made at the first use; its server is this very
 * binary, whose start-up costs what ours did (the stage starts it once the
 * budget can pay for that). */
static sf_solver_client *solver_client(void) {
  if (G.remote || !G.solver_wanted) return G.remote;
  G.solver_wanted = false;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = 0;
    G.remote = sf_solver_client_deferred(self, G.start_cost);
  }
  if (!G.remote) fprintf(stderr, "seqfuzz: no solver (out of memory); fuzzing without it\n");
  return G.remote;
}

/* A probe runs outside libFuzzer's run of an input, so the file libFuzzer
 * writes for a crash inside it is empty. The entry probed is written where
 * libFuzzer's artifacts go first, as crash-probe-HASH, marked `observed` (its
 * replays observe, as the probe did), and removed once the probe is over: a
 * crash leaves it behind, and it reproduces the crash (an observer that
 * aborts on a state a library bug made).
 *
 * The bytes go to one file per process, hidden (.seqfuzz-probe-PID), which
 * is linked under the crash-probe name for the probe's time: a new file per
 * probe cost more than the probe itself (ext4 searches for a free inode not
 * recently deleted), a link is only a name. The hidden file is removed at
 * exit; one a crash left behind is removed by the next process that probes
 * in the same directory. */
static struct {
  int fd; /* the hidden file, -1 before the first probe (-2: links fail) */
  char path[4200];
} guard = {-1, ""};

static void guard_remove(void) {
  if (guard.fd >= 0) unlink(guard.path);
}

/* Remove the hidden files of processes that are gone (they crashed). */
static void guard_sweep(void) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", G.artifact_prefix);
  char *slash = strrchr(dir, '/');
  const char *base = slash ? slash + 1 : dir;
  char want[300];
  snprintf(want, sizeof want, "%s.seqfuzz-probe-", base);
  if (slash)
    slash[1] = 0;
  else
    snprintf(dir, sizeof dir, ".");
  DIR *d = opendir(dir);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, want, strlen(want)) != 0) continue;
    long pid = strtol(e->d_name + strlen(want), NULL, 10);
    if (pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
    char path[8400];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
}

/* The hidden file holding exactly d[0..n), linked as G.probe_artifact; false
 * if links cannot be made here (the caller then writes a file of its own). */
static bool guard_link(const uint8_t *d, size_t n) {
  if (guard.fd == -1) {
    guard_sweep();
    snprintf(guard.path, sizeof guard.path, "%s.seqfuzz-probe-%ld", G.artifact_prefix,
             (long)getpid());
    guard.fd = open(guard.path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (guard.fd < 0) return guard.fd = -2, false;
    atexit(guard_remove);
  }
  if (guard.fd < 0) return false;
  if (ftruncate(guard.fd, 0) != 0 || pwrite(guard.fd, d, n, 0) != (ssize_t)n) return false;
  if (link(guard.path, G.probe_artifact) == 0 || errno == EEXIST) return true;
  if (errno == EPERM || errno == EMLINK || errno == ENOTSUP) { /* no hard links here */
    guard_remove();
    close(guard.fd);
    guard.fd = -2;
  }
  return false;
}

static void probe_guard_arm(sf_seq *seq, uint64_t hash) {
  snprintf(G.probe_artifact, sizeof G.probe_artifact, "%scrash-probe-%016llx", G.artifact_prefix,
           (unsigned long long)hash);
  sf_buf enc = {0};
  seq->observed = true;
  if (sf_seq_encode(seq, &enc) != 0) {
    G.probe_artifact[0] = 0;
  } else if (!guard_link(enc.data, enc.len)) {
    int fd = open(G.probe_artifact, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || sf_write_all(fd, enc.data, enc.len) != 0) G.probe_artifact[0] = 0;
    if (fd >= 0) close(fd);
  }
  sf_buf_free(&enc);
}

static void probe_guard_disarm(void) {
  if (G.probe_artifact[0]) unlink(G.probe_artifact);
  G.probe_artifact[0] = 0;
}

/* Seconds spent observing beyond the engine's runs: the generic checks, the
 * per-call states, and the runs of sampled outputs (check_sampled_output). */
static double observation_seconds(void) {
  return sf_exec_generic_seconds(G.exec) + sf_feedback_call_observation_seconds() +
         G.output_seconds;
}

/* The observations of a new corpus entry beyond its run while they keep to
 * their share of the time: the generic checks (its live values' observers
 * and round trips, and two more runs compared for the repeatable-run
 * check) and the states before and after every call that stateful testing
 * learns from. On every entry the checks were up to half of the probes'
 * cost, two thirds of it the repeat check's, and with many observers (a
 * state observer is called against each other one) more than the run
 * itself; an observer that walks a whole image made the per-call states
 * 37% of a library's time at 2% of its runs. A library that is not
 * repeatable, or an observer that is not pure, is rarely so in one input
 * alone, contracts are inferred from many runs, and a replay of an
 * observed input (sf_feedback_replay) always checks, so a report
 * reproduces. A fraction of a second is free, for a short run's first
 * entries; not in a fork-mode job, one of many short parts of a long run
 * (a second's worth of jobs would take it every second). */
static bool observations_within(double percent, double free_seconds) {
  double allowed =
      (G.fork_job ? 0 : free_seconds) + percent / 100.0 * (sf_seconds_now() - G.started);
  return observation_seconds() <= allowed;
}

static bool observations_within_budget(void) {
  return observations_within((double)G.opt.check_budget, 0.2);
}

/* Stop noting comparisons; what the run compared goes into its record. */
static void end_noting(sf_feedback *fb) {
  fb->ncmp = sf_cmp_trace_end(fb->cmp, SF_FB_MAX_CMP);
  fb->nanswer_cmp = sf_cmp_trace_answer_cmps(fb->answer_cmp, SF_FB_MAX_ANSWER_CMP);
  fb->nbytes_cmp = sf_cmp_trace_bytes_cmps(fb->bytes_cmp, SF_FB_MAX_BYTES_CMP);
  fb->narg_cmp = sf_cmp_trace_arg_cmps(fb->arg_cmp, SF_FB_MAX_ARG_CMP);
  sf_cmp_trace_separators(fb->separators);
}

/* The mutator's runner (libFuzzer, in-process): a full run, observers
 * included, of a corpus entry it meets for the first time. */
static void probe_run(void *ctx, const uint8_t *data, size_t size, bool own_output,
                      sf_feedback *fb) {
  (void)ctx;
  if (sf_mutator_interpret(G.mut, &G.probe_seq, data, size)) sf_seq_clear(&G.probe_seq);
  uint64_t hash = sf_feedback_input_hash(data, size);
  double began = sf_seconds_now(), checks_before = sf_exec_generic_seconds(G.exec);
  /* Between the engine's runs the counters are free: they tell which edges
   * this entry reached first (the schedule credits its mutation by that). */
  bool count_edges = sf_edges_available();
  if (count_edges) {
    sf_edges_clear();
    /* What the calls of costly functions find (the mutator weighs them
     * down when nothing): in the mutator's outputs only. An entry the
     * engine loaded (a seed, a fork-mode job's share of the corpus) reaches
     * edges the campaign knows, new to this process alone. */
    if (own_output) sf_exec_count_edges(G.exec, sf_edges_new, sf_mutator_costly_calls(G.mut));
  }
  /* An entry an earlier fork-mode job observed is not observed again: its
   * checks would find what they found then, and every job meets the
   * entries it loads anew (harness/campaign.h). */
  bool within = !sf_campaign_set_has(G.observed, hash) && observations_within_budget(),
       check = G.opt.generic && within;
  if (check) G.checked++;
  if (within && (check || G.opt.contracts)) sf_campaign_set_add(G.observed, hash);
  sf_exec_generic_checks(G.exec, check);
  /* Not the engine's run: its comparison callbacks would feed tables it
   * clears before its next run (value profile) or keeps for mutations the
   * custom mutator replaces, at a cost that can pass the run's own. */
  sf_cmp_trace_forward(false);
  probe_guard_arm(&G.probe_seq, hash);
  sf_cmp_trace_begin(); /* after the guard's file names are compared */
  if (G.opt.contracts && within)
    sf_feedback_run_calls(G.exec, &G.probe_seq, hash, fb); /* stateful testing learns from it */
  else
    sf_feedback_run(G.exec, &G.probe_seq, hash, fb);
  /* The entry's own edges and comparisons, before the repeat check (which
   * runs by the clock) can add its observers' to them. */
  if (count_edges) {
    fb->new_edges = (own_output ? sf_exec_counted_edges(G.exec) : 0) + sf_edges_new();
    sf_exec_count_edges(G.exec, NULL, NULL);
  }
  end_noting(fb);
  sf_exec_check_repeat(G.exec, &G.probe_seq); /* nothing when the checks are off */
  sf_exec_generic_checks(G.exec, G.opt.generic != 0);
  sf_cmp_trace_forward(true);
  probe_guard_disarm();
  sf_solver_budget_new_input(&G.budget);
  /* A corpus entry: the solver learns its comparisons (while the budget
   * pays, the learning guessed to cost what this probe's run did: one
   * traced run, not the generic checks), and counts it as a confirmation if
   * it is one of its results. */
  double run_cost = sf_seconds_now() - began - (sf_exec_generic_seconds(G.exec) - checks_before);
  if (solver_client()) sf_solver_client_learn(G.remote, &G.budget, run_cost, data, size);
}

/* A sample of the mutator's outputs is run again with the generic checks,
 * once the engine has run it. A probe checks only what reached new code,
 * but a value that breaks a check (a negative number the printer writes
 * and the parser rejects) need not: it may arise on an object whose
 * state, by coverage, is nothing new. One output in 16
 * (SEQFUZZ_CHECK_OUTPUTS) is kept by sample_output; at the next mutation,
 * if the engine's run of it was legal and crashed nothing, it runs
 * observed as a probe does (a failing check writes crash-probe-HASH
 * first, marked observe_at_end, so its replay checks too), while all the
 * checks have taken less than a quarter of their budget: the probes of new
 * entries come first, and seqfuzz's share of the time stays near what it
 * was. After the engine's run, not before: a plain crash is the engine's
 * to report, with its own artifact. Nothing is learned from the run. */
static void sample_output(const uint8_t *data, size_t size) {
  if (!G.opt.generic || !G.opt.check_outputs || ++G.outputs % G.opt.check_outputs) return;
  sf_buf_reset(&G.sampled);
  G.sampled_hash = sf_buf_append(&G.sampled, data, size) ? 0 : sf_feedback_input_hash(data, size);
}

static void check_sampled_output(void) {
  uint64_t hash = G.sampled_hash;
  G.sampled_hash = 0;
  if (!hash || hash != G.last_run_hash || !G.last_run_legal) return;
  if (!observations_within((double)G.opt.check_budget / 4.0, 0.1)) return;
  if (sf_mutator_interpret(G.mut, &G.probe_seq, G.sampled.data, G.sampled.len)) return;
  G.outputs_checked++;
  double began = sf_seconds_now(), checks_before = sf_exec_generic_seconds(G.exec);
  sf_exec_generic_checks(G.exec, true);
  sf_cmp_trace_forward(false); /* not the engine's run (probe_run) */
  probe_guard_arm(&G.probe_seq, hash);
  sf_feedback_run(G.exec, &G.probe_seq, hash, &G.output_fb);
  sf_cmp_trace_forward(true);
  probe_guard_disarm();
  /* The run itself counts as the checks' cost: it is made for them. */
  G.output_seconds += sf_seconds_now() - began - (sf_exec_generic_seconds(G.exec) - checks_before);
}

static void write_stats_file(void);

/* (Re)load SEQFUZZ_KNOWN's patterns: at the start, and whenever the
 * directory changes (`seqfuzz fuzz` adds the bugs it triages while the
 * campaign goes on). A pattern that does not parse is told and skipped; -1
 * with a message when the directory cannot be read. */
static int load_known(void) {
  struct stat st;
  if (stat(G.known_dir, &st) == 0) G.known_mtime = st.st_mtim;
  char err[2048] = "";
  sf_known *k = sf_known_load(G.api, G.known_dir, err, sizeof err);
  if (!k) {
    fprintf(stderr, "seqfuzz: SEQFUZZ_KNOWN: %s\n", err);
    return -1;
  }
  if (err[0]) fprintf(stderr, "seqfuzz: SEQFUZZ_KNOWN: %s (the file is skipped)\n", err);
  sf_exec_set_known(G.exec, k);
  sf_known_free(G.known);
  G.known = k;
  fprintf(stderr, "seqfuzz: %u known bug(s) set aside (%s)\n", sf_known_count(k), G.known_dir);
  return 0;
}

/* Called now and then while fuzzing: has the directory changed? */
static void reload_known(void) {
  struct stat st;
  if (!G.known_dir || stat(G.known_dir, &st) != 0) return;
  if (st.st_mtim.tv_sec == G.known_mtime.tv_sec && st.st_mtim.tv_nsec == G.known_mtime.tv_nsec)
    return;
  load_known();
  G.known_mtime = st.st_mtim; /* not again until it changes again */
}

/* AFL++'s driver starts its fork server before LLVMFuzzerInitialize, and
 * the map's size is fixed then: the coverage states' entries are registered
 * before main (after the instrumented modules' constructors). */
__attribute__((constructor)) static void register_state_features(void) {
  if (sf_embedded_coverage_state) sf_state_features_init();
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
  sf_options_from_env(&G.opt);
  sf_exec_generic_checks(G.exec, G.opt.generic != 0);
  sf_exec_on_mock_answer(G.exec, sf_cmp_trace_watch_answer);
  sf_exec_on_int_arg(G.exec, sf_cmp_trace_watch_arg);
  /* The grammar's coverage states become the engine's features (made
   * visible to the engine in register_state_features). */
  if (sf_embedded_coverage_state && G.opt.coverage_state)
    sf_exec_on_coverage_state(G.exec, sf_state_features_hit);
  /* Known bugs are set aside while fuzzing, and in replays; not in the
   * run server, whose tools (triage, min) must see every crash. */
  const char *known = getenv("SEQFUZZ_KNOWN");
  if (known && *known && !getenv(SF_RUN_SERVE_ENV)) {
    G.known_dir = known;
    if (load_known() != 0) exit(1);
  }
  /* A traced run (triage's) also shows the state each call saw. */
  if (getenv(SF_TRACE_ENV)) sf_exec_trace_state(G.exec, true);
  if (G.api->diff && G.opt.diff) {
    G.twin = sf_exec_new(G.api, resolve_twin, NULL, err, sizeof err);
    if (!G.twin) {
      fprintf(stderr, "seqfuzz: the second implementation (%s): %s\n", G.api->diff->name, err);
      exit(1);
    }
    sf_exec_generic_checks(G.twin, false);
    sf_exec_set_twin(G.exec, G.twin);
  }
  sf_mutator_options mo = {.max_calls = (uint32_t)G.opt.max_calls,
                           .len_control = (uint32_t)G.opt.len_control,
                           .no_legality = !G.opt.legality,
                           .no_equivalence = !G.opt.equivalence,
                           .no_fresh_values = !G.opt.fresh_values,
                           .no_compares = !G.opt.compares,
                           .no_adaptive = !G.opt.adaptive,
                           .no_func_schedule = !G.opt.func_schedule,
                           .skip_repeats = true,
                           .state_features = G.opt.coverage_state != 0,
                           .contracts_percent = (uint32_t)G.opt.contracts};
  G.mut = sf_mutator_new(G.api, &mo);
  if (!G.mut) {
    fprintf(stderr, "seqfuzz: out of memory\n");
    exit(1);
  }
  G.channel = sf_channel_attach();
  if (G.opt.solver && getenv(SF_SOLVER_SERVE_ENV)) {
    /* This process is the solver server of a fuzzer (libFuzzer: of this
     * binary; AFL++: of the seqfuzz mutator in afl-fuzz). */
    sf_solver_options so = {.timeout_ms = (uint32_t)G.opt.solver_timeout};
    G.solver = sf_solver_new(G.api, &so, traced_run, NULL);
  } else {
    G.solver_wanted = G.opt.solver && !G.channel; /* AFL++: its mutator has the client */
  }
  sf_solver_budget_init(&G.budget, G.opt.solver_budget);
  struct timespec cpu;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) == 0)
    G.start_cost = (double)cpu.tv_sec + 1e-9 * (double)cpu.tv_nsec;
  sf_seq_init(&G.seq, G.api);
  sf_seq_init(&G.probe_seq, G.api);
  sf_mutator_set_runner(G.mut, probe_run, NULL);
  sf_mutator_set_byte_mutator(G.mut, LLVMFuzzerMutate);
  G.last_stats = time(NULL);
  G.started = sf_seconds_now();
  G.contracts_out = G.opt.contracts ? getenv("SEQFUZZ_CONTRACTS_OUT") : NULL;
  if (getenv("SEQFUZZ_STATS_DIR") || G.contracts_out) atexit(write_stats_file);
  if (getenv("SEQFUZZ_HELP")) {
    fprintf(stderr, "seqfuzz options (environment):\n");
    sf_options_print(&G.opt, stderr);
  }
}

/* The functions whose insertions the schedule favours most (weights.c). */
static void print_favoured(FILE *out) {
  uint32_t best[3] = {0, 0, 0};
  double share[3] = {1.5, 1.5, 1.5}; /* below this, not worth a mention */
  for (uint32_t fi = 0; fi < G.api->nfuncs; fi++) {
    double x = sf_mutator_insert_share(G.mut, fi);
    for (int k = 0; k < 3; k++) {
      if (x <= share[k]) continue;
      for (int j = 2; j > k; j--)
        best[j] = best[j - 1], share[j] = share[j - 1];
      best[k] = fi, share[k] = x;
      break;
    }
  }
  if (share[0] <= 1.5) return;
  fprintf(out, "seqfuzz: insertions favour:");
  for (int k = 0; k < 3 && share[k] > 1.5; k++)
    fprintf(out, "%s %s %.1fx", k ? "," : "", G.api->funcs[best[k]].name, share[k]);
  fprintf(out, "\n");
}

/* The statistics lines, on out. */
static void print_stats(FILE *out) {
  sf_mutator_stats s;
  sf_mutator_get_stats(G.mut, &s);
  double cand = s.candidates ? (double)s.candidates : 1;
  fprintf(
      out,
      "seqfuzz: execs %llu (illegal %.1f%%, foreign %.1f%%) | mutations %llu: pruned illegal "
      "%.1f%%, equivalent %.1f%% | pool %llu, states %llu, probes %llu (checked %llu, smaller "
      "copies not probed %llu), outputs checked %llu, "
      "answer trials %llu, byte trials %llu, argument trials %llu, option trials %llu, edges %u | "
      "mean length %.1f "
      "(cap %u) | inputs "
      "decoded %llu of %llu\n",
      (unsigned long long)G.execs, 100.0 * (double)G.illegal / (double)(G.execs ? G.execs : 1),
      100.0 * (double)G.foreign / (double)(G.execs ? G.execs : 1), (unsigned long long)s.mutations,
      100.0 * (double)s.pruned_illegal / cand, 100.0 * (double)s.pruned_equiv / cand,
      (unsigned long long)s.pool_size, (unsigned long long)s.states_seen,
      (unsigned long long)s.probes, (unsigned long long)G.checked,
      (unsigned long long)s.copies_unprobed, (unsigned long long)G.outputs_checked,
      (unsigned long long)s.answer_trials, (unsigned long long)s.bytes_trials,
      (unsigned long long)s.arg_trials, (unsigned long long)s.option_trials, sf_edges_seen(),
      s.mutations ? (double)s.calls_emitted / (double)s.mutations : 0.0, s.length_cap,
      (unsigned long long)(s.loads - s.loads_cached), (unsigned long long)s.loads);
  /* Which mutations made corpus entries that reached new code (the
   * schedule favours them). */
  static const char *const names[SF_MUT_COUNT] = {
      "", "extend", "insert", "remove", "change", "document", "repeat", "splice", "crossover"};
  char line[512];
  int n = snprintf(line, sizeof line, "seqfuzz: new code / outputs by mutation:");
  for (int k = 1; k < SF_MUT_COUNT && n > 0 && (size_t)n < sizeof line; k++)
    n += snprintf(line + n, sizeof line - (size_t)n, " %s %llu/%llu", names[k],
                  (unsigned long long)s.found[k], (unsigned long long)s.tried[k]);
  fprintf(out, "%s\n", line);
  /* Costly calls that find nothing, called less (sf_mutator_note_call_stats). */
  n = 0;
  for (uint32_t fi = 0; fi < G.api->nfuncs && n >= 0 && (size_t)n < sizeof line; fi++) {
    double w = sf_mutator_call_weight(G.mut, fi);
    if (w < 1)
      n += snprintf(line + n, sizeof line - (size_t)n, "%s %s %.2f", n ? "," : "",
                    G.api->funcs[fi].name, w);
  }
  if (n > 0) fprintf(out, "seqfuzz: costly calls weighed down:%s\n", line);
  print_favoured(out);
  if (G.known_hits)
    fprintf(out, "seqfuzz: known bugs set aside: %llu runs stopped before one\n",
            (unsigned long long)G.known_hits);
  sf_contracts *ct = sf_mutator_contracts(G.mut);
  if (ct) {
    sf_contracts_stats c;
    sf_contracts_get_stats(ct, &c);
    fprintf(out,
            "seqfuzz: contracts: learned from %llu runs, %llu states, %llu transitions | inferred "
            "%llu, holding %llu, refuted %llu by runs and %llu by the stage | stage: %llu plans "
            "(%llu through a transition), %llu outputs, %llu calls not made\n",
            (unsigned long long)c.runs, (unsigned long long)c.states,
            (unsigned long long)c.transitions, (unsigned long long)c.inferred,
            (unsigned long long)c.holding, (unsigned long long)c.refuted_runs,
            (unsigned long long)c.refuted_stage, (unsigned long long)c.plans,
            (unsigned long long)c.plans_via, (unsigned long long)s.contract_outputs,
            (unsigned long long)c.not_made);
  }
  if (!G.remote) return;
  const sf_solver_stats v = G.solver_stats; /* as of the last step */
  fprintf(out,
          "seqfuzz: solver: %.1f%% of the time%s | sites %llu, frontiers %llu | attempts %llu: "
          "no influence %llu, unfit %llu | queries %llu: sat %llu, unsat %llu, timeout %llu | "
          "flips %llu, kept by the engine %llu | crashes %llu\n",
          sf_solver_budget_share(&G.budget),
          sf_solver_budget_scale(&G.budget) < 1 ? " (a fifth of its share: it keeps too little)"
                                                : "",
          (unsigned long long)v.sites, (unsigned long long)v.frontiers,
          (unsigned long long)v.attempts, (unsigned long long)v.no_influence,
          (unsigned long long)v.unfit, (unsigned long long)v.queries, (unsigned long long)v.sat,
          (unsigned long long)v.unsat, (unsigned long long)v.timeouts, (unsigned long long)v.flips,
          (unsigned long long)v.confirmed, (unsigned long long)v.crashes);
}

/* The contracts report (contracts.h) in path. */
static void write_contracts(const char *path) {
  sf_contracts *ct = G.mut ? sf_mutator_contracts(G.mut) : NULL;
  if (ct) sf_contracts_save(ct, path);
}

/* SEQFUZZ_STATS_DIR: this process's statistics in DIR/stats-PID.txt, a
 * machine-readable line first (docs/workflow.md), rewritten at each tick
 * and at exit: `seqfuzz fuzz` sums them over its jobs, whose output the
 * engine's fork mode keeps to itself. */
static void write_stats_file(void) {
  if (G.contracts_out) write_contracts(G.contracts_out);
  const char *dir = getenv("SEQFUZZ_STATS_DIR");
  if (!dir || !G.mut) return;
  char path[4096], tmp[4200];
  if ((size_t)snprintf(path, sizeof path, "%s/stats-%ld.txt", dir, (long)getpid()) >= sizeof path)
    return;
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return;
  sf_mutator_stats s;
  sf_mutator_get_stats(G.mut, &s);
  double cand = s.candidates ? (double)s.candidates : 1;
  fprintf(f,
          "execs=%llu illegal=%llu known=%llu mutations=%llu pruned_illegal_pct=%.1f "
          "pruned_equiv_pct=%.1f pool=%llu edges=%u solver_attempts=%llu solver_flips=%llu\n",
          (unsigned long long)G.execs, (unsigned long long)G.illegal,
          (unsigned long long)G.known_hits, (unsigned long long)s.mutations,
          100.0 * (double)s.pruned_illegal / cand, 100.0 * (double)s.pruned_equiv / cand,
          (unsigned long long)s.pool_size, sf_edges_seen(),
          (unsigned long long)G.solver_stats.attempts, (unsigned long long)G.solver_stats.flips);
  print_stats(f);
  /* The contracts of processes that fuzzed (not of triage's or replays'). */
  char cpath[4096];
  if (s.mutations && (size_t)snprintf(cpath, sizeof cpath, "%s/contracts-%ld.txt", dir,
                                      (long)getpid()) < sizeof cpath)
    write_contracts(cpath);
  if (fclose(f) == 0) rename(tmp, path); /* readers never see half a file */
}

static void add_to_campaign(void);

/* The solver stage, within its time budget (solver/budget.h). */
static size_t solver_stage(uint8_t *data, size_t max_size) {
  sf_buf_reset(&G.solved);
  int rc = sf_solver_client_stage(&G.remote, &G.budget, &G.solved, max_size, &G.solver_stats);
  add_to_campaign();
  if (rc != 1) return 0;
  memcpy(data, G.solved.data, G.solved.len);
  return G.solved.len;
}

/* Server mode (SEQFUZZ_SOLVER_SERVE): an input the AFL++ mutator saw. */
static void serve_observe(void *ctx, const uint8_t *data, size_t size, sf_solver_hints *hints) {
  (void)ctx;
  if (sf_mutator_interpret(G.mut, &G.probe_seq, data, size)) return;
  const sf_cmp_record *rec;
  uint64_t consts[SF_FB_MAX_CMP], seps[4];
  sf_cmp_trace_begin(); /* the constants too, for the mutator in afl-fuzz */
  uint32_t n = traced_run(NULL, &G.probe_seq, &rec);
  uint32_t nconsts = sf_cmp_trace_end(consts, SF_FB_MAX_CMP);
  sf_cmp_trace_separators(seps);
  sf_solver_hints_add(hints, consts, nconsts, seps);
  uint64_t pairs[SF_FB_MAX_ARG_CMP][2];
  sf_arg_hint args[SF_FB_MAX_ARG_CMP];
  uint32_t nargs = sf_cmp_trace_arg_cmps(pairs, SF_FB_MAX_ARG_CMP);
  for (uint32_t k = 0; k < nargs; k++)
    args[k] = (sf_arg_hint){sf_feedback_input_hash(data, size), {pairs[k][0], pairs[k][1]}};
  sf_solver_hints_add_args(hints, args, nargs);
  sf_solver_observe(G.solver, &G.probe_seq, rec, n);
  sf_solver_note_input(G.solver, sf_feedback_input_hash(data, size));
}

/* Serve the AFL++ mutator's solver requests on stdin/stdout, then leave. */
static void serve(void) {
  sf_cmp_trace_forward(false); /* no engine fuzzes in the server */
  int out = dup(1);
  dup2(2, 1); /* whatever else writes to stdout must not reach the pipe */
  if (G.solver && out >= 0) sf_solver_serve(G.solver, 0, out, serve_observe, NULL);
  _exit(0);
}

/* What the solver did since the last call goes to a fork-mode campaign's
 * totals at once (many jobs end in a crash, with no exit handler run): new
 * attempts or kept flips, or a second more of its CPU time. */
static void add_to_campaign(void) {
  static sf_campaign_counts added;
  if (!G.campaign_path[0]) return;
  sf_campaign_counts now = {G.solver_stats.attempts, G.solver_stats.confirmed,
                            (uint64_t)(G.budget.spent * 1000)},
                     delta = {now.solver_attempts - added.solver_attempts,
                              now.solver_kept - added.solver_kept, now.solver_ms - added.solver_ms};
  if (!delta.solver_attempts && !delta.solver_kept && delta.solver_ms < 1000) return;
  if (sf_campaign_add(G.campaign_path, &delta) == 0) added = now;
}

/* A fork-mode job starts: its solver's budget follows the campaign's yield
 * so far, not this job's alone (harness/campaign.h). */
static void join_campaign(const char *features_dir) {
  char path[4200];
  if (!sf_campaign_path(features_dir, SF_CAMPAIGN_OBSERVED, path, sizeof path))
    G.observed = sf_campaign_set_open(path);
  if (sf_campaign_path(features_dir, SF_CAMPAIGN_COUNTS, G.campaign_path, sizeof G.campaign_path)) {
    G.campaign_path[0] = 0;
    return;
  }
  sf_campaign_counts past = sf_campaign_read(G.campaign_path);
  sf_solver_budget_past(&G.budget, past.solver_attempts, past.solver_kept,
                        (double)past.solver_ms / 1000);
}

/* Where libFuzzer writes its artifacts (probe_guard_arm's go there too),
 * and whether this process is a fork-mode job (the parent gives each job a
 * features directory). */
static void read_engine_flags(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp(a, "-features_dir=", 14) == 0 && !G.fork_job) {
      G.fork_job = true;
      join_campaign(a + 14);
    }
    if (strncmp(a, "-artifact_prefix=", 17) == 0)
      snprintf(G.artifact_prefix, sizeof G.artifact_prefix, "%s", a + 17);
    else if (strncmp(a, "-exact_artifact_path=", 21) == 0 && !G.artifact_prefix[0])
      /* libFuzzer overwrites that very file: ours goes beside it. */
      snprintf(G.artifact_prefix, sizeof G.artifact_prefix, "%s.", a + 21);
  }
}

/* libFuzzer 14's entropic schedule keeps every feature seen fewer than
 * -entropic_feature_frequency_threshold times (255) on its list of rare
 * features, and looks each feature of each execution up in that list, one
 * by one. A large target that runs a few hundred sequences a second sees
 * most of its features fewer than 255 times for minutes, so the list
 * holds tens of thousands and the lookups take most of the time (sqlite3:
 * 62% of the samples, 31 executions a second). With 64 the list soon
 * holds about the 100 rarest, as it does anyway once the counts pass the
 * threshold (LLVM 18 replaced the lookup with a bitset). On a small target
 * the list stays short at 255, and a lower threshold changes which
 * features the schedule favours early (blob's bug took twice the
 * executions at 16): only targets of ENTROPIC_LARGE_TARGET edges or more
 * get it. A threshold the user gives wins. */
#define ENTROPIC_THRESHOLD_FLAG "-entropic_feature_frequency_threshold="
#define ENTROPIC_LARGE_TARGET   20000
static void set_entropic_threshold(int *argc, char ***argv) {
  if (sf_edges_count() < ENTROPIC_LARGE_TARGET) return;
  for (int i = 1; i < *argc; i++)
    if (strncmp((*argv)[i], ENTROPIC_THRESHOLD_FLAG, strlen(ENTROPIC_THRESHOLD_FLAG)) == 0) return;
  /* Both stay: libFuzzer reads them after this returns. */
  static char flag[] = ENTROPIC_THRESHOLD_FLAG "64";
  static char **args;
  args = malloc(((size_t)*argc + 2) * sizeof *args);
  if (!args) return;
  memcpy(args, *argv, (size_t)*argc * sizeof *args);
  args[(*argc)++] = flag;
  args[*argc] = NULL;
  *argv = args;
}

/* UBSan prints no stack by default: a report with one names the function
 * (signatures, triage's reasons). The environment's UBSAN_OPTIONS still win. */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) {
  return "print_stacktrace=1";
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  init_once();
  if (getenv(SF_SOLVER_SERVE_ENV)) serve();
  read_engine_flags(*argc, *argv);
  set_entropic_threshold(argc, argv);
  if (getenv(SF_RUN_SERVE_ENV)) {
    unsetenv(SF_RUN_SERVE_ENV);
    G.solver_wanted = false;
    sf_cmp_trace_forward(false);
    sf_run_server(LLVMFuzzerTestOneInput);
  }
  /* -minimize_crash hands the mutator a crashing input: running it to learn
   * its states would crash inside the mutator. */
  for (int i = 1; i < *argc; i++)
    if (strncmp((*argv)[i], "-minimize_crash", 15) == 0) {
      sf_mutator_set_runner(G.mut, NULL, NULL);
      G.solver_wanted = false; /* its results would not be smaller crashes */
    }
  return 0;
}

static void trace_call(void *ctx, sf_exec *x, const sf_seq *s, const sf_call_outcome *o) {
  (void)ctx;
  sf_buf line = {0};
  sf_call_outcome_print(s, o, &line);
  /* A handle result that is an object the caller already holds (a new
   * reference, an alias): triage reads it (`refcounted`). */
  uint32_t vid = s->calls[o->call].val0;
  if (o->made && !o->failed && sf_seq_func(s, o->call)->ret.kind == SF_HANDLE && o->ret)
    for (uint32_t v = 0; v < vid; v++)
      if (sf_exec_value(x, v) == (void *)(uintptr_t)o->ret) {
        sf_buf_printf(&line, "  (same object as h%u)", v + 1);
        break;
      }
  fprintf(stderr, "seqfuzz: %.*s\n", (int)line.len, (const char *)line.data);
  /* A string result whole, as a literal of the text form, on a line of its
   * own (SF_TRACE_RESULT): the simplifier reads printed values from it. A
   * printer that may print NULs gives the length in an out integer. */
  if (o->made && !o->failed && o->str) {
    const sf_func *f = sf_seq_func(s, o->call);
    size_t n = f->ret.len_param >= 0 ? (size_t)o->outs[f->ret.len_param] : strlen(o->str);
    sf_buf_reset(&line);
    sf_buf_printf(&line, SF_TRACE_RESULT "%u: ", o->call + 1);
    sf_seq_print_string(&line, (const uint8_t *)o->str, n);
    fprintf(stderr, "%.*s\n", (int)line.len, (const char *)line.data);
  }
  sf_buf_free(&line);
}

/* SEQFUZZ_TRACE: one line per call, then the outcome (observed if the
 * input says so). */
static int trace_run(const sf_seq *seq, uint64_t hash) {
  sf_run_result r;
  sf_feedback_replay(G.exec, seq, hash, &G.local, trace_call, &r);
  if (r.status == SF_RUN_OK)
    fprintf(stderr, "seqfuzz: outcome: ok, %u calls made\n", seq->ncalls);
  else
    fprintf(stderr, "seqfuzz: outcome: stopped at call %u: %s\n", r.stop_call + 1,
            sf_run_status_name(r.status));
  return 0;
}

#ifdef SEQFUZZ_OSSFUZZ
#define REJECT 0
#else
#define REJECT (-1)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  init_once();
  G.execs++;
  if (G.known_dir && (G.execs & 1023) == 0 && time(NULL) - G.known_checked >= 2) {
    G.known_checked = time(NULL);
    reload_known();
  }
  if (G.opt.stats && (G.execs & 1023) == 0 && time(NULL) - G.last_stats >= G.opt.stats) {
    G.last_stats = time(NULL);
    print_stats(stderr);
    write_stats_file();
  }
  uint64_t hash = sf_feedback_input_hash(data, size);
  const sf_seq *seq = sf_mutator_last_output(G.mut, hash); /* usually: no need to decode */
  if (!seq) {
    seq = &G.seq;
    if (sf_seq_decode(&G.seq, G.api, data, size) != SF_DECODE_OK) {
      /* Not a seqfuzz input: run the sequence the mutator reads it as. */
      G.foreign++;
      if (sf_mutator_interpret(G.mut, &G.seq, data, size)) return REJECT;
    }
  }
  /* A report of the corpus's contracts (SEQFUZZ_CONTRACTS_OUT, with
   * -runs=0 over it): while the engine loads the corpus (no mutation yet),
   * the mutator learns from each input as it would when it first mutates
   * it (its probe doubles the run's coverage counts). */
  if (G.contracts_out && !G.mutated) sf_mutator_meet(G.mut, data, size);
  if (G.opt.trace) return trace_run(seq, hash);
  bool legal;
  if (G.channel) {
    /* AFL++: the mutator cannot run inputs, so every run records everything. */
    sf_cmp_trace_begin();
    sf_feedback *fb = sf_channel_record(G.channel);
    bool probe = fb->calls_wanted == hash; /* the mutator's probe of an entry */
    /* The live values' generic checks cost more than the run where a type
     * has many observers: on the probes, and one other input in 8, chosen by
     * its bytes (a replay of an observed input checks them all). */
    if (G.opt.generic) sf_exec_generic_checks(G.exec, probe || (hash >> 6 & 7) == 0);
    if (probe)
      sf_feedback_run_calls(G.exec, seq, hash, fb);
    else
      sf_feedback_run(G.exec, seq, hash, fb);
    sf_exec_generic_checks(G.exec, G.opt.generic != 0);
    legal = fb->status == SF_RUN_OK || fb->status == SF_RUN_ERROR_RESULT;
    /* Repeating every run would halve the speed: one input in 64, chosen by
     * its bytes (a replay of it repeats it too, sf_feedback_replay). */
    if ((hash & 63) == 0) sf_exec_check_repeat(G.exec, seq);
    fb->magic = 0; /* rewritten below, once the comparisons are in */
    end_noting(fb);
    __atomic_store_n(&fb->magic, SF_FB_MAGIC, __ATOMIC_RELEASE);
  } else {
    /* libFuzzer: a plain run; the mutator asks for observers and constants
     * (probe_run) when it meets a corpus entry, so nothing is noted here.
     * An input found by a run that observed is run that way (sf_seq). */
    sf_run_result r;
    sf_feedback_replay(G.exec, seq, hash, &G.local, NULL, &r);
    legal = sf_run_legal(&r);
    /* A smaller output that reached no new edge, if the engine keeps it,
     * is a smaller copy of an entry, not worth a probe (mutate.h). The
     * counters are read before the engine reads them, on those runs only. */
    if (sf_edges_available() && sf_mutator_is_smaller_output(G.mut, hash))
      G.local.new_edges = sf_edges_any_new();
    sf_mutator_note_run(G.mut, &G.local);
    G.last_run_hash = hash;
    G.last_run_legal = legal;
  }
  if (legal) return 0;
  G.illegal++;
  if ((G.channel ? sf_channel_record(G.channel)->status : G.local.status) == SF_RUN_KNOWN)
    G.known_hits++;
  return G.opt.legality ? REJECT : 0;
}

/* About once a second, the mutator learns what each function's calls cost
 * and found (it weighs its choice of calls by them). */
static void note_call_stats(void) {
  static uint32_t mutations;
  static double last;
  if (!G.opt.call_costs || ++mutations % 64) return;
  double now = sf_seconds_now();
  if (now - last < 1.0) return;
  last = now;
  sf_mutator_note_call_stats(G.mut, sf_exec_call_stats(G.exec), sf_ticks_per_second());
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  init_once();
  note_call_stats();
  check_sampled_output();
  size_t solved = solver_stage(data, max_size);
  if (solved) return solved;
  static uint8_t *out;
  static size_t outcap;
  if (outcap < max_size) {
    uint8_t *p = realloc(out, max_size);
    if (!p) return size;
    out = p;
    outcap = max_size;
  }
  G.mutated = true;
  size_t n = sf_mutator_mutate(G.mut, data, size, out, max_size, seed);
  if (!n) return 0; /* only repeats: libFuzzer asks again rather than run one */
  memcpy(data, out, n);
  sample_output(data, n);
  return n;
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max_out, unsigned int seed) {
  init_once();
  note_call_stats();
  check_sampled_output();
  G.mutated = true;
  size_t n = sf_mutator_crossover(G.mut, d1, s1, d2, s2, out, max_out, seed);
  if (n) sample_output(out, n);
  return n;
}
