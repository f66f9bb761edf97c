/* seqfuzz report: a run directory (docs/workflow.md, "A run directory") as
 * one self-contained HTML page: inline CSS and SVG, no script, nothing loaded
 * from elsewhere (its Content-Security-Policy forbids it, so a browser says
 * so if anything ever tries). Every file of the run directory is optional:
 * a missing or unreadable one is said in its section, a malformed row is
 * skipped and counted, and the page is still written. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"

/* Files are read up to these sizes (a runaway log must not make a page of
 * gigabytes); what is cut is said. */
#define MAX_TABLE_BYTES (64u << 20) /* progress.tsv, findings.tsv */
#define MAX_TEXT_BYTES  (1u << 20)  /* a sequence, a reproducer, a report */
#define REPORT_LINES    40          /* lines of a sanitizer report shown */
#define MAX_PLOT_POINTS 2000        /* more rows are thinned for the plot */
#define DOT_POINTS      150         /* up to this many rows, dots with tooltips */

/* ---- the page being built ---- */

typedef struct page {
  sf_buf b;
  bool oom; /* sticky: checked once, at the end */
} page;

static void put_n(page *p, const char *s, size_t n) {
  if (!p->oom && sf_buf_append(&p->b, s, n)) p->oom = true;
}

static void put(page *p, const char *s) {
  put_n(p, s, strlen(s));
}

static void putf(page *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(page *p, const char *fmt, ...) {
  char small[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    put_n(p, small, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    p->oom = true;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  put_n(p, big, (size_t)n);
  free(big);
}

/* Length of a valid UTF-8 sequence at s (at most n bytes), 0 if invalid:
 * the page says it is UTF-8, and files hold whatever a library printed. */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t k;
  unsigned min;
  if (c >= 0xc2 && c <= 0xdf)
    k = 2, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef)
    k = 3, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4)
    k = 4, min = 0x10000;
  else
    return 0;
  if (k > n) return 0;
  unsigned cp = c & (0xff >> (k + 1));
  for (size_t i = 1; i < k; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return k;
}

/* Text (or an attribute value) from a file, escaped for HTML: the five
 * special characters, control bytes and invalid UTF-8 (as U+FFFD). */
static void esc_n(page *p, const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  size_t run = 0; /* start of the bytes copied as they are */
  for (size_t i = 0; i < n;) {
    unsigned c = u[i];
    const char *rep = NULL;
    size_t k = 1;
    if (c == '&')
      rep = "&amp;";
    else if (c == '<')
      rep = "&lt;";
    else if (c == '>')
      rep = "&gt;";
    else if (c == '"')
      rep = "&quot;";
    else if (c == '\'')
      rep = "&#39;";
    else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
      rep = "\xef\xbf\xbd";
    else if (c >= 0x80 && !(k = utf8_len(u + i, n - i)))
      rep = "\xef\xbf\xbd", k = 1;
    if (rep) {
      put_n(p, s + run, i - run);
      put(p, rep);
      run = i + k;
    }
    i += k;
  }
  put_n(p, s + run, n - run);
}

static void esc(page *p, const char *s) {
  esc_n(p, s, strlen(s));
}

/* A path for an href: bytes outside the unreserved set percent-encoded
 * ('/' kept), then escaped as an attribute by the caller's esc. */
static void url_path(page *p, const char *s) {
  char tmp[4];
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (isalnum(c) || strchr("-._~/", c))
      put_n(p, (const char *)&c, 1);
    else {
      snprintf(tmp, sizeof tmp, "%%%02X", c);
      put(p, tmp);
    }
  }
}

/* ---- reading the run directory ---- */

typedef enum { F_OK, F_MISSING, F_UNREADABLE } file_status;

static const char *status_text(file_status st) {
  return st == F_MISSING ? "missing" : "cannot be read";
}

/* Up to max bytes of DIR/NAME into out (NUL-terminated); *cut when there
 * was more. Silent: the caller says what is missing where it belongs. */
static file_status slurp(const char *dir, const char *name, size_t max, sf_buf *out, bool *cut) {
  char path[PATH_MAX];
  *cut = false;
  if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) return F_UNREADABLE;
  struct stat st;
  if (stat(path, &st) != 0) return errno == ENOENT ? F_MISSING : F_UNREADABLE;
  if (!S_ISREG(st.st_mode)) return F_UNREADABLE;
  FILE *fp = fopen(path, "rb");
  if (!fp) return F_UNREADABLE;
  char chunk[65536];
  size_t n;
  bool bad = false;
  while (!bad && (n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
    if (out->len + n > max) {
      n = max - out->len;
      *cut = true;
    }
    bad = sf_buf_append(out, chunk, n) != 0;
    if (*cut) break;
  }
  bad = bad || ferror(fp);
  fclose(fp);
  if (bad || !sf_buf_cstr(out)) return F_UNREADABLE;
  return F_OK;
}

/* The next line of [*p, end), without its '\n' (or "\r\n"); false at the end. */
static bool next_line(const char **p, const char *end, const char **line, size_t *len) {
  if (*p >= end) return false;
  const char *nl = memchr(*p, '\n', (size_t)(end - *p));
  const char *e = nl ? nl : end;
  *line = *p;
  *len = (size_t)(e - *p);
  if (*len && (*line)[*len - 1] == '\r') (*len)--;
  *p = nl ? nl + 1 : end;
  return true;
}

/* A whole field as a finite number. */
static bool parse_num(const char *s, size_t n, double *out) {
  char tmp[64];
  if (n == 0 || n >= sizeof tmp) return false;
  memcpy(tmp, s, n);
  tmp[n] = 0;
  char *end;
  errno = 0;
  double v = strtod(tmp, &end);
  if (*end || errno || !isfinite(v)) return false;
  *out = v;
  return true;
}

/* run.txt: key=value lines, kept in file order (values point into buf). */
typedef struct run_facts {
  file_status st;
  sf_buf buf;
  const char *key[64], *val[64];
  int n, malformed;
} run_facts;

static void read_run_txt(const char *dir, run_facts *r) {
  bool cut;
  r->st = slurp(dir, "run.txt", MAX_TEXT_BYTES, &r->buf, &cut);
  if (r->st != F_OK) return;
  char *s = (char *)r->buf.data, *end = s + r->buf.len;
  const char *line;
  size_t len;
  const char *p = s;
  while (next_line(&p, end, &line, &len)) {
    char *l = (char *)line;
    l[len] = 0; /* the '\n' (or '\r') it ended at, or the final NUL */
    if (!len || l[0] == '#') continue;
    char *eq = strchr(l, '=');
    if (!eq || eq == l || r->n == 64) {
      r->malformed++;
      continue;
    }
    *eq = 0;
    r->key[r->n] = l;
    r->val[r->n++] = eq + 1;
  }
}

static const char *fact(const run_facts *r, const char *key) {
  for (int i = r->n - 1; i >= 0; i--) /* the last one wins */
    if (strcmp(r->key[i], key) == 0) return r->val[i];
  return NULL;
}

static bool fact_num(const run_facts *r, const char *key, double *out) {
  const char *v = fact(r, key);
  return v && parse_num(v, strlen(v), out);
}

/* progress.tsv */
enum { C_ELAPSED, C_EXECS, C_EPS, C_CORPUS, C_EDGES, C_FINDINGS, C_PILL, C_PEQ, C_FLIPS, NCOL };
static const char *const col_names[NCOL] = {
    "elapsed_s",   "execs",    "execs_per_s",        "corpus",
    "edges",       "findings", "pruned_illegal_pct", "pruned_equiv_pct",
    "solver_flips"};

typedef struct prow {
  double v[NCOL]; /* NAN: not known ('-' or no such column) */
} prow;

typedef struct progress {
  file_status st;
  bool cut, no_elapsed;
  prow *rows;
  size_t n, cap;
  size_t malformed, out_of_order;
  bool eps_derived; /* execs/s computed from execs, the file had none */
} progress;

/* Fields separated by tabs or spaces (every field is a number or '-'). */
static int split_ws(const char *s, size_t n, const char **f, size_t *fl, int max) {
  int k = 0;
  size_t i = 0;
  while (i < n) {
    while (i < n && (s[i] == '\t' || s[i] == ' '))
      i++;
    if (i == n) break;
    size_t st = i;
    while (i < n && s[i] != '\t' && s[i] != ' ')
      i++;
    if (k < max) f[k] = s + st, fl[k] = i - st;
    k++;
  }
  return k;
}

static void read_progress(const char *dir, progress *pg) {
  sf_buf b = {0};
  pg->st = slurp(dir, "progress.tsv", MAX_TABLE_BYTES, &b, &pg->cut);
  if (pg->st != F_OK) {
    sf_buf_free(&b);
    return;
  }
  const char *p = (const char *)b.data, *end = p + b.len, *line;
  size_t len;
  int map[32]; /* column of the file -> known column, or -1 */
  int ncols = 0;
  bool header = false;
  double last_t = -1;
  while (next_line(&p, end, &line, &len)) {
    const char *f[32];
    size_t fl[32];
    int k = split_ws(line, len, f, fl, 32);
    if (k == 0) continue;
    if (!header) {
      header = true;
      double dummy;
      if (!parse_num(f[0], fl[0], &dummy) && !(fl[0] == 1 && f[0][0] == '-')) {
        /* The header names the columns: their order is read from it. */
        ncols = k > 32 ? 32 : k;
        bool has_elapsed = false;
        for (int i = 0; i < ncols; i++) {
          map[i] = -1;
          for (int c = 0; c < NCOL; c++)
            if (strlen(col_names[c]) == fl[i] && memcmp(col_names[c], f[i], fl[i]) == 0) map[i] = c;
          has_elapsed |= map[i] == C_ELAPSED;
        }
        if (!has_elapsed) {
          pg->no_elapsed = true;
          break;
        }
        continue;
      }
      /* No header: the documented order. */
      ncols = NCOL;
      for (int i = 0; i < NCOL; i++)
        map[i] = i;
    }
    if (k != ncols) {
      pg->malformed++;
      continue;
    }
    prow r;
    for (int c = 0; c < NCOL; c++)
      r.v[c] = NAN;
    bool ok = true;
    for (int i = 0; i < k && ok; i++) {
      double v = NAN;
      if (!(fl[i] == 1 && f[i][0] == '-')) ok = parse_num(f[i], fl[i], &v);
      if (map[i] >= 0) r.v[map[i]] = v;
    }
    for (int c = 0; c < NCOL && ok; c++)
      ok = !(r.v[c] < 0); /* no column can be negative */
    if (!ok || isnan(r.v[C_ELAPSED])) {
      pg->malformed++;
      continue;
    }
    /* Time runs forward: a row that goes back (two runs in one file, a
     * clock step) would draw the line backwards. */
    if (r.v[C_ELAPSED] < last_t) {
      pg->out_of_order++;
      continue;
    }
    last_t = r.v[C_ELAPSED];
    if (pg->n == pg->cap) {
      size_t cap = pg->cap ? pg->cap * 2 : 256;
      prow *nr = realloc(pg->rows, cap * sizeof *nr);
      if (!nr) {
        pg->cut = true;
        break;
      }
      pg->rows = nr;
      pg->cap = cap;
    }
    pg->rows[pg->n++] = r;
  }
  sf_buf_free(&b);
  /* No execs/s in the file: the rate between ticks, from execs. */
  bool any_eps = false;
  for (size_t i = 0; i < pg->n; i++)
    any_eps |= !isnan(pg->rows[i].v[C_EPS]);
  if (!any_eps)
    for (size_t i = 1; i < pg->n; i++) {
      const prow *a = &pg->rows[i - 1];
      prow *c = &pg->rows[i];
      double dt = c->v[C_ELAPSED] - a->v[C_ELAPSED];
      if (dt > 0 && !isnan(a->v[C_EXECS]) && !isnan(c->v[C_EXECS])) {
        c->v[C_EPS] = (c->v[C_EXECS] - a->v[C_EXECS]) / dt;
        pg->eps_derived = true;
      }
    }
}

/* ---- numbers ---- */

/* Short form for axis ticks: 950, 1.5k, 12k, 3.2M. */
static void fmt_short(double v, char *out, size_t n) {
  static const char *const suf[] = {"", "k", "M", "G", "T"};
  int s = 0;
  double a = fabs(v);
  while (a >= 1000 && s < 4)
    a /= 1000, v /= 1000, s++;
  if (v == floor(v))
    snprintf(out, n, "%.0f%s", v, suf[s]);
  else
    snprintf(out, n, "%.3g%s", v, suf[s]);
}

/* A count with thousands separators (1,234,567); other numbers as %g. */
static void fmt_count(double v, char *out, size_t n) {
  if (isnan(v)) {
    snprintf(out, n, "-");
    return;
  }
  if (v != floor(v) || fabs(v) >= 1e15) {
    snprintf(out, n, "%.4g", v);
    return;
  }
  char digits[32];
  snprintf(digits, sizeof digits, "%.0f", fabs(v));
  size_t len = strlen(digits), o = 0;
  if (v < 0 && o + 1 < n) out[o++] = '-';
  for (size_t i = 0; i < len && o + 2 < n; i++) {
    if (i && (len - i) % 3 == 0) out[o++] = ',';
    out[o++] = digits[i];
  }
  out[o] = 0;
}

static void fmt_duration(double s, char *out, size_t n) {
  if (!(s < 1e12)) { /* a nonsense time still prints (and is no overflow) */
    snprintf(out, n, "%.3g s", s);
    return;
  }
  if (s < 60) {
    snprintf(out, n, s == floor(s) ? "%.0f s" : "%.1f s", s);
    return;
  }
  long t = (long)(s + 0.5);
  long h = t / 3600, m = t / 60 % 60, sec = t % 60;
  if (h)
    snprintf(out, n, "%ld h %ld min %ld s", h, m, sec);
  else
    snprintf(out, n, "%ld min %ld s", m, sec);
}

static void fmt_time(double unix_s, char *out, size_t n) {
  bool sane = unix_s >= 0 && unix_s < 1e11; /* else the cast overflows */
  time_t t = sane ? (time_t)unix_s : 0;
  struct tm tm;
  if (!sane || !gmtime_r(&t, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
    snprintf(out, n, "%.0f", unix_s);
}

/* A step of 1, 2 or 5 times a power of ten giving about `want` ticks. */
static double nice_step(double range, int want) {
  if (!(range > 0)) return 1;
  double raw = range / want, mag = pow(10, floor(log10(raw))), f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* ---- plots ---- */

typedef struct series {
  const char *name, *cls; /* legend text, CSS class (its colour) */
  int col, right;         /* progress column; on the right axis */
} series;

#define PW 760.0 /* the SVG's coordinate size; it scales to the page width */
#define PL 64.0
#define PT 14.0
#define PB 46.0

static void axis_label(page *p, double x, double y, double rot, const char *text) {
  putf(p, "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\"", x, y);
  if (rot) putf(p, " transform=\"rotate(%.0f %.1f %.1f)\"", rot, x, y);
  put(p, ">");
  esc(p, text);
  put(p, "</text>\n");
}

/* One plot of some progress columns against elapsed time: axes with ticks
 * and labels, a path per series (gaps where a value is unknown), dots with
 * tooltips for short runs, and dashed marks where findings went up. */
static void plot(page *p, const progress *pg, const char *id, const char *title, double ph,
                 const series *s, int ns, const char *left_label, const char *right_label,
                 bool mark_findings) {
  bool two_axes = false;
  for (int i = 0; i < ns; i++)
    two_axes |= s[i].right;
  double pr = two_axes ? 64 : 20;
  double w = PW - PL - pr, h = ph - PT - PB;
  const prow *rows = pg->rows;
  size_t n = pg->n;
  double tmax = n ? rows[n - 1].v[C_ELAPSED] : 0;
  if (!(tmax > 0)) tmax = 1;
  /* Minutes or hours read better than thousands of seconds. */
  double unit = tmax > 7200 ? 3600 : tmax > 180 ? 60 : 1;
  const char *uname = unit == 3600 ? "h" : unit == 60 ? "min" : "s";
  double xstep = nice_step(tmax / unit, 6), xmax = tmax / unit;
  double ymax[2] = {0, 0};
  for (int i = 0; i < ns; i++)
    for (size_t r = 0; r < n; r++)
      if (rows[r].v[s[i].col] > ymax[s[i].right]) ymax[s[i].right] = rows[r].v[s[i].col];
  double ystep[2];
  for (int a = 0; a < 2; a++) {
    ystep[a] = nice_step(ymax[a] > 0 ? ymax[a] : 1, 5);
    if (ystep[a] < 1 && ymax[a] >= 5) ystep[a] = 1; /* counts: whole ticks */
    ymax[a] = ceil((ymax[a] > 0 ? ymax[a] : 1) / ystep[a]) * ystep[a];
  }
#define X(t)    (PL + (t) / unit / xmax * w)
#define Y(v, a) (PT + h - (v) / ymax[a] * h)
  putf(p, "<figure><figcaption>");
  esc(p, title);
  put(p, "</figcaption>\n<div class=\"legend\">");
  for (int i = 0; i < ns; i++) {
    size_t known = 0;
    for (size_t r = 0; r < n; r++)
      known += !isnan(rows[r].v[s[i].col]);
    putf(p, "<span class=\"key %s\"></span> ", s[i].cls);
    esc(p, s[i].name);
    if (two_axes) put(p, s[i].right ? " (right axis)" : " (left axis)");
    if (!known) put(p, " <em>(not recorded)</em>");
    put(p, " &nbsp; ");
  }
  if (mark_findings) put(p, "<span class=\"key findmark\"></span> a new finding");
  putf(p,
       "</div>\n<svg id=\"%s\" class=\"plot\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
       "xmlns=\"http://www.w3.org/2000/svg\">\n<title>",
       id, PW, ph);
  esc(p, title);
  put(p, "</title>\n");
  /* Horizontal grid and the left axis' ticks (the right axis' beside). */
  char lab[32];
  for (int a = 0; a < (two_axes ? 2 : 1); a++)
    for (double v = 0; v <= ymax[a] + ystep[a] / 2; v += ystep[a]) {
      double y = Y(v, a);
      if (a == 0)
        putf(p, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", PL, y,
             PL + w, y);
      fmt_short(v, lab, sizeof lab);
      putf(p,
           "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
           "<text class=\"tick-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
           a ? PL + w : PL - 4, y, a ? PL + w + 4 : PL, y, a ? PL + w + 6 : PL - 6, y + 4,
           a ? "start" : "end", lab);
    }
  for (double t = 0; t <= xmax + xstep / 1000; t += xstep) {
    double x = PL + t / xmax * w;
    fmt_short(t, lab, sizeof lab);
    putf(p,
         "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
         "<text class=\"tick-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
         x, PT + h, x, PT + h + 4, x, PT + h + 17, lab);
  }
  putf(p, "<path class=\"axis\" d=\"M%.1f,%.1f V%.1f H%.1f%s\"/>\n", PL, PT, PT + h, PL + w,
       two_axes ? " V14" : "");
  char xl[48];
  snprintf(xl, sizeof xl, "elapsed time (%s)", uname);
  axis_label(p, PL + w / 2, ph - 8, 0, xl);
  axis_label(p, 14, PT + h / 2, -90, left_label);
  if (two_axes) axis_label(p, PW - 10, PT + h / 2, 90, right_label);
  /* Findings: where the count went up. */
  if (mark_findings)
    for (size_t r = 1; r < n; r++) {
      double a = rows[r - 1].v[C_FINDINGS], b = rows[r].v[C_FINDINGS];
      if (isnan(b) || !(b > (isnan(a) ? 0 : a))) continue;
      double x = X(rows[r].v[C_ELAPSED]);
      putf(p,
           "<line class=\"findmark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\">"
           "<title>%.0f finding(s) at %.1f s</title></line>\n",
           x, PT, x, PT + h, b, rows[r].v[C_ELAPSED]);
    }
  /* The series: thinned to MAX_PLOT_POINTS, the last row always kept. */
  size_t stride = n > MAX_PLOT_POINTS ? (n + MAX_PLOT_POINTS - 1) / MAX_PLOT_POINTS : 1;
  for (int i = 0; i < ns; i++) {
    sf_buf d = {0};
    size_t points = 0;
    bool pen_down = false;
    for (size_t r = 0; r < n; r += stride) {
      if (r + stride >= n) r = n - 1;
      double v = rows[r].v[s[i].col];
      if (isnan(v)) {
        pen_down = false;
        continue;
      }
      if (sf_buf_printf(&d, "%c%.1f,%.1f ", pen_down ? 'L' : 'M', X(rows[r].v[C_ELAPSED]),
                        Y(v, s[i].right)))
        p->oom = true;
      pen_down = true;
      points++;
    }
    putf(p, "<path class=\"line %s\" data-points=\"%zu\" d=\"", s[i].cls, points);
    put_n(p, d.data ? (const char *)d.data : "", d.len ? d.len - 1 : 0);
    put(p, "\"/>\n");
    sf_buf_free(&d);
    if (n <= DOT_POINTS)
      for (size_t r = 0; r < n; r++) {
        double v = rows[r].v[s[i].col];
        if (isnan(v)) continue;
        char val[32];
        fmt_count(round(v * 10) / 10, val, sizeof val);
        putf(p,
             "<circle class=\"dot %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"><title>%.1f s: %s "
             "%s</title></circle>\n",
             s[i].cls, X(rows[r].v[C_ELAPSED]), Y(v, s[i].right), rows[r].v[C_ELAPSED], val,
             s[i].name);
      }
  }
#undef X
#undef Y
  put(p, "</svg></figure>\n");
}

/* ---- sections ---- */

static void missing_note(page *p, const char *file, file_status st, const char *what) {
  put(p, "<p class=\"missing\"><code>");
  esc(p, file);
  putf(p, "</code> %s: ", status_text(st));
  put(p, what); /* the caller's own HTML */
  put(p, "</p>\n");
}

static void fact_row(page *p, const char *name, const char *value, bool code) {
  putf(p, "<tr><th>%s</th><td>", name);
  if (!value)
    put(p, "<em>not recorded</em>");
  else {
    if (code) put(p, "<code>");
    esc(p, value);
    if (code) put(p, "</code>");
  }
  put(p, "</td></tr>\n");
}

static void section_run(page *p, const run_facts *r) {
  put(p, "<section id=\"run\"><h2>The run</h2>\n");
  if (r->st != F_OK) {
    missing_note(p, "run.txt", r->st, "the target, engine and times of the run are not known.");
    put(p, "</section>\n");
    return;
  }
  put(p, "<table class=\"facts\">\n");
  fact_row(p, "target", fact(r, "target"), true);
  fact_row(p, "grammar", fact(r, "api"), true);
  fact_row(p, "fuzzer", fact(r, "fuzzer"), true);
  fact_row(p, "engine", fact(r, "engine"), false);
  fact_row(p, "jobs", fact(r, "jobs"), false);
  double lim, t0, t1;
  char buf[64];
  if (fact_num(r, "seconds", &lim)) {
    if (lim > 0)
      fmt_duration(lim, buf, sizeof buf);
    else
      snprintf(buf, sizeof buf, "none");
    fact_row(p, "time limit", buf, false);
  } else
    fact_row(p, "time limit", fact(r, "seconds"), false);
  bool has0 = fact_num(r, "started", &t0), has1 = fact_num(r, "ended", &t1);
  if (has0) fmt_time(t0, buf, sizeof buf);
  fact_row(p, "started", has0 ? buf : fact(r, "started"), false);
  if (has1) fmt_time(t1, buf, sizeof buf);
  fact_row(p, "ended", has1 ? buf : fact(r, "ended"), false);
  put(p, "<tr><th>duration</th><td>");
  if (has0 && has1 && t1 >= t0) {
    fmt_duration(t1 - t0, buf, sizeof buf);
    esc(p, buf);
  } else if (has0 && !has1)
    put(p, "<em>not known: no end time (still running, or stopped before writing it)</em>");
  else
    put(p, "<em>not known</em>");
  put(p, "</td></tr>\n");
  fact_row(p, "command", fact(r, "command"), true);
  static const char *const known[] = {"target",  "api",     "fuzzer", "engine", "jobs",
                                      "seconds", "started", "ended",  "command"};
  for (int i = 0; i < r->n; i++) {
    bool k = false;
    for (size_t j = 0; j < sizeof known / sizeof *known; j++)
      k |= strcmp(r->key[i], known[j]) == 0;
    if (k) continue;
    put(p, "<tr><th>");
    esc(p, r->key[i]);
    put(p, "</th><td>");
    esc(p, r->val[i]);
    put(p, "</td></tr>\n");
  }
  put(p, "</table>\n");
  if (r->malformed)
    putf(p,
         "<p class=\"missing\">%d line(s) of <code>run.txt</code> are not "
         "<code>key=value</code> and were skipped.</p>\n",
         r->malformed);
  put(p, "</section>\n");
}

static void section_progress(page *p, const progress *pg) {
  put(p, "<section id=\"progress\"><h2>Coverage over time</h2>\n");
  if (pg->st != F_OK) {
    missing_note(p, "progress.tsv", pg->st,
                 "no progress ticks to plot (the run writes one row about every 2 s).");
    put(p, "</section>\n");
    return;
  }
  if (pg->no_elapsed) {
    put(p, "<p class=\"missing\"><code>progress.tsv</code>: its header has no "
           "<code>elapsed_s</code> column; nothing to plot.</p>\n</section>\n");
    return;
  }
  if (pg->malformed || pg->out_of_order)
    putf(p,
         "<p class=\"missing\">Rows of <code>progress.tsv</code> skipped: %zu malformed, %zu "
         "going back in time.</p>\n",
         pg->malformed, pg->out_of_order);
  if (pg->cut)
    put(p, "<p class=\"missing\"><code>progress.tsv</code> is too long: only its first rows "
           "are shown.</p>\n");
  if (pg->n == 0) {
    put(p, "<p class=\"missing\"><code>progress.tsv</code> has no rows.</p>\n</section>\n");
    return;
  }
  static const series cov[] = {{"edges", "edges", C_EDGES, 0},
                               {"corpus size", "corpus", C_CORPUS, 1}};
  plot(p, pg, "plot-coverage", "Edges and corpus size", 320, cov, 2, "edges", "corpus entries",
       true);
  static const series eps[] = {{"executions/s", "eps", C_EPS, 0}};
  plot(p, pg, "plot-execs",
       pg->eps_derived ? "Executions per second (from the execs column)" : "Executions per second",
       200, eps, 1, "execs/s", NULL, false);
  /* The last tick, every column. */
  const prow *l = &pg->rows[pg->n - 1];
  static const char *const label[NCOL] = {
      "elapsed",  "executions",        "executions/s",         "corpus",      "edges",
      "findings", "pruned as illegal", "pruned as equivalent", "solver flips"};
  putf(p, "<table class=\"last\"><caption>At the last of %zu ticks</caption>\n<tr>", pg->n);
  for (int c = 0; c < NCOL; c++)
    putf(p, "<th>%s</th>", label[c]);
  put(p, "</tr>\n<tr>");
  for (int c = 0; c < NCOL; c++) {
    char v[48];
    if (isnan(l->v[c]))
      snprintf(v, sizeof v, "-");
    else if (c == C_ELAPSED)
      fmt_duration(l->v[c], v, sizeof v);
    else if (c == C_PILL || c == C_PEQ)
      snprintf(v, sizeof v, "%.1f%%", l->v[c]);
    else
      fmt_count(c == C_EPS ? round(l->v[c]) : l->v[c], v, sizeof v);
    putf(p, "<td class=\"num\">%s</td>", v);
  }
  put(p, "</tr></table>\n</section>\n");
}

/* Finding files: N-KIND.EXT as triage names them; when KIND in
 * findings.tsv is spelled otherwise, the one file N-*.EXT. */
static bool find_file(const char *dir, const char *id, const char *kind, const char *ext,
                      char *name, size_t n) {
  bool plain = *kind != 0;
  for (const char *k = kind; *k; k++)
    plain &= isalnum((unsigned char)*k) || strchr("._-", *k) != NULL;
  struct stat st;
  char path[PATH_MAX];
  if (plain && (size_t)snprintf(name, n, "%s-%s%s", id, kind, ext) < n &&
      (size_t)snprintf(path, sizeof path, "%s/%s", dir, name) < sizeof path && stat(path, &st) == 0)
    return true;
  DIR *d = opendir(dir);
  if (!d) return false;
  size_t il = strlen(id), el = strlen(ext);
  bool found = false;
  struct dirent *e;
  while (!found && (e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (l > il + 1 + el && strncmp(e->d_name, id, il) == 0 && e->d_name[il] == '-' &&
        strcmp(e->d_name + l - el, ext) == 0 && (size_t)snprintf(name, n, "%s", e->d_name) < n)
      found = true;
  }
  closedir(d);
  return found;
}

/* A finding's file in a <pre>, or what is missing; `lines` > 0 shows only
 * the first lines. */
static void finding_file(page *p, const char *fdir, const char *prefix, const char *id,
                         const char *kind, const char *ext, const char *title, const char *cls,
                         int lines) {
  char name[300], rel[400];
  bool have = find_file(fdir, id, kind, ext, name, sizeof name);
  if (!have) snprintf(name, sizeof name, "%s-%s%s", id, kind, ext);
  snprintf(rel, sizeof rel, "findings/%s", name);
  putf(p, "<h4>%s <a class=\"file\" href=\"", title);
  url_path(p, prefix);
  url_path(p, rel);
  put(p, "\">");
  esc(p, rel);
  put(p, "</a></h4>\n");
  sf_buf b = {0};
  bool cut = false;
  file_status st = have ? slurp(fdir, name, MAX_TEXT_BYTES, &b, &cut) : F_MISSING;
  if (st != F_OK) {
    put(p, "<p class=\"missing\">");
    esc(p, rel);
    putf(p, ": %s.</p>\n", status_text(st));
    sf_buf_free(&b);
    return;
  }
  const char *s = (const char *)b.data, *end = s + b.len;
  size_t total = 0, shown_len = b.len;
  for (const char *q = s; q < end; q++)
    if (*q == '\n' || q + 1 == end) {
      total++;
      if (lines > 0 && total == (size_t)lines) shown_len = (size_t)(q + 1 - s);
    }
  putf(p, "<pre class=\"%s\">", cls);
  esc_n(p, s, shown_len);
  put(p, "</pre>\n");
  if (lines > 0 && total > (size_t)lines)
    putf(p, "<p class=\"note\">The first %d of %zu lines; the whole report is in the file.</p>\n",
         lines, total);
  if (cut) put(p, "<p class=\"missing\">The file is longer than 1 MiB: cut there.</p>\n");
  sf_buf_free(&b);
}

typedef struct finding {
  char id[16], kind[64], verdict[16], count[24];
  const char *sig; /* into the findings.tsv buffer */
  size_t sig_len;
} finding;

static void section_findings(page *p, const char *dir, const char *prefix, const run_facts *r,
                             size_t *nfound) {
  put(p, "<section id=\"findings\"><h2>Findings</h2>\n");
  sf_buf b = {0};
  bool cut;
  file_status st = slurp(dir, "findings.tsv", MAX_TABLE_BYTES, &b, &cut);
  if (st != F_OK) {
    /* Crashes the run kept but nobody triaged: say how. */
    char cdir[PATH_MAX];
    size_t ncrash = 0;
    snprintf(cdir, sizeof cdir, "%s/crashes", dir);
    DIR *d = opendir(cdir);
    if (d) {
      struct dirent *e;
      while ((e = readdir(d)))
        ncrash += e->d_name[0] != '.';
      closedir(d);
    }
    put(p, "<p class=\"missing\"><code>findings.tsv</code> ");
    put(p, status_text(st));
    if (ncrash) {
      putf(p,
           ", but <code>crashes/</code> holds %zu file(s). Triage them with<br><code>seqfuzz "
           "triage ",
           ncrash);
      esc(p, fact(r, "api") ? fact(r, "api") : "API");
      esc(p, " RUN_DIR/crashes --target ");
      esc(p, fact(r, "fuzzer") ? fact(r, "fuzzer") : "FUZZER");
      esc(p, " -o RUN_DIR/findings");
      put(p, "</code>");
    } else
      put(p, ": no findings recorded");
    put(p, ".</p>\n</section>\n");
    sf_buf_free(&b);
    return;
  }
  finding *f = NULL;
  size_t n = 0, cap = 0, malformed = 0;
  const char *q = (const char *)b.data, *end = q + b.len, *line;
  size_t len;
  bool first = true;
  while (next_line(&q, end, &line, &len)) {
    if (!len) continue;
    if (first && strncmp(line, "id", 2) == 0 && (len == 2 || isspace((unsigned char)line[2]))) {
      first = false; /* the header */
      continue;
    }
    first = false;
    /* id kind verdict count, then the signature (which may hold spaces). */
    finding x = {0};
    char *fields[4] = {x.id, x.kind, x.verdict, x.count};
    size_t sizes[4] = {sizeof x.id, sizeof x.kind, sizeof x.verdict, sizeof x.count};
    size_t i = 0;
    bool ok = true;
    for (int k = 0; k < 4 && ok; k++) {
      while (i < len && (line[i] == '\t' || line[i] == ' '))
        i++;
      size_t st0 = i;
      while (i < len && line[i] != '\t' && line[i] != ' ')
        i++;
      ok = i > st0 && i - st0 < sizes[k];
      if (ok) memcpy(fields[k], line + st0, i - st0);
    }
    while (i < len && (line[i] == '\t' || line[i] == ' '))
      i++;
    ok = ok && i < len && strspn(x.id, "0123456789") == strlen(x.id);
    if (!ok) {
      malformed++;
      continue;
    }
    x.sig = line + i;
    x.sig_len = len - i;
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      finding *nf = realloc(f, cap * sizeof *nf);
      if (!nf) {
        p->oom = true;
        break;
      }
      f = nf;
    }
    f[n++] = x;
  }
  *nfound = n;
  size_t bugs = 0;
  for (size_t i = 0; i < n; i++)
    bugs += strcmp(f[i].verdict, "bug") == 0;
  if (n == 0)
    put(p, "<p>No findings.</p>\n");
  else {
    putf(p, "<p>%zu finding(s): %zu likely bug(s), %zu likely API misuse or other.</p>\n", n, bugs,
         n - bugs);
    put(p, "<table class=\"findings\"><tr><th>#</th><th>kind</th><th>verdict</th>"
           "<th>inputs</th><th>signature</th></tr>\n");
    for (size_t i = 0; i < n; i++) {
      put(p, "<tr><td><a href=\"#finding-");
      esc(p, f[i].id);
      put(p, "\">");
      esc(p, f[i].id);
      put(p, "</a></td><td>");
      esc(p, f[i].kind);
      putf(p, "</td><td><span class=\"verdict %s\">",
           strcmp(f[i].verdict, "bug") == 0      ? "bug"
           : strcmp(f[i].verdict, "misuse") == 0 ? "misuse"
                                                 : "other");
      esc(p, f[i].verdict);
      put(p, "</span></td><td class=\"num\">");
      esc(p, f[i].count);
      put(p, "</td><td><code class=\"sig\">");
      esc_n(p, f[i].sig, f[i].sig_len);
      put(p, "</code></td></tr>\n");
    }
    put(p, "</table>\n");
  }
  if (malformed)
    putf(p,
         "<p class=\"missing\">%zu malformed row(s) of <code>findings.tsv</code> skipped "
         "(wanted: id kind verdict count signature).</p>\n",
         malformed);
  char fdir[PATH_MAX];
  snprintf(fdir, sizeof fdir, "%s/findings", dir);
  for (size_t i = 0; i < n; i++) {
    put(p, "<article class=\"finding\" id=\"finding-");
    esc(p, f[i].id);
    put(p, "\"><h3>#");
    esc(p, f[i].id);
    put(p, " ");
    esc(p, f[i].kind);
    put(p, " &mdash; ");
    put(p, strcmp(f[i].verdict, "bug") == 0      ? "likely bug"
           : strcmp(f[i].verdict, "misuse") == 0 ? "likely API misuse"
                                                 : "verdict ");
    if (strcmp(f[i].verdict, "bug") && strcmp(f[i].verdict, "misuse")) esc(p, f[i].verdict);
    put(p, "</h3>\n<p>Signature: <code class=\"sig\">");
    esc_n(p, f[i].sig, f[i].sig_len);
    put(p, "</code>; ");
    esc(p, f[i].count);
    put(p, " crashing input(s).</p>\n");
    finding_file(p, fdir, prefix, f[i].id, f[i].kind, ".seq", "Minimized sequence", "seq", 0);
    finding_file(p, fdir, prefix, f[i].id, f[i].kind, ".c", "C reproducer", "repro", 0);
    finding_file(p, fdir, prefix, f[i].id, f[i].kind, ".report.txt", "Report", "report",
                 REPORT_LINES);
    put(p, "</article>\n");
  }
  free(f);
  sf_buf_free(&b);
  put(p, "</section>\n");
}

/* ---- stats.txt ---- */

/* One statistic of a line: "pruned illegal 9.9%", "15.7% of the time". */
typedef struct stat_item {
  char name[48], value[32];
  bool value_first;
  int seg; /* which " | " segment */
} stat_item;

#define MAX_ITEMS 48

static bool numeric_token(const char *t) {
  return isdigit((unsigned char)t[0]) || (t[0] == '-' && isdigit((unsigned char)t[1]));
}

/* The statistics of a line: segments split at " | ", items at ", ", ": "
 * and parentheses, each item a name and a number. */
static int parse_items(const char *line, stat_item *it, int max) {
  char buf[2048];
  snprintf(buf, sizeof buf, "%s", line);
  int n = 0, seg = 0;
  char *s = buf;
  while (s && n < max) {
    char *bar = strstr(s, " | ");
    if (bar) *bar = 0;
    for (char *c = s; *c; c++)
      if (*c == '(' || *c == ')' || (*c == ':' && c[1] == ' ')) *c = ',';
    char *save = NULL;
    for (char *piece = strtok_r(s, ",", &save); piece && n < max;
         piece = strtok_r(NULL, ",", &save)) {
      char *tok[16];
      int k = 0;
      char *save2 = NULL;
      for (char *t = strtok_r(piece, " \t", &save2); t && k < 16; t = strtok_r(NULL, " \t", &save2))
        tok[k++] = t;
      if (k == 0) continue;
      stat_item x = {.seg = seg};
      int vi = numeric_token(tok[k - 1]) ? k - 1 : numeric_token(tok[0]) ? 0 : -1;
      if (vi < 0) continue;
      x.value_first = vi == 0 && k > 1;
      snprintf(x.value, sizeof x.value, "%s", tok[vi]);
      size_t o = 0;
      for (int j = 0; j < k; j++) {
        if (j == vi) continue;
        int w = snprintf(x.name + o, sizeof x.name - o, "%s%s", o ? " " : "", tok[j]);
        if (w < 0 || (size_t)w >= sizeof x.name - o) break;
        o += (size_t)w;
      }
      it[n++] = x;
    }
    seg++;
    s = bar ? bar + 3 : NULL;
  }
  return n;
}

/* key=value tokens (the machine-readable line of a stats file). */
static int parse_kv(const char *line, stat_item *it, int max) {
  char buf[2048];
  snprintf(buf, sizeof buf, "%s", line);
  int n = 0;
  char *save = NULL;
  for (char *t = strtok_r(buf, " \t", &save); t && n < max; t = strtok_r(NULL, " \t", &save)) {
    char *eq = strchr(t, '=');
    if (!eq || eq == t) continue;
    *eq = 0;
    stat_item x = {.seg = n};
    snprintf(x.name, sizeof x.name, "%s", t);
    snprintf(x.value, sizeof x.value, "%s", eq + 1);
    it[n++] = x;
  }
  return n;
}

static const char *item(const stat_item *it, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(it[i].name, name) == 0) return it[i].value;
  return NULL;
}

/* A stats line as a table: one row per segment, its first statistic as
 * the row's head, the others beside it. */
static void items_table(page *p, const char *caption, const stat_item *it, int n) {
  put(p, "<table class=\"stats\"><caption>");
  put(p, caption);
  put(p, "</caption>\n");
  for (int i = 0; i < n;) {
    int seg = it[i].seg, j = i;
    put(p, "<tr><th>");
    /* "15.7% of the time": the row is the time. */
    const char *head = it[i].name;
    if (it[i].value_first) head = strncmp(head, "of the ", 7) == 0 ? head + 7 : "";
    esc(p, head);
    put(p, "</th><td class=\"num\">");
    esc(p, it[i].value);
    if (it[i].value_first) {
      put(p, " ");
      esc(p, it[i].name);
    }
    put(p, "</td><td>");
    for (j = i + 1; j < n && it[j].seg == seg; j++) {
      if (j > i + 1) put(p, ", ");
      if (it[j].value_first) {
        put(p, "<b>");
        esc(p, it[j].value);
        put(p, "</b> ");
        esc(p, it[j].name);
      } else {
        esc(p, it[j].name);
        put(p, " <b>");
        esc(p, it[j].value);
        put(p, "</b>");
      }
    }
    put(p, "</td></tr>\n");
    i = j;
  }
  put(p, "</table>\n");
}

static void highlight(page *p, const char *name, const char *value, const char *note) {
  put(p, "<div class=\"hl\"><div class=\"hl-v\">");
  esc(p, value ? value : "-");
  putf(p, "</div><div class=\"hl-n\">%s</div>", name);
  if (note) {
    put(p, "<div class=\"hl-x\">");
    esc(p, note);
    put(p, "</div>");
  }
  put(p, "</div>\n");
}

static void section_stats(page *p, const char *dir) {
  put(p, "<section id=\"stats\"><h2>Mutator, filters and solver</h2>\n");
  sf_buf b = {0};
  bool cut;
  file_status st = slurp(dir, "stats.txt", MAX_TEXT_BYTES, &b, &cut);
  if (st != F_OK) {
    missing_note(p, "stats.txt", st,
                 "the fuzzer prints its statistics lines every <code>SEQFUZZ_STATS</code> "
                 "seconds (10 by default); a run shorter than that has none.");
    put(p, "</section>\n");
    sf_buf_free(&b);
    return;
  }
  /* The last line of each kind wins (the file may hold several ticks). */
  char mut[2048] = "", byop[2048] = "", solver[2048] = "", kv[2048] = "";
  char other[8][512];
  int nother = 0;
  const char *q = (const char *)b.data, *end = q + b.len, *line;
  size_t len;
  while (next_line(&q, end, &line, &len)) {
    char l[2048];
    snprintf(l, sizeof l, "%.*s", (int)(len < sizeof l ? len : sizeof l - 1), line);
    const char *s = strncmp(l, "seqfuzz: ", 9) == 0 ? l + 9 : l;
    if (!*s) continue;
    if (strncmp(s, "execs ", 6) == 0)
      snprintf(mut, sizeof mut, "%s", s);
    else if (strncmp(s, "new code / outputs by mutation:", 31) == 0)
      snprintf(byop, sizeof byop, "%s", s + 31);
    else if (strncmp(s, "solver: ", 8) == 0 && strstr(s, " | "))
      snprintf(solver, sizeof solver, "%s", s + 8);
    else if (strncmp(s, "execs=", 6) == 0)
      snprintf(kv, sizeof kv, "%s", s);
    else {
      int i = 0;
      while (i < nother && strcmp(other[i], s) != 0)
        i++;
      if (i == nother && nother < 8) snprintf(other[nother++], sizeof other[0], "%s", s);
    }
  }
  stat_item mi[MAX_ITEMS], si[MAX_ITEMS], ki[MAX_ITEMS];
  int nm = mut[0] ? parse_items(mut, mi, MAX_ITEMS) : 0;
  int ns = solver[0] ? parse_items(solver, si, MAX_ITEMS) : 0;
  int nk = kv[0] ? parse_kv(kv, ki, MAX_ITEMS) : 0;
  if (!nm && !ns && !nk && !byop[0])
    put(p, "<p class=\"missing\"><code>stats.txt</code> holds no statistics line seqfuzz "
           "prints (<code>seqfuzz: execs ...</code>, <code>seqfuzz: solver: ...</code>).</p>\n");
  /* The numbers asked about most: how much the filters pruned, what the
   * solver tried and what it flipped. */
  const char *pill = item(mi, nm, "pruned illegal"), *peq = item(mi, nm, "equivalent");
  const char *att = item(si, ns, "attempts"), *flips = item(si, ns, "flips");
  char pk[40], pe[40];
  if (!pill && item(ki, nk, "pruned_illegal_pct"))
    snprintf(pk, sizeof pk, "%s%%", item(ki, nk, "pruned_illegal_pct")), pill = pk;
  if (!peq && item(ki, nk, "pruned_equiv_pct"))
    snprintf(pe, sizeof pe, "%s%%", item(ki, nk, "pruned_equiv_pct")), peq = pe;
  if (!att) att = item(ki, nk, "solver_attempts");
  if (!flips) flips = item(ki, nk, "solver_flips");
  if (nm || ns || nk) {
    char qnote[96] = "", fnote[64] = "";
    const char *sat = item(si, ns, "sat"), *unsat = item(si, ns, "unsat"),
               *tmo = item(si, ns, "timeout"), *kept = item(si, ns, "kept by the engine");
    if (sat && unsat && tmo)
      snprintf(qnote, sizeof qnote, "sat %s, unsat %s, timeout %s", sat, unsat, tmo);
    if (kept) snprintf(fnote, sizeof fnote, "kept by the engine %s", kept);
    put(p, "<div class=\"highlights\">\n");
    highlight(p, "candidates pruned as illegal", pill, NULL);
    highlight(p, "candidates pruned as equivalent", peq, NULL);
    highlight(p, "runs that stopped at an illegal call", item(mi, nm, "illegal"), NULL);
    highlight(p, "solver attempts", att, NULL);
    highlight(p, "solver queries", item(si, ns, "queries"), qnote[0] ? qnote : NULL);
    highlight(p, "solver flips", flips, fnote[0] ? fnote : NULL);
    highlight(p, "solver's share of the time", item(si, ns, "of the time"), NULL);
    put(p, "</div>\n");
  }
  if (nm) items_table(p, "Mutator and filters (legality, equivalence)", mi, nm);
  if (byop[0]) {
    /* "extend 7/329 insert 2/157 ...": new code / outputs per mutation. */
    put(p, "<table class=\"stats\"><caption>New code by mutation</caption>\n<tr><th>mutation"
           "</th><th>outputs</th><th>reached new code</th><th>share</th></tr>\n");
    char tmp[2048];
    snprintf(tmp, sizeof tmp, "%s", byop);
    char *save = NULL, *name = NULL;
    while ((name = strtok_r(name ? NULL : tmp, " ", &save))) {
      char *frac = strtok_r(NULL, " ", &save);
      unsigned long long found, tried;
      if (!frac || sscanf(frac, "%llu/%llu", &found, &tried) != 2) break;
      put(p, "<tr><th>");
      esc(p, name);
      putf(p, "</th><td class=\"num\">%llu</td><td class=\"num\">%llu</td><td class=\"num\">",
           tried, found);
      if (tried)
        putf(p, "%.1f%%", 100.0 * (double)found / (double)tried);
      else
        put(p, "-");
      put(p, "</td></tr>\n");
    }
    put(p, "</table>\n");
  }
  if (ns)
    items_table(p, "Solver", si, ns);
  else if (nm)
    put(p, "<p class=\"note\">No solver line: the solver was off, or had not started.</p>\n");
  if (nk) items_table(p, "Totals (machine-readable line)", ki, nk);
  if (nother) {
    put(p, "<p>Other statistics:</p><ul>\n");
    for (int i = 0; i < nother; i++) {
      put(p, "<li>");
      esc(p, other[i]);
      put(p, "</li>\n");
    }
    put(p, "</ul>\n");
  }
  put(p, "<details><summary><code>stats.txt</code> as written</summary><pre class=\"raw\">");
  esc_n(p, (const char *)b.data, b.len);
  put(p, "</pre></details>\n</section>\n");
  sf_buf_free(&b);
}

static void section_coverage(page *p, const char *dir, const char *prefix) {
  put(p, "<section id=\"line-coverage\"><h2>Line coverage</h2>\n");
  char path[PATH_MAX];
  struct stat st;
  /* llvm-cov's own output, or scripts/coverage-target.sh's (seqfuzz fuzz
   * --coverage), which puts it in html/. */
  const char *page = "coverage/index.html";
  snprintf(path, sizeof path, "%s/%s", dir, page);
  if (stat(path, &st) != 0) {
    page = "coverage/html/index.html";
    snprintf(path, sizeof path, "%s/%s", dir, page);
  }
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
    put(p, "<p><a id=\"coverage-link\" href=\"");
    url_path(p, prefix);
    put(p, page);
    put(p, "\">The library's line coverage</a> (llvm-cov's HTML report, <code>");
    put(p, page);
    put(p, "</code>).</p>\n");
  } else
    put(p, "<p class=\"missing\">No line coverage report (<code>coverage/index.html</code>). "
           "To make one, build the library with <code>-fprofile-instr-generate "
           "-fcoverage-mapping</code>, run the corpus through it and write "
           "<code>llvm-cov show -format=html -output-dir=RUN_DIR/coverage</code>; for a target "
           "of <code>seeds/</code>, <code>scripts/coverage-target.sh LIB -o DIR "
           "RUN_DIR/corpus</code> does it (its <code>DIR/html/</code> is that directory).</p>\n");
  put(p, "</section>\n");
}

static const char css[] =
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b1f24;"
    "max-width:1100px;margin:0 auto;padding:0 18px 40px}\n"
    "h1{font-size:1.6em;margin:.8em 0 .2em}h2{border-bottom:1px solid #d0d7de;padding-bottom:4px;"
    "margin-top:1.6em}h3{margin:1.2em 0 .3em}h4{margin:.9em 0 .3em;font-size:1em}\n"
    "nav a{margin-right:1em}.summary{color:#57606a}\n"
    "code,pre{font:13px/1.4 ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace}\n"
    "pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:10px;"
    "overflow:auto;max-height:32em}\n"
    "table{border-collapse:collapse;margin:.6em 0}th,td{border:1px solid #d0d7de;"
    "padding:4px 8px;text-align:left;vertical-align:top}th{background:#f6f8fa}\n"
    "caption{text-align:left;font-weight:600;padding:4px 0}.num{text-align:right;"
    "font-variant-numeric:tabular-nums}\n"
    ".facts th{width:9em}.missing{background:#fff8c5;border:1px solid #d4a72c;"
    "border-radius:6px;padding:6px 10px}.note{color:#57606a}\n"
    ".verdict{border-radius:10px;padding:1px 8px;font-size:.9em;color:#fff}"
    ".verdict.bug{background:#cf222e}.verdict.misuse{background:#9a6700}"
    ".verdict.other{background:#57606a}\n"
    ".finding{border:1px solid #d0d7de;border-radius:8px;padding:2px 14px 10px;margin:14px 0}\n"
    "figure{margin:1em 0}figcaption{font-weight:600}.legend{font-size:.9em;margin:4px 0}\n"
    ".key{display:inline-block;width:14px;height:3px;vertical-align:middle}\n"
    ".key.edges{background:#0969da}.key.corpus{background:#e16f24}.key.eps{background:#1a7f37}"
    ".key.findmark{background:#cf222e}\n"
    ".plot{width:100%;height:auto;display:block}.plot .grid{stroke:#eaeef2}"
    ".plot .tick,.plot .axis{stroke:#57606a;fill:none}\n"
    ".plot .tick-label{font-size:11px;fill:#57606a}.plot .axis-label{font-size:12px;fill:#1b1f24}\n"
    ".plot .line{fill:none;stroke-width:2}.plot .line.edges{stroke:#0969da}"
    ".plot .line.corpus{stroke:#e16f24}.plot .line.eps{stroke:#1a7f37}\n"
    ".plot .dot.edges{fill:#0969da}.plot .dot.corpus{fill:#e16f24}.plot .dot.eps{fill:#1a7f37}\n"
    ".plot .findmark{stroke:#cf222e;stroke-dasharray:4 3}\n"
    ".highlights{display:flex;flex-wrap:wrap;gap:10px;margin:.8em 0}.hl{border:1px solid "
    "#d0d7de;border-radius:8px;padding:8px 12px;min-width:9em}\n"
    ".hl-v{font-size:1.4em;font-weight:600}.hl-n{color:#57606a;font-size:.85em}"
    ".hl-x{font-size:.8em;color:#57606a}\n"
    "footer{margin-top:2em;color:#57606a;font-size:.85em}\n";

/* The relative path from the page's directory to the run directory, with
 * a trailing '/' ("" when the page is in it): links to findings and
 * coverage work wherever both are moved together. NULL when the page's
 * directory does not exist. */
static char *link_prefix(const char *out_path, const char *run_dir) {
  char *out_copy = strdup(out_path);
  if (!out_copy) return NULL;
  char *slash = strrchr(out_copy, '/');
  const char *out_dir = slash ? (slash == out_copy ? "/" : (*slash = 0, out_copy)) : ".";
  char a[PATH_MAX], b[PATH_MAX];
  bool ok = realpath(out_dir, a) && realpath(run_dir, b);
  free(out_copy);
  if (!ok) return NULL;
  /* Both are canonical ("/x/y", no trailing '/'): compare by components. */
  const char *pa = a, *pb = b;
  for (;;) {
    while (*pa == '/')
      pa++;
    while (*pb == '/')
      pb++;
    size_t la = strcspn(pa, "/"), lb = strcspn(pb, "/");
    if (!la || la != lb || memcmp(pa, pb, la) != 0) break;
    pa += la;
    pb += lb;
  }
  sf_buf r = {0};
  int bad = 0;
  for (const char *q = pa; *q;) { /* up from the page's directory */
    bad |= sf_buf_append(&r, "../", 3);
    q += strcspn(q, "/");
    while (*q == '/')
      q++;
  }
  if (*pb) bad |= sf_buf_printf(&r, "%s/", pb);
  char *s = bad ? NULL : sf_buf_cstr(&r);
  if (!s) sf_buf_free(&r);
  return s;
}

int cmd_report(int argc, char **argv) {
  const char *pos[2];
  if (cli_positionals(argc, argv, pos, 2) != 1) return cli_usage_error(argv[0], NULL);
  const char *dir = pos[0];
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return cli_error("%s: not a run directory (not a directory)", dir);
  char def[PATH_MAX];
  const char *out = cli_option(argc, argv, "--output", "-o");
  if (!out) {
    if ((size_t)snprintf(def, sizeof def, "%s/report.html", dir) >= sizeof def)
      return cli_error("%s: path too long", dir);
    out = def;
  }
  char *prefix = link_prefix(out, dir);
  if (!prefix) return cli_error("%s: cannot write there (no such directory)", out);

  run_facts run = {0};
  progress pg = {0};
  read_run_txt(dir, &run);
  read_progress(dir, &pg);
  page p = {0};
  const char *target = fact(&run, "target");
  const char *name = target ? target : dir;
  /* The target's name: the last component of its directory ("seeds/demo/"). */
  char title[256];
  snprintf(title, sizeof title, "%s", name);
  for (size_t l = strlen(title); l > 1 && title[l - 1] == '/'; l--)
    title[l - 1] = 0;
  const char *base = strrchr(title, '/');
  if (base && base[1]) memmove(title, base + 1, strlen(base + 1) + 1);
  put(&p, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          /* Self-contained by rule: the browser refuses anything from outside. */
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n<title>seqfuzz report: ");
  esc(&p, title);
  putf(&p, "</title>\n<style>\n%s</style></head><body>\n<h1>seqfuzz report: ", css);
  esc(&p, title);
  put(&p, "</h1>\n<p class=\"summary\">");
  size_t nfind = 0;
  sf_buf rest = {0}; /* the sections, built before the summary needs their counts */
  page body = {0};
  section_run(&body, &run);
  section_progress(&body, &pg);
  section_findings(&body, dir, prefix, &run, &nfind);
  section_stats(&body, dir);
  section_coverage(&body, dir, prefix);
  rest = body.b;
  p.oom |= body.oom;
  esc(&p, dir);
  if (pg.n) {
    /* The last known value of each (a tick may lack one). */
    double last[NCOL];
    for (int c = 0; c < NCOL; c++) {
      last[c] = NAN;
      for (size_t i = pg.n; i-- > 0 && isnan(last[c]);)
        last[c] = pg.rows[i].v[c];
    }
    char e[32], x[32], d[48];
    fmt_count(last[C_EDGES], e, sizeof e);
    fmt_count(last[C_EXECS], x, sizeof x);
    fmt_duration(last[C_ELAPSED], d, sizeof d);
    putf(&p, " &middot; %s edges &middot; %s executions in %s", e, x, d);
  }
  putf(&p,
       " &middot; %zu finding(s)</p>\n<nav><a href=\"#run\">Run</a><a href=\"#progress\">"
       "Coverage over time</a><a href=\"#findings\">Findings</a><a href=\"#stats\">Mutator, "
       "filters, solver</a><a href=\"#line-coverage\">Line coverage</a></nav>\n",
       nfind);
  put_n(&p, rest.data ? (const char *)rest.data : "", rest.len);
  put(&p, "<footer>Written by <code>seqfuzz report</code> from the run directory <code>");
  esc(&p, dir);
  put(&p, "</code> (docs/workflow.md).</footer>\n</body></html>\n");
  int rc = CLI_EXIT_OK;
  if (p.oom)
    rc = cli_error("out of memory");
  else if (cli_write_file(out, p.b.data, p.b.len))
    rc = CLI_EXIT_ERROR;
  else {
    printf("report written to %s\n", out);
    /* What is missing, where a script sees it too. */
    static const char *const files[] = {"run.txt", "progress.tsv", "stats.txt", "findings.tsv"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
      char path[PATH_MAX];
      snprintf(path, sizeof path, "%s/%s", dir, files[i]);
      if (stat(path, &st) != 0) fprintf(stderr, "seqfuzz report: %s: missing\n", path);
    }
    if (pg.malformed)
      fprintf(stderr, "seqfuzz report: %s/progress.tsv: %zu malformed row(s) skipped\n", dir,
              pg.malformed);
  }
  sf_buf_free(&rest);
  sf_buf_free(&p.b);
  sf_buf_free(&run.buf);
  free(pg.rows);
  free(prefix);
  return rc;
}
