#!/usr/bin/env python3
"""Quantize one of transformer_models.py's models per opset and scheme with `npuwb-cli quantize` on its
calibration list, measure it with `npuwb-cli accuracy` on the held-out list, and require
  - every float output's worst cosine over the held-out samples >= the scheme's bar,
  - MatMul/Gemm constant weights dequantized per output channel (int8: axis and one scale per channel; int4:
    one scale per group of a channel),
  - no layer norm, softmax or GELU node reading or feeding an int8 QuantizeLinear/DequantizeLinear inside the op:
    their inputs come from float values (fp16 Cast pairs at most), never from a DequantizeLinear.
Prints a table of per-output cosines."""
import argparse
import json
import os
import subprocess
import sys

import onnx
from onnx import numpy_helper

KEPT_OPS = {"LayerNormalization", "Softmax", "Erf", "Tanh", "Gelu"}


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r


def check_graph(path, scheme, group):
    m = onnx.load(path)
    g = m.graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    meta = {p.key: p.value for p in m.metadata_props}
    errors = []

    def source(value):
        """The node a value comes from through Reshape/Transpose (int4 weights are reshaped back)."""
        n = producer.get(value)
        while n is not None and n.op_type in ("Reshape", "Transpose"):
            n = producer.get(n.input[0])
        return n

    weighted = 0
    for n in g.node:
        if n.op_type not in ("MatMul", "Gemm") or len(n.input) < 2:
            continue
        dq = source(n.input[1])
        if dq is None or dq.op_type != "DequantizeLinear" or dq.input[0] not in inits:
            continue  # activation x activation (attention)
        weighted += 1
        q, scale = inits[dq.input[0]], inits[dq.input[1]]
        axis = next((a.i for a in dq.attribute if a.name == "axis"), 1)
        if scheme == "w8a8":
            trans_b = next((a.i for a in n.attribute if a.name == "transB"), 0)
            want = 0 if trans_b else 1
            if q.ndim != 2 or axis != want or scale.size != q.shape[want]:
                errors.append(f"{n.name}: weight {q.shape} scale {scale.shape} axis {axis}, expected per channel "
                              f"on axis {want}")
        elif scheme == "w4a16":
            # DequantizeLinear(q[groups, group]) -> Reshape([N, K]): a K that group does not divide falls back
            # to one group per channel.
            reshape = next((c for c in g.node if c.op_type == "Reshape" and c.input[0] == dq.output[0]), None)
            k = int(inits[reshape.input[1]][-1]) if reshape is not None else -1
            want = group if k % group == 0 else k
            if q.ndim != 2 or q.shape[1] != want or q.min() < -8 or q.max() > 7 or scale.size != q.shape[0]:
                errors.append(f"{n.name}: int4 weight {q.shape} scale {scale.shape}, expected groups of {want}")
    if weighted == 0:
        errors.append("no MatMul/Gemm with a dequantized constant weight")

    kept = json.loads(meta.get("npuwb.quant.kept", "{}"))
    kinds = set(kept.values())
    for want in ("LayerNorm", "Softmax", "GELU"):
        if want not in kinds:
            errors.append(f"no {want} recorded in npuwb.quant.kept ({sorted(kinds)})")
    kept_names = set(kept) | {n.name for n in g.node if n.op_type in KEPT_OPS}
    for n in g.node:
        if n.name not in kept_names:
            continue
        for i in n.input:
            p = producer.get(i)
            if p is not None and p.op_type in ("DequantizeLinear", "QuantizeLinear"):
                errors.append(f"{n.op_type} {n.name}: input {i} comes from {p.op_type}")
    return errors, len(kept)


def dataset_checks(cli, model, calib, work):
    """Token inputs from .npy lists: a wrong dtype or shape names the file; NAME=FILE entries in any order
    calibrate exactly as the positional list does."""
    import numpy as np

    base = os.path.dirname(calib)
    rows = [line.split() for line in open(calib) if line.strip()]
    names = [i.name for i in onnx.load(model).graph.input]
    failures = []
    ids = np.load(os.path.join(base, rows[0][0]))
    for bad, what in ((ids.astype(np.int32), "int32"), (ids[:, :-1], "shape")):
        path = os.path.join(work, f"ids_{what}.npy")
        np.save(path, bad)
        listing = os.path.join(work, f"bad_{what}.txt")
        with open(listing, "w") as f:
            f.write(" ".join([path] + [os.path.join(base, e) for e in rows[0][1:]]) + "\n")
        r = subprocess.run([cli, "quantize", model, "--dataset", listing, "-o", os.path.join(work, "bad.onnx"),
                            "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        print(f"{what} input_ids -> exit {r.returncode}: {r.stderr.strip()}")
        if r.returncode != 1 or path not in r.stderr or "input_ids" not in r.stderr:
            failures.append(f"a {what} input_ids file: exit {r.returncode}, error not naming {path}")
    named = os.path.join(work, "named.txt")
    with open(named, "w") as f:
        for row in rows:
            f.write(" ".join(f"{n}={os.path.join(base, e)}" for n, e in reversed(list(zip(names, row)))) + "\n")
    ranges = []
    for listing in (calib, named):
        report = os.path.join(work, os.path.basename(listing) + ".json")
        run([cli, "quantize", model, "--dataset", listing, "-o", os.path.join(work, "named.onnx"), "--json", report,
             "-q"])
        ranges.append(json.load(open(report))["ranges"])
    if ranges[0] != ranges[1]:
        failures.append("NAME=FILE entries calibrated differently from the positional list")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--models-dir", required=True, help="transformer_models.py's output")
    ap.add_argument("--model", required=True, help="bert | vit | gpt")
    ap.add_argument("--opsets", default="14,17")
    ap.add_argument("--schemes", default="w8a8", help="w8a8, w4a16:GROUP, ...")
    ap.add_argument("--min-cosine", default="w8a8=0.99,w4a16=0.98")
    ap.add_argument("--no-prepare", default="", help="also quantize this opset's model w8a8 with --no-prepare")
    ap.add_argument("--dataset-checks", action="store_true", help="also check .npy list errors and NAME=FILE")
    ap.add_argument("--work-dir", required=True)
    args = ap.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    bars = dict((k, float(v)) for k, v in (p.split("=") for p in args.min_cosine.split(",")))
    calib = os.path.join(args.models_dir, f"{args.model}.calib.txt")
    held_out = os.path.join(args.models_dir, f"{args.model}.eval.txt")
    failures, rows = [], []
    if args.dataset_checks:
        failures += dataset_checks(args.cli, os.path.join(args.models_dir, f"{args.model}.opset17.onnx"), calib,
                                   args.work_dir)
    runs = [(opset, entry, True) for opset in args.opsets.split(",") for entry in args.schemes.split(",")]
    if args.no_prepare:  # the decomposed layer norms as exported, not fused by the preparation
        runs.append((args.no_prepare, "w8a8", False))
    for opset, entry, prepare in runs:
        model = os.path.join(args.models_dir, f"{args.model}.opset{opset}.onnx")
        scheme, _, group = entry.partition(":")
        tag = f"{args.model}.opset{opset}.{scheme}{'-g' + group if group else ''}{'' if prepare else '.raw'}"
        out = os.path.join(args.work_dir, tag + ".onnx")
        cmd = [args.cli, "quantize", model, "--dataset", calib, "--scheme", scheme, "--observer", "mmse",
               "-o", out, "-q"]
        if group:
            cmd += ["--group-size", group]
        if not prepare:
            cmd.append("--no-prepare")
        run(cmd)
        report = os.path.join(args.work_dir, tag + ".accuracy.json")
        acc = run([args.cli, "accuracy", model, out, "--dataset", held_out, "--no-single", "--json", report,
                   "-q"])
        if "calibrated on" in acc.stderr:
            failures.append(f"{tag}: accuracy ran on the calibration samples")
        outputs = json.load(open(report))["accuracy"]["outputs"]
        bar = bars[scheme]
        for o in outputs:
            rows.append((tag, o["name"], o["worstCosine"], o["cosine"]))
            if o["worstCosine"] < bar:
                failures.append(f"{tag}: output {o['name']} worst cosine {o['worstCosine']:.5f} < {bar}")
        errors, kept = check_graph(out, scheme, int(group or 0))
        failures += [f"{tag}: {e}" for e in errors]
        print(f"{tag}: {kept} node(s) kept out of int8, {len(outputs)} output(s) compared")
    print(f"{'model':<24} {'output':<20} {'worst_cos':>10} {'mean_cos':>10}")
    for tag, name, worst, mean in rows:
        print(f"{tag:<24} {name:<20} {worst:>10.6f} {mean:>10.6f}")
    for f in failures:
        print("FAIL:", f)
    print("PASS" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
