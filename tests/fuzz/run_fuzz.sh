#!/usr/bin/env bash
# Seeds a corpus with ONNX's conformance models, then fuzzes for the given seconds. Exit 0 means no finding.
set -euo pipefail
FUZZER="$1"; WORK="$2"; SECONDS_TO_RUN="$3"
CORPUS="$WORK/corpus"; SEEDS="$WORK/seeds"
mkdir -p "$CORPUS" "$SEEDS" "$WORK/artifacts"
if [ -z "$(ls -A "$SEEDS")" ]; then
  for m in /usr/share/libonnx-testdata/data/{node,simple,pytorch-converted,pytorch-operator}/*/model.onnx; do
    [ "$(stat -c %s "$m")" -lt 65536 ] && cp "$m" "$SEEDS/$(basename "$(dirname "$m")").onnx"
  done
fi
ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$FUZZER" "$CORPUS" "$SEEDS" \
  -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=4096 -malloc_limit_mb=4096 -timeout=20 \
  -artifact_prefix="$WORK/artifacts/" -print_final_stats=1 2>&1 | tail -25
