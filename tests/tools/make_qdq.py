#!/usr/bin/python3
"""Makes a standard QDQ int8 model (opset 13) from a float ONNX model, for the int8 benchmark rows until our quantizer
(engine/quant) exports them.

  /usr/bin/python3 tests/tools/make_qdq.py MODEL.onnx OUT.onnx [--samples 4] [--activations u8|s8] [--shape NAME=D1,...]

- Weights of Conv, Gemm and MatMul (constant B): symmetric int8 per output channel (DequantizeLinear axis 0 for Conv
  and Gemm transB, axis 1 otherwise); bias int32 with scale x_scale * w_scale.
- Activations: asymmetric uint8 (or int8) per tensor from min/max over `--samples` uniform [0, 1) inputs (the
  inputs the benchmark feeds), run by ONNX Runtime (tests/tools/ort_run.mjs) with every tensor exposed.
- QuantizeLinear -> DequantizeLinear pairs on every float tensor read or written by Conv, Gemm, MatMul, Add,
  MaxPool, AveragePool, GlobalAveragePool, Concat, Flatten; a Relu/Clip right after Conv/Gemm/Add takes the pair
  after it instead (the NPU-style fused activation). MaxPool, Flatten and Reshape outputs reuse their input's
  parameters, so Q(DQ(x)) round trips can be elided.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnx.version_converter
from onnx import helper, numpy_helper, shape_inference, TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))
QUANTIZED_OPS = {"Conv", "Gemm", "MatMul", "Add", "MaxPool", "AveragePool", "GlobalAveragePool", "Concat", "Flatten"}
SAME_AS_INPUT = {"MaxPool", "Flatten", "Reshape"}
ACTIVATIONS = {"Relu", "Clip"}


def calibrate(model, inits, shapes, samples, tmp):
    """min/max of every float tensor over random inputs, run by ONNX Runtime."""
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    known = {o.name for o in probe.graph.output}
    infos = {v.name: v for v in probe.graph.value_info}
    for node in probe.graph.node:
        for out in node.output:
            v = infos.get(out)
            if v is not None and v.type.tensor_type.elem_type == TensorProto.FLOAT and out not in known:
                probe.graph.output.append(v)
                known.add(out)
    probe_path = os.path.join(tmp, "probe.onnx")
    onnx.save(probe, probe_path)
    ranges = {}
    rng = np.random.default_rng(1234)
    for s in range(samples):
        args = ["node", os.path.join(HERE, "ort_run.mjs"), "--model", probe_path, "--output-dir", os.path.join(tmp, f"o{s}")]
        for inp in model.graph.input:
            if inp.name in inits:
                continue
            dims = shapes.get(inp.name) or [d.dim_value if d.dim_value > 0 else 1 for d in inp.type.tensor_type.shape.dim]
            f = os.path.join(tmp, f"{inp.name.replace('/', '_')}_{s}.npy")
            np.save(f, rng.random(dims, dtype=np.float32))
            args += ["--input", f"{inp.name}={f}"]
        subprocess.run(args, check=True)
        listing = json.load(open(os.path.join(tmp, f"o{s}", "outputs.json")))
        for o in listing["outputs"]:
            a = np.load(os.path.join(tmp, f"o{s}", o["file"]))
            if a.dtype != np.float32 or a.size == 0:
                continue
            lo, hi = float(a.min()), float(a.max())
            old = ranges.get(o["name"], (lo, hi))
            ranges[o["name"]] = (min(lo, old[0]), max(hi, old[1]))
        for inp in model.graph.input:  # graph inputs are not node outputs
            if inp.name not in inits:
                ranges[inp.name] = (0.0, 1.0)
    return ranges


def activation_params(lo, hi, signed):
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    if hi - lo < 1e-8:
        hi = lo + 1e-8
    if signed:
        scale = np.float32((hi - lo) / 254.0)
        zero = int(np.clip(round(-lo / scale) - 127, -128, 127))
        return scale, np.int8(zero)
    scale = np.float32((hi - lo) / 255.0)
    return scale, np.uint8(int(np.clip(round(-lo / scale), 0, 255)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--activations", choices=["u8", "s8"], default="u8")
    ap.add_argument("--shape", action="append", default=[], help="NAME=D1,D2,... for a symbolic input")
    args = ap.parse_args()
    shapes = {s.split("=")[0]: [int(d) for d in s.split("=")[1].split(",")] for s in args.shape}

    model = onnx.load(args.model)
    if model.opset_import[0].version < 13:
        model = onnx.version_converter.convert_version(model, 13)
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    for n in list(g.node):  # Identity(initializer) (torchvision exports share weights so): a plain initializer
        if n.op_type == "Identity" and n.input[0] in inits:
            t = onnx.TensorProto()
            t.CopyFrom(inits[n.input[0]])
            t.name = n.output[0]
            g.initializer.append(t)
            inits[t.name] = t
            g.node.remove(n)
    model = shape_inference.infer_shapes(model)
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    with tempfile.TemporaryDirectory() as tmp:
        ranges = calibrate(model, inits, shapes, args.samples, tmp)

    consumers = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    producer = {o: n for n in g.node for o in n.output}
    graph_outputs = {o.name for o in g.output}

    # Which tensors get a Q/DQ pair, and with which range.
    def fused_activation(t):
        cs = consumers.get(t, [])
        if len(cs) == 1 and cs[0].op_type in ACTIVATIONS and t not in graph_outputs:
            return cs[0].output[0]
        return None

    to_quantize = {}  # tensor -> range
    for n in g.node:
        if n.op_type not in QUANTIZED_OPS:
            continue
        for i, t in enumerate(n.input):
            if n.op_type in ("Conv", "Gemm", "MatMul") and i > 0 and t in inits:
                continue
            if t and t not in inits and t in ranges:
                to_quantize[t] = ranges[t]
        for t in n.output:
            t = fused_activation(t) or t
            if t in ranges:
                to_quantize[t] = ranges[t]
    for t in list(to_quantize):  # a pair between Conv and its fused Relu would defeat the fusion
        p = producer.get(t)
        if p is not None and p.op_type in ("Conv", "Gemm", "Add") and fused_activation(t):
            del to_quantize[t]
    # MaxPool/Flatten/Reshape outputs keep the input's parameters (walk in graph order).
    params = {}
    for t in [i.name for i in g.input if i.name in to_quantize]:
        params[t] = activation_params(*to_quantize[t], args.activations == "s8")
    for n in g.node:
        for t in n.output:
            if t not in to_quantize:
                continue
            if n.op_type in SAME_AS_INPUT and n.input[0] in params:
                params[t] = params[n.input[0]]
            else:
                params[t] = activation_params(*to_quantize[t], args.activations == "s8")

    new_inits, new_nodes = [], []

    def add_qdq(t):
        s, z = params[t]
        sn, zn, qn, dqn = t + "_scale", t + "_zero_point", t + "_quantized", t + "_dequantized"
        new_inits.append(numpy_helper.from_array(np.array(s, dtype=np.float32), sn))
        new_inits.append(numpy_helper.from_array(np.array(z), zn))
        new_nodes.append(helper.make_node("QuantizeLinear", [t, sn, zn], [qn], name=t + "_QuantizeLinear"))
        new_nodes.append(helper.make_node("DequantizeLinear", [qn, sn, zn], [dqn], name=t + "_DequantizeLinear"))
        return dqn

    def quantize_weights(n, wi, axis):
        w = numpy_helper.to_array(inits[wi]).astype(np.float32)
        moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
        scale = np.maximum(np.abs(moved).max(axis=1), 1e-8).astype(np.float32) / np.float32(127)
        shape = [1] * w.ndim
        shape[axis] = -1
        q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
        base = n.name or n.output[0]
        qn, sn, zn, dqn = base + "_w_int8", base + "_w_scale", base + "_w_zero_point", base + "_w_dequantized"
        new_inits.append(numpy_helper.from_array(q, qn))
        new_inits.append(numpy_helper.from_array(scale, sn))
        new_inits.append(numpy_helper.from_array(np.zeros(scale.shape, np.int8), zn))
        new_nodes.append(helper.make_node("DequantizeLinear", [qn, sn, zn], [dqn], axis=axis, name=base + "_w_DequantizeLinear"))
        return dqn, scale

    def quantize_bias(n, bi, x_scale, w_scale):
        b = numpy_helper.to_array(inits[bi]).astype(np.float32).reshape(-1)
        s = (np.float32(x_scale) * w_scale).astype(np.float32)
        q = np.clip(np.round(b / s), -2**31, 2**31 - 1).astype(np.int32)
        base = n.name or n.output[0]
        qn, sn, dqn = base + "_b_int32", base + "_b_scale", base + "_b_dequantized"
        new_inits.append(numpy_helper.from_array(q, qn))
        new_inits.append(numpy_helper.from_array(s, sn))
        new_nodes.append(helper.make_node("DequantizeLinear", [qn, sn], [dqn], axis=0, name=base + "_b_DequantizeLinear"))
        return dqn

    renamed = {}  # tensor -> its dequantized name, for consumers
    for t in [i.name for i in g.input if i.name in params]:
        renamed[t] = add_qdq(t)
    for n in g.node:
        ins = list(n.input)
        x_name = ins[0] if ins else ""
        for i, t in enumerate(ins):
            if t in renamed:
                ins[i] = renamed[t]
        weight_axis = None
        if n.op_type == "Conv" and ins[1] in inits:
            weight_axis = 0
        elif n.op_type == "Gemm" and ins[1] in inits:
            trans_b = next((a.i for a in n.attribute if a.name == "transB"), 0)
            weight_axis = 0 if trans_b else 1
        elif n.op_type == "MatMul" and ins[1] in inits and len(inits[ins[1]].dims) == 2:
            weight_axis = 1
        if weight_axis is not None and x_name in params:
            ins[1], w_scale = quantize_weights(n, ins[1], weight_axis)
            if len(ins) > 2 and ins[2] in inits:
                ins[2] = quantize_bias(n, ins[2], params[x_name][0], w_scale)
        del n.input[:]
        n.input.extend(ins)
        new_nodes.append(n)
        for t in n.output:
            if t in params and t not in renamed:
                renamed[t] = add_qdq(t)
    # Graph outputs keep their names: the last DequantizeLinear writes them.
    for o in g.output:
        if o.name in renamed:
            dq = next(x for x in new_nodes if x.output[0] == renamed[o.name])
            old = dq.output[0]
            dq.output[0] = o.name
            q = next(x for x in new_nodes if x.output and x.output[0] == old.replace("_dequantized", "_quantized"))
            q.input[0] = o.name + "_float"
            for x in new_nodes:
                if x is not q and x is not dq:
                    for i, t in enumerate(x.input):
                        if t == old:
                            x.input[i] = o.name
                    for i, t in enumerate(x.output):
                        if t == o.name:
                            x.output[i] = o.name + "_float"
    used = {i for n in new_nodes for i in n.input}
    kept = [t for t in g.initializer if t.name in used]
    del g.node[:]
    g.node.extend(new_nodes)
    del g.initializer[:]
    g.initializer.extend(kept + new_inits)
    del g.value_info[:]
    onnx.checker.check_model(model)
    onnx.save(model, args.out)
    counts = {}
    for n in g.node:
        counts[n.op_type] = counts.get(n.op_type, 0) + 1
    print(f"{args.out}: {counts.get('QuantizeLinear', 0)} QuantizeLinear, {counts.get('DequantizeLinear', 0)} "
          f"DequantizeLinear, {len(params)} quantized tensors", file=sys.stderr)


if __name__ == "__main__":
    main()
