#!/usr/bin/env bash
# seqfuzz report: a run directory made by hand (docs/workflow.md, "A run
# directory") from a real short run of the demo fuzzer, its page loaded in
# headless Chromium (no console message, the plot holds the progress rows,
# the finding's signature and sequence are there); a made-up run directory
# with HTML in its files, malformed rows and missing files; exit codes.
#   tests/report.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1 src=$2
sf=$build/seqfuzz fuzzer=$build/kvstore_fuzzer api=$src/seeds/demo/kvstore.api
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"' EXIT # KEEP=1: keep it
fails=0 passes=0
pass() { echo "ok   $1"; passes=$((passes + 1)); }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }
check() { # check NAME command...: pass if the command succeeds
  local name=$1
  shift
  if "$@"; then pass "$name"; else fail "$name"; fi
}
has() { grep -qF -- "$2" "$1"; }   # has FILE TEXT
lacks() { ! grep -qF -- "$2" "$1"; }
# Text as Chromium serializes it in the DOM (text nodes: &, <, > escaped).
html_text() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }

command -v chromium >/dev/null || { echo "FAIL chromium is missing (scripts/install-deps.sh installs it)"; exit 1; }
[ -x "$fuzzer" ] || { echo "FAIL $fuzzer is missing"; exit 1; }

# load FILE OUT: the DOM after load to OUT, the page's console messages
# (an uncaught error, a blocked load) to OUT.console. This Chromium prints
# every console message as an INFO:CONSOLE line on stderr.
load() {
  timeout 120 chromium --headless --disable-gpu --no-sandbox --no-first-run \
    --user-data-dir="$work/chrome" --enable-logging=stderr --v=0 --dump-dom "file://$1" \
    >"$2" 2>"$2.err"
  local rc=$?
  grep -a ':CONSOLE' "$2.err" >"$2.console"
  [ $rc = 0 ] && grep -q '</html>' "$2"
}
clean_console() { # clean_console OUT: no console message at all
  [ ! -s "$1.console" ] || { cat "$1.console"; false; }
}

# ---- 1. A real run: the demo fuzzer until its bug, output time-stamped ----
# From an empty corpus, inputs of at most 40 bytes: the bug then takes a
# second or more, long enough for a statistics tick (SEQFUZZ_STATS=1: at
# most every second). libFuzzer stops at a crash; the campaign restarts it
# on the grown corpus (as a supervisor would) until 2 s passed, a crash was
# saved and seqfuzz printed a tick.
run=$work/run
mkdir -p "$run/corpus" "$run/crashes"
stamp() { while IFS= read -r l; do printf '%s\t%s\n' "$EPOCHREALTIME" "$l"; done; }
t0=$EPOCHREALTIME
session=0
while :; do
  session=$((session + 1))
  printf '%s\tSESSION %d\n' "$EPOCHREALTIME" $session >>"$work/fuzz.log"
  SEQFUZZ_STATS=1 "$fuzzer" "$run/corpus" -seed=$session -max_len=40 -max_total_time=10 \
    -artifact_prefix="$run/crashes/" 2>&1 | stamp >>"$work/fuzz.log"
  elapsed=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", b - a }')
  if [ -n "$(ls "$run/crashes")" ] && grep -q $'\tseqfuzz: execs ' "$work/fuzz.log" && [ "$elapsed" -ge 2 ]; then
    break
  fi
  [ "$elapsed" -lt 90 ] || { echo "FAIL no crash and statistics within 90 s"; tail -20 "$work/fuzz.log"; exit 1; }
done
t1=$EPOCHREALTIME
echo "the run: $session session(s), ${elapsed}s, $(ls "$run/crashes" | wc -l) crash(es)"

# progress.tsv: a row per libFuzzer status line (at most every 0.1 s) and
# at each crash; executions add up over sessions; the pruning shares and
# solver flips come from seqfuzz's last statistics tick.
awk -v t0="$t0" '
  BEGIN {
    OFS = "\t"; pi = pe = fl = "-"; found = 0; lt = -1
    print "elapsed_s", "execs", "execs_per_s", "corpus", "edges", "findings", "pruned_illegal_pct", "pruned_equiv_pct", "solver_flips"
  }
  function row(t) {
    eps = (lt >= 0 && t > lt) ? sprintf("%.0f", (base + n - lx) / (t - lt)) : "-"
    print sprintf("%.3f", t - t0), base + n, eps, corp, cov, found, pi, pe, fl
    lt = t; lx = base + n
  }
  {
    tab = index($0, "\t"); t = substr($0, 1, tab - 1); l = substr($0, tab + 1)
  }
  l ~ /^SESSION / { base += n; n = 0; pi = pe = fl = "-"; next }
  l ~ /^#[0-9]+\t(INITED|NEW|REDUCE|pulse|DONE|RELOAD)/ {
    n = substr(l, 2, index(l, "\t") - 2) + 0
    if (match(l, /cov: [0-9]+/)) cov = substr(l, RSTART + 5, RLENGTH - 5)
    if (match(l, /corp: [0-9]+/)) corp = substr(l, RSTART + 6, RLENGTH - 6)
    if (lt < 0 || t - lt >= 0.1) row(t)
    next
  }
  l ~ /^seqfuzz: execs / {
    if (match(l, /pruned illegal [0-9.]+/)) pi = substr(l, RSTART + 15, RLENGTH - 15)
    if (match(l, /equivalent [0-9.]+/)) pe = substr(l, RSTART + 11, RLENGTH - 11)
  }
  l ~ /^seqfuzz: solver: / && match(l, /flips [0-9]+/) { fl = substr(l, RSTART + 6, RLENGTH - 6) }
  l ~ /Test unit written to/ { found++; if (cov != "") row(t) }
' "$work/fuzz.log" >"$run/progress.tsv"
# stats.txt: the last statistics tick (its lines from `seqfuzz: execs` on).
awk '{ l = substr($0, index($0, "\t") + 1) }
  l ~ /^seqfuzz: execs / { n = 0 }
  l ~ /^seqfuzz: (execs |new code|solver: [0-9]|known bugs)/ { block[n++] = l }
  END { for (i = 0; i < n; i++) print block[i] }' "$work/fuzz.log" >"$run/stats.txt"
# The crashes through triage; findings.tsv from what it printed.
"$sf" triage "$api" "$run/crashes" --target "$fuzzer" -o "$run/findings" --max-seconds 20 \
  >"$work/triage.out" 2>"$work/triage.err" || { echo "FAIL triage"; cat "$work/triage.out" "$work/triage.err"; exit 1; }
{
  printf 'id\tkind\tverdict\tcount\tsignature\n'
  awk '/^\[[0-9]+\] / { id = substr($1, 2, length($1) - 2); sig = substr($0, length($1) + 2) }
    /^    [0-9]+ input\(s\)/ { count = $1 }
    /^    likely bug:/ { print id, "bug", count, sig }
    /^    likely API misuse:/ { print id, "misuse", count, sig }' "$work/triage.out" |
    while read -r id verdict count sig; do
      seq=$(ls "$run/findings/$id-"*.seq | head -n1)
      kind=${seq##*/$id-}
      printf '%s\t%s\t%s\t%s\t%s\n' "$id" "${kind%.seq}" "$verdict" "$count" "$sig"
    done
} >"$run/findings.tsv"
cat >"$run/run.txt" <<EOF
target=$src/seeds/demo
api=$api
fuzzer=$fuzzer
engine=libfuzzer
jobs=1
seconds=0
started=${t0%.*}
ended=${t1%.*}
command=SEQFUZZ_STATS=1 $fuzzer $run/corpus -max_len=40 -max_total_time=10 -artifact_prefix=$run/crashes/ (restarted after each crash)
EOF
rows=$(($(wc -l <"$run/progress.tsv") - 1))
nfind=$(($(wc -l <"$run/findings.tsv") - 1))
echo "run directory: $rows progress rows, $nfind finding(s), $(wc -l <"$run/stats.txt") statistics lines"
check real-rows [ "$rows" -ge 3 ]
check real-findings [ "$nfind" -ge 1 ]

# ---- 2. The page of the real run ----
"$sf" report "$run" >"$work/report.out" 2>"$work/report.err"
check report-exit [ $? = 0 ]
check report-clean lacks "$work/report.err" Sanitizer
page=$run/report.html
check report-written [ -s "$page" ]
# Self-contained: nothing loaded from elsewhere, no script.
if grep -qiE '<script|<link|<img|<iframe|@import|url\(|src=' "$page"; then
  fail self-contained; grep -oiE '.{20}(<script|<link|<img|<iframe|@import|url\(|src=).{20}' "$page"
else pass self-contained; fi
check csp has "$page" 'http-equiv="Content-Security-Policy" content="default-src '"'none'"
if load "$page" "$work/dom"; then pass chromium-load; else fail chromium-load; tail -5 "$work/dom.err"; fi
check no-console-message clean_console "$work/dom"
check svg-coverage has "$work/dom" '<svg id="plot-coverage"'
# The edges line has one point per row (no row lacks edges): M then L's.
d=$(grep -o '<path class="line edges" data-points="[0-9]*" d="[^"]*"' "$work/dom")
check edges-points [ "$(grep -o 'data-points="[0-9]*"' <<<"$d")" = "data-points=\"$rows\"" ]
check edges-path [ "$(grep -o 'L[0-9.]*,[0-9.]*' <<<"$d" | wc -l)" = $((rows - 1)) ]
check corpus-path grep -q '<path class="line corpus" data-points="'"$rows"'"' "$work/dom"
check execs-plot grep -q '<svg id="plot-execs".*' "$work/dom"
check axis-labels has "$work/dom" '>elapsed time (s)</text>'
check tick-labels [ "$(grep -o 'class="tick-label"' "$work/dom" | wc -l)" -ge 8 ]
sig=$(awk -F'\t' 'NR == 2 { print $5 }' "$run/findings.tsv")
check finding-signature has "$work/dom" "<code class=\"sig\">$(html_text <<<"$sig")</code>"
seqf=$(ls "$run"/findings/1-*.seq | head -n1)
missing_line=""
while IFS= read -r l; do
  [ -z "$l" ] || has "$work/dom" "$(html_text <<<"$l")" || missing_line=$l
done <"$seqf"
check finding-sequence [ -z "$missing_line" ]
[ -z "$missing_line" ] || echo "  not in the page: $missing_line"
check finding-sequence-pre grep -q '<pre class="seq">h1 = kv_open(' "$work/dom"
check finding-repro has "$work/dom" "$(grep -m1 'kv_open' "${seqf%.seq}.c" | html_text)"
check finding-report has "$work/dom" 'ERROR: AddressSanitizer: heap-use-after-free'
pill=$(grep -o 'pruned illegal [0-9.]*%' "$run/stats.txt" | tail -n1 | cut -d' ' -f3)
check stats-pruned has "$work/dom" "<div class=\"hl-v\">$pill</div><div class=\"hl-n\">candidates pruned as illegal</div>"
check stats-solver grep -q '<caption>Solver</caption>' "$work/dom"
check no-coverage-note has "$work/dom" 'No line coverage report'
check run-facts has "$work/dom" '<tr><th>engine</th><td>libfuzzer</td></tr>'

# The console check fails on a page with a script error (CSP removed so
# that it runs) and on one that loads from elsewhere (CSP blocks it).
sed -e 's|<meta http-equiv="Content-Security-Policy"[^>]*>||' \
  -e 's|</body>|<script>undefinedFunctionOfTheTest();</script></body>|' "$page" >"$work/bad-js.html"
load "$work/bad-js.html" "$work/bad-js"
if clean_console "$work/bad-js" >/dev/null; then fail console-catches-js-error
else check console-catches-js-error grep -q 'Uncaught ReferenceError: undefinedFunctionOfTheTest' "$work/bad-js.console"; fi
sed -e 's|</head>|<link rel="stylesheet" href="https://example.invalid/x.css"></head>|' "$page" >"$work/bad-css.html"
load "$work/bad-css.html" "$work/bad-css"
if clean_console "$work/bad-css" >/dev/null; then fail console-catches-external-load
else check console-catches-external-load grep -q 'Content Security Policy' "$work/bad-css.console"; fi

# ---- 3. A made-up run directory: HTML in its files, bad rows, gaps ----
syn=$work/syn
mkdir -p "$syn/findings" "$syn/coverage"
printf 'target=/t/a<b>&c\nengine=afl\nstarted=1700000000\nended=1700000125\n' >"$syn/run.txt"
printf 'command=fuzz "x" <y>\nnot a fact\ncolour=blue\n' >>"$syn/run.txt"
{
  printf 'elapsed_s\texecs\texecs_per_s\tcorpus\tedges\tfindings\tpruned_illegal_pct\tpruned_equiv_pct\tsolver_flips\n'
  printf '0\t0\t-\t3\t50\t0\t-\t-\t-\n'
  printf '2\t4000\t2000\t9\t61\t0\t10.5\t3.2\t0\n'
  printf 'two\t1\t1\t1\t1\t1\t1\t1\t1\n'       # not a number
  printf '4\t8000\t2000\t12\n'                  # too few fields
  printf '1\t9000\t2000\t12\t70\t0\t1\t1\t1\n'  # back in time
  printf '4\t8100\t2050\t12\t70\t1\t11.0\t3.0\t2\n'
  printf '6.5\t13000\t1960\t15\t-\t1\t11.2\t3.1\t2\n' # edges unknown: a gap
} >"$syn/progress.tsv"
printf 'id\tkind\tverdict\tcount\tsignature\n1\theap-use-after-free\tbug\t3\tuse <after> & "free" in f < g\nbroken\n' >"$syn/findings.tsv"
printf 'h1 = kv_open(4, 0);\nkv_put(h1, "<b>x</b> & \\"q\\"", "");\n' >"$syn/findings/1-heap-use-after-free.seq"
printf '/* </pre><script>alert(1)</script> */\nint main(void) { return 0; }\n' >"$syn/findings/1-heap-use-after-free.c"
printf 'bad byte \377 and a NUL \000 here\n' >"$syn/findings/1-heap-use-after-free.report.txt"
for i in $(seq 2 61); do echo "report line $i"; done >>"$syn/findings/1-heap-use-after-free.report.txt"
echo '<html>coverage</html>' >"$syn/coverage/index.html"
mkdir -p "$work/out"
"$sf" report "$syn" -o "$work/out/page.html" >"$work/syn.out" 2>"$work/syn.err"
check syn-exit [ $? = 0 ]
check syn-clean lacks "$work/syn.err" Sanitizer
check syn-says-stats-missing grep -q 'stats.txt: missing' "$work/syn.err"
sp=$work/out/page.html
# Escaping, in the file as written: the sequence's <, & and ".
check escape-seq has "$sp" 'kv_put(h1, &quot;&lt;b&gt;x&lt;/b&gt; &amp; \&quot;q\&quot;&quot;, &quot;&quot;);'
check escape-no-raw lacks "$sp" '<b>x</b>'
check escape-no-script lacks "$sp" '<script>alert'
check escape-repro has "$sp" '/* &lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt; */'
check escape-signature has "$sp" 'use &lt;after&gt; &amp; &quot;free&quot; in f &lt; g'
check escape-fact has "$sp" '<code>/t/a&lt;b&gt;&amp;c</code>'
check escape-command has "$sp" 'fuzz &quot;x&quot; &lt;y&gt;'
check utf8-replaced has "$sp" $'bad byte \xef\xbf\xbd and a NUL \xef\xbf\xbd here'
check rows-skipped has "$sp" 'skipped: 2 malformed, 1 going back in time'
check gap-in-line grep -q '<path class="line edges" data-points="3" d="M[^"]*"' "$sp"
check corpus-all grep -q '<path class="line corpus" data-points="4"' "$sp"
check finding-mark grep -q '<line class="findmark"' "$sp"
check findings-malformed has "$sp" '1 malformed row(s) of <code>findings.tsv</code> skipped'
check report-first-lines has "$sp" 'The first 40 of 61 lines'
lacks "$sp" 'report line 41' && pass report-cut || fail report-cut
check stats-missing has "$sp" '<code>stats.txt</code> missing'
check run-duration has "$sp" '<tr><th>duration</th><td>2 min 5 s</td></tr>'
check run-extra-fact has "$sp" '<tr><th>colour</th><td>blue</td></tr>'
check run-malformed has "$sp" '1 line(s) of <code>run.txt</code>'
# Links are relative to where the page is, and lead to the files.
check coverage-link has "$sp" '<a id="coverage-link" href="../syn/coverage/index.html">'
check coverage-link-resolves [ -f "$work/out/../syn/coverage/index.html" ]
check findings-link has "$sp" 'href="../syn/findings/1-heap-use-after-free.seq"'
if load "$sp" "$work/syn-dom"; then pass syn-chromium-load; else fail syn-chromium-load; fi
check syn-no-console-message clean_console "$work/syn-dom"
check syn-dom-text has "$work/syn-dom" 'kv_put(h1, "&lt;b&gt;x&lt;/b&gt; &amp; \"q\"", "");'
check syn-dom-no-element lacks "$work/syn-dom" '<b>x</b>'
check syn-dom-no-script lacks "$work/syn-dom" '<script'

# ---- 4. Exit codes, an empty run directory ----
expect_rc() { # expect_rc NAME WANTED command...
  local name=$1 want=$2
  shift 2
  "$@" >"$work/rc.out" 2>&1
  local rc=$?
  if [ $rc = "$want" ]; then pass "$name"; else fail "$name: exit $rc (wanted $want)"; cat "$work/rc.out"; fi
}
expect_rc usage-none 2 "$sf" report
expect_rc usage-two 2 "$sf" report "$run" "$syn"
expect_rc usage-option 2 "$sf" report "$run" --frobnicate x
expect_rc usage-novalue 2 "$sf" report "$run" -o
expect_rc help 0 "$sf" report --help
check help-text grep -q '^usage: seqfuzz report RUN_DIR' "$work/rc.out"
expect_rc not-a-dir 1 "$sf" report "$work/none"
expect_rc a-file 1 "$sf" report "$run/run.txt"
expect_rc no-out-dir 1 "$sf" report "$run" -o "$work/none/x.html"
mkdir "$work/empty"
expect_rc empty-dir 0 "$sf" report "$work/empty"
check empty-missing [ "$(grep -c 'missing' "$work/rc.out")" = 4 ]
check empty-sections [ "$(grep -o 'class="missing"' "$work/empty/report.html" | wc -l)" -ge 4 ]
check empty-clean lacks "$work/rc.out" Sanitizer

# Files of garbage (random bytes, huge numbers, endless lines) and a
# findings/ that is a file: a page all the same, and sanitizer-clean.
junk=$work/junk
mkdir -p "$junk"
for f in run.txt progress.tsv stats.txt findings.tsv; do head -c 20000 /dev/urandom >"$junk/$f"; done
"$sf" report "$junk" >"$work/junk.out" 2>&1
check junk-random [ $? = 0 ]
check junk-random-clean lacks "$work/junk.out" Sanitizer
printf 'started=1e300\nended=-5\n' >"$junk/run.txt"
{ printf 'elapsed_s\texecs\tedges\n1e300\t1e300\t5\n0\t-1\t3\n'; head -c 100000 /dev/zero | tr '\0' '\t'; echo; } >"$junk/progress.tsv"
{ printf 'id\tkind\tverdict\tcount\tsignature\n1\t../../x\tbug\t1\ts\n'; head -c 100000 /dev/zero | tr '\0' 'x'; echo; } >"$junk/findings.tsv"
{ printf 'seqfuzz: execs '; head -c 5000 /dev/zero | tr '\0' '|'; echo; printf 'seqfuzz: new code / outputs by mutation: a 1/0 b\n'; } >"$junk/stats.txt"
echo x >"$junk/findings"
"$sf" report "$junk" >"$work/junk.out" 2>&1
check junk-huge [ $? = 0 ]
check junk-huge-clean lacks "$work/junk.out" Sanitizer

echo "$passes passed, $fails failed"
[ $fails = 0 ]
