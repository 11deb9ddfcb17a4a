#!/usr/bin/python3
"""Joins the rows of an fp32 and an int8 corpus run (bench_vs_ort.sh / bench_int8_vs_ort.sh -c ... -o ROWS.jsonl)
into one table per thread count: model, MACs, fp32 ours/ORT, int8 ours/ORT, our int8/fp32 time, our int8 against
ORT's fp32 time, fallbacks (fp32/int8), share of our time in reference kernels; then geometric means, worst models and
the speed goals (the GOAL_ constants).
Rows that carry the fastest runs' ratio (ratioMin) get it too, in a second pair of columns and summary line: on a
machine busy with other work it moves far less than the medians.

    corpus_table.py FP32.jsonl INT8.jsonl
"""
import json
import math
import sys

GOAL_GEOMEAN, GOAL_WORST, GOAL_REFERENCE = 0.85, 1.05, 10.0
GOAL_INT8_VS_ORT_FP32 = 0.6  # above 100 M MACs, with int8 faster than our own fp32


def load(path):
    rows = {}
    for line in open(path):
        r = json.loads(line)
        name = r["model"][:-len("_w8a8")] if r["model"].endswith("_w8a8") else r["model"]
        rows[(name, r["threads"])] = r  # a later run of the same model replaces an earlier one
    return rows


def gmean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 1
    fp32, int8 = load(sys.argv[1]), load(sys.argv[2])
    for t in sorted({k[1] for k in fp32} | {k[1] for k in int8}):
        names = sorted({k[0] for k in fp32 if k[1] == t} | {k[0] for k in int8 if k[1] == t},
                       key=lambda n: -(fp32.get((n, t)) or int8.get((n, t)))["macs"])
        print(f"threads {t}")
        print(f"{'model':34s} {'GMACs':>6s} {'fp32/ORT':>8s} {'int8/ORT':>8s} {'i8/fp32':>7s} {'i8/ORTf':>7s} "
              f"{'fallb':>7s} {'ref%':>9s} {'fp32 fast':>9s} {'int8 fast':>9s}")
        slow_int8, above_ort_fp32 = [], []
        for n in names:
            f, i = fp32.get((n, t)), int8.get((n, t))
            macs = (f or i)["macs"]
            cell = lambda r, k, fmt: format(r[k], fmt) if r else "-"
            # Our int8 against our fp32 timed in the same turns when the int8 run did (|FP32 specs), else across runs.
            i8f = (i["oursMs"] / i["oursFp32Ms"] if i and "oursFp32Ms" in i
                   else i["oursMs"] / f["oursMs"] if f and i else None)
            if i8f is not None and macs > 100e6 and i8f >= 1.0:
                slow_int8.append(n)
            # Our int8 against ORT's fp32 timed in the same turns when the int8 run did, else the fp32 run's (another
            # window: timings drift between windows on a shared machine).
            i8o = (i["oursMs"] / i["ortFp32Ms"] if i and "ortFp32Ms" in i
                   else i["oursMs"] / f["ortMs"] if f and i else None)
            if i8o is not None and macs > 100e6 and i8o > GOAL_INT8_VS_ORT_FP32:
                above_ort_fp32.append(f"{n} {i8o:.2f}")
            fb = f"{f['fallbacks'] if f else '-'}/{i['fallbacks'] if i else '-'}"
            ref = f"{cell(f, 'referencePercent', '.0f')}/{cell(i, 'referencePercent', '.0f')}"
            fast = lambda r: format(r["ratioMin"], "9.2f") if r and "ratioMin" in r else "-"
            print(f"{n[:34]:34s} {macs / 1e9:6.2f} {cell(f, 'ratio', '8.2f'):>8s} {cell(i, 'ratio', '8.2f'):>8s} "
                  f"{format(i8f, '7.2f') if i8f else '-':>7s} {format(i8o, '7.2f') if i8o else '-':>7s} {fb:>7s} "
                  f"{ref:>9s} {fast(f):>9s} {fast(i):>9s}")
        for kind, rows in (("fp32", fp32), ("int8", int8)):
            sel = [(n, rows[(n, t)]) for n in names if (n, t) in rows]
            if not sel:
                continue
            g = gmean([r["ratio"] for _, r in sel])
            worst = max(sel, key=lambda x: x[1]["ratio"])
            ref = max(sel, key=lambda x: x[1]["referencePercent"])
            ok = g <= GOAL_GEOMEAN and worst[1]["ratio"] <= GOAL_WORST and ref[1]["referencePercent"] <= GOAL_REFERENCE
            print(f"  {kind}: {len(sel)} models, geometric mean {g:.2f} (goal {GOAL_GEOMEAN}), "
                  f"worst {worst[1]['ratio']:.2f} "
                  f"{worst[0]} (goal {GOAL_WORST}), most reference time {ref[1]['referencePercent']:.0f}% {ref[0]} "
                  f"(goal {GOAL_REFERENCE:.0f}%): {'met' if ok else 'NOT met'}")
            if all("ratioMin" in r for _, r in sel):
                fw = max(sel, key=lambda x: x[1]["ratioMin"])
                print(f"  {kind} fastest runs: geometric mean {gmean([r['ratioMin'] for _, r in sel]):.2f}, "
                      f"worst {fw[1]['ratioMin']:.2f} {fw[0]}")
        print(f"  int8 not faster than fp32 above 100 M MACs: {', '.join(slow_int8) or 'none'}")
        print(f"  int8 above {GOAL_INT8_VS_ORT_FP32}x ORT's fp32 above 100 M MACs: "
              f"{', '.join(above_ort_fp32) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
