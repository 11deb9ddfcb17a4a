#!/usr/bin/env bash
# `npuwb-cli convert-rknn` against the stand-in RKNN-Toolkit2 module (toolkit-standin/rknn/api.py, which records
# every call): a real quantization of PP-OCRv4 det with two layers kept in fp16 feeds the conversion; the recorded
# config/load_onnx/hybrid calls, the edited .quantization.cfg and the written .rknn are checked. Then: a plain
# build with an observer given on the command line, the no-toolkit path (command printed, exit 0; --run: exit 1),
# toolkit failure, --timeout cancel, and bad input.
# usage: cli_convert_rknn.sh NPUWB_CLI WORK_DIR SOURCE_DIR
set -euo pipefail
cli=$1 work=$2 src=$3
py=/usr/bin/python3
model=$src/tests/data/models/ch_PP-OCRv4_det_infer.onnx
standin=$src/tests/rknpu/toolkit-standin
[ -f "$model" ] || { echo "SKIP: no $model (scripts/fetch-models.sh)"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Three 64x64 text-like images and the PP-OCR preprocessing (ImageNet mean/std on 0..1 pixels).
$py - <<'PY'
import json
import numpy as np
from PIL import Image
rng = np.random.default_rng(3)
names = []
for i in range(3):
    page = np.full((64, 64, 3), 230, np.uint8)
    for row in range(4, 60, 12):
        page[row:row + 5, rng.integers(2, 10):rng.integers(40, 62)] = 20
    Image.fromarray(page).save(f"page{i}.png")
    names.append(f"page{i}.png")
open("dataset.txt", "w").write("\n".join(names) + "\n")
json.dump({"mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225], "size": [64, 64]}, open("pre.json", "w"))
PY
# Keep the last two Conv layers in fp16: their names and output tensors, from the model itself.
$py - "$model" <<'PY'
import json, sys
import onnx
convs = [n for n in onnx.load(sys.argv[1]).graph.node if n.op_type == "Conv"][-2:]
open("hybrid.txt", "w").write("".join(f"{n.name} fp16\n" for n in convs))
json.dump({n.output[0]: n.name for n in convs}, open("expected_layers.json", "w"))
PY
"$cli" quantize "$model" --dataset dataset.txt --preprocess pre.json --scheme w8a8 --observer kl --hybrid hybrid.txt \
  --threads 1 -o det_w8a8.onnx --json quant.json -q > quantize.out

export PYTHONPATH=$standin RKNN_STANDIN_LOG=$work/calls.log
# 1. Hybrid conversion from the quantization report (data set, preprocessing, scheme, observer all from it).
"$cli" convert-rknn "$model" --target RK3588 --from-quantization quant.json --python $py -o out/det.rknn | tee hybrid.out
grep -q "wrote $work/out/det.rknn" hybrid.out || fail "no 'wrote' line"
grep -q "^\[npuwb\] step 6/6: export_rknn" hybrid.out || fail "no progress lines"
[ -f out/det.convert.py ] && [ -f out/det.dataset.txt ] || fail "script or data set list missing"
[ ! -e out/det.rknn.npuwb-tmp ] || fail "temporary output left behind"
$py - "$work" "$model" <<'PY'
import json, os, sys
work, model = sys.argv[1], sys.argv[2]
calls = [json.loads(l) for l in open(os.path.join(work, "calls.log"))]
names = [c["call"] for c in calls]
assert names == ["RKNN", "config", "load_onnx", "hybrid_quantization_step1", "release", "RKNN",
                 "hybrid_quantization_step2", "export_rknn", "release"], names
by = {c["call"]: c["args"] for c in calls}
cfg = by["config"]
assert cfg["target_platform"] == "rk3588", cfg
assert cfg["mean_values"] == [[123.675, 116.28, 103.53]], cfg
assert cfg["std_values"] == [[58.395, 57.12, 57.375]], cfg
assert (cfg["quantized_dtype"], cfg["quantized_algorithm"], cfg["quantized_method"]) == ("w8a8", "kl_divergence", "channel"), cfg
assert cfg["quant_img_RGB2BGR"] is False, cfg
load = by["load_onnx"]
assert load["model"] == model and load["inputs"] == ["x"] and load["input_size_list"] == [[1, 3, 64, 64]], load
dataset = os.path.join(work, "out", "det.dataset.txt")
assert by["hybrid_quantization_step1"]["dataset"] == dataset, by["hybrid_quantization_step1"]
assert open(dataset).read().split() == [os.path.join(work, f"page{i}.png") for i in range(3)]
expected = json.load(open(os.path.join(work, "expected_layers.json")))
custom = by["hybrid_quantization_step2"]["custom_quantize_layers"]
assert custom == {t: "float16" for t in expected}, (custom, expected)
assert by["export_rknn"]["export_path"] == os.path.join(work, "out", "det.rknn.npuwb-tmp")
blob = open(os.path.join(work, "out", "det.rknn"), "rb").read()
assert blob.startswith(b"RKNN-STANDIN\n"), blob[:20]
print(f"hybrid: {len(custom)} layer(s) in float16 {sorted(custom)}, .rknn {len(blob)} bytes")
PY

# 2. Plain build: no report, observer and preprocessing from the command line.
rm -f calls.log
"$cli" convert-rknn "$model" --target rv1106 --dataset dataset.txt --preprocess pre.json --observer mmse \
  --python $py -o out/plain.rknn > plain.out
$py - "$work" <<'PY'
import json, os, sys
calls = [json.loads(l) for l in open(os.path.join(sys.argv[1], "calls.log"))]
by = {c["call"]: c["args"] for c in calls}
assert "hybrid_quantization_step1" not in by, by
assert by["config"]["target_platform"] == "rv1106" and by["config"]["quantized_algorithm"] == "mmse", by["config"]
assert by["build"]["do_quantization"] is True and by["build"]["dataset_lines"] and len(by["build"]["dataset_lines"]) == 3
print("plain build:", by["config"]["quantized_dtype"], by["config"]["quantized_algorithm"])
PY

# 3. No toolkit: the script and the exact command, exit 0; --run makes it an error; --script-only never probes.
unset PYTHONPATH
"$cli" convert-rknn "$model" --target rk3566 --input-shape x=1,3,64,64 --python $py -o out/nokit.rknn > nokit.out
grep -q "cannot import rknn.api" nokit.out || fail "no 'cannot import' message"
grep -qF "'$py' '$work/out/nokit.convert.py'" nokit.out || fail "exact command not printed"
grep -q "float16 model" nokit.out || fail "no note about the missing data set"
[ ! -e out/nokit.rknn ] || fail "a .rknn without the toolkit"
if "$cli" convert-rknn "$model" --target rk3566 --input-shape x=1,3,64,64 --python $py --run -o out/nokit.rknn \
    > run.out 2> run.err; then fail "--run without the toolkit succeeded"; fi
grep -q "cannot import rknn.api" run.err || fail "--run error does not say why"
"$cli" convert-rknn "$model" --target rk3566 --input-shape x=1,3,64,64 --python /nonexistent/python3 -o out/nopy.rknn \
  > nopy.out
grep -q "'/nonexistent/python3' was not found" nopy.out || fail "missing Python not named"
# The printed command runs the script as is once the toolkit is there.
PYTHONPATH=$standin RKNN_STANDIN_LOG=$work/direct.log $py out/nokit.convert.py > direct.out
[ -f out/nokit.rknn ] || fail "the printed command did not convert"
grep -q '"do_quantization": false' direct.log || fail "float16 build not recorded"

# 4. Toolkit failure and cancel by --timeout (the stand-in's build sleeps).
export PYTHONPATH=$standin
if RKNN_STANDIN_FAIL=build "$cli" convert-rknn "$model" --target rk3588 --dataset dataset.txt --preprocess pre.json \
    --python $py -o out/fail.rknn > fail.out 2> fail.err; then fail "a failing build succeeded"; fi
grep -q "RKNN-Toolkit2 failed (exit 3)" fail.err || fail "toolkit failure not reported: $(cat fail.err)"
[ ! -e out/fail.rknn ] || fail "output written after a failure"
start=$(date +%s)
if RKNN_STANDIN_SLEEP=60 "$cli" convert-rknn "$model" --target rk3588 --dataset dataset.txt --preprocess pre.json \
    --python $py --timeout 2 -o out/slow.rknn > slow.out 2> slow.err; then fail "--timeout did not stop it"; fi
elapsed=$(( $(date +%s) - start ))
grep -q "stopped after the --timeout" slow.err || fail "timeout not reported: $(cat slow.err)"
grep -q "\[npuwb\] cancelled" slow.out || fail "the script did not see the cancel"
[ "$elapsed" -lt 30 ] || fail "cancel took ${elapsed}s"
[ ! -e out/slow.rknn ] && [ ! -e out/slow.rknn.npuwb-tmp ] || fail "output left after cancel"
# Ctrl+C (SIGINT to the CLI): the CLI stops the script once, which removes its temporary output; exit 1.
RKNN_STANDIN_SLEEP=60 "$cli" convert-rknn "$model" --target rk3588 --dataset dataset.txt --preprocess pre.json \
  --python $py -o out/int.rknn > int.out 2> int.err &
cli_pid=$!
for _ in $(seq 100); do grep -q "step 3/4" int.out && break; sleep 0.2; done
grep -q "step 3/4" int.out || fail "the script never reached build()"
kill -INT $cli_pid
set +e; wait $cli_pid; rc=$?; set -e
[ $rc -eq 1 ] || fail "exit $rc after SIGINT (want 1)"
grep -q "conversion cancelled" int.err || fail "cancel not reported: $(cat int.err)"
grep -q "\[npuwb\] cancelled" int.out || fail "the script did not see the cancel"
[ ! -e out/int.rknn ] && [ ! -e out/int.rknn.npuwb-tmp ] || fail "output left after SIGINT"

# 5. Bad input: exit 1 naming what is wrong.
expect_error() {  # expect_error PATTERN ARGS...
  local pattern=$1; shift
  set +e; "$cli" convert-rknn "$@" > bad.out 2> bad.err; local rc=$?; set -e
  [ $rc -eq 1 ] || fail "exit $rc (want 1) for: $*"
  grep -qF -- "$pattern" bad.err || fail "no '$pattern' in: $(cat bad.err)"
}
expect_error "unknown target chip 'rk9999' (chip profiles: " "$model" --target rk9999 -o out/x.rknn --script-only
expect_error "missing.onnx" "$work/missing.onnx" --target rk3588 -o out/x.rknn
expect_error "has a symbolic size" "$model" --target rk3588 -o out/x.rknn --script-only
expect_error "$work/pre.json: not a quantization" "$model" --target rk3588 --from-quantization "$work/pre.json" -o out/x.rknn
expect_error "no percentile observer" "$model" --target rk3588 --dataset dataset.txt --preprocess pre.json --observer percentile -o out/x.rknn
echo "PASS"
