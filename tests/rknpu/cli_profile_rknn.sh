#!/bin/bash
# npuwb-cli profile MODEL.rknn against the stand-in librknnrt.so (standin/): "not available" without a runtime (also
# through the run-rknn alias), a full run whose report validates and carries the runtime section, a contexts sweep,
# core masks accepted and refused (by the runtime and by --chip), bad inputs refused naming the input, and the mini
# runtime (the stand-in librknnmrt.so) through the zero-copy I/O path, said in the output, its failures named.
# usage: cli_profile_rknn.sh NPUWB_CLI WORK_DIR SOURCE_DIR STANDIN_LIBRKNNRT STANDIN_LIBRKNNMRT
set -u
cli=$1 work=$2 src=$3 standin=$4 mini=$5
py=/usr/bin/python3
validate="$py $src/tests/cli/validate_report.py $src/resources/schema/report.schema.json"
rm -rf "$work" && mkdir -p "$work"
fails=0 passes=0
check() {  # check NAME CONDITION...
    local name=$1; shift
    if "$@"; then passes=$((passes + 1)); else echo "FAIL: $name"; fails=$((fails + 1)); fi
}

# A small ONNX model (x [1,3,8,8] -> Conv -> Relu) wrapped into the stand-in's container for two chips.
$py - "$work/small.onnx" <<'PY'
import sys, numpy as np, onnx
from onnx import helper, TensorProto, numpy_helper
rng = np.random.default_rng(3)
w = numpy_helper.from_array(rng.uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32), "w")
g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                       helper.make_node("Relu", ["c"], ["y"])], "small",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])], [w])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
PY
for chip in rk3588 rk3566; do
    $py "$src/tests/rknpu/standin/make_standin_rknn.py" "$work/small.onnx" --target $chip -o "$work/$chip.rknn"
done
check "containers made" test -s "$work/rk3588.rknn" -a -s "$work/rk3566.rknn"

# Without a runtime: a clear answer and exit 1, also through the former command name.
for command in profile run-rknn; do
    env -u NPUWB_RKNNRT_LIBRARY "$cli" $command "$work/rk3588.rknn" >/dev/null 2>"$work/none.err"
    check "$command without runtime exits 1" test $? -eq 1
    check "$command says not available" grep -q "librknnrt.so not available on this board" "$work/none.err"
done

export NPUWB_RKNNRT_LIBRARY=$standin
"$cli" profile "$work/rk3588.rknn" --runs 3 --warmup 1 --json "$work/run.json" >"$work/run.out" 2>"$work/run.err"
check "profile .rknn exits 0" test $? -eq 0
check "report validates" $validate "$work/run.json"
check "report has the runtime section" $py -c "
import json; r = json.load(open('$work/run.json'))
rt = r['runtime']; assert r['environment']['backend'] == 'rknpu' and len(r['layers']) >= 1, r['layers']
assert len(rt['contexts']) == 1 and rt['weightBytes'] == 4*3*3*3*4 and rt['samplesPerSecond'] > 0, rt
assert r['run']['runs'] == 3 and 'COLLECT_PERF' in rt['layerTiming'], rt"
check "table printed" grep -q "Pass time: median" "$work/run.out"
check "memory printed" grep -q "Memory: weights 432 B (once, shared)" "$work/run.out"
check "I/O path printed" grep -q "I/O path: rknn_inputs_set / rknn_outputs_get" "$work/run.out"

# Throughput against contexts: one report per point, a table row per point.
"$cli" profile "$work/rk3588.rknn" --batch 3 --contexts 1,2,3 --runs 2 --warmup 0 \
    --json "$work/sweep.json" >"$work/sweep.out" 2>"$work/sweep.err"
check "sweep exits 0" test $? -eq 0
check "sweep has 3 rows" test "$(grep -cE '^3 +[123] ' "$work/sweep.out")" -eq 3
for n in 1 2 3; do check "sweep report c$n validates" $validate "$work/sweep.b3.c$n.json"; done

# Core masks: per context on the 3-core chip; refused by the runtime and by --chip on a 1-core chip.
"$cli" profile "$work/rk3588.rknn" --batch 3 --core-mask 0,1,2 --runs 1 --warmup 0 --json "$work/masks.json" \
    >/dev/null 2>&1
check "per-context masks accepted" $py -c "
import json; r = json.load(open('$work/masks.json'))
assert [c['coreMask'] for c in r['runtime']['contexts']] == ['0', '1', '2'], r['runtime']['contexts']"
"$cli" profile "$work/rk3566.rknn" --core-mask 1 --runs 1 >/dev/null 2>"$work/mask.err"
check "mask refused exits 1" test $? -eq 1
check "mask refusal said" grep -q "rknn_set_core_mask(context 0, '1') failed with RKNN error -5" "$work/mask.err"
"$cli" profile "$work/rk3566.rknn" --chip rk3566 --core-mask 0_1 --runs 1 >/dev/null 2>"$work/chip.err"
check "--chip refusal exits 1" test $? -eq 1
check "--chip refusal names the chip" grep -q "RK3566 has 1 NPU core(s), the mask needs 2" "$work/chip.err"
# What RV1106's mini runtime lacks, from its chip profile, before anything runs.
"$cli" profile "$work/rk3588.rknn" --chip rv1106 --batch 2 >/dev/null 2>"$work/dup.err"
check "--chip rv1106 refuses 2 contexts" test $? -eq 1
check "--chip rv1106 says no dup_context" grep -q "RV1106's runtime (librknnmrt.so) has no rknn_dup_context: 2 contexts" "$work/dup.err"
"$cli" profile "$work/rk3588.rknn" --chip rv1106 --runs 1 --json "$work/rv.json" >/dev/null 2>"$work/rv.err"
check "--chip rv1106 runs one context" test $? -eq 0
check "--chip rv1106 says no perf detail" grep -q "note: RV1106's runtime (librknnmrt.so) has no per-layer perf detail" "$work/rv.err"
check "--chip rv1106: no layer rows" $py -c "import json; assert json.load(open('$work/rv.json'))['layers'] == []"
"$cli" profile "$work/rk3588.rknn" --core-mask 3 >/dev/null 2>"$work/word.err"
check "unknown mask word exits 1" test $? -eq 1
check "unknown mask word said" grep -q "expected auto, 0, 1, 2, 0_1, 0_1_2 or all" "$work/word.err"

# Inputs: a file of the wrong size is refused naming the input; a right one is used.
$py -c "import numpy as np; np.save('$work/small.npy', np.ones((1, 3, 4, 4), np.float32)); np.save('$work/ok.npy', np.ones((2, 3, 8, 8), np.float32))"
"$cli" profile "$work/rk3588.rknn" --input x="$work/small.npy" >/dev/null 2>"$work/input.err"
check "wrong-size input exits 1" test $? -eq 1
check "wrong-size input named" grep -q "input 'x': $work/small.npy holds 48 elements, the model takes 192" "$work/input.err"
"$cli" profile "$work/rk3588.rknn" --batch 2 --input x="$work/ok.npy" --runs 1 >/dev/null 2>"$work/ok.err"
check "batch input file accepted" test $? -eq 0

# The RV1106/RV1103 mini runtime: no rknn_inputs_set, so inputs and outputs go through zero-copy buffers.
$py "$src/tests/rknpu/standin/make_standin_rknn.py" "$work/small.onnx" --target rv1106 -o "$work/rv1106.rknn"
NPUWB_RKNNRT_LIBRARY=$mini "$cli" profile "$work/rv1106.rknn" --runs 2 --json "$work/mini.json" \
    >"$work/mini.out" 2>"$work/mini.err"
check "mini runtime profile exits 0" test $? -eq 0
check "mini runtime report matches the schema" $py -c "
import json, jsonschema
jsonschema.validate(json.load(open('$work/mini.json')), json.load(open('$src/resources/schema/report.schema.json')))"
check "mini runtime: zero-copy path printed" \
    grep -q "I/O path: zero-copy (rknn_create_mem + rknn_set_io_mem buffers)" "$work/mini.out"
check "mini runtime: what it lacks printed" grep -q "^Note: librknnmrt.so is .*no rknn_inputs_set" "$work/mini.out"
check "mini runtime: buffers printed" grep -q "^Note: inputs and outputs through zero-copy buffers: 2560 bytes" \
    "$work/mini.out"
check "mini runtime report: zero-copy timing, no layer rows" $py -c "
import json; r = json.load(open('$work/mini.json'))
assert 'I/O path: zero-copy' in r['runtime']['timing'] and r['layers'] == [], r['runtime']
assert r['run']['runs'] == 2 and r['run']['breakdownUs']['inputCopy'] > 0, r['run']"
NPUWB_STANDIN_FAIL_CREATE_MEM=2 NPUWB_RKNNRT_LIBRARY=$mini "$cli" profile "$work/rv1106.rknn" --runs 1 \
    >/dev/null 2>"$work/mem.err"
check "failing rknn_create_mem exits 1" test $? -eq 1
check "failing rknn_create_mem named with the model" \
    grep -q "$work/rv1106.rknn: rknn_create_mem(1024 bytes) for output 'y' returned no buffer" "$work/mem.err"

echo "$passes passed, $fails failed"
test "$fails" -eq 0
