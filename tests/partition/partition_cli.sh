#!/usr/bin/env bash
# npuwb-cli partition: predicted (Snapdragon profile, a Rockchip profile) and executed (two local cores) reports
# validate and are consistent; bad input exits 1 with a message naming the fault.
set -u
CLI="$1"; WORK="$2"; SRC="$3"
mkdir -p "$WORK"
MODEL="$SRC/resources/samples/tiny_mobilenet.onnx"
CHECK="/usr/bin/python3 $SRC/tests/partition/validate_partition.py $SRC/resources/schema/report.schema.json"
failures=0
run() {  # run NAME -- command...: must exit 0
  local name="$1"; shift 2
  local out
  if out=$(timeout 300 "$@" 2>&1); then echo "ok   $name"; else echo "FAIL $name: $out"; failures=$((failures + 1)); fi
}
expect() {  # expect NAME EXPECTED_SUBSTRING -- command...: must exit 1 naming the fault
  local name="$1" needle="$2"; shift 3
  local out rc
  out=$(timeout 60 "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -eq 1 ] && grep -qF -- "$needle" <<<"$out"; then echo "ok   $name: $out"
  else echo "FAIL $name (exit $rc, wanted 1 and '$needle'): $out"; failures=$((failures + 1)); fi
}
run predict-snapdragon -- "$CLI" partition "$MODEL" --devices snapdragon-x2-elite --frames 8 --json "$WORK/sd.json"
run check-snapdragon -- $CHECK "$WORK/sd.json"
run predict-rk3588 -- "$CLI" partition "$MODEL" --devices rk3588 --frames 8 --reasons --json "$WORK/rk.json"
run check-rk3588 -- $CHECK "$WORK/rk.json"
bad="$WORK/bad-device.json"
sed 's/"kind": "gpu"/"kind": "tpu"/' "$SRC/resources/devices/snapdragon-x2-elite.json" > "$bad"
expect unknown-device "unknown device profile 'nope'" -- "$CLI" partition "$MODEL" --devices nope
expect bad-profile    "field 'units[1].kind': expected npu, gpu or cpu, got 'tpu'" -- "$CLI" partition "$MODEL" --devices "$bad"
expect unknown-unit   "has no unit 'TPU'" -- "$CLI" partition "$MODEL" --devices snapdragon-x2-elite --units NPU,TPU
expect bad-schedule   "--schedule" -- "$CLI" partition "$MODEL" --devices snapdragon-x2-elite --schedule fastest
expect no-devices     "--devices" -- "$CLI" partition "$MODEL"
expect missing-model  "missing.onnx" -- "$CLI" partition "$WORK/missing.onnx" --devices snapdragon-x2-elite
expect single-unit    "'GPU' is not among the units used" -- "$CLI" partition "$MODEL" --devices snapdragon-x2-elite --units NPU --single-unit GPU
# Executed on two local cores (needs two CPUs and both CPU backends).
if [ "$(nproc)" -lt 2 ]; then echo "skip local execution: fewer than 2 CPUs"; [ "$failures" -eq 0 ] && exit 77; exit 1; fi
run execute-local -- "$CLI" partition "$MODEL" --devices local-2core --frames 6 --warmup 1 --calibration-runs 2 --gantt 3 --json "$WORK/local.json"
run check-local -- $CHECK "$WORK/local.json" --measured
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
