/* campaign.h: what the jobs of one fork-mode campaign share.
 *
 * libFuzzer's fork mode runs a campaign as a series of short jobs, a new
 * process every few seconds, and whatever a process learns ends with it. A
 * few things must follow the campaign instead, in files beside the jobs'
 * features directories (the parent's work directory):
 *
 * - counts: the solver's yield, so that a solver which never pays stops
 *   costing every job its full share (solver/budget.h). A job reads the
 *   totals when it starts and adds its own when it ends, under a lock,
 *   since the jobs of -fork=N end side by side. A job that dies (a crash)
 *   adds nothing.
 * - sets of input hashes: the corpus entries an earlier job observed (the
 *   generic checks and the per-call states: deterministic, and the costly
 *   part of a probe), so that each entry is observed once per campaign, as
 *   in one process, and not again by every job that loads it. Appended to
 *   as they grow; a job reads the set when it starts. */
#ifndef SF_CAMPAIGN_H
#define SF_CAMPAIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sf_campaign_counts {
  uint64_t solver_attempts; /* frontiers the solver tried */
  uint64_t solver_kept;     /* its flips the engine kept as new corpus entries */
  uint64_t solver_ms;       /* its CPU time, learning included, in milliseconds */
} sf_campaign_counts;

/* The campaign's file `name` for a job started with
 * -features_dir=features_dir, in path: DIR/name, DIR being features_dir's
 * parent. -1 when it does not fit. */
int sf_campaign_path(const char *features_dir, const char *name, char *path, size_t len);
#define SF_CAMPAIGN_COUNTS   "seqfuzz-campaign"
#define SF_CAMPAIGN_OBSERVED "seqfuzz-observed"
/* The totals of the jobs that ended before; zeros when there is no file
 * yet, or it cannot be read. */
sf_campaign_counts sf_campaign_read(const char *path);
/* Adds one job's counts to the totals. -1 when the file cannot be
 * written (the totals are then as they were). */
int sf_campaign_add(const char *path, const sf_campaign_counts *add);

/* A set of 64-bit hashes kept in a file (appended to, 8 bytes a hash). */
typedef struct sf_campaign_set sf_campaign_set;

/* The set in path as the earlier jobs left it (empty when there is no file
 * yet); NULL on OOM. Hashes added go to the file, if it can be written. */
sf_campaign_set *sf_campaign_set_open(const char *path);
bool sf_campaign_set_has(const sf_campaign_set *s, uint64_t hash);
/* Adds hash to the set and to its file (nothing if it is in already). */
void sf_campaign_set_add(sf_campaign_set *s, uint64_t hash);
uint32_t sf_campaign_set_count(const sf_campaign_set *s);
void sf_campaign_set_free(sf_campaign_set *s);

#endif
