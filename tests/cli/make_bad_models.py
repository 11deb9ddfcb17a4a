#!/usr/bin/python3
"""Writes hostile and malformed ONNX files for the CLI bad-input test (uses Debian's python3-onnx)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def save(name, graph, opset=13):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    with open(os.path.join(out, name), "wb") as f:
        f.write(model.SerializeToString())


x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
good = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu1")], "good", [x], [y])
save("good.onnx", good)
blob = open(os.path.join(out, "good.onnx"), "rb").read()
open(os.path.join(out, "truncated.onnx"), "wb").write(blob[: len(blob) // 2])
open(os.path.join(out, "garbage.onnx"), "wb").write(os.urandom(4096))

save("cyclic.onnx", helper.make_graph(
    [helper.make_node("Relu", ["z"], ["y"], name="a"), helper.make_node("Relu", ["y"], ["z"], name="b")],
    "cyclic", [x], [y]))
save("missing_initializer.onnx", helper.make_graph(
    [helper.make_node("Add", ["x", "bias"], ["y"], name="add_bias")], "missing", [x], [y]))
save("unknown_op.onnx", helper.make_graph(
    [helper.make_node("FancyAttention", ["x"], ["y"], name="attn0", domain="com.example")], "unknown", [x], [y]))
shape = numpy_helper.from_array(np.array([1 << 20, 1 << 20], dtype=np.int64), "big_shape")
save("huge_dimension.onnx", helper.make_graph(
    [helper.make_node("ConstantOfShape", ["big_shape"], ["big"], name="make_big"),
     helper.make_node("Add", ["x", "big"], ["y"], name="add_big")], "huge", [x], [y], initializer=[shape]))
# An initializer whose raw data is shorter than its shape needs.
w = TensorProto()
w.name, w.data_type, w.raw_data = "w", TensorProto.FLOAT, b"\x00" * 8
w.dims.extend([1, 4])
save("short_raw_data.onnx", helper.make_graph(
    [helper.make_node("Add", ["x", "w"], ["y"], name="add_w")], "short", [x], [y], initializer=[w]))
# External data that tries to leave the model's folder.
ext = TensorProto()
ext.name = "w"
ext.data_type = TensorProto.FLOAT
ext.dims.extend([1, 4])
ext.data_location = TensorProto.EXTERNAL
entry = ext.external_data.add()
entry.key, entry.value = "location", "../../../../etc/passwd"
save("escaping_external_data.onnx", helper.make_graph(
    [helper.make_node("Add", ["x", "w"], ["y"], name="add_w")], "escape", [x], [y], initializer=[ext]))
np.save(os.path.join(out, "x_wrong_shape.npy"), np.zeros((2, 4), dtype=np.float32))
np.save(os.path.join(out, "x_ok.npy"), np.ones((1, 4), dtype=np.float32))
