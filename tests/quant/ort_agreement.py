#!/usr/bin/env python3
"""Quantize a real model (w8a8, few calibration samples), run the QDQ export in ONNX Runtime and in the engine on
a held-out input, and require output cosine >= 0.999 between the two. Prints the numbers."""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import onnx

# Concrete shapes for symbolic dims (same sizes tests/realmodels uses).
FIXED = {"ch_PP-OCRv4_det_infer": (1, 3, 320, 320), "ch_ppocr_mobile_v2.0_cls_infer": (1, 3, 48, 192),
         "ch_PP-OCRv4_rec_infer": (1, 3, 48, 320)}


def input_specs(model_path):
    m = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    stem = os.path.splitext(os.path.basename(model_path))[0]
    specs = []
    for i in m.graph.input:
        if i.name in inits:
            continue
        dims = [d.dim_value if d.dim_value > 0 else None for d in i.type.tensor_type.shape.dim]
        if None in dims:
            dims = list(FIXED[stem])
        specs.append((i.name, tuple(dims)))
    return specs


def text_page(rng, shape):
    # A white page with dark word-like strokes, normalised like PP-OCR (mean 0.5, std 0.5): the det model only
    # responds to text, so noise would give an all-zero output and a meaningless cosine.
    n, c, h, w = shape
    page = np.ones((h, w), np.float32)
    for top in range(8, h - 16, 28):
        x = int(rng.integers(4, 30))
        while x < w - 40:
            word = int(rng.integers(20, 70))
            for gx in range(x, min(x + word, w - 4), 6):
                gh = int(rng.integers(10, 16))
                page[top + 16 - gh:top + 16, gx:gx + 3] = 0.0
            page[top + 8:top + 10, x:min(x + word, w - 4)] = 0.0
            x += word + int(rng.integers(10, 30))
    img = np.repeat(page[None, None], c, axis=1) + 0.03 * rng.standard_normal(shape)
    return ((img - 0.5) / 0.5).astype(np.float32)


def smooth_image(rng, shape):
    # Low-frequency content plus noise: activations with realistic, not uniform, statistics.
    n, c, h, w = shape
    yy, xx = np.meshgrid(np.linspace(0, 1, h), np.linspace(0, 1, w), indexing="ij")
    img = np.zeros(shape, np.float32)
    for ch in range(c):
        f1, f2, ph = rng.uniform(1, 6), rng.uniform(1, 6), rng.uniform(0, 6.3)
        img[0, ch] = np.sin(f1 * 6.28 * xx + ph) * np.cos(f2 * 6.28 * yy)
    return (img + 0.3 * rng.standard_normal(shape)).astype(np.float32)


def safe_file_name(name):  # as `npuwb-cli run --output-dir` names files
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "output"


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--ort-script", required=True)
    ap.add_argument("--node", default="node")
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--observer", default="minmax")
    ap.add_argument("--scheme", default="w8a8")
    ap.add_argument("--weight-rounding", default="nearest")
    ap.add_argument("--min-cosine", type=float, default=0.999)
    args = ap.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    rng = np.random.default_rng(0)
    specs = input_specs(args.model)
    lines = []
    for s in range(args.samples + 1):  # the last one is held out
        names = []
        for name, shape in specs:
            f = f"s{s}_{len(names)}.npy"
            gen = text_page if "det" in os.path.basename(args.model) else smooth_image
            np.save(os.path.join(args.work_dir, f), gen(rng, shape) if len(shape) == 4 else
                    rng.standard_normal(shape).astype(np.float32))
            names.append(f)
        lines.append(" ".join(names))
    with open(os.path.join(args.work_dir, "dataset.txt"), "w") as f:
        f.write("\n".join(lines[:-1]) + "\n")
    qdq = os.path.join(args.work_dir, "model_qdq.onnx")
    subprocess.run([args.cli, "quantize", args.model, "--dataset", os.path.join(args.work_dir, "dataset.txt"),
                    "--observer", args.observer, "--scheme", args.scheme, "--weight-rounding", args.weight_rounding,
                    "-o", qdq, "-q"], check=True)
    held = lines[-1].split()
    inputs = [f"{name}={os.path.join(args.work_dir, held[i])}" for i, (name, _) in enumerate(specs)]
    ort_dir, ours_dir, float_dir = (os.path.join(args.work_dir, d) for d in ("ort", "ours", "float"))
    cmd = [args.node, args.ort_script, "--model", qdq, "--output-dir", ort_dir]
    for i in inputs:
        cmd += ["--input", i]
    subprocess.run(cmd, check=True)
    # ORT with graph optimisations off runs each DQ -> float op -> Q like the engine: its spread against the
    # optimised (integer-kernel) run shows how much 1-LSB rounding flips this model amplifies.
    noopt_dir = os.path.join(args.work_dir, "ort_noopt")
    subprocess.run(cmd[:cmd.index("--output-dir")] + ["--output-dir", noopt_dir, "--opt-level", "disabled"] +
                   cmd[cmd.index("--output-dir") + 2:], check=True)
    for model, out in ((qdq, ours_dir), (args.model, float_dir)):
        cmd = [args.cli, "run", model, "--output-dir", out, "--backend", "auto"]
        for i in inputs:
            cmd += ["--input", i]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    outputs = json.load(open(os.path.join(ort_dir, "outputs.json")))["outputs"]
    ok = True
    for o in outputs:
        ort = np.load(os.path.join(ort_dir, o["file"]))
        ours = np.load(os.path.join(ours_dir, safe_file_name(o["name"]) + ".npy"))
        flt = np.load(os.path.join(float_dir, safe_file_name(o["name"]) + ".npy"))
        noopt = np.load(os.path.join(noopt_dir, o["file"]))
        c = cosine(ort, ours)
        print(f"{os.path.basename(args.model)} output {o['name']}: cosine(ORT QDQ, engine QDQ) = {c:.6f}, "
              f"max abs {float(np.abs(ort - ours).max()):.3g}; cosine(ORT unoptimised, engine) = "
              f"{cosine(noopt, ours):.6f}; cosine(ORT optimised, ORT unoptimised) = {cosine(ort, noopt):.6f}; "
              f"cosine(engine QDQ, float) = {cosine(ours, flt):.6f}")
        ok = ok and c >= args.min_cosine
    print("PASS" if ok else f"FAIL: cosine below {args.min_cosine}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
