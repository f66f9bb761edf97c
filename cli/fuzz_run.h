/* fuzz_run.h: the pieces of `seqfuzz fuzz` (cli/cmd_fuzz.c) that are not
 * about the command line: strings of any length, child processes in a
 * process group of their own, counting files, and reading the statistics
 * the fuzzers and afl-fuzz write while a campaign runs (docs/workflow.md). */
#ifndef SF_FUZZ_RUN_H
#define SF_FUZZ_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/sf_buf.h"

/* A formatted string in a fresh heap block (paths have no length limit).
 * Out of memory ends the process with a message: the command cannot go on
 * without its paths. */
char *fz_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* How a child starts. env adds NAME=VALUE entries (NULL-terminated, or NULL);
 * out and err are files it writes (appended; NULL: ours; err may equal out);
 * pgid: 0 a new process group led by the child, > 0 that group, < 0 ours;
 * capture: a pipe to its standard output, read into *capture by fz_wait. */
typedef struct fz_spawn_opts {
  char *const *env;
  const char *out, *err;
  pid_t pgid;
  bool capture;
} fz_spawn_opts;

typedef struct fz_child {
  pid_t pid;
  int out_fd; /* the capture pipe, or -1 */
} fz_child;

/* Start argv[0] (looked up in PATH). -1 with a message when it cannot
 * start; a program that is not found exits 127 in the child. */
int fz_spawn(char *const argv[], const fz_spawn_opts *opts, fz_child *child);
/* Wait for a child, reading its captured output into capture (if not NULL).
 * Returns its exit status, 128 + the signal that killed it, or -1. */
int fz_wait(fz_child *child, sf_buf *capture);
/* Run a command to its end (fz_spawn then fz_wait). */
int fz_run(char *const argv[], const fz_spawn_opts *opts, sf_buf *capture);

/* Regular files in dir whose names start with prefix ("" for all); 0 when
 * dir cannot be read. */
size_t fz_count_files(const char *dir, const char *prefix);
/* Remove the regular files in dir whose names start with prefix. */
void fz_remove_files(const char *dir, const char *prefix);

/* What the fuzzers' SEQFUZZ_STATS_DIR files say: executions summed over all
 * files (every process of the campaign, fork-mode jobs that ended
 * included), the rest from the newest file that counted executions. */
typedef struct fz_stats {
  bool have; /* some file was read */
  uint64_t execs;
  double pruned_illegal_pct, pruned_equiv_pct;
  uint64_t edges, solver_flips;
  char *text; /* the newest file's human-readable lines, or NULL */
} fz_stats;

/* Read dir/stats-*.txt into st (replacing what it held). */
void fz_read_stats(const char *dir, fz_stats *st);
void fz_stats_free(fz_stats *st);

/* libFuzzer's fork-mode parent's view: its last `#N: cov: C ft: F corp: K`
 * line in the log (N counts the runs of every job, of jobs that crashed too,
 * whose statistics files a sanitizer's abort leaves unwritten). false when
 * there is none yet. */
bool fz_read_libfuzzer_log(const char *log, uint64_t *execs, uint64_t *cov);

/* afl-fuzz's own view (SYNC/NAME/fuzzer_stats of every instance):
 * executions summed, corpus and edges of the instance that has most. */
typedef struct fz_afl_stats {
  bool have;
  uint64_t execs, corpus, edges;
} fz_afl_stats;

void fz_read_afl_stats(const char *sync_dir, fz_afl_stats *st);
/* The seqfuzz mutators inside afl-fuzz: the pruning shares and solver flips
 * of the last line of the newest STATS_DIR/afl-*.log (SEQFUZZ_STATS_FILE).
 * false when there is none yet. */
bool fz_read_afl_mutators(const char *stats_dir, double *pruned_illegal, double *pruned_equiv,
                          uint64_t *flips);
/* The last line of each STATS_DIR/afl-NAME.log, as "NAME: seqfuzz: ...". */
void fz_afl_mutator_lines(const char *stats_dir, sf_buf *out);
/* RUN/contracts.txt: the stateful testing stage's report (contracts-*.txt in
 * stats_dir, one per process) learned from the most runs; none if none. */
void fz_best_contracts(const char *stats_dir, const char *run);
/* Crash inputs of every instance (SYNC/NAME/crashes/id*) not yet in
 * crashes, linked (or copied) there as NAME-id...; the queue the same way
 * into a corpus directory when queue is true. Returns how many were added. */
size_t fz_collect_afl(const char *sync_dir, const char *dest, bool queue);

#endif
