#!/usr/bin/python3
"""Writes the hostile inputs of the hardening probe into a folder, for hostile.sh: crafted models,
external data, .npy files and vendor logs. FIFOs and symlinks are made by the shell script. Uses Debian's
python3-onnx."""
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
F = TensorProto.FLOAT


def save(name, graph, opset=13, ir=8):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir
    with open(os.path.join(out, name), "wb") as f:
        f.write(model.SerializeToString())


def vi(name, shape, t=F):
    return helper.make_tensor_value_info(name, t, shape)


def external(name, location, dims, offset=None):
    t = TensorProto()
    t.name, t.data_type, t.data_location = name, F, TensorProto.EXTERNAL
    t.dims.extend(dims)
    for k, v in [("location", location)] + ([("offset", offset)] if offset is not None else []):
        e = t.external_data.add()
        e.key, e.value = k, v
    return t


def add_w(name, w, shape=(1, 4)):
    save(name, helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add_w")], name,
                                 [vi("x", list(shape))], [vi("y", list(shape))], initializer=[w]))


# A plain model and its input.
save("good.onnx", helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu1")], "good",
                                    [vi("x", [1, 4])], [vi("y", [1, 4])]))
np.save(os.path.join(out, "x.npy"), np.ones((1, 4), dtype=np.float32))

# External data through a symlink in the model's folder (the link is made by hostile.sh), through a symlinked
# folder, through a FIFO; a bad offset; a model whose weights live in its own external file (for -o aliasing).
add_w("ext_link.onnx", external("w", "link.bin", [1, 4]))
add_w("ext_linkdir.onnx", external("w", "linkdir/passwd", [1, 4]))
add_w("ext_fifo.onnx", external("w", "fifo.bin", [1, 4]))
add_w("ext_bad_offset.onnx", external("w", "weights.bin", [1, 4], offset="12abc"))
add_w("ext_ok.onnx", external("w", "weights.bin", [1, 4]))
with open(os.path.join(out, "weights.bin"), "wb") as f:
    f.write(np.arange(4, dtype=np.float32).tobytes())

# A 100-byte model declaring a 4 GB initializer with 16 bytes of data.
w = TensorProto()
w.name, w.data_type, w.raw_data = "w", F, b"\0" * 16
w.dims.extend([1 << 15, 1 << 15])
add_w("declared_huge.onnx", w)

# Shape arithmetic that overflows int64: Expand to [2^62, 4] (elements overflow as bytes).
shape = numpy_helper.from_array(np.array([1 << 62, 4], dtype=np.int64), "big")
save("overflow_expand.onnx", helper.make_graph([helper.make_node("Expand", ["x", "big"], ["y"], name="expand_big")],
                                               "overflow", [vi("x", [1, 4])], [vi("y", None)], initializer=[shape]))

# complex64 input: a type we do not run.
save("complex.onnx", helper.make_graph([helper.make_node("Identity", ["x"], ["y"], name="id_c")], "complex",
                                       [vi("x", [2], TensorProto.COMPLEX64)], [vi("y", [2], TensorProto.COMPLEX64)]))

# Spec violations: an unknown opset version, IR version 0, Relu with two inputs, If branches with the wrong number
# of outputs.
save("bad_opset.onnx", helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu1")], "g",
                                         [vi("x", [1, 4])], [vi("y", [1, 4])]), opset=999)
save("bad_ir.onnx", helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu1")], "g",
                                      [vi("x", [1, 4])], [vi("y", [1, 4])]), ir=0)
save("relu_two_inputs.onnx", helper.make_graph([helper.make_node("Relu", ["x", "x"], ["y"], name="relu2")], "g",
                                               [vi("x", [1, 4])], [vi("y", [1, 4])]))
then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["a"], name="t1")], "then", [], [vi("a", [1, 4]), vi("x", [1, 4])])
else_g = helper.make_graph([helper.make_node("Relu", ["x"], ["b"], name="e1")], "else", [], [vi("b", [1, 4])])
cond = numpy_helper.from_array(np.array(True), "c")
save("if_outputs.onnx", helper.make_graph(
    [helper.make_node("If", ["c"], ["y"], name="if_bad", then_branch=then_g, else_branch=else_g)], "g",
    [vi("x", [1, 4])], [vi("y", [1, 4])], initializer=[cond]))


def nested_if(depth):
    inner = helper.make_graph([helper.make_node("Relu", ["x"], ["o0"], name="leaf")], "leaf", [], [vi("o0", [1, 4])])
    for d in range(1, depth + 1):
        other = helper.make_graph([helper.make_node("Relu", ["x"], [f"o{d}"], name=f"else{d}")], f"else{d}", [],
                                  [vi(f"o{d}", [1, 4])])  # one nested branch per level: the model stays small
        inner = helper.make_graph([helper.make_node("If", ["c"], [f"o{d}"], name=f"if{d}", then_branch=inner,
                                                    else_branch=other)], f"level{d}", [], [vi(f"o{d}", [1, 4])])
    return helper.make_graph(inner.node, "deep", [vi("x", [1, 4])], [vi(f"o{depth}", [1, 4])], initializer=[cond])


save("nested_if_40.onnx", nested_if(40))
save("nested_if_70.onnx", nested_if(70))


def loop_model(name, trips, cond_value, grow):
    """Loop with `trips` (None: no trip count) whose body keeps the condition; `grow` concatenates the carried
    value with itself every iteration (doubling)."""
    body_nodes = [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_cond")]
    if grow:
        body_nodes.append(helper.make_node("Concat", ["v_in", "v_in"], ["v_out"], name="double", axis=0))
    else:
        body_nodes.append(helper.make_node("Relu", ["v_in"], ["v_out"], name="relu_body"))
    body = helper.make_graph(body_nodes, "body",
                             [vi("i", [], TensorProto.INT64), vi("cond_in", [], TensorProto.BOOL), vi("v_in", None)],
                             [vi("cond_out", [], TensorProto.BOOL), vi("v_out", None)])
    inits = [numpy_helper.from_array(np.array(cond_value), "cond")]
    ins = ["", "cond", "x"]
    if trips is not None:
        inits.append(numpy_helper.from_array(np.array(trips, dtype=np.int64), "trips"))
        ins[0] = "trips"
    save(name, helper.make_graph([helper.make_node("Loop", ins, ["y"], name="loop0", body=body)], name,
                                 [vi("x", [1, 4])], [vi("y", None)], initializer=inits))


loop_model("loop_huge_trips.onnx", 1 << 62, True, False)
loop_model("loop_forever.onnx", None, True, False)
loop_model("loop_growing.onnx", 64, True, True)

# Resize to a huge output (linear): the backends must refuse it as the reference does, not crash.
sizes = numpy_helper.from_array(np.array([1, 1, 1 << 20, 1 << 20], dtype=np.int64), "sizes")
save("resize_huge.onnx", helper.make_graph(
    [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="resize_big", mode="linear")], "g",
    [vi("x", [1, 1, 4, 4])], [vi("y", None)], initializer=[sizes]))

# Parameters with fewer elements than channels (heap over-reads in the backends before).
scale = numpy_helper.from_array(np.ones(2, dtype=np.float32), "scale")
bias = numpy_helper.from_array(np.zeros(2, dtype=np.float32), "bias")
mean = numpy_helper.from_array(np.zeros(2, dtype=np.float32), "mean")
var = numpy_helper.from_array(np.ones(2, dtype=np.float32), "var")
save("bn_short_params.onnx", helper.make_graph(
    [helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y"], name="bn_short")], "g",
    [vi("x", [1, 8, 4, 4])], [vi("y", [1, 8, 4, 4])], initializer=[scale, bias, mean, var]))
wconv = numpy_helper.from_array(np.ones((8, 8, 1, 1), dtype=np.float32), "wc")
bconv = numpy_helper.from_array(np.zeros(3, dtype=np.float32), "bc")
save("conv_short_bias.onnx", helper.make_graph(
    [helper.make_node("Conv", ["x", "wc", "bc"], ["y"], name="conv_short")], "g",
    [vi("x", [1, 8, 4, 4])], [vi("y", [1, 8, 4, 4])], initializer=[wconv, bconv]))
slope = numpy_helper.from_array(np.ones((3, 1, 1), dtype=np.float32), "slope")
save("prelu_short_slope.onnx", helper.make_graph(
    [helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu_short")], "g",
    [vi("x", [1, 8, 4, 4])], [vi("y", [1, 8, 4, 4])], initializer=[slope]))


def npy_with_header(name, header, data):
    h = header.encode()
    h += b" " * ((64 - (10 + len(h) + 1) % 64) % 64) + b"\n"
    with open(os.path.join(out, name), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data)


# A .npy whose header declares 4 GB with 16 bytes of data, and one whose shape overflows.
npy_with_header("declared_huge.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (32768, 32768), }", b"\0" * 16)
npy_with_header("overflow.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 8), }",
                b"\0" * 16)

# Odd attributes and shapes for the backend verdict test: every backend must give the reference's verdict (the
# same error, or the same output when the reference accepts or broadcasts). Written to verdict/.
vd = os.path.join(out, "verdict")
os.makedirs(vd, exist_ok=True)


def verdict(name, nodes, inputs, outputs, inits):
    model = helper.make_model(helper.make_graph(nodes, name, inputs, outputs, initializer=inits),
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    with open(os.path.join(vd, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())


x8 = [vi("x", [1, 8, 4, 4])]
y8 = [vi("y", None)]
arr = numpy_helper.from_array
verdict("conv_bias_one", [helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv_b1")], x8, y8,
        [arr(np.ones((8, 8, 1, 1), np.float32), "w"), arr(np.full(1, 0.5, np.float32), "b")])
verdict("conv_bias_short", [helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv_b3")], x8, y8,
        [arr(np.ones((8, 8, 1, 1), np.float32), "w"), arr(np.zeros(3, np.float32), "b")])
verdict("conv_group_mismatch", [helper.make_node("Conv", ["x", "w"], ["y"], name="conv_g3", group=3)], x8, y8,
        [arr(np.ones((6, 2, 1, 1), np.float32), "w")])
verdict("convtranspose_bias_short", [helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], name="deconv_b")],
        x8, y8, [arr(np.ones((8, 4, 2, 2), np.float32), "w"), arr(np.zeros(2, np.float32), "b")])
verdict("bn_params_one", [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn_one")],
        x8, y8, [arr(np.ones(1, np.float32), n) for n in "sbmv"])
verdict("bn_params_short", [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn_two")],
        x8, y8, [arr(np.ones(2, np.float32), n) for n in "sbmv"])
verdict("softmax_axis_out_of_range", [helper.make_node("Softmax", ["x"], ["y"], name="softmax_ax", axis=7)], x8, y8, [])
verdict("concat_axis_out_of_range", [helper.make_node("Concat", ["x", "x"], ["y"], name="concat_ax", axis=9)], x8, y8, [])
verdict("maxpool_kernel_too_big", [helper.make_node("MaxPool", ["x"], ["y"], name="pool_big", kernel_shape=[8, 8])],
        x8, y8, [])
verdict("gemm_c_short", [helper.make_node("Flatten", ["x"], ["f"], name="flat"),
                         helper.make_node("Gemm", ["f", "gb", "gc"], ["y"], name="gemm_c", transB=1)], x8, y8,
        [arr(np.ones((4, 128), np.float32), "gb"), arr(np.zeros(3, np.float32), "gc")])
verdict("resize_zero_scale", [helper.make_node("Resize", ["x", "", "sc"], ["y"], name="resize_0", mode="linear")],
        x8, y8, [arr(np.array([1, 1, 0, 2], np.float32), "sc")])
verdict("transpose_bad_perm", [helper.make_node("Transpose", ["x"], ["y"], name="transpose_p", perm=[0, 0, 1, 2])],
        x8, y8, [])
verdict("prelu_slope_one", [helper.make_node("PRelu", ["x", "sl"], ["y"], name="prelu_1")], x8, y8,
        [arr(np.full((1,), 0.25, np.float32), "sl")])
verdict("add_broadcast_bad", [helper.make_node("Add", ["x", "ab"], ["y"], name="add_bad")], x8, y8,
        [arr(np.ones((3, 1, 1), np.float32), "ab")])
np.save(os.path.join(vd, "x.npy"), np.random.default_rng(1).standard_normal((1, 8, 4, 4)).astype(np.float32))
