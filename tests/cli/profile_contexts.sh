#!/usr/bin/env bash
# `profile MODEL.onnx --contexts N --batch N [--core-mask M]`: multi-context multi-batch on the CPU. One report with the runtime
# section (every context, the weights once, throughput) and one trace bar per slice; a sweep writes a report per
# point and prints throughput against batch; impossible requests give exit 1 and a message naming the flag.
set -u
CLI="$1"; WORK="$2"; MODEL="$3"; SCHEMA="$4"; VALIDATE="$5"
mkdir -p "$WORK"
source "$(dirname "$0")/expect.sh"  # fail, expect

out=$(timeout 300 "$CLI" profile "$MODEL" --contexts 2 --batch 4 --runs 3 --warmup 1 --threads 2 -q \
      --json "$WORK/c2b4.json" 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "contexts 2 batch 4 (exit $rc): $out"
grep -qF "Throughput:" <<<"$out" && grep -qF "(once, shared)" <<<"$out" || fail "no throughput/memory lines: $out"
/usr/bin/python3 "$VALIDATE" "$SCHEMA" "$WORK/c2b4.json" || fail "c2b4.json does not validate"
/usr/bin/python3 - "$WORK/c2b4.json" <<'PY' || fail "c2b4.json content"
import json, sys
r = json.load(open(sys.argv[1]))
rt = r["runtime"]
assert rt["batch"] == 4, rt["batch"]
assert [c["slicesPerPass"] for c in rt["contexts"]] == [2, 2], rt["contexts"]
assert rt["weightBytes"] > 0, rt
assert rt["totalBytes"] == rt["weightBytes"] + sum(c["internalBytes"] for c in rt["contexts"]), rt
assert rt["samplesPerSecond"] > 0, rt
trace = [t for t in r["traces"] if t["name"] == "contexts"][0]
assert len(trace["events"]) == 3 * 4, len(trace["events"])
assert {e["lane"] for e in trace["events"]} == {"context 0", "context 1"}, trace["lanes"]
assert len(r["layers"]) > 0, "per-layer rows from the single-context profile"
print("ok   c2b4.json:", rt["contexts"], rt["weightBytes"], rt["samplesPerSecond"])
PY

out=$(timeout 300 "$CLI" profile "$MODEL" --contexts 1 --batch 1,2 --runs 2 --warmup 0 --no-layer-times -q \
      --json "$WORK/sweep.json" 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "sweep (exit $rc): $out"
grep -qF "samples/s" <<<"$out" || fail "no sweep table: $out"
[ -f "$WORK/sweep.b1.c1.json" ] && [ -f "$WORK/sweep.b2.c1.json" ] || fail "sweep reports missing: $(ls "$WORK")"

out=$(timeout 300 "$CLI" profile "$MODEL" --core-mask 0 --runs 1 --warmup 0 --no-layer-times -q 2>&1); rc=$?
[ "$rc" -eq 0 ] && grep -qF "pins its threads to CPU(s) 0" <<<"$out" || fail "core mask 0 (exit $rc): $out"

expect more-contexts-than-slices "3 contexts for a batch of 2" -- "$CLI" profile "$MODEL" --contexts 3 --batch 2
expect chip-on-onnx              "--chip applies to compiled models" -- "$CLI" profile "$MODEL" --chip rk3588
expect board-with-contexts       "drop --board" -- "$CLI" profile "$MODEL" --contexts 2 --board nobody@127.0.0.1:1
expect bad-mask                  "--core-mask" -- "$CLI" profile "$MODEL" --core-mask 7
expect input-shape-with-batch    "--input-shape does not apply" -- "$CLI" profile "$MODEL" --batch 2 --input-shape x=1,3,8,8
exit $((failures > 0))
