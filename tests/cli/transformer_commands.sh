#!/usr/bin/env bash
# Every CLI command on every test-size transformer of tests/tools/export_transformers.py (BERT, ViT, DeiT, GPT-2 with
# a KV cache, Whisper encoder, Swin, MobileViT; opset 14 and 17; fixed shapes and dynamic axes, the latter given
# concrete dims with --input-shape from NAME.shapes): info, run and profile on each backend, optimize, quantize on
# the model's seeded data set (NAME.dataset.txt: ids inside the vocabulary, 0/1 masks), accuracy, estimate, advise,
# partition and convert-rknn --script-only. Each must exit 0 and write what it was asked to; one line per model and
# command, then `N passed, N failed`.
#   [NPUWB_TEST_BACKENDS="reference cpu-onednn"] transformer_commands.sh NPUWB_CLI MODELS_DIR WORK_DIR [NAME_FILTER]
set -u
CLI="$1"; MODELS="$2"; WORK="$3"; FILTER="${4:-}"
TARGET=rk3588
read -r -a BACKENDS <<<"${NPUWB_TEST_BACKENDS:-reference cpu-onednn cpu-xnnpack}"  # CMake: the plugins built
export OMP_WAIT_POLICY=PASSIVE  # two cores shared with other tests: no spinning threads between runs
mkdir -p "$WORK"
passed=0; failed=0

# check MODEL COMMAND WANT -- ARGV...: runs ARGV (120 s at most), wants exit 0 and, when WANT is not empty, that
# file (or folder, non-empty) written. One line: ok/FAIL, model, command, exit code, seconds; on failure the last
# lines of its output (the whole of it is in WORK/MODEL/COMMAND.log).
check() {
  local model="$1" name="$2" want="$3"; shift 4
  local log="$WORK/$model/$name.log" rc start secs why=""
  start=$(date +%s%N)
  timeout 120 "$@" >"$log" 2>&1; rc=$?
  secs=$(( ($(date +%s%N) - start) / 1000000 ))
  if [ "$rc" -ne 0 ]; then
    case "$rc" in
      124) why="timed out after 120 s" ;;
      13[0-9]) why="killed by signal $((rc - 128))" ;;
    esac
  elif [ -n "$want" ] && ! { [ -s "$want" ] || [ -n "$(ls -A "$want" 2>/dev/null)" ]; }; then
    why="exit 0 but $want was not written"
  fi
  if [ "$rc" -eq 0 ] && [ -z "$why" ]; then
    passed=$((passed + 1))
    printf 'ok   %-28s %-22s exit 0  %6d ms\n' "$model" "$name" "$secs"
  else
    failed=$((failed + 1))
    printf 'FAIL %-28s %-22s exit %d %6d ms %s\n' "$model" "$name" "$rc" "$secs" "$why"
    grep -v '^\s*$' "$log" | tail -n 3 | sed 's/^/       | /'
  fi
}

# Which backend a profile report says it ran on: a plugin that cannot load falls back to the reference kernels with
# only a warning, which would make the per-backend lines prove nothing.
check_backend() {
  local model="$1" backend="$2" json="$3"
  [ -s "$json" ] || return 0  # the profile line already failed
  local ran
  ran=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["environment"]["backend"])' \
        "$json" 2>&1)
  if [ "$ran" = "$backend" ]; then passed=$((passed + 1)); printf 'ok   %-28s %-22s ran on %s\n' "$model" \
    "profile backend" "$ran"
  else failed=$((failed + 1)); printf 'FAIL %-28s %-22s asked for %s, ran on %s\n' "$model" "profile backend" \
    "$backend" "$ran"; fi
}

# The device profile for partition: one --list-devices names (the chip's, else the first).
DEVICES=$("$CLI" partition --list-devices 2>/dev/null | awk '{print $1}' | grep -x "$TARGET" | head -n 1)
[ -n "$DEVICES" ] || DEVICES=$("$CLI" partition --list-devices 2>/dev/null | awk 'NF {print $1; exit}')
echo "partition device profile: ${DEVICES:-none listed}"

shopt -s nullglob
models=("$MODELS"/*.onnx)
[ "${#models[@]}" -gt 0 ] || { echo "FAIL no models in $MODELS (tests/tools/export_transformers.py)"; exit 1; }
for path in "${models[@]}"; do
  model=$(basename "$path" .onnx)
  [ -z "$FILTER" ] || [[ "$model" == *$FILTER* ]] || continue
  W="$WORK/$model"
  rm -rf "$W"; mkdir -p "$W"
  shapes=()
  if [[ "$model" == *_dyn ]]; then
    while read -r spec; do [ -n "$spec" ] && shapes+=(--input-shape "$spec"); done <"$MODELS/$model.shapes"
  fi
  dataset="$MODELS/$model.dataset.txt"

  check "$model" info "$W/info.json" -- "$CLI" info "$path" --json "$W/info.json"
  for b in "${BACKENDS[@]}"; do
    check "$model" "run $b" "$W/run.$b" -- "$CLI" run "$path" --backend "$b" --output-dir "$W/run.$b" "${shapes[@]}"
    check "$model" "profile $b" "$W/profile.$b.json" -- "$CLI" profile "$path" --backend "$b" --runs 1 \
      --warmup 0 -q --json "$W/profile.$b.json" "${shapes[@]}"
    check_backend "$model" "$b" "$W/profile.$b.json"
  done
  check "$model" optimize "$W/optimized.onnx" -- "$CLI" optimize "$path" -o "$W/optimized.onnx" -q \
    --json "$W/optimize.json" "${shapes[@]}"
  check "$model" "quantize w8a8" "$W/w8a8.onnx" -- "$CLI" quantize "$path" --dataset "$dataset" --scheme w8a8 -q \
    -o "$W/w8a8.onnx" --json "$W/quantize.json"
  if [ -s "$W/w8a8.onnx" ]; then
    check "$model" accuracy "$W/accuracy.json" -- "$CLI" accuracy "$path" "$W/w8a8.onnx" --dataset "$dataset" -q \
      --json "$W/accuracy.json"
  else
    failed=$((failed + 1)); printf 'FAIL %-28s %-22s no quantized model to compare\n' "$model" accuracy
  fi
  check "$model" estimate "$W/estimate.json" -- "$CLI" estimate "$path" --target "$TARGET" \
    --json "$W/estimate.json" "${shapes[@]}"
  check "$model" advise "$W/advise.json" -- "$CLI" advise "$path" --target "$TARGET" --json "$W/advise.json" \
    "${shapes[@]}"
  check "$model" partition "$W/partition.json" -- "$CLI" partition "$path" --devices "$DEVICES" \
    --json "$W/partition.json" "${shapes[@]}"
  check "$model" "convert-rknn" "$W/model.convert.py" -- "$CLI" convert-rknn "$path" --target "$TARGET" \
    --dataset "$dataset" --script-only -o "$W/model.rknn" "${shapes[@]}"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
