#!/usr/bin/python3
"""Writes a chain model of N nodes for the optimize/quantize scale benchmark: repeated Mul (constant), Add
(constant), Relu and Identity on a [1, 16] tensor, so the clean-up and folding passes have work all along it.
   make_chain.py N OUT.onnx"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

n, path = int(sys.argv[1]), sys.argv[2]
nodes, inits = [], []
prev = "x"
kinds = ["Mul", "Add", "Relu", "Identity"]
for i in range(n):
    kind = kinds[i % 4]
    out = f"v{i}"
    if kind in ("Mul", "Add"):
        c = f"c{i}"
        inits.append(numpy_helper.from_array(np.full((1, 16), 1.0 + (i % 7) / 100, dtype=np.float32), c))
        nodes.append(helper.make_node(kind, [prev, c], [out], name=f"n{i}"))
    else:
        nodes.append(helper.make_node(kind, [prev], [out], name=f"n{i}"))
    prev = out
graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 16])], initializer=inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.save(model, path)
