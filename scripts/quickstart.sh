#!/usr/bin/env bash
# Quick start 1: install, build, then profile the bundled sample model locally.
# With a display: opens the GUI on the sample with the profiling run already started.
# Without one: writes the same results as a JSON report and prints a summary table.
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL="${1:-resources/samples/tiny_mobilenet.onnx}"
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target npuwb npuwb-cli
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec build/release/bin/npuwb "$MODEL" --run
fi
mkdir -p out
build/release/bin/npuwb-cli profile "$MODEL" --runs 10 --warmup 2 --json out/quickstart-report.json --top 15
echo
echo "No display found: the report is in out/quickstart-report.json. For a picture of the GUI after the same run:"
echo "  xvfb-run -a build/release/bin/npuwb $MODEL --run --screenshot out/quickstart.png"
