#!/usr/bin/python3
"""Writes a model whose shapes need a run: a Resize whose sizes are computed from a Shape through a float round trip
(as exporters write an upsampling by a computed factor), so ONNX's inference stops there and the Conv after it has
no shapes until the engine learns them with one reference run. Made with onnx.helper, so no binary lives in the tree.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    rng = np.random.default_rng(0)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c"], ["c_relu"], name="relu1"),
        helper.make_node("Shape", ["c_relu"], ["s"], name="shape"),
        helper.make_node("Cast", ["s"], ["sf"], to=TensorProto.FLOAT, name="to_float"),
        helper.make_node("Mul", ["sf", "scale"], ["sf2"], name="scale_sizes"),
        helper.make_node("Cast", ["sf2"], ["sizes"], to=TensorProto.INT64, name="to_int"),
        helper.make_node("Resize", ["c_relu", "", "", "sizes"], ["r"], mode="nearest", name="upsample"),
        helper.make_node("Conv", ["r", "w2"], ["y"], pads=[1, 1, 1, 1], name="conv2"),
    ]
    inits = [
        numpy_helper.from_array(rng.standard_normal((16, 3, 3, 3)).astype(np.float32), "w"),
        numpy_helper.from_array(rng.standard_normal((8, 16, 3, 3)).astype(np.float32), "w2"),
        numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scale"),
    ]
    graph = helper.make_graph(nodes, "shapes_need_run", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                                         [1, 3, 32, 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, "h2", "w2"])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="npuwb-tests")
    onnx.checker.check_model(model)
    tmp = sys.argv[1] + ".tmp"
    onnx.save(model, tmp)
    os.replace(tmp, sys.argv[1])


if __name__ == "__main__":
    main()
