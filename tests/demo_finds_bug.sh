#!/usr/bin/env bash
# End to end: the seqfuzz fuzzer for the demo target finds the planted bug
# (heap-use-after-free after kv_snapshot + kv_del + kv_compact) from the seeds,
# with a fixed seed and a generous bound, and the crash prints as a sequence.
set -euo pipefail
build=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/crashes"
for s in "$src"/seeds/demo/seeds/*.seq; do
  "$build/seqfuzz" encode "$src/seeds/demo/kvstore.api" "$s" -o "$work/corpus/$(basename "$s")"
done
set +e
"$build/kvstore_fuzzer" "$work/corpus" -seed=1 -runs=300000 -artifact_prefix="$work/crashes/" \
  >"$work/log" 2>&1
set -e
crash=$(ls "$work"/crashes/crash-* 2>/dev/null | head -n1 || true)
if [ -z "$crash" ]; then
  tail -20 "$work/log"
  echo "FAIL: no crash found"
  exit 1
fi
grep -q "ERROR: AddressSanitizer: heap-use-after-free" "$work/log" || { echo "FAIL: wrong kind"; exit 1; }
grep -q "in kv_compact" "$work/log" || { echo "FAIL: the free is not in kv_compact"; exit 1; }
"$build/seqfuzz" show "$src/seeds/demo/kvstore.api" "$crash" >"$work/text"
cat "$work/text"
grep -q "kv_snapshot(" "$work/text" && grep -q "kv_compact(" "$work/text" ||
  { echo "FAIL: crashing sequence lacks kv_snapshot/kv_compact"; exit 1; }
# The hand-minimized reproducers of the bug (bench/minimize.sh compares with
# them) still crash the way their comments say.
for bug in "$src"/seeds/demo/bugs/*.seq; do
  "$build/seqfuzz" encode "$src/seeds/demo/kvstore.api" "$bug" -o "$work/known"
  if "$build/kvstore_fuzzer" "$work/known" >"$work/known.log" 2>&1; then
    echo "FAIL: $(basename "$bug") does not crash"
    exit 1
  fi
  case "$(basename "$bug")" in
  *double-free*) want="double-free in kv_compact" ;;
  *iter-uaf*) want="heap-use-after-free in kv_iter_next" ;;
  *) want="heap-use-after-free in blob_unref < clear_slot < kv_close" ;;
  esac
  [ "$("$build/seqfuzz" signature "$work/known.log")" = "$want" ] ||
    { echo "FAIL: $(basename "$bug") crashes differently"; exit 1; }
done
echo "PASS: found after $(grep -m1 -o 'stat::number_of_executed_units: [0-9]*' "$work/log" || echo '?')"
