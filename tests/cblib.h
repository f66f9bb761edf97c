/* cblib: a box of small integers and bytes driven by callbacks, for the
 * callback, constant-parameter and field-read grammar features
 * (tests/callbacks.sh, tests/cblib.api). The library calls back the
 * application four ways, and each way hides one planted bug that only some
 * answers of the callback reach:
 *  - cb_sort's comparator: an insertion sort that trusts its sentinel runs
 *    below the array when the comparator contradicts itself (it said nothing
 *    is smaller than the first item, then says something is);
 *  - cb_read's reader: bytes spelling "BUG!" (split over chunks or not)
 *    make it write past its data block;
 *  - cb_pull's input (zlib inflateBack style: a count, and *buf pointed at
 *    the bytes): a chunk of exactly 7 bytes starting with 'Z' overruns the
 *    record it is copied into;
 *  - the hook (cb_set_hook), called by cb_tick and cb_box_free: an answer of
 *    exactly 42 makes cb_tick write one item past the array;
 *  - cb_seek's seek callback: positions whose sum is 1000003 and difference
 *    77 (500040 and 499963: two guards no random answer passes, for the
 *    solver) make it write one item past the array;
 *  - cb_reserve's allocator: when an allocation other than the first fails,
 *    the fallback on the box's own block writes as many bytes as were asked
 *    for (an out-of-memory path with an overflow).
 * The environment variable CBLIB_BUGS, when set, names the bugs that are on
 * ("read,pull": the others behave as fixed); built with -DCBLIB_NO_BUGS, the
 * library has none of them. */
#ifndef CBLIB_H
#define CBLIB_H

#include <stddef.h>

/* cb_box_new takes exactly this version string, and sizeof(cb_box). */
#define CBLIB_VERSION "cblib 1.0"

#define CB_NVALS 8  /* items in a box */
#define CB_DATA  64 /* bytes a box holds */
#define CB_CHUNK 16 /* the buffer cb_read hands its reader */

/* Says whether a sorts before b: < 0, 0 or > 0. */
typedef int (*cb_cmp)(void *ctx, int a, int b);
/* Fills up to size bytes of buf and sets *got to how many; returns 1 (more
 * to come), 0 (that was the last chunk) or -1 (an error). */
typedef int (*cb_read_fn)(void *ctx, unsigned char *buf, size_t size, size_t *got);
/* Points *buf at the next chunk and returns its length; 0 at the end. */
typedef unsigned (*cb_in_fn)(void *ctx, unsigned char **buf);
/* Told the box's count; answers 0 to 100 (ticks to add; 100 resets them). */
typedef unsigned char (*cb_hook_fn)(unsigned count);
/* Frees a label (cb_label). */
typedef void (*cb_free_fn)(void *p);
/* Answers a position: whence 1 the current one, 2 the end. */
typedef unsigned (*cb_seek_fn)(void *ctx, int whence);
/* Allocates size bytes, or NULL; cb_release_fn frees what it gave. */
typedef void *(*cb_alloc_fn)(size_t size);
typedef void (*cb_release_fn)(void *p);

/* I/O methods (a struct of function pointers): read is required, seek and
 * progress may be NULL. */
typedef struct cb_io {
  cb_read_fn read;
  cb_seek_fn seek;     /* or NULL: the size is not known */
  cb_hook_fn progress; /* or NULL; told the bytes so far, 100 cancels */
} cb_io;

/* Label destructors with a meaning of their own, as SQLITE_STATIC and
 * SQLITE_TRANSIENT: the label is static (kept as is), or transient (the box
 * keeps a copy). */
#define CB_STATIC    ((cb_free_fn)0)
#define CB_TRANSIENT ((cb_free_fn)-1)

typedef struct cb_box {
  unsigned count;      /* calls made on the box (cb_count reads it) */
  int *vals;           /* exactly CB_NVALS items */
  unsigned char *data; /* exactly CB_DATA bytes, len of them used */
  size_t len;
  cb_hook_fn hook;       /* or NULL */
  long ticks;            /* what the hook answered, since its last 100 (cb_ticks reads it) */
  char *label;           /* or NULL */
  cb_free_fn label_free; /* how the label goes */
  unsigned zrecords;     /* Z records cb_pull met */
} cb_box;

/* A new box holding CB_NVALS items (7, 6, ..., 0), or NULL when version is
 * not CBLIB_VERSION, size not sizeof(cb_box), or memory is short. */
cb_box *cb_box_new(const char *version, int size);
/* Calls the hook (if any) with the count, then frees b. */
void cb_box_free(cb_box *b);
/* Sorts the first n items (0 <= n <= CB_NVALS) as cmp says: 0, or -1. */
int cb_sort(cb_box *b, int n, cb_cmp cmp, void *ctx);
/* Appends what rd gives (CB_CHUNK bytes a call at most) until it sets *got
 * to 0 or returns 0, or the box is full: how many bytes, or -1 when rd
 * failed. */
int cb_read(cb_box *b, cb_read_fn rd, void *ctx);
/* Takes chunks from in until it returns 0 (at most 64 chunks): how many
 * bytes. A chunk of 7 bytes starting with 'Z' is a Z record. */
unsigned cb_pull(cb_box *b, cb_in_fn in, void *ctx);
/* Sets (or, with NULL, clears) the hook cb_tick and cb_box_free call. */
void cb_set_hook(cb_box *b, cb_hook_fn h);
/* Calls the hook with the count: what it answered (0 without a hook). */
int cb_tick(cb_box *b);
/* Labels the box; dtor is CB_STATIC, CB_TRANSIENT or frees label later:
 * 1 (the box keeps a copy: CB_TRANSIENT), 0 (it keeps label), or -1. */
int cb_label(cb_box *b, const char *label, cb_free_fn dtor);
/* Asks seek for the current position, then the end: end - position, or
 * -1 when the end comes first. */
int cb_seek(cb_box *b, cb_seek_fn seek, void *ctx);
/* Fills n (1 to 4) scratch blocks of size (1 to 256) bytes from alloc, each
 * released with release when filled: the bytes filled, or -1 when the first
 * allocation fails. A later failure falls back on the box's data block (at
 * most CB_DATA bytes of it). */
int cb_reserve(cb_box *b, int n, unsigned size, cb_alloc_fn alloc, cb_release_fn release);
/* Reads through io into the box, at most what is left of its data block
 * and, with io->seek, at most end - position: how many bytes, or -1 (no
 * io->read, or it failed). */
int cb_load(cb_box *b, const cb_io *io, void *ctx);
/* Item i (0 <= i < CB_NVALS; else 0). */
int cb_get(cb_box *b, int i);
/* The sum of the items. */
int cb_sum(cb_box *b);
/* The label's length (0 without one). */
int cb_label_len(cb_box *b);

#endif
