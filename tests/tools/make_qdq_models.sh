#!/bin/sh
# Makes standard QDQ int8 models (make_qdq.py) from fetched float models, once: NAME_qdq.onnx in OUT_DIR is kept while
# it is newer than both its float model and make_qdq.py. Used by the int8 test fixture and the int8 benchmark.
#   make_qdq_models.sh MODELS_DIR OUT_DIR NAME...
set -eu
[ $# -ge 3 ] || { echo "usage: $0 MODELS_DIR OUT_DIR NAME..." >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
models=$1 out=$2
shift 2
mkdir -p "$out"
for name in "$@"; do
  src="$models/$name.onnx" dst="$out/${name}_qdq.onnx"
  [ -f "$src" ] || { echo "make_qdq_models: no $src (scripts/fetch-models.sh [--bench])" >&2; exit 1; }
  if [ -f "$dst" ] && [ "$dst" -nt "$src" ] && [ "$dst" -nt "$here/make_qdq.py" ]; then
    echo "ok     $dst"
    continue
  fi
  /usr/bin/python3 "$here/make_qdq.py" "$src" "$dst.tmp"
  mv -f "$dst.tmp" "$dst"
done
