#!/usr/bin/env bash
# A model whose weights live in an external data file gives the same outputs as the same model with inline weights.
set -euo pipefail
CLI="$1"; WORK="$2"
mkdir -p "$WORK"
/usr/bin/python3 - "$WORK" <<'PY'
import sys, numpy as np, onnx
from onnx import TensorProto, helper, numpy_helper
out = sys.argv[1]
rng = np.random.default_rng(3)
w = numpy_helper.from_array(rng.standard_normal((16, 8, 3, 3)).astype(np.float32), "w")
b = numpy_helper.from_array(rng.standard_normal(16).astype(np.float32), "b")
g = helper.make_graph([helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[1, 1, 1, 1], name="conv")], "ext",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 10, 10])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 10, 10])], initializer=[w, b])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
onnx.save_model(m, f"{out}/inline.onnx")
onnx.save_model(m, f"{out}/external.onnx", save_as_external_data=True, all_tensors_to_one_file=True,
                location="external.weights", size_threshold=0)
np.save(f"{out}/x.npy", rng.standard_normal((1, 8, 10, 10)).astype(np.float32))
PY
"$CLI" run "$WORK/inline.onnx" --input "x=$WORK/x.npy" --output-dir "$WORK/inline-out"
"$CLI" run "$WORK/external.onnx" --input "x=$WORK/x.npy" --output-dir "$WORK/external-out"
cmp "$WORK/inline-out/y.npy" "$WORK/external-out/y.npy"
[ -s "$WORK/external.weights" ]
echo "external data: outputs identical"
