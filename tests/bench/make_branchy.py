#!/usr/bin/python3
"""Writes a model of about N nodes shaped like a network, not a chain, for the GUI graph benchmark: blocks of
a two-branch gate (Relu, then Mul by a constant and Add of a constant side by side, Sigmoid, Mul of the branches)
closed by a residual Add, on a [1, 16] tensor, so a layout has forks, joins and long edges all along it.
   make_branchy.py N OUT.onnx"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

n, path = int(sys.argv[1]), sys.argv[2]
nodes, inits = [], []


def const(name, value):
    inits.append(numpy_helper.from_array(np.full((1, 16), value, dtype=np.float32), name))
    return name


prev = "x"
block = 0
while len(nodes) + 6 <= n:
    b = f"b{block}_"
    nodes += [
        helper.make_node("Relu", [prev], [b + "relu"], name=b + "relu"),
        helper.make_node("Mul", [b + "relu", const(b + "scale", 1.0 + block % 7 / 100)], [b + "mul"], name=b + "mul"),
        helper.make_node("Add", [b + "relu", const(b + "shift", 0.01)], [b + "add"], name=b + "add"),
        helper.make_node("Sigmoid", [b + "mul"], [b + "gate"], name=b + "gate"),
        helper.make_node("Mul", [b + "gate", b + "add"], [b + "gated"], name=b + "gated"),
        helper.make_node("Add", [b + "gated", prev], [b + "out"], name=b + "out"),  # the residual edge
    ]
    prev = b + "out"
    block += 1
while len(nodes) < n:  # the rest as a short chain, so the count is exact
    out = f"tail{len(nodes)}"
    nodes.append(helper.make_node("Relu", [prev], [out], name=out))
    prev = out
graph = helper.make_graph(nodes, "branchy", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 16])], initializer=inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.save(model, path)
