#!/usr/bin/env bash
# Where pcre2's coverage gap lies: the patterns, or how seqfuzz runs them?
# Swaps the two fuzzers' corpora and measures branches (issue 20):
#
#   bench/pcre2_patterns.sh [--sample N] OWN_CORPUS SEQFUZZ_CORPUS
#
# (the corpora of one bench/coverage.sh run: build/bench/coverage/pcre2/
# own-1 and seqfuzz-1). N inputs of each (3000), the same ones in every row:
#   own harness       the own corpus's inputs, run by the own harness
#   as sequences      each own input as a seqfuzz sequence that does what the
#                     own harness does with it: a compile under the options
#                     it draws from the input's middle byte and one under
#                     none, each matched twice and DFA-matched twice against
#                     the input itself, with and without its match options
#                     (limits 100, as it sets them)
#   without options   the same sequences, every option 0
#   seqfuzz patterns  every pattern seqfuzz's inputs compile, run by the own
#                     harness (its options and subject)
# Branches of the library and of pcre2_match.c's `match` (the interpreter).
# WITHOUT_COMPILE=0x80000 (hex bits) drops those compile options from the
# drawn ones (PCRE2_UTF here), WITHOUT_MATCH=0xffffffff every match option:
# what each is worth. Needs python3 (glibc's rand through ctypes, as the own
# harness draws).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sample=3000
[ "${1:-}" = --sample ] && { sample=$2; shift 2; }
[ $# = 2 ] || { echo "usage: bench/pcre2_patterns.sh [--sample N] OWN_CORPUS SEQFUZZ_CORPUS" >&2; exit 2; }
own=$(cd "$1" && pwd) sf=$(cd "$2" && pwd)
api=$root/seeds/pcre2/pcre2.api seqfuzz=$root/build/seqfuzz
"$root/scripts/build-target.sh" pcre2 coverage >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$own" "$work" "$sample" <<'EOF'
import ctypes, os, random, sys
own, work, sample = sys.argv[1], sys.argv[2], int(sys.argv[3])
libc = ctypes.CDLL("libc.so.6")
without_compile = int(os.environ.get("WITHOUT_COMPILE", "0"), 16)
without_match = int(os.environ.get("WITHOUT_MATCH", "0"), 16)
# src/pcre2_fuzzsupport.c (10.42): its allowed options, by the grammar's names.
COMPILE = {0x80000000: "PCRE2_ANCHORED", 0x1: "PCRE2_ALLOW_EMPTY_CLASS", 0x2: "PCRE2_ALT_BSUX",
           0x200000: "PCRE2_ALT_CIRCUMFLEX", 0x400000: "PCRE2_ALT_VERBNAMES",
           0x4: "PCRE2_AUTO_CALLOUT", 0x8: "PCRE2_CASELESS", 0x10: "PCRE2_DOLLAR_ENDONLY",
           0x20: "PCRE2_DOTALL", 0x40: "PCRE2_DUPNAMES", 0x20000000: "PCRE2_ENDANCHORED",
           0x80: "PCRE2_EXTENDED", 0x100: "PCRE2_FIRSTLINE", 0x200: "PCRE2_MATCH_UNSET_BACKREF",
           0x400: "PCRE2_MULTILINE", 0x100000: "PCRE2_NEVER_BACKSLASH_C",
           0x2000: "PCRE2_NO_AUTO_CAPTURE", 0x4000: "PCRE2_NO_AUTO_POSSESS",
           0x8000: "PCRE2_NO_DOTSTAR_ANCHOR", 0x10000: "PCRE2_NO_START_OPTIMIZE",
           0x20000: "PCRE2_UCP", 0x40000: "PCRE2_UNGREEDY", 0x800000: "PCRE2_USE_OFFSET_LIMIT",
           0x80000: "PCRE2_UTF"}
MATCH = {0x80000000: "ANCHORED", 0x20000000: "ENDANCHORED", 0x1: "NOTBOL", 0x2: "NOTEOL",
         0x4: "NOTEMPTY", 0x8: "NOTEMPTY_ATSTART", 0x20: "PARTIAL_HARD", 0x10: "PARTIAL_SOFT",
         0x2000: "NO_JIT"}
def names(v, table, prefix=""):
    return "|".join(prefix + n for b, n in sorted(table.items()) if v & b) or "0"
def quoted(b):
    return '"' + "".join("\\x%02x" % c for c in b) + '"'
files = sorted(f for f in os.listdir(own) if 0 < os.path.getsize(os.path.join(own, f)) <= 1000)
random.seed(1)
random.shuffle(files)
for d in ("own", "txt-opts", "txt-none"):
    os.makedirs(os.path.join(work, d))
for f in files[:sample]:
    data = open(os.path.join(own, f), "rb").read()
    os.link(os.path.join(own, f), os.path.join(work, "own", f))
    libc.srand(data[len(data) // 2])
    r1, r2 = libc.rand(), libc.rand()
    bits = ((r1 << 16) | (r2 & 0xffff)) & 0xffffffff
    copts = (bits & sum(COMPILE) & ~without_compile) | 0x100000
    mopts = bits & sum(MATCH) & ~without_match
    if (copts | mopts) & 0x20000000:
        mopts &= ~0x30  # no partial matching with ENDANCHORED
    s = quoted(data)
    for kind, compiles, m in (("opts", (copts, 0x100000), mopts), ("none", (0,), 0)):
        lines = ["mc = pcre2_match_context_create(NULL);", "pcre2_set_match_limit(mc, 100);",
                 "pcre2_set_depth_limit(mc, 100);", "md = pcre2_match_data_create(32, NULL);"]
        for k, c in enumerate(compiles):
            lines += [f"re{k} = pcre2_compile({s}, {names(c, COMPILE)}, &_, &_, NULL);"]
            for opt in (m, 0):
                lines += [f"pcre2_match(re{k}, {s}, 0, {names(opt, MATCH, 'M_')}, md, mc);"]
            for opt in (m & ~0x2000, 0):
                lines += [f"pcre2_dfa_match(re{k}, {s}, 0, {names(opt, MATCH, 'D_')}, md, mc, 100);"]
        open(os.path.join(work, "txt-" + kind, f + ".seq"), "w").write("\n".join(lines) + "\n")
EOF
for kind in opts none; do
  mkdir -p "$work/$kind"
  for t in "$work/txt-$kind"/*.seq; do
    "$seqfuzz" encode "$api" "$t" -o "$work/$kind/$(basename "$t" .seq)"
  done
done

# seqfuzz's patterns: the first argument of every pcre2_compile of N inputs.
mkdir -p "$work/patterns"
find "$sf" -type f | sort | sed -n "1,${sample}p" | while read -r f; do "$seqfuzz" show "$api" "$f"; done |
  python3 -c '
import hashlib, re, sys
def unquote(s):
    if s.startswith("x\""): return bytes.fromhex(s[2:-1])
    return s[1:-1].encode("latin1").decode("unicode_escape").encode("latin1")
for m in re.finditer(r"pcre2_compile\((\"(?:[^\"\\\\]|\\\\.)*\"|x\"[0-9a-f]*\")", sys.stdin.read()):
    p = unquote(m.group(1))
    open(sys.argv[1] + "/" + hashlib.sha1(p).hexdigest(), "wb").write(p)
' "$work/patterns"

covdir=$root/build/targets/pcre2/coverage
src=$root/build/targets/work/pcre2-coverage/pcre2/src
printf '%-18s %7s %9s %s\n' corpus inputs branches "match()"
for row in "own harness:own:own" "as sequences:seqfuzz:opts" "without options:seqfuzz:none" \
  "seqfuzz patterns:own:patterns"; do
  IFS=: read -r label fuzzer dir <<<"$row"
  out=$work/report-$dir
  branches=$("$root/scripts/coverage-target.sh" pcre2 --fuzzer "$fuzzer" -o "$out" "$work/$dir" 2>/dev/null |
    awk '/^COVERAGE/ {print $4}')
  m=$(llvm-cov-14 report "$covdir/pcre2_$fuzzer" -instr-profile="$out/merged.profdata" -show-functions \
    "$src/pcre2_match.c" 2>/dev/null | awk '$1 == "pcre2_match.c:match" {print $NF}')
  printf '%-18s %7s %9s %s\n' "$label" "$(ls "$work/$dir" | wc -l)" "$branches" "$m"
done
