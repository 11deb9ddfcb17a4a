#!/usr/bin/python3
"""Writes a tiny model whose input has symbolic dims: x [N,3,H,W] -> Relu -> GlobalAveragePool -> y (opset 17), for
the tests of --input-shape (npuwb-cli's and npuwb's).

    make_symbolic_input_model.py OUT.onnx
"""
import sys

import onnx
from onnx import TensorProto, helper


def main():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "H", "W"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("GlobalAveragePool", ["r"], ["y"])],
                          "dyn", [x], [y])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])


if __name__ == "__main__":
    main()
