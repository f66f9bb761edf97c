#!/usr/bin/env bash
# Set aside the bugs a campaign found so far (docs/workflow.md, "Known
# bugs"): triage the crash files not seen before and write a pattern
# (`seqfuzz known`) for each group into KNOWN, where the fuzzers pick it up.
# `seqfuzz fuzz` runs it in the background while the engine goes on.
#
#   scripts/learn-known.sh SEQFUZZ API FUZZER CRASHES KNOWN WORK
set -uo pipefail
[ $# -eq 6 ] || { echo "usage: learn-known.sh SEQFUZZ API FUZZER CRASHES KNOWN WORK" >&2; exit 2; }
sf=$1 api=$2 fuzzer=$3 crashes=$4 known=$5 work=$6
mkdir -p "$work" "$known"
seen=$work/seen
touch "$seen"
batch=$work/batch
rm -rf "$batch"
mkdir -p "$batch"
for f in "$crashes"/*; do
  [ -f "$f" ] || continue
  n=$(basename "$f")
  grep -qxF -- "$n" "$seen" && continue
  echo "$n" >>"$seen"
  cp -- "$f" "$batch/"
done
[ -n "$(ls -A "$batch")" ] || exit 0
"$sf" triage "$api" "$batch" --target "$fuzzer" -o "$batch/t" --known "$known" --max-seconds 10 >>"$work/triage.log" 2>&1
for in in "$batch"/t/*.input; do
  [ -f "$in" ] || continue
  tmp=$work/pattern.seq
  # A bug already set aside that crashed again: a variant its pattern does
  # not cover. Its wide pattern sets it aside where it is armed.
  sig=$("$sf" signature "${in%.input}.report.txt" 2>/dev/null || true)
  widen=()
  for p in "$known"/*.seq; do
    [ -f "$p" ] && [ -n "$sig" ] && [ "$(head -n1 "$p")" = "# a known bug: $sig" ] && widen=(--widen)
  done
  # A divergence's signature names a function and what differed, not a bug
  # (pcre2-jit's are nearly all "divergence in pj_match [result]"): one with
  # a known bug's signature may be a new bug, so it gets its own pattern of
  # calls, never one by signature or a widened one.
  case "$sig" in "divergence in "*) widen=() ;; esac
  if [ ${#widen[@]} -gt 0 ] && grep -q "ERROR: seqfuzz: " "${in%.input}.report.txt"; then
    # A finding of seqfuzz's own checks that came back: its variants are
    # as many as the values that show it (a printer that fails on many
    # documents). Set aside by its signature (harness/known.h).
    printf '# a known bug: %s\n# (came back as a variant of its pattern: set aside by its signature)\n# signature: %s\n' \
      "$sig" "$sig" >"$tmp"
  else
    "$sf" known "$api" "$in" --target "$fuzzer" -o "$tmp" "${widen[@]}" 2>>"$work/known.log" || continue
  fi
  # A crash whose minimized form is a pattern already there (a variant the
  # pattern does not cover) adds nothing.
  dup=0
  for p in "$known"/*.seq; do
    [ -f "$p" ] && cmp -s "$p" "$tmp" && dup=1
  done
  if [ "$dup" = 0 ]; then
    k=$(ls "$known" | grep -c '\.seq$')
    mv "$tmp" "$known/learned-$((k + 1))-$(basename "$in" .input).seq"
    echo "set aside: $(grep -v '^#' "$known/learned-$((k + 1))-$(basename "$in" .input).seq" | tr '\n' ' ')" >>"$work/learned.log"
  fi
done
rm -rf "$batch"
