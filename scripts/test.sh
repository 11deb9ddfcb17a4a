#!/usr/bin/env bash
# Quick start 2: install everything, build the release preset and run the whole CTest suite
# (unit, ONNX conformance, real models vs ONNX Runtime, CLI, GUI offscreen, remote over a real sshd,
# quantization, the installed tree and .deb, the structure rules), check that nothing skipped that should run, then
# the board build (aarch64 cross, its tests under qemu-user) and the 60 s import fuzzer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/fetch-models.sh tests/data/models
cmake --preset release
cmake --build --preset release
# The preset sets QT_QPA_PLATFORM=offscreen and OMP_WAIT_POLICY=PASSIVE. A skipped test is not a passed one: any skip
# tests/allowed-skips.txt does not list (with its reason) fails the run.
ctest --preset release -j2 --output-junit "$PWD/build/release/ctest-junit.xml"
/usr/bin/python3 tests/tools/check_skips.py build/release/ctest-junit.xml --allowed tests/allowed-skips.txt
if [ "${NPUWB_SKIP_AARCH64:-0}" != "1" ]; then
  bash scripts/build-aarch64.sh --test
fi
if [ "${NPUWB_SKIP_FUZZ:-0}" != "1" ]; then
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz --target fuzz_onnx_import
  ctest --test-dir build/fuzz -R fuzz_onnx_import --output-on-failure
fi
