/* session: the server side of a small mail-submission session (SMTP-like),
 * as a state machine driven by the calls a protocol parser would make.
 *
 * STATES
 *   SESS_INIT    after sess_new: configuration (sess_add_user,
 *                sess_set_max_size) is allowed only here.
 *   SESS_READY   after sess_hello: the client has greeted.
 *   SESS_AUTHED  after a successful sess_auth, and after a transaction ends
 *                (sess_commit, sess_reset).
 *   SESS_MAIL    in a transaction, after sess_mail: recipients (sess_rcpt)
 *                and the body (sess_data) are collected until sess_commit.
 *   SESS_CLOSED  after sess_quit: every call but the observers and sess_free
 *                fails.
 * Every function may be called in any state: a call the current state does
 * not allow fails with SESS_EBADSTATE and changes nothing. A failed call
 * never changes the state.
 *
 * Every `s` must be a live session from sess_new (not NULL). Strings are
 * copied; the caller keeps ownership of everything it passes. */
#ifndef SESSION_H
#define SESSION_H

#include <stddef.h>
#include <stdint.h>

typedef struct sess sess;

typedef enum sess_state {
  SESS_INIT = 0,
  SESS_READY = 1,
  SESS_AUTHED = 2,
  SESS_MAIL = 3,
  SESS_CLOSED = 4
} sess_state;

#define SESS_OK        0
#define SESS_EBADSTATE -1 /* not allowed in the current state */
#define SESS_EINVAL    -2 /* a malformed argument (NULL, empty, bad syntax) */
#define SESS_EAUTH     -3 /* unknown user or wrong password */
#define SESS_ELIMIT    -4 /* a configured limit would be exceeded */
#define SESS_ENOMEM    -5

#define SESS_MAX_USERS 8
#define SESS_MAX_RCPT  32 /* the largest per-user recipient limit */

/* A new session in SESS_INIT (no users, messages of at most 4096 bytes), or
 * NULL when out of memory. Free it with sess_free. */
sess *sess_new(void);
/* Frees s, in any state (an open transaction is dropped). NULL is ignored. */
void sess_free(sess *s);

/* SESS_INIT only. Adds an account: user (1 to 32 bytes) authenticates with
 * pass and may name up to max_rcpt (1 to SESS_MAX_RCPT) recipients per
 * message. An existing user's account is replaced. 0, or SESS_EBADSTATE,
 * SESS_EINVAL, SESS_ELIMIT (SESS_MAX_USERS accounts already), SESS_ENOMEM. */
int sess_add_user(sess *s, const char *user, const char *pass, int max_rcpt);
/* SESS_INIT only. The largest message body, 1 to 65536 bytes. 0, or
 * SESS_EBADSTATE, SESS_EINVAL. */
int sess_set_max_size(sess *s, size_t bytes);

/* SESS_INIT -> SESS_READY. domain: 1 to 64 of [A-Za-z0-9.-]. 0, or
 * SESS_EBADSTATE, SESS_EINVAL. */
int sess_hello(sess *s, const char *domain);
/* SESS_READY, SESS_AUTHED or SESS_MAIL. Authenticates as user. From
 * SESS_READY the session goes to SESS_AUTHED; otherwise the state stays: a
 * client may re-authenticate at any time, even inside a transaction, which
 * then continues under the new user, whose recipient limit applies to it
 * from then on (recipients already accepted are kept). 0, or
 * SESS_EBADSTATE, SESS_EINVAL, SESS_EAUTH. */
int sess_auth(sess *s, const char *user, const char *pass);

/* SESS_AUTHED -> SESS_MAIL: opens a transaction from the address `from`
 * (local@domain: one '@', not first nor last). 0, or SESS_EBADSTATE,
 * SESS_EINVAL, SESS_ENOMEM. */
int sess_mail(sess *s, const char *from);
/* SESS_MAIL. Adds a recipient (an address as for sess_mail): 0 when added,
 * 1 when it was already a recipient (nothing added), or SESS_EBADSTATE,
 * SESS_EINVAL, SESS_ELIMIT (the user's recipient limit reached),
 * SESS_ENOMEM. */
int sess_rcpt(sess *s, const char *to);
/* SESS_MAIL with at least one recipient. Appends len bytes to the body. 0,
 * or SESS_EBADSTATE, SESS_EINVAL (buf NULL with len > 0), SESS_ELIMIT (the
 * body would exceed the maximum size), SESS_ENOMEM. */
int sess_data(sess *s, const uint8_t *buf, size_t len);
/* SESS_MAIL with at least one recipient -> SESS_AUTHED: the message is
 * accepted. Its number (1, 2, ...), or SESS_EBADSTATE. */
int sess_commit(sess *s);
/* SESS_READY, SESS_AUTHED or SESS_MAIL: drops an open transaction
 * (SESS_MAIL -> SESS_AUTHED; otherwise the state stays). 0, or
 * SESS_EBADSTATE. */
int sess_reset(sess *s);
/* Any state but SESS_CLOSED -> SESS_CLOSED (an open transaction is
 * dropped). 0, or SESS_EBADSTATE. */
int sess_quit(sess *s);

/* Observers, any state. */
sess_state sess_get_state(const sess *s);
/* The recipients of the open transaction (0 outside one). */
size_t sess_rcpt_count(const sess *s);

#endif
