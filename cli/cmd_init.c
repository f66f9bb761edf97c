/* seqfuzz init: draft a grammar from C headers (init_draft.h) and, with
 * --probe, call each drafted function once on trivial arguments through
 * seqfuzz's executor, each call in a child process of its own, to comment
 * the functions that crash on them (a precondition the grammar must state). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "harness/exec.h"
#include "init_draft.h"
#include "simplifier/crash.h"

/* ---- the probe ---------------------------------------------------------------
 * Per function: one run with trivial arguments (0, "", empty buffers, the
 * first enum constant, handles from a constructor called the same way), then
 * one run per string or handle parameter with NULL there. A run is the
 * producers' calls and the function's, executed by sf_exec in a forked child
 * that exits as soon as the function returns (no cleanup: a destructor's
 * crash is not the function's). */

enum { PROBE_SECONDS = 2 };
/* Exit codes of a probe child; anything else is the library's (or a sanitizer's). */
enum { CHILD_RETURNED = 70, CHILD_NOT_REACHED = 71 };

typedef enum probe_result { PR_OK, PR_NOT_REACHED, PR_CRASH, PR_HANG, PR_EXIT } probe_result;

typedef struct probe {
  const sf_draft *d;
  sf_api *api;
  uint32_t *draft_of; /* api function -> draft function */
  void *lib;
  sf_exec *x;
  bool *bad_producer; /* per api function: crashed or failed when called trivially */
  char workdir[64], report[96];
  volatile struct probe_shm *shm;
} probe;

/* Shared with the children: how far a run got. */
struct probe_shm {
  uint32_t done;      /* calls completed */
  uint32_t stopped;   /* 1 + the call that failed by the error convention (or was not made), or 0 */
  uint64_t null_mask; /* the target's handle arguments that a producer made NULL (bit per param) */
};

static uint32_t probe_target; /* the call the child stops after */
static volatile struct probe_shm *probe_shm;

static void *resolve_probe(void *ctx, const char *name) {
  probe *p = ctx;
  int32_t fi = sf_api_find_func(p->api, name);
  return dlsym(p->lib, fi >= 0 ? sf_draft_func_symbol(p->d, p->draft_of[fi]) : name);
}

static void probe_after_call(void *ctx, sf_exec *x, const sf_seq *s, const sf_call_outcome *o) {
  (void)ctx;
  probe_shm->done = o->call + 1;
  if (o->failed || !o->made) probe_shm->stopped = o->call + 1;
  /* A producer without an error convention may have made a NULL handle
   * (sqlite3_prepare of "" makes no statement): the target then gets NULL. */
  if (o->call + 1 == probe_target) {
    const sf_func *f = sf_seq_func(s, probe_target);
    const sf_arg *args = sf_seq_args(s, probe_target);
    for (uint32_t i = 0; i < f->nparams && i < 64; i++)
      if (f->params[i].kind == SF_HANDLE && !(f->params[i].flags & SF_P_OUT) &&
          args[i].bits != SF_NULL_REF && !sf_exec_value(x, (uint32_t)args[i].bits))
        probe_shm->null_mask |= 1ull << i;
  }
  if (o->call == probe_target) _exit(o->made ? CHILD_RETURNED : CHILD_NOT_REACHED);
}

/* Input handle parameters of f. */
static unsigned handle_inputs(const sf_func *f) {
  unsigned n = 0;
  for (uint32_t i = 0; i < f->nparams; i++)
    n += f->params[i].kind == SF_HANDLE && !(f->params[i].flags & SF_P_OUT);
  return n;
}

/* Append calls that make a value of handle type h (with trivial arguments;
 * the producer's own handles made the same way, two levels deep): its value
 * id, or SF_NULL_REF when nothing makes one. */
static uint64_t make_handle(probe *p, sf_seq *s, uint32_t h, int depth) {
  const sf_api *api = p->api;
  int32_t best = -1, best_param = -1;
  unsigned best_inputs = ~0u;
  for (uint32_t fi = 0; fi < api->nfuncs; fi++) {
    const sf_func *f = &api->funcs[fi];
    if (p->bad_producer[fi] || (depth >= 2 && handle_inputs(f))) continue;
    int32_t param = -2; /* -1: the result */
    if (f->ret.kind == SF_HANDLE && f->ret.type_index == h && f->owner_param < 0) param = -1;
    for (uint32_t i = 0; i < f->nparams && param == -2; i++)
      if (f->params[i].kind == SF_HANDLE && (f->params[i].flags & SF_P_OUT) &&
          f->params[i].type_index == h)
        param = (int32_t)i;
    if (param == -2 || handle_inputs(f) >= best_inputs) continue;
    best = (int32_t)fi, best_param = param, best_inputs = handle_inputs(f);
  }
  if (best < 0) return SF_NULL_REF;
  const sf_func *f = &api->funcs[best];
  uint64_t *in = calloc(f->nparams + 1, sizeof *in);
  if (!in) return SF_NULL_REF;
  for (uint32_t i = 0; i < f->nparams; i++)
    in[i] = f->params[i].kind == SF_HANDLE && !(f->params[i].flags & SF_P_OUT)
                ? make_handle(p, s, f->params[i].type_index, depth + 1)
                : SF_NULL_REF;
  sf_arg *args = sf_seq_add_call(s, (uint32_t)best);
  uint64_t vid = SF_NULL_REF;
  if (args) {
    for (uint32_t i = 0; i < f->nparams; i++)
      if (f->params[i].kind == SF_HANDLE && !(f->params[i].flags & SF_P_OUT)) args[i].bits = in[i];
    uint32_t ci = s->ncalls - 1;
    for (uint32_t v = s->calls[ci].val0; v < s->nvals; v++)
      if (s->vals[v].call == ci && s->vals[v].param == best_param) vid = v;
  }
  free(in);
  return vid;
}

/* The run: producers, then function fi with trivial arguments, NULL where
 * null_param says (-1: nowhere; -2: every handle). The target is the last
 * call; false when the sequence cannot be made. */
static bool build(probe *p, sf_seq *s, uint32_t fi, int null_param) {
  sf_seq_clear(s);
  const sf_func *f = &p->api->funcs[fi];
  uint64_t h[64];
  for (uint32_t i = 0; i < f->nparams && i < 64; i++) {
    bool in = f->params[i].kind == SF_HANDLE && !(f->params[i].flags & SF_P_OUT);
    bool made = in && null_param != -2 && null_param != (int)i;
    h[i] = made ? make_handle(p, s, f->params[i].type_index, 0) : SF_NULL_REF;
  }
  sf_arg *args = sf_seq_add_call(s, fi);
  if (!args) return false;
  for (uint32_t i = 0; i < f->nparams && i < 64; i++) {
    const sf_param *q = &f->params[i];
    if (q->kind == SF_HANDLE && !(q->flags & SF_P_OUT))
      args[i].bits = (int)i == null_param ? SF_NULL_REF : h[i];
    else if (q->kind == SF_STRING && (int)i == null_param)
      args[i].bits = 1; /* NULL (the probe's grammar makes every string nullable) */
  }
  uint32_t n = s->ncalls;
  if (sf_seq_repair(s) != 0 || s->ncalls != n) return false;
  probe_target = s->ncalls - 1;
  return true;
}

static probe_result run_one(probe *p, const sf_seq *s, char *kind, size_t kindlen) {
  p->shm->done = p->shm->stopped = 0;
  p->shm->null_mask = 0;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return PR_NOT_REACHED;
  if (pid == 0) {
    int fd = open(p->report, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int nul = open("/dev/null", O_RDONLY);
    if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
    if (nul >= 0) dup2(nul, 0);
    if (chdir(p->workdir) != 0) _exit(CHILD_NOT_REACHED);
    alarm(PROBE_SECONDS);
    sf_exec_hooks hooks = {NULL, probe_after_call, NULL, NULL};
    sf_run_result r;
    sf_exec_run(p->x, s, &hooks, &r);
    _exit(CHILD_NOT_REACHED);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  bool started = p->shm->done == probe_target && !p->shm->stopped; /* every producer returned */
  probe_result r = PR_OK;
  if (WIFSIGNALED(st)) {
    const char *abbrev = sigabbrev_np(WTERMSIG(st));
    snprintf(kind, kindlen, "SIG%s", abbrev ? abbrev : "?");
    r = WTERMSIG(st) == SIGALRM ? PR_HANG : PR_CRASH;
  } else if (WEXITSTATUS(st) == CHILD_RETURNED) {
    return PR_OK;
  } else if (WEXITSTATUS(st) == CHILD_NOT_REACHED) {
    return PR_NOT_REACHED;
  } else {
    sf_buf rep = {0};
    FILE *fp = fopen(p->report, "rb");
    char chunk[4096];
    size_t got;
    while (fp && (got = fread(chunk, 1, sizeof chunk, fp)) > 0 && rep.len < (1u << 20))
      sf_buf_append(&rep, chunk, got);
    if (fp) fclose(fp);
    sf_signature sig;
    sf_signature_parse((const char *)rep.data, rep.len, &sig);
    sf_buf_free(&rep);
    if (sig.crashed) {
      snprintf(kind, kindlen, "%s", sig.kind);
      r = PR_CRASH;
    } else {
      snprintf(kind, kindlen, "exit status %d", WEXITSTATUS(st));
      r = PR_EXIT;
    }
  }
  return started ? r : PR_NOT_REACHED;
}

/* The calls of s on one line, for a comment. */
static char *calls_text(const sf_seq *s) {
  sf_buf b = {0};
  if (sf_seq_print(s, &b) != 0) return NULL;
  for (size_t i = 0; i < b.len; i++)
    if (b.data[i] == '\n') b.data[i] = ' ';
  while (b.len && (b.data[b.len - 1] == ' ' || b.data[b.len - 1] == ';'))
    b.len--;
  return sf_buf_cstr(&b);
}

static void note(probe *p, sf_draft *d, uint32_t fi, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void note(probe *p, sf_draft *d, uint32_t fi, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  sf_draft_func_note(d, p->draft_of[fi], line);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

/* Counts for the summary line. */
typedef struct probe_stats {
  unsigned probed, crashed, null_crashed, hung, unreached, missing;
} probe_stats;

static void probe_function(probe *p, sf_draft *d, uint32_t fi, sf_seq *s, probe_stats *ps) {
  const sf_func *f = &p->api->funcs[fi];
  char kind[96] = "";
  probe_result r = PR_NOT_REACHED;
  bool nulls = false;
  /* Trivial arguments; a producer that fails or crashes is not used again,
   * and after three such, every handle is passed as NULL. */
  for (int attempt = 0; attempt < 4; attempt++) {
    nulls = attempt == 3;
    if (!build(p, s, fi, nulls ? -2 : -1)) break;
    r = run_one(p, s, kind, sizeof kind);
    if (r != PR_NOT_REACHED || nulls) break;
    uint32_t culprit = p->shm->stopped ? p->shm->stopped - 1 : p->shm->done;
    if (culprit >= probe_target) break;
    p->bad_producer[s->calls[culprit].func] = true;
  }
  ps->probed++;
  if (r == PR_CRASH || r == PR_EXIT || r == PR_HANG) {
    p->bad_producer[fi] = true;
    char *calls = calls_text(s);
    const char *what = r == PR_HANG ? "no answer within 2 s" : r == PR_EXIT ? "exited" : "crashed";
    if (r == PR_HANG) kind[0] = 0;
    /* Handles passed as NULL: none could be made, or a producer made NULL. */
    char nullnames[256] = "";
    for (uint32_t i = 0; i < f->nparams && i < 64; i++) {
      bool in = f->params[i].kind == SF_HANDLE && !(f->params[i].flags & SF_P_OUT);
      bool null = in && (nulls || sf_seq_args(s, probe_target)[i].bits == SF_NULL_REF ||
                         (p->shm->null_mask >> i & 1));
      if (null)
        snprintf(nullnames + strlen(nullnames), sizeof nullnames - strlen(nullnames), "%s%s",
                 *nullnames ? ", " : "", f->params[i].name);
    }
    if (*nullnames) {
      note(p, d, fi,
           "probe: %s%s%s%s with NULL %s (no handle made on trivial arguments): %s; "
           "nonnull? or a precondition",
           what, *kind ? " (" : "", kind, *kind ? ")" : "", nullnames, calls ? calls : "");
    } else {
      note(p, d, fi, "probe: %s%s%s%s on trivial arguments: %s; a precondition?", what,
           *kind ? " (" : "", kind, *kind ? ")" : "", calls ? calls : "");
    }
    free(calls);
    ps->crashed += r != PR_HANG;
    ps->hung += r == PR_HANG;
    return;
  }
  if (r == PR_NOT_REACHED) {
    ps->unreached++;
    return;
  }
  /* NULL in each string or handle parameter, one at a time. */
  for (uint32_t i = 0; i < f->nparams; i++) {
    const sf_param *q = &f->params[i];
    bool pointer = (q->kind == SF_HANDLE && !(q->flags & SF_P_OUT)) ||
                   (q->kind == SF_STRING && !(q->flags & (SF_P_PRINTF | SF_P_CONST | SF_P_OUT)));
    if (!pointer || !build(p, s, fi, (int)i)) continue;
    probe_result rn = run_one(p, s, kind, sizeof kind);
    if (rn == PR_CRASH || rn == PR_EXIT) {
      note(p, d, fi, "probe: %s (%s) with NULL %s; nonnull? or a precondition",
           rn == PR_CRASH ? "crashed" : "exited", kind, q->name);
      ps->null_crashed++;
    } else if (rn == PR_HANG) {
      note(p, d, fi, "probe: no answer within 2 s with NULL %s", q->name);
      ps->hung++;
    }
  }
}

static int run_probe(sf_draft *d, const char *lib) {
  probe p = {0};
  p.d = d;
  p.lib = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
  if (!p.lib) return cli_error("--probe: %s", dlerror());
  uint32_t nd = sf_draft_nfuncs(d);
  bool *keep = calloc(nd + 1, sizeof *keep);
  probe_stats ps = {0};
  for (uint32_t i = 0; keep && i < nd; i++) {
    if (!sf_draft_func_expressible(d, i)) continue;
    keep[i] = dlsym(p.lib, sf_draft_func_symbol(d, i)) != NULL;
    if (!keep[i]) {
      char line[256];
      snprintf(line, sizeof line, "probe: no symbol %s in %s (a macro? not exported?)",
               sf_draft_func_symbol(d, i), lib);
      sf_draft_func_note(d, i, line);
      ps.missing++;
    }
  }
  sf_buf text = {0};
  char err[8192];
  int rc = 1;
  if (!keep || sf_draft_render(d, true, keep, &text) != 0) {
    rc = cli_error("out of memory");
    goto out;
  }
  p.api = sf_api_parse((const char *)text.data, text.len, "probe.api", err, sizeof err);
  if (!p.api) {
    rc = cli_error("--probe: the probe's grammar does not parse:\n%s", err);
    goto out;
  }
  p.draft_of = calloc(p.api->nfuncs + 1, sizeof *p.draft_of);
  p.bad_producer = calloc(p.api->nfuncs + 1, sizeof *p.bad_producer);
  if (!p.draft_of || !p.bad_producer) {
    rc = cli_error("out of memory");
    goto out;
  }
  for (uint32_t fi = 0; fi < p.api->nfuncs; fi++)
    for (uint32_t i = 0; i < nd; i++)
      if (strcmp(sf_draft_func_name(d, i), p.api->funcs[fi].name) == 0) p.draft_of[fi] = i;
  p.x = sf_exec_new(p.api, resolve_probe, &p, err, sizeof err);
  if (!p.x) {
    rc = cli_error("--probe: %s", err);
    goto out;
  }
  void *shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shm == MAP_FAILED) {
    rc = cli_error("--probe: mmap: %s", strerror(errno));
    goto out;
  }
  p.shm = probe_shm = shm;
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(p.workdir, sizeof p.workdir, "%.40s/seqfuzz-init-XXXXXX", tmp);
  if (!mkdtemp(p.workdir)) {
    munmap(shm, 4096);
    rc = cli_error("--probe: %s: %s", p.workdir, strerror(errno));
    goto out;
  }
  snprintf(p.report, sizeof p.report, "%s/report", p.workdir);
  sf_seq s;
  sf_seq_init(&s, p.api);
  /* Functions that need no handle first: constructors are known to work (or
   * not) before anything needs what they make. */
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t fi = 0; fi < p.api->nfuncs; fi++)
      if ((handle_inputs(&p.api->funcs[fi]) > 0) == (pass == 1)) probe_function(&p, d, fi, &s, &ps);
  sf_seq_free(&s);
  nftw(p.workdir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
  munmap(shm, 4096);
  fprintf(stderr,
          "seqfuzz init: probed %u functions in %s: %u crashed on trivial arguments, %u with a "
          "NULL argument, %u hung, %u not reached (a constructor failed), %u not in the library\n",
          ps.probed, lib, ps.crashed, ps.null_crashed, ps.hung, ps.unreached, ps.missing);
  rc = 0;
out:
  sf_exec_free(p.x);
  sf_api_free(p.api);
  free(p.draft_of);
  free(p.bad_producer);
  free(keep);
  sf_buf_free(&text);
  dlclose(p.lib);
  return rc;
}

/* ---- the command ------------------------------------------------------------- */

int cmd_init(int argc, char **argv) {
  const char **headers = calloc((size_t)argc + 1, sizeof *headers);
  const char **includes = calloc((size_t)argc + 1, sizeof *includes);
  const char **defines = calloc((size_t)argc + 1, sizeof *defines);
  if (!headers || !includes || !defines) {
    free(headers), free(includes), free(defines);
    return cli_error("out of memory");
  }
  uint32_t nh = 0, ni = 0, nd = 0;
  const char *lib = NULL, *out = NULL;
  bool probe = false;
  /* seqfuzz.c has rejected unknown options and checked that each value is there. */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--probe") == 0)
      probe = true;
    else if (strcmp(a, "--lib") == 0 || strcmp(a, "-l") == 0)
      lib = argv[++i];
    else if (strcmp(a, "--output") == 0 || strcmp(a, "-o") == 0)
      out = argv[++i];
    else if (strcmp(a, "--include") == 0 || strcmp(a, "-I") == 0)
      includes[ni++] = argv[++i];
    else if (strcmp(a, "--define") == 0 || strcmp(a, "-D") == 0)
      defines[nd++] = argv[++i];
    else
      headers[nh++] = a;
  }
  int rc;
  sf_draft *d = NULL;
  sf_buf text = {0};
  if (!nh) {
    rc = cli_usage_error(argv[0], "no header given");
    goto out;
  }
  if (probe && !lib) {
    rc = cli_usage_error(argv[0], "--probe needs --lib LIB (a shared library)");
    goto out;
  }
  char err[8192];
  sf_draft_opts o = {headers, nh, includes, ni, defines, nd, lib, out};
  d = sf_draft_new(&o, err, sizeof err);
  if (!d) {
    rc = cli_error("%s", err);
    goto out;
  }
  if (probe && (rc = run_probe(d, lib)) != 0) goto out;
  if (sf_draft_render(d, false, NULL, &text) != 0) {
    rc = cli_error("out of memory");
    goto out;
  }
  /* The draft must pass `seqfuzz check`: a draft that does not is a bug here. */
  sf_api *api =
      sf_api_parse((const char *)text.data, text.len, out ? out : "draft", err, sizeof err);
  if (!api) {
    fprintf(stderr, "%s\n", err);
    rc = cli_error("the draft does not pass check (a bug of seqfuzz init); written anyway");
  } else {
    rc = 0;
  }
  sf_api_free(api);
  if (out) {
    if (cli_write_file(out, text.data, text.len)) rc = 1;
  } else if (fwrite(text.data, 1, text.len, stdout) != text.len || fflush(stdout) != 0) {
    rc = cli_error("standard output: write error");
  }
  char summary[512];
  sf_draft_summary(d, summary, sizeof summary);
  fprintf(stderr, "seqfuzz init: %s: %s\n", out ? out : "(standard output)", summary);
out:
  sf_buf_free(&text);
  sf_draft_free(d);
  free(headers), free(includes), free(defines);
  return rc;
}
