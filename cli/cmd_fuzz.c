/* seqfuzz fuzz: a whole campaign on a target directory (docs/workflow.md):
 * build or reuse its fuzzer, run the engine with a live progress line, stop
 * at the time limit or on Ctrl-C, triage the crashes and summarize. */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "fuzz_run.h"

#ifndef SF_SOURCE_ROOT
#define SF_SOURCE_ROOT "."
#endif

enum { MAX_JOBS = 256 };

static volatile sig_atomic_t g_signal; /* SIGINT or SIGTERM received */

/* The command's strings (paths, arguments) live until it ends: kept here,
 * freed together, none lost on an early return. */
static char **g_strings;
static size_t g_nstrings, g_capstrings;

static char *keep(char *s) {
  if (g_nstrings == g_capstrings) {
    size_t cap = g_capstrings ? 2 * g_capstrings : 64;
    char **p = realloc(g_strings, cap * sizeof *p);
    if (!p) {
      fputs("seqfuzz: out of memory\n", stderr);
      exit(1);
    }
    g_strings = p;
    g_capstrings = cap;
  }
  return g_strings[g_nstrings++] = s;
}
#define STR(...) keep(fz_printf(__VA_ARGS__))

static void free_strings(void) {
  for (size_t i = 0; i < g_nstrings; i++)
    free(g_strings[i]);
  free(g_strings);
  g_strings = NULL;
  g_nstrings = g_capstrings = 0;
}

static void on_signal(int sig) {
  g_signal = sig;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void nap(double seconds) {
  struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  nanosleep(&ts, NULL); /* a signal cuts it short, as wanted */
}

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A non-negative integer option, or -1. */
static long parse_count(const char *s, long max) {
  if (!s || !*s) return -1;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  return *end || errno || v < 0 || v > max ? -1 : v;
}

/* The campaign's one .api file: NULL with a message when there is none or
 * more than one. */
static char *find_api(const char *target) {
  DIR *d = opendir(target);
  if (!d) {
    cli_error("%s: cannot read the directory: %s", target, strerror(errno));
    return NULL;
  }
  char *api = NULL;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len <= 4 || strcmp(e->d_name + len - 4, ".api") != 0) continue;
    if (n++ == 0) api = STR("%s/%s", target, e->d_name);
  }
  closedir(d);
  if (n == 1) return api;
  if (n == 0)
    cli_error("%s: no .api file: a target directory holds its grammar NAME.api "
              "(docs/workflow.md)",
              target);
  else
    cli_error("%s: %d .api files: a target directory holds exactly one", target, n);
  return NULL;
}

/* The last lines of a log, on stderr (why a build or an engine failed). */
static void show_tail(const char *path, int lines) {
  sf_buf b = {0};
  if (cli_read_file(path, &b)) return; /* it said why */
  size_t start = b.len;
  while (start > 0 && lines >= 0)
    if (b.data[--start] == '\n' && start + 1 < b.len) lines--;
  if (start > 0) start++;
  fprintf(stderr, "--- the end of %s:\n", path);
  fwrite(b.data + start, 1, b.len - start, stderr);
  if (b.len && b.data[b.len - 1] != '\n') fputc('\n', stderr);
  sf_buf_free(&b);
}

/* Build the target's fuzzer for an engine, or find it up to date
 * (scripts/build-target-dir.sh, into TARGET/.seqfuzz/ENGINE). Its path, or
 * NULL with a message. */
static char *build_fuzzer(const char *root, const char *target, const char *engine,
                          const char *log) {
  char *script = STR("%s/scripts/build-target-dir.sh", root);
  char *out = STR("%s/.seqfuzz/%s", target, engine);
  char *argv[] = {"bash", script, (char *)target, out, (char *)engine, NULL};
  fz_spawn_opts o = {.err = log, .pgid = -1, .capture = true};
  sf_buf cap = {0};
  fprintf(stderr, "seqfuzz fuzz: building the %s fuzzer (or finding it up to date) in %s; log %s\n",
          engine, out, log);
  int rc = fz_run(argv, &o, &cap);
  char *fuzzer = NULL;
  /* Its last line on stdout is the fuzzer's path. */
  while (cap.len && (cap.data[cap.len - 1] == '\n' || cap.data[cap.len - 1] == '\r'))
    cap.len--;
  if (rc == 0 && cap.len && sf_buf_putc(&cap, 0) == 0) {
    char *last = strrchr((char *)cap.data, '\n');
    last = last ? last + 1 : (char *)cap.data;
    if (access(last, X_OK) == 0) fuzzer = STR("%s", last);
  }
  if (!fuzzer) {
    show_tail(log, 20);
    if (g_signal)
      cli_error("the build was interrupted");
    else
      cli_error("building the %s fuzzer of %s failed (exit %d; log %s)", engine, target, rc, log);
  }
  sf_buf_free(&cap);
  return fuzzer;
}

/* argv as one shell-quoted line (run.txt's `command`). */
static char *command_line(int argc, char **argv) {
  sf_buf b = {0};
  sf_buf_printf(&b, "seqfuzz");
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    bool plain = *a != 0;
    for (const char *p = a; *p && plain; p++)
      plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%",
                     *p) != NULL;
    if (plain) {
      sf_buf_printf(&b, " %s", a);
      continue;
    }
    sf_buf_printf(&b, " '");
    for (const char *p = a; *p; p++)
      *p == '\'' ? sf_buf_printf(&b, "'\\''") : sf_buf_putc(&b, (uint8_t)*p);
    sf_buf_putc(&b, '\'');
  }
  sf_buf_putc(&b, 0);
  return (char *)b.data;
}

/* 1234567 -> "1.23M": the progress line stays short. */
static const char *human(uint64_t v, char buf[16]) {
  if (v < 10000)
    snprintf(buf, 16, "%llu", (unsigned long long)v);
  else if (v < 10000000)
    snprintf(buf, 16, "%.1fk", (double)v / 1e3);
  else if (v < 10000000000ull)
    snprintf(buf, 16, "%.2fM", (double)v / 1e6);
  else
    snprintf(buf, 16, "%.2fG", (double)v / 1e9);
  return buf;
}

typedef struct campaign {
  /* Settings */
  const char *target, *api, *run, *engine;
  char *fuzzer, *lf_fuzzer; /* the engine's build, and the libFuzzer build (triage) */
  bool afl;
  long jobs, seconds, seed; /* seed -1: the engine's choice */
  char *corpus, *crashes, *stats_dir, *sync_dir, *findings, *engine_log, *afl_queue;
  /* Known bugs: RUN/known (TARGET/known-bugs copied in, and what the
   * learner adds while the campaign goes on: scripts/learn-known.sh). */
  char *known, *learner;
  fz_child learn_kid;
  bool learning;
  uint64_t learned_at; /* crash files when the learner last started */
  uint64_t unique;     /* findings triaged so far (count_unique) */
  bool coverage;       /* --coverage: RUN/coverage, llvm-cov's report of the corpus */
  /* Engine processes: one libFuzzer, or one afl-fuzz per job. */
  fz_child kids[MAX_JOBS];
  int status[MAX_JOBS]; /* -2 while it runs */
  int nkids, running;
  pid_t pgid;
  bool stopped_by_us;
  /* Progress */
  double t0, elapsed;
  fz_stats st;
  fz_afl_stats afl_st;
  uint64_t execs, corpus_n, edges, crash_n;
  bool have_execs, have_edges, have_mut;
  double pruned_illegal, pruned_equiv; /* the mutator's shares of candidates, % */
  uint64_t flips;
  double rate;
  double hist_t[8];
  uint64_t hist_x[8];
  int nhist;
  FILE *tsv;
} campaign;

/* Everything the progress line and progress.tsv show, read again. */
/* Unique findings so far: the distinct signatures of the patterns the
 * learner made (learned-*.seq in RUN/known; each starts with
 * `# a known bug: SIGNATURE`). */
static uint64_t count_unique(const char *known) {
  DIR *d = opendir(known);
  if (!d) return 0;
  char *seen[256];
  uint64_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 256) {
    if (strncmp(e->d_name, "learned-", 8) != 0) continue;
    char path[PATH_MAX], line[600];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", known, e->d_name) >= sizeof path) continue;
    FILE *f = fopen(path, "r");
    if (!f) continue;
    if (fgets(line, sizeof line, f)) {
      uint64_t i = 0;
      while (i < n && strcmp(seen[i], line) != 0)
        i++;
      if (i == n && (seen[n] = strdup(line))) n++;
    }
    fclose(f);
  }
  closedir(d);
  for (uint64_t i = 0; i < n; i++)
    free(seen[i]);
  return n;
}

static void refresh(campaign *c) {
  c->elapsed = now() - c->t0;
  c->unique = count_unique(c->known);
  fz_read_stats(c->stats_dir, &c->st);
  c->have_execs = c->st.have;
  c->execs = c->st.execs;
  c->have_edges = c->st.have;
  c->edges = c->st.edges;
  c->have_mut = c->st.have;
  c->pruned_illegal = c->st.pruned_illegal_pct;
  c->pruned_equiv = c->st.pruned_equiv_pct;
  c->flips = c->st.solver_flips;
  c->corpus_n = fz_count_files(c->corpus, "");
  uint64_t x, cov;
  if (!c->afl && fz_read_libfuzzer_log(c->engine_log, &x, &cov)) {
    /* A job that crashed wrote no statistics file: libFuzzer counted its
     * runs. Edges as the harness counts them, else libFuzzer's coverage. */
    if (!c->have_execs || x > c->execs) c->execs = x;
    if (!c->have_edges || c->edges == 0) c->edges = cov;
    c->have_execs = c->have_edges = true;
  }
  if (c->afl) {
    fz_collect_afl(c->sync_dir, c->crashes, false);
    fz_read_afl_stats(c->sync_dir, &c->afl_st);
    /* The mutator runs inside afl-fuzz, not in the target processes whose
     * statistics files say it made no mutation. */
    c->have_mut =
        fz_read_afl_mutators(c->stats_dir, &c->pruned_illegal, &c->pruned_equiv, &c->flips);
    /* afl-fuzz rewrites its statistics once a minute: the target processes'
     * files and the main queue are newer before that. */
    uint64_t queued = fz_count_files(c->afl_queue, "id");
    c->corpus_n = queued > c->afl_st.corpus ? queued : c->afl_st.corpus;
    if (c->afl_st.have) {
      c->have_execs = c->have_edges = true;
      if (c->afl_st.execs > c->execs) c->execs = c->afl_st.execs;
      c->edges = c->afl_st.edges;
    }
  }
  c->crash_n = fz_count_files(c->crashes, "");
  /* The rate over the last ~10 s (ticks of 2 s): fork-mode jobs write their
   * files at different moments, so one tick's difference jumps. */
  if (c->nhist == 8) {
    memmove(c->hist_t, c->hist_t + 1, 7 * sizeof *c->hist_t);
    memmove(c->hist_x, c->hist_x + 1, 7 * sizeof *c->hist_x);
    c->nhist--;
  }
  c->hist_t[c->nhist] = c->elapsed;
  c->hist_x[c->nhist++] = c->execs;
  int first = 0;
  while (first + 1 < c->nhist && c->elapsed - c->hist_t[first] > 10.5)
    first++;
  double dt = c->elapsed - c->hist_t[first];
  c->rate = dt >= 1.5 && c->execs >= c->hist_x[first] ? (double)(c->execs - c->hist_x[first]) / dt
            : c->elapsed > 0                          ? (double)c->execs / c->elapsed
                                                      : 0;
}

static void tsv_row(campaign *c) {
  if (!c->tsv) return;
  fprintf(c->tsv, "%.0f\t", c->elapsed);
  if (c->have_execs)
    fprintf(c->tsv, "%llu\t%.0f\t", (unsigned long long)c->execs, c->rate);
  else
    fprintf(c->tsv, "-\t-\t");
  fprintf(c->tsv, "%llu\t", (unsigned long long)c->corpus_n);
  if (c->have_edges)
    fprintf(c->tsv, "%llu\t", (unsigned long long)c->edges);
  else
    fprintf(c->tsv, "-\t");
  fprintf(c->tsv, "%llu\t", (unsigned long long)c->unique);
  if (c->have_mut)
    fprintf(c->tsv, "%.1f\t%.1f\t%llu\n", c->pruned_illegal, c->pruned_equiv,
            (unsigned long long)c->flips);
  else
    fprintf(c->tsv, "-\t-\t-\n");
  fflush(c->tsv);
}

static void progress_line(campaign *c, bool tty) {
  char a[16], b[16], d[16];
  long s = (long)c->elapsed;
  sf_buf line = {0};
  sf_buf_printf(&line, "seqfuzz fuzz: %ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  if (c->have_execs)
    sf_buf_printf(&line, " | execs %s (%s/s)", human(c->execs, a), human((uint64_t)c->rate, b));
  else
    sf_buf_printf(&line, " | execs -");
  sf_buf_printf(&line, " | corpus %s", human(c->corpus_n, d));
  if (c->have_edges) sf_buf_printf(&line, " | edges %llu", (unsigned long long)c->edges);
  sf_buf_printf(&line, " | crashes %llu, unique %llu", (unsigned long long)c->crash_n,
                (unsigned long long)c->unique);
  if (c->have_mut)
    sf_buf_printf(&line, " | pruned illegal %.1f%% equiv %.1f%% | solver flips %llu",
                  c->pruned_illegal, c->pruned_equiv, (unsigned long long)c->flips);
  if (sf_buf_putc(&line, 0) == 0) {
    /* On a terminal the line is rewritten in place (and cleared to its end). */
    if (tty)
      fprintf(stderr, "\r%s\033[K", (const char *)line.data);
    else
      fprintf(stderr, "%s\n", (const char *)line.data);
    fflush(stderr);
  }
  sf_buf_free(&line);
}

static void env_add(char **env, int *n, char *entry) {
  env[(*n)++] = entry;
}

/* Start the engine: one libFuzzer in fork mode, or AFL++ instances. */
static int start_engine(campaign *c) {
  char *env[32];
  int ne = 0;
  env_add(env, &ne, "SEQFUZZ_STATS=2");
  env_add(env, &ne, STR("SEQFUZZ_STATS_DIR=%s", c->stats_dir));
  env_add(env, &ne, STR("SEQFUZZ_KNOWN=%s", c->known));
  char *dict = STR("%s.dict", c->fuzzer);
  bool have_dict = is_file(dict);
  c->pgid = 0; /* the first child leads a new group; the others join it */
  int rc = 0;
  if (!c->afl) {
    char *argv[16];
    int na = 0;
    argv[na++] = c->fuzzer;
    argv[na++] = STR("-fork=%ld", c->jobs);
    argv[na++] = "-ignore_crashes=1";
    argv[na++] = STR("-artifact_prefix=%s/", c->crashes);
    if (c->seed >= 0) argv[na++] = STR("-seed=%ld", c->seed);
    if (c->seconds > 0) argv[na++] = STR("-max_total_time=%ld", c->seconds);
    argv[na++] = "-timeout=25";
    argv[na++] = "-rss_limit_mb=2560";
    argv[na++] = "-print_final_stats=1";
    if (have_dict) argv[na++] = STR("-dict=%s", dict);
    argv[na++] = c->corpus;
    argv[na] = NULL;
    env[ne] = NULL;
    char *log = c->engine_log;
    unlink(log); /* the parent's last line is read from it */
    fz_spawn_opts o = {.env = env, .out = log, .err = log, .pgid = 0};
    if (fz_spawn(argv, &o, &c->kids[0]) == 0) {
      c->pgid = c->kids[0].pid;
      c->status[0] = -2;
      c->nkids = c->running = 1;
    } else {
      rc = -1;
    }
  } else {
    char *dir = STR("%s", c->fuzzer);
    *strrchr(dir, '/') = 0;
    env_add(env, &ne, STR("AFL_CUSTOM_MUTATOR_LIBRARY=%s/libseqfuzz-afl.so", dir));
    env_add(env, &ne, "AFL_CUSTOM_MUTATOR_ONLY=1");
    env_add(env, &ne, STR("SEQFUZZ_API=%s.api", c->fuzzer));
    env_add(env, &ne, STR("SEQFUZZ_SOLVER_TARGET=%s", c->lf_fuzzer));
    env_add(env, &ne, "AFL_SKIP_CPUFREQ=1");
    env_add(env, &ne, "AFL_NO_UI=1");
    env_add(env, &ne, "AFL_NO_AFFINITY=1");
    env_add(env, &ne, "AFL_AUTORESUME=1");
    env_add(env, &ne, "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1");
    /* afl-fuzz wants a first input. */
    if (fz_count_files(c->corpus, "") == 0) {
      char *p = STR("%s/empty", c->corpus);
      cli_write_file(p, "seed", 4);
    }
    for (long j = 0; j < c->jobs && rc == 0; j++) {
      char *name = j == 0 ? STR("main") : STR("s%ld", j);
      char *argv[24];
      int na = 0;
      argv[na++] = "afl-fuzz";
      argv[na++] = "-i";
      argv[na++] = c->corpus;
      argv[na++] = "-o";
      argv[na++] = c->sync_dir;
      argv[na++] = "-m";
      argv[na++] = "none";
      argv[na++] = "-t";
      argv[na++] = "25000";
      if (c->seconds > 0) argv[na++] = "-V", argv[na++] = STR("%ld", c->seconds);
      if (c->seed >= 0) argv[na++] = "-s", argv[na++] = STR("%ld", c->seed + j);
      if (have_dict) argv[na++] = "-x", argv[na++] = dict;
      argv[na++] = j == 0 ? "-M" : "-S";
      argv[na++] = name;
      argv[na++] = "--";
      argv[na++] = c->fuzzer;
      argv[na] = NULL;
      /* The mutator's own statistics lines, per instance. */
      env[ne] = STR("SEQFUZZ_STATS_FILE=%s/afl-%s.log", c->stats_dir, name);
      env[ne + 1] = STR("SEQFUZZ_CONTRACTS_OUT=%s/contracts-afl-%s.txt", c->stats_dir, name);
      env[ne + 2] = NULL;
      char *log = STR("%s/afl-%s.log", c->run, name);
      unlink(log);
      fz_spawn_opts o = {.env = env, .out = log, .err = log, .pgid = c->pgid};
      if (fz_spawn(argv, &o, &c->kids[j]) == 0) {
        if (!c->pgid) c->pgid = c->kids[j].pid;
        c->status[j] = -2;
        c->nkids++;
        c->running++;
      } else {
        rc = -1;
      }
    }
  }
  return rc;
}

/* Note the engine processes that ended. */
static void reap(campaign *c) {
  for (int i = 0; i < c->nkids; i++) {
    if (c->status[i] != -2) continue;
    int st;
    pid_t r = waitpid(c->kids[i].pid, &st, WNOHANG);
    if (r == c->kids[i].pid || (r < 0 && errno == ECHILD)) {
      c->status[i] = r < 0             ? -1
                     : WIFEXITED(st)   ? WEXITSTATUS(st)
                     : WIFSIGNALED(st) ? 128 + WTERMSIG(st)
                                       : -1;
      c->running--;
    }
  }
}

/* Ctrl-C's way: each engine process is asked to stop, then, after 5 s, its
 * group is killed. afl-fuzz stops cleanly on SIGINT. libFuzzer's fork-mode
 * parent ignores SIGINT while it waits in system() for a job, and a job's
 * shell killed by it does not read as interrupted: SIGTERM stops the parent
 * (it prints its final statistics and removes its temporary directory).
 * What is left in the group afterwards (jobs, solver servers) is killed. */
static void stop_engine(campaign *c) {
  if (c->running > 0) {
    c->stopped_by_us = true;
    for (int i = 0; i < c->nkids; i++)
      if (c->status[i] == -2) kill(c->kids[i].pid, c->afl ? SIGINT : SIGTERM);
    for (double t = now(); c->running > 0 && now() - t < 5;) {
      nap(0.1);
      reap(c);
    }
    if (c->running > 0) {
      fprintf(stderr, "\nseqfuzz fuzz: the engine did not stop within 5 s: killing it\n");
      killpg(c->pgid, SIGKILL);
      while (c->running > 0) {
        nap(0.05);
        reap(c);
      }
    }
  }
  if (c->pgid > 0) killpg(c->pgid, SIGKILL);
}

/* Set aside what the campaign found so far: when there are crash files the
 * learner has not seen and it is not running, start it (in the background:
 * triage and `seqfuzz known` take seconds; the fuzzers reload RUN/known). */
static void learn(campaign *c) {
  if (c->learning) {
    int st;
    pid_t r = waitpid(c->learn_kid.pid, &st, WNOHANG);
    if (r == 0) return;
    c->learning = false;
  }
  if (c->crash_n <= c->learned_at || !c->learner) return;
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0 || (size_t)n >= sizeof self - 1) return;
  self[n] = 0;
  char *argv[] = {"bash",       c->learner, self,     (char *)c->api,
                  c->lf_fuzzer, c->crashes, c->known, STR("%s/learn", c->run),
                  NULL};
  char *log = STR("%s/learn.log", c->run);
  fz_spawn_opts o = {.out = log, .err = log, .pgid = -1};
  if (fz_spawn(argv, &o, &c->learn_kid) == 0) {
    c->learning = true;
    c->learned_at = c->crash_n;
  }
}

static void stop_learning(campaign *c) {
  if (!c->learning) return;
  kill(c->learn_kid.pid, SIGTERM);
  fz_wait(&c->learn_kid, NULL);
  c->learning = false;
}

/* The campaign: start, watch, stop. Returns -1 when the engine did not
 * start or ended early with an error. */
static int run_campaign(campaign *c) {
  bool tty = isatty(2);
  char *tsv_path = STR("%s/progress.tsv", c->run);
  c->tsv = fopen(tsv_path, "w");
  if (!c->tsv)
    cli_error("%s: cannot create file: %s", tsv_path, strerror(errno));
  else
    fprintf(c->tsv, "elapsed_s\texecs\texecs_per_s\tcorpus\tedges\tfindings\tpruned_illegal_pct\t"
                    "pruned_equiv_pct\tsolver_flips\n");
  c->t0 = now();
  if (start_engine(c) != 0) {
    stop_engine(c);
    return -1;
  }
  fprintf(stderr, "seqfuzz fuzz: %s with %s, %ld job%s, %s; Ctrl-C stops it%s\n", c->target,
          c->engine, c->jobs, c->jobs == 1 ? "" : "s",
          c->seconds ? STR("%ld s", c->seconds) : "no time limit",
          c->afl ? "" : STR(" (engine log %s)", c->engine_log));
  double last_tick = 0, last_line = 0;
  while (!g_signal && c->running > 0) {
    nap(0.25);
    reap(c);
    double t = now() - c->t0;
    /* The engines keep their own limit; this one catches an engine that
     * would not stop. */
    if (c->seconds > 0 && t > (double)c->seconds + 30) break;
    if (t - last_tick >= 2) {
      last_tick = t;
      refresh(c);
      tsv_row(c);
      learn(c);
    }
    if (tty ? t - last_line >= 1 : t - last_line >= 10) {
      last_line = t;
      progress_line(c, tty);
    }
  }
  if (g_signal)
    fprintf(stderr, "%sseqfuzz fuzz: %s: stopping the engine\n", tty ? "\n" : "",
            g_signal == SIGINT ? "interrupted" : "terminated");
  stop_engine(c);
  stop_learning(c);
  refresh(c);
  tsv_row(c);
  progress_line(c, tty);
  if (tty) fputc('\n', stderr);
  if (c->tsv) fclose(c->tsv);
  /* An engine that ended by itself, with an error, well before its time. */
  int rc = 0;
  for (int i = 0; i < c->nkids; i++) {
    bool early = c->seconds == 0 || c->elapsed < 0.9 * (double)c->seconds;
    if (!c->stopped_by_us && early && c->status[i] != 0) {
      char *log = c->afl ? STR("%s/afl-%s.log", c->run, i ? STR("s%d", i) : "main") : c->engine_log;
      show_tail(log, 15);
      cli_error("the engine ended after %.0f s with status %d (log %s)", c->elapsed, c->status[i],
                log);
      rc = -1;
    }
  }
  return rc;
}

typedef struct finding_row {
  char *id, *kind, *verdict, *count, *signature;
} finding_row;

/* findings.tsv's rows (after its header), split in place in text. */
static int read_findings(char *text, finding_row **rows) {
  int n = 0, cap = 0;
  *rows = NULL;
  char *save = NULL;
  bool header = true;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (header) {
      header = false;
      continue;
    }
    char *f[5];
    int k = 0;
    for (char *p = line; k < 5; k++) {
      f[k] = p;
      char *tab = k < 4 ? strchr(p, '\t') : NULL;
      if (!tab) break;
      *tab = 0;
      p = tab + 1;
    }
    if (k < 4) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 8;
      finding_row *r = realloc(*rows, (size_t)cap * sizeof **rows);
      if (!r) break;
      *rows = r;
    }
    (*rows)[n++] = (finding_row){f[0], f[1], f[2], f[3], f[4]};
  }
  return n;
}

/* The reason triage gave for group id (a fresh string, or NULL): in its
 * report, the line "    likely bug: ..." (or "likely API misuse") after
 * "[id] ...". */
static char *triage_reason(const sf_buf *report, const char *id) {
  if (!report->data) return NULL;
  size_t idlen = strlen(id);
  bool in_group = false;
  for (const char *line = (const char *)report->data; line && *line;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    if (line[0] == '[')
      in_group = strncmp(line + 1, id, idlen) == 0 && line[1 + idlen] == ']';
    else if (in_group && strncmp(line, "    likely ", 11) == 0) {
      const char *colon = memchr(line, ':', len);
      if (colon && colon + 2 <= line + len) {
        return strndup(colon + 2, (size_t)(line + len - colon - 2));
      }
    }
    line = nl ? nl + 1 : NULL;
  }
  return NULL;
}

/* Triage (this very binary), findings.tsv, and the summary. Returns -1 when
 * triage gave no findings table. */
static int finish(campaign *c, sf_buf *summary) {
  long s = (long)c->elapsed;
  char a[16];
  sf_buf_printf(summary, "seqfuzz fuzz: %s, %s, %ld job%s, ran %ld:%02ld:%02ld (%s)\n", c->target,
                c->engine, c->jobs, c->jobs == 1 ? "" : "s", s / 3600, s / 60 % 60, s % 60,
                g_signal == SIGINT ? "interrupted"
                : g_signal         ? "terminated"
                : c->seconds       ? STR("limit %ld s", c->seconds)
                                   : "no time limit");
  sf_buf_printf(summary, "  executions %s (%.0f/s)", c->have_execs ? human(c->execs, a) : "-",
                c->elapsed > 0 ? (double)c->execs / c->elapsed : 0.0);
  sf_buf_printf(summary, ", corpus %llu, edges ", (unsigned long long)c->corpus_n);
  if (c->have_edges)
    sf_buf_printf(summary, "%llu", (unsigned long long)c->edges);
  else
    sf_buf_printf(summary, "-");
  sf_buf_printf(summary, ", crash files %llu\n  known bugs set aside: %zu pattern(s) in %s\n",
                (unsigned long long)c->crash_n, fz_count_files(c->known, ""), c->known);
  sf_buf_printf(summary, "  run directory %s\n", c->run);

  fz_remove_files(c->findings, ""); /* a run directory used again: no stale groups */
  char *tsv = STR("%s/findings.tsv", c->findings);
  char *log = STR("%s/triage.log", c->run);
  int rc = 0;
  if (c->crash_n == 0) {
    static const char header[] = "id\tkind\tverdict\tcount\tsignature\n";
    cli_write_file(tsv, header, sizeof header - 1);
  } else {
    fprintf(stderr, "seqfuzz fuzz: triaging %llu crash files (log %s)...\n",
            (unsigned long long)c->crash_n, log);
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0 || (size_t)n >= sizeof self - 1) {
      cli_error("/proc/self/exe: cannot find this program");
      rc = -1;
    } else {
      self[n] = 0;
      /* --known: a new bug's minimization must not slide onto a known one. */
      char *argv[] = {self, "triage",    (char *)c->api, c->crashes, "--target", c->lf_fuzzer,
                      "-o", c->findings, "--known",      c->known,   NULL};
      unlink(log);
      fz_spawn_opts o = {.out = log, .err = log, .pgid = -1};
      int t = fz_run(argv, &o, NULL);
      if (t != 0)
        fprintf(stderr, "seqfuzz fuzz: triage %s (status %d); see %s\n",
                t > 128 ? "was interrupted" : "reported errors", t, log);
    }
  }
  sf_buf table = {0};
  if (rc == 0 && cli_read_file(tsv, &table) == 0 && sf_buf_putc(&table, 0) == 0) {
    char *dest = STR("%s/findings.tsv", c->run);
    if (cli_write_file(dest, table.data, table.len - 1)) rc = -1;
    finding_row *rows;
    int n = read_findings((char *)table.data, &rows);
    sf_buf report = {0};
    if (c->crash_n && (cli_read_file(log, &report) != 0 || sf_buf_putc(&report, 0) != 0))
      sf_buf_free(&report);
    int bugs = 0;
    for (int i = 0; i < n; i++)
      bugs += strcmp(rows[i].verdict, "bug") == 0;
    if (c->crash_n == 0)
      sf_buf_printf(summary, "no crashes: no findings\n");
    else
      sf_buf_printf(summary,
                    "findings: %d unique (%d likely bug%s, %d likely API misuse); "
                    "triage's report %s\n",
                    n, bugs, bugs == 1 ? "" : "s", n - bugs, log);
    for (int i = 0; i < n; i++) {
      finding_row *r = &rows[i];
      sf_buf_printf(summary, "\n[%s] %s: %s (%s input%s)\n", r->id, r->verdict, r->signature,
                    r->count, strcmp(r->count, "1") == 0 ? "" : "s");
      char *seq = STR("%s/%s-%s.seq", c->findings, r->id, r->kind);
      char *repro = STR("%s/%s-%s.c", c->findings, r->id, r->kind);
      char *why = triage_reason(&report, r->id);
      if (why) sf_buf_printf(summary, "    why: %s\n", why);
      free(why);
      FILE *f = fopen(seq, "r");
      if (f) {
        sf_buf_printf(summary, "    minimized sequence (%s):\n", seq);
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, f) > 0)
          sf_buf_printf(summary, "      %s%s", line, strchr(line, '\n') ? "" : "\n");
        free(line);
        fclose(f);
      } else {
        sf_buf_printf(summary, "    (no minimized sequence: see %s)\n", log);
      }
      sf_buf_printf(summary, "    C reproducer: %s%s\n", repro, is_file(repro) ? "" : " (missing)");
    }
    free(rows);
    sf_buf_free(&report);
  } else if (rc == 0) {
    cli_error("triage left no %s (see %s)", tsv, log);
    rc = -1;
  }
  sf_buf_free(&table);
  return rc;
}

static void write_text(const char *run, const char *name, const char *text) {
  char *p = STR("%s/%s", run, name);
  cli_write_file(p, text, strlen(text));
}

static void write_run_txt(const campaign *c, const char *command, time_t started, time_t ended) {
  char *text = STR("target=%s\napi=%s\nfuzzer=%s\nengine=%s\njobs=%ld\nseconds=%ld\nseed=%s\n"
                   "started=%lld\nended=%s\ncommand=%s\n",
                   c->target, c->api, c->fuzzer, c->engine, c->jobs, c->seconds,
                   c->seed >= 0 ? STR("%ld", c->seed) : "-", (long long)started,
                   ended ? STR("%lld", (long long)ended) : "-", command);
  write_text(c->run, "run.txt", text);
}

/* --coverage: the corpus through the target's coverage build
 * (scripts/coverage-target.sh, which needs a build.sh) into RUN/coverage:
 * summary.txt and html/ (seqfuzz report links it). */
static void line_coverage(campaign *c, const char *root, sf_buf *summary) {
  char *out = STR("%s/coverage", c->run), *log = STR("%s/coverage.log", c->run);
  char *argv[] = {
      STR("%s/scripts/coverage-target.sh", root), (char *)c->target, "-o", out, c->corpus, NULL};
  fprintf(stderr, "seqfuzz fuzz: line coverage of the corpus (log %s)...\n", log);
  fz_spawn_opts o = {.out = log, .err = log, .pgid = -1};
  sf_buf text = {0};
  if (fz_run(argv, &o, NULL) == 0 && cli_read_file(STR("%s/summary.txt", out), &text) == 0) {
    const char *total = text.data ? strstr((const char *)text.data, "TOTAL") : NULL;
    const char *end = total ? strchr(total, '\n') : NULL;
    sf_buf_printf(summary, "line coverage: %s/html/index.html%s%.*s\n", out, total ? "\n  " : "",
                  total ? (int)(end ? end - total : (long)strlen(total)) : 0, total ? total : "");
  } else {
    sf_buf_printf(summary,
                  "line coverage: none (a coverage build needs the target's build.sh; "
                  "see %s)\n",
                  log);
  }
  sf_buf_free(&text);
}

/* TARGET/known-bugs/\*.seq into RUN/known (the user's, set aside from the
 * start). */
static void copy_known_bugs(const char *target, const char *known) {
  char *dir = STR("%s/known-bugs", target);
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (e->d_name[0] == '.' || n < 5 || strcmp(e->d_name + n - 4, ".seq")) continue;
    sf_buf b = {0};
    if (cli_read_file(STR("%s/%s", dir, e->d_name), &b) == 0)
      cli_write_file(STR("%s/%s", known, e->d_name), b.data, b.len);
    sf_buf_free(&b);
  }
  closedir(d);
}

static int fuzz(campaign *c, int argc, char **argv) {
  c->coverage = cli_take_flag(&argc, argv, "--coverage");
  const char *pos[2];
  int npos = cli_positionals(argc, argv, pos, 2);
  if (npos != 1) return cli_usage_error("fuzz", npos ? "one TARGET only" : "missing TARGET");
  c->engine = cli_option(argc, argv, "--engine", NULL);
  if (!c->engine) c->engine = "libfuzzer";
  if (strcmp(c->engine, "libfuzzer") != 0 && strcmp(c->engine, "afl") != 0)
    return cli_usage_error("fuzz", "--engine is libfuzzer or afl, not '%s'", c->engine);
  c->afl = strcmp(c->engine, "afl") == 0;
  const char *v = cli_option(argc, argv, "--jobs", "-j");
  c->jobs = v ? parse_count(v, MAX_JOBS) : 1;
  if (c->jobs < 1) return cli_usage_error("fuzz", "--jobs takes 1 to %d", MAX_JOBS);
  v = cli_option(argc, argv, "--seconds", NULL);
  c->seconds = v ? parse_count(v, LONG_MAX / 2) : 0;
  if (c->seconds < 0) return cli_usage_error("fuzz", "--seconds takes a number of seconds >= 0");
  v = cli_option(argc, argv, "--seed", NULL);
  c->seed = v ? parse_count(v, UINT_MAX / 2) : -1;
  if (v && c->seed < 0) return cli_usage_error("fuzz", "--seed takes a number >= 0");

  /* The target directory. */
  char *target = realpath(pos[0], NULL);
  if (target) keep(target);
  if (!target || !is_dir(target))
    return cli_error("%s: not a directory (a target directory: docs/workflow.md)", pos[0]);
  c->target = target;
  char *api_path = find_api(target);
  if (!api_path) return 1;
  c->api = api_path;
  sf_api *api = cli_load_api(api_path);
  if (!api) return 1;
  bool has_libraries = api->nlibraries > 0;
  char *name = STR("%s", api->name);
  sf_api_free(api);
  char *build_sh = STR("%s/build.sh", target);
  if (!is_file(build_sh) && !has_libraries)
    return cli_error("%s: no build.sh, and %s has no `library` line: nothing to fuzz "
                     "(docs/workflow.md)",
                     target, api_path);
  if (c->afl && !is_file(build_sh))
    return cli_error("%s: --engine afl needs a build.sh (the libraries of `library` lines are "
                     "built for libFuzzer)",
                     target);
  const char *root = getenv("SEQFUZZ_ROOT");
  if (!root || !*root) root = SF_SOURCE_ROOT;
  char *script = STR("%s/scripts/build-target-dir.sh", root);
  if (!is_file(script))
    return cli_error("%s not found: set SEQFUZZ_ROOT to the seqfuzz source tree", script);

  /* The run directory. */
  char *run;
  if ((v = cli_option(argc, argv, "--output", "-o"))) {
    run = STR("%s", v);
  } else {
    char stamp[32];
    time_t t = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&t));
    run = STR("%s-run-%s", name, stamp);
  }
  if (cli_make_dirs(run)) return 1;
  char *run_abs = realpath(run, NULL);
  if (!run_abs) return cli_error("%s: %s", run, strerror(errno));
  c->run = keep(run_abs);
  c->corpus = STR("%s/corpus", c->run);
  c->crashes = STR("%s/crashes", c->run);
  c->stats_dir = STR("%s/stats", c->run);
  c->known = STR("%s/known", c->run);
  c->learner = STR("%s/scripts/learn-known.sh", root);
  if (!is_file(c->learner)) c->learner = NULL;
  c->sync_dir = STR("%s/afl", c->run);
  c->findings = STR("%s/findings", c->run);
  c->engine_log = STR("%s/engine.log", c->run);
  c->afl_queue = STR("%s/main/queue", c->sync_dir);
  if (cli_make_dirs(c->corpus) || cli_make_dirs(c->crashes) || cli_make_dirs(c->stats_dir) ||
      cli_make_dirs(c->findings) || cli_make_dirs(c->known))
    return 1;
  copy_known_bugs(target, c->known);
  /* The sums are this run's: statistics of an earlier run in the same
   * directory go (its corpus and crashes stay, and the campaign goes on
   * from them). */
  fz_remove_files(c->stats_dir, "");

  struct sigaction sa = {.sa_handler = on_signal};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);

  /* Build, or reuse. AFL++ runs an afl-clang-fast build; triage and the
   * solver server want the libFuzzer one too. */
  char *build_log = STR("%s/build.log", c->run);
  unlink(build_log);
  c->lf_fuzzer = build_fuzzer(root, target, "libfuzzer", build_log);
  if (!c->lf_fuzzer) return 1;
  c->fuzzer = c->afl ? build_fuzzer(root, target, "afl", build_log) : c->lf_fuzzer;
  if (!c->fuzzer) return 1;
  if (g_signal) return cli_error("interrupted");

  /* A new corpus starts from the target's seed corpus. */
  char *zip = STR("%s_seed_corpus.zip", c->fuzzer);
  if (fz_count_files(c->corpus, "") == 0 && is_file(zip)) {
    char *uz[] = {"unzip", "-q", "-o", zip, "-d", c->corpus, NULL};
    fz_spawn_opts o = {.out = build_log, .err = build_log, .pgid = -1};
    if (fz_run(uz, &o, NULL) != 0)
      fprintf(stderr, "seqfuzz fuzz: could not unzip %s (see %s): starting empty\n", zip,
              build_log);
  }

  char *command = keep(command_line(argc, argv));
  time_t started = time(NULL);
  write_run_txt(c, command, started, 0);
  int rc = CLI_EXIT_OK;
  if (run_campaign(c) != 0) rc = CLI_EXIT_ERROR;
  if (c->afl) fz_collect_afl(c->sync_dir, c->corpus, true);
  sf_buf stats = {0};
  sf_buf_printf(&stats, "%s", c->st.text ? c->st.text : "");
  /* Under AFL++ the mutator's lines are its own (SEQFUZZ_STATS_FILE). */
  if (c->afl) fz_afl_mutator_lines(c->stats_dir, &stats);
  sf_buf_putc(&stats, 0);
  write_text(c->run, "stats.txt", stats.data ? (const char *)stats.data : "");
  sf_buf_free(&stats);
  fz_best_contracts(c->stats_dir, c->run);

  sf_buf summary = {0};
  if (finish(c, &summary) != 0) rc = CLI_EXIT_ERROR;
  if (c->coverage) line_coverage(c, root, &summary);
  time_t ended = time(NULL);
  write_run_txt(c, command, started, ended);
  sf_buf_putc(&summary, 0);
  write_text(c->run, "summary.txt", (const char *)summary.data);
  fputs((const char *)summary.data, stdout);
  sf_buf_free(&summary);
  return rc;
}

int cmd_fuzz(int argc, char **argv) {
  campaign *c = calloc(1, sizeof *c);
  if (!c) return cli_error("out of memory");
  struct sigaction old_int, old_term;
  sigaction(SIGINT, NULL, &old_int);
  sigaction(SIGTERM, NULL, &old_term);
  int rc = fuzz(c, argc, argv);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  fz_stats_free(&c->st);
  free(c);
  free_strings();
  return rc;
}
