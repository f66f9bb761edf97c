/* session: a mail-submission session state machine (see session.h). */
#include "session.h"

#include <stdlib.h>
#include <string.h>

typedef struct account {
  char *user, *pass;
  int max_rcpt;
} account;

struct sess {
  sess_state state;
  account users[SESS_MAX_USERS];
  int nusers;
  size_t max_size;
  char domain[65];
  const account *who; /* the authenticated account, or NULL */
  unsigned committed;
  /* The open transaction (state SESS_MAIL). */
  char *from;
  char **rcpt; /* rcpt_cap slots, sized for the user's limit */
  size_t nrcpt, rcpt_cap;
  size_t limit; /* recipients allowed: the current user's max_rcpt */
  uint8_t *body;
  size_t body_len;
};

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

sess *sess_new(void) {
  sess *s = calloc(1, sizeof *s);
  if (s) s->max_size = 4096;
  return s;
}

/* Drops the open transaction, if any. */
static void end_txn(sess *s) {
  for (size_t i = 0; i < s->nrcpt; i++)
    free(s->rcpt[i]);
  free(s->rcpt);
  free(s->from);
  free(s->body);
  s->rcpt = NULL;
  s->from = NULL;
  s->body = NULL;
  s->nrcpt = s->rcpt_cap = s->body_len = 0;
}

void sess_free(sess *s) {
  if (!s) return;
  end_txn(s);
  for (int i = 0; i < s->nusers; i++) {
    free(s->users[i].user);
    free(s->users[i].pass);
  }
  free(s);
}

int sess_add_user(sess *s, const char *user, const char *pass, int max_rcpt) {
  if (s->state != SESS_INIT) return SESS_EBADSTATE;
  if (!user || !pass || !*user || strlen(user) > 32 || max_rcpt < 1 || max_rcpt > SESS_MAX_RCPT)
    return SESS_EINVAL;
  account *a = NULL;
  for (int i = 0; i < s->nusers; i++)
    if (strcmp(s->users[i].user, user) == 0) a = &s->users[i];
  if (!a && s->nusers == SESS_MAX_USERS) return SESS_ELIMIT;
  char *u = dup_str(user), *p = dup_str(pass);
  if (!u || !p) {
    free(u);
    free(p);
    return SESS_ENOMEM;
  }
  if (a) {
    free(a->user);
    free(a->pass);
  } else {
    a = &s->users[s->nusers++];
  }
  *a = (account){u, p, max_rcpt};
  return SESS_OK;
}

int sess_set_max_size(sess *s, size_t bytes) {
  if (s->state != SESS_INIT) return SESS_EBADSTATE;
  if (bytes < 1 || bytes > 65536) return SESS_EINVAL;
  s->max_size = bytes;
  return SESS_OK;
}

int sess_hello(sess *s, const char *domain) {
  if (s->state != SESS_INIT) return SESS_EBADSTATE;
  if (!domain) return SESS_EINVAL;
  size_t n = strlen(domain);
  if (n < 1 || n > 64) return SESS_EINVAL;
  for (size_t i = 0; i < n; i++) {
    char c = domain[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '-'))
      return SESS_EINVAL;
  }
  memcpy(s->domain, domain, n + 1);
  s->state = SESS_READY;
  return SESS_OK;
}

int sess_auth(sess *s, const char *user, const char *pass) {
  if (s->state != SESS_READY && s->state != SESS_AUTHED && s->state != SESS_MAIL)
    return SESS_EBADSTATE;
  if (!user || !pass) return SESS_EINVAL;
  const account *a = NULL;
  for (int i = 0; i < s->nusers; i++)
    if (strcmp(s->users[i].user, user) == 0 && strcmp(s->users[i].pass, pass) == 0)
      a = &s->users[i];
  if (!a) return SESS_EAUTH;
  if (s->state == SESS_MAIL) {
    /* The transaction goes on under the new user's limit. */
#ifdef SEARCH_NO_BUGS
    if ((size_t)a->max_rcpt > s->rcpt_cap) {
      char **r = realloc(s->rcpt, (size_t)a->max_rcpt * sizeof *r);
      if (!r) return SESS_ENOMEM;
      s->rcpt = r;
      s->rcpt_cap = (size_t)a->max_rcpt;
    }
#endif
    s->limit = (size_t)a->max_rcpt;
  }
  s->who = a;
  if (s->state == SESS_READY) s->state = SESS_AUTHED;
  return SESS_OK;
}

/* local@domain: exactly one '@', neither first nor last. */
static int valid_address(const char *a) {
  if (!a) return 0;
  const char *at = strchr(a, '@');
  return at && at != a && at[1] && !strchr(at + 1, '@');
}

int sess_mail(sess *s, const char *from) {
  if (s->state != SESS_AUTHED) return SESS_EBADSTATE;
  if (!valid_address(from)) return SESS_EINVAL;
  size_t cap = (size_t)s->who->max_rcpt;
  s->rcpt = calloc(cap, sizeof *s->rcpt);
  s->from = dup_str(from);
  if (!s->rcpt || !s->from) {
    end_txn(s);
    return SESS_ENOMEM;
  }
  s->rcpt_cap = s->limit = cap;
  s->state = SESS_MAIL;
  return SESS_OK;
}

int sess_rcpt(sess *s, const char *to) {
  if (s->state != SESS_MAIL) return SESS_EBADSTATE;
  if (!valid_address(to)) return SESS_EINVAL;
  for (size_t i = 0; i < s->nrcpt; i++)
    if (strcmp(s->rcpt[i], to) == 0) return 1;
  if (s->nrcpt >= s->limit) return SESS_ELIMIT;
  char *d = dup_str(to);
  if (!d) return SESS_ENOMEM;
  s->rcpt[s->nrcpt++] = d;
  return SESS_OK;
}

int sess_data(sess *s, const uint8_t *buf, size_t len) {
  if (s->state != SESS_MAIL || s->nrcpt == 0) return SESS_EBADSTATE;
  if (!buf && len) return SESS_EINVAL;
  if (len > s->max_size - s->body_len) return SESS_ELIMIT;
  if (!len) return SESS_OK;
  uint8_t *b = realloc(s->body, s->body_len + len);
  if (!b) return SESS_ENOMEM;
  memcpy(b + s->body_len, buf, len);
  s->body = b;
  s->body_len += len;
  return SESS_OK;
}

int sess_commit(sess *s) {
  if (s->state != SESS_MAIL || s->nrcpt == 0) return SESS_EBADSTATE;
  end_txn(s);
  s->state = SESS_AUTHED;
  return (int)++s->committed;
}

int sess_reset(sess *s) {
  if (s->state != SESS_READY && s->state != SESS_AUTHED && s->state != SESS_MAIL)
    return SESS_EBADSTATE;
  if (s->state == SESS_MAIL) {
    end_txn(s);
    s->state = SESS_AUTHED;
  }
  return SESS_OK;
}

int sess_quit(sess *s) {
  if (s->state == SESS_CLOSED) return SESS_EBADSTATE;
  end_txn(s);
  s->state = SESS_CLOSED;
  return SESS_OK;
}

sess_state sess_get_state(const sess *s) {
  return s->state;
}

size_t sess_rcpt_count(const sess *s) {
  return s->state == SESS_MAIL ? s->nrcpt : 0;
}
