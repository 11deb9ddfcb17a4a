#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer (cmake preset asan: RelWithDebInfo,
# -fsanitize=address,undefined, UBSan errors fatal), with LeakSanitizer where it works.
#   bash scripts/asan-suite.sh            the CI subset (below); scripts/test.sh runs it with NPUWB_ASAN=1
#   bash scripts/asan-suite.sh --full     everything, GUI included (by hand)
# The script prints the build and test times; they decide whether CI runs the subset on every submission.
# CI's subset: every unit test (engine internals, ops, passes, runtime, quant, util), the backend differential and
# int8 tests on cpu-onednn and cpu-xnnpack, the CLI tests (hostile inputs included), passes, perfmodel, rknpu
# (vendor logs, fake runtime) and agent tests, and the ONNX conformance suite. Left to --full: the real-model
# checks against ONNX Runtime and the real quantization accuracy checks (minutes each natively, 10-20x slower
# under ASan), the GUI tests (Qt under ASan) and the remote tests (a real sshd).
#
# LeakSanitizer: on for everything except the tests that load the cpu-onednn plugin or libssh. libgomp keeps its
# thread pool's per-thread state until process exit and oneDNN caches primitives and kernels in globals freed by
# no destructor, so LSan reports "leaks" that are live caches (or its tracer crashes on the pool's threads,
# "Tracer caught signal 11"); libssh's global crypto state (ssh_init without
# ssh_finalize in forked children) is the same. Those tests run with detect_leaks=0 (LSAN_EXCLUDED below), and
# their leaks are not checked; every other test fails on a leak.
set -euo pipefail
cd "$(dirname "$0")/.."
FULL=0; [ "${1:-}" = "--full" ] && FULL=1
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
gui=OFF; [ "$FULL" = 1 ] && gui=ON
cmake --preset asan -DNPUWB_BUILD_GUI=$gui >/dev/null
start=$(date +%s)
cmake --build --preset asan -j2
echo "asan build: $(( $(date +%s) - start )) s"

SUBSET_EXCLUDE='^(realmodels|quant\.|quant_real|gui_|remote_|fetch_models|passes_(export|ppocr|shufflenet)|perfmodel_)|XnnpackInt8\.QdqResnet18|Realmodel'
# Tests that load the cpu-onednn plugin (OpenMP) or libssh; see above.
# The optimizer's proofs and the profiler run on the default backend (auto: cpu-onednn here), so their tests load
# OpenMP too; so do the matmul kernel tests (oneDNN's provider).
LSAN_EXCLUDED='cpu.onednn|Onednn|Plugins/|Executors/|Int8|cli_|agent_|remote_|realmodels|quant|Quant|passes_|rknpu_cli'
LSAN_EXCLUDED+='|Optimizer\.|UpgradeOpset|ConstantFolding|DeadCodeElimination|RemoveIdentity|Fold|Fuse|PadChannels'
LSAN_EXCLUDED+='|LayoutToConv|MoveActivationToConv|FocusToConv|MergeChains|HoistCommonFactor|Profiler\.|MatmulKernels'
# The librknnrt stand-in runs models on the engine's default backend (OpenMP) too.
LSAN_EXCLUDED+='|RknpuRuntime\.|RknnContexts\.|RknnZeroCopy\.|Standin'
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export OMP_WAIT_POLICY=PASSIVE QT_QPA_PLATFORM=offscreen
common=(--test-dir build/asan --output-on-failure -j2 --timeout 1800)
[ "$FULL" = 1 ] && SUBSET_EXCLUDE='^$'
start=$(date +%s)
status=0
# With leak checking.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0 \
  ctest "${common[@]}" -E "$SUBSET_EXCLUDE|$LSAN_EXCLUDED" || status=1
# Without (see above), the sanitizers otherwise the same.
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0 \
  ctest "${common[@]}" -R "$LSAN_EXCLUDED" -E "$SUBSET_EXCLUDE" || status=1
echo "asan tests: $(( $(date +%s) - start )) s"
exit "$status"
