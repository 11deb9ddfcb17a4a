#!/usr/bin/env bash
# --input-shape NAME=D1,D2,... on `run` and `profile`: bad specs give exit 1 and a message naming the spec; good ones
# shape the generated inputs (symbolic dims made concrete).
set -u
CLI="$1"; WORK="$2"; FIXED="$3"  # FIXED: a model with a fully static input 'image' [1,3,128,128]
mkdir -p "$WORK"
/usr/bin/python3 "$(dirname "$0")/../tools/make_symbolic_input_model.py" "$WORK/dynamic.onnx" || exit 1
failures=0
expect() {  # expect NAME EXPECTED_SUBSTRING -- command...
  local name="$1" needle="$2"; shift 3
  local out rc
  out=$(timeout 60 "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -eq 1 ] && grep -qF -- "$needle" <<<"$out"; then echo "ok   $name: $out"
  else echo "FAIL $name (exit $rc, wanted 1 and '$needle'): $out"; failures=$((failures + 1)); fi
}
M="$WORK/dynamic.onnx"
expect no-equals      "'x1,3,8,8'"           -- "$CLI" run "$M" --input-shape x1,3,8,8
expect empty-name     "'=1,3,8,8'"           -- "$CLI" run "$M" --input-shape =1,3,8,8
expect no-dims        "'x='"                 -- "$CLI" profile "$M" --input-shape x=
expect not-a-number   "'x=1,3,a,8': 'a'"     -- "$CLI" run "$M" --input-shape x=1,3,a,8
expect trailing-junk  "'x=1,3,8x,8': '8x'"   -- "$CLI" profile "$M" --input-shape x=1,3,8x,8
expect empty-dim      "'x=1,,8,8'"           -- "$CLI" run "$M" --input-shape x=1,,8,8
expect negative       "'x=1,3,-8,8'"         -- "$CLI" run "$M" --input-shape x=1,3,-8,8
expect unknown-input  "'nope'"               -- "$CLI" profile "$M" --input-shape nope=1,3,8,8
expect wrong-rank     "[N,3,H,W]"            -- "$CLI" run "$M" --input-shape x=1,3,8
expect fixed-dim      "[1,3,128,128]"        -- "$CLI" profile "$FIXED" --input-shape image=1,3,64,64
# Good specs: the generated input has the given shape.
out=$("$CLI" run "$M" --input-shape x=2,3,17,9 2>/dev/null)
if grep -qF "y: float32 [2,3,1,1]" <<<"$out"; then echo "ok   run shape: $out"
else echo "FAIL run shape: $out"; failures=$((failures + 1)); fi
out=$("$CLI" profile "$M" --runs 1 --warmup 0 -q --input-shape x=2,3,17,9 2>/dev/null)
if grep -qF "[2,3,17,9]" <<<"$out"; then echo "ok   profile shape"
else echo "FAIL profile shape: $out"; failures=$((failures + 1)); fi
if [ "$failures" -eq 0 ]; then echo "all --input-shape checks passed"; exit 0; fi
echo "$failures --input-shape checks failed"; exit 1
