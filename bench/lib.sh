# bench/lib.sh: what the coverage benchmarks share (sourced, not run).

# median: the median of the numbers on stdin (for an even count the mean of
# the middle two: rounded down when they are integers, to hundredths when
# not, as search.sh's seconds).
median() {
  tr ' ' '\n' | grep -v '^$' | sort -n |
    awk '{a[NR]=$1} END {
      if (NR % 2) { print a[(NR+1)/2]; exit }
      x = a[NR/2]; y = a[NR/2+1]
      if (x ~ /\./ || y ~ /\./) printf "%.2f\n", (x + y) / 2; else print int((x + y) / 2)
    }'
}

# bench_tree ROOT PATH COMMIT: a git worktree of ROOT at COMMIT in PATH,
# sharing ROOT's unpacked Debian sources (build/targets/cache).
bench_tree() {
  local root=$1 t=$2 commit=$3
  [ -e "$t/.git" ] || git -C "$root" worktree add -f --detach "$t" "$commit" >/dev/null 2>&1
  git -C "$t" checkout -q -f --detach "$commit"
  mkdir -p "$t/build/targets" "$root/build/targets/cache"
  [ -e "$t/build/targets/cache" ] || ln -s "$root/build/targets/cache" "$t/build/targets/cache"
}

# coverage_run TREE LIB CORPUS SEED CORE SECONDS: fuzz LIB with TREE's
# seqfuzz fuzzer (built by scripts/build-target.sh LIB libfuzzer) from its
# seed corpus into CORPUS, on one core, fork mode with crashes ignored (as
# bench/coverage.sh); the log in CORPUS.log, crashes in CORPUS.crashes/.
coverage_run() {
  local tree=$1 lib=$2 corpus=$3 seed=$4 core=$5 secs=$6
  local bindir="$tree/build/targets/$lib/libfuzzer"
  rm -rf "$corpus" "$corpus.crashes"
  mkdir -p "$corpus" "$corpus.crashes"
  unzip -q -o "$bindir/${lib}_seqfuzz_seed_corpus.zip" -d "$corpus"
  SEQFUZZ_STATS=0 taskset -c "$core" "$bindir/${lib}_seqfuzz" -max_total_time="$secs" -seed="$seed" \
    -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 -timeout=25 -rss_limit_mb=2560 \
    -artifact_prefix="$corpus.crashes/" -dict="$bindir/${lib}_seqfuzz.dict" "$corpus" \
    >"$corpus.log" 2>&1 || true
}

# coverage_branches TREE LIB REPORT CORPUS: the branches of LIB's own files
# that CORPUS covers (TREE's scripts/coverage-target.sh).
coverage_branches() {
  local b
  read -r _ _ _ b _ < <("$1/scripts/coverage-target.sh" "$2" -o "$3" "$4" 2>/dev/null | grep '^COVERAGE')
  echo "$b"
}
