#!/bin/sh
# int8 rows of the side-by-side benchmark: standard QDQ models (tests/tools/make_qdq.py: per-channel symmetric s8
# weights, u8 activations calibrated on the benchmark's uniform inputs) run by our engine and by ONNX Runtime on the
# same QDQ file (bench_vs_ort.sh), and our engine on the fp32 model in the same turns (our int8/fp32). Not a timed
# test: run by hand.
#
#   tests/bench/bench_int8_vs_ort.sh [-b BUILD_DIR] [-B BACKEND] [-t "1 2"] [-n RUNS] [-m MS] [-d QDQ_DIR] [-c quick|full]
#                                    [-o ROWS.jsonl] [MODEL_NAME...]
#
# With -c: the QDQ exports of the benchmark corpus made by our own quantizer (npuwb-cli quantize --scheme w8a8;
# tests/bench/corpus.py) instead of make_qdq.py's, each with its fp32 model timed by our engine in the same turns.
#
# QDQ models are made once into QDQ_DIR (default build/qdq-models) from tests/data/models/NAME.onnx.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench_common.sh"
qdq="$root/build/qdq-models"
while getopts b:B:t:n:m:r:d:c:o: opt; do
  bench_option "$opt" "${OPTARG-}" || case $opt in
    d) qdq=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-B BACKEND] [-t THREADS] [-n RUNS] [-m MS] [-r ROUNDS] [-d QDQ_DIR] [-c quick|full] [-o ROWS.jsonl] [MODEL_NAME...]" >&2; exit 1 ;;
  esac
done
shift $((OPTIND - 1))
if [ -n "$corpus" ]; then  # the corpus's own w8a8 exports (made by npuwb-cli quantize: tests/bench/corpus.py make)
  exec sh "$here/bench_vs_ort.sh" -b "$build" -B "$backend" -t "$threads" -n "$runs" -m "$min_ms" -r "$rounds" -c "$corpus" \
    -k int8 ${rows_out:+-o "$rows_out"}
fi
[ $# -gt 0 ] || set -- mobilenet_v2 resnet18 resnet50 shufflenet_v2_x1_0 squeezenet1_1 efficientnet_b0
models=""
for m in "$@"; do
  src="$root/tests/data/models/$m.onnx"
  if [ ! -f "$src" ]; then echo "skip $m: no $src (scripts/fetch-models.sh --bench)" >&2; continue; fi
  sh "$root/tests/tools/make_qdq_models.sh" "$root/tests/data/models" "$qdq" "$m" >&2
  models="$models $qdq/${m}_qdq.onnx|$src"
done
# shellcheck disable=SC2086  # the model list is space-separated paths without spaces
sh "$here/bench_vs_ort.sh" -b "$build" -B "$backend" -t "$threads" -n "$runs" -m "$min_ms" -r "$rounds" $models

