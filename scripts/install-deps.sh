#!/usr/bin/env bash
# Installs every Debian package NPU Workbench needs to build, run and test. Idempotent.
set -euo pipefail
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
PKGS=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  qt6-base-dev qt6-base-dev-tools libqt6svg6-dev libgl-dev
  libqcustomplot-dev libqcustomplot2.1-qt6
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  libdnnl-dev libxnnpack-dev libpthreadpool-dev
  nlohmann-json3-dev libcli11-dev qtkeychain-qt6-dev libgtest-dev libeigen3-dev
  libpng-dev libjpeg62-turbo-dev libturbojpeg0-dev libexif-dev libstb-dev zlib1g-dev
  libssh-dev libssl-dev openssh-server openssh-client
  graphviz xvfb xauth fonts-dejavu-core desktop-file-utils
  clang libclang-rt-14-dev
  python3-torch python3-torchvision python3-onnx python3-numpy python3-jsonschema python3-skimage
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "install-deps: all packages present"
