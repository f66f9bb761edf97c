/* Contracts and oracles in the API model: printing expressions, the
 * differential mapping, what the oracles compare and check (api.h). */
#include <stdio.h>
#include <string.h>

#include "../base/sf_buf.h"
#include "api.h"

const char *sf_diff_symbol(const sf_api *api, uint32_t fi, char *buf, size_t buflen) {
  const sf_differential *d = api->diff;
  const char *name = api->funcs[fi].name;
  if (!d) return name;
  if (d->symbol[fi]) return d->symbol[fi];
  if (!d->prefix) return name;
  snprintf(buf, buflen, "%s%s", d->prefix, name);
  return buf;
}

const char *sf_diff_release(const sf_api *api, const char *release, char *buf, size_t buflen) {
  const sf_differential *d = api->diff;
  if (!d) return release;
  for (uint32_t i = 0; i < d->nreleases; i++)
    if (strcmp(d->release_from[i], release) == 0) return d->release_to[i];
  if (!d->prefix) return release;
  snprintf(buf, buflen, "%s%s", d->prefix, release);
  return buf;
}

void sf_reads_define(const sf_func *f, sf_buf *out) {
  sf_buf_printf(out, "__attribute__((unused)) static %s sf_reads_%s(%s%s) { return (%s%s)%s; }\n",
                f->ret.ctype, f->name, f->params[0].ctype, f->params[0].name, f->params[0].name,
                f->reads, f->ret.kind == SF_BOOL ? " != 0" : "");
}

void sf_vtable_define(const sf_vtable *vt, sf_buf *out) {
  sf_buf_printf(out,
                "__attribute__((unused)) static void *sf_vtable_%s(void *const *fns) {\n"
                "  %s *v = calloc(1, sizeof *v);\n  if (!v) return NULL;\n",
                vt->name, vt->ctype);
  for (uint32_t i = 0; i < vt->nslots; i++)
    sf_buf_printf(out, "  v->%s = (__typeof__(v->%s))fns[%u];\n", vt->slots[i].member,
                  vt->slots[i].member, i);
  sf_buf_printf(out, "  return v;\n}\n");
}

bool sf_api_has_contracts(const sf_api *api) {
  if (api->ninvariants) return true;
  for (uint32_t i = 0; i < api->nfuncs; i++)
    if (api->funcs[i].nensures) return true;
  return false;
}

bool sf_func_compared(const sf_api *api, uint32_t fi) {
  return !(api->funcs[fi].flags & SF_F_NONDETERMINISTIC) && !(api->diff && api->diff->ignore[fi]);
}

int32_t sf_func_round_trip(const sf_api *api, uint32_t fi) {
  const sf_func *q = &api->funcs[fi];
  if (q->inverse_of < 0 || q->ret.kind != SF_HANDLE || q->nparams != 1 ||
      !sf_param_is_input(&q->params[0]) || q->owner_param >= 0 ||
      api->handles[q->ret.type_index].destructor < 0 || api->funcs[q->inverse_of].nparams != 1 ||
      !sf_func_compared(api, (uint32_t)q->inverse_of))
    return -1;
  return (int32_t)q->ret.type_index;
}

static const char *op_text(sf_expr_op op) {
  switch (op) {
  case SF_E_NOT:
    return "!";
  case SF_E_NEG:
    return "-";
  case SF_E_AND:
    return " && ";
  case SF_E_OR:
    return " || ";
  case SF_E_EQ:
    return " == ";
  case SF_E_NE:
    return " != ";
  case SF_E_LT:
    return " < ";
  case SF_E_LE:
    return " <= ";
  case SF_E_GT:
    return " > ";
  case SF_E_GE:
    return " >= ";
  case SF_E_ADD:
    return " + ";
  case SF_E_SUB:
    return " - ";
  case SF_E_MUL:
    return " * ";
  case SF_E_DIV:
    return " / ";
  case SF_E_MOD:
    return " % ";
  default:
    return "?";
  }
}

void sf_expr_print(const sf_api *api, const sf_expr *e, sf_expr_leaf_fn leaf, void *ctx,
                   sf_buf *out) {
  if (leaf && leaf(ctx, e, out)) return;
  switch (e->op) {
  case SF_E_INT:
    if (e->value == INT64_MIN)
      sf_buf_printf(out, "(-9223372036854775807LL - 1)");
    else
      sf_buf_printf(out, "%lldLL", (long long)e->value);
    return;
  case SF_E_FLOAT:
    sf_buf_printf(out, "%.17g", e->fvalue);
    return;
  case SF_E_STR:
    sf_buf_printf(out, "\"");
    for (const char *c = e->str; *c; c++) {
      unsigned char ch = (unsigned char)*c;
      if (ch == '"' || ch == '\\')
        sf_buf_printf(out, "\\%c", ch);
      else if (ch < 32 || ch > 126)
        sf_buf_printf(out, "\\%03o", ch);
      else
        sf_buf_printf(out, "%c", ch);
    }
    sf_buf_printf(out, "\"");
    return;
  case SF_E_NULL:
    sf_buf_printf(out, "NULL");
    return;
  case SF_E_RET:
    sf_buf_printf(out, "ret");
    return;
  case SF_E_PARAM:
    sf_buf_printf(out, "arg%u", e->index);
    return;
  case SF_E_OLD:
    sf_buf_printf(out, "old(");
    sf_expr_print(api, e->kids[0], leaf, ctx, out);
    sf_buf_printf(out, ")");
    return;
  case SF_E_STATE:
  case SF_E_CALL:
    sf_buf_printf(out, "%s(",
                  e->op == SF_E_STATE      ? api->states[e->index].name
                  : e->index < api->nfuncs ? api->funcs[e->index].name
                                           : "?");
    for (uint32_t k = 0; k < e->nkids; k++) {
      if (k) sf_buf_printf(out, ", ");
      sf_expr_print(api, e->kids[k], leaf, ctx, out);
    }
    sf_buf_printf(out, ")");
    return;
  case SF_E_NOT:
  case SF_E_NEG:
    sf_buf_printf(out, "%s(", op_text(e->op));
    sf_expr_print(api, e->kids[0], leaf, ctx, out);
    sf_buf_printf(out, ")");
    return;
  default:
    sf_buf_printf(out, "(");
    sf_expr_print(api, e->kids[0], leaf, ctx, out);
    sf_buf_printf(out, "%s", op_text(e->op));
    sf_expr_print(api, e->kids[1], leaf, ctx, out);
    sf_buf_printf(out, ")");
  }
}
