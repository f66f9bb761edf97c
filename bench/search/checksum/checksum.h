/* checksum: a tagged record codec for framed transports.
 *
 * A record (rec) holds up to REC_MAX_FIELDS fields, each under a distinct
 * tag (1..255) and holding either a 64-bit integer or up to REC_MAX_BYTES
 * bytes. rec_encode writes a record in the wire format below, as one frame,
 * and gives the frame's check word: a CRC-32 of the magic "REC1" followed
 * by the frame's length (4 bytes, little endian). A transport sends each
 * frame behind a header holding its length and check word, so that a
 * receiver can tell a header damaged in transit. rec_load reads a frame
 * back from the receiver's buffer.
 *
 * Wire format (integers little endian):
 *   magic "REC1" (the '1' is the format's version) | field count (1 byte)
 *   | fields
 *   field: tag (1 byte, not 0) | kind (1 byte, REC_INT or REC_BYTES)
 *          | length (2 bytes: 8 for REC_INT, at most REC_MAX_BYTES)
 *          | data (length bytes)
 *
 * Every function takes a valid (non-NULL) record unless stated otherwise.
 * Records are independent: no function keeps a pointer to a caller's
 * buffer. */
#ifndef CHECKSUM_H
#define CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#define REC_MAX_FIELDS 32
#define REC_MAX_BYTES  1024
#define REC_MAGIC      "REC1"
#define REC_HEADER_LEN 5 /* magic and field count */
#define REC_INT        0
#define REC_BYTES      1

typedef struct rec rec;

/* A new, empty record, or NULL when memory runs out. Freed with rec_free. */
rec *rec_new(void);

/* Frees r and its fields. NULL is a no-op. */
void rec_free(rec *r);

/* Adds the integer field `tag`. Returns 0, or -1 (r unchanged) if tag is 0,
 * r has a field `tag` already or r holds REC_MAX_FIELDS fields. */
int rec_add_int(rec *r, uint8_t tag, int64_t value);

/* Adds the bytes field `tag` with a copy of data[0..len). Returns 0, or -1
 * (r unchanged) if tag is 0, r has a field `tag` already, r is full,
 * len > REC_MAX_BYTES or memory runs out. data may be NULL when len is 0. */
int rec_add_bytes(rec *r, uint8_t tag, const uint8_t *data, size_t len);

/* Removes the field `tag`. Returns 0, or -1 if there is none. */
int rec_remove(rec *r, uint8_t tag);

/* Reads the integer field `tag` into *value. Returns 0, or -1 (*value
 * untouched) if there is no such field or it holds bytes. */
int rec_get_int(const rec *r, uint8_t tag, int64_t *value);

/* Copies the bytes field `tag` into buf (cap bytes). Returns its length, or
 * -1 if there is no such field, it holds an integer or it is longer than
 * cap (buf untouched). */
long rec_get_bytes(const rec *r, uint8_t tag, uint8_t *buf, size_t cap);

/* Number of fields of r. */
size_t rec_count(const rec *r);

/* Length of r's encoding. */
size_t rec_encoded_len(const rec *r);

/* Writes r's encoding into buf (cap bytes) and, when check is not NULL, the
 * frame's check word into *check. Returns the encoding's length, or -1 if
 * cap < rec_encoded_len(r) (buf and *check untouched). Fields are written in
 * the order they were added. */
long rec_encode(const rec *r, uint8_t *buf, size_t cap, uint32_t *check);

/* Decodes the frame at the start of buf (cap bytes received) and adds its
 * fields to r. frame_len and check are the frame's length and check word as
 * the transport header carried them (from the sender's rec_encode). Any
 * bytes, lengths and check words are allowed: a damaged, cut short or
 * malformed frame is rejected. Returns the number of fields added, or -1
 * (r unchanged) if check does not match frame_len (a damaged header), if
 * frame_len > cap (the frame was cut short), if buf[0..frame_len) is not a
 * well-formed encoding, if one of its tags is already in r (or twice in it),
 * or if r would hold more than REC_MAX_FIELDS fields. */
int rec_load(rec *r, const uint8_t *buf, size_t cap, uint32_t frame_len, uint32_t check);

#endif
