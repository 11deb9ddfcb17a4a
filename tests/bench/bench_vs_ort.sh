#!/bin/sh
# Side-by-side fp32 benchmark of our engine (npuwb-cli profile --backend B) and ONNX Runtime (onnxruntime-node,
# graph optimizations 'all', same intra-op thread count). Each model runs ours, then ORT, taking turns ROUNDS times
# (default 3), each turn a fresh process (so peak RSS is per engine), warm-up first, then timed runs: at least RUNS and
# at least MS milliseconds (-m, default 400; the same count on both sides); the medians pool all turns' runs. Both
# sides time whole runs: ours without per-layer timing (which costs a few percent on small models), as ORT runs
# without its profiler. One profiled run of ours before the turns gives the fallbacks, their share of our time, and
# the run count. Not a timed test: run by hand.
#
#   tests/bench/bench_vs_ort.sh [-b BUILD_DIR] [-B BACKEND] [-t "1 2"] [-n RUNS] [-m MS] [-r ROUNDS] [-c quick|full]
#                               [-o ROWS.jsonl] [MODEL.onnx[@NAME=D1,D2,...][|FP32.onnx]...]
#
# `@NAME=D1,D2,...` (repeatable per model) fixes an input's shape for both engines (ours: --input-shape); other
# symbolic dims are 1. `|FP32.onnx` (int8 models): both engines also run that fp32 model in every turn, so our
# int8/fp32 and our int8/ORT's fp32 ratios compare runs of the same minutes. Default models: the torchvision set in
# tests/data/models (mobilenet_v2, resnet18, resnet50, shufflenet_v2_x0_5, shufflenet_v2_x1_0, squeezenet1_1,
# efficientnet_b0; missing ones are skipped: export them with scripts/fetch-models.sh --bench) and PP-OCRv4 det at
# 1x3x480x480 and rec at 1x3x48x320. `-c quick|full`: the fp32 models of the benchmark corpus instead
# (tests/bench/corpus.py; run `corpus.py make` once).
# Prints per model and thread count: our median, ORT median, ratio ours/ORT, the ratio of the fastest runs (`fast`:
# other work on the machine delays some runs, rarely all), peak RSS of each, session creation of each (ours: model
# load + Session + prepare(), which learns the shapes and compiles the backend plan without an inference; ORT:
# InferenceSession.create), our fallback count and the share of our time spent in those fallbacks (reference
# kernels); then per thread count the geometric mean of the ratio, the worst model and the fallbacks.
# Neither creation figure counts the engine's environment: ours loads the backend plugin and builds ONNX's schema
# registry before the clock starts, as require('onnxruntime-node') loads ORT's binding and environment before create().
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench_common.sh"
kind=fp32
while getopts b:B:t:n:m:r:c:o:k: opt; do
  bench_option "$opt" "${OPTARG-}" || case $opt in
    k) kind=$OPTARG ;;  # which corpus models -c lists: fp32 or int8 (bench_int8_vs_ort.sh)
    *) echo "usage: $0 [-b BUILD_DIR] [-B BACKEND] [-t THREADS] [-n RUNS] [-m MS] [-r ROUNDS] [-c quick|full] [-o ROWS.jsonl] [MODEL[@NAME=D1,...][|FP32]...]" >&2
       exit 1 ;;
  esac
done
shift $((OPTIND - 1))
models="$root/tests/data/models"
if [ $# -eq 0 ] && [ -n "$corpus" ]; then
  for spec in $(corpus_models "$kind"); do set -- "$@" "$spec"; done
  [ $# -gt 0 ] || { echo "the $corpus corpus has no $kind models yet: tests/bench/corpus.py make" >&2; exit 1; }
elif [ $# -eq 0 ]; then
  for m in mobilenet_v2 resnet18 resnet50 shufflenet_v2_x0_5 shufflenet_v2_x1_0 squeezenet1_1 efficientnet_b0; do
    if [ -f "$models/$m.onnx" ]; then set -- "$@" "$models/$m.onnx"
    else echo "skip $m: not in $models (scripts/fetch-models.sh --bench)" >&2; fi
  done
  set -- "$@" "$models/ch_PP-OCRv4_det_infer.onnx@x=1,3,480,480" "$models/ch_PP-OCRv4_rec_infer.onnx@x=1,3,48,320"
fi
cli="$build/bin/npuwb-cli"
[ -x "$cli" ] || { echo "no $cli: build npuwb-cli first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-28s %3s %10s %10s %6s %6s %9s %9s %9s %9s %5s %5s\n' \
  model thr ours_ms ort_ms ratio fast ours_rss ort_rss ours_cr ort_cr fallb ref%
for spec in "$@"; do
  fp32=""  # int8 specs may name their fp32 model after a |
  case $spec in *'|'*) fp32=${spec#*|}; spec=${spec%%|*} ;; esac
  model=${spec%%@*}
  shapes=""  # NAME=D1,... separated by spaces
  [ "$spec" = "$model" ] || shapes=$(printf '%s' "${spec#*@}" | tr '@' ' ')
  name=$(basename "$model" .onnx)
  set --
  for s in $shapes; do set -- "$@" --input-shape "$s"; done
  for t in $threads; do
    failed=""
    rm -f "$tmp"/ours.*.json "$tmp"/ort.*.json "$tmp"/fp32.*.json "$tmp"/ortfp32.*.json
    # The profiled run: fallbacks, their share of the time, and how many runs fill MIN_MS.
    if ! "$cli" profile "$model" --backend "$backend" --threads "$t" --runs 5 --warmup 2 -q "$@" \
         --json "$tmp/ours.profile.json" >/dev/null 2>"$tmp/ours.err"; then
      printf '%-28s %3s %s\n' "$name" "$t" "ours failed: $(tail -1 "$tmp/ours.err")"; continue
    fi
    n=$(/usr/bin/python3 -c 'import json, math, sys
median_ms = json.load(open(sys.argv[1]))["run"]["medianUs"] / 1e3
print(max(int(sys.argv[2]), min(2000, math.ceil(float(sys.argv[3]) / max(median_ms, 1e-3)))))' \
      "$tmp/ours.profile.json" "$runs" "$min_ms")
    warm=$((n / 10 > 2 ? n / 10 : 2))
    # Same input shapes for ORT as ours used: the given ones, else the declared with symbolic dims = 1.
    /usr/bin/python3 - "$tmp/ours.profile.json" $shapes > "$tmp/shapes.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
given = {s.rsplit("=", 1)[0]: [int(d) for d in s.rsplit("=", 1)[1].split(",")] for s in sys.argv[2:]}
types = {"float32": "float32", "int64": "int64", "int32": "int32"}
print(json.dumps({i["name"]: {"shape": given.get(i["name"]) or [int(d) if d.isdigit() else 1 for d in i["shape"]],
                              "dtype": types.get(i["dataType"], i["dataType"])} for i in r["model"]["inputs"]}))
PY
    round=1
    while [ "$round" -le "$rounds" ] && [ -z "$failed" ]; do
      if ! "$cli" profile "$model" --backend "$backend" --threads "$t" --runs "$n" --warmup "$warm" -q \
           --no-layer-times "$@" --json "$tmp/ours.$round.json" >/dev/null 2>"$tmp/ours.err"; then
        failed="ours failed: $(tail -1 "$tmp/ours.err")"; break
      fi
      if [ -n "$fp32" ] && ! "$cli" profile "$fp32" --backend "$backend" --threads "$t" --runs "$n" --warmup "$warm" \
           -q --no-layer-times "$@" --json "$tmp/fp32.$round.json" >/dev/null 2>"$tmp/ours.err"; then
        failed="ours on $fp32 failed: $(tail -1 "$tmp/ours.err")"; break
      fi
      if ! NPUWB_BENCH_SHAPES="$tmp/shapes.json" node "$here/ort_bench.mjs" --model "$model" --threads "$t" \
           --runs "$n" --warmup "$warm" > "$tmp/ort.$round.json" 2>"$tmp/ort.err"; then
        failed="ORT failed: $(tail -1 "$tmp/ort.err")"; break
      fi
      if [ -n "$fp32" ] && ! NPUWB_BENCH_SHAPES="$tmp/shapes.json" node "$here/ort_bench.mjs" --model "$fp32" \
           --threads "$t" --runs "$n" --warmup "$warm" > "$tmp/ortfp32.$round.json" 2>"$tmp/ort.err"; then
        failed="ORT on $fp32 failed: $(tail -1 "$tmp/ort.err")"; break
      fi
      round=$((round + 1))
    done
    if [ -n "$failed" ]; then printf '%-28s %3s %s\n' "$name" "$t" "$failed"; continue; fi
    /usr/bin/python3 - "$name" "$t" "$tmp/ratios" "$tmp" "$rounds" "$rows_out" <<'PY'
import json, os, statistics, sys
name, t, ratios, tmp, rounds, rows_out = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
ours = [json.load(open(f"{tmp}/ours.{k}.json")) for k in range(1, rounds + 1)]
ort = [json.load(open(f"{tmp}/ort.{k}.json")) for k in range(1, rounds + 1)]
# Medians over every timed run of every turn; creation: the median turn; peak RSS: the largest turn.
o = statistics.median(s for r in ours for s in r["run"]["samplesUs"]) / 1e3
x = statistics.median(s for r in ort for s in r["samplesUs"]) / 1e3
fp32 = [json.load(open(f"{tmp}/fp32.{k}.json")) for k in range(1, rounds + 1) if os.path.exists(f"{tmp}/fp32.{k}.json")]
ort_fp32 = [json.load(open(f"{tmp}/ortfp32.{k}.json")) for k in range(1, rounds + 1)
            if os.path.exists(f"{tmp}/ortfp32.{k}.json")]
# The fastest run of each side: a machine busy with other work delays some runs, rarely all of them.
om = min(s for r in ours for s in r["run"]["samplesUs"]) / 1e3
xm = min(s for r in ort for s in r["samplesUs"]) / 1e3
profiled = json.load(open(f"{tmp}/ours.profile.json"))
fb = len(profiled.get("fallbacks", []))
cr = statistics.median(r["run"].get("sessionCreateUs", 0) for r in ours) / 1e3
xcr = statistics.median(r["createMs"] for r in ort)
orss = max(r["memory"]["peakRssBytes"] for r in ours)
xrss = max(r["peakRssBytes"] for r in ort)
# Share of our per-layer time spent in the fallbacks (reference kernels), from the profiled run.
last = profiled
fallen = {r["node"] for r in last.get("fallbacks", [])}
total = sum(l["timeUs"] for l in last.get("layers", [])) or 1.0
ref = 100.0 * sum(l["timeUs"] for l in last.get("layers", []) if l.get("fullName") in fallen) / total
print(f'{name[:28]:28s} {t:>3s} {o:10.2f} {x:10.2f} {o / x:6.2f} {om / xm:6.2f} {orss / 2**20:8.0f}M '
      f'{xrss / 2**20:8.0f}M {cr:7.0f}ms {xcr:7.0f}ms {fb:5d} {ref:5.1f}', end="")
of = statistics.median(s for r in fp32 for s in r["run"]["samplesUs"]) / 1e3 if fp32 else None
xf = statistics.median(s for r in ort_fp32 for s in r["samplesUs"]) / 1e3 if ort_fp32 else None
print(f'  ours fp32 {of:.2f} ms, int8/fp32 {o / of:.2f}, ORT fp32 {xf:.2f} ms, int8/ORT fp32 {o / xf:.2f}'
      if fp32 else "")
with open(ratios, "a") as f:
    f.write(f'{t} {o / x} {orss / xrss} {cr / xcr} {name} {fb} {om / xm}\n')
if rows_out:
    ops = sorted({r["opType"] for r in last.get("fallbacks", [])})
    with open(rows_out, "a") as f:
        f.write(json.dumps({"model": name, "threads": int(t), "oursMs": o, "ortMs": x, "ratio": o / x,
                            "oursMinMs": om, "ortMinMs": xm, "ratioMin": om / xm,
                            "macs": last["model"].get("macs", 0), "fallbacks": fb, "fallbackOps": ops,
                            "referencePercent": ref, "runsPerTurn": len(ours[0]["run"]["samplesUs"]),
                            **({"oursFp32Ms": of,
                                "oursFp32MinMs": min(s for r in fp32 for s in r["run"]["samplesUs"]) / 1e3,
                                "ortFp32Ms": xf}
                               if fp32 else {})}) + "\n")
PY
  done
done
[ -f "$tmp/ratios" ] || exit 1
/usr/bin/python3 - "$tmp/ratios" <<'PY'
import math, sys
rows = [l.split() for l in open(sys.argv[1])]
for t in sorted({r[0] for r in rows}, key=int):
    sel = [r for r in rows if r[0] == t]
    gm = lambda k: math.exp(sum(math.log(float(r[k])) for r in sel) / len(sel))
    worst = max(sel, key=lambda r: float(r[1]))
    print(f'threads {t}: {len(sel)} models, geometric mean ours/ORT time {gm(1):.2f} (worst {float(worst[1]):.2f}: {worst[4]}), '
          f'peak RSS {gm(2):.2f}, session creation {gm(3):.2f}, fallbacks {sum(int(r[5]) for r in sel)} '
          f'in {sum(int(r[5]) > 0 for r in sel)} models; fastest runs: geometric mean {gm(6):.2f}')
PY
