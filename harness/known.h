/* known.h: known bugs, set aside so that a campaign goes on
 * (docs/workflow.md, "Known bugs").
 *
 * A shallow bug that crashes every few seconds takes a campaign over: in
 * fork mode each crash costs a restart, and deeper bugs surface only once
 * it is patched out by hand. A known bug is the minimized sequence of a
 * finding, generalized (`seqfuzz known`, simplifier/generalize.h): its calls
 * in order, the handles they share, and the argument values its crash
 * needs. In the text form, a comment line
 *
 *     # any: 2.1 3.2=4.2
 *
 * lists the arguments (CALL.ARG, both from 1) that may take any value
 * (a handle: any handle or NULL, mapped onto nothing of the pattern),
 * those that may take any value equal to another one's (a key put and then
 * deleted: CALL.ARG=CALL.ARG), and flags whose bits in a mask may take any
 * value (CALL.ARG~HEXMASK), and strings or buffers whose content does not
 * matter as long as they are at least LEN bytes long (CALL.ARG>=LEN: an
 * overflow on any long component). Every other non-handle argument must be equal
 * (a NaN equals any NaN); arguments the grammar fills in (lengths,
 * constants) are ignored.
 *
 * `C.A#LEN` asks for any content of exactly LEN bytes. A comment line
 * `# match: C.A REGEX` asks for a string or buffer whose bytes, whole, the
 * POSIX extended regular expression REGEX (the rest of the line) matches:
 * a bug that needs a construct cut short, any digits after a prefix, has
 * variants no exact bytes or length can state. In REGEX, `\xHH` is that
 * byte (`[\x80-\xbf]`: a UTF-8 continuation byte; not `\x00`: `[^a]`
 * matches a NUL, `.` does not). `# match: C.A@C.B REGEX` matches the bytes
 * from the offset that the same call's integer argument B gives (any
 * offset; none past the end): a matcher's first byte at its start offset.
 * `# nomatch: C.A REGEX` asks for bytes that REGEX does not match whole: a
 * subject that is not valid UTF-8. A comment line
 * `# has: C.A` asks for an array that holds each element of the pattern's
 * among any others (a NaN equals any NaN): a bug one element sets off,
 * whatever the array's length and other elements. A comment line
 * `# instead: CALL f g` names functions that may stand in for call CALL
 * (from 1): a run's call of f matches when the handles it takes map onto
 * those CALL takes (its `# any:` handles and NULLs aside), in order, each
 * of CALL's onto f's next handle of its type, else (types apart) onto f's
 * next handle; its other arguments are any. `# last: f g` is
 * the same for the last call: the bug is armed, and any of them sets it
 * off. A comment line `# given: 1 2` names calls, before the last, that only
 * make the handles the others take: a run need not make them, and any
 * handles stand for theirs (one to one, by root). A comment line
 * `# order: 2 1 3` names another order of the calls before
 * the last one (each once, from 1) in which the crash happens too.
 *
 * A file with no calls and a line `# signature: KIND in FUNC [WHICH]` sets
 * aside a finding of seqfuzz's own checks (harness/oracle.c: a round trip
 * that fails, an impure observer, a broken contract) by its signature, the
 * report's SUMMARY: such a bug, a printer's output its parser rejects, has
 * as many variants as there are documents that show it, and the check
 * tells it by its kind, not by a sequence. The check then reports nothing
 * and the run ends as one that would complete a known bug.
 *
 * A run matches a known bug at call ci when its calls so far contain the
 * pattern's calls as a subsequence whose last call is ci, of the same
 * functions, with the handle arguments mapped one to one onto the pattern's
 * by their roots (a handle made from another, a snapshot of a store, stands
 * for that one) and the values as above. The executor then stops before making call ci
 * (SF_RUN_KNOWN, harness/exec.h): the run is illegal, stays out of the
 * corpus, and the mutator never extends past that call. */
#ifndef SF_KNOWN_H
#define SF_KNOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../grammar/api.h"
#include "../sequence/seq.h"

typedef struct sf_known sf_known;

/* The patterns in the files DIR/\*.seq; an empty set when DIR holds none.
 * A file that does not parse is skipped: err then tells the first one
 * (`path:line:col: message`), else err is "". NULL with a message in err
 * when DIR cannot be opened, or on OOM. */
sf_known *sf_known_load(const sf_api *api, const char *dir, char *err, size_t errlen);
/* One pattern from its text (path names it in messages). -1 with err set. */
int sf_known_add_text(sf_known *k, const char *text, size_t len, const char *path, char *err,
                      size_t errlen);
sf_known *sf_known_new(const sf_api *api);
void sf_known_free(sf_known *k);
uint32_t sf_known_count(const sf_known *k);

/* Is a finding of seqfuzz's own checks with this signature ("KIND in FUNC
 * [WHICH]", as its report's SUMMARY line says after "seqfuzz: ") known? */
bool sf_known_signature(const sf_known *k, const char *signature);

/* A run starts: what sf_known_stops kept of the last run is forgotten. */
void sf_known_begin_run(const sf_known *k);
/* Would making call ci of s, after calls [0, ci), complete a known bug? The
 * calls of one run are checked in order, after sf_known_begin_run. */
bool sf_known_stops(const sf_known *k, const sf_seq *s, uint32_t ci);
/* Would a run of s be stopped, at some call, as completing a known bug?
 * (The whole sequence checked without running it; it begins a run.) */
bool sf_known_completes(const sf_known *k, const sf_seq *s);

#endif
