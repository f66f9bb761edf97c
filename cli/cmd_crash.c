/* seqfuzz min / repro / signature: from a crashing input to a reproducer. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "simplifier/crash.h"
#include "simplifier/generalize.h"
#include "simplifier/minimize.h"
#include "simplifier/repro.h"
#include "simplifier/triage.h"

static void print_progress(void *ctx, const char *line) {
  (void)ctx;
  fprintf(stderr, "seqfuzz min: %s\n", line);
}

/* Every readable input of a directory, as sequences (the replacement set). */
static uint32_t load_corpus(const sf_api *api, const char *dir, sf_seq **out) {
  DIR *d = opendir(dir);
  *out = NULL;
  if (!d) return 0;
  uint32_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 4096) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    sf_buf b = {0};
    FILE *fp = fopen(path, "rb");
    if (!fp) continue;
    char chunk[4096];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, fp)) > 0)
      sf_buf_append(&b, chunk, k);
    fclose(fp);
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      sf_seq *p = realloc(*out, cap * sizeof *p);
      if (!p) {
        sf_buf_free(&b);
        break;
      }
      *out = p;
    }
    sf_seq_init(&(*out)[n], api);
    if (sf_seq_decode(&(*out)[n], api, b.data, b.len) == SF_DECODE_OK && (*out)[n].ncalls)
      n++;
    else
      sf_seq_free(&(*out)[n]);
    sf_buf_free(&b);
  }
  closedir(d);
  return n;
}

/* --known DIR's patterns into *out (NULL without the option). -1 with a
 * message when DIR cannot be read; a pattern that does not parse is told
 * and skipped, as the fuzzer does. */
static int load_known_option(const sf_api *api, const char *dir, sf_known **out) {
  *out = NULL;
  if (!dir) return 0;
  char err[2048] = "";
  *out = sf_known_load(api, dir, err, sizeof err);
  if (!*out) return cli_error("--known %s: %s", dir, err);
  if (err[0]) fprintf(stderr, "seqfuzz: --known: %s (the file is skipped)\n", err);
  return 0;
}

int cmd_min(int argc, char **argv) {
  const char *pos[3];
  const char *target = cli_option(argc, argv, "--target", "-t");
  const char *out_path = cli_option(argc, argv, "--output", "-o");
  const char *corpus_dir = cli_option(argc, argv, "--corpus", NULL);
  const char *known_dir = cli_option(argc, argv, "--known", NULL);
  const char *secs = cli_option(argc, argv, "--max-seconds", NULL);
  const char *timeout = cli_option(argc, argv, "--timeout", NULL);
  if (cli_positionals(argc, argv, pos, 3) != 2) return cli_usage_error(argv[0], NULL);
  if (!target) return cli_usage_error(argv[0], "--target FUZZER is required");
  sf_api *api = cli_load_api(pos[0]);
  if (!api) return 1;
  sf_known *known;
  if (load_known_option(api, known_dir, &known)) {
    sf_api_free(api);
    return 1;
  }
  sf_seq in, out;
  sf_seq_init(&in, api);
  sf_seq_init(&out, api);
  sf_seq *corpus = NULL;
  uint32_t ncorpus = corpus_dir ? load_corpus(api, corpus_dir, &corpus) : 0;
  int rc = 1;
  if (cli_load_seq(api, pos[1], &in) == 0) {
    sf_min_options opt = {.target = target,
                          .timeout = timeout ? (unsigned)atoi(timeout) : 10,
                          .max_seconds = secs ? atof(secs) : 60,
                          .corpus = corpus,
                          .ncorpus = ncorpus,
                          .known = known,
                          .progress = print_progress};
    sf_min_result res;
    if (sf_minimize(api, &in, &opt, &out, &res) != 0) {
      rc = cli_error(res.sig.crashed ? "%s: cannot run the target %s"
                                     : "%s: the input does not crash %s",
                     pos[1], target);
    } else {
      sf_buf enc_in = {0}, enc_out = {0}, text = {0};
      sf_seq_encode(&in, &enc_in);
      sf_seq_encode(&out, &enc_out);
      char path[4096];
      if (!out_path) {
        snprintf(path, sizeof path, "%s.min", pos[1]);
        out_path = path;
      }
      char sig[512];
      sf_signature_format(&res.sig, sig, sizeof sig);
      if (cli_write_file(out_path, enc_out.data, enc_out.len) == 0) {
        sf_seq_print(&out, &text);
        printf("%.*s", (int)text.len, (const char *)text.data);
        fprintf(stderr,
                "seqfuzz min: %s\nseqfuzz min: %u -> %u calls, %zu -> %zu bytes, %u runs, %.1f s; "
                "written to %s\n",
                sig, res.calls_before, res.calls_after, enc_in.len, enc_out.len, res.runs,
                res.seconds, out_path);
        if (res.known_refused)
          fprintf(stderr, "seqfuzz min: %u smaller input(s) refused: they complete a known bug\n",
                  res.known_refused);
        rc = 0;
      }
      sf_buf_free(&enc_in);
      sf_buf_free(&enc_out);
      sf_buf_free(&text);
    }
  }
  for (uint32_t i = 0; i < ncorpus; i++)
    sf_seq_free(&corpus[i]);
  free(corpus);
  sf_known_free(known);
  sf_seq_free(&in);
  sf_seq_free(&out);
  sf_api_free(api);
  return rc;
}

int cmd_repro(int argc, char **argv) {
  const char *pos[3];
  const char *out_path = cli_option(argc, argv, "--output", "-o");
  if (cli_positionals(argc, argv, pos, 3) != 2) return cli_usage_error(argv[0], NULL);
  sf_api *api = cli_load_api(pos[0]);
  if (!api) return 1;
  sf_seq s;
  sf_seq_init(&s, api);
  int rc = 1;
  if (cli_load_seq(api, pos[1], &s) == 0) {
    sf_buf c = {0};
    const char *base = strrchr(pos[1], '/');
    if (sf_repro_write(&s, base ? base + 1 : pos[1], &c) == 0) {
      if (out_path)
        rc = cli_write_file(out_path, c.data, c.len) ? 1 : 0;
      else
        rc = fwrite(c.data, 1, c.len, stdout) == c.len ? 0 : 1;
    }
    sf_buf_free(&c);
  }
  sf_seq_free(&s);
  sf_api_free(api);
  return rc;
}

int cmd_signature(int argc, char **argv) {
  const char *pos[2];
  if (cli_positionals(argc, argv, pos, 2) != 1) return cli_usage_error(argv[0], NULL);
  sf_buf b = {0};
  if (cli_read_file(pos[0], &b)) return 1;
  sf_signature sig;
  sf_signature_parse((const char *)b.data, b.len, &sig);
  char line[512];
  sf_signature_format(&sig, line, sizeof line);
  printf("%s\n", line);
  sf_buf_free(&b);
  return sig.crashed ? 0 : 1;
}

/* ---- triage ------------------------------------------------------------- */

/* A signature kind as part of a file name: only [A-Za-z0-9._-], each run of
 * other characters one '-' ("ubsan: shift exponent" -> "ubsan-shift-exponent"),
 * no '-' or '.' at either end (no hidden file, no option look-alike), at most
 * 32 characters. The group number before it keeps names unique. */
static void file_name_part(const char *kind, char *out, size_t outlen) {
  size_t n = 0, max = outlen - 1 < 32 ? outlen - 1 : 32;
  for (const char *p = kind; *p && n < max; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (ok)
      out[n++] = c;
    else if (n && out[n - 1] != '-')
      out[n++] = '-';
  }
  while (n && (out[n - 1] == '-' || out[n - 1] == '.'))
    n--;
  size_t start = 0;
  while (start < n && (out[start] == '-' || out[start] == '.'))
    start++;
  memmove(out, out + start, n - start);
  n -= start;
  if (!n) n = (size_t)snprintf(out, outlen, "crash");
  out[n] = 0;
}

/* OUT_DIR/N-KIND.EXT; -1 (with a message) when it cannot be written. */
static int write_output(const char *dir, uint32_t group, const char *kind, const char *ext,
                        const void *data, size_t len) {
  char name[40], path[4096];
  file_name_part(kind, name, sizeof name);
  if ((size_t)snprintf(path, sizeof path, "%s/%u-%s%s", dir, group, name, ext) >= sizeof path)
    return cli_error("%s: path too long", dir), -1;
  return cli_write_file(path, data, len);
}

typedef struct crash_group {
  sf_signature sig;
  char *smallest; /* path of the smallest input of the group */
  size_t smallest_size;
  uint32_t count;
  /* After minimization: */
  bool loaded;
  sf_seq best;  /* the minimized input */
  sf_buf enc;   /* and its bytes */
  char *report; /* the report of running it */
  sf_triage_finding finding;
  uint32_t merged_into; /* the group it is shown with (itself if shown) */
} crash_group;

int cmd_triage(int argc, char **argv) {
  const char *pos[3];
  const char *target = cli_option(argc, argv, "--target", "-t");
  const char *out_dir = cli_option(argc, argv, "--output", "-o");
  const char *secs = cli_option(argc, argv, "--max-seconds", NULL);
  const char *timeout_opt = cli_option(argc, argv, "--timeout", NULL);
  const char *known_dir = cli_option(argc, argv, "--known", NULL);
  if (cli_positionals(argc, argv, pos, 3) != 2) return cli_usage_error(argv[0], NULL);
  if (!target) return cli_usage_error(argv[0], "--target FUZZER is required");
  unsigned timeout = timeout_opt ? (unsigned)atoi(timeout_opt) : 10;
  /* Before any run: a directory that cannot be made fails now, once. */
  if (out_dir && cli_make_dirs(out_dir)) return 1;
  sf_api *api = cli_load_api(pos[0]);
  if (!api) return 1;
  sf_known *known;
  if (load_known_option(api, known_dir, &known)) {
    sf_api_free(api);
    return 1;
  }
  DIR *d = opendir(pos[1]);
  if (!d) {
    sf_known_free(known);
    sf_api_free(api);
    return cli_error("%s: cannot open directory", pos[1]);
  }
  sf_runner *runner = sf_runner_new(target, timeout);
  if (!runner) {
    closedir(d);
    sf_known_free(known);
    sf_api_free(api);
    return cli_error("out of memory");
  }
  crash_group *groups = NULL;
  uint32_t ngroups = 0, nfiles = 0, not_reproduced = 0, empty = 0;
  int rc = 0; /* 1 once an output is missing */
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' || strcmp(e->d_name, "README.txt") == 0) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", pos[1], e->d_name);
    sf_buf b = {0};
    if (cli_read_file(path, &b)) continue;
    nfiles++;
    sf_signature sig;
    if (sf_runner_run(runner, b.data, b.len, &sig, NULL) != 0) {
      sf_buf_free(&b);
      closedir(d);
      free(groups);
      sf_runner_free(runner);
      sf_known_free(known);
      sf_api_free(api);
      return cli_error("cannot run %s", target);
    }
    if (!sig.crashed && b.len == 0) {
      /* libFuzzer's file for a crash outside its run of an input (a probe
       * of the mutator): the fuzzer wrote the input as crash-probe-*. */
      empty++;
      sf_buf_free(&b);
      continue;
    }
    if (!sig.crashed) {
      not_reproduced++;
      fprintf(stderr, "seqfuzz triage: %s: does not crash when run again\n", e->d_name);
      sf_buf_free(&b);
      continue;
    }
    uint32_t g = 0;
    while (g < ngroups && !sf_signature_equal(&groups[g].sig, &sig))
      g++;
    if (g == ngroups) {
      crash_group *ng = realloc(groups, (ngroups + 1) * sizeof *ng);
      if (!ng) break;
      groups = ng;
      groups[ngroups++] = (crash_group){.sig = sig, .smallest_size = SIZE_MAX};
    }
    groups[g].count++;
    if (b.len < groups[g].smallest_size) {
      free(groups[g].smallest);
      groups[g].smallest = strdup(path);
      groups[g].smallest_size = b.len;
    }
    sf_buf_free(&b);
  }
  closedir(d);
  fprintf(stderr, "seqfuzz triage: inputs ran in %s\n", sf_runner_mode(runner));
  /* Minimize each group and classify its minimized input. */
  for (uint32_t g = 0; g < ngroups; g++) {
    crash_group *cg = &groups[g];
    sf_seq in;
    sf_seq_init(&in, api);
    sf_seq_init(&cg->best, api);
    cg->finding.verdict = SF_LIKELY_BUG;
    if (cli_load_seq(api, cg->smallest, &in) == 0) {
      sf_min_options opt = {.target = target,
                            .timeout = timeout,
                            .runner = runner,
                            .known = known,
                            .max_seconds = secs ? atof(secs) : 30};
      sf_min_result res;
      if (sf_minimize(api, &in, &opt, &cg->best, &res) != 0) sf_seq_copy(&cg->best, &in);
      /* The report of the minimized input decides the verdict. */
      sf_signature sig;
      if (sf_seq_encode(&cg->best, &cg->enc) == 0 &&
          sf_runner_run(runner, cg->enc.data, cg->enc.len, &sig, &cg->report) == 0) {
        /* Classified on a traced run when it crashes the same way: it shows
         * the state each call saw (an index against a length). */
        sf_signature tsig;
        char *traced = NULL;
        bool same =
            sf_run_traced(target, cg->enc.data, cg->enc.len, timeout, &tsig, &traced) == 0 &&
            sf_signature_equal(&tsig, &sig);
        sf_triage_classify(&cg->best, same ? traced : cg->report, runner, &cg->finding);
        free(traced);
      }
      sf_triage_finding *f = &cg->finding;
      if (f->verdict == SF_LIKELY_BUG && strcmp(cg->sig.kind, "timeout") == 0 &&
          sf_triage_grows_with_repeats(&cg->best, runner, timeout, f->reason, sizeof f->reason)) {
        f->verdict = SF_LIKELY_MISUSE;
        sf_signature_format(&cg->sig, f->cause, sizeof f->cause);
      }
      cg->loaded = true;
    } else {
      rc = 1; /* cli_load_seq said why */
    }
    sf_seq_free(&in);
  }
  /* Groups of one root cause go into the first of them: misuse with one
   * cause (one mistake of the grammar), leaks of objects made different
   * ways (sf_triage_same_root). */
  uint32_t nshown = 0;
  for (uint32_t g = 0; g < ngroups; g++) {
    groups[g].merged_into = g;
    const sf_triage_finding *fg = &groups[g].finding;
    for (uint32_t h = 0; h < g && groups[g].report; h++) {
      const sf_triage_finding *fh = &groups[h].finding;
      bool one_mistake = fg->cause[0] && strcmp(fg->cause, fh->cause) == 0;
      if (groups[h].merged_into == h && groups[h].report &&
          (one_mistake || (fg->verdict == SF_LIKELY_BUG && fh->verdict == SF_LIKELY_BUG &&
                           sf_triage_same_root(&groups[h].best, groups[h].report, &groups[g].best,
                                               groups[g].report)))) {
        groups[g].merged_into = h;
        break;
      }
    }
    nshown += groups[g].merged_into == g;
  }
  printf("%u inputs, %u crash groups, %u not reproduced\n", nfiles, nshown, not_reproduced);
  if (nshown < ngroups)
    printf("(%u signatures; groups whose minimized crashes show one root cause are one)\n",
           ngroups);
  if (empty)
    printf("%u empty input(s) skipped: libFuzzer's files for crashes in the mutator's probes, "
           "whose inputs the fuzzer saved as crash-probe-*\n",
           empty);
  uint32_t shown = 0;
  /* OUT_DIR/findings.tsv: a row per group, for tools (docs/workflow.md). */
  sf_buf table = {0};
  sf_buf_printf(&table, "id\tkind\tverdict\tcount\tsignature\n");
  for (uint32_t g = 0; g < ngroups; g++) {
    crash_group *cg = &groups[g];
    if (cg->merged_into != g || !cg->loaded) continue;
    shown++;
    char sigtext[512], kind[40];
    sf_signature_format(&cg->sig, sigtext, sizeof sigtext);
    uint32_t count = cg->count;
    for (uint32_t h = g + 1; h < ngroups; h++)
      if (groups[h].merged_into == g) count += groups[h].count;
    file_name_part(cg->sig.kind, kind, sizeof kind);
    for (char *p = sigtext; *p; p++)
      if (*p == '\t' || *p == '\n') *p = ' ';
    sf_buf_printf(&table, "%u\t%s\t%s\t%u\t%s\n", shown, kind,
                  cg->finding.verdict == SF_LIKELY_BUG ? "bug" : "misuse", count, sigtext);
    printf("\n[%u] %s\n    %u input(s), e.g. %s\n", shown, sigtext, count, cg->smallest);
    for (uint32_t h = g + 1; h < ngroups; h++)
      if (groups[h].merged_into == g) {
        sf_signature_format(&groups[h].sig, sigtext, sizeof sigtext);
        printf("    same root cause: %s (%u input(s), e.g. %s)\n", sigtext, groups[h].count,
               groups[h].smallest);
      }
    printf("    %s: %s\n",
           cg->finding.verdict == SF_LIKELY_BUG ? "likely bug" : "likely API misuse",
           cg->finding.reason);
    sf_buf text = {0};
    sf_seq_print(&cg->best, &text);
    printf("    minimized (%u calls):\n", cg->best.ncalls);
    for (const char *p = (const char *)text.data; p && p < (const char *)text.data + text.len;) {
      const char *nl = memchr(p, '\n', (size_t)((const char *)text.data + text.len - p));
      printf("      %.*s\n", (int)(nl ? nl - p : (const char *)text.data + text.len - p), p);
      p = nl ? nl + 1 : NULL;
    }
    if (out_dir) {
      const char *kind = cg->sig.kind;
      sf_buf c = {0};
      if (write_output(out_dir, shown, kind, ".input", cg->enc.data, cg->enc.len) ||
          write_output(out_dir, shown, kind, ".seq", text.data, text.len))
        rc = 1;
      if (sf_repro_write(&cg->best, cg->smallest, &c) != 0)
        rc = cli_error("group %u: out of memory for its C reproducer", shown);
      else if (write_output(out_dir, shown, kind, ".c", c.data, c.len))
        rc = 1;
      if (!cg->report)
        rc = cli_error("group %u: no report: the minimized input did not run", shown);
      else if (write_output(out_dir, shown, kind, ".report.txt", cg->report, strlen(cg->report)))
        rc = 1;
      sf_buf_free(&c);
    }
    sf_buf_free(&text);
  }
  if (out_dir) {
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/findings.tsv", out_dir) >= sizeof path ||
        cli_write_file(path, table.data, table.len))
      rc = 1;
  }
  sf_buf_free(&table);
  for (uint32_t g = 0; g < ngroups; g++) {
    sf_seq_free(&groups[g].best);
    sf_buf_free(&groups[g].enc);
    free(groups[g].report);
    free(groups[g].smallest);
  }
  free(groups);
  sf_runner_free(runner);
  sf_known_free(known);
  sf_api_free(api);
  return rc;
}

int cmd_known(int argc, char **argv) {
  bool wide = cli_take_flag(&argc, argv, "--widen");
  const char *pos[3];
  const char *target = cli_option(argc, argv, "--target", "-t");
  const char *out_path = cli_option(argc, argv, "--output", "-o");
  const char *timeout_opt = cli_option(argc, argv, "--timeout", NULL);
  if (cli_positionals(argc, argv, pos, 3) != 2) return cli_usage_error(argv[0], NULL);
  if (!target) return cli_usage_error(argv[0], "--target FUZZER is required");
  sf_api *api = cli_load_api(pos[0]);
  if (!api) return 1;
  sf_seq in;
  sf_seq_init(&in, api);
  sf_runner *runner = NULL;
  sf_buf enc = {0}, text = {0};
  int rc = 1;
  if (cli_load_seq(api, pos[1], &in) != 0) goto done;
  runner = sf_runner_new(target, timeout_opt ? (unsigned)atoi(timeout_opt) : 10);
  sf_signature sig;
  if (!runner || sf_seq_encode(&in, &enc) ||
      sf_runner_run(runner, enc.data, enc.len, &sig, NULL) != 0) {
    cli_error("cannot run %s", target);
    goto done;
  }
  if (!sig.crashed) {
    cli_error("%s: does not crash %s: not a bug to set aside", pos[1], target);
    goto done;
  }
  /* A crash with nothing to widen keeps its exact pattern. */
  int runs = wide && sf_generalize_wide(&in, &sig, &text) == 0
                 ? 0
                 : sf_generalize(&in, &sig, runner, &text);
  if (runs < 0) {
    cli_error("cannot run %s", target);
    goto done;
  }
  if (out_path ? cli_write_file(out_path, text.data, text.len) == 0
               : fwrite(text.data, 1, text.len, stdout) == text.len)
    rc = 0;
  fprintf(stderr, "seqfuzz known: %d runs%s%s\n", runs, out_path ? "; written to " : "",
          out_path ? out_path : "");
done:
  sf_buf_free(&enc);
  sf_buf_free(&text);
  sf_runner_free(runner);
  sf_seq_free(&in);
  sf_api_free(api);
  return rc;
}
