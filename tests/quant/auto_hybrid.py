#!/usr/bin/env python3
"""Auto-hybrid on a real model: `npuwb-cli quantize --scheme w8a8 --observer kl --auto-hybrid TARGET` must meet the
target, and an independent check (float and exported QDQ model run by `npuwb-cli run` on the same samples, cosine
computed here) must agree. Prints the layers kept in higher precision, the cosines and the predicted latency."""
import argparse
import glob
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ort_agreement import cosine, input_specs, smooth_image, text_page  # noqa: E402  (same sample generators)


def run_outputs(cli, model, inputs, out_dir):
    cmd = [cli, "run", model, "--backend", "auto", "--output-dir", out_dir]
    for name, path in inputs:
        cmd += ["--input", f"{name}={path}"]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # quiet fallback list
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr}")
    return np.concatenate([np.load(f).ravel() for f in sorted(glob.glob(os.path.join(out_dir, "*.npy")))])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--target", type=float, default=0.99)
    args = ap.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    rng = np.random.default_rng(1)
    specs = input_specs(args.model)
    gen = text_page if "det" in os.path.basename(args.model) else smooth_image
    lines = []
    for s in range(args.samples):
        names = []
        for k, (name, shape) in enumerate(specs):
            f = f"s{s}_{k}.npy"
            np.save(os.path.join(args.work_dir, f), gen(rng, shape))
            names.append(f)
        lines.append(names)
    listing = os.path.join(args.work_dir, "dataset.txt")
    with open(listing, "w") as f:
        f.write("\n".join(" ".join(n) for n in lines) + "\n")
    qdq, report = os.path.join(args.work_dir, "hybrid.onnx"), os.path.join(args.work_dir, "hybrid.json")
    subprocess.run([args.cli, "quantize", args.model, "--dataset", listing, "--scheme", "w8a8", "--observer", "kl",
                    "--auto-hybrid", str(args.target), "-o", qdq, "--json", report, "-q"], check=True,
                   stdout=subprocess.DEVNULL)
    h = json.load(open(report))["autoHybrid"]
    kept = [l for l in h["layers"] if l["kept"]]
    print(f"{os.path.basename(args.model)}: target {h['targetCosine']}, cosine before {h['cosineBefore']:.6f}, "
          f"after {h['cosineAfter']:.6f}; {len(kept)} of {len(json.load(open(report))['precision'])} layers kept in "
          f"fp16; predicted latency on {h['chip']} {h['int8LatencyUs']:.1f} us -> {h['hybridLatencyUs']:.1f} us")
    for l in kept[:15]:
        print(f"  kept {l['node']:<28} {l['opType']:<14} sensitivity {l['sensitivity']:.5f}  "
              f"extra cost {l['extraCostUs']:.1f} us")
    if len(kept) > 15:
        print(f"  ... and {len(kept) - 15} more")
    # Independent check of the exported model on the same samples.
    cosines = []
    for s, names in enumerate(lines):
        inputs = [(name, os.path.join(args.work_dir, names[k])) for k, (name, _) in enumerate(specs)]
        f = run_outputs(args.cli, args.model, inputs, os.path.join(args.work_dir, f"float{s}"))
        q = run_outputs(args.cli, qdq, inputs, os.path.join(args.work_dir, f"hybrid{s}"))
        cosines.append(cosine(f, q))
    measured = float(np.mean(cosines))
    print(f"exported model vs float, measured here on {len(cosines)} sample(s): cosine {measured:.6f}")
    ok = h["targetMet"] and h["cosineAfter"] >= args.target and measured >= args.target
    print("PASS" if ok else f"FAIL: output cosine below {args.target}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
