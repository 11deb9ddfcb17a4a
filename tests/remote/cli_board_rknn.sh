#!/usr/bin/env bash
# npuwb-cli profile MODEL.rknn --board HOST end to end: CLI -> a real sshd on loopback -> npuwb-agent -> the rknpu
# runtime plugin -> the stand-in librknnrt.so (tests/rknpu/standin: Rockchip's C API on the engine's CPU backends,
# running a test container that wraps an ONNX model). A real board has librknnrt.so on its library path; here the
# "board" (the sshd's sessions) gets NPUWB_RKNNRT_LIBRARY pointing at the stand-in instead, through sshd's SetEnv.
# usage: cli_board_rknn.sh NPUWB_CLI STANDIN_LIBRKNNRT MAKE_CONTAINER_PY ONNX_MODEL
set -euo pipefail
CLI=$1; RKNNRT=$2; MAKE_CONTAINER=$3; ONNX=$4
D=$(mktemp -d "${TMPDIR:-/tmp}/npuwb-cli-rknn-XXXXXX")
SSHD_PID=""; BARE_PID=""
cleanup() {
  [ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null
  [ -n "$BARE_PID" ] && kill "$BARE_PID" 2>/dev/null
  wait 2>/dev/null || true; rm -rf "$D"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

. "$(dirname "$0")/loopback_sshd.sh"
# A board without the NPU runtime first.
mkdir -p "$D/bare"
start_loopback_sshd "$D/bare" || fail "cannot start sshd"
BARE_PORT=$SSHD_PORT; BARE_PID=$SSHD_PID
# The stand-in reads the container's target chip from the chip profiles (NPUWB_CHIPS_DIR), which the agent bundle
# does not carry.
CHIPS=$(cd "$(dirname "$0")/../../resources/chips" && pwd)
SSHD_EXTRA_CONFIG="SetEnv NPUWB_RKNNRT_LIBRARY=$RKNNRT NPUWB_CHIPS_DIR=$CHIPS"
mkdir -p "$D/board"
start_loopback_sshd "$D/board" || fail "cannot start sshd"
unset SSHD_EXTRA_CONFIG
USER_NAME=$(id -un)
: > "$D/empty_config"
REMOTE_DIR="$D/board cache"
COMMON=(--identity "$D/board/client_key" --ssh-config "$D/empty_config" --known-hosts "$D/known_hosts" --accept-new
        --remote-dir "$REMOTE_DIR" --timeout 120 -q)
HOST="$USER_NAME@127.0.0.1:$SSHD_PORT"
mkdir -p "$D/work"; cd "$D/work"
# The stand-in's container of the sample model (a real .rknn would come from RKNN-Toolkit2), and an input file.
/usr/bin/python3 "$MAKE_CONTAINER" "$ONNX" --target rk3588 -o model.rknn > /dev/null
/usr/bin/python3 -c 'import numpy as np; np.save("image.npy", np.random.default_rng(1).standard_normal((1,3,128,128)).astype(np.float32))'

# 1. profile --board with core mask, contexts and an input file: the board's runtime report comes back, with the
#    same layers as the same container run by this machine's plugin and stand-in.
"$CLI" profile model.rknn --board "$HOST" "${COMMON[@]}" --runs 3 --warmup 1 --core-mask 0_1 --contexts 1 \
  --input image=image.npy --json remote.json > table.txt 2> err.txt || fail "profile --board: $(cat err.txt)"
NPUWB_RKNNRT_LIBRARY=$RKNNRT "$CLI" profile model.rknn --runs 3 --warmup 1 -q --json local.json > /dev/null 2> err.txt \
  || fail "local profile: $(cat err.txt)"
/usr/bin/python3 - remote.json local.json <<'PY' || fail "remote report"
import json, sys
r, l = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda rep: [(x["fullName"], x["opType"], x["outputShape"]) for x in rep["layers"]]
assert key(r) == key(l) and len(r["layers"]) > 5, (len(r["layers"]), len(l["layers"]))
assert r["environment"]["backend"] == "rknpu", r["environment"]
assert "stand-in" in r["model"]["producer"], r["model"]["producer"]
assert r["run"]["runs"] == 3 and r["run"]["warmup"] == 1, r["run"]
assert r["run"]["medianUs"] > 0, r["run"]
assert r["memory"]["weightBytes"] == l["memory"]["weightBytes"] > 0, r["memory"]  # RKNN_QUERY_MEM_SIZE
assert r["memory"]["arenaBytes"] > 0, r["memory"]
assert r["environment"]["device"].startswith("board "), r["environment"]
assert r["model"]["path"].endswith("model.rknn"), r["model"]
names = [t["name"] for t in r["model"]["inputs"]]
assert names == ["image"], r["model"]["inputs"]
print("ok: %d layers (as local), median %.1f us, weights %d B, internal %d B, inputs %s" % (
    len(r["layers"]), r["run"]["medianUs"], r["memory"]["weightBytes"], r["memory"]["arenaBytes"], names))
PY
grep -q "Cycles(DDR/NPU/Total)" table.txt || fail "no vendor perf table: $(head -5 table.txt)"
ls "$REMOTE_DIR/models/"*.rknn > /dev/null || fail "model not in the board cache as .rknn"
ls "$REMOTE_DIR/models/"*.npy > /dev/null || fail "input file not uploaded beside the model"
[ -e "$REMOTE_DIR/agent/$(uname -m)/lib/plugins/libnpuwb-runtime-rknpu.so" ] || fail "runtime plugin not deployed"
echo "ok 1 profile model.rknn --board: $(grep '^Pass time' table.txt)"

# 2. Multi-batch with multiple contexts (RKNN SDK user guide V2.5.0, 4.1.4) on the board: a batch-3 container swept
#    over contexts 1, 2, 3 with core mask 0_1, then one context per core (0,1,2): weights counted once, internal
#    memory per context, throughput per point.
/usr/bin/python3 "$MAKE_CONTAINER" "$ONNX" --target rk3588 --batch 3 -o model_b3.rknn > /dev/null
"$CLI" profile model_b3.rknn --board "$HOST" "${COMMON[@]}" --runs 3 --warmup 1 --batch 3 --contexts 1,2,3 \
  --core-mask 0_1 --json sweep.json > sweep.txt 2> err.txt || fail "contexts sweep: $(cat err.txt)"
"$CLI" profile model_b3.rknn --board "$HOST" "${COMMON[@]}" --runs 3 --warmup 1 --batch 3 --core-mask 0,1,2 \
  --json masks.json > /dev/null 2> err.txt || fail "per-context masks: $(cat err.txt)"
/usr/bin/python3 - sweep.b3.c1.json sweep.b3.c2.json sweep.b3.c3.json masks.json <<'PY' || fail "sweep reports"
import json, sys
reps = [json.load(open(p)) for p in sys.argv[1:]]
rts = [r["runtime"] for r in reps]
assert [len(rt["contexts"]) for rt in rts] == [1, 2, 3, 3], [len(rt["contexts"]) for rt in rts]
assert len({rt["weightBytes"] for rt in rts}) == 1 and rts[0]["weightBytes"] > 0, [rt["weightBytes"] for rt in rts]
for rt in rts:  # weights once, every context's internal memory on top
    assert rt["totalBytes"] == rt["weightBytes"] + sum(c["internalBytes"] for c in rt["contexts"]), rt
assert [c["coreMask"] for c in rts[0]["contexts"]] == ["0_1"], rts[0]["contexts"]
assert [c["coreMask"] for c in rts[3]["contexts"]] == ["0", "1", "2"], rts[3]["contexts"]
assert all(r["environment"]["device"].startswith("board ") and rt["samplesPerSecond"] > 0 for r, rt in zip(reps, rts))
for rt in rts[:3]:
    print("contexts %d: %.1f samples/s, weights %d B once, total %d B" % (
        len(rt["contexts"]), rt["samplesPerSecond"], rt["weightBytes"], rt["totalBytes"]))
PY
grep -q "samples/s" sweep.txt || fail "no throughput table: $(cat sweep.txt)"
echo "ok 2 batch 3 over contexts 1, 2, 3 (mask 0_1) and masks 0,1,2 on the board"

# 3. Bad flags and files: exit 1 naming the problem, before anything runs.
if "$CLI" profile model.rknn --board "$HOST" "${COMMON[@]}" --core-mask 3 > out.txt 2> err.txt; then fail "mask 3 accepted"; fi
grep -q "core-mask .3." err.txt || fail "bad mask message: $(cat err.txt)"
if "$CLI" profile model.rknn --board "$HOST" "${COMMON[@]}" --input images=missing.npy > out.txt 2> err.txt; then
  fail "missing input accepted"; fi
grep -q "missing.npy" err.txt || fail "missing input message: $(cat err.txt)"
# An ONNX model's contexts run on this computer's CPU backends, never on the board: asked for with --board, refused.
if "$CLI" profile "$(dirname "$0")/../../resources/samples/tiny_mobilenet.onnx" --board "$HOST" "${COMMON[@]}" \
    --core-mask 0 > out.txt 2> err.txt; then
  fail "--core-mask with --board accepted for an ONNX model"; fi
grep -q "drop --board" err.txt || fail "onnx + core mask + board message: $(cat err.txt)"
echo "ok 3 bad mask, missing input, runtime flags for an ONNX model on a board refused"

# 4. A board without librknnrt.so: a clear answer naming the library, exit 1.
BARE=(--identity "$D/bare/client_key" --ssh-config "$D/empty_config" --known-hosts "$D/known_hosts_bare" --accept-new
      --remote-dir "$D/bare cache" --timeout 120 -q)
set +e
env -u NPUWB_RKNNRT_LIBRARY "$CLI" profile model.rknn --board "$USER_NAME@127.0.0.1:$BARE_PORT" "${BARE[@]}" \
  > out.txt 2> err.txt
rc=$?
set -e
[ $rc -eq 1 ] || fail "no runtime: exit $rc: $(cat err.txt)"
grep -q "librknnrt.so not available on this board" err.txt || fail "no runtime message: $(cat err.txt)"
echo "ok 4 board without librknnrt.so: $(head -c 200 err.txt)"
