/* seqfuzz check / show / encode / gen: moving between the forms of an input. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mutator/mutate.h"
#include "simplifier/crash.h"

int cmd_check(int argc, char **argv) {
  const char *pos[2];
  if (cli_positionals(argc, argv, pos, 2) != 1) return cli_usage_error(argv[0], NULL);
  sf_api *api = cli_load_api(pos[0]);
  if (!api) return 1;
  uint32_t nobs = 0, ndtor = 0;
  for (uint32_t i = 0; i < api->nfuncs; i++) {
    nobs += (api->funcs[i].flags & SF_F_OBSERVER) != 0;
    ndtor += (api->funcs[i].flags & SF_F_DESTRUCTOR) != 0;
  }
  printf("%s: API '%s' ok: %u functions (%u observers, %u destructors), %u handle types, "
         "%u enums; fingerprint %08x\n",
         pos[0], api->name, api->nfuncs, nobs, ndtor, api->nhandles, api->nenums, api->fingerprint);
  for (uint32_t h = 0; h < api->nhandles; h++)
    if (api->handles[h].destructor < 0)
      printf("note: handle type '%s' has no destructor: seqfuzz never frees it\n",
             api->handles[h].name);
  sf_api_free(api);
  return 0;
}

/* The call a traced run crashed in. The trace (SEQFUZZ_TRACE) has a line
 * "seqfuzz: [N] ..." after each call made and "seqfuzz: outcome: ..." after
 * the run: the call after the last one traced never returned, unless the run
 * had stopped there (at a call that failed or was not made: those lines end
 * as sf_call_outcome_print ends them) or had made them all. Then the crash
 * came after the calls, in the observers, the cleanup or at exit (a leak),
 * and the result is s->ncalls. */
static uint32_t crashed_call(const char *report, uint32_t ncalls) {
  static const char *const stops[] = {
      "  (error by the API's convention)",
      "  -> not made: a handle argument is NULL or a precondition is false"};
  uint32_t traced = 0;
  bool stopped = false;
  for (const char *l = report; l && *l;) {
    const char *nl = strchr(l, '\n');
    size_t len = nl ? (size_t)(nl - l) : strlen(l);
    unsigned n;
    if (strncmp(l, "seqfuzz: outcome: ", 18) == 0) return ncalls;
    if (sscanf(l, "seqfuzz: [%u] ", &n) == 1) {
      traced = n;
      stopped = false;
      for (size_t k = 0; k < sizeof stops / sizeof *stops; k++) {
        size_t sl = strlen(stops[k]);
        stopped |= len >= sl && memcmp(l + len - sl, stops[k], sl) == 0;
      }
    }
    l = nl ? nl + 1 : NULL;
  }
  return stopped || traced >= ncalls ? ncalls : traced;
}

/* The text form, with the call a run by `target` crashed in marked by a
 * comment (the text form reads `#` comments, so the output still parses). */
static int print_marked(const sf_seq *s, const char *target, unsigned timeout, sf_buf *out) {
  sf_buf enc = {0};
  sf_signature sig;
  char *report = NULL;
  if (sf_seq_encode(s, &enc) != 0) return sf_buf_free(&enc), cli_error("out of memory");
  int rc = sf_run_traced(target, enc.data, enc.len, timeout, &sig, &report);
  sf_buf_free(&enc);
  if (rc != 0) return free(report), cli_error("cannot run %s", target);
  char sigtext[512];
  sf_signature_format(&sig, sigtext, sizeof sigtext);
  uint32_t at = sig.crashed ? crashed_call(report ? report : "", s->ncalls) : s->ncalls;
  for (uint32_t ci = 0; ci < s->ncalls && rc == 0; ci++) {
    rc = sf_seq_print_call(s, ci, out);
    if (rc == 0 && ci == at) rc = sf_buf_printf(out, "  # <- crashed here: %s", sigtext);
    if (rc == 0) rc = sf_buf_putc(out, '\n');
  }
  if (rc == 0 && !sig.crashed)
    rc = sf_buf_printf(out, "# no crash: %s ran every call\n", target);
  else if (rc == 0 && at == s->ncalls)
    rc = sf_buf_printf(
        out, "# crashed after the calls (observing or destroying handles, or at exit): %s\n",
        sigtext);
  free(report);
  return rc ? cli_error("out of memory") : 0;
}

int cmd_show(int argc, char **argv) {
  const char *pos[3];
  const char *target = cli_option(argc, argv, "--target", "-t");
  const char *timeout = cli_option(argc, argv, "--timeout", NULL);
  if (cli_positionals(argc, argv, pos, 3) != 2) return cli_usage_error(argv[0], NULL);
  sf_api *api = cli_load_api(pos[0]);
  if (!api) return 1;
  sf_seq s;
  sf_seq_init(&s, api);
  int rc = 1;
  if (cli_load_seq(api, pos[1], &s) == 0) {
    sf_buf out = {0};
    if (target)
      rc = print_marked(&s, target, timeout ? (unsigned)atoi(timeout) : 10, &out);
    else
      rc = sf_seq_print(&s, &out) ? cli_error("out of memory") : 0;
    if (rc == 0) fwrite(out.data, 1, out.len, stdout);
    sf_buf_free(&out);
  }
  sf_seq_free(&s);
  sf_api_free(api);
  return rc;
}

int cmd_encode(int argc, char **argv) {
  const char *pos[3];
  const char *out_path = cli_option(argc, argv, "--output", "-o");
  if (cli_positionals(argc, argv, pos, 3) != 2) return cli_usage_error(argv[0], NULL);
  if (!out_path) return cli_usage_error(argv[0], "-o INPUT is required");
  sf_api *api = cli_load_api(pos[0]);
  if (!api) return 1;
  sf_seq s;
  sf_seq_init(&s, api);
  sf_buf enc = {0};
  int rc = 1;
  if (cli_load_seq(api, pos[1], &s) == 0 && sf_seq_encode(&s, &enc) == 0 &&
      cli_write_file(out_path, enc.data, enc.len) == 0)
    rc = 0;
  sf_buf_free(&enc);
  sf_seq_free(&s);
  sf_api_free(api);
  return rc;
}

int cmd_gen(int argc, char **argv) {
  const char *pos[2];
  const char *dir = cli_option(argc, argv, "--output", "-o");
  const char *count_s = cli_option(argc, argv, "--count", "-n");
  const char *calls_s = cli_option(argc, argv, "--calls", NULL);
  const char *seed_s = cli_option(argc, argv, "--seed", NULL);
  if (cli_positionals(argc, argv, pos, 2) != 1) return cli_usage_error(argv[0], NULL);
  if (!dir) return cli_usage_error(argv[0], "-o DIR is required");
  long count = count_s ? strtol(count_s, NULL, 10) : 16;
  long calls = calls_s ? strtol(calls_s, NULL, 10) : 8;
  unsigned long long seed = seed_s ? strtoull(seed_s, NULL, 10) : 1;
  if (count <= 0 || calls <= 0 || calls > SF_SEQ_MAX_CALLS)
    return cli_error("--count and --calls must be positive (calls at most %d)", SF_SEQ_MAX_CALLS);
  if (cli_make_dirs(dir)) return 1;
  sf_api *api = cli_load_api(pos[0]);
  if (!api) return 1;
  sf_mutator *m = sf_mutator_new(api, NULL);
  sf_seq s;
  sf_seq_init(&s, api);
  sf_buf enc = {0};
  int rc = m ? 0 : cli_error("out of memory");
  for (long i = 0; i < count && rc == 0; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/gen-%06ld", dir, i);
    sf_buf_reset(&enc);
    if (sf_mutator_generate(m, &s, (uint32_t)calls, seed + (uint64_t)i) ||
        sf_seq_encode(&s, &enc) || cli_write_file(path, enc.data, enc.len))
      rc = 1;
  }
  sf_buf_free(&enc);
  sf_seq_free(&s);
  sf_mutator_free(m);
  sf_api_free(api);
  return rc;
}

/* seqfuzz seed: one seed input per example file (a library's test documents,
 * another fuzzer's corpus), the file's bytes put in the template where it
 * says @FILE@. */
int cmd_seed(int argc, char **argv) {
  /* As many files as the shell passes: no more positionals than arguments. */
  const char **pos = calloc((size_t)argc, sizeof *pos);
  if (!pos) return cli_error("out of memory");
  const char *dir = cli_option(argc, argv, "--output", "-o");
  int npos = cli_positionals(argc, argv, pos, argc);
  sf_buf tmpl = {0};
  sf_api *api = NULL;
  int early = 0;
  if (npos < 3)
    early = cli_usage_error(argv[0], NULL);
  else if (!dir)
    early = cli_usage_error(argv[0], "-o DIR is required");
  else if (cli_make_dirs(dir))
    early = 1;
  else if (cli_read_file(pos[1], &tmpl))
    early = cli_error("%s: cannot read", pos[1]);
  else if (!(api = cli_load_api(pos[0])))
    early = 1;
  if (early) {
    sf_buf_free(&tmpl);
    free(pos);
    return early;
  }
  sf_buf text = {0}, file = {0}, enc = {0};
  sf_seq s;
  sf_seq_init(&s, api);
  int rc = 0;
  for (int i = 2; i < npos && rc == 0; i++) {
    sf_buf_reset(&file);
    sf_buf_reset(&text);
    sf_buf_reset(&enc);
    if (cli_read_file(pos[i], &file)) {
      rc = cli_error("%s: cannot read", pos[i]);
      break;
    }
    /* Substitute every @FILE@ of the template. */
    const char *t = (const char *)tmpl.data, *end = t + tmpl.len, *at;
    while (t < end && (at = memmem(t, (size_t)(end - t), "@FILE@", 6))) {
      sf_buf_append(&text, t, (size_t)(at - t));
      sf_seq_print_string(&text, file.data, file.len);
      t = at + 6;
    }
    sf_buf_append(&text, t, (size_t)(end - t));
    char err[512], path[4096];
    const char *base = strrchr(pos[i], '/');
    snprintf(path, sizeof path, "%s/%s", dir, base ? base + 1 : pos[i]);
    if (sf_seq_parse_text(&s, api, (const char *)text.data, text.len, pos[1], err, sizeof err)) {
      rc = cli_error("%s with %s: %s", pos[1], pos[i], err);
    } else if (sf_seq_encode(&s, &enc) || cli_write_file(path, enc.data, enc.len)) {
      rc = cli_error("%s: cannot write", path);
    }
  }
  sf_buf_free(&text);
  sf_buf_free(&file);
  sf_buf_free(&enc);
  sf_buf_free(&tmpl);
  sf_seq_free(&s);
  sf_api_free(api);
  free(pos);
  return rc;
}
