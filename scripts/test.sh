#!/usr/bin/env bash
# Quick start 2: install everything, build the release preset and run the whole CTest suite
# (unit, ONNX conformance, real models vs ONNX Runtime, CLI, GUI offscreen, remote over a real sshd,
# quantization, the installed tree and .deb, the structure rules), check that nothing skipped that should run, then
# the board build (aarch64 cross, its tests under qemu-user) and the fuzzers (25 s each).
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
  cmake --build --preset fuzz --target fuzz_all
  ctest --test-dir build/fuzz -L fuzz --output-on-failure   # every reader's fuzzer, 25 s each (tests/fuzz)
fi
if [ "${NPUWB_ASAN:-0}" = "1" ]; then  # the sanitizer subset (scripts/asan-suite.sh says which tests and why)
  bash scripts/asan-suite.sh
fi
