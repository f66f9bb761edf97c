/* Helpers shared by the subcommands. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "mutator/mutate.h"

int cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("seqfuzz: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

sf_api *cli_load_api(const char *path) {
  static char err[8192];
  sf_api *api = sf_api_load(path, err, sizeof err);
  if (!api) fprintf(stderr, "%s\n", err);
  return api;
}

int cli_read_file(const char *path, sf_buf *out) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return cli_error("%s: cannot open file", path), -1;
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
    if (sf_buf_append(out, chunk, n)) {
      fclose(fp);
      return cli_error("%s: out of memory", path), -1;
    }
  }
  int bad = ferror(fp);
  fclose(fp);
  if (bad) return cli_error("%s: read error", path), -1;
  return 0;
}

int cli_write_file(const char *path, const void *data, size_t len) {
  FILE *fp = fopen(path, "wb");
  if (!fp) return cli_error("%s: cannot create file: %s", path, strerror(errno)), -1;
  size_t w = len ? fwrite(data, 1, len, fp) : 0;
  int werr = w == len ? 0 : errno ? errno : EIO;
  if (fclose(fp) != 0 && !werr) werr = errno ? errno : EIO;
  if (werr) return cli_error("%s: write error: %s", path, strerror(werr)), -1;
  return 0;
}

int cli_make_dirs(const char *path) {
  char *p = strdup(path);
  if (!p) return cli_error("out of memory"), -1;
  int err = 0;
  /* Each parent in turn, then the directory itself; one that exists is fine
   * as long as it is a directory (mkdir says EEXIST for a file too). */
  for (char *slash = p + 1;; slash++) {
    slash = strchr(slash, '/');
    if (slash) *slash = 0;
    struct stat st;
    if (mkdir(p, 0777) != 0) {
      if (errno != EEXIST)
        err = errno;
      else if (stat(p, &st) != 0)
        err = errno;
      else if (!S_ISDIR(st.st_mode))
        err = ENOTDIR;
      if (err) break;
    }
    if (!slash) break;
    *slash = '/';
  }
  free(p);
  if (err) return cli_error("%s: cannot create directory: %s", path, strerror(err)), -1;
  return 0;
}

int cli_load_seq(const sf_api *api, const char *path, sf_seq *out) {
  sf_buf b = {0};
  if (cli_read_file(path, &b)) return -1;
  int rc = 0;
  if (b.len >= 2 && b.data[0] == 'S' && (b.data[1] & ~SF_HEADER_OBSERVED) == SF_FORMAT_VERSION) {
    sf_decode_status st = sf_seq_decode(out, api, b.data, b.len);
    if (st == SF_DECODE_REJECT)
      rc = -cli_error("%s: not an input for API '%s' (fingerprint differs)", path, api->name);
    else if (st != SF_DECODE_OK)
      rc = -cli_error("%s: out of memory", path);
  } else {
    char err[1024];
    if (b.len == 0 ||
        sf_seq_parse_text(out, api, (const char *)b.data, b.len, path, err, sizeof err)) {
      /* Not text either: bytes from a fuzzer that are not a seqfuzz input
       * (an empty crash file, say). The harness ran the sequence the mutator
       * reads them as; so do we. */
      bool textual = b.len > 0;
      for (size_t i = 0; i < b.len && textual; i++)
        textual = b.data[i] == '\n' || b.data[i] == '\t' || (b.data[i] >= 0x20 && b.data[i] < 0x7f);
      sf_mutator *m = textual ? NULL : sf_mutator_new(api, NULL);
      if (m && sf_mutator_interpret(m, out, b.data, b.len) == 0) {
        fprintf(stderr,
                "seqfuzz: %s is not a seqfuzz input; using the sequence the harness "
                "runs for it (%u calls)\n",
                path, out->ncalls);
      } else {
        if (textual)
          fprintf(stderr, "%s\n", err);
        else
          cli_error("%s: out of memory", path);
        rc = -1;
      }
      sf_mutator_free(m);
    }
  }
  sf_buf_free(&b);
  return rc;
}

const char *cli_option(int argc, char **argv, const char *long_name, const char *short_name) {
  for (int i = 1; i + 1 < argc; i++)
    if ((long_name && strcmp(argv[i], long_name) == 0) ||
        (short_name && strcmp(argv[i], short_name) == 0))
      return argv[i + 1];
  return NULL;
}

int cli_positionals(int argc, char **argv, const char **out, int max) {
  int n = 0;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1]) {
      i++; /* every option takes a value */
      continue;
    }
    if (n < max) out[n] = argv[i];
    n++;
  }
  return n;
}

bool cli_take_flag(int *argc, char **argv, const char *name) {
  bool found = false;
  int n = 0;
  for (int i = 0; i < *argc; i++)
    if (strcmp(argv[i], name) == 0)
      found = true;
    else
      argv[n++] = argv[i];
  *argc = n;
  return found;
}
