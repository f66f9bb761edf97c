/* seqfuzz: the command-line front end. One table lists every subcommand. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct {
  const char *name;
  sf_cmd_fn fn;
  const char *usage;
  const char *help;
} commands[] = {
    {"check", cmd_check, "API", "validate an API description"},
    {"show", cmd_show, "API INPUT", "print an input (binary or text) as text"},
    {"encode", cmd_encode, "API TEXT -o INPUT", "encode a text sequence into a binary input"},
    {"run", cmd_run, "API INPUT [--lib LIB]", "execute an input once, printing each call"},
    {"seed", cmd_seed, "API TEMPLATE FILE... -o DIR",
     "one seed input per file: its bytes where the text sequence TEMPLATE says @FILE@"},
    {"gen", cmd_gen, "API -o DIR [-n COUNT] [--calls N] [--seed S]",
     "write random valid inputs (a starting corpus)"},
    {"min", cmd_min,
     "API INPUT --target FUZZER [-o OUT] [--corpus DIR] [--max-seconds S] [--timeout S]",
     "minimize a crashing input, keeping its crash signature"},
    {"repro", cmd_repro, "API INPUT [-o FILE.c]", "a standalone C program that replays an input"},
    {"triage", cmd_triage, "API DIR --target FUZZER [-o OUT_DIR] [--max-seconds S] [--timeout S]",
     "group crashing inputs by signature; minimize, classify bug or misuse"},
    {"signature", cmd_signature, "REPORT", "the crash signature of a sanitizer report"},
    {"embed", cmd_embed, "API -o FILE.c", "generate the C file a fuzzer embeds (build step)"},
};

static void usage(FILE *out) {
  fprintf(out, "usage: seqfuzz COMMAND ARGS...\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    fprintf(out, "  %-9s %-52s %s\n", commands[i].name, commands[i].usage, commands[i].help);
  fprintf(out, "\nAPI is a .api file (docs/grammar.md). INPUT is a binary input (as the fuzzers\n"
               "store them) or a sequence in text form.\n");
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    if (strcmp(argv[1], commands[i].name) == 0) return commands[i].fn(argc - 1, argv + 1);
  cli_error("unknown command '%s' (seqfuzz --help lists them)", argv[1]);
  return 2;
}
