#!/usr/bin/env bash
# npuwb-cli matmul-bench --board HOST end to end: CLI -> a real sshd on loopback -> npuwb-agent (a matmul job) -> the
# rknpu runtime plugin's matmul kernels -> the vendor's rknn_matmul_* calls of the stand-in librknnrt.so
# (tests/rknpu/standin: the matmul API on the engine's reference). Each "board" (an sshd) gets NPUWB_RKNNRT_LIBRARY
# and the stand-in's chip (NPUWB_STANDIN_CHIP) through sshd's SetEnv, as a real board has librknnrt.so and its chip.
# Times are the stand-in's CPU reference, not an NPU's: the test checks the plumbing, never the figures.
# usage: cli_board_matmul.sh NPUWB_CLI STANDIN_LIBRKNNRT STANDIN_LIBRKNNMRT
set -euo pipefail
CLI=$1; RKNNRT=$2; RKNNMRT=$3
D=$(mktemp -d "${TMPDIR:-/tmp}/npuwb-cli-matmul-XXXXXX")
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null || true; rm -rf "$D"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

. "$(dirname "$0")/loopback_sshd.sh"
CHIPS=$(cd "$(dirname "$0")/../../resources/chips" && pwd)
declare -A PORT
for board in rk3588 rk3566 mini; do
  mkdir -p "$D/$board"
  if [ $board = mini ]; then lib=$RKNNMRT; chip=rv1106; else lib=$RKNNRT; chip=$board; fi
  SSHD_EXTRA_CONFIG="SetEnv NPUWB_RKNNRT_LIBRARY=$lib NPUWB_STANDIN_CHIP=$chip NPUWB_CHIPS_DIR=$CHIPS"
  start_loopback_sshd "$D/$board" || fail "cannot start sshd for $board"
  PORT[$board]=$SSHD_PORT; PIDS+=("$SSHD_PID")
done
unset SSHD_EXTRA_CONFIG
USER_NAME=$(id -un)
: > "$D/empty_config"
board_args() {  # the connection options of board $1 (one cache folder: the agent is deployed once)
  echo "--board $USER_NAME@127.0.0.1:${PORT[$1]} --identity $D/$1/client_key --ssh-config $D/empty_config"
  echo "--known-hosts $D/known_hosts --accept-new --remote-dir $D/cache --timeout 120 -q"
}
mkdir -p "$D/work"; cd "$D/work"

# 1. RK3588 int8 sweep (three M from one context per K, N; native B; cores 0 and 1): the table says where it ran,
#    with the estimate next to the measurement and their ratio; the JSON names the host and every point ran on rknpu.
# shellcheck disable=SC2046
"$CLI" matmul-bench --chip rk3588 --type int8 --sweep M=1,16,64 K=256,512 N=128 --runs 3 --warmup 1 \
  --core-mask 0_1 --cores 2 --json rk3588.json $(board_args rk3588) > rk3588.txt 2> err.txt \
  || fail "rk3588 int8 --board: $(cat err.txt)"
# 2. RK3566 fp16 sweep (native A/C too).
# shellcheck disable=SC2046
"$CLI" matmul-bench --chip rk3566 --type fp16 --layout-ac native --sweep M=1,8,32 K=128 N=64,128 --runs 3 \
  --warmup 1 --json rk3566.json $(board_args rk3566) > rk3566.txt 2> err.txt \
  || fail "rk3566 fp16 --board: $(cat err.txt)"
/usr/bin/python3 - rk3588.json rk3566.json "127.0.0.1:${PORT[rk3588]}" "127.0.0.1:${PORT[rk3566]}" <<'PY' \
  || fail "board results"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for r, chip, typ, port, n, mask in ((a, "RK3588", "int8xint8->int32", sys.argv[3], 6, "0_1"),
                                    (b, "RK3566", "fp16xfp16->fp32", sys.argv[4], 6, "auto")):
    assert r["schema"] == "npuwb-matmul-bench" and r["schemaVersion"] == 2, r["schemaVersion"]
    assert r["chip"] == chip and r["type"] == typ, (r["chip"], r["type"])
    assert r["measuredOn"].endswith("@" + port), r["measuredOn"]
    assert r["coreMask"] == mask, r["coreMask"]
    assert len(r["points"]) == n, len(r["points"])
    for p in r["points"]:
        assert p["backend"] == "rknpu" and p["fallbackReason"] == "", p
        assert p["medianUs"] > 0 and p["estimate"]["timeUs"] > 0, p
        ratio = p["estimate"]["timeUs"] / p["medianUs"]
        assert abs(p["predictedOverMeasured"] - ratio) <= 1e-6 * ratio, p
assert a["npuCores"] == 2 and b["acLayout"] == "native", (a["npuCores"], b["acLayout"])
print("ok: %d + %d points on rknpu" % (len(a["points"]), len(b["points"])))
PY
grep -q "on the NPU of board $USER_NAME@127.0.0.1:${PORT[rk3588]}: rknpu, core mask 0_1" rk3588.txt \
  || fail "rk3588 table header: $(head -3 rk3588.txt)"
grep -q "est/meas" rk3566.txt || fail "no est/meas column: $(head -5 rk3566.txt)"
echo "ok 1 matmul-bench --board: RK3588 int8 (mask 0_1) and RK3566 fp16 sweeps on the boards' rknpu"

# 3. A board whose runtime has no matmul API (the mini runtime librknnmrt.so): exit 1 naming the library.
set +e
# shellcheck disable=SC2046
"$CLI" matmul-bench --chip rk3588 --type int8 --sweep M=1 K=64 N=32 --runs 1 $(board_args mini) > out.txt 2> err.txt
rc=$?
set -e
[ $rc -eq 1 ] || fail "runtime without matmul: exit $rc: $(cat err.txt)"
grep -q "librknnmrt.so' has no matmul API: it lacks rknn_matmul_create, " err.txt \
  || fail "no matmul API message: $(cat err.txt)"
echo "ok 3 runtime without the matmul API: $(tail -n 1 err.txt)"

# 4. The chip asked is not the board's: the runtime's layouts differ from the profile's, said before any run.
set +e
# shellcheck disable=SC2046
"$CLI" matmul-bench --chip rk3588 --type int8 --sweep M=1 K=64 N=32 --runs 1 $(board_args rk3566) > out.txt 2> err.txt
rc=$?
set -e
[ $rc -eq 1 ] || fail "wrong chip: exit $rc: $(cat err.txt)"
grep -q "is the board that chip?" err.txt || fail "wrong chip message: $(cat err.txt)"
echo "ok 4 chip other than the board's: $(tail -n 1 err.txt)"

# 5. --core-mask without --board is refused (the CPU has no NPU cores).
if "$CLI" matmul-bench --chip rk3588 --core-mask 0 > out.txt 2> err.txt; then fail "--core-mask without --board"; fi
grep -q "needs --board" err.txt || fail "core mask message: $(cat err.txt)"
echo "ok 5 --core-mask without --board refused"
