#!/usr/bin/env bash
# Cross-builds the board side (engine, plugins, npuwb-agent, their tests) for aarch64 and, with --test, runs a fast
# subset under qemu-user, so we know the agent runs on an RK3588 Debian image.
#   scripts/build-aarch64.sh [--test]
# The arm64 sysroot is a separate tree made by mmdebstrap (never :arm64 packages beside the host's), cached under
# build/sysroot-arm64 and remade only when its package list changes.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SYSROOT="${NPUWB_SYSROOT:-$ROOT/build/sysroot-arm64}"
BUILD="$ROOT/build/aarch64"
RUN_TESTS=0
for arg in "$@"; do
  case "$arg" in
    --test) RUN_TESTS=1 ;;
    -h|--help) sed -n 2,6p "$0"; exit 0 ;;
    *) echo "build-aarch64: unknown argument '$arg' (use --test)" >&2; exit 1 ;;
  esac
done
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# --- host tools -----------------------------------------------------------------------------------------------
HOST_PKGS=(mmdebstrap qemu-user-static g++-aarch64-linux-gnu protobuf-compiler cmake ninja-build python3-jsonschema)
missing=()
for p in "${HOST_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "build-aarch64: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- arm64 sysroot ----------------------------------------------------------------------------------------------
# What the engine, npuwb_imageio, the cpu-xnnpack plugin, the agent and the tests link against (dependencies come
# along).
SYSROOT_PKGS="libc6-dev libstdc++-12-dev libonnx-dev libonnxifi libprotobuf-dev nlohmann-json3-dev libcli11-dev
  libxnnpack-dev libpthreadpool-dev libgtest-dev libssl-dev libeigen3-dev
  libpng-dev libjpeg62-turbo-dev libturbojpeg0-dev libexif-dev libstb-dev"
SYSROOT_PKGS="$(echo $SYSROOT_PKGS)"
STAMP="$SYSROOT/.npuwb-sysroot"

# mmdebstrap's extract variant leaves absolute symlinks (libz.so -> /lib/...); inside a sysroot they would point at
# the host's files, so make each one relative to its place in the tree.
relativize_symlinks() {
  local root="$1" link target abs
  while IFS= read -r -d '' link; do
    target="$(readlink "$link")"
    case "$target" in /*) ;; *) continue ;; esac
    abs="$root$target"
    ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$abs")" "$link"
  done < <(find "$root" -type l -print0)
}

# The mirrors this machine's apt uses (deb822 or one-line format), for the same Debian release.
apt_mirrors() {
  local suite="bookworm"
  local uris
  uris="$(grep -hE '^(URIs:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
            2>/dev/null | grep -E 'debian(-security)?/?( |$)' | sed -E 's/^URIs: *//; s/^deb (\[[^]]*\] )?//; s/ .*//' | sort -u)"
  local main="" security=""
  for u in $uris; do
    case "$u" in *debian-security*) security="${u%/}" ;; *debian*) main="${u%/}" ;; esac
  done
  main="${main:-http://deb.debian.org/debian}"
  security="${security:-http://deb.debian.org/debian-security}"
  echo "deb $main $suite main"
  echo "deb $main $suite-updates main"
  echo "deb $security $suite-security main"
}

t0=$(now)
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$SYSROOT_PKGS" ]; then
  echo "build-aarch64: sysroot $SYSROOT is complete (cached)"
  SYSROOT_TIME="cached"
else
  echo "build-aarch64: making the arm64 sysroot in $SYSROOT"
  rm -rf "$SYSROOT" "$SYSROOT.tmp"
  mapfile -t mirrors < <(apt_mirrors)
  mmdebstrap --quiet --variant=extract --arch=arm64 --include="$(echo "$SYSROOT_PKGS" | tr ' ' ',')" \
    bookworm "$SYSROOT.tmp" "${mirrors[@]}"
  relativize_symlinks "$SYSROOT.tmp"
  echo "$SYSROOT_PKGS" > "$SYSROOT.tmp/.npuwb-sysroot"
  mv "$SYSROOT.tmp" "$SYSROOT"
  SYSROOT_TIME="$(elapsed "$t0") s"
fi
echo "build-aarch64: sysroot: $SYSROOT_TIME"

# --- cross build ------------------------------------------------------------------------------------------------
t1=$(now)
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
export NPUWB_SYSROOT="$SYSROOT"
(cd "$ROOT" && cmake --preset aarch64 -DNPUWB_SYSROOT="$SYSROOT" "${launcher[@]}" >/dev/null)
cmake --build "$BUILD" -j"${NPUWB_JOBS:-2}"
BUILD_TIME="$(elapsed "$t1") s"
echo "build-aarch64: cross build: $BUILD_TIME"
command -v file >/dev/null && file "$BUILD/bin/npuwb-agent" | sed 's/, BuildID.*//'

QEMU=(qemu-aarch64-static -L "$SYSROOT")
AGENT="$BUILD/bin/npuwb-agent"
if [ "$RUN_TESTS" -eq 1 ]; then
  t2=$(now)
  # Under emulation everything is ~10x slower: the agent's tests, the backend loader and plugin tests, and the
  # unit tests of the parts the agent relies on (IR, import, runtime, report).
  ctest --test-dir "$BUILD" --output-on-failure -j"${NPUWB_JOBS:-2}" --timeout 900 \
    -R '^agent_|^Agent|BackendLoader\.|^Tensor|Half\.|Broadcast\.|Session\.|MemoryPlanner\.|Profiler\.|BadModel\.|RoundTrip\.|NnKernels|MathKernels|Xnn(Conv|Gemm|Network)'
  echo "build-aarch64: a run of the sample model under qemu with cpu-xnnpack:"
  job="$(mktemp)"
  printf '{"model":"%s","backend":"cpu-xnnpack","runs":3,"warmup":1,"telemetryIntervalMs":100}\n' \
    "$ROOT/resources/samples/tiny_mobilenet.onnx" > "$job"
  "${QEMU[@]}" "$AGENT" run "$job" | /usr/bin/python3 "$ROOT/tests/agent/summarize_run.py"
  rm -f "$job"
  TEST_TIME="$(elapsed "$t2") s"
  echo "build-aarch64: qemu tests: $TEST_TIME"
fi

echo "build-aarch64: npuwb-agent probe under qemu:"
"${QEMU[@]}" "$AGENT" probe --pretty
echo "build-aarch64: timings: sysroot $SYSROOT_TIME, cross build $BUILD_TIME${TEST_TIME:+, qemu tests $TEST_TIME}"
