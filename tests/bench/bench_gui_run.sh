#!/bin/sh
# The GUI's Run against `npuwb-cli profile` on the same model, runs and backend ("auto" unless -B): alternating in
# fresh processes ROUNDS times (a busy spell of the machine falls on both sides), the GUI offscreen with its run
# options in a scratch settings folder and `--run --report`. Prints each side's backend and threads, the median of
# the medians and GUI/CLI (goal: within 10%). Not a timed test: run by hand.
#
#   tests/bench/bench_gui_run.sh [-b BUILD_DIR] [-B BACKEND] [-t THREADS] [-n RUNS] [-r ROUNDS] [MODEL...]
# THREADS 0 (the default) is the backend's choice, as both sides' "auto".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench_common.sh"
build="$root/build/release"
backend=auto
threads=0
runs=20
rounds=5
while getopts b:B:t:n:r: opt; do
  bench_option "$opt" "${OPTARG-}" || {
    echo "usage: $0 [-b BUILD_DIR] [-B BACKEND] [-t THREADS] [-n RUNS] [-r ROUNDS] [MODEL...]" >&2
    exit 1
  }
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "$root/tests/data/models/resnet18.onnx"
cli="$build/bin/npuwb-cli"
gui="$build/bin/npuwb"
for b in "$cli" "$gui"; do [ -x "$b" ] || { echo "no $b: build it first" >&2; exit 1; }; done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The GUI reads its run options from its settings, as a user's last choice.
mkdir -p "$tmp/config/npuwb"
printf '[run]\nruns=%s\nwarmup=2\nbackend=%s\nthreads=%s\n' "$runs" "$backend" "$threads" > "$tmp/config/npuwb/npuwb.conf"

field() {  # field REPORT EXPR: a value of the report, e.g. run.medianUs
  /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, r))" "$1" "$2"
}
median_of() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

printf '%-16s %-22s %-22s %12s %12s %8s\n' model "CLI backend" "GUI backend" "CLI us" "GUI us" GUI/CLI
for model in "$@"; do
  [ -f "$model" ] || { echo "skip $model: not found" >&2; continue; }
  : > "$tmp/cli"; : > "$tmp/gui"
  i=0
  while [ "$i" -lt "$rounds" ]; do
    "$cli" profile "$model" -q --backend "$backend" --threads "$threads" --runs "$runs" --warmup 2 \
      --json "$tmp/c.json" > /dev/null 2>&1
    field "$tmp/c.json" "run['medianUs']" >> "$tmp/cli"
    XDG_CONFIG_HOME="$tmp/config" QT_QPA_PLATFORM=offscreen "$gui" "$model" --run --report "$tmp/g.json" > /dev/null 2>&1
    field "$tmp/g.json" "run['medianUs']" >> "$tmp/gui"
    i=$((i + 1))
  done
  ran() { echo "$(field "$1" "environment['backend']"),$(field "$1" "environment['threads']")t"; }
  c=$(median_of < "$tmp/cli"); g=$(median_of < "$tmp/gui")
  awk -v m="$(basename "$model" .onnx)" -v cb="$(ran "$tmp/c.json")" -v gb="$(ran "$tmp/g.json")" -v c="$c" -v g="$g" \
    'BEGIN {printf "%-16s %-22s %-22s %12.1f %12.1f %8.3f\n", m, cb, gb, c, g, g / c}'
  printf '  CLI medians: %s\n  GUI medians: %s\n' "$(tr '\n' ' ' < "$tmp/cli")" "$(tr '\n' ' ' < "$tmp/gui")"
done
