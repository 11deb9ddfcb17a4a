#!/usr/bin/env bash
# Optimize and quantize time against graph size on chains of Mul/Add/Relu/Identity (tests/bench/make_chain.py):
# near-linear means the time per node stays flat from 10,000 to 100,000 nodes.
#   bash tests/bench/bench_optimize_scale.sh [CLI=build/release/bin/npuwb-cli] [SIZES="10000 50000 100000"]
set -euo pipefail
cd "$(dirname "$0")/../.."
CLI="${1:-build/release/bin/npuwb-cli}"; SIZES="${2:-10000 50000 100000}"
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
/usr/bin/python3 - "$WORK" <<'PY'
import sys, numpy as np
for i in range(4): np.save(f"{sys.argv[1]}/s{i}.npy", np.random.rand(1, 16).astype(np.float32))
open(f"{sys.argv[1]}/dataset.txt", "w").write("".join(f"s{i}.npy\n" for i in range(4)))
PY
printf "%-8s %-10s %12s %14s\n" nodes command "cpu s" "us per node"
for n in $SIZES; do
  /usr/bin/python3 tests/bench/make_chain.py "$n" "$WORK/chain.onnx"
  for cmd in optimize quantize; do
    args=(optimize "$WORK/chain.onnx" -o "$WORK/out.onnx")
    [ "$cmd" = quantize ] && args=(quantize "$WORK/chain.onnx" --dataset "$WORK/dataset.txt" --scheme w8a8 --observer minmax
                                  --backend reference -o "$WORK/out.onnx")
    # GNU time writes its figures to a file of its own (-o): the command's output is discarded, a failure is not.
    if ! /usr/bin/time -o "$WORK/time" -f "%U %S" "$CLI" "${args[@]}" >/dev/null 2>"$WORK/stderr"; then
      echo "$cmd of $n nodes failed:" >&2; cat "$WORK/stderr" >&2; exit 1
    fi
    cpu=$(awk '{print $1 + $2}' "$WORK/time")
    printf "%-8s %-10s %12.1f %14.1f\n" "$n" "$cmd" "$cpu" "$(awk -v c="$cpu" -v n="$n" 'BEGIN{print c * 1e6 / n}')"
  done
done
