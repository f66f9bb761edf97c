/* remote_client.c: the client of the solver server (see remote.h), used by
 * both engines; the AFL++ mutator links it without the solver itself. */
#define _GNU_SOURCE /* environ, pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/sf_hash.h"
#include "../base/sf_io.h"
#include "remote.h"

extern char **environ;

#define STEP_TIMEOUT_MS 120000 /* an attempt's child is killed after 60 s */
/* The budget is tightest at the start, when most entries come, and an entry
 * met then may be the only one that reaches a comparison (a checksum
 * checked before anything else): refused entries wait to be learnt. As
 * many as a start brings: with 32, the four entries of an AFL++ run that
 * reached checksum's guard, all among the first 87 (in 65 ms, before the
 * server could start), were pushed out, and the guard was never flipped in
 * 600 s. Bounded in bytes too: the oldest are pushed out first. */
#define WAITING_MAX   1024
#define WAITING_BYTES (8u << 20)

struct sf_solver_client {
  char *target;
  pid_t pid;
  int to, from; /* pipes to and from the server */
  uint32_t starts;
  time_t started;
  uint64_t cpu_before_us;             /* CPU of the servers that died */
  uint64_t cpu_us;                    /* the running server's, as last reported */
  uint64_t learn_before_us, learn_us; /* the same, of the CPU spent learning */
  /* The running server's CPU counted in the budget so far, by answers or
   * read from /proc between them (charge_learning); of it, as learning. */
  uint64_t charged_us, charged_learn_us;
  bool pending;          /* a step was asked for and not answered yet */
  uint32_t waits;        /* stage calls since, not yet answered */
  time_t asked;          /* when */
  int pipe_size;         /* capacity of the pipe to the server */
  bool incompatible;     /* the server answered in another protocol */
  double start_cost;     /* deferred: what its start-up costs, in seconds */
  sf_buf backlog;        /* deferred: 'O' frames observed before the start */
  sf_solver_hints hints; /* brought by answers, not taken yet */
  bool has_hints;
  uint64_t results[8]; /* hashes of the last results (a ring) */
  uint32_t nresults;
  /* Entries the budget could not pay to learn when they came, the newest
   * WAITING_MAX within WAITING_BYTES (a ring from waiting_first), learnt
   * when it can. */
  sf_buf waiting[WAITING_MAX];
  double waiting_cost[WAITING_MAX];
  uint32_t waiting_first, nwaiting;
  size_t waiting_bytes;
};

#define BACKLOG_MAX (512u << 10)

static void stop(sf_solver_client *c) {
  if (c->to >= 0) close(c->to);
  if (c->from >= 0) close(c->from);
  c->to = c->from = -1;
  if (c->pid > 0) {
    kill(c->pid, SIGKILL);
    while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR) {
    }
  }
  c->pid = -1;
  c->pending = false;
  c->cpu_before_us += c->cpu_us;
  c->cpu_us = 0;
  c->learn_before_us += c->learn_us;
  c->learn_us = 0;
}

static int start(sf_solver_client *c) {
  int to[2], from[2];
  if (pipe2(to, O_CLOEXEC)) return -1;
  if (pipe2(from, O_CLOEXEC)) {
    close(to[0]);
    close(to[1]);
    return -1;
  }
  /* The server's environment: ours, without the AFL++ feedback channel (it
   * is not the fuzzed target), with the serve switch. */
  size_t n = 0;
  while (environ[n])
    n++;
  char **env = calloc(n + 2, sizeof *env);
  int rc = -1;
  if (env) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
      if (strncmp(environ[i], "SEQFUZZ_SHM=", 12) && strncmp(environ[i], "__AFL_", 6))
        env[k++] = environ[i];
    env[k++] = SF_SOLVER_SERVE_ENV "=1";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from[1], 1);
    if (!getenv("SEQFUZZ_SOLVER_DEBUG"))
      posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {c->target, NULL};
    rc = posix_spawn(&c->pid, c->target, &fa, NULL, argv, env) ? -1 : 0;
    posix_spawn_file_actions_destroy(&fa);
    free(env);
  }
  close(to[0]);
  close(from[1]);
  if (rc) {
    close(to[1]);
    close(from[0]);
    c->pid = -1;
    return -1;
  }
  c->to = to[1];
  c->from = from[0];
  /* Room for a burst of new inputs while the server is busy (up to the
   * system's limit; the default 64 KiB otherwise). */
  (void)fcntl(c->to, F_SETPIPE_SZ, 1 << 20);
  c->pipe_size = fcntl(c->to, F_GETPIPE_SZ);
  c->starts++;
  c->started = time(NULL);
  c->charged_us = c->charged_learn_us = 0;
  return 0;
}

/* The running server's CPU time so far, as it counts it itself (its own and
 * its reaped children's), from /proc/PID/stat; 0 when it cannot tell. */
static uint64_t server_cpu_us(const sf_solver_client *c) {
  char path[64], text[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)c->pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return 0;
  text[n] = 0;
  const char *after_name = strrchr(text, ')'); /* the name may hold spaces */
  unsigned long long utime, stime;
  long long cutime, cstime;
  long hz = sysconf(_SC_CLK_TCK);
  /* Fields 3-13 skipped, then utime, stime, cutime, cstime (proc(5)). */
  if (!after_name || hz <= 0 ||
      sscanf(after_name + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld",
             &utime, &stime, &cutime, &cstime) != 4)
    return 0;
  long long ticks = (long long)(utime + stime) + cutime + cstime;
  return ticks > 0 ? (uint64_t)ticks * 1000000u / (uint64_t)hz : 0;
}

/* How far a CPU counter grew past *charged (0 if it did not); *charged
 * follows it. */
static uint64_t growth(uint64_t now, uint64_t *charged) {
  if (now <= *charged) return 0;
  uint64_t grew = now - *charged;
  *charged = now;
  return grew;
}

/* While no step is asked for, the server only learns: what its CPU time
 * grew by since last counted is learning, counted now rather than at an
 * answer that may be far off (a budget spent by the guesses asks for no
 * step, and no answer would ever correct them). */
static void charge_learning(sf_solver_client *c, sf_solver_budget *b) {
  if (c->pid <= 0 || c->pending) return;
  uint64_t grew = growth(server_cpu_us(c), &c->charged_us);
  sf_solver_budget_learnt(b, 1e-6 * (double)grew);
  c->charged_learn_us += grew;
}

sf_solver_client *sf_solver_client_start(const char *target) {
  signal(SIGPIPE, SIG_IGN); /* a dead server is noticed by the write failing */
  sf_solver_client *c = calloc(1, sizeof *c);
  if (!c || !(c->target = strdup(target))) {
    free(c);
    return NULL;
  }
  c->to = c->from = -1;
  if (start(c)) {
    sf_solver_client_free(c);
    return NULL;
  }
  return c;
}

sf_solver_client *sf_solver_client_deferred(const char *target, double start_cost) {
  signal(SIGPIPE, SIG_IGN);
  sf_solver_client *c = calloc(1, sizeof *c);
  if (!c || !(c->target = strdup(target))) {
    free(c);
    return NULL;
  }
  c->to = c->from = c->pid = -1;
  c->start_cost = start_cost;
  return c;
}

bool sf_solver_client_started(const sf_solver_client *c) {
  return c->starts > 0;
}

void sf_solver_client_free(sf_solver_client *c) {
  if (!c) return;
  stop(c);
  sf_buf_free(&c->backlog);
  for (uint32_t i = 0; i < WAITING_MAX; i++)
    sf_buf_free(&c->waiting[i]);
  free(c->target);
  free(c);
}

/* A frame in one write (the room it takes in the pipe is then predictable,
 * see fits), finished by sf_write_all if a signal cut it short. */
static int send_frame(sf_solver_client *c, uint8_t op, const void *p, uint32_t n) {
  if (c->to < 0) return -1;
  uint8_t head[5];
  head[0] = op;
  memcpy(head + 1, &n, 4);
  struct iovec iov[2] = {{head, sizeof head}, {(void *)p, n}};
  ssize_t k;
  do
    k = writev(c->to, iov, 2);
  while (k < 0 && errno == EINTR);
  if (k < 0) return -1;
  size_t done = (size_t)k;
  if (done < sizeof head && sf_write_all(c->to, head + done, sizeof head - done)) return -1;
  size_t body = done > sizeof head ? done - sizeof head : 0;
  return sf_write_all(c->to, (const uint8_t *)p + body, n - body);
}

/* The server died: start it again, unless it keeps dying at once. */
static int restart(sf_solver_client *c) {
  bool quick = time(NULL) - c->started < 2;
  stop(c);
  if ((quick && c->starts >= 3) || c->incompatible) return -1;
  return start(c);
}

/* Would a frame of n bytes fit in the pipe now? A server busy with a step
 * reads nothing; the engine must not wait for it, so an input that does
 * not fit is not sent (the solver learns from fewer inputs). A pipe holds
 * pages, and a write that does not fit in the last one starts a new one:
 * written in one piece each, frames fill at least half of the pages. */
static bool fits(const sf_solver_client *c, size_t n) {
  int queued = 0;
  if (c->pipe_size <= 0 || ioctl(c->to, FIONREAD, &queued)) return true; /* cannot tell */
  return (size_t)queued + n <= (size_t)c->pipe_size / 2;
}

void sf_solver_client_observe(sf_solver_client *c, const uint8_t *data, size_t size) {
  if (size > SF_SOLVER_MAX_FRAME) return;
  if (!c->starts) {
    if (c->backlog.len + size + 5 > BACKLOG_MAX) return;
    uint32_t n = (uint32_t)size;
    size_t len = c->backlog.len;
    if (sf_buf_append(&c->backlog, "O", 1) || sf_buf_append(&c->backlog, &n, 4) ||
        sf_buf_append(&c->backlog, data, size))
      c->backlog.len = len; /* out of memory: not kept */
    return;
  }
  if (c->pid < 0) return;
  if (!fits(c, size + 5)) return;
  if (send_frame(c, 'O', data, (uint32_t)size)) restart(c);
}

/* The oldest or the newest waiting entry. */
static uint32_t waiting_slot(const sf_solver_client *c, bool newest) {
  return (c->waiting_first + (newest ? c->nwaiting - 1 : 0)) % WAITING_MAX;
}

/* Forget the oldest or the newest waiting entry (learnt, or pushed out). */
static void drop_waiting(sf_solver_client *c, bool newest) {
  sf_buf *e = &c->waiting[waiting_slot(c, newest)];
  c->waiting_bytes -= e->len;
  sf_buf_free(e); /* not kept: a thousand slots' capacities would add up */
  if (!newest) c->waiting_first = (c->waiting_first + 1) % WAITING_MAX;
  c->nwaiting--;
}

void sf_solver_client_learn(sf_solver_client *c, sf_solver_budget *b, double cost,
                            const uint8_t *data, size_t size) {
  uint64_t h = sf_hash_bytes(data, size, 0);
  for (uint32_t i = 0; i < 8; i++)
    if (c->results[i] == h) {
      sf_solver_client_observe(c, data, size);
      return;
    }
  charge_learning(c, b);
  if (sf_solver_budget_learn(b, cost, c->starts ? 0 : c->start_cost)) {
    sf_solver_client_observe(c, data, size);
    return;
  }
  /* Kept to learn later, in the ring's next slot; the oldest make room. */
  if (size > WAITING_BYTES) return;
  while (c->nwaiting == WAITING_MAX || c->waiting_bytes + size > WAITING_BYTES)
    drop_waiting(c, false);
  uint32_t slot = (c->waiting_first + c->nwaiting++) % WAITING_MAX;
  if (sf_buf_append(&c->waiting[slot], data, size)) sf_buf_free(&c->waiting[slot]);
  c->waiting_bytes += c->waiting[slot].len;
  c->waiting_cost[slot] = cost;
}

/* The waiting entries the budget can pay for now, newest first: the
 * frontier is at the newest, and the oldest are learnt when the budget has
 * caught up (on checksum under AFL++, oldest first found the bug after
 * 15.5 s, the median of ten seeds side by side, newest first after 5.7 s). */
static void learn_waiting(sf_solver_client *c, sf_solver_budget *b) {
  charge_learning(c, b);
  while (c->nwaiting && sf_solver_budget_learn(b, c->waiting_cost[waiting_slot(c, true)], 0)) {
    sf_buf *e = &c->waiting[waiting_slot(c, true)];
    if (e->len) sf_solver_client_observe(c, e->data, e->len);
    drop_waiting(c, true);
  }
}

/* Ask for one step (the answer comes later, read_answer). */
static int ask_step(sf_solver_client *c) {
  uint32_t max = SF_SOLVER_MAX_FRAME;
  return send_frame(c, 'S', &max, 4);
}

void sf_solver_hints_add(sf_solver_hints *h, const uint64_t *consts, uint32_t n,
                         const uint64_t separators[4]) {
  for (uint32_t i = 0; i < n && h->nconsts < SF_SOLVER_MAX_HINTS; i++) {
    uint32_t k = 0;
    while (k < h->nconsts && h->consts[k] != consts[i])
      k++;
    if (k == h->nconsts) h->consts[h->nconsts++] = consts[i];
  }
  for (int w = 0; w < 4; w++)
    h->separators[w] |= separators[w];
}

void sf_solver_hints_add_args(sf_solver_hints *h, const sf_arg_hint *args, uint32_t n) {
  for (uint32_t i = 0; i < n && h->nargs < SF_SOLVER_MAX_HINTS; i++)
    h->args[h->nargs++] = args[i];
}

bool sf_solver_client_take_hints(sf_solver_client *c, sf_solver_hints *out) {
  if (!c || !c->has_hints) return false;
  *out = c->hints;
  memset(&c->hints, 0, sizeof c->hints);
  c->has_hints = false;
  return true;
}

/* The hints that end an answer, added to c's. */
static int read_hints(sf_solver_client *c) {
  sf_solver_hints h;
  if (sf_read_all(c->from, &h.nconsts, 4, STEP_TIMEOUT_MS) || h.nconsts > SF_SOLVER_MAX_HINTS ||
      sf_read_all(c->from, h.consts, h.nconsts * sizeof *h.consts, STEP_TIMEOUT_MS) ||
      sf_read_all(c->from, h.separators, sizeof h.separators, STEP_TIMEOUT_MS) ||
      sf_read_all(c->from, &h.nargs, 4, STEP_TIMEOUT_MS) || h.nargs > SF_SOLVER_MAX_HINTS ||
      sf_read_all(c->from, h.args, h.nargs * sizeof *h.args, STEP_TIMEOUT_MS))
    return -1;
  if (h.nconsts || h.nargs || h.separators[0] || h.separators[1] || h.separators[2] ||
      h.separators[3]) {
    sf_solver_hints_add(&c->hints, h.consts, h.nconsts, h.separators);
    sf_solver_hints_add_args(&c->hints, h.args, h.nargs);
    c->has_hints = true;
  }
  return 0;
}

/* The answer to a step: 1 and the result appended to out, 0 no result, -1
 * the answer was cut (the server died or hung). */
static int read_answer(sf_solver_client *c, sf_buf *out, sf_solver_stats *st) {
  uint32_t version, n;
  sf_solver_stats s;
  if (sf_read_all(c->from, &version, 4, STEP_TIMEOUT_MS)) return -1;
  if (version != SF_SOLVER_PROTOCOL) {
    fprintf(stderr, "seqfuzz: the solver server %s is of another seqfuzz version (rebuild it)\n",
            c->target);
    c->incompatible = true; /* no restart: it would answer the same */
    return -1;
  }
  if (sf_read_all(c->from, &n, 4, STEP_TIMEOUT_MS) || n > SF_SOLVER_MAX_FRAME ||
      sf_buf_reserve(out, n) ||
      (n && sf_read_all(c->from, out->data + out->len, n, STEP_TIMEOUT_MS)) ||
      sf_read_all(c->from, &s, sizeof s, STEP_TIMEOUT_MS) ||
      sf_read_all(c->from, &c->cpu_us, sizeof c->cpu_us, STEP_TIMEOUT_MS) ||
      sf_read_all(c->from, &c->learn_us, sizeof c->learn_us, STEP_TIMEOUT_MS) || read_hints(c))
    return -1;
  if (n) c->results[c->nresults++ % 8] = sf_hash_bytes(out->data + out->len, n, 0);
  out->len += n;
  if (st) *st = s;
  return n ? 1 : 0;
}

int sf_solver_client_step(sf_solver_client *c, sf_buf *out, sf_solver_stats *st) {
  if (c->pid < 0) return -1;
  c->pending = false;
  int rc = ask_step(c) ? -1 : read_answer(c, out, st);
  if (rc < 0) return restart(c) ? -1 : 0;
  return rc;
}

double sf_solver_client_cpu(const sf_solver_client *c) {
  return 1e-6 * (double)(c->cpu_before_us + c->cpu_us);
}

double sf_solver_client_learn_cpu(const sf_solver_client *c) {
  return 1e-6 * (double)(c->learn_before_us + c->learn_us);
}

static bool answer_ready(const sf_solver_client *c) {
  struct pollfd p = {.fd = c->from, .events = POLLIN};
  return poll(&p, 1, 0) > 0; /* readable, or the server is gone (read_answer finds out) */
}

static int gone(sf_solver_client **cp) {
  fprintf(stderr, "seqfuzz: the solver server keeps failing; going on without it\n");
  sf_solver_client_free(*cp);
  *cp = NULL;
  return -1;
}

/* Start a deferred server and send it what was observed so far (as much
 * as the pipe takes). */
static int start_deferred(sf_solver_client *c) {
  if (start(c)) return -1;
  for (size_t at = 0; at + 5 <= c->backlog.len;) {
    uint32_t n;
    memcpy(&n, c->backlog.data + at + 1, 4);
    sf_solver_client_observe(c, c->backlog.data + at + 5, n);
    at += 5 + (size_t)n;
  }
  sf_buf_free(&c->backlog);
  return 0;
}

int sf_solver_client_stage(sf_solver_client **cp, sf_solver_budget *b, sf_buf *out, size_t max_size,
                           sf_solver_stats *st) {
  sf_solver_client *c = *cp;
  if (!c) return 0;
  if (!c->starts) {
    if (!sf_solver_budget_affords(b, c->start_cost)) return 0;
    if (start_deferred(c)) {
      fprintf(stderr, "seqfuzz: cannot start the solver server %s; going on without it\n",
              c->target);
      sf_solver_client_free(c);
      *cp = NULL;
      return -1;
    }
  }
  if (!c->pending) {
    if (!sf_solver_budget_due(b)) return 0;
    learn_waiting(c, b); /* before the step, which may use them */
    if (c->pid < 0 || ask_step(c)) return restart(c) ? gone(cp) : 0;
    c->pending = true;
    c->waits = 0;
    c->asked = time(NULL);
    return 0;
  }
  /* Look for the answer every 16th mutation: a step takes many. */
  if (++c->waits % 16) return 0;
  if (!answer_ready(c)) {
    /* An attempt's child is killed after 60 s: a server silent for longer
     * is stuck. */
    if (time(NULL) - c->asked > STEP_TIMEOUT_MS / 1000) return restart(c) ? gone(cp) : 0;
    return 0;
  }
  c->pending = false;
  uint64_t attempts = st->attempts;
  size_t before = out->len;
  int rc = read_answer(c, out, st);
  if (rc < 0) return restart(c) ? gone(cp) : 0;
  /* The answer's times, less what charge_learning counted already. */
  uint64_t cpu = growth(c->cpu_us, &c->charged_us);
  uint64_t learn = growth(c->learn_us, &c->charged_learn_us);
  sf_solver_budget_spent(b, 1e-6 * (double)cpu, 1e-6 * (double)learn,
                         rc != 0 || st->attempts != attempts);
  sf_solver_budget_yield(b, st->attempts, st->confirmed);
  if (rc == 1 && out->len - before > max_size) {
    out->len = before;
    return 0;
  }
  return rc;
}
