/* printf formats with their arguments (seq.h: sf_printf_parse). A `printf`
 * parameter's value is a format whose conversions carry their arguments in
 * braces, "%d{42} items of %.3s{abc}": one string the mutator can change
 * byte by byte, legal by construction because this parse keeps only
 * conversions whose arguments it can pass and turns every other '%' into a
 * literal "%%". */
#include <stdlib.h>
#include <string.h>

#include "seq.h"

/* Length modifier -> argument class: 'h' int-sized, 'l' 64-bit. */
static char length_class(const char *m, size_t n) {
  if (n == 0 || (n == 1 && m[0] == 'h') || (n == 2 && m[0] == 'h' && m[1] == 'h')) return 'h';
  if ((n == 1 && (m[0] == 'l' || m[0] == 'z' || m[0] == 'j' || m[0] == 't')) ||
      (n == 2 && m[0] == 'l' && m[1] == 'l'))
    return 'l';
  return 0;
}

static int put(sf_printf *out, const char *s, size_t n) {
  if (out->flen + n + 1 > sizeof out->format) return -1;
  memcpy(out->format + out->flen, s, n);
  out->flen += n;
  out->format[out->flen] = 0;
  return 0;
}

void sf_printf_parse(const uint8_t *s, size_t n, bool sqlite, sf_printf *out) {
  memset(out, 0, sizeof *out);
  size_t i = 0;
  while (i < n) {
    if (s[i] != '%') {
      size_t j = i;
      while (j < n && s[j] != '%')
        j++;
      if (put(out, (const char *)s + i, j - i)) return;
      i = j;
      continue;
    }
    /* % [flags] [width] [.precision] [length] conversion [{argument}] */
    size_t j = i + 1;
    while (j < n && s[j] && strchr(sqlite ? "-+ #0!," : "-+ #0", s[j]) && j - i < 6)
      j++;
    for (int d = 0; d < 2 && j < n && s[j] >= '0' && s[j] <= '9'; d++)
      j++;
    if (j < n && s[j] == '.') {
      j++;
      for (int d = 0; d < 2 && j < n && s[j] >= '0' && s[j] <= '9'; d++)
        j++;
    }
    size_t m0 = j;
    while (j < n && s[j] && strchr(sqlite ? "l" : "hlzjt", s[j]) && j - m0 < 2)
      j++;
    char cls = length_class((const char *)s + m0, j - m0);
    if (sqlite && cls == 'h' && j > m0) cls = 0; /* SQLite has no h, hh */
    char conv = j < n ? (char)s[j] : 0;
    char kind = 0;
    if (conv == '%' && j == i + 1) {
      if (put(out, "%%", 2)) return;
      i = j + 1;
      continue;
    }
    if (conv && cls && out->nargs < SF_PRINTF_MAX_ARGS) {
      if (strchr("dic", conv))
        kind = cls == 'l' && conv != 'c' ? 'l' : 'i';
      else if (strchr("ouxX", conv))
        kind = cls == 'l' ? 'L' : 'u';
      else if (strchr(sqlite ? "feEgG" : "fFeEgGaA", conv) && j - m0 == 0)
        kind = 'd';
      else if (strchr(sqlite ? "sqQw" : "s", conv) && j - m0 == 0)
        kind = 's';
    }
    if (!kind) { /* not one we pass: a literal '%' */
      if (put(out, "%%", 2)) return;
      i++;
      continue;
    }
    if (put(out, (const char *)s + i, j + 1 - i)) return;
    i = j + 1;
    sf_printf_arg *a = &out->args[out->nargs++];
    a->kind = kind;
    memcpy(a->mod, s + m0, j - m0 < 2 ? j - m0 : 2);
    /* The argument: {text} right after the conversion, else zero or "". */
    const uint8_t *arg = (const uint8_t *)"";
    size_t alen = 0;
    if (i < n && s[i] == '{') {
      const uint8_t *close = memchr(s + i + 1, '}', n - i - 1);
      if (close) {
        arg = s + i + 1;
        alen = (size_t)(close - arg);
        i = (size_t)(close - s) + 1;
      }
    }
    char num[64];
    size_t k = alen < sizeof num - 1 ? alen : sizeof num - 1;
    memcpy(num, arg, k);
    num[k] = 0;
    if (kind == 's') {
      a->str = (const char *)arg;
      a->len = alen;
    } else if (kind == 'd') {
      a->d = strtod(num, NULL);
    } else {
      a->bits = (uint64_t)strtoll(num, NULL, 0);
      if ((kind == 'u' || kind == 'L') && num[0] != '-') a->bits = strtoull(num, NULL, 0);
    }
  }
}
