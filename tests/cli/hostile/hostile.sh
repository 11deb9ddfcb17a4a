#!/usr/bin/env bash
# The hardening probe's defects as regression tests: each hostile input gives the expected exit code
# and a message naming what is wrong, within a time limit and a memory cap; never a crash, a hang, a leak of a
# file outside the model's folder or a destroyed input.
#   hostile.sh CLI WORK_DIR
set -u
CLI="$1"; WORK="$2"
HERE="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$WORK"; mkdir -p "$WORK"
/usr/bin/python3 "$HERE/make_hostile.py" "$WORK" || exit 1
cd "$WORK" || exit 1
# Symlinks and FIFOs inside the model's folder.
echo "SECRET-LINE" > "$WORK/secret.txt"; mkdir -p "$WORK/outside"; echo "SECRET-LINE" > "$WORK/outside/passwd"
mkdir -p "$WORK/m"; for f in ext_link ext_linkdir ext_fifo; do mv "$WORK/$f.onnx" "$WORK/m/"; done
ln -sfn "$WORK/secret.txt" "$WORK/m/link.bin"
ln -sfn "$WORK/outside" "$WORK/m/linkdir"
for f in model.fifo npy.fifo list.fifo log.fifo m/fifo.bin; do mkfifo "$WORK/$f"; done
printf 'x.npy\n' > "$WORK/dataset.txt"

failures=0; passed=0
# The memory cap is an address-space limit, which a sanitizer build cannot live under (its shadow memory alone
# reserves terabytes): there the sanitizer's own allocator limits stand in for it.
VMEM_KB=3000000
if ldd "$CLI" 2>/dev/null | grep -q 'libasan'; then VMEM_KB=unlimited; fi
# expect NAME CODE NEEDLE -- command...: exit code CODE and NEEDLE in stderr, within 60 s and 3 GB of memory.
expect() {
  local name="$1" code="$2" needle="$3"; shift 4
  local out rc
  out=$( (ulimit -v "$VMEM_KB"; timeout -s KILL 60 "$@") 2>&1 >/dev/null); rc=$?
  if [ "$rc" -eq "$code" ] && grep -qF -- "$needle" <<<"$out"; then
    echo "ok   $name (exit $rc): $(head -c 300 <<<"$out" | tr '\n' ' ')"; passed=$((passed + 1))
  else
    echo "FAIL $name (exit $rc, wanted $code and '$needle'): $out"; failures=$((failures + 1))
  fi
}
# Files: symlinks out of the model's folder, FIFOs and devices instead of files, a bad offset.
expect symlink-file      1 "outside the model's folder" -- "$CLI" info m/ext_link.onnx
expect symlink-optimize  1 "outside the model's folder" -- "$CLI" optimize m/ext_link.onnx -o "$WORK/leak.onnx"
expect symlink-folder    1 "outside the model's folder" -- "$CLI" profile m/ext_linkdir.onnx --runs 1 --warmup 0
expect fifo-model        1 "is a FIFO"                  -- "$CLI" info model.fifo
expect fifo-extdata      1 "is a FIFO"                  -- "$CLI" info m/ext_fifo.onnx
expect fifo-npy          1 "is a FIFO"                  -- "$CLI" run good.onnx --input x=npy.fifo --output-dir "$WORK/out"
expect fifo-dataset      1 "is a FIFO"                  -- "$CLI" quantize good.onnx --dataset list.fifo -o "$WORK/q.onnx"
expect fifo-log          1 "is a FIFO"                  -- "$CLI" import-log log.fifo
expect dev-zero-log      1 "is a character device"      -- "$CLI" import-log /dev/zero
expect bad-offset        1 "offset '12abc'"             -- "$CLI" info ext_bad_offset.onnx
[ -e "$WORK/leak.onnx" ] && { echo "FAIL symlink-optimize wrote $WORK/leak.onnx"; failures=$((failures + 1)); }
# Limits: declared sizes against the data present, before allocating; the memory budget; shape overflow.
expect declared-huge     1 "raw data has 16 bytes"      -- "$CLI" info declared_huge.onnx
expect declared-huge-npy 1 "data size 16 bytes"         -- "$CLI" run good.onnx --input x=declared_huge.npy --output-dir "$WORK/out"
expect overflow-npy      1 "overflow.npy"               -- "$CLI" run good.onnx --input x=overflow.npy --output-dir "$WORK/out"
expect overflow-expand   1 "expand_big"                 -- "$CLI" run overflow_expand.onnx --output-dir "$WORK/out"
expect overflow-expand-ref 1 "expand_big"               -- "$CLI" run overflow_expand.onnx --output-dir "$WORK/out" --backend reference
expect loop-growing      1 "memory budget"              -- env NPUWB_MEMORY_BUDGET=1G "$CLI" profile loop_growing.onnx --runs 1 --warmup 0
expect loop-growing-flag 1 "memory budget of 67.1 MB"   -- "$CLI" profile loop_growing.onnx --runs 1 --warmup 0 --memory-budget 64M
expect bad-budget-flag  1 "--memory-budget"            -- "$CLI" profile loop_growing.onnx --memory-budget lots
expect resize-huge-ref   1 "memory budget"              -- "$CLI" profile resize_huge.onnx --runs 1 --warmup 0 --backend reference
expect resize-huge-dnnl  1 "resize_big"                 -- "$CLI" profile resize_huge.onnx --runs 1 --warmup 0 --backend cpu-onednn
# Estimation never executes an unbounded loop.
expect loop-estimate     1 "loop iterations"            -- "$CLI" estimate loop_forever.onnx --target rk3588
expect loop-advise       1 "loop iterations"            -- "$CLI" advise loop_huge_trips.onnx --target rk3588
# A time limit bounds local work everywhere, inside Loop bodies too.
expect timeout-profile   1 "time limit of 2 s"          -- env NPUWB_TIMEOUT=2 "$CLI" profile loop_forever.onnx --runs 1 --warmup 0
expect timeout-flag      1 "time limit of 2 s"          -- "$CLI" --time-limit 2 profile loop_forever.onnx --runs 1 --warmup 0
expect timeout-flag-after 1 "time limit of 1 s"        -- "$CLI" quantize loop_forever.onnx --dataset dataset.txt -o "$WORK/lq2.onnx" --time-limit 1
expect timeout-optimize  1 "time limit of 2 s"          -- env NPUWB_TIMEOUT=2 "$CLI" optimize loop_huge_trips.onnx -o "$WORK/lo.onnx"
expect timeout-quantize  1 "time limit of 2 s"          -- env NPUWB_TIMEOUT=2 "$CLI" quantize loop_forever.onnx --dataset dataset.txt -o "$WORK/lq.onnx"
# Validation: the ONNX spec on load, parameters shorter than channels in every backend.
expect complex64         1 "complex"                    -- "$CLI" run complex.onnx --output-dir "$WORK/out"
expect bad-opset         1 "opset"                      -- "$CLI" info bad_opset.onnx
expect bad-ir            1 "IR version"                 -- "$CLI" info bad_ir.onnx
expect relu-two-inputs   1 "relu2"                      -- "$CLI" info relu_two_inputs.onnx
expect if-outputs        1 "if_bad"                     -- "$CLI" run if_outputs.onnx --output-dir "$WORK/out"
expect nested-if-70      1 "nested more than 64 levels" -- "$CLI" info nested_if_70.onnx
for backend in reference cpu-onednn cpu-xnnpack; do
  for m in bn_short_params conv_short_bias prelu_short_slope; do
    node=$(sed 's/_params//;s/_bias//;s/_slope//' <<<"$m")
    expect "$m-$backend" 1 "$node" -- "$CLI" profile $m.onnx --runs 1 --warmup 0 --backend $backend
  done
done
# Outputs never destroy an input (the model, its external data, a data set list) or another output, never
# replace a device, and an output folder that is a file is named, not a library's words. Inputs keep their bytes.
cp x.npy y.npy  # good.onnx's output is y: run --output-dir . would write y.npy over this input
sums() { sha256sum good.onnx ext_ok.onnx weights.bin dataset.txt x.npy y.npy; }
before=$(sums)
expect out-info-model    1 "is an input of this command" -- "$CLI" info good.onnx --json good.onnx
expect out-profile-model 1 "is an input of this command" -- "$CLI" profile good.onnx --runs 1 --warmup 0 --json good.onnx
expect out-estimate-model 1 "is an input of this command" -- "$CLI" estimate good.onnx --target rk3588 --json ./good.onnx
expect out-optimize-self 1 "is an input of this command" -- "$CLI" optimize good.onnx -o good.onnx
expect out-optimize-ext  1 "is an input of this command" -- "$CLI" optimize ext_ok.onnx -o weights.bin
expect out-quantize-list 1 "is an input of this command" -- "$CLI" quantize good.onnx --dataset dataset.txt -o dataset.txt
expect out-run-input     1 "is an input of this command" -- "$CLI" run good.onnx --input x=y.npy --output-dir .
ln -sfn good.onnx alias.onnx
expect out-symlink-alias 1 "is an input of this command" -- "$CLI" info good.onnx --json alias.onnx
expect out-two-outputs   1 "already wrote another output" -- "$CLI" quantize good.onnx --dataset dataset.txt -o "$WORK/q2.onnx" --json "$WORK/q2.onnx"
after=$(sums)
if [ "$before" = "$after" ]; then echo "ok   inputs unchanged"; passed=$((passed + 1));
else echo "FAIL an input changed:"; diff <(echo "$before") <(echo "$after"); failures=$((failures + 1)); fi
expect out-dir-is-file   1 "cannot use"                  -- "$CLI" run good.onnx --input x=x.npy --output-dir good.onnx/sub
if [ "$(id -u)" = 0 ] && mknod "$WORK/nulldev" c 1 3 2>/dev/null; then
  expect out-char-device 1 "is a character device"       -- "$CLI" info good.onnx --json "$WORK/nulldev"
  if [ -c "$WORK/nulldev" ]; then echo "ok   device kept"; passed=$((passed + 1));
  else echo "FAIL the device was replaced"; failures=$((failures + 1)); fi
else
  expect out-fifo        1 "is a FIFO"                   -- "$CLI" info good.onnx --json "$WORK/log.fifo"
fi
# Backend verdicts: on odd attributes and shapes, each backend says what the reference says: the same error (exit
# 1 naming the node) or, where the reference accepts or broadcasts, the same output.
for m in verdict/*.onnx; do
  name=$(basename "$m" .onnx); verdicts=""
  for backend in reference cpu-onednn cpu-xnnpack; do
    rm -rf "verdict/out-$backend"
    msg=$(timeout -s KILL 60 "$CLI" run "$m" --input x=verdict/x.npy --backend $backend --output-dir "verdict/out-$backend" 2>&1 >/dev/null)
    rc=$?
    [ "$rc" -eq 1 ] && msg=$(grep -o "node '[^']*'" <<<"$msg" | head -1)
    [ "$rc" -eq 0 ] && msg=""
    verdicts+="$backend=$rc $msg;"
  done
  ref=$(sed 's/;.*//;s/^reference=//' <<<"$verdicts")
  same=1
  for backend in cpu-onednn cpu-xnnpack; do
    got=$(grep -o "$backend=[^;]*" <<<"$verdicts" | sed "s/^$backend=//")
    [ "$got" = "$ref" ] || same=0
    if [ "$same" = 1 ] && [ "${ref%% *}" = 0 ]; then
      /usr/bin/python3 -c "import numpy as np, sys; a = np.load(sys.argv[1]); b = np.load(sys.argv[2]); sys.exit(0 if a.shape == b.shape and np.allclose(a, b, rtol=1e-4, atol=1e-5) else 1)"         "verdict/out-reference/y.npy" "verdict/out-$backend/y.npy" || same=0
    fi
  done
  if [ "$same" = 1 ] && [ "${ref%% *}" -le 1 ]; then echo "ok   verdict $name: $verdicts"; passed=$((passed + 1));
  else echo "FAIL verdict $name: $verdicts"; failures=$((failures + 1)); fi
done
# Deep but valid nesting loads.
if out=$(timeout 60 "$CLI" info nested_if_40.onnx 2>&1); then echo "ok   nested-if-40 loads"; passed=$((passed + 1));
else echo "FAIL nested-if-40: $out"; failures=$((failures + 1)); fi
echo "hostile: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
