/* The fork server behind sf_runner (contract in run_server.h). */
#include "run_server.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The sanitizer runtime's interface (weak: absent without sanitizers). */
void __sanitizer_symbolize_pc(void *pc, const char *fmt, char *out, size_t size)
    __attribute__((weak));
void __sanitizer_print_stack_trace(void) __attribute__((weak));
int __sanitizer_install_malloc_and_free_hooks(void (*m)(const volatile void *, size_t),
                                              void (*f)(const volatile void *))
    __attribute__((weak));
int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

#define MALLOC_LIMIT ((size_t)2048 << 20) /* libFuzzer's default -malloc_limit_mb */

static unsigned child_timeout;

/* Reports of the child, with the stack where it stopped (libFuzzer's words,
 * so that signatures are the same as from a run under libFuzzer's driver). */
static void sf_report_and_exit(const char *what, int code) {
  dprintf(2, "==%d== ERROR: seqfuzz: %s\n", (int)getpid(), what);
  if (__sanitizer_print_stack_trace) __sanitizer_print_stack_trace();
  _exit(code);
}

static void sf_on_timeout(int sig) {
  (void)sig;
  char what[64];
  snprintf(what, sizeof what, "timeout after %u seconds", child_timeout);
  sf_report_and_exit(what, 70);
}

static void sf_on_deadly_signal(int sig) {
  (void)sig;
  sf_report_and_exit("deadly signal", 1);
}

static void sf_on_malloc(const volatile void *p, size_t size) {
  (void)p;
  if (size <= MALLOC_LIMIT) return;
  char what[64];
  snprintf(what, sizeof what, "out-of-memory (malloc(%zu))", size);
  sf_report_and_exit(what, 71);
}

static void sf_on_free(const volatile void *p) {
  (void)p;
}

/* The input in a heap block of its exact size, as libFuzzer passes it (so
 * that reading past its end is caught), run with test_one. */
static __attribute__((noinline)) void run_input(int fd, int (*test_one)(const uint8_t *, size_t)) {
  struct stat st;
  if (fstat(fd, &st) != 0) _exit(126);
  size_t size = (size_t)st.st_size;
  uint8_t *data = malloc(size ? size : 1);
  if (!data || read(fd, data, size) != (ssize_t)size) _exit(126);
  close(fd);
  test_one(data, size);
  free(data);
}

/* Clear the stack the run used: a stale pointer there would hide a leak. */
static __attribute__((noinline)) void wipe_stack(void) {
  char junk[1 << 16];
  memset(junk, 0, sizeof junk);
  __asm__ volatile("" : : "r"(junk) : "memory"); /* the stores must happen */
}

/* In the child: run the file at path, output to path.log; never returns. */
static void run_child(const char *path, unsigned timeout,
                      int (*test_one)(const uint8_t *, size_t)) {
  char log[4200];
  snprintf(log, sizeof log, "%s.log", path);
  int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) _exit(126);
  dup2(fd, 1);
  dup2(fd, 2);
  close(fd);
  fd = open(path, O_RDONLY);
  if (fd < 0) _exit(126);
  struct sigaction sa = {0};
  sa.sa_handler = sf_on_timeout;
  sigaction(SIGALRM, &sa, NULL);
  sa.sa_handler = sf_on_deadly_signal;
  sigaction(SIGABRT, &sa, NULL);
  sigaction(SIGILL, &sa, NULL);
  signal(SIGPIPE, SIG_DFL);
  if (__sanitizer_install_malloc_and_free_hooks)
    __sanitizer_install_malloc_and_free_hooks(sf_on_malloc, sf_on_free);
  child_timeout = timeout;
  alarm(timeout);
  run_input(fd, test_one);
  alarm(0);
  wipe_stack();
  /* The leak check libFuzzer's driver gets from LeakSanitizer at exit. */
  if (__lsan_do_recoverable_leak_check && __lsan_do_recoverable_leak_check()) _exit(23);
  _exit(0);
}

static void on_alarm(int sig) {
  (void)sig; /* only interrupts waitpid */
}

/* The child's wait status, or -1 if it had to be killed: it outlived its
 * own timeout (stuck where the alarm cannot reach it). */
static int wait_child(pid_t pid, unsigned seconds) {
  int status = 0;
  bool killed = false;
  alarm(seconds);
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
    kill(pid, SIGKILL);
    killed = true;
  }
  alarm(0);
  return killed ? -1 : status;
}

static __attribute__((noinline, noreturn)) void serve(int (*test_one)(const uint8_t *, size_t)) {
  int reply = dup(1);
  int devnull = open("/dev/null", O_RDWR);
  if (reply < 0 || devnull < 0) _exit(1);
  dup2(devnull, 1); /* nothing else may write into the protocol */
  struct sigaction sa = {0};
  sa.sa_handler = on_alarm; /* no SA_RESTART: the alarm interrupts waitpid */
  sigaction(SIGALRM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  /* Start the sanitizer's symbolizer now: every child inherits it, warm,
   * instead of starting its own to print a crash's stack. */
  if (__sanitizer_symbolize_pc) {
    char where[256];
    __sanitizer_symbolize_pc(__builtin_return_address(0), "%f", where, sizeof where);
  }
  if (write(reply, SF_RUN_SERVER_HELLO, strlen(SF_RUN_SERVER_HELLO)) < 0) _exit(0);
  FILE *requests = fdopen(0, "r");
  static char line[4200], path[4096];
  while (requests && fgets(line, sizeof line, requests)) {
    unsigned timeout;
    if (sscanf(line, "%u %4095[^\n]", &timeout, path) != 2) break;
    if (!timeout) timeout = 10;
    pid_t pid = fork();
    if (pid == 0) {
      fclose(requests);
      close(reply);
      dup2(devnull, 0);
      close(devnull);
      run_child(path, timeout, test_one);
    }
    /* A child killed in the middle of a symbolizer query leaves it out of
     * step: after a kill the server leaves, and its client starts another. */
    int status = pid < 0 ? -1 : wait_child(pid, 2 * timeout + 10);
    char answer[32];
    int n = snprintf(answer, sizeof answer, "%d\n", status);
    if (write(reply, answer, (size_t)n) != n || status == -1) break;
  }
  _exit(0);
}

void sf_run_server(int (*test_one)(const uint8_t *data, size_t size)) {
  /* Start-up left pointers in the stack the server's frames are about to
   * take: in a child they would make a leaked block look reachable. */
  wipe_stack();
  serve(test_one);
}
