#!/bin/sh
# Heterogeneous partitioning on this machine: `npuwb-cli partition MODEL --devices local-2core` (cpu-onednn pinned to
# CPU 0, cpu-xnnpack pinned to CPU 1, one thread each; costs calibrated when planning) ROUNDS times in fresh
# processes, FRAMES frames per schedule. Prints per schedule the median frames/s predicted and measured, their
# ratio, and the measured pipelined / serial speedup (goals: pipelined beats serial; each prediction within 25% of
# its measurement). Not a timed test: run by hand on a quiet machine (check `uptime`).
#
#   tests/bench/bench_partition.sh [-b BUILD_DIR] [-d DEVICES] [-f FRAMES] [-r ROUNDS] [-w OMP_WAIT_POLICY] [MODEL...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench_common.sh"
devices=local-2core
frames=100
rounds=3
wait_policy=${OMP_WAIT_POLICY:-PASSIVE}
while getopts b:d:f:r:w: opt; do
  case $opt in
    b) build=$OPTARG ;; d) devices=$OPTARG ;; f) frames=$OPTARG ;; r) rounds=$OPTARG ;; w) wait_policy=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-d DEVICES] [-f FRAMES] [-r ROUNDS] [-w OMP_WAIT_POLICY] [MODEL...]" >&2
       exit 1 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "$root/tests/data/models/resnet50.onnx"
cli="$build/bin/npuwb-cli"
[ -x "$cli" ] || cli="$root/build/release/bin/npuwb-cli"
[ -x "$cli" ] || { echo "no npuwb-cli: build it first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "load: $(uptime | sed 's/.*load average/load average/')   OMP_WAIT_POLICY=$wait_policy   frames=$frames rounds=$rounds"
for model in "$@"; do
  [ -f "$model" ] || { echo "skip $model: not found" >&2; continue; }
  i=0
  while [ "$i" -lt "$rounds" ]; do
    OMP_WAIT_POLICY=$wait_policy "$cli" partition "$model" --devices "$devices" --frames "$frames" \
      --json "$tmp/$i.json" > "$tmp/$i.txt" 2>&1 || { cat "$tmp/$i.txt" >&2; exit 1; }
    i=$((i + 1))
  done
  /usr/bin/python3 - "$(basename "$model" .onnx)" "$tmp"/*.json <<'PY'
import json, statistics, sys
name, paths = sys.argv[1], sys.argv[2:]
rows = {}
for p in paths:
    part = json.load(open(p))["partition"]
    for s in part["schedules"]:
        r = rows.setdefault(s["schedule"], {"units": ",".join(s["units"]), "pred": [], "meas": []})
        r["pred"].append(s["predicted"]["framesPerSecond"])
        r["meas"].append(s["measured"]["framesPerSecond"])
stages = " | ".join(f"{s['unit']} {len(s['nodes'])} nodes {s['predictedUs'] / 1000:.1f} ms" for s in part["stages"])
print(f"\n{name}: {len(part['stages'])} stages ({stages}); sync {part['syncUs']:.1f} us")
print(f"{'schedule':<10} {'units':<28} {'pred fps':>9} {'meas fps':>9} {'meas/pred':>9}   rounds (meas fps)")
med = {}
for sched in ("single", "serial", "pipelined"):
    if sched not in rows:
        continue
    r = rows[sched]
    pred, meas = statistics.median(r["pred"]), statistics.median(r["meas"])
    med[sched] = meas
    print(f"{sched:<10} {r['units']:<28} {pred:9.2f} {meas:9.2f} {meas / pred:9.3f}   "
          + " ".join(f"{m:.2f}" for m in r["meas"]))
if "serial" in med and "pipelined" in med:
    print(f"measured pipelined / serial: {med['pipelined'] / med['serial']:.3f}x"
          + (f"; pipelined / single: {med['pipelined'] / med['single']:.3f}x" if "single" in med else ""))
PY
  rm -f "$tmp"/*.json "$tmp"/*.txt
done
