#!/usr/bin/env bash
# npuwb-cli matmul-bench: a small sweep on the CPU writes a table and JSON with the chip's peak and the estimate;
# specs the chip cannot run, a bad sweep and --board (no NPU runtime plugin yet) exit 1 naming the problem.
set -u
CLI="$1"; WORK="$2"
mkdir -p "$WORK"
source "$(dirname "$0")/expect.sh"  # fail, expect

# RK3588 int8 and RK3566 fp16 sweeps: two M from one context, JSON checked field by field.
if out=$(timeout 300 "$CLI" matmul-bench --chip rk3588 --type int8 --sweep M=1,8 K=64 N=96 --runs 2 --warmup 1 \
         --threads 2 --json "$WORK/rk3588.json" 2>&1); then
  echo "$out"
  grep -qF "RK3588  int8xint8->int32 (RKNN_INT8_MM_INT8_TO_INT32)" <<<"$out" || fail "rk3588 table header"
  /usr/bin/python3 - "$WORK/rk3588.json" <<'PY' || fail "rk3588 json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "npuwb-matmul-bench" and r["chip"] == "RK3588" and r["type"] == "int8xint8->int32", r
assert r["peakGops"] == 2048.0, r["peakGops"]  # 32x32 MACs per cycle, 1 GHz, 1 core, 2 ops per MAC
assert [(p["M"], p["K"], p["N"]) for p in r["points"]] == [(1, 64, 96), (8, 64, 96)]
for p in r["points"]:
    assert p["gops"] > 0 and p["medianUs"] > 0 and p["estimate"]["timeUs"] > 0, p
    assert p["nativeLayouts"]["B"] == "[N/32,K/32,32,32] = [3,2,32,32]", p["nativeLayouts"]
print("rk3588 json ok")
PY
else fail "rk3588 sweep exited with an error: $out"; fi
if out=$(timeout 300 "$CLI" matmul-bench --chip rk3566 --type fp16 --layout-b norm --layout-ac native \
         --sweep M=1,4 K=48 N=40 --runs 2 --threads 1 2>&1); then
  echo "$out"
  grep -qF "[K/4,M,4]" <<<"$out" || fail "rk3566 native A layout in the table"
else fail "rk3566 sweep exited with an error: $out"; fi

expect misaligned-n "N=100 must be a multiple of 32 for int8 on RK3588" -- \
  "$CLI" matmul-bench --chip rk3588 --type int8 --sweep M=1 K=64 N=100
expect over-long-k "K=12000 exceeds 10240, the largest K of the matmul API on RK3588" -- \
  "$CLI" matmul-bench --chip rk3588 --type int8 --sweep M=1 K=12000 N=64
expect unsupported-type "type fp16xint4->fp32 is not supported by the matmul API on RK3566" -- \
  "$CLI" matmul-bench --chip rk3566 --type w4a16 --sweep M=1 K=64 N=64
expect no-matmul-api "RV1106 has no matmul API" -- "$CLI" matmul-bench --chip rv1106 --type int8
expect bad-sweep "--sweep 'X=4'" -- "$CLI" matmul-bench --chip rk3588 --sweep X=4
expect bad-size "'0' is not a size" -- "$CLI" matmul-bench --chip rk3588 --sweep M=0
expect bad-type "unknown matmul type 'int2'" -- "$CLI" matmul-bench --chip rk3588 --type int2
expect too-big "needs about 241.2 GB, more than the 4 GB a sweep may use" -- \
  "$CLI" matmul-bench --chip rk3588 --sweep M=1048576 K=10240 N=4096
# Board runs (tests/remote/cli_board_matmul.sh) refuse CPU-only options before connecting.
expect board-backend "--backend picks CPU kernels" -- \
  "$CLI" matmul-bench --chip rk3588 --board user@board --backend cpu-onednn
expect core-mask-without-board "--core-mask selects NPU cores: it needs --board" -- \
  "$CLI" matmul-bench --chip rk3588 --core-mask 0_1
if [ "$failures" -eq 0 ]; then echo "all matmul-bench checks passed"; exit 0; fi
echo "$failures check(s) failed"; exit 1
