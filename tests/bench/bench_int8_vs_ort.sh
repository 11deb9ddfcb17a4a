#!/bin/sh
# int8 rows of the side-by-side benchmark: standard QDQ models (tests/tools/make_qdq.py: per-channel symmetric s8
# weights, u8 activations calibrated on the benchmark's uniform inputs) run by our engine and by ONNX Runtime on the
# same QDQ file (bench_vs_ort.sh), then our int8 against our own fp32 on resnet50. Not a timed test: run by hand.
#
#   tests/bench/bench_int8_vs_ort.sh [-b BUILD_DIR] [-B BACKEND] [-t "1 2"] [-n RUNS] [-d QDQ_DIR] [MODEL_NAME...]
#
# QDQ models are made once into QDQ_DIR (default build/qdq-models) from tests/data/models/NAME.onnx.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench_common.sh"
qdq="$root/build/qdq-models"
while getopts b:B:t:n:r:d: opt; do
  bench_option "$opt" "${OPTARG-}" || case $opt in
    d) qdq=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-B BACKEND] [-t THREADS] [-n RUNS] [-r ROUNDS] [-d QDQ_DIR] [MODEL_NAME...]" >&2; exit 1 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- mobilenet_v2 resnet18 resnet50 shufflenet_v2_x1_0 squeezenet1_1 efficientnet_b0
models=""
for m in "$@"; do
  src="$root/tests/data/models/$m.onnx"
  if [ ! -f "$src" ]; then echo "skip $m: no $src (scripts/fetch-models.sh --bench)" >&2; continue; fi
  sh "$root/tests/tools/make_qdq_models.sh" "$root/tests/data/models" "$qdq" "$m" >&2
  models="$models $qdq/${m}_qdq.onnx"
done
# shellcheck disable=SC2086  # the model list is space-separated paths without spaces
sh "$here/bench_vs_ort.sh" -b "$build" -B "$backend" -t "$threads" -n "$runs" -r "$rounds" $models

fp32="$root/tests/data/models/resnet50.onnx"
int8="$qdq/resnet50_qdq.onnx"
[ -f "$fp32" ] && [ -f "$int8" ] || exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "ours int8 vs ours fp32 (resnet50):"
for t in $threads; do
  for kind in fp32 int8; do
    model=$fp32; [ $kind = int8 ] && model=$int8
    "$build/bin/npuwb-cli" profile "$model" --backend "$backend" --threads "$t" --runs "$runs" --warmup 2 -q \
      --json "$tmp/$kind.json" >/dev/null 2>&1
  done
  /usr/bin/python3 - "$t" "$tmp/fp32.json" "$tmp/int8.json" <<'PY'
import json, sys
f, i = (json.load(open(p))["run"]["medianUs"] / 1e3 for p in sys.argv[2:4])
print(f"threads {sys.argv[1]}: fp32 {f:.2f} ms, int8 {i:.2f} ms, int8 speed-up {f / i:.2f}x")
PY
done
