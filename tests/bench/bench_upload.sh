#!/usr/bin/env bash
# Board deploy benchmark on a real sshd on loopback (started by npuwb-remote-bench in a temp folder):
#   - upload of a 50 MB file: npuwb deploy (SFTP upload + sha256 check on the board + atomic rename) vs OpenSSH
#     scp to the same server in the same run; prints the throughput ratio (goal >= 0.8);
#   - warm remote run overhead with the connection kept and agent + model cached: wall time of a whole remote
#     profile minus the model's own time (session creation + run) (goal <= 300 ms).
# usage: tests/bench/bench_upload.sh [BUILD_DIR] [SIZE_MB]     (BUILD_DIR default build/release)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${1:-$ROOT/build/release}"
SIZE="${2:-50}"
BENCH="$BUILD/bin/npuwb-remote-bench"
if [ ! -x "$BENCH" ]; then
  cmake --build "$BUILD" --target npuwb-remote-bench npuwb-agent
fi
MODEL="$ROOT/tests/data/models/resnet18.onnx"
[ -f "$MODEL" ] || MODEL="$ROOT/resources/samples/tiny_mobilenet.onnx"
echo "machine load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
"$BENCH" --size-mb "$SIZE" --model "$ROOT/resources/samples/tiny_mobilenet.onnx" --warm-runs 5
if [ "$MODEL" != "$ROOT/resources/samples/tiny_mobilenet.onnx" ]; then
  "$BENCH" --size-mb 1 --model "$MODEL" --warm-runs 3 | grep -v '^upload'
fi
