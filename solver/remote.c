/* remote.c: the solver server (see remote.h; the client is remote_client.c). */
#include "remote.h"

#include <string.h>
#include <sys/resource.h>

#include "../base/sf_io.h"

/* ---- server ---- */

static uint64_t usec(struct timeval t) {
  return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_usec;
}

/* This process's CPU time and its reaped children's (the attempts). */
static uint64_t cpu_used_us(void) {
  struct rusage self, kids;
  if (getrusage(RUSAGE_SELF, &self) || getrusage(RUSAGE_CHILDREN, &kids)) return 0;
  return usec(self.ru_utime) + usec(self.ru_stime) + usec(kids.ru_utime) + usec(kids.ru_stime);
}

/* This process's own CPU time (learning runs in it, attempts in children). */
static uint64_t self_cpu_us(void) {
  struct rusage self;
  if (getrusage(RUSAGE_SELF, &self)) return 0;
  return usec(self.ru_utime) + usec(self.ru_stime);
}

void sf_solver_serve(sf_solver *sv, int in, int out, sf_solver_observe_fn observe, void *ctx) {
  sf_buf data = {0}, result = {0};
  sf_solver_hints hints = {0};
  uint64_t learn_us = 0; /* CPU time spent learning inputs so far */
  for (;;) {
    uint8_t op;
    uint32_t len;
    if (sf_read_all(in, &op, 1, -1) || sf_read_all(in, &len, 4, -1) || len > SF_SOLVER_MAX_FRAME)
      break;
    sf_buf_reset(&data);
    if (sf_buf_reserve(&data, len) || sf_read_all(in, data.data, len, -1)) break;
    data.len = len;
    if (op == 'O') {
      uint64_t before = self_cpu_us();
      observe(ctx, data.data, data.len, &hints);
      learn_us += self_cpu_us() - before;
    } else if (op == 'S') {
      sf_buf_reset(&result);
      uint32_t max = 0;
      if (len >= 4) memcpy(&max, data.data, 4);
      int rc = sf_solver_step(sv, &result);
      uint32_t n = rc == 1 && result.len <= max ? (uint32_t)result.len : 0;
      sf_solver_stats st;
      sf_solver_get_stats(sv, &st);
      uint64_t cpu = cpu_used_us();
      uint32_t version = SF_SOLVER_PROTOCOL;
      if (sf_write_all(out, &version, 4) || sf_write_all(out, &n, 4) ||
          sf_write_all(out, result.data, n) || sf_write_all(out, &st, sizeof st) ||
          sf_write_all(out, &cpu, sizeof cpu) || sf_write_all(out, &learn_us, sizeof learn_us) ||
          sf_write_all(out, &hints.nconsts, 4) ||
          sf_write_all(out, hints.consts, hints.nconsts * sizeof *hints.consts) ||
          sf_write_all(out, hints.separators, sizeof hints.separators) ||
          sf_write_all(out, &hints.nargs, 4) ||
          sf_write_all(out, hints.args, hints.nargs * sizeof *hints.args))
        break;
      memset(&hints, 0, sizeof hints);
    } else {
      break;
    }
  }
  sf_buf_free(&data);
  sf_buf_free(&result);
}
