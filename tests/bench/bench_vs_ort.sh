#!/bin/sh
# Side-by-side fp32 benchmark of our engine (npuwb-cli profile --backend B) and ONNX Runtime (onnxruntime-node,
# graph optimizations 'all', same intra-op thread count). Each model runs ours, then ORT, alternating, each in a
# fresh process (so peak RSS is per engine), warm-up first, median of N runs. Not a timed test: run by hand.
#
#   tests/bench/bench_vs_ort.sh [-b BUILD_DIR] [-B BACKEND] [-t "1 2"] [-n RUNS] [MODEL.onnx ...]
#
# Default models: tests/data/models/*.onnx. Prints: model, threads, our median, ORT median, ratio ours/ORT, peak RSS
# of each, session-creation time of each (ours: first profile run = reference learning run + compile).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$root/build/h-onednn"
backend=cpu-onednn
threads="1 2"
runs=10
while getopts b:B:t:n: opt; do
  case $opt in
    b) build=$OPTARG ;; B) backend=$OPTARG ;; t) threads=$OPTARG ;; n) runs=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-B BACKEND] [-t THREADS] [-n RUNS] [MODEL ...]" >&2; exit 1 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "$root"/tests/data/models/*.onnx
cli="$build/bin/npuwb-cli"
[ -x "$cli" ] || { echo "no $cli: build npuwb-cli first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-34s %3s %12s %12s %7s %10s %10s %9s %9s\n' model thr ours_ms ort_ms ratio ours_rss ort_rss ours_cr ort_cr
for model in "$@"; do
  name=$(basename "$model" .onnx)
  for t in $threads; do
    if ! "$cli" profile "$model" --backend "$backend" --threads "$t" --runs "$runs" --warmup 2 -q \
         --json "$tmp/ours.json" >/dev/null 2>"$tmp/ours.err"; then
      printf '%-34s %3s ours failed: %s\n' "$name" "$t" "$(tail -1 "$tmp/ours.err")"; continue
    fi
    # Same input shapes for ORT as ours used (symbolic dims = 1).
    /usr/bin/python3 - "$tmp/ours.json" > "$tmp/shapes.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
types = {"float32": "float32", "int64": "int64", "int32": "int32"}
print(json.dumps({i["name"]: {"shape": [int(d) if d.isdigit() else 1 for d in i["shape"]],
                              "dtype": types.get(i["dataType"], i["dataType"])} for i in r["model"]["inputs"]}))
PY
    if ! NPUWB_BENCH_SHAPES="$tmp/shapes.json" node "$here/ort_bench.mjs" --model "$model" --threads "$t" \
         --runs "$runs" --warmup 2 > "$tmp/ort.json" 2>"$tmp/ort.err"; then
      printf '%-34s %3s ORT failed: %s\n' "$name" "$t" "$(tail -1 "$tmp/ort.err")"; continue
    fi
    /usr/bin/python3 - "$name" "$t" "$tmp/ours.json" "$tmp/ort.json" <<'PY'
import json, sys
name, t, ours, ort = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
o, x = ours["run"]["medianUs"] / 1e3, ort["medianUs"] / 1e3
fb = len(ours.get("fallbacks", []))
print(f'{name:34s} {t:>3s} {o:12.2f} {x:12.2f} {o / x:7.2f} {ours["memory"]["peakRssBytes"] / 2**20:9.0f}M '
      f'{ort["peakRssBytes"] / 2**20:9.0f}M {"-":>9s} {ort["createMs"]:8.0f}ms  fallbacks={fb}')
PY
  done
done
