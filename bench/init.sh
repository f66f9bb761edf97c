#!/usr/bin/env bash
# seqfuzz init on the real headers of the five bundled libraries, each draft
# compared with the project's final grammar seeds/LIB/LIB.api:
#  - the final grammar's `func`s whose function the draft declares with the
#    same parameter kinds (handle, number, string, buffer, out, other) in the
#    same count, of all of them and of those declared in the library's real
#    headers (the rest are the target's glue functions);
#  - the final grammar's handle types (by C type) the draft declares;
#  - whether the draft passes `seqfuzz check`.
#
#   bench/init.sh [--seqfuzz PATH] [LIB...]      (default: the five; build/seqfuzz)
#
# The headers come from the unpacked Debian sources (seeds/common.sh
# debian_source: fetched into build/targets/cache when missing, nothing is
# built); sqlite3.h and pcre2.h are generated the way their builds do when
# no build of the target left them under build/targets/work. Drafts go to
# build/bench/init/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sf=$root/build/seqfuzz
libs=()
while [ $# -gt 0 ]; do
  case "$1" in
  --seqfuzz) sf=$2; shift 2 ;;
  *) libs+=("$1"); shift ;;
  esac
done
[ ${#libs[@]} -gt 0 ] || libs=(cjson zlib sqlite3 libyaml pcre2)
out=$root/build/bench/init
mkdir -p "$out"

# The unpacked source of Debian package $1 (fetched once, cached).
source_of() {
  (TARGET=init-bench OUT=$out/.out WORK=$out/.work && export OUT WORK &&
    source "$root/seeds/common.sh" && debian_source "$1") 2>"$out/fetch-$1.log"
}

# headers LIB: the draft's arguments (headers and parser flags).
headers() {
  local src w=$root/build/targets/work
  case "$1" in
  cjson) src=$(source_of cjson) && echo "$src/cJSON.h $src/cJSON_Utils.h" ;;
  zlib) src=$(source_of zlib) && echo "$src/zlib.h" ;;
  libyaml) src=$(source_of libyaml) && echo "$src/include/yaml.h" ;;
  sqlite3)
    if [ -s "$w/sqlite3-libfuzzer/bld/sqlite3.h" ]; then
      echo "$w/sqlite3-libfuzzer/bld/sqlite3.h"
    else # as the amalgamation build makes it (tool/mksqlite3h.tcl needs mksourceid)
      src=$(source_of sqlite3)
      mkdir -p "$out/sqlite3-gen"
      (cd "$out/sqlite3-gen" && clang-14 -O1 -o mksourceid "$src/tool/mksourceid.c" &&
        tclsh "$src/tool/mksqlite3h.tcl" "$src" >sqlite3.h)
      echo "$out/sqlite3-gen/sqlite3.h"
    fi
    ;;
  pcre2)
    if [ -s "$w/pcre2-libfuzzer/pcre2/src/pcre2.h" ]; then
      echo "$w/pcre2-libfuzzer/pcre2/src/pcre2.h -D PCRE2_CODE_UNIT_WIDTH=8"
    else # what configure makes of it for this version
      src=$(source_of pcre2)
      mkdir -p "$out/pcre2-gen"
      cp "$src/src/pcre2.h.generic" "$out/pcre2-gen/pcre2.h"
      echo "$out/pcre2-gen/pcre2.h -D PCRE2_CODE_UNIT_WIDTH=8"
    fi
    ;;
  *) echo "unknown library $1" >&2; return 1 ;;
  esac
}

# summarize API: one line per handle type (H ctype, N name), per function
# (F name kinds) and per function a draft comments out (X name).
summarize() {
  awk '
  function push(t) { T[++nt] = t }
  function norm(s) { sub(/^const /, "", s); sub(/^(struct|union) /, "", s); gsub(/ /, "", s); return s }
  function kind(a, b,   j, q, out, ty, k) {
    j = a; out = 0
    while (j <= b && (T[j] ~ /^(out|inout|consume|steal|nullable|nonnull|keep)$/)) {
      if (T[j] == "out" || T[j] == "inout") out = 1
      j++
    }
    if (T[j] == "...") return "..."
    if (out) return "out"
    for (k = j; k <= b; k++) if (T[k] == "=") return "other"
    if (T[j] == "const") j++
    ty = T[j]
    if (ty == "pointer" || ty == "printf") return "other"
    for (k = j + 1; T[k] == "*" || T[k] == "const"; k++) ;
    if (T[k + 1] == "[") return "buffer" # the name, then [N] or [len] (not a constraint `in [..]`)
    if (ty in handle) return "handle"
    if (ty == "string" || (ty == "char" && T[j + 1] == "*")) return "string"
    if (ty == "memfile" || ty == "memfd") return "buffer"
    if (ty in cb) return "other"
    return "number"
  }
  function func(a, b,   p, q, d, k, kinds, from, name) {
    for (p = a; T[p] != "("; p++) ;
    name = T[p - 1]; d = 0
    for (q = p; q <= b; q++) { if (T[q] == "(") d++; if (T[q] == ")" && --d == 0) break }
    kinds = ""; from = p + 1; d = 0
    if (!(q == p + 1 || (q == p + 2 && T[p + 1] == "void")))
      for (k = p + 1; k <= q; k++) {
        if (T[k] == "(" || T[k] == "[") d++
        if (T[k] == ")" || T[k] == "]") d--
        if ((T[k] == "," && d == 0) || k == q) { kinds = kinds (kinds == "" ? "" : ",") kind(from, k - 1); from = k + 1 }
      }
    print "F " name " " (kinds == "" ? "-" : kinds)
  }
  {
    line = $0; i = 1; L = length(line)
    while (i <= L) {
      c = substr(line, i, 1)
      if (inblock) { if (substr(line, i, 2) == "*/") { inblock = 0; i += 2 } else i++; continue }
      if (c == "#" || substr(line, i, 2) == "//") {
        if (match(substr(line, i), /^# not expressible: [A-Za-z_][A-Za-z0-9_]*:/)) {
          s = substr(line, i + 19); sub(/:.*/, "", s); print "X " s
        }
        break
      }
      if (substr(line, i, 2) == "/*") { inblock = 1; i += 2; continue }
      if (c == "\"") {
        j = i + 1
        while (j <= L && substr(line, j, 1) != "\"") { if (substr(line, j, 1) == "\\") j++; j++ }
        push("\"" substr(line, i + 1, j - i - 1)); i = j + 1; continue
      }
      if (c ~ /[A-Za-z0-9_]/) {
        j = i; while (j <= L && substr(line, j, 1) ~ /[A-Za-z0-9_]/) j++
        push(substr(line, i, j - i)); i = j; continue
      }
      if (c ~ /[ \t\r]/) { i++; continue }
      if (substr(line, i, 3) == "...") { push("..."); i += 3; continue }
      push(c); i++
    }
  }
  END {
    depth = 0; start = 1; f = 0
    for (k = 1; k <= nt; k++) {
      t = T[k]
      if (start && depth == 0) {
        if (t == "handle") {
          ct = T[k + 1]; if (T[k + 2] == "=") ct = substr(T[k + 3], 2)
          handle[T[k + 1]] = 1; print "H " norm(ct); print "N " T[k + 1]
        } else if (t == "callback") {
          for (m = k + 1; T[m + 1] != "("; m++) ; cb[T[m]] = 1
        } else if (t == "vtable") cb[T[k + 1]] = 1
        else if (t == "func") f = k
      }
      start = 0
      if (t == "{") depth++
      else if (t == "}") { if (--depth == 0) start = 1 }
      else if (t == ";" && depth == 0) { if (f) func(f, k); f = 0; start = 1 }
    }
  }' "$1"
}

printf '%-8s | %-11s | %-13s | %-26s | %-13s | %-23s | %-5s | %s\n' library "final funcs" \
  "in headers" "same kinds and count" "handle types" "draft: func / commented" check seconds
printf -- '---------|-------------|---------------|----------------------------|---------------|-------------------------|-------|--------\n'
for lib in "${libs[@]}"; do
  read -r -a args <<<"$(headers "$lib")"
  draft=$out/$lib.api
  t0=$(date +%s.%N)
  "$sf" init "${args[@]}" -o "$draft" 2>"$out/$lib.log" || { echo "$lib: seqfuzz init failed:"; cat "$out/$lib.log"; continue; }
  t1=$(date +%s.%N)
  "$sf" check "$draft" >/dev/null 2>&1 && ok=yes || ok=NO
  summarize "$root/seeds/$lib/$lib.api" >"$out/$lib.final.txt"
  summarize "$draft" >"$out/$lib.draft.txt"
  awk -v lib="$lib" -v ok="$ok" -v t0="$t0" -v t1="$t1" '
    FNR == NR { if ($1 == "F") { dk[$2] = $3; dn++; known[$2] = 1 } else if ($1 == "X") { known[$2] = 1; dx++ }
                else if ($1 == "H" || $1 == "N") dh[$2] = 1; next }
    $1 == "F" { n++; if ($2 in known) inh++; if (($2 in dk) && dk[$2] == $3) same++ }
    $1 == "H" { h++; if ($2 in dh) hf++ }
    END {
      printf "%-8s | %11d | %3d (%5.1f%%) | %3d: %5.1f%% (%5.1f%% of in) | %2d/%-2d (%3.0f%%) | %9d / %-11d | %-5s | %.1f\n",
        lib, n, inh, 100 * inh / n, same, 100 * same / n, inh ? 100 * same / inh : 0, hf, h,
        h ? 100 * hf / h : 0, dn, dx, ok, t1 - t0
    }' "$out/$lib.draft.txt" "$out/$lib.final.txt"
done
echo "(drafts and the per-function kinds: $out)"
