# tests/checks.sh: sourced by the shell tests that count checks. Needs $work
# (a scratch directory). pass/fail count and print; check NAME CMD... passes
# when the command succeeds; expect NAME WANTED_EXIT PATTERN -- CMD... when it
# exits so and its output matches PATTERN (an ERE; "" for any). The test ends
# with `checks_done`, which prints the counts and exits 1 on any failure.
fails=0 passes=0
pass() { echo "ok   $1"; passes=$((passes + 1)); }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }
check() {
  local name=$1
  shift
  if "$@" >"$work/check.out" 2>&1; then pass "$name"; else
    fail "$name"
    cat "$work/check.out"
  fi
}
expect() {
  local name=$1 want=$2 pat=$3
  shift 4
  "$@" >"$work/out" 2>&1
  local rc=$?
  if [ "$rc" != "$want" ] || { [ -n "$pat" ] && ! grep -qE -- "$pat" "$work/out"; }; then
    fail "$name: exit $rc (wanted $want), output:"
    cat "$work/out"
  else
    pass "$name"
  fi
}
