#!/usr/bin/env bash
# npuwb's --input-shape and scripted sessions on a model with symbolic input dims: a scripted run never waits on the
# Input Shapes dialog (a missing shape is exit 1 naming the input), --input-shape shapes the run, the shapes are then
# remembered for the file, and bad specs, unknown inputs and wrong ranks are exit 1 naming what is wrong.
set -u
GUI="$1"; WORK="$2"
rm -rf "$WORK"; mkdir -p "$WORK"
export QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME="$WORK/config"  # fresh settings: nothing remembered yet
/usr/bin/python3 "$(dirname "$0")/../tools/make_symbolic_input_model.py" "$WORK/dynamic.onnx" || exit 1
M="$WORK/dynamic.onnx"
failures=0
run() {  # run NAME WANT_RC NEEDLE -- npuwb arguments...: exit status WANT_RC within 60 s, NEEDLE on stderr
  local name="$1" want="$2" needle="$3"; shift 4
  local err rc
  err=$(timeout 60 "$GUI" "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -eq "$want" ] && grep -qF -- "$needle" <<<"$err"; then echo "ok   $name: $(tail -1 <<<"$err")"
  else echo "FAIL $name (exit $rc, wanted $want and '$needle'): $err"; failures=$((failures + 1)); fi
}
first_input_shape() {  # the first layer's input shape in a report
  /usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["layers"][0]["inputShape"][0])' "$1"
}
run missing-shape   1 "input x [?,3,?,?] has symbolic dims: give them with --input-shape x=" -- \
    "$M" --run --report "$WORK/none.json"
[ ! -e "$WORK/none.json" ] || { echo "FAIL missing-shape wrote a report"; failures=$((failures + 1)); }
run missing-shot    1 "input x [?,3,?,?] has symbolic dims" -- "$M" --run --screenshot "$WORK/none.png"
run bad-spec        1 "'x=1,3,a,8': 'a' is not a positive number" -- "$M" --input-shape x=1,3,a,8 --run
run unknown-input   1 "the model has no input 'image' (inputs: x)" -- "$M" --input-shape image=1,3,8,8 --run
run wrong-rank      1 "input x [?,3,?,?]: [1,3,8] does not fit" -- "$M" --input-shape x=1,3,8 --run
run fixed-dim       1 "input x [?,3,?,?]: [1,4,8,8] does not fit" -- "$M" --input-shape x=1,4,8,8 --run
run given           0 "" -- "$M" --input-shape x=2,3,20,24 --run --report "$WORK/given.json"
shape=$(first_input_shape "$WORK/given.json" 2>&1)
[ "$shape" = "[2, 3, 20, 24]" ] && echo "ok   given: ran at $shape" ||
  { echo "FAIL given ran at $shape"; failures=$((failures + 1)); }
run remembered      0 "the input shapes last used with it: input x [2,3,20,24]" -- \
    "$M" --run --report "$WORK/remembered.json"
shape=$(first_input_shape "$WORK/remembered.json" 2>&1)
[ "$shape" = "[2, 3, 20, 24]" ] && echo "ok   remembered: ran at $shape" ||
  { echo "FAIL remembered ran at $shape"; failures=$((failures + 1)); }
run needs-model     1 "--input-shape needs a MODEL" -- --input-shape x=1,3,8,8
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
