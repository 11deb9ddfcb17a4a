#!/usr/bin/env bash
# The analysis commands (estimate, advise, partition) of an ASan + UBSan build (cmake preset asan) over models: every
# model given, or the CNNs of tests/data/models and the transformer corpus the CLI tests export, including the
# models whose shapes need a reference run. A model passes when each command exits 0 or refuses it with a clear
# error (exit 1) and the sanitizers print nothing; any report fails the script and names the model and command.
#   bash scripts/asan-analysis.sh [BUILD_DIR] [MODEL.onnx ...]      BUILD_DIR defaults to build/asan
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build/asan}; shift || true
CLI="$BUILD/bin/npuwb-cli"
[ -x "$CLI" ] || { echo "no $CLI: cmake --preset asan && cmake --build --preset asan --target npuwb-cli"; exit 2; }
models=("$@")
if [ "${#models[@]}" -eq 0 ]; then
  shopt -s nullglob
  models=(tests/data/models/*.onnx build/release/tests/cli/transformers/*.onnx)
fi
# LSan off: OpenMP's and oneDNN's process-lifetime caches read as leaks (scripts/asan-suite.sh says why).
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export OMP_WAIT_POLICY=PASSIVE
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
reports=0; runs=0
for path in "${models[@]}"; do
  name=$(basename "$path" .onnx)
  shapes=()
  shapesFile="${path%.onnx}.shapes"
  if [[ "$name" == *_dyn ]] && [ -f "$shapesFile" ]; then
    while read -r spec; do [ -n "$spec" ] && shapes+=(--input-shape "$spec"); done <"$shapesFile"
  fi
  for cmd in estimate advise partition; do
    args=("$cmd" "$path" --json "$work/out.json")
    case $cmd in
      estimate|advise) args+=(--target rk3588 "${shapes[@]}") ;;
      partition) args+=(--devices rk3588 "${shapes[@]}") ;;
    esac
    start=$(date +%s)
    "$CLI" "${args[@]}" >"$work/out.txt" 2>"$work/err.txt"
    rc=$?
    runs=$((runs + 1))
    if grep -qE "ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer" "$work/err.txt" || [ "$rc" -gt 1 ]; then
      reports=$((reports + 1))
      printf 'REPORT %-32s %-9s exit %d\n' "$name" "$cmd" "$rc"
      grep -m 8 -E "ERROR|runtime error|#[0-9] " "$work/err.txt" | sed 's/^/    /'
    else
      printf 'ok     %-32s %-9s exit %d  %3d s\n' "$name" "$cmd" "$rc" $(( $(date +%s) - start ))
      [ "$rc" -eq 1 ] && sed -n 1,2p "$work/err.txt" | sed 's/^/    /'
    fi
  done
done
echo "$runs runs, $reports with a sanitizer report or a crash"
[ "$reports" -eq 0 ]
