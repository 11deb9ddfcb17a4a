#!/bin/sh
# What per-layer profiling costs on a fast backend: `npuwb-cli profile` with per-kernel timing (the default) and
# with --no-layer-times (whole runs only), alternating in fresh processes, ROUNDS times each; prints the median of
# each side's medians and the overhead in percent (goal: under 3%). Not a timed test: run by hand.
#
#   tests/bench/bench_profiling_overhead.sh [-b BUILD_DIR] [-B BACKEND] [-t THREADS] [-n RUNS] [-r ROUNDS] [MODEL...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench_common.sh"
threads=1
rounds=5
while getopts b:B:t:n:r: opt; do
  bench_option "$opt" "${OPTARG-}" || case $opt in
    r) rounds=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-B BACKEND] [-t THREADS] [-n RUNS] [-r ROUNDS] [MODEL...]" >&2; exit 1 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "$root/tests/data/models/resnet18.onnx" "$root/tests/data/models/mobilenet_v2.onnx" \
  "$root/tests/data/models/squeezenet1_1.onnx"
cli="$build/bin/npuwb-cli"
[ -x "$cli" ] || { echo "no $cli: build npuwb-cli first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median_us() {  # the report's median run time
  /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['run']['medianUs'])" "$1"
}
median_of() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

printf '%-22s %8s %14s %14s %9s\n' model threads "layers us" "whole us" overhead
for model in "$@"; do
  [ -f "$model" ] || { echo "skip $model: not found" >&2; continue; }
  : > "$tmp/with"; : > "$tmp/without"
  i=0
  while [ "$i" -lt "$rounds" ]; do
    "$cli" profile "$model" -q --backend "$backend" --threads "$threads" --runs "$runs" --warmup 3 \
      --json "$tmp/w.json" > /dev/null 2>&1
    median_us "$tmp/w.json" >> "$tmp/with"
    "$cli" profile "$model" -q --backend "$backend" --threads "$threads" --runs "$runs" --warmup 3 \
      --no-layer-times --json "$tmp/o.json" > /dev/null 2>&1
    median_us "$tmp/o.json" >> "$tmp/without"
    i=$((i + 1))
  done
  with=$(median_of < "$tmp/with"); without=$(median_of < "$tmp/without")
  awk -v m="$(basename "$model" .onnx)" -v t="$threads" -v a="$with" -v b="$without" \
    'BEGIN {printf "%-22s %8s %14.1f %14.1f %8.2f%%\n", m, t, a, b, 100 * (a - b) / b}'
done
