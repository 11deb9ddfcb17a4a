#!/bin/sh
# Side-by-side matmul benchmark: our matmul kernels (MatmulContext on the cpu-onednn plugin) against oneDNN's f32
# matmul and OpenBLAS' sgemm, in one process, interleaved round by round (tests/bench/matmul_peer.cpp), medians
# of all rounds. Prints milliseconds, the ratios and whether the goals are met:
#   fp32 GEMM 1024x1024x1024 >= 0.9x the fastest library; int8 >= 2x our fp32; int4 weights at M = 1 >= 1.5x our fp32.
# Not a timed test: run it by hand on a machine as quiet as you can get it (the load average is printed first).
#
#   tests/bench/bench_matmul.sh [-b BUILD_DIR] [-t THREADS] [-r ROUNDS] [-n RUNS]
#
# OpenBLAS misdetects some CPUs (this project's AMD EPYC among them), so its core type is forced: the faster of
# SkylakeX (AVX-512 kernels) and Haswell (AVX2) in a short sgemm probe, or NPUWB_OPENBLAS_CORETYPE when set. Idle
# OpenMP and OpenBLAS workers sleep (OMP_WAIT_POLICY=PASSIVE) so that one contestant's spinning threads do not slow
# the next.
# Exit status: 0 all goals met, 3 a goal missed, 1 usage or build problem.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$root/build/release"
threads=2
rounds=5
runs=10
while getopts b:t:r:n: opt; do
  case $opt in
    b) build=$OPTARG ;; t) threads=$OPTARG ;; r) rounds=$OPTARG ;; n) runs=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-t THREADS] [-r ROUNDS] [-n RUNS]" >&2; exit 1 ;;
  esac
done
peer="$build/bin/npuwb-matmul-peer"
[ -x "$peer" ] || { echo "no $peer: build it first (cmake --build --preset release --target npuwb-matmul-peer)" >&2; exit 1; }
echo "load: $(uptime)"
echo "cpu:  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $threads thread(s), $rounds rounds x $runs runs"
export OMP_WAIT_POLICY=PASSIVE
export OMP_NUM_THREADS="$threads"
export OPENBLAS_NUM_THREADS="$threads"
coretype=${NPUWB_OPENBLAS_CORETYPE-}
if [ -z "$coretype" ]; then
  best=""
  for candidate in SkylakeX Haswell; do
    ms=$(OPENBLAS_CORETYPE=$candidate "$peer" --probe-openblas 2>/dev/null) || continue
    echo "OpenBLAS probe: $candidate sgemm 1024^3 $ms ms"
    if [ -z "$best" ] || awk -v a="$ms" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$ms; coretype=$candidate; fi
  done
fi
export OPENBLAS_CORETYPE="${coretype:-SkylakeX}"
exec "$peer" --threads "$threads" --rounds "$rounds" --runs "$runs"
