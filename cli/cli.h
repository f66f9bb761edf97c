/* cli.h: helpers shared by the seqfuzz subcommands (cli/ only). */
#ifndef SF_CLI_H
#define SF_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sf_buf.h"
#include "grammar/api.h"
#include "sequence/seq.h"

/* Exit codes every subcommand shares (`run` adds its own, README). */
enum { CLI_EXIT_OK = 0, CLI_EXIT_ERROR = 1, CLI_EXIT_USAGE = 2 };

/* Each subcommand: argv[0] is the subcommand name. Returns the exit code.
 * Before it runs, seqfuzz.c has answered --help and rejected options the
 * command does not declare, so it only checks what it requires. */
typedef int (*sf_cmd_fn)(int argc, char **argv);

int cmd_check(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_embed(int argc, char **argv);
int cmd_ossfuzz(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_seed(int argc, char **argv);
int cmd_min(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_signature(int argc, char **argv);
int cmd_triage(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_fuzz(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_known(int argc, char **argv);

/* Print "seqfuzz: <msg>" to stderr; returns 1 (the exit code for errors). */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A command used wrongly: "seqfuzz CMD: <msg>" (if fmt is not NULL) and the
 * command's usage line to stderr; returns CLI_EXIT_USAGE. The usage comes
 * from the command table in seqfuzz.c, the one place it is written. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Load an API or print its errors. */
sf_api *cli_load_api(const char *path);
/* Read a whole file; -1 with a message printed on failure. */
int cli_read_file(const char *path, sf_buf *out);
/* Write a whole file; -1 with a message printed on failure. */
int cli_write_file(const char *path, const void *data, size_t len);
/* mkdir -p: the directory and its missing parents; -1 with a message
 * printed when it cannot be made. */
int cli_make_dirs(const char *path);
/* Load an input: binary (starts with the header) or text form, by content. */
int cli_load_seq(const sf_api *api, const char *path, sf_seq *out);
/* Value of `--name VALUE` / `-n VALUE` in argv, or NULL. */
const char *cli_option(int argc, char **argv, const char *long_name, const char *short_name);
/* Remove the flag `name` (an option without a value) from argv; whether it
 * was there. (cli_option and cli_positionals take every option to have a
 * value: a command takes its flags out first.) */
bool cli_take_flag(int *argc, char **argv, const char *name);
/* Positional arguments (not options nor their values), in order. */
int cli_positionals(int argc, char **argv, const char **out, int max);

#endif
