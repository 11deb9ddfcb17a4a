#!/usr/bin/env bash
# Every bad input gives exit code 1 and a message that names the problem; never a crash (exit >= 128) or hang.
set -u
CLI="$1"; WORK="$2"
/usr/bin/python3 "$(dirname "$0")/make_bad_models.py" "$WORK" || exit 1
failures=0
expect() {  # expect NAME EXPECTED_SUBSTRING -- command...
  local name="$1" needle="$2"; shift 3
  local out rc
  out=$(timeout 60 "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -eq 1 ] && grep -qF -- "$needle" <<<"$out"; then
    echo "ok   $name: $out"
  else
    echo "FAIL $name (exit $rc, wanted 1 and '$needle'): $out"; failures=$((failures + 1))
  fi
}
expect truncated        "truncated.onnx"        -- "$CLI" info "$WORK/truncated.onnx"
expect garbage          "garbage.onnx"          -- "$CLI" info "$WORK/garbage.onnx"
expect missing-file     "no-such.onnx"          -- "$CLI" info "$WORK/no-such.onnx"
expect cyclic           "cycle"                 -- "$CLI" run "$WORK/cyclic.onnx"
expect missing-init     "'bias'"                -- "$CLI" run "$WORK/missing_initializer.onnx"
expect unknown-op       "FancyAttention"        -- "$CLI" run "$WORK/unknown_op.onnx"
expect wrong-shape      "[2,4]"                 -- "$CLI" run "$WORK/good.onnx" --input "x=$WORK/x_wrong_shape.npy"
expect wrong-input-name "no input named 'nope'" -- "$CLI" run "$WORK/good.onnx" --input "nope=$WORK/x_ok.npy"
expect huge-dimension   "make_big"              -- "$CLI" run "$WORK/huge_dimension.onnx"
expect short-raw-data   "initializer 'w'"       -- "$CLI" info "$WORK/short_raw_data.onnx"
expect escaping-extdata "leaves the model's folder" -- "$CLI" info "$WORK/escaping_external_data.onnx"
expect bad-npy          "good.onnx"             -- "$CLI" run "$WORK/good.onnx" --input "x=$WORK/good.onnx"
expect bad-runs         "runs"                  -- "$CLI" profile "$WORK/good.onnx" --runs 0
if [ "$failures" -eq 0 ]; then echo "all bad-input checks passed"; exit 0; fi
echo "$failures bad-input checks failed"; exit 1
