/* The counts the jobs of a fork-mode campaign share (harness/campaign.h):
 * where the file goes, totals across jobs, and jobs that end side by side. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/campaign.h"
#include "test_util.h"

static void test_path_beside_the_features_dirs(void **state) {
  (void)state;
  char p[64];
  assert_int_equal(
      sf_campaign_path("/tmp/libFuzzerTemp.Fork1.dir/F3", SF_CAMPAIGN_COUNTS, p, sizeof p), 0);
  assert_string_equal(p, "/tmp/libFuzzerTemp.Fork1.dir/seqfuzz-campaign");
  assert_int_equal(sf_campaign_path("/tmp/x/F12/", SF_CAMPAIGN_OBSERVED, p, sizeof p), 0);
  assert_string_equal(p, "/tmp/x/seqfuzz-observed");
  assert_int_equal(sf_campaign_path("F3", SF_CAMPAIGN_COUNTS, p, sizeof p), 0);
  assert_string_equal(p, "seqfuzz-campaign");
  assert_int_equal(sf_campaign_path("/a/very/long/directory/name/that/does/not/fit/F1", "x", p, 16),
                   -1);
}

static void test_jobs_add_up(void **state) {
  (void)state;
  char dir[] = "/tmp/seqfuzz-campaign-XXXXXX", path[128];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/seqfuzz-campaign", dir);
  sf_campaign_counts c = sf_campaign_read(path); /* no file yet */
  assert_int_equal(c.solver_attempts, 0);
  assert_int_equal(c.solver_kept, 0);
  sf_campaign_counts one = {3, 1, 2500};
  assert_int_equal(sf_campaign_add(path, &one), 0);
  /* Sixteen jobs ending at once, each adding 10 attempts and 1 kept flip
   * 20 times: no addition is lost. */
  for (int j = 0; j < 16; j++) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
      sf_campaign_counts mine = {10, 1, 1000};
      for (int k = 0; k < 20; k++)
        if (sf_campaign_add(path, &mine)) _exit(1);
      _exit(0);
    }
  }
  for (int j = 0; j < 16; j++) {
    int status;
    assert_true(wait(&status) > 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  c = sf_campaign_read(path);
  assert_int_equal(c.solver_attempts, 3 + 16 * 20 * 10);
  assert_int_equal(c.solver_kept, 1 + 16 * 20);
  assert_int_equal(c.solver_ms, 2500 + 16 * 20 * 1000);
  /* A file that says something else reads as zeros, and is replaced. */
  FILE *f = fopen(path, "w");
  fputs("garbage that is longer than the counts ever were\n", f);
  fclose(f);
  c = sf_campaign_read(path);
  assert_int_equal(c.solver_attempts, 0);
  assert_int_equal(sf_campaign_add(path, &one), 0);
  c = sf_campaign_read(path);
  assert_int_equal(c.solver_attempts, 3);
  assert_int_equal(c.solver_kept, 1);
  assert_int_equal(sf_campaign_add("/nonexistent-dir/seqfuzz-campaign", &one), -1);
  unlink(path);
  rmdir(dir);
}

/* Jobs after jobs: each sees what the earlier ones added, and nothing twice;
 * jobs side by side lose nothing; a torn hash at the end is skipped. */
static void test_sets_follow_the_campaign(void **state) {
  (void)state;
  char dir[] = "/tmp/seqfuzz-campaign-XXXXXX", path[128];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/seqfuzz-observed", dir);
  sf_campaign_set *a = sf_campaign_set_open(path);
  assert_non_null(a);
  assert_false(sf_campaign_set_has(a, 42));
  for (uint64_t h = 0; h < 3000; h++) /* 0 included: kept as 1 */
    sf_campaign_set_add(a, h * 7919);
  sf_campaign_set_add(a, 7919); /* in already: not written again */
  assert_int_equal(sf_campaign_set_count(a), 3000);
  assert_true(sf_campaign_set_has(a, 2999 * 7919));
  assert_false(sf_campaign_set_has(a, 7920));
  sf_campaign_set_free(a);
  for (int j = 0; j < 8; j++) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
      sf_campaign_set *mine = sf_campaign_set_open(path);
      for (uint64_t h = 0; h < 500; h++)
        sf_campaign_set_add(mine, 1000000007ull * (uint64_t)(j + 1) + h);
      sf_campaign_set_free(mine);
      _exit(0);
    }
  }
  for (int j = 0; j < 8; j++) {
    int status;
    assert_true(wait(&status) > 0);
  }
  FILE *f = fopen(path, "a");
  fputs("torn", f); /* half a hash, as a job that died mid-write would leave */
  fclose(f);
  sf_campaign_set *b = sf_campaign_set_open(path);
  assert_int_equal(sf_campaign_set_count(b), 3000 + 8 * 500);
  assert_true(sf_campaign_set_has(b, 0));
  assert_true(sf_campaign_set_has(b, 1000000007ull * 8 + 499));
  sf_campaign_set_free(b);
  assert_false(sf_campaign_set_has(NULL, 1));
  unlink(path);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_path_beside_the_features_dirs),
                                     cmocka_unit_test(test_jobs_add_up),
                                     cmocka_unit_test(test_sets_follow_the_campaign)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
