#!/usr/bin/env python3
"""Calibration streams: calibrating on many samples needs no more memory than on a few. Runs `npuwb-cli quantize`
on FEW and MANY samples of a small model (same workers and backend) and compares the processes' peak RSS; the
growth must stay well below what keeping the extra samples' inputs (let alone their activations) would cost."""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx


def input_specs(model_path):
    m = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    specs = []
    for i in m.graph.input:
        if i.name in inits:
            continue
        dims = [d.dim_value for d in i.type.tensor_type.shape.dim]
        if any(d <= 0 for d in dims):
            sys.exit(f"{model_path}: input {i.name} has symbolic dims; use a model with fixed input shapes")
        specs.append((i.name, tuple(dims)))
    return specs


def peak_rss_kb(cmd):
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{err}")
    return usage.ru_maxrss  # KiB on Linux


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--few", type=int, default=8)
    ap.add_argument("--many", type=int, default=96)
    ap.add_argument("--observer", default="kl")
    ap.add_argument("--backend", default="auto")
    args = ap.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    rng = np.random.default_rng(0)
    specs = input_specs(args.model)
    sample_bytes = sum(4 * int(np.prod(shape)) for _, shape in specs)  # float32 inputs of one sample
    lines = []
    for s in range(args.many):
        names = []
        for k, (name, shape) in enumerate(specs):
            f = f"s{s}_{k}.npy"
            np.save(os.path.join(args.work_dir, f), rng.standard_normal(shape).astype(np.float32))
            names.append(f)
        lines.append(" ".join(names))
    rss = {}
    for n in (args.few, args.many):
        listing = os.path.join(args.work_dir, f"dataset{n}.txt")
        with open(listing, "w") as f:
            f.write("\n".join(lines[:n]) + "\n")
        # Two workers of one thread each in both runs, so only the sample count differs.
        rss[n] = peak_rss_kb([args.cli, "quantize", args.model, "--dataset", listing, "--observer", args.observer,
                              "--backend", args.backend, "--threads", "2", "-q",
                              "-o", os.path.join(args.work_dir, f"q{n}.onnx")])
    growth_mb = (rss[args.many] - rss[args.few]) / 1024
    extra_inputs_mb = (args.many - args.few) * sample_bytes / 2**20
    # Keeping every extra sample's input alone would add extra_inputs_mb; allow a third of it plus allocator noise.
    bound_mb = 4 + extra_inputs_mb / 3
    print(f"peak RSS: {args.few} samples {rss[args.few] / 1024:.1f} MB, {args.many} samples "
          f"{rss[args.many] / 1024:.1f} MB; growth {growth_mb:.1f} MB (bound {bound_mb:.1f} MB; the extra samples' "
          f"inputs alone are {extra_inputs_mb:.1f} MB)")
    ok = growth_mb <= bound_mb
    print("PASS" if ok else "FAIL: peak RSS grows with the number of samples")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
