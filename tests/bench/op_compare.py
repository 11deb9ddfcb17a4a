#!/usr/bin/python3
"""Per-op-type time of one model, ours beside ONNX Runtime's: where the difference is.

    op_compare.py OURS.json ORT_PROFILE.json [RUNS]

OURS.json: `npuwb-cli profile --json` (per-layer median times; a fused kernel's time is split over its nodes);
ORT_PROFILE.json: `node ort_bench.mjs --profile PREFIX` (its "Node" kernel events, warm-up included, divided by the
run count: RUNS, default the number of runs ORT's profile saw for the first node). ORT fuses nodes before it runs
them, so its op types are those of its optimized graph (FusedConv, QLinearConv...): the table lists both sides' op
types, with time per inference in ms and the share of the run.
"""
import collections
import json
import sys


def ours(path):
    r = json.load(open(path))
    per = collections.Counter()
    fallen = {f["node"] for f in r.get("fallbacks", [])}
    for layer in r["layers"]:
        op = layer["opType"] + (" (ref)" if layer.get("fullName") in fallen else "")
        per[op] += layer["timeUs"] / 1e3
    return per


def ort(path, runs):
    events = json.load(open(path))
    per = collections.Counter()
    seen = collections.Counter()
    for e in events:
        if e.get("cat") != "Node" or not e.get("name", "").endswith("_kernel_time"):
            continue
        per[e["args"].get("op_name", "?")] += e["dur"] / 1e3
        seen[e["name"]] += 1
    n = runs or (max(seen.values()) if seen else 1)
    return collections.Counter({k: v / n for k, v in per.items()})


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 1
    a, b = ours(sys.argv[1]), ort(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    ta, tb = sum(a.values()) or 1, sum(b.values()) or 1
    print(f"{'ours op':26s} {'ms':>8s} {'%':>5s}    {'ORT op':26s} {'ms':>8s} {'%':>5s}")
    left, right = a.most_common(), b.most_common()
    for i in range(max(len(left), len(right))):
        l = f"{left[i][0][:26]:26s} {left[i][1]:8.3f} {100 * left[i][1] / ta:5.1f}" if i < len(left) else " " * 41
        r = f"{right[i][0][:26]:26s} {right[i][1]:8.3f} {100 * right[i][1] / tb:5.1f}" if i < len(right) else ""
        print(f"{l}    {r}")
    print(f"{'total':26s} {ta:8.3f}          {'total':26s} {tb:8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
