# Sourced by the CLI test scripts: `fail MESSAGE` counts a failure in $failures; `expect NAME NEEDLE -- COMMAND...`
# runs COMMAND (120 s at most) and wants exit 1 with NEEDLE in its stderr.
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
expect() {
  local name="$1" needle="$2"; shift 3
  local out rc
  out=$(timeout 120 "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -eq 1 ] && grep -qF -- "$needle" <<<"$out"; then echo "ok   $name: $out"
  else fail "$name (exit $rc, wanted 1 and '$needle'): $out"; fi
}
