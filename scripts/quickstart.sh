#!/usr/bin/env bash
# Quick start 1: install, build the programs and the fast CPU backend plugins, then profile the bundled sample model
# locally on the best backend built (cpu-onednn on x86, cpu-xnnpack on arm64).
# With a display: opens the GUI on the sample with the profiling run already started.
# Without one: writes the same results as a JSON report and prints a summary table.
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL="${1:-resources/samples/tiny_mobilenet.onnx}"
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target npuwb npuwb-cli npuwb-plugins
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec build/release/bin/npuwb "$MODEL" --run
fi
mkdir -p out
build/release/bin/npuwb-cli profile "$MODEL" --json out/quickstart-report.json --top 15
backend=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["environment"]["backend"])' \
  out/quickstart-report.json)
echo
echo "No display found: the report (backend: $backend) is in out/quickstart-report.json. For a picture of the GUI"
echo "after the same run:"
echo "  xvfb-run -a build/release/bin/npuwb $MODEL --run --screenshot out/quickstart.png"
