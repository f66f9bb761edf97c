/* seqfuzz: the command-line front end. One table describes every
 * subcommand: its usage, help and options, so that help, usage errors and
 * the rejection of unknown options agree with each other. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_OPTS 6

typedef struct cli_opt {
  const char *name;  /* "--output" */
  const char *alias; /* "-o", or NULL */
  const char *value; /* what it takes, or NULL: a flag (takes no value) */
  const char *help;
} cli_opt;

typedef struct cli_command {
  const char *name;
  sf_cmd_fn fn;
  const char *usage;      /* the arguments */
  const char *help;       /* one line */
  cli_opt opts[MAX_OPTS]; /* up to the first without a name */
  const char *more;       /* a paragraph for its --help, or NULL */
} cli_command;

/* Options two commands share. */
#define OPT_TARGET                                                                                 \
  { "--target", "-t", "FUZZER", "a seqfuzz fuzzer of the API (runs the input)" }
#define OPT_TIMEOUT                                                                                \
  { "--timeout", NULL, "S", "seconds a run may take (10)" }
#define OPT_KNOWN                                                                                  \
  {                                                                                                \
    "--known", NULL, "DIR",                                                                        \
        "known bugs' patterns (SEQFUZZ_KNOWN's): no smaller input may complete one"                \
  }

static const cli_command commands[] = {
    {.name = "check", .fn = cmd_check, .usage = "API", .help = "validate an API description"},
    {.name = "show",
     .fn = cmd_show,
     .usage = "API INPUT [--target FUZZER] [--timeout S]",
     .help = "print an input (binary or text) as text",
     .opts = {{"--target", "-t", "FUZZER",
               "run the input once with FUZZER and mark the call that crashed with a comment"},
              OPT_TIMEOUT},
     .more = "With --target the output is still a sequence in text form: the call that\n"
             "crashed ends with `# <- crashed here: SIGNATURE`; a crash after the calls\n"
             "(observing or destroying handles, a leak at exit), or none, is said in a\n"
             "last comment line.\n"},
    {.name = "encode",
     .fn = cmd_encode,
     .usage = "API TEXT -o INPUT",
     .help = "encode a text sequence into a binary input",
     .opts = {{"--output", "-o", "INPUT", "the binary input to write (required)"}}},
    {.name = "run",
     .fn = cmd_run,
     .usage = "API INPUT [--lib LIB]",
     .help = "execute an input once, printing each call",
     .opts = {{"--lib", "-l", "LIB",
               "the shared library to call (default: the API's first `library`)"}},
     .more = "exit status: 0 every call ran, 1 the run stopped (a call failed by the API's\n"
             "convention or could not be made), 2 it crashed, 3 the library could not be\n"
             "loaded (and 2 for a usage error, as for every command).\n"},
    {.name = "seed",
     .fn = cmd_seed,
     .usage = "API TEMPLATE FILE... -o DIR",
     .help = "one seed input per file: its bytes where the text sequence TEMPLATE says @FILE@",
     .opts = {{"--output", "-o", "DIR",
               "where the inputs go, one per FILE and named like it (required)"}}},
    {.name = "gen",
     .fn = cmd_gen,
     .usage = "API -o DIR [-n COUNT] [--calls N] [--seed S]",
     .help = "write random valid inputs (a starting corpus)",
     .opts = {{"--output", "-o", "DIR", "where the inputs go (required)"},
              {"--count", "-n", "COUNT", "how many inputs (16)"},
              {"--calls", NULL, "N", "calls per input (8)"},
              {"--seed", NULL, "S", "random seed (1)"}}},
    {.name = "min",
     .fn = cmd_min,
     .usage = "API INPUT --target FUZZER [-o OUT] [--corpus DIR] [--known DIR] [--max-seconds S] "
              "[--timeout S]",
     .help = "minimize a crashing input, keeping its crash signature",
     .opts = {OPT_TARGET,
              {"--output", "-o", "OUT", "the minimized input (INPUT.min)"},
              {"--corpus", NULL, "DIR", "inputs whose calls may replace calls of INPUT"},
              OPT_KNOWN,
              {"--max-seconds", NULL, "S", "time budget (60)"},
              OPT_TIMEOUT}},
    {.name = "repro",
     .fn = cmd_repro,
     .usage = "API INPUT [-o FILE.c]",
     .help = "a standalone C program that replays an input",
     .opts = {{"--output", "-o", "FILE.c", "where the program goes (standard output)"}}},
    {.name = "triage",
     .fn = cmd_triage,
     .usage = "API DIR --target FUZZER [-o OUT_DIR] [--known DIR] [--max-seconds S] [--timeout S]",
     .help = "group crashing inputs by signature; minimize, classify bug or misuse",
     .opts = {OPT_TARGET,
              {"--output", "-o", "OUT_DIR", "where each group's files go (made with its parents)"},
              OPT_KNOWN,
              {"--max-seconds", NULL, "S", "minimization time budget per group (30)"},
              OPT_TIMEOUT}},
    {.name = "known",
     .fn = cmd_known,
     .usage = "API INPUT --target FUZZER [-o FILE.seq] [--timeout S] [--widen]",
     .help = "a crash's pattern, for the fuzzer to set the bug aside (SEQFUZZ_KNOWN)",
     .opts = {OPT_TARGET,
              {"--output", "-o", "FILE.seq", "where the pattern goes (standard output)"},
              OPT_TIMEOUT,
              {"--widen", NULL, NULL,
               "the calls before the last, any values: set aside where the bug is armed"}},
     .more = "INPUT is a minimized crash (seqfuzz triage's N-KIND.input). Each argument\n"
             "is tried with other values: the pattern asks only for the values the crash\n"
             "needs (a `# any:` line lists the others). A fuzzer run with\n"
             "SEQFUZZ_KNOWN=DIR stops before the call that would complete a pattern of\n"
             "DIR/*.seq, so a campaign stops spending its time on that bug\n"
             "(seqfuzz fuzz widens the pattern of a bug whose variants keep coming back)\n"
             "(docs/workflow.md, \"Known bugs\").\n"},
    {.name = "report",
     .fn = cmd_report,
     .usage = "RUN_DIR [-o FILE.html]",
     .help = "one self-contained HTML page of a run directory",
     .opts = {{"--output", "-o", "FILE.html", "where the page goes (RUN_DIR/report.html)"}},
     .more = "RUN_DIR is a run directory (docs/workflow.md): the page shows run.txt's facts,\n"
             "edges, corpus size and executions/s over time from progress.tsv, each row of\n"
             "findings.tsv with its minimized sequence, C reproducer and report, the last\n"
             "statistics of stats.txt, and a link to coverage/index.html when there is one.\n"
             "Missing files are said in their section; malformed rows are skipped.\n"},
    {.name = "fuzz",
     .fn = cmd_fuzz,
     .usage = "TARGET [-o RUN_DIR] [--engine libfuzzer|afl] [--jobs N] [--seconds S] [--seed N] "
              "[--coverage]",
     .help = "a campaign on a target directory: build, fuzz, triage, summarize",
     .opts = {{"--output", "-o", "RUN_DIR", "the run directory (NAME-run-DATE-TIME here)"},
              {"--engine", NULL, "ENGINE", "libfuzzer (default) or afl (AFL++; needs a build.sh)"},
              {"--jobs", "-j", "N", "parallel fuzzing processes (1)"},
              {"--seconds", NULL, "S", "time limit (0, the default: until Ctrl-C)"},
              {"--seed", NULL, "N", "the engines' random seed (theirs by default)"},
              {"--coverage", NULL, NULL,
               "at the end, the library's line coverage of the corpus (RUN_DIR/coverage; needs "
               "a build.sh)"}},
     .more = "TARGET is a target directory (docs/workflow.md): one NAME.api, and a build.sh\n"
             "(OSS-Fuzz style) or the grammar's `library` lines (.a or .so built with the\n"
             "sanitizers and -fsanitize=fuzzer-no-link) and `header` lines. The fuzzer is\n"
             "built by scripts/build-target-dir.sh into TARGET/.seqfuzz/ENGINE/ and reused\n"
             "while the .api, build.sh, libraries, headers, seeds and dictionary are older\n"
             "(SEQFUZZ_ROOT names the seqfuzz tree; default: the one seqfuzz was built from).\n"
             "libFuzzer runs with -fork=N -ignore_crashes=1, so a crash does not end the\n"
             "campaign; AFL++ as one -M and N-1 -S instances with the seqfuzz mutator.\n"
             "Known bugs are set aside (SEQFUZZ_KNOWN=RUN_DIR/known): the patterns of\n"
             "TARGET/known-bugs/*.seq from the start, and each crash found is triaged in the\n"
             "background and its pattern added (seqfuzz known; learn.log), so the campaign\n"
             "stops spending its time on it and goes on to others (docs/workflow.md).\n"
             "A progress line goes to stderr: rewritten on a terminal, every 10 s otherwise.\n"
             "At the time limit or on Ctrl-C (the engine is asked to stop, killed after 5 s)\n"
             "the crashes are triaged (seqfuzz triage) and a summary printed: per unique\n"
             "finding its verdict, signature, minimized sequence and C reproducer.\n"
             "RUN_DIR gets run.txt, progress.tsv, stats.txt, summary.txt, corpus/, crashes/,\n"
             "findings/, findings.tsv and known/ (docs/workflow.md), and build.log, engine.log\n"
             "(or afl-NAME.log), triage.log, learn.log, stats/. Used again, its corpus and\n"
             "crashes go on.\n"
             "exit status: 0 the campaign ran (findings or not), 1 an error (no or several\n"
             ".api files, a failed build, an engine that failed), 2 a usage error.\n"},
    {.name = "init",
     .fn = cmd_init,
     .usage = "HEADER... [--lib LIB] [-o FILE.api] [-I DIR] [-D NAME[=VALUE]] [--probe]",
     .help = "draft a grammar from C headers (libclang); every guess is marked",
     .opts = {{"--lib", "-l", "LIB", "the library: its `library` line and the API's name"},
              {"--output", "-o", "FILE.api", "where the draft goes (standard output)"},
              {"--include", "-I", "DIR", "an include directory for parsing (repeatable)"},
              {"--define", "-D", "NAME[=V]", "a macro for parsing (repeatable)"},
              {"--probe", NULL, NULL, "call each function on trivial arguments (needs --lib)"}},
     .more = "The draft maps each function of the headers to the grammar (docs/grammar.md):\n"
             "handle types, constructors and destructors, buffer/length pairs, out\n"
             "parameters, error conventions, enums and #define constants, string constants\n"
             "as `dict`. Each guess has a `# guess:` comment to confirm; a function the\n"
             "grammar cannot express (a function pointer, varargs, a struct by value) is\n"
             "commented out with the reason. The draft passes `seqfuzz check`.\n"
             "With --probe (LIB a shared library) each function is called once through\n"
             "seqfuzz's executor on trivial arguments (0, \"\", empty buffers, handles from\n"
             "a constructor), then with NULL in each string and handle, each call in a\n"
             "child process; a crash adds a `# probe:` comment with the precondition to\n"
             "consider.\n"},
    {.name = "signature",
     .fn = cmd_signature,
     .usage = "REPORT",
     .help = "the crash signature of a sanitizer report"},
    {.name = "embed",
     .fn = cmd_embed,
     .usage = "API -o FILE.c",
     .help = "generate the C file a fuzzer embeds (build step)",
     .opts = {{"--output", "-o", "FILE.c", "the C file to write (required)"}}},
    {.name = "oss-fuzz",
     .fn = cmd_ossfuzz,
     .usage = "TARGET -o DIR [--name NAME] [--language c]",
     .help = "an OSS-Fuzz project and a ClusterFuzzLite configuration for a target directory",
     .opts = {{"--output", "-o", "DIR", "where the files go (made with its parents; required)"},
              {"--name", NULL, "NAME", "the OSS-Fuzz project name (the API's name)"},
              {"--language", NULL, "LANG", "project.yaml's language: c (default) or c++"}},
     .more = "TARGET is a target directory (docs/workflow.md): one NAME.api, and a build.sh\n"
             "or the libraries its `library` lines name. DIR gets project.yaml, Dockerfile,\n"
             "build.sh and README.md (OSS-Fuzz), .clusterfuzzlite/ and\n"
             ".github/workflows/cflite_batch.yml (ClusterFuzzLite), and a copy of TARGET\n"
             "(seqfuzz-target/) for the images. The fuzzer is NAME_seqfuzz. Placeholders\n"
             "to replace say EDIT-ME (docs/oss-fuzz.md).\n"},
};

#define NCOMMANDS (sizeof commands / sizeof *commands)

static const cli_command *find_command(const char *name) {
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (strcmp(name, commands[i].name) == 0) return &commands[i];
  return NULL;
}

static const char inputs_note[] =
    "API is a .api file (docs/grammar.md). INPUT is a binary input (as the fuzzers\n"
    "store them) or a sequence in text form.\n";

static const char exit_note[] =
    "exit status: 0 success, 1 error, 2 usage error (unknown command or option,\n"
    "missing argument or option value); run has more (seqfuzz run --help).\n";

static void usage(FILE *out) {
  fprintf(out, "usage: seqfuzz COMMAND ARGS...   (seqfuzz COMMAND --help: its options)\n\n"
               "commands:\n");
  for (size_t i = 0; i < NCOMMANDS; i++)
    fprintf(out, "  %-9s %-52s %s\n", commands[i].name, commands[i].usage, commands[i].help);
  fprintf(out, "  %-9s %-52s %s\n", "help", "[COMMAND]",
          "this list, or a command's usage and options");
  fprintf(out, "\n%s\n%s", inputs_note, exit_note);
}

static void command_help(const cli_command *c, FILE *out) {
  fprintf(out, "usage: seqfuzz %s %s\n\n%s.\n\noptions:\n", c->name, c->usage, c->help);
  for (const cli_opt *o = c->opts; o < c->opts + MAX_OPTS && o->name; o++) {
    char names[64];
    snprintf(names, sizeof names, "%s%s%s %s", o->alias ? o->alias : "", o->alias ? ", " : "",
             o->name, o->value ? o->value : "");
    fprintf(out, "  %-24s %s\n", names, o->help);
  }
  fprintf(out, "  %-24s %s\n\n", "-h, --help", "print this help");
  if (c->more) fprintf(out, "%s\n", c->more);
  fprintf(out, "%s\n%s", inputs_note, exit_note);
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  const cli_command *c = find_command(cmd);
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "seqfuzz %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
  }
  if (c)
    fprintf(stderr, "usage: seqfuzz %s %s\n(seqfuzz %s --help tells more)\n", c->name, c->usage,
            c->name);
  return CLI_EXIT_USAGE;
}

static const cli_opt *find_option(const cli_command *c, const char *arg) {
  for (const cli_opt *o = c->opts; o < c->opts + MAX_OPTS && o->name; o++)
    if (strcmp(arg, o->name) == 0 || (o->alias && strcmp(arg, o->alias) == 0)) return o;
  return NULL;
}

/* --help anywhere, or an option the command does not take, is answered
 * here; the command itself then finds only options it knows. */
static int dispatch(const cli_command *c, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || !a[1]) continue; /* a positional ("-" too) */
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      command_help(c, stdout);
      return CLI_EXIT_OK;
    }
    const cli_opt *o = find_option(c, a);
    if (!o) return cli_usage_error(c->name, "unknown option '%s'", a);
    if (!o->value) continue; /* a flag */
    if (i + 1 == argc) return cli_usage_error(c->name, "option %s needs a value (%s)", a, o->value);
    i++; /* its value, whatever it looks like (a negative number, say) */
  }
  return c->fn(argc, argv);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *name = argv[1];
  bool help = strcmp(name, "help") == 0;
  if (help && argc > 2 && argv[2][0] != '-')
    name = argv[2]; /* `seqfuzz help CMD` is `seqfuzz CMD --help` */
  else if (help || strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  const cli_command *c = find_command(name);
  if (!c) {
    cli_error("unknown command '%s' (seqfuzz --help lists them)", name);
    return CLI_EXIT_USAGE;
  }
  if (help) {
    command_help(c, stdout);
    return CLI_EXIT_OK;
  }
  return dispatch(c, argc - 1, argv + 1);
}
