/* config: a configuration store. Entries are string keys with string
 * values, set one by one or loaded from "key = value" text, read back raw or
 * typed, dumped, and applied: cfg_apply reads the well-known keys below and
 * builds the runtime settings the application queries (the render cache and
 * the log line format).
 *
 * Keys: 1..CFG_KEY_MAX characters from [a-z0-9._-]. Values: 0..CFG_VALUE_MAX
 * bytes, any character but NUL and newline.
 *
 * Well-known keys (read by cfg_apply; unset means the default):
 *   "render.cache.max_entries"  integer 1..64, the render cache's number of
 *                               slots (default 4)
 *   "render.cache.preload"      comma-separated names to load into the cache
 *                               at apply time, in order; each name is 1..15
 *                               characters from [A-Za-z0-9_-], blanks around
 *                               names are ignored, empty names are skipped, a
 *                               repeated name is loaded once, and names past the cache's capacity
 * are not loaded (default: empty) "log.output.line_prefix"    text put before every log line, at
 * most CFG_PREFIX_MAX characters (default "") "log.output.enabled"        boolean (default true)
 * Booleans are "true", "yes", "on", "1" and "false", "no", "off", "0".
 *
 * Memory: the store owns its entries; strings it returns are borrowed unless
 * stated otherwise. */
#ifndef CONFIG_H
#define CONFIG_H

#include <stddef.h>
#include <stdint.h>

typedef struct cfg cfg_t;

#define CFG_KEY_MAX    63
#define CFG_VALUE_MAX  255
#define CFG_PREFIX_MAX 31
#define CFG_NAME_MAX   15

/* An empty store, or NULL when out of memory. */
cfg_t *cfg_new(void);

/* Frees the store and everything it returned. NULL is a no-op. */
void cfg_free(cfg_t *c);

/* Sets key to a copy of value, replacing an earlier value. Returns 0, or -1
 * (the store unchanged) if the key or the value is not valid (see above) or
 * when out of memory. */
int cfg_set(cfg_t *c, const char *key, const char *value);

/* The value of key, or NULL when it is not set. The string belongs to the
 * store and stays valid until the next cfg_set, cfg_unset or cfg_load. */
const char *cfg_get(const cfg_t *c, const char *key);

/* The value of key as an integer (decimal, or hex after "0x", optionally
 * signed), or dflt when it is not set or is not such a number in the range of
 * int64_t. */
int64_t cfg_get_int(const cfg_t *c, const char *key, int64_t dflt);

/* The value of key as a boolean (1 or 0), or dflt when it is not set or is
 * not one of the boolean words. */
int cfg_get_bool(const cfg_t *c, const char *key, int dflt);

/* Removes key. Returns 1 if it was set, 0 if not. */
int cfg_unset(cfg_t *c, const char *key);

/* The number of keys set. */
size_t cfg_count(const cfg_t *c);

/* Reads len bytes of text: lines "key = value" (blanks around both are
 * ignored), blank lines, and comments starting with '#'. Each entry is set
 * as by cfg_set. Returns the number of entries set, or -1 at the first line
 * that is not valid (entries of the lines before it stay set). */
int cfg_load(cfg_t *c, const char *text, size_t len);

/* Every entry as "key = value\n" lines, sorted by key: a string the caller
 * frees with free(). NULL when out of memory. */
char *cfg_dump(const cfg_t *c);

/* Reads the well-known keys and builds the runtime settings: the render
 * cache (its slots, then the preloaded names) and the log line format.
 * Returns 0, or -1 if a well-known key's value is not valid (the settings
 * applied before stay in force) or when out of memory. Later changes to the
 * entries take effect at the next cfg_apply. */
int cfg_apply(cfg_t *c);

/* The applied render cache's number of slots (0 before the first successful
 * cfg_apply). */
int cfg_cache_capacity(const cfg_t *c);

/* The cache slot holding name, or -1 if name was not preloaded. */
int cfg_cache_slot(const cfg_t *c, const char *name);

/* Formats a log line, the applied prefix followed by msg, into buf as
 * snprintf does: at most cap - 1 characters and a NUL when cap > 0 (buf may
 * be NULL when cap is 0). Returns the line's length, or 0 when logging is
 * disabled (buf is then untouched). */
size_t cfg_format_log(const cfg_t *c, const char *msg, char *buf, size_t cap);

#endif
