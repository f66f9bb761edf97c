/* seqfuzz run: execute one input against a shared library, in a child
 * process so that a crash of the library is reported, not suffered. */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "harness/exec.h"
#include "harness/feedback.h"

/* Exit codes of the child; any other code is the library's (or a sanitizer's). */
enum { CHILD_STOPPED = 64, CHILD_SETUP = 65 };

static void *resolve_dl(void *ctx, const char *name) {
  void *sym = ctx ? dlsym(ctx, name) : NULL;
  return sym ? sym : dlsym(RTLD_DEFAULT, name);
}

/* The second implementation (differential mode): the mapped symbols. */
typedef struct twin_ctx {
  const sf_api *api;
  void *handle;
} twin_ctx;

static void *resolve_twin(void *ctx, const char *name) {
  const twin_ctx *t = ctx;
  int32_t fi = sf_api_find_func(t->api, name);
  char buf[512];
  return resolve_dl(t->handle, fi < 0 ? sf_diff_release(t->api, name, buf, sizeof buf)
                                      : sf_diff_symbol(t->api, (uint32_t)fi, buf, sizeof buf));
}

static void print_outcome(void *ctx, sf_exec *x, const sf_seq *s, const sf_call_outcome *o) {
  (void)ctx;
  (void)x;
  sf_buf line = {0};
  sf_call_outcome_print(s, o, &line);
  fprintf(stdout, "%.*s\n", (int)line.len, (const char *)line.data);
  fflush(stdout);
  sf_buf_free(&line);
}

static int run_child(const sf_api *api, const sf_seq *s, const char *lib) {
  void *handle = NULL;
  if (lib) {
    handle = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
    if (!handle) return cli_error("%s", dlerror()), CHILD_SETUP;
  }
  char err[512];
  sf_exec *x = sf_exec_new(api, resolve_dl, handle, err, sizeof err);
  if (!x) return cli_error("%s%s", err, lib ? "" : " (give the library with --lib)"), CHILD_SETUP;
  twin_ctx tc = {api, handle};
  sf_exec *twin = NULL;
  if (api->diff && !(getenv("SEQFUZZ_DIFF") && strcmp(getenv("SEQFUZZ_DIFF"), "0") == 0)) {
    twin = sf_exec_new(api, resolve_twin, &tc, err, sizeof err);
    if (!twin)
      return cli_error("the second implementation (%s): %s", api->diff->name, err), CHILD_SETUP;
    sf_exec_generic_checks(twin, false);
    sf_exec_set_twin(x, twin);
  }
  /* Run as the fuzzer replays it (observers at the end if s->observed). */
  static sf_feedback fb;
  sf_run_result r;
  sf_feedback_replay(x, s, 0, &fb, print_outcome, &r);
  if (r.status == SF_RUN_OK)
    printf("outcome: ok, %u calls made\n", r.calls_made);
  else
    printf("outcome: stopped at call %u: %s\n", r.stop_call + 1, sf_run_status_name(r.status));
  fflush(stdout);
  sf_exec_free(x);
  sf_exec_free(twin);
  return r.status == SF_RUN_OK ? 0 : CHILD_STOPPED;
}

int cmd_run(int argc, char **argv) {
  const char *pos[3];
  const char *lib = cli_option(argc, argv, "--lib", "-l");
  if (cli_positionals(argc, argv, pos, 3) != 2) return cli_usage_error(argv[0], NULL);
  sf_api *api = cli_load_api(pos[0]);
  if (!api) return 1;
  if (!lib && api->nlibraries) lib = api->libraries[0];
  sf_seq s;
  sf_seq_init(&s, api);
  int rc = 1;
  if (cli_load_seq(api, pos[1], &s) == 0) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) _exit(run_child(api, &s, lib));
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) {
      rc = cli_error("cannot start the run");
    } else if (WIFSIGNALED(status)) {
      printf("outcome: crashed: %s (signal %d)\n", strsignal(WTERMSIG(status)), WTERMSIG(status));
      rc = 2;
    } else if (WEXITSTATUS(status) == 0) {
      rc = 0;
    } else if (WEXITSTATUS(status) == CHILD_STOPPED) {
      rc = 1;
    } else if (WEXITSTATUS(status) == CHILD_SETUP) {
      rc = 3;
    } else {
      printf("outcome: crashed: exit code %d (see the report above)\n", WEXITSTATUS(status));
      rc = 2;
    }
  }
  sf_seq_free(&s);
  sf_api_free(api);
  return rc;
}
