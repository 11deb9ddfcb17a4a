#!/usr/bin/python3
"""Writes the Graph view's block test models into a folder, node names scoped as torch.onnx writes them:
transformer.onnx (10 encoder layers "/encoder/layers/encoder_layer_N/...", over 300 nodes, with indexed scopes inside
each layer (ln_1/ln_2, mlp.0/mlp.1/mlp.3) and unscoped Identity nodes of shared weights), small_blocks.onnx (3 blocks
"/blocks.N/...", under 300 nodes) and flat.onnx (over 300 nodes: unscoped names and indexed scopes that hold
different ops, so nothing repeats)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

DIM, TOKENS = 16, 8


class Builder:
    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def weight(self, name, shape, value=None):
        rng = np.random.default_rng(len(self.inits))
        if value is not None:
            array = np.full(shape, value, np.float32)
        else:
            array = rng.standard_normal(shape).astype(np.float32) * 0.1
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def op(self, kind, inputs, name, **attrs):
        self.count += 1
        out = f"v{self.count}"
        self.nodes.append(helper.make_node(kind, inputs, [out], name=name, **attrs))
        return out

    def layer_norm(self, x, scope, gamma):
        mean = self.op("ReduceMean", [x], f"{scope}/ReduceMean", axes=[-1])
        centred = self.op("Sub", [x, mean], f"{scope}/Sub")
        square = self.op("Mul", [centred, centred], f"{scope}/Mul")
        var = self.op("ReduceMean", [square], f"{scope}/ReduceMean_1", axes=[-1])
        eps = self.op("Add", [var, self.weight(f"{scope}.eps", [1], 1e-5)], f"{scope}/Add")
        std = self.op("Sqrt", [eps], f"{scope}/Sqrt")
        norm = self.op("Div", [centred, std], f"{scope}/Div")
        scaled = self.op("Mul", [norm, gamma], f"{scope}/Mul_1")
        return self.op("Add", [scaled, self.weight(f"{scope}.beta", [DIM], 0.0)], f"{scope}/Add_1")

    def block(self, x, scope, index):
        # A shared weight read through an unscoped Identity, as torch.onnx writes deduplicated parameters.
        gamma = self.op("Identity", [self.weight(f"gamma{index}", [DIM], 1.0)], f"Identity_{index}")
        h = self.layer_norm(x, f"{scope}/ln_1", gamma)
        att = f"{scope}/self_attention"
        q = self.op("MatMul", [h, self.weight(f"{att}.q", [DIM, DIM])], f"{att}/MatMul")
        k = self.op("MatMul", [h, self.weight(f"{att}.k", [DIM, DIM])], f"{att}/MatMul_1")
        v = self.op("MatMul", [h, self.weight(f"{att}.v", [DIM, DIM])], f"{att}/MatMul_2")
        kt = self.op("Transpose", [k], f"{att}/Transpose", perm=[0, 2, 1])
        scores = self.op("MatMul", [q, kt], f"{att}/MatMul_3")
        scaled = self.op("Div", [scores, self.weight(f"{att}.scale", [1], 4.0)], f"{att}/Div")
        probs = self.op("Softmax", [scaled], f"{att}/Softmax", axis=-1)
        ctx = self.op("MatMul", [probs, v], f"{att}/MatMul_4")
        o = self.op("MatMul", [ctx, self.weight(f"{att}.o", [DIM, DIM])], f"{att}/MatMul_5")
        o = self.op("Add", [o, self.weight(f"{att}.bias", [DIM], 0.0)], f"{att}/Add")
        x = self.op("Add", [x, o], f"{scope}/Add")
        h = self.layer_norm(x, f"{scope}/ln_2", self.weight(f"{scope}.ln_2.gamma", [DIM], 1.0))
        h = self.op("MatMul", [h, self.weight(f"{scope}.fc1", [DIM, DIM])], f"{scope}/mlp/mlp.0/MatMul")
        h = self.op("Add", [h, self.weight(f"{scope}.fc1.bias", [DIM], 0.0)], f"{scope}/mlp/mlp.0/Add")
        h = self.op("Relu", [h], f"{scope}/mlp/mlp.1/Relu")
        h = self.op("MatMul", [h, self.weight(f"{scope}.fc2", [DIM, DIM])], f"{scope}/mlp/mlp.3/MatMul")
        h = self.op("Add", [h, self.weight(f"{scope}.fc2.bias", [DIM], 0.0)], f"{scope}/mlp/mlp.3/Add")
        return self.op("Add", [x, h], f"{scope}/Add_1")

    def save(self, path, x, y):
        inputs = [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, TOKENS, DIM])]
        outputs = [helper.make_tensor_value_info(y, TensorProto.FLOAT, None)]
        graph = helper.make_graph(self.nodes, "blocks", inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_block_models")
        model = onnx.shape_inference.infer_shapes(model)
        onnx.checker.check_model(model)
        onnx.save(model, path)


def transformer(path, layers, scope):
    b = Builder()
    x = b.op("MatMul", ["x", b.weight("patch", [DIM, DIM])], "/patch/MatMul")
    for i in range(layers):
        x = b.block(x, scope(i), i)
    x = b.op("ReduceMean", [x], "/head/ReduceMean", axes=[1])
    b.save(path, "x", b.op("MatMul", [x, b.weight("head", [DIM, 4])], "/head/MatMul"))


def flat(path):
    b = Builder()
    x = "x"
    # Indexed scopes with different ops in each: not a repetition.
    for i, kinds in enumerate([["Relu"] * 4, ["Sigmoid"] * 5, ["Relu", "Sigmoid", "Relu", "Sigmoid"], ["Tanh"] * 6]):
        for j, kind in enumerate(kinds):
            x = b.op(kind, [x], f"/stage{i}/{kind}_{j}")
    for i in range(300):
        x = b.op("Relu" if i % 2 else "Sigmoid", [x], f"node_{i}")
    b.save(path, "x", x)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    transformer(os.path.join(out, "transformer.onnx"), 10, lambda i: f"/encoder/layers/encoder_layer_{i}")
    transformer(os.path.join(out, "small_blocks.onnx"), 3, lambda i: f"/blocks.{i}")
    flat(os.path.join(out, "flat.onnx"))


if __name__ == "__main__":
    main()
