/* The process, file and statistics helpers of `seqfuzz fuzz` (fuzz_run.h). */
#define _GNU_SOURCE
#include "fuzz_run.h"
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char *fz_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n < 0) {
    fputs("seqfuzz: out of memory\n", stderr);
    exit(1);
  }
  return s;
}

/* In the child: a file opened for appending onto fd, or _exit. */
static void redirect(const char *path, int fd) {
  int f = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (f < 0 || dup2(f, fd) < 0) {
    fprintf(stderr, "seqfuzz: %s: %s\n", path, strerror(errno));
    _exit(126);
  }
  close(f);
}

int fz_spawn(char *const argv[], const fz_spawn_opts *opts, fz_child *child) {
  static const fz_spawn_opts none = {.pgid = -1};
  if (!opts) opts = &none;
  int pipefd[2] = {-1, -1};
  if (opts->capture && pipe2(pipefd, O_CLOEXEC) != 0) {
    fprintf(stderr, "seqfuzz: pipe: %s\n", strerror(errno));
    return -1;
  }
  fflush(NULL); /* nothing buffered is written twice */
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "seqfuzz: fork: %s\n", strerror(errno));
    if (pipefd[0] >= 0) close(pipefd[0]), close(pipefd[1]);
    return -1;
  }
  if (pid == 0) {
    if (opts->pgid >= 0) {
      setpgid(0, opts->pgid);
      /* Out of the terminal's foreground group, a read of it would stop the
       * child: it gets nothing to read. */
      int null = open("/dev/null", O_RDONLY);
      if (null >= 0) dup2(null, 0), close(null);
    }
    /* Our handlers of SIGINT and SIGTERM do not survive exec; an ignored
     * signal would, so the engines get the default back. */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    if (opts->capture) dup2(pipefd[1], 1);
    if (opts->out) redirect(opts->out, 1);
    if (opts->err) {
      if (opts->out && strcmp(opts->out, opts->err) == 0)
        dup2(1, 2);
      else
        redirect(opts->err, 2);
    }
    for (char *const *e = opts->env; e && *e; e++)
      putenv(*e);
    execvp(argv[0], argv);
    fprintf(stderr, "seqfuzz: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  /* The parent sets the group too: whichever runs first, the child is in
   * it before anyone signals the group. */
  if (opts->pgid >= 0) setpgid(pid, opts->pgid ? opts->pgid : pid);
  child->pid = pid;
  child->out_fd = -1;
  if (opts->capture) {
    close(pipefd[1]);
    child->out_fd = pipefd[0];
  }
  return 0;
}

static int status_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

int fz_wait(fz_child *child, sf_buf *capture) {
  if (child->out_fd >= 0) {
    char chunk[4096];
    for (;;) {
      ssize_t n = read(child->out_fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      if (capture) sf_buf_append(capture, chunk, (size_t)n);
    }
    close(child->out_fd);
    child->out_fd = -1;
  }
  int status;
  while (waitpid(child->pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return status_code(status);
}

int fz_run(char *const argv[], const fz_spawn_opts *opts, sf_buf *capture) {
  fz_child c;
  if (fz_spawn(argv, opts, &c) != 0) return -1;
  return fz_wait(&c, capture);
}

/* Calls fn(dir, name) for each regular file of dir starting with prefix;
 * returns how many there were. */
static size_t each_file(const char *dir, const char *prefix,
                        void (*fn)(const char *dir, const char *name, void *ctx), void *ctx) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  size_t n = 0, plen = strlen(prefix);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, prefix, plen) != 0 || e->d_name[0] == '.') continue;
    if (e->d_type != DT_REG) {
      if (e->d_type != DT_UNKNOWN) continue;
      char *p = fz_printf("%s/%s", dir, e->d_name);
      struct stat st;
      bool reg = stat(p, &st) == 0 && S_ISREG(st.st_mode);
      free(p);
      if (!reg) continue;
    }
    n++;
    if (fn) fn(dir, e->d_name, ctx);
  }
  closedir(d);
  return n;
}

size_t fz_count_files(const char *dir, const char *prefix) {
  return each_file(dir, prefix, NULL, NULL);
}

static void remove_one(const char *dir, const char *name, void *ctx) {
  (void)ctx;
  char *p = fz_printf("%s/%s", dir, name);
  unlink(p);
  free(p);
}

void fz_remove_files(const char *dir, const char *prefix) {
  each_file(dir, prefix, remove_one, NULL);
}

/* One statistics file: its first line's numbers, and which is newest. */
typedef struct stats_scan {
  fz_stats *st;
  struct timespec newest;
  char *newest_path;
} stats_scan;

static bool parse_stats_line(char *line, fz_stats *out) {
  bool any = false;
  for (char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save); tok;
       tok = strtok_r(NULL, " \t\r\n", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) continue;
    *eq = 0;
    const char *v = eq + 1;
    any = true;
    if (strcmp(tok, "execs") == 0)
      out->execs = strtoull(v, NULL, 10);
    else if (strcmp(tok, "pruned_illegal_pct") == 0)
      out->pruned_illegal_pct = strtod(v, NULL);
    else if (strcmp(tok, "pruned_equiv_pct") == 0)
      out->pruned_equiv_pct = strtod(v, NULL);
    else if (strcmp(tok, "edges") == 0)
      out->edges = strtoull(v, NULL, 10);
    else if (strcmp(tok, "solver_flips") == 0)
      out->solver_flips = strtoull(v, NULL, 10);
  }
  return any;
}

static void scan_stats(const char *dir, const char *name, void *ctx) {
  stats_scan *sc = ctx;
  size_t len = strlen(name);
  if (len < 4 || strcmp(name + len - 4, ".txt") != 0) return; /* a writer's .tmp */
  char *path = fz_printf("%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  char *line = NULL;
  size_t cap = 0;
  struct stat st;
  fz_stats one = {0};
  if (f && getline(&line, &cap, f) > 0 && fstat(fileno(f), &st) == 0 &&
      parse_stats_line(line, &one)) {
    sc->st->have = true;
    sc->st->execs += one.execs;
    /* The newest file that counted executions: not a solver server's, nor
     * a fork-mode parent's, which run none. */
    bool newer = st.st_mtim.tv_sec > sc->newest.tv_sec || (st.st_mtim.tv_sec == sc->newest.tv_sec &&
                                                           st.st_mtim.tv_nsec > sc->newest.tv_nsec);
    if (one.execs > 0 && (newer || !sc->newest_path)) {
      sc->newest = st.st_mtim;
      free(sc->newest_path);
      sc->newest_path = path;
      path = NULL;
      sc->st->pruned_illegal_pct = one.pruned_illegal_pct;
      sc->st->pruned_equiv_pct = one.pruned_equiv_pct;
      sc->st->edges = one.edges;
      sc->st->solver_flips = one.solver_flips;
    }
  }
  free(line);
  if (f) fclose(f);
  free(path);
}

void fz_read_stats(const char *dir, fz_stats *st) {
  fz_stats_free(st);
  stats_scan sc = {.st = st};
  each_file(dir, "stats-", scan_stats, &sc);
  if (!sc.newest_path) return;
  /* Its human-readable lines: everything after the first. */
  FILE *f = fopen(sc.newest_path, "r");
  if (f) {
    sf_buf text = {0};
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    for (bool first = true; (n = getline(&line, &cap, f)) > 0; first = false)
      if (!first) sf_buf_append(&text, line, (size_t)n);
    free(line);
    fclose(f);
    if (sf_buf_putc(&text, 0) == 0)
      st->text = (char *)text.data;
    else
      sf_buf_free(&text);
  }
  free(sc.newest_path);
}

void fz_stats_free(fz_stats *st) {
  free(st->text);
  *st = (fz_stats){0};
}

bool fz_read_libfuzzer_log(const char *log, uint64_t *execs, uint64_t *cov) {
  FILE *f = fopen(log, "rb");
  if (!f) return false;
  /* The last lines are enough: the log grows all campaign long. */
  char buf[16384];
  long start = 0;
  if (fseek(f, 0, SEEK_END) == 0) {
    long size = ftell(f);
    start = size > (long)sizeof buf - 1 ? size - (long)sizeof buf + 1 : 0;
  }
  size_t n = fseek(f, start, SEEK_SET) == 0 ? fread(buf, 1, sizeof buf - 1, f) : 0;
  fclose(f);
  buf[n] = 0;
  bool found = false;
  for (char *line = buf; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    unsigned long long x, c;
    if (line[0] == '#' && sscanf(line, "#%llu: cov: %llu", &x, &c) == 2) {
      *execs = x;
      *cov = c;
      found = true;
    }
    line = nl ? nl + 1 : NULL;
  }
  return found;
}

/* The instances of an AFL++ sync directory: its subdirectories. */
static void each_instance(const char *sync_dir, void (*fn)(const char *inst, void *ctx),
                          void *ctx) {
  DIR *d = opendir(sync_dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char *p = fz_printf("%s/%s", sync_dir, e->d_name);
    struct stat st;
    if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) fn(p, ctx);
    free(p);
  }
  closedir(d);
}

/* The last line of a file (a progress log), in a fresh block, or NULL. */
static char *last_line(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  char *line = NULL, *last = NULL;
  size_t cap = 0;
  /* The end is enough: plot_data and the mutator's log grow all run long. */
  if (fseek(f, 0, SEEK_END) == 0) {
    long size = ftell(f);
    if (size > 8192)
      fseek(f, size - 8192, SEEK_SET), getline(&line, &cap, f);
    else
      rewind(f);
  }
  while (getline(&line, &cap, f) > 0) {
    free(last);
    last = strdup(line);
  }
  free(line);
  fclose(f);
  return last;
}

static void read_instance(const char *inst, void *ctx) {
  fz_afl_stats *st = ctx;
  uint64_t execs = 0, corpus = 0, edges = 0;
  /* fuzzer_stats is rewritten once a minute, plot_data every 5 s: the
   * larger numbers are the newer. */
  char *path = fz_printf("%s/fuzzer_stats", inst);
  FILE *f = fopen(path, "r");
  free(path);
  if (f) {
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
      char key[64];
      unsigned long long v;
      if (sscanf(line, "%63s : %llu", key, &v) != 2) continue;
      st->have = true;
      if (strcmp(key, "execs_done") == 0)
        execs = v;
      else if (strcmp(key, "corpus_count") == 0)
        corpus = v;
      else if (strcmp(key, "edges_found") == 0)
        edges = v;
    }
    free(line);
    fclose(f);
  }
  /* relative_time, cycles_done, cur_item, corpus_count, pending_total,
   * pending_favs, map_size, saved_crashes, saved_hangs, max_depth,
   * execs_per_sec, total_execs, edges_found */
  path = fz_printf("%s/plot_data", inst);
  char *last = last_line(path);
  free(path);
  if (last && last[0] != '#') {
    char *field[13];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(last, ", \n", &save); t && n < 13;
         t = strtok_r(NULL, ", \n", &save))
      field[n++] = t;
    if (n == 13) {
      st->have = true;
      uint64_t v = strtoull(field[3], NULL, 10);
      if (v > corpus) corpus = v;
      v = strtoull(field[11], NULL, 10);
      if (v > execs) execs = v;
      v = strtoull(field[12], NULL, 10);
      if (v > edges) edges = v;
    }
  }
  free(last);
  st->execs += execs;
  if (corpus > st->corpus) st->corpus = corpus;
  if (edges > st->edges) st->edges = edges;
}

bool fz_read_afl_mutators(const char *stats_dir, double *pruned_illegal, double *pruned_equiv,
                          uint64_t *flips) {
  DIR *d = opendir(stats_dir);
  if (!d) return false;
  struct dirent *e;
  struct timespec newest = {0};
  bool found = false;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, "afl-", 4) != 0) continue;
    char *path = fz_printf("%s/%s", stats_dir, e->d_name);
    struct stat st;
    char *last = NULL;
    if (stat(path, &st) == 0 &&
        (!found || st.st_mtim.tv_sec > newest.tv_sec ||
         (st.st_mtim.tv_sec == newest.tv_sec && st.st_mtim.tv_nsec > newest.tv_nsec)) &&
        (last = last_line(path))) {
      const char *p = strstr(last, "pruned illegal ");
      const char *q = strstr(last, " flips ");
      double a, b;
      unsigned long long fl = 0;
      if (p && sscanf(p, "pruned illegal %lf%% equivalent %lf%%", &a, &b) == 2) {
        *pruned_illegal = a;
        *pruned_equiv = b;
        *flips = q && sscanf(q, " flips %llu", &fl) == 1 ? fl : 0;
        newest = st.st_mtim;
        found = true;
      }
    }
    free(last);
    free(path);
  }
  closedir(d);
  return found;
}

void fz_read_afl_stats(const char *sync_dir, fz_afl_stats *st) {
  *st = (fz_afl_stats){0};
  each_instance(sync_dir, read_instance, st);
}

void fz_afl_mutator_lines(const char *stats_dir, sf_buf *out) {
  DIR *d = opendir(stats_dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (strncmp(e->d_name, "afl-", 4) != 0 || len < 8 || strcmp(e->d_name + len - 4, ".log") != 0)
      continue;
    char *path = fz_printf("%s/%s", stats_dir, e->d_name);
    char *last = last_line(path);
    /* Each line starts with its Unix time. */
    char *text = last ? strstr(last, "seqfuzz:") : NULL;
    if (text)
      sf_buf_printf(out, "%.*s: %s%s", (int)(len - 8), e->d_name + 4, text,
                    strchr(text, '\n') ? "" : "\n");
    free(last);
    free(path);
  }
  closedir(d);
}

typedef struct collect {
  const char *dest, *inst_name;
  bool queue;
  size_t added;
} collect;

static void collect_file(const char *dir, const char *name, void *ctx) {
  collect *c = ctx;
  char *from = fz_printf("%s/%s", dir, name);
  char *to = fz_printf("%s/%s-%s", c->dest, c->inst_name, name);
  if (access(to, F_OK) != 0) {
    /* A hard link costs nothing; across file systems, a copy. */
    bool ok = link(from, to) == 0;
    if (!ok) {
      FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
      char buf[8192];
      size_t n;
      ok = in && out;
      while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
      if (in) fclose(in);
      if (out && fclose(out) != 0) ok = false;
      if (!ok) unlink(to);
    }
    c->added += ok;
  }
  free(from);
  free(to);
}

static void collect_instance(const char *inst, void *ctx) {
  collect *c = ctx;
  const char *slash = strrchr(inst, '/');
  c->inst_name = slash ? slash + 1 : inst;
  /* The main instance's queue holds what the others found too (it syncs
   * from them): taking theirs would only add copies. */
  if (c->queue && strcmp(c->inst_name, "main") != 0) return;
  char *dir = fz_printf("%s/%s", inst, c->queue ? "queue" : "crashes");
  each_file(dir, "id", collect_file, c);
  free(dir);
}

size_t fz_collect_afl(const char *sync_dir, const char *dest, bool queue) {
  collect c = {.dest = dest, .queue = queue};
  each_instance(sync_dir, collect_instance, &c);
  return c.added;
}

void fz_best_contracts(const char *stats_dir, const char *run) {
  DIR *d = opendir(stats_dir);
  if (!d) return;
  char *best = NULL;
  unsigned long long best_runs = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, "contracts-", 10) != 0) continue;
    char *path = fz_printf("%s/%s", stats_dir, e->d_name);
    FILE *f = path ? fopen(path, "r") : NULL;
    unsigned long long runs = 0;
    /* The first line: "# seqfuzz contracts: inferred from N runs ..." */
    if (f && fscanf(f, "# seqfuzz contracts: inferred from %llu runs", &runs) == 1 &&
        (!best || runs > best_runs)) {
      free(best);
      best = path;
      best_runs = runs;
      path = NULL;
    }
    if (f) fclose(f);
    free(path);
  }
  closedir(d);
  if (!best) return;
  sf_buf text = {0};
  char *out = fz_printf("%s/contracts.txt", run);
  FILE *f = out && cli_read_file(best, &text) == 0 ? fopen(out, "w") : NULL;
  if (f) {
    fwrite(text.data, 1, text.len, f);
    fclose(f);
  }
  sf_buf_free(&text);
  free(out);
  free(best);
}
