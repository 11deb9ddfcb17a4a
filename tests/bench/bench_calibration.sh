#!/bin/sh
# Calibration benchmark (calibration must stream, not grow with the data set): calibrate PP-OCRv4 det on N synthetic text-page samples (default 200 at
# 480x480) with the KL observer on the fast backend, and compare with plain float inference of the same samples.
# Not a timed test: run by hand.
#
#   tests/bench/bench_calibration.sh [-b BUILD_DIR] [-B BACKEND] [-t THREADS] [-n SAMPLES] [-s SIZE] [-o OBSERVER]
#                                    [-d SAMPLE_DIR] [-r ROUNDS]
#
# What is timed, all inside one `npuwb-cli quantize --baseline` process:
# - calibration: quant::calibrate() from its start to the chosen ranges (session creation per worker, loading every
#   .npy, running the model with the observed activations as extra outputs, histograms, the KL threshold search);
# - inference: quant::timeInference(), the same workers, backend, threads and .npy loading running the plain
#   float model (outputs only) over the same samples;
# - wall time and peak RSS of the whole process (/usr/bin/time -f %e/%M): model load, calibration, QDQ build and
#   save, then the inference baseline (which needs less memory than calibration, so the peak is calibration's).
# The process runs ROUNDS times (default 3); the ratio is that of the median calibration and the median inference
# time, since either alone moved by 20% between runs on a shared machine.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$root/build/release"
backend=auto
threads=0
samples=200
size=480
observer=kl
dir=""
rounds=3
while getopts b:B:t:n:s:o:d:r: opt; do
  case $opt in
    b) build=$OPTARG ;; B) backend=$OPTARG ;; t) threads=$OPTARG ;; n) samples=$OPTARG ;; s) size=$OPTARG ;;
    o) observer=$OPTARG ;; d) dir=$OPTARG ;; r) rounds=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-B BACKEND] [-t THREADS] [-n SAMPLES] [-s SIZE] [-o OBSERVER] [-d DIR] [-r ROUNDS]" >&2
       exit 1 ;;
  esac
done
model="$root/tests/data/models/ch_PP-OCRv4_det_infer.onnx"
[ -f "$model" ] || { echo "no $model (scripts/fetch-models.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "$dir" ] || dir="$tmp/samples"
mkdir -p "$dir"
if [ ! -f "$dir/dataset.txt" ] || [ "$(wc -l < "$dir/dataset.txt")" -ne "$samples" ]; then
  echo "writing $samples samples 1x3x${size}x${size} to $dir ..." >&2
  /usr/bin/python3 - "$dir" "$samples" "$size" "$root/tests/quant" <<'PY'
import os, sys
import numpy as np
out, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, sys.argv[4])
from ort_agreement import text_page  # the same synthetic text pages the ORT agreement test feeds
rng = np.random.default_rng(0)
names = []
for i in range(count):
    name = f"s{i:04d}.npy"
    np.save(os.path.join(out, name), text_page(rng, (1, 3, size, size)))
    names.append(name)
with open(os.path.join(out, "dataset.txt"), "w") as f:
    f.write("\n".join(names) + "\n")
PY
fi
echo "calibrating $samples samples (observer $observer, backend $backend, threads $threads), $rounds rounds ..." >&2
for round in $(seq 1 "$rounds"); do
  /usr/bin/time -f "%e %M" -o "$tmp/time$round.txt" "$build/bin/npuwb-cli" quantize "$model" --dataset "$dir/dataset.txt" \
    --observer "$observer" --backend "$backend" --threads "$threads" -o "$tmp/det_qdq.onnx" --baseline \
    --json "$tmp/report$round.json" -q > "$tmp/stdout.txt" 2> "$tmp/stderr.txt" || { cat "$tmp/stderr.txt" >&2; exit 1; }
done
/usr/bin/python3 - "$tmp" "$rounds" "$samples" "$size" "$observer" <<'PY'
import json, statistics, sys
tmp, rounds, samples, size, observer = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
cals, infs, walls, rss = [], [], [], []
for i in range(1, rounds + 1):
    r = json.load(open(f"{tmp}/report{i}.json"))
    wall, rss_kb = open(f"{tmp}/time{i}.txt").read().split()[-2:]
    cals.append(r["calibrationSeconds"]); infs.append(r["inferenceSeconds"])
    walls.append(float(wall)); rss.append(int(rss_kb) / 1024)
    print(f"  round {i}: calibration {cals[-1]:.2f} s, inference {infs[-1]:.2f} s, ratio {cals[-1] / infs[-1]:.2f}x")
cal, inf = statistics.median(cals), statistics.median(infs)
print(f"PP-OCRv4 det 1x3x{size}x{size}, {samples} samples, observer {observer}, backend {r['backend']}, {rounds} rounds")
print(f"  calibration {cal:.1f} s ({cal / samples * 1e3:.0f} ms/sample); float inference of the same samples "
      f"{inf:.1f} s; ratio of medians {cal / inf:.2f}x (goal <= 1.5x)")
print(f"  process wall time {statistics.median(walls):.1f} s (median), peak RSS {max(rss):.0f} MB (max)")
PY
