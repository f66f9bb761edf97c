#include "crash.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/sf_buf.h"
#include "../base/sf_io.h"
#include "../harness/options.h"
#include "../harness/run_server.h"

/* Frames that belong to the machinery around the target, not to it. */
static bool machinery(const char *fn, const char *where) {
  static const char *const fn_prefixes[] = {"sf_",
                                            "LLVMFuzzer",
                                            "fuzzer::",
                                            "ExecuteFiles", /* libAFLDriver (AFL++ 4.04c) */
                                            "__afl_",
                                            "__asan",
                                            "__ubsan",
                                            "__sanitizer",
                                            "__interceptor",
                                            "__lsan",
                                            "ffi_",
                                            "call_destructor",
                                            "cleanup",
                                            "make_call",
                                            "__libc_",
                                            "_start",
                                            "main",
                                            "raise",
                                            "__assert",
                                            "__pthread_kill",
                                            "pthread_kill",
                                            "gsignal",
                                            "__GI_",
                                            "operator new",
                                            "operator delete",
                                            NULL};
  /* Whole names: a library's own mallocWithAlarm or free_list is its code. */
  static const char *const fn_names[] = {"abort",         "malloc",   "calloc",  "realloc",
                                         "free",          "strdup",   "strndup", "posix_memalign",
                                         "aligned_alloc", "memalign", NULL};
  for (int i = 0; fn_prefixes[i]; i++)
    if (strncmp(fn, fn_prefixes[i], strlen(fn_prefixes[i])) == 0) return true;
  for (int i = 0; fn_names[i]; i++)
    if (strcmp(fn, fn_names[i]) == 0) return true;
  /* seqfuzz's own sources (a probe runs from the mutator). */
  return strstr(where, "libffi") || strstr(where, "/harness/") || strstr(where, "/mutator/") ||
         strstr(where, "/sequence/") || strstr(where, "/solver/") || strstr(where, "libc.so") ||
         strstr(where, "compiler-rt") || strstr(where, "/sanitizer_common/");
}

static const char *line_end(const char *p, const char *end) {
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  return nl ? nl : end;
}

static void set_kind(sf_signature *sig, const char *s, size_t n) {
  if (n >= sizeof sig->kind) n = sizeof sig->kind - 1;
  memcpy(sig->kind, s, n);
  sig->kind[n] = 0;
  sig->crashed = true;
}

/* "KIND in FUNC [WHICH]: ...": kind, one frame and the site. */
static bool oracle_finding(const char *m, sf_signature *sig) {
  size_t k = strcspn(m, " ");
  if (strncmp(m + k, " in ", 4) != 0) return false;
  const char *fn = m + k + 4;
  size_t fl = strcspn(fn, " ");
  if (strncmp(fn + fl, " [", 2) != 0) return false;
  const char *which = fn + fl + 2;
  const char *close = strstr(which, "]: ");
  if (!close) return false;
  set_kind(sig, m, k);
  snprintf(sig->frames[0], sizeof sig->frames[0], "%.*s", (int)fl, fn);
  sig->nframes = 1;
  snprintf(sig->site, sizeof sig->site, "%.*s", (int)(close - which), which);
  sig->oracle = true;
  return true;
}

/* The kind: "ERROR: AddressSanitizer: heap-use-after-free on ...",
 * "ERROR: LeakSanitizer: detected memory leaks", "runtime error: ..." (UBSan),
 * "ERROR: libFuzzer: timeout / deadly signal" (or "ERROR: seqfuzz: ..." from
 * a run server). */
static void find_kind(const char *p, const char *end, sf_signature *sig, char *ubsan_site) {
  for (const char *l = p; l < end; l = line_end(l, end) + 1) {
    const char *e = line_end(l, end);
    const char *m;
    size_t n = (size_t)(e - l);
    char line[512];
    if (n >= sizeof line) n = sizeof line - 1;
    memcpy(line, l, n);
    line[n] = 0;
    if ((m = strstr(line, "ERROR: LeakSanitizer:"))) {
      set_kind(sig, "leak", 4);
      return;
    }
    if ((m = strstr(line, "ERROR: AddressSanitizer: "))) {
      m += strlen("ERROR: AddressSanitizer: ");
      if (strncmp(m, "attempting ", 11) == 0) m += 11; /* "attempting double-free on" */
      size_t k = strcspn(m, " :");
      /* abort() under ASan (handle_abort=1, as C reproducers set it) is
       * what libFuzzer calls a deadly signal. */
      if (k == 4 && strncmp(m, "ABRT", 4) == 0) m = "deadly", k = 6;
      set_kind(sig, m, k);
      return;
    }
    if ((m = strstr(line, "SUMMARY: UndefinedBehaviorSanitizer: "))) {
      m += strlen("SUMMARY: UndefinedBehaviorSanitizer: ");
      set_kind(sig, m, strcspn(m, " "));
      return;
    }
    if ((m = strstr(line, "runtime error: "))) {
      /* "lib.c:12:5: runtime error: signed integer overflow: 2147483647 + 1 ..."
       * -> "ubsan: signed integer overflow"; the words before the first
       * value, which would make every report its own kind. */
      const char *w = m + strlen("runtime error: ");
      size_t k = strcspn(w, ":0123456789'(");
      while (k && w[k - 1] == ' ')
        k--;
      if (k > 48) k = 48;
      char kind[64];
      snprintf(kind, sizeof kind, "ubsan: %.*s", (int)k, w);
      set_kind(sig, kind, strlen(kind));
      /* UBSan prints no stack by default: its site, file:line without the
       * column, tells two reports apart (kept unless a stack says more). */
      const char *loc = line, *colon = m - line >= 3 ? m - 3 : line; /* before ":col: " */
      while (colon > loc && colon[0] != ':')
        colon--;
      for (const char *q = colon; q > line; q--)
        if (q[-1] == '/' || q[-1] == ' ') {
          loc = q;
          break;
        }
      if (colon > loc) snprintf(ubsan_site, SF_SIG_FRAME_LEN, "%.*s", (int)(colon - loc), loc);
      return;
    }
    /* A finding of seqfuzz's oracles (harness/exec.h): "ERROR: seqfuzz:
     * KIND in FUNC [WHICH]: ..." names its own site; its stack is the
     * harness's. */
    if ((m = strstr(line, "ERROR: seqfuzz: ")) && oracle_finding(m + 16, sig)) return;
    /* libFuzzer's driver, or a seqfuzz run server in its stead. */
    if ((m = strstr(line, "ERROR: libFuzzer: ")) || (m = strstr(line, "ERROR: seqfuzz: "))) {
      m = strchr(m + strlen("ERROR: "), ' ') + 1;
      set_kind(sig, m, strcspn(m, " "));
      return;
    }
  }
}

/* "#12 0x55d0 in ...": a stack frame, not one of libFuzzer's status lines
 * ("#1024 pulse cov: ..."), which a fuzzing log holds many of. */
static bool is_frame(const char *l, const char *e) {
  if (l >= e || *l++ != '#') return false;
  const char *d = l;
  while (l < e && *l >= '0' && *l <= '9')
    l++;
  return l > d && e - l > 3 && memcmp(l, " 0x", 3) == 0;
}

void sf_signature_parse(const char *report, size_t len, sf_signature *sig) {
  memset(sig, 0, sizeof *sig);
  if (!report) return;
  const char *end = report + len;
  find_kind(report, end, sig, sig->site);
  if (!sig->crashed || sig->oracle) return;
  /* The first stack: lines "    #N 0xADDR in FUNC WHERE". A leak's is the
   * allocation stack of its largest leak: only the allocation site counts
   * (the innermost frame in the target), since how the object was made (which
   * constructor, parsed or built) varies with the sequence, not with the bug
   * that lost it. */
  bool in_stack = false, timeout = strcmp(sig->kind, "timeout") == 0;
  unsigned max_frames = strcmp(sig->kind, "leak") == 0 || sig->site[0] ? 1 : SF_SIG_FRAMES;
  unsigned seen = 0; /* frames inside the target, all of them for a timeout */
  for (const char *l = report; l < end && (timeout || seen < max_frames);
       l = line_end(l, end) + 1) {
    const char *e = line_end(l, end);
    while (l < e && *l == ' ')
      l++;
    if (!is_frame(l, e)) {
      if (in_stack) break; /* the first stack ended */
      continue;
    }
    in_stack = true;
    const char *in = NULL;
    for (const char *q = l; q + 4 <= e; q++)
      if (memcmp(q, " in ", 4) == 0) {
        in = q + 4;
        break;
      }
    if (!in) continue;
    char fn[96] = "", where[256] = "";
    size_t fl = strcspn(in, " \n");
    if (in + fl > e) fl = (size_t)(e - in);
    snprintf(fn, sizeof fn, "%.*s", (int)fl, in);
    const char *w = in + fl;
    snprintf(where, sizeof where, "%.*s", (int)(e - w), w);
    if (machinery(fn, where)) continue;
    /* A timeout keeps the last two frames: shift the older one out. */
    if (timeout && seen >= 2) memmove(sig->frames[0], sig->frames[1], sizeof sig->frames[0]);
    unsigned at = timeout && seen >= 2 ? 1 : seen;
    snprintf(sig->frames[at], sizeof sig->frames[0], "%s", fn);
    seen++;
  }
  sig->nframes = timeout && seen > 2 ? 2 : seen;
}

bool sf_signature_equal(const sf_signature *a, const sf_signature *b) {
  if (a->crashed != b->crashed || strcmp(a->kind, b->kind) || a->nframes != b->nframes ||
      strcmp(a->site, b->site))
    return false;
  for (unsigned i = 0; i < a->nframes; i++)
    if (strcmp(a->frames[i], b->frames[i])) return false;
  return true;
}

void sf_signature_format(const sf_signature *sig, char *out, size_t outlen) {
  if (!sig->crashed) {
    snprintf(out, outlen, "no crash");
    return;
  }
  int n = snprintf(out, outlen, "%s", sig->kind);
  for (unsigned i = 0; i < sig->nframes && n > 0 && (size_t)n < outlen; i++)
    n += snprintf(out + n, outlen - (size_t)n, "%s%s", i ? " < " : " in ", sig->frames[i]);
  if (sig->site[0] && n > 0 && (size_t)n < outlen)
    snprintf(out + n, outlen - (size_t)n, sig->oracle ? " [%s]" : " at %s", sig->site);
}

/* ---- running inputs ------------------------------------------------------ */

struct sf_runner {
  char *target;
  unsigned timeout;
  pid_t server;   /* the target as a fork server (run_server.h), or 0 */
  int sock;       /* its requests and answers */
  bool no_server; /* the target is not a seqfuzz fuzzer, or its server died twice */
  bool trace;     /* runs with SEQFUZZ_TRACE (a process per run) */
  unsigned restarts;
  char path[64]; /* the input file, PATH.log its output */
};

/* The signature of a run from its output and wait status. */
static void classify(const sf_buf *out, int status, sf_signature *sig) {
  sf_signature_parse((const char *)out->data, out->len, sig);
  if (!sig->crashed && (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status)))) {
    /* A crash without a report (e.g. a non-sanitizer build). */
    sig->crashed = true;
    snprintf(sig->kind, sizeof sig->kind, "%s",
             WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "nonzero exit");
  }
}

static bool write_file(const char *path, const uint8_t *data, size_t size) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return false;
  bool ok = sf_write_all(fd, data, size) == 0;
  return close(fd) == 0 && ok;
}

/* One run in a fresh process: `target -timeout=T -runs=1 FILE`. */
static int run_exec(sf_runner *r, sf_signature *sig, sf_buf *out) {
  int pipefd[2];
  if (pipe(pipefd) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) {
    close(pipefd[0]);
    close(pipefd[1]);
    return -1;
  }
  if (pid == 0) {
    dup2(pipefd[1], 1);
    dup2(pipefd[1], 2);
    close(pipefd[0]);
    close(pipefd[1]);
    if (r->trace) setenv(SF_TRACE_ENV, "1", 1);
    char timeout_arg[32];
    snprintf(timeout_arg, sizeof timeout_arg, "-timeout=%u", r->timeout);
    execl(r->target, r->target, timeout_arg, "-runs=1", r->path, (char *)NULL);
    _exit(127);
  }
  close(pipefd[1]);
  char chunk[8192];
  ssize_t k;
  while ((k = read(pipefd[0], chunk, sizeof chunk)) > 0 || (k < 0 && errno == EINTR))
    if (k > 0 && out->len < (8u << 20)) sf_buf_append(out, chunk, (size_t)k);
  close(pipefd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && out->len == 0) return -1;
  classify(out, status, sig);
  return 0;
}

static void stop_server(sf_runner *r) {
  if (r->sock >= 0) close(r->sock); /* the server leaves */
  r->sock = -1;
  if (r->server > 0) {
    kill(r->server, SIGKILL);
    while (waitpid(r->server, NULL, 0) < 0 && errno == EINTR) {
    }
  }
  r->server = 0;
}

/* A line from the server within `seconds`, or false (answers are short:
 * reading a byte at a time keeps nothing buffered between answers). */
static bool read_answer(sf_runner *r, char *line, size_t n, unsigned seconds) {
  size_t len = 0;
  while (len + 1 < n) {
    struct pollfd pfd = {.fd = r->sock, .events = POLLIN};
    int rc = poll(&pfd, 1, (int)seconds * 1000);
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) return false;
    ssize_t k = read(r->sock, line + len, 1);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    if (line[len++] == '\n') break;
  }
  line[len] = 0;
  return len > 0 && line[len - 1] == '\n';
}

/* The whole file at path into out. */
static int read_file(const char *path, sf_buf *out) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  char chunk[8192];
  ssize_t k;
  while ((k = read(fd, chunk, sizeof chunk)) > 0 || (k < 0 && errno == EINTR))
    if (k > 0 && out->len < (8u << 20)) sf_buf_append(out, chunk, (size_t)k);
  close(fd);
  return k == 0 ? 0 : -1;
}

/* Start the target as a fork server; false if it does not answer as one. */
static bool start_server(sf_runner *r) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return false;
  pid_t pid = fork();
  if (pid < 0) {
    close(sv[0]);
    close(sv[1]);
    return false;
  }
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(sv[1], 0);
    dup2(sv[1], 1);
    if (devnull >= 0) dup2(devnull, 2);
    setenv(SF_RUN_SERVE_ENV, "1", 1);
    /* A fuzzer without the server runs the empty input once and exits. */
    execl(r->target, r->target, "-runs=0", (char *)NULL);
    _exit(127);
  }
  close(sv[1]);
  r->server = pid;
  r->sock = sv[0];
  char hello[64];
  if (read_answer(r, hello, sizeof hello, 30) && strcmp(hello, SF_RUN_SERVER_HELLO) == 0)
    return true;
  stop_server(r);
  return false;
}

/* One run through the server: -1 if the server is gone (the caller retries). */
static int run_served(sf_runner *r, sf_signature *sig, sf_buf *out) {
  char req[128], answer[64];
  int n = snprintf(req, sizeof req, "%u %s\n", r->timeout, r->path);
  if (send(r->sock, req, (size_t)n, MSG_NOSIGNAL) != n ||
      !read_answer(r, answer, sizeof answer, 2 * r->timeout + 30)) {
    stop_server(r);
    return -1;
  }
  int status = atoi(answer);
  char log[sizeof r->path + 8];
  snprintf(log, sizeof log, "%s.log", r->path);
  sf_buf_reset(out);
  int rc = read_file(log, out);
  unlink(log);
  if (rc != 0 || status == -1 || (WIFEXITED(status) && WEXITSTATUS(status) == 126)) {
    stop_server(r);
    return -1;
  }
  classify(out, status, sig);
  return 0;
}

sf_runner *sf_runner_new(const char *target, unsigned timeout) {
  sf_runner *r = calloc(1, sizeof *r);
  if (!r || !(r->target = strdup(target))) {
    free(r);
    return NULL;
  }
  r->timeout = timeout ? timeout : 10;
  r->sock = -1;
  snprintf(r->path, sizeof r->path, "/tmp/seqfuzz-input-XXXXXX");
  int fd = mkstemp(r->path);
  if (fd < 0) {
    free(r->target);
    free(r);
    return NULL;
  }
  close(fd);
  return r;
}

const char *sf_runner_mode(const sf_runner *r) {
  return r->no_server ? "a process per run" : "fork server";
}

void sf_runner_free(sf_runner *r) {
  if (!r) return;
  stop_server(r);
  unlink(r->path);
  free(r->target);
  free(r);
}

int sf_runner_run(sf_runner *r, const uint8_t *data, size_t size, sf_signature *sig,
                  char **report) {
  memset(sig, 0, sizeof *sig);
  if (report) *report = NULL;
  if (!write_file(r->path, data, size)) return -1;
  sf_buf out = {0};
  int rc = -1;
  /* The server, restarted if it died (twice at most), else a process per run. */
  while (!r->no_server && rc != 0) {
    if (!r->server && (r->restarts++ >= 3 || !start_server(r)))
      r->no_server = true;
    else if ((rc = run_served(r, sig, &out)) != 0)
      memset(sig, 0, sizeof *sig);
  }
  if (rc != 0) {
    sf_buf_reset(&out);
    rc = run_exec(r, sig, &out);
  }
  if (rc == 0 && report)
    *report = sf_buf_cstr(&out);
  else
    sf_buf_free(&out);
  return rc;
}

static int run_once(const char *target, const uint8_t *data, size_t size, unsigned timeout,
                    bool trace, sf_signature *sig, char **report) {
  memset(sig, 0, sizeof *sig);
  if (report) *report = NULL;
  sf_runner *r = sf_runner_new(target, timeout);
  if (!r) return -1;
  r->no_server = true; /* one run: a server would not pay for itself */
  r->trace = trace;
  int rc = sf_runner_run(r, data, size, sig, report);
  sf_runner_free(r);
  return rc;
}

int sf_run_isolated(const char *target, const uint8_t *data, size_t size, unsigned timeout,
                    sf_signature *sig, char **report) {
  return run_once(target, data, size, timeout, false, sig, report);
}

int sf_run_traced(const char *target, const uint8_t *data, size_t size, unsigned timeout,
                  sf_signature *sig, char **report) {
  return run_once(target, data, size, timeout, true, sig, report);
}
