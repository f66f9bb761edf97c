/* fit.c: transfer functions from a few observations. A comparison operand
 * observed while one variable takes several values is explained by the first
 * simple form that fits them all: affine (x * 13 + 5), a field extracted by
 * shift and mask ((x >> 8) & 0xfff), or a shifted, masked copy. Several
 * variables: a linear combination (3a - 2b + c, sums of buffer bytes), fitted
 * from one odd step per variable. */
#include "internal.h"

/* x at the variable's own size, unsigned. */
static uint64_t raw(const sf_var *v, uint64_t x) {
  return x & sf_width_mask(v->size);
}

/* The inverse of an odd number mod 2^64 (Newton's iteration). */
static uint64_t odd_inverse(uint64_t d) {
  uint64_t inv = d; /* correct to 3 bits */
  for (int i = 0; i < 5; i++)
    inv *= 2 - d * inv;
  return inv;
}

uint64_t sf_fit_eval(const sf_fit *f, const sf_var *vars, const uint64_t *xs) {
  uint64_t y = 0;
  switch (f->kind) {
  case SF_FIT_CONST:
    y = f->base;
    break;
  case SF_FIT_LINEAR:
    y = f->base;
    for (uint32_t i = 0; i < f->nvars; i++)
      y += f->coef[i] * xs[f->var[i]];
    break;
  case SF_FIT_SHIFTMASK:
    y = ((raw(&vars[f->var[0]], xs[f->var[0]]) >> f->shift) & f->mask) + f->base;
    break;
  case SF_FIT_SHLMASK:
    y = ((raw(&vars[f->var[0]], xs[f->var[0]]) << f->shift) & f->mask) + f->base;
    break;
  case SF_FIT_TERMS:
    y = f->base;
    for (uint32_t i = 0; i < f->nvars; i++) {
      uint64_t x = xs[f->var[i]];
      if (f->tdir[i] == SF_TERM_SHR) x = (raw(&vars[f->var[i]], x) >> f->tshift[i]) & f->tmask[i];
      if (f->tdir[i] == SF_TERM_SHL) x = (raw(&vars[f->var[i]], x) << f->tshift[i]) & f->tmask[i];
      y += f->coef[i] * x;
    }
    break;
  }
  return y & sf_width_mask(f->width);
}

static bool explains(const sf_fit *f, const sf_var *v, const uint64_t *x, const uint64_t *y,
                     uint32_t n) {
  sf_fit g = *f; /* the same function of variable 0 */
  g.var[0] = 0;
  for (uint32_t i = 0; i < n; i++)
    if (sf_fit_eval(&g, v, &x[i]) != (y[i] & sf_width_mask(f->width))) return false;
  return true;
}

bool sf_fit_single(uint32_t var, const sf_var *v, const uint64_t *x, const uint64_t *y, uint32_t n,
                   uint8_t width, sf_fit *out) {
  if (n < 3) return false;
  sf_fit f = {.width = width, .nvars = 1};
  f.var[0] = var;
  uint64_t d = x[1] - x[0];
  if (d & 1) { /* affine: a = dy / dx (dx odd, so invertible mod 2^k) */
    f.kind = SF_FIT_LINEAR;
    f.coef[0] = (y[1] - y[0]) * odd_inverse(d);
    f.base = y[0] - f.coef[0] * x[0];
    f.coef[0] &= sf_width_mask(width);
    f.base &= sf_width_mask(width);
    if (f.coef[0] && explains(&f, v, x, y, n)) return *out = f, true;
  }
  /* A field: y = (x >> s) & M (or x << s). M keeps every bit no observation
   * rules out (z has it, y lacks it): bits never set in z cannot matter. */
  bool varies = false;
  for (uint32_t i = 1; i < n; i++)
    varies |= ((y[i] ^ y[0]) & sf_width_mask(width)) != 0;
  if (!varies) return false;
  unsigned xbits = 8u * v->size;
  for (int left = 0; left < 2; left++) {
    for (unsigned sh = left; sh < xbits; sh++) {
      f.kind = left ? SF_FIT_SHLMASK : SF_FIT_SHIFTMASK;
      f.shift = sh;
      uint64_t absent = 0;
      for (uint32_t i = 0; i < n; i++) {
        uint64_t z = left ? raw(v, x[i]) << sh : raw(v, x[i]) >> sh;
        absent |= z & ~y[i];
      }
      f.mask = ~absent & sf_width_mask(width);
      f.base = 0;
      if (f.mask && explains(&f, v, x, y, n)) return *out = f, true;
    }
  }
  /* A field plus a constant (the rest of a word other variables fill):
   * the mask is what varies, the constant the rest of the witness's y. */
  uint64_t varying = 0;
  for (uint32_t i = 1; i < n; i++)
    varying |= (y[i] ^ y[0]) & sf_width_mask(width);
  /* A bit of the field that no probe happened to flip would be taken for
   * part of the constant: fields are runs of bits, so fill the holes. */
  if (varying) {
    int lo = __builtin_ctzll(varying), hi = 63 - __builtin_clzll(varying);
    varying = (hi == 63 ? UINT64_MAX : (1ull << (hi + 1)) - 1) & ~((1ull << lo) - 1);
  }
  for (int left = 0; left < 2; left++) {
    for (unsigned sh = left; sh < xbits; sh++) {
      f.kind = left ? SF_FIT_SHLMASK : SF_FIT_SHIFTMASK;
      f.shift = sh;
      f.mask = varying;
      uint64_t z0 = left ? raw(v, x[0]) << sh : raw(v, x[0]) >> sh;
      f.base = (y[0] - (z0 & varying)) & sf_width_mask(width);
      if (explains(&f, v, x, y, n)) return *out = f, true;
    }
  }
  return false;
}

bool sf_fit_separable(const sf_fit *singles, uint32_t n, uint64_t y0, uint8_t width, sf_fit *out) {
  if (n == 0 || n > SF_FIT_MAX_VARS) return false;
  sf_fit f = {.kind = SF_FIT_TERMS, .width = width, .nvars = n};
  uint64_t base = y0 * (1 - (uint64_t)n); /* - (n - 1) * y0 */
  for (uint32_t j = 0; j < n; j++) {
    const sf_fit *g = &singles[j];
    if (g->nvars != 1) return false;
    f.var[j] = g->var[0];
    base += g->base;
    if (g->kind == SF_FIT_LINEAR) {
      f.tdir[j] = SF_TERM_VALUE;
      f.coef[j] = g->coef[0];
    } else if (g->kind == SF_FIT_SHIFTMASK || g->kind == SF_FIT_SHLMASK) {
      f.tdir[j] = g->kind == SF_FIT_SHIFTMASK ? SF_TERM_SHR : SF_TERM_SHL;
      f.tshift[j] = (uint8_t)g->shift;
      f.tmask[j] = g->mask;
      f.coef[j] = 1;
    } else {
      return false;
    }
  }
  f.base = base & sf_width_mask(width);
  *out = f;
  return true;
}

bool sf_fit_linear_multi(const uint32_t *vars, uint32_t nvars, const uint64_t *x0,
                         const uint64_t *x1, uint64_t y0, const uint64_t *y1, uint8_t width,
                         sf_fit *out) {
  if (nvars == 0 || nvars > SF_FIT_MAX_VARS) return false;
  sf_fit f = {.kind = SF_FIT_LINEAR, .width = width, .nvars = nvars};
  uint64_t base = y0;
  for (uint32_t j = 0; j < nvars; j++) {
    uint64_t d = x1[j] - x0[j];
    if (!(d & 1)) return false;
    f.var[j] = vars[j];
    f.coef[j] = ((y1[j] - y0) * odd_inverse(d)) & sf_width_mask(width);
    base -= f.coef[j] * x0[j];
  }
  f.base = base & sf_width_mask(width);
  *out = f;
  return true;
}

unsigned sf_goal_outcomes(uint64_t a, uint64_t b, unsigned width) {
  uint64_t m = sf_width_mask(width);
  a &= m;
  b &= m;
  unsigned bits = 1u << (a == b ? SF_GOAL_EQ : SF_GOAL_NE);
  if (a < b) bits |= 1u << SF_GOAL_ULT;
  if (a > b) bits |= 1u << SF_GOAL_UGT;
  /* Signed order: flip the sign bit and compare unsigned. */
  uint64_t sign = 1ull << (8 * (width > 8 ? 8 : width) - 1);
  if ((a ^ sign) < (b ^ sign)) bits |= 1u << SF_GOAL_SLT;
  if ((a ^ sign) > (b ^ sign)) bits |= 1u << SF_GOAL_SGT;
  return bits;
}

bool sf_fit_linear_system(const uint32_t *vars, uint32_t nvars, const uint64_t *x0, uint64_t y0,
                          const uint64_t *xs, const uint64_t *ys, uint32_t m, uint8_t width,
                          sf_fit *out) {
  if (nvars == 0 || nvars > SF_FIT_MAX_VARS || m == 0 || m > 64) return false;
  /* Rows: sum c_i * (x_i - x0_i) = y - y0, mod 2^64; the last column is y. */
  uint64_t a[64][SF_FIT_MAX_VARS + 1];
  for (uint32_t r = 0; r < m; r++) {
    for (uint32_t i = 0; i < nvars; i++)
      a[r][i] = xs[r * nvars + i] - x0[i];
    a[r][nvars] = ys[r] - y0;
  }
  uint32_t pivot_col[64], row = 0;
  for (uint32_t col = 0; col < nvars && row < m; col++) {
    uint32_t p = row;
    while (p < m && !(a[p][col] & 1))
      p++;
    if (p == m) continue; /* no odd (invertible) entry: c_col stays 0 */
    for (uint32_t i = 0; i <= nvars; i++) {
      uint64_t t = a[p][i];
      a[p][i] = a[row][i];
      a[row][i] = t;
    }
    uint64_t inv = odd_inverse(a[row][col]);
    for (uint32_t i = 0; i <= nvars; i++)
      a[row][i] *= inv;
    for (uint32_t r = 0; r < m; r++) {
      if (r == row || !a[r][col]) continue;
      uint64_t f = a[r][col];
      for (uint32_t i = 0; i <= nvars; i++)
        a[r][i] -= f * a[row][i];
    }
    pivot_col[row++] = col;
  }
  sf_fit f = {.kind = SF_FIT_LINEAR, .width = width, .nvars = nvars};
  for (uint32_t r = 0; r < row; r++)
    f.coef[pivot_col[r]] = a[r][nvars];
  uint64_t base = y0;
  for (uint32_t i = 0; i < nvars; i++) {
    f.var[i] = vars[i];
    base -= f.coef[i] * x0[i];
  }
  f.base = base & sf_width_mask(width);
  for (uint32_t i = 0; i < nvars; i++)
    f.coef[i] &= sf_width_mask(width);
  /* Every observation must be explained (over-determined systems check
   * themselves; a relation that is not linear fails here). */
  for (uint32_t r = 0; r < m; r++) {
    uint64_t y = f.base;
    for (uint32_t i = 0; i < nvars; i++)
      y += f.coef[i] * xs[r * nvars + i];
    if (((y ^ ys[r]) & sf_width_mask(width)) != 0) return false;
  }
  *out = f;
  return true;
}
