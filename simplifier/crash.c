#include "crash.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/sf_buf.h"

/* Frames that belong to the machinery around the target, not to it. */
static bool machinery(const char *fn, const char *where) {
  static const char *const fn_prefixes[] = {"sf_",
                                            "LLVMFuzzer",
                                            "fuzzer::",
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
                                            "abort",
                                            "raise",
                                            "__GI_",
                                            "malloc",
                                            "calloc",
                                            "realloc",
                                            "free",
                                            "operator new",
                                            "operator delete",
                                            NULL};
  for (int i = 0; fn_prefixes[i]; i++)
    if (strncmp(fn, fn_prefixes[i], strlen(fn_prefixes[i])) == 0) return true;
  return strstr(where, "libffi") || strstr(where, "/harness/") || strstr(where, "libc.so") ||
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

/* The kind: "ERROR: AddressSanitizer: heap-use-after-free on ...",
 * "ERROR: LeakSanitizer: detected memory leaks", "runtime error: ..." (UBSan),
 * "ERROR: libFuzzer: timeout / deadly signal". */
static void find_kind(const char *p, const char *end, sf_signature *sig) {
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
      set_kind(sig, m, k);
      return;
    }
    if ((m = strstr(line, "SUMMARY: UndefinedBehaviorSanitizer: "))) {
      m += strlen("SUMMARY: UndefinedBehaviorSanitizer: ");
      set_kind(sig, m, strcspn(m, " "));
      return;
    }
    if ((m = strstr(line, "runtime error: "))) {
      m += strlen("runtime error: ");
      char kind[64] = "ubsan: ";
      strncat(kind, m, strcspn(m, " 0123456789'") < 40 ? strcspn(m, " 0123456789'") : 40);
      set_kind(sig, kind, strlen(kind));
      return;
    }
    if ((m = strstr(line, "ERROR: libFuzzer: "))) {
      m += strlen("ERROR: libFuzzer: ");
      set_kind(sig, m, strcspn(m, " "));
      return;
    }
  }
}

void sf_signature_parse(const char *report, size_t len, sf_signature *sig) {
  memset(sig, 0, sizeof *sig);
  if (!report) return;
  const char *end = report + len;
  find_kind(report, end, sig);
  if (!sig->crashed) return;
  /* The first stack: lines "    #N 0xADDR in FUNC WHERE". */
  bool in_stack = false;
  for (const char *l = report; l < end && sig->nframes < SF_SIG_FRAMES; l = line_end(l, end) + 1) {
    const char *e = line_end(l, end);
    while (l < e && *l == ' ')
      l++;
    if (l >= e || *l != '#') {
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
    snprintf(sig->frames[sig->nframes++], sizeof sig->frames[0], "%s", fn);
  }
}

bool sf_signature_equal(const sf_signature *a, const sf_signature *b) {
  if (a->crashed != b->crashed || strcmp(a->kind, b->kind) || a->nframes != b->nframes)
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
}

int sf_run_isolated(const char *target, const uint8_t *data, size_t size, unsigned timeout,
                    sf_signature *sig, char **report) {
  memset(sig, 0, sizeof *sig);
  if (report) *report = NULL;
  char path[] = "/tmp/seqfuzz-input-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return -1;
  bool ok = size == 0 || write(fd, data, size) == (ssize_t)size;
  close(fd);
  int pipefd[2];
  if (!ok || pipe(pipefd) != 0) {
    unlink(path);
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(pipefd[0]);
    close(pipefd[1]);
    unlink(path);
    return -1;
  }
  if (pid == 0) {
    dup2(pipefd[1], 1);
    dup2(pipefd[1], 2);
    close(pipefd[0]);
    close(pipefd[1]);
    char timeout_arg[32];
    snprintf(timeout_arg, sizeof timeout_arg, "-timeout=%u", timeout ? timeout : 10);
    execl(target, target, timeout_arg, "-runs=1", path, (char *)NULL);
    _exit(127);
  }
  close(pipefd[1]);
  sf_buf out = {0};
  char chunk[8192];
  ssize_t k;
  while ((k = read(pipefd[0], chunk, sizeof chunk)) > 0 || (k < 0 && errno == EINTR))
    if (k > 0 && out.len < (8u << 20)) sf_buf_append(&out, chunk, (size_t)k);
  close(pipefd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  unlink(path);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && out.len == 0) {
    sf_buf_free(&out);
    return -1;
  }
  sf_signature_parse((const char *)out.data, out.len, sig);
  if (!sig->crashed && (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status)))) {
    /* A crash without a report (e.g. a non-sanitizer build). */
    sig->crashed = true;
    snprintf(sig->kind, sizeof sig->kind, "%s",
             WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "nonzero exit");
  }
  if (report)
    *report = sf_buf_cstr(&out);
  else
    sf_buf_free(&out);
  return 0;
}
