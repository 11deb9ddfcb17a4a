#!/usr/bin/python3
"""Per-op-type time of one model, ours beside ONNX Runtime's: where the difference is.

    op_compare.py [--min] OURS.json ORT_PROFILE.json [RUNS]

OURS.json: `npuwb-cli profile --json` (per-layer median times; a fused kernel is its first node's row, counted under
its op types joined, "Conv+Relu");
ORT_PROFILE.json: `node ort_bench.mjs --profile PREFIX` (its "Node" kernel events, warm-up included, divided by the
run count: RUNS, default the number of runs ORT's profile saw for the first node). ORT fuses nodes before it runs
them, so its op types are those of its optimized graph (FusedConv, QLinearConv...): the table lists both sides' op
types, with time per inference in ms and the share of the run.
--min: each node's fastest run on both sides instead (ours: the per-layer minimum; ORT: the node's shortest event),
which a machine busy with other work disturbs far less than means or medians.
"""
import collections
import json
import sys


def ours(path, fastest=False):
    r = json.load(open(path))
    per = collections.Counter()
    fallen = {f["node"] for f in r.get("fallbacks", [])}
    op_of = {layer["fullName"]: layer["opType"] for layer in r["layers"]}
    for layer in r["layers"]:
        if layer.get("fusedInto"):
            continue  # its time is its fused layer's
        op = "+".join([layer["opType"]] + [op_of.get(n, "?") for n in layer.get("fusedNodes", [])])
        op += " (ref)" if layer.get("fullName") in fallen else ""
        per[op] += layer["timeUsMin" if fastest else "timeUs"] / 1e3
    return per


def ort(path, runs, fastest=False):
    events = json.load(open(path))
    per = collections.Counter()
    seen = collections.Counter()
    shortest = {}  # node -> (op type, shortest event in ms)
    for e in events:
        if e.get("cat") != "Node" or not e.get("name", "").endswith("_kernel_time"):
            continue
        per[e["args"].get("op_name", "?")] += e["dur"] / 1e3
        seen[e["name"]] += 1
        op, best = shortest.get(e["name"], (e["args"].get("op_name", "?"), float("inf")))
        shortest[e["name"]] = (op, min(best, e["dur"] / 1e3))
    if fastest:
        fast = collections.Counter()
        for op, ms in shortest.values():
            fast[op] += ms
        return fast
    n = runs or (max(seen.values()) if seen else 1)
    return collections.Counter({k: v / n for k, v in per.items()})


def main():
    args = [a for a in sys.argv[1:] if a != "--min"]
    fastest = len(args) < len(sys.argv) - 1
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 1
    a, b = ours(args[0], fastest), ort(args[1], int(args[2]) if len(args) > 2 else 0, fastest)
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
