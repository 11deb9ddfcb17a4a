#!/usr/bin/python3
"""Runs `npuwb-cli optimize` on one model and checks the JSON report: every rewrite proven, nothing rolled back,
the end-to-end difference within tolerance, fewer nodes, and the named op types gone (or reduced).

usage: check_optimize.py CLI MODEL OUT_DIR [--gone OP ...] [--fewer OP ...] [--count OP=N ...] [--opset N]
                         [--cli-arg=ARG ...]
Prints node counts before/after and the max difference (the numbers the acceptance asks for).
"""
import argparse
import json
import os
import subprocess
import sys


def opset_of(path):
    import onnx  # only needed for --opset
    m = onnx.load(path, load_external_data=False)
    return next(o.version for o in m.opset_import if o.domain in ("", "ai.onnx"))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cli")
    p.add_argument("model")
    p.add_argument("out_dir")
    p.add_argument("--gone", nargs="*", default=[], help="op types that must not remain")
    p.add_argument("--fewer", nargs="*", default=[], help="op types whose count must drop")
    p.add_argument("--count", nargs="*", default=[], help="OP=N: exactly N nodes of OP after optimization")
    p.add_argument("--opset", type=int, help="the ai.onnx opset the optimized model must import")
    p.add_argument("--cli-arg", action="append", default=[], help="extra argument for the CLI")
    a = p.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(a.model))[0]
    out, report = os.path.join(a.out_dir, stem + ".opt.onnx"), os.path.join(a.out_dir, stem + ".opt.json")
    cmd = [a.cli, "optimize", a.model, "-o", out, "--json", report, "-q", "--random-sets", "2"] + a.cli_arg
    run = subprocess.run(cmd, capture_output=True, text=True)
    print(run.stdout)
    if run.returncode != 0:
        print(run.stderr, file=sys.stderr)
        return 1
    r = json.load(open(report))
    errors = []
    if not r["endToEnd"]["passed"]:
        errors.append("end-to-end proof failed: " + r["endToEnd"]["failure"])
    if r["rolledBack"]:
        errors.append("rolled back: " + "; ".join(x["error"] for x in r["rolledBack"]))
    if not all(x["proof"]["passed"] for x in r["applied"]):
        errors.append("an applied rewrite has no passing proof")
    if r["nodesAfter"] >= r["nodesBefore"]:
        errors.append("node count did not drop")
    for op in a.gone:
        if r["opsAfter"].get(op, 0):
            errors.append(f"{op} remains ({r['opsAfter'][op]})")
    for op in a.fewer:
        if r["opsAfter"].get(op, 0) >= r["opsBefore"].get(op, 0):
            errors.append(f"{op} count did not drop")
    for spec in a.count:
        op, n = spec.split("=")
        if r["opsAfter"].get(op, 0) != int(n):
            errors.append(f"{op}: {r['opsAfter'].get(op, 0)} node(s) after optimization, expected {n}")
    if a.opset is not None:
        opset = opset_of(out)
        if opset != a.opset:
            errors.append(f"the optimized model imports opset {opset}, expected {a.opset}")
    if not os.path.getsize(out):
        errors.append("empty output model")
    e2e = r["endToEnd"]
    print(f"{stem}: nodes {r['nodesBefore']} -> {r['nodesAfter']}, max abs diff {e2e['maxAbsDiff']:.3g}, "
          f"max rel diff {e2e['maxRelDiff']:.3g}, passes: "
          + ", ".join(sorted({x['pass'] for x in r['applied']})))
    for op in sorted(set(r["opsBefore"]) | set(r["opsAfter"])):
        before, after = r["opsBefore"].get(op, 0), r["opsAfter"].get(op, 0)
        if before != after:
            print(f"  {op}: {before} -> {after}")
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
