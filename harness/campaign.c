#include "campaign.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int sf_campaign_path(const char *features_dir, const char *name, char *path, size_t len) {
  size_t n = strlen(features_dir);
  while (n > 1 && features_dir[n - 1] == '/')
    n--;
  const char *slash = NULL;
  for (size_t i = 0; i < n; i++)
    if (features_dir[i] == '/') slash = features_dir + i;
  /* "F3" alone: the parent is the current directory. */
  int w = slash ? snprintf(path, len, "%.*s/%s", (int)(slash - features_dir), features_dir, name)
                : snprintf(path, len, "%s", name);
  return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* The counts in the text at fd's start (zeros for what is missing). */
static sf_campaign_counts parse(int fd) {
  sf_campaign_counts c = {0, 0, 0};
  char buf[256];
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return c;
  buf[n] = 0;
  unsigned long long a, k, ms;
  if (sscanf(buf, "solver_attempts=%llu solver_kept=%llu solver_ms=%llu", &a, &k, &ms) == 3) {
    c.solver_attempts = a;
    c.solver_kept = k;
    c.solver_ms = ms;
  }
  return c;
}

sf_campaign_counts sf_campaign_read(const char *path) {
  sf_campaign_counts c = {0, 0, 0};
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return c;
  if (flock(fd, LOCK_SH) == 0) c = parse(fd);
  close(fd);
  return c;
}

int sf_campaign_add(const char *path, const sf_campaign_counts *add) {
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  int rc = -1;
  if (flock(fd, LOCK_EX) == 0) {
    sf_campaign_counts c = parse(fd);
    c.solver_attempts += add->solver_attempts;
    c.solver_kept += add->solver_kept;
    c.solver_ms += add->solver_ms;
    char buf[160];
    int n = snprintf(buf, sizeof buf, "solver_attempts=%llu solver_kept=%llu solver_ms=%llu\n",
                     (unsigned long long)c.solver_attempts, (unsigned long long)c.solver_kept,
                     (unsigned long long)c.solver_ms);
    if (pwrite(fd, buf, (size_t)n, 0) == n && ftruncate(fd, n) == 0) rc = 0;
  }
  close(fd); /* releases the lock */
  return rc;
}

/* ---- sets of hashes ---- */

struct sf_campaign_set {
  uint64_t *slot; /* open addressing; 0: free (a hash of 0 is kept as 1) */
  uint32_t cap, n;
  int fd; /* the file, appended to; -1: none */
};

static bool insert(sf_campaign_set *s, uint64_t h) {
  if ((s->n + 1) * 2 > s->cap) {
    uint32_t cap = s->cap ? s->cap * 2 : 1024;
    uint64_t *slot = calloc(cap, sizeof *slot);
    if (!slot) return false;
    for (uint32_t i = 0; i < s->cap; i++) {
      if (!s->slot[i]) continue;
      uint32_t j = (uint32_t)(s->slot[i] * 0x9E3779B97F4A7C15ull >> 32) & (cap - 1);
      while (slot[j])
        j = (j + 1) & (cap - 1);
      slot[j] = s->slot[i];
    }
    free(s->slot);
    s->slot = slot;
    s->cap = cap;
  }
  uint32_t j = (uint32_t)(h * 0x9E3779B97F4A7C15ull >> 32) & (s->cap - 1);
  while (s->slot[j]) {
    if (s->slot[j] == h) return false;
    j = (j + 1) & (s->cap - 1);
  }
  s->slot[j] = h;
  s->n++;
  return true;
}

sf_campaign_set *sf_campaign_set_open(const char *path) {
  sf_campaign_set *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  uint64_t buf[512];
  ssize_t got;
  /* Whole hashes only: another job may be appending one right now. */
  for (off_t at = 0; s->fd >= 0 && (got = pread(s->fd, buf, sizeof buf, at)) >= 8; at += got) {
    got -= got % 8;
    for (ssize_t i = 0; i < got / 8; i++)
      insert(s, buf[i] ? buf[i] : 1);
  }
  return s;
}

bool sf_campaign_set_has(const sf_campaign_set *s, uint64_t h) {
  if (!s || !s->cap) return false;
  h = h ? h : 1;
  uint32_t j = (uint32_t)(h * 0x9E3779B97F4A7C15ull >> 32) & (s->cap - 1);
  for (; s->slot[j]; j = (j + 1) & (s->cap - 1))
    if (s->slot[j] == h) return true;
  return false;
}

void sf_campaign_set_add(sf_campaign_set *s, uint64_t h) {
  h = h ? h : 1;
  /* One write of 8 bytes with O_APPEND: jobs that append side by side
   * never interleave within a hash. */
  if (s && insert(s, h) && s->fd >= 0 && write(s->fd, &h, sizeof h) != (ssize_t)sizeof h) {
    close(s->fd);
    s->fd = -1;
  }
}

uint32_t sf_campaign_set_count(const sf_campaign_set *s) {
  return s ? s->n : 0;
}

void sf_campaign_set_free(sf_campaign_set *s) {
  if (!s) return;
  if (s->fd >= 0) close(s->fd);
  free(s->slot);
  free(s);
}
