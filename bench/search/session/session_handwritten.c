/* A hand-written fuzz harness for session, written the usual OSS-Fuzz way: a
 * byte-driven switch over the API calls on up to two sessions. Every call is
 * legal in every state (a wrong state is an error return), so the harness
 * only keeps the sessions alive and draws the strings from small pools, so
 * that the names and passwords it configures are also the ones it logs in
 * with, and recipients repeat. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "session.h"

typedef struct input {
  const uint8_t *p;
  size_t n;
} input;

static uint8_t byte(input *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

static const char *const users[8] = {"alice", "bob", "carol", "dave", "eve", "", "root", "x"};
static const char *const passwords[4] = {"secret", "hunter2", "", "pw"};
static const char *const domains[4] = {"example.org", "mx-1.example.org", "bad domain", ""};
static const char *const addresses[16] = {"alice@example.org",
                                          "bob@example.org",
                                          "carol@example.net",
                                          "postmaster@localhost",
                                          "a@b",
                                          "x@y.z",
                                          "dave@example.org",
                                          "eve@example.org",
                                          "no-at-sign",
                                          "@example.org",
                                          "user@",
                                          "two@@example.org",
                                          "root@localhost",
                                          "list@lists.example",
                                          "c@d",
                                          "ops@example.com"};

static const char *pick(input *in, const char *const *pool, unsigned n) {
  return pool[byte(in) % n];
}

#define NSESS 2

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input in = {data, size};
  sess *ss[NSESS] = {0};
  uint8_t body[256];
  while (in.n) {
    uint8_t op = byte(&in) % 14;
    int i = byte(&in) % NSESS;
    if (op == 0) {
      if (!ss[i]) ss[i] = sess_new();
      continue;
    }
    sess *s = ss[i];
    if (!s) continue;
    switch (op) {
    case 1:
      sess_free(s);
      ss[i] = NULL;
      break;
    case 2: {
      const char *u = pick(&in, users, 8);
      const char *p = pick(&in, passwords, 4);
      sess_add_user(s, u, p, byte(&in) % 40);
      break;
    }
    case 3:
      sess_set_max_size(s, (size_t)byte(&in) << (byte(&in) % 9));
      break;
    case 4:
      sess_hello(s, pick(&in, domains, 4));
      break;
    case 5: {
      const char *u = pick(&in, users, 8);
      sess_auth(s, u, pick(&in, passwords, 4));
      break;
    }
    case 6:
      sess_mail(s, pick(&in, addresses, 16));
      break;
    case 7:
      sess_rcpt(s, pick(&in, addresses, 16));
      break;
    case 8: {
      size_t len = byte(&in);
      if (len > in.n) len = in.n;
      memcpy(body, in.p, len);
      in.p += len;
      in.n -= len;
      sess_data(s, body, len);
      break;
    }
    case 9:
      sess_commit(s);
      break;
    case 10:
      sess_reset(s);
      break;
    case 11:
      sess_quit(s);
      break;
    case 12:
      (void)sess_get_state(s);
      break;
    case 13:
      (void)sess_rcpt_count(s);
      break;
    }
  }
  for (int i = 0; i < NSESS; i++)
    sess_free(ss[i]);
  return 0;
}
