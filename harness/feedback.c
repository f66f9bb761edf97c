#include "feedback.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../base/sf_clock.h"
#include "../base/sf_hash.h"

uint64_t sf_feedback_input_hash(const uint8_t *data, size_t size) {
  return sf_hash_bytes(data, size, 0x5eedf00d);
}

static void record_state(sf_exec *x, sf_feedback *fb, uint32_t vid) {
  uint64_t st = 0;
  if (sf_exec_observe(x, vid, &st) != 0) st = 0;
  fb->state[vid] = st;
}

/* At the end of the run: the state of every value still alive. Extension
 * appends calls at the end, so this is the state a reused value has. */
static void before_cleanup(void *ctx, sf_exec *x, const sf_seq *s) {
  sf_feedback *fb = ctx;
  uint32_t n = s->nvals < SF_FB_MAX_VALUES ? s->nvals : SF_FB_MAX_VALUES;
  /* The generic contracts hold on every live value (exec.h): checked first,
   * so an observer's side effect that happens once is seen. */
  for (uint32_t v = 0; v < s->nvals; v++)
    sf_exec_check_value(x, v);
  for (uint32_t v = 0; v < n; v++)
    record_state(x, fb, v);
  fb->nvalues = n;
}

/* Recording calls (sf_feedback_run_calls): the hooks' context. */
typedef struct call_recorder {
  sf_feedback *fb;
  uint32_t first; /* fb->obs index of the current call's first observation */
} call_recorder;

/* Observe value vid for call ci: new entries (pre) or the call's own
 * entries for that slot (post). */
static double call_observation_seconds;

double sf_feedback_call_observation_seconds(void) {
  return call_observation_seconds;
}

static void observe_slot(sf_exec *x, call_recorder *r, uint32_t ci, uint8_t slot, uint32_t vid,
                         bool post) {
  sf_feedback *fb = r->fb;
  int64_t vals[SF_FB_MAX_OBSERVERS];
  uint64_t known;
  double began = sf_seconds_now();
  int n = sf_exec_observe_values(x, vid, vals, &known, SF_FB_MAX_OBSERVERS);
  call_observation_seconds += sf_seconds_now() - began;
  if (n > SF_FB_MAX_OBSERVERS) n = SF_FB_MAX_OBSERVERS;
  for (int k = 0; k < n; k++) {
    if (!(known >> k & 1)) continue;
    sf_fb_obs *o = NULL;
    if (post)
      for (uint32_t e = r->first; e < fb->nobs && !o; e++)
        if (fb->obs[e].slot == slot && fb->obs[e].observer == k) o = &fb->obs[e];
    if (!o) {
      if (fb->nobs >= SF_FB_MAX_OBS) return;
      o = &fb->obs[fb->nobs++];
      memset(o, 0, sizeof *o);
      o->call = (uint16_t)ci;
      o->slot = slot;
      o->observer = (uint8_t)k;
      o->vid = vid;
    }
    if (post) {
      o->post = vals[k];
      o->known |= SF_OBS_POST;
    } else {
      o->pre = vals[k];
      o->known |= SF_OBS_PRE;
    }
  }
}

static void record_before_call(void *ctx, sf_exec *x, const sf_seq *s, uint32_t ci) {
  call_recorder *r = ctx;
  const sf_func *f = sf_seq_func(s, ci);
  const sf_arg *a = sf_seq_args(s, ci);
  r->first = r->fb->nobs;
  if (ci > UINT16_MAX) return;
  for (uint32_t i = 0; i < f->nparams && i < SF_OBS_RESULT; i++) {
    const sf_param *p = &f->params[i];
    if (p->kind == SF_HANDLE && sf_param_is_input(p) && a[i].bits != SF_NULL_REF)
      observe_slot(x, r, ci, (uint8_t)i, (uint32_t)a[i].bits, false);
  }
}

static void record_after_call(void *ctx, sf_exec *x, const sf_seq *s, const sf_call_outcome *o) {
  call_recorder *r = ctx;
  if (!o->made || o->call > UINT16_MAX) return;
  const sf_func *f = sf_seq_func(s, o->call);
  const sf_arg *a = sf_seq_args(s, o->call);
  uint32_t vid = s->calls[o->call].val0;
  if (f->ret.kind == SF_HANDLE) {
    if (!o->failed) observe_slot(x, r, o->call, SF_OBS_RESULT, vid, true);
    vid++;
  }
  for (uint32_t i = 0; i < f->nparams && i < SF_OBS_RESULT; i++) {
    const sf_param *p = &f->params[i];
    if (p->kind != SF_HANDLE) continue;
    if (p->flags & SF_P_OUT) {
      if (!o->failed) observe_slot(x, r, o->call, (uint8_t)i, vid, true);
      vid++;
    } else if (a[i].bits != SF_NULL_REF) {
      observe_slot(x, r, o->call, (uint8_t)i, (uint32_t)a[i].bits, true); /* dead: skipped */
    }
  }
}

static void record_before_cleanup(void *ctx, sf_exec *x, const sf_seq *s) {
  before_cleanup(((call_recorder *)ctx)->fb, x, s);
}

/* A run filling fb: observed (states recorded) or plain; with record_calls,
 * observed and recording calls. */
static sf_run_status run_recorded(sf_exec *x, const sf_seq *s, uint64_t input_hash, sf_feedback *fb,
                                  sf_after_call_fn after_call, bool observe, bool record_calls,
                                  sf_run_result *result) {
  fb->magic = 0;
  fb->version = SF_FB_VERSION;
  fb->input_hash = input_hash;
  fb->nvalues = 0;
  /* The caller fills in comparisons, if it traces them. */
  fb->ncmp = fb->nanswer_cmp = fb->nbytes_cmp = fb->narg_cmp = 0;
  memset(fb->separators, 0, sizeof fb->separators);
  fb->new_edges = SF_FB_EDGES_UNKNOWN; /* and the edges, if it counts them */
  fb->ncalls = s->ncalls;
  fb->nobs = 0;
  sf_exec_hooks hooks = {fb, after_call, observe ? before_cleanup : NULL, NULL};
  call_recorder rec = {fb, 0};
  if (record_calls)
    hooks = (sf_exec_hooks){&rec, record_after_call, record_before_cleanup, record_before_call};
  sf_run_result r;
  sf_exec_run(x, s, after_call || observe || record_calls ? &hooks : NULL, &r);
  fb->status = r.status;
  fb->stop_call = sf_run_legal_calls(&r, s);
  fb->refused = r.refused;
  __atomic_store_n(&fb->magic, SF_FB_MAGIC, __ATOMIC_RELEASE);
  if (result) *result = r;
  return r.status;
}

sf_run_status sf_feedback_run(sf_exec *x, const sf_seq *s, uint64_t input_hash, sf_feedback *fb) {
  return run_recorded(x, s, input_hash, fb, NULL, true, false, NULL);
}

sf_run_status sf_feedback_run_calls(sf_exec *x, const sf_seq *s, uint64_t input_hash,
                                    sf_feedback *fb) {
  return run_recorded(x, s, input_hash, fb, NULL, true, true, NULL);
}

sf_run_status sf_feedback_replay(sf_exec *x, const sf_seq *s, uint64_t input_hash, sf_feedback *fb,
                                 sf_after_call_fn after_call, sf_run_result *result) {
  sf_run_status st = run_recorded(x, s, input_hash, fb, after_call, s->observed, false, result);
  if (s->observed) sf_exec_check_repeat(x, s); /* as the run that found it may have */
  return st;
}

bool sf_feedback_valid(const sf_feedback *fb, uint64_t input_hash) {
  return fb && __atomic_load_n(&fb->magic, __ATOMIC_ACQUIRE) == SF_FB_MAGIC &&
         fb->version == SF_FB_VERSION && fb->input_hash == input_hash &&
         fb->nvalues <= SF_FB_MAX_VALUES && fb->ncmp <= SF_FB_MAX_CMP &&
         fb->nanswer_cmp <= SF_FB_MAX_ANSWER_CMP && fb->nbytes_cmp <= SF_FB_MAX_BYTES_CMP &&
         fb->narg_cmp <= SF_FB_MAX_ARG_CMP && fb->stop_call <= fb->ncalls &&
         fb->ncalls <= SF_SEQ_MAX_CALLS && fb->nobs <= SF_FB_MAX_OBS;
}

struct sf_channel {
  sf_feedback *rec;
  char name[64];
  bool owner;
};

static sf_channel *map_region(const char *name, bool create) {
  int fd = shm_open(name, create ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0600);
  if (fd < 0) return NULL;
  if (create && ftruncate(fd, sizeof(sf_feedback)) != 0) {
    close(fd);
    shm_unlink(name);
    return NULL;
  }
  void *p = mmap(NULL, sizeof(sf_feedback), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    if (create) shm_unlink(name);
    return NULL;
  }
  sf_channel *c = calloc(1, sizeof *c);
  if (!c) {
    munmap(p, sizeof(sf_feedback));
    return NULL;
  }
  c->rec = p;
  c->owner = create;
  snprintf(c->name, sizeof c->name, "%s", name);
  return c;
}

sf_channel *sf_channel_create(void) {
  char name[64];
  for (int attempt = 0; attempt < 16; attempt++) {
    snprintf(name, sizeof name, "/seqfuzz-%d-%d", (int)getpid(), attempt);
    sf_channel *c = map_region(name, true);
    if (c) {
      setenv(SF_SHM_ENV, name, 1);
      return c;
    }
  }
  return NULL;
}

sf_channel *sf_channel_attach(void) {
  const char *name = getenv(SF_SHM_ENV);
  if (!name || name[0] != '/' || strlen(name) >= 64) return NULL;
  return map_region(name, false);
}

sf_feedback *sf_channel_record(sf_channel *c) {
  return c ? c->rec : NULL;
}

void sf_channel_close(sf_channel *c) {
  if (!c) return;
  munmap(c->rec, sizeof(sf_feedback));
  if (c->owner) shm_unlink(c->name);
  free(c);
}
