#!/usr/bin/env bash
# Runs the fuzz targets longer than CI does (CI: NPUWB_FUZZ_SECONDS=25 each), one after another, on their kept
# corpora (build/fuzz/tests/fuzz/NAME/corpus grows from run to run).
#   bash tests/fuzz/fuzz_long.sh [SECONDS_EACH=600] [NAME...]     e.g. fuzz_long.sh 3600 onnx_run npy
# NAMEs: onnx_import onnx_run npy dataset_list vendor_log report_json chip_profile agent_job (default: all).
# A finding fails its test and leaves the input in build/fuzz/tests/fuzz/NAME/artifacts: turn it into a
# regression test (tests/data/regressions for models, tests/cli/hostile for CLI-level cases).
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH="${1:-600}"; shift || true
cmake --preset fuzz -DNPUWB_FUZZ_SECONDS="$SECONDS_EACH" -DNPUWB_FUZZ_SEED=0 >/dev/null
cmake --build --preset fuzz --target fuzz_all
regex="^fuzz_"
if [ "$#" -gt 0 ]; then regex="^fuzz_($(IFS='|'; echo "$*"))\$"; fi
status=0
ctest --test-dir build/fuzz -R "$regex" --output-on-failure --timeout $((SECONDS_EACH + 300)) -V || status=$?
cmake --preset fuzz -DNPUWB_FUZZ_SECONDS=25 -DNPUWB_FUZZ_SEED=1 >/dev/null  # CI's length and seed again
exit "$status"
