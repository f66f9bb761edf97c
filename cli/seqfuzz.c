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
  const char *value; /* what it takes: every option takes a value */
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
     .usage = "API INPUT --target FUZZER [-o OUT] [--corpus DIR] [--max-seconds S] [--timeout S]",
     .help = "minimize a crashing input, keeping its crash signature",
     .opts = {OPT_TARGET,
              {"--output", "-o", "OUT", "the minimized input (INPUT.min)"},
              {"--corpus", NULL, "DIR", "inputs whose calls may replace calls of INPUT"},
              {"--max-seconds", NULL, "S", "time budget (60)"},
              OPT_TIMEOUT}},
    {.name = "repro",
     .fn = cmd_repro,
     .usage = "API INPUT [-o FILE.c]",
     .help = "a standalone C program that replays an input",
     .opts = {{"--output", "-o", "FILE.c", "where the program goes (standard output)"}}},
    {.name = "triage",
     .fn = cmd_triage,
     .usage = "API DIR --target FUZZER [-o OUT_DIR] [--max-seconds S] [--timeout S]",
     .help = "group crashing inputs by signature; minimize, classify bug or misuse",
     .opts = {OPT_TARGET,
              {"--output", "-o", "OUT_DIR", "where each group's files go (made with its parents)"},
              {"--max-seconds", NULL, "S", "minimization time budget per group (30)"},
              OPT_TIMEOUT}},
    {.name = "signature",
     .fn = cmd_signature,
     .usage = "REPORT",
     .help = "the crash signature of a sanitizer report"},
    {.name = "embed",
     .fn = cmd_embed,
     .usage = "API -o FILE.c",
     .help = "generate the C file a fuzzer embeds (build step)",
     .opts = {{"--output", "-o", "FILE.c", "the C file to write (required)"}}},
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
             o->name, o->value);
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
