#!/usr/bin/env bash
# npuwb-cli board probe/deploy and profile --board against a real sshd on loopback: host-key consent, ssh config
# alias, changed key, wrong password, hostile file names, and a remote report that matches the local one.
# usage: cli_board.sh NPUWB_CLI MODEL
set -euo pipefail
CLI=$1; MODEL=$2
D=$(mktemp -d "${TMPDIR:-/tmp}/npuwb-cli-board-XXXXXX")
SSHD_PID=""
cleanup() { [ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

. "$(dirname "$0")/loopback_sshd.sh"
start_loopback_sshd "$D" || fail "cannot start sshd"
PORT=$SSHD_PORT
ssh-keygen -q -t ed25519 -N '' -f "$D/other_host_key"
USER_NAME=$(id -un)
printf 'Host testboard\n  HostName 127.0.0.1\n  Port %s\n  User %s\n  IdentityFile %s\n' "$PORT" "$USER_NAME" "$D/client_key" > "$D/ssh_config"
: > "$D/empty_config"
# A cache folder whose name would run commands if any remote command line were not quoted.
REMOTE_DIR="$D/board cache;touch PWNED3;\$(touch PWNED4)"
BASE=(--identity "$D/client_key" --ssh-config "$D/empty_config" --remote-dir "$REMOTE_DIR" --timeout 120 -q)
COMMON=("${BASE[@]}" --known-hosts "$D/known_hosts")
HOST="$USER_NAME@127.0.0.1:$PORT"
mkdir -p "$D/work"; cd "$D/work"

# 1. Unknown host key, no consent: refused, fingerprint shown, nothing written.
if "$CLI" board probe "$HOST" "${COMMON[@]}" > out.txt 2> err.txt; then fail "unknown host accepted without --accept-new"; fi
grep -q "SHA256:" err.txt || fail "no fingerprint in: $(cat err.txt)"
grep -q -- "--accept-new" err.txt || fail "no hint about --accept-new: $(cat err.txt)"
[ ! -e "$D/known_hosts" ] || fail "known_hosts written without consent"
echo "ok 1 unknown key refused: $(head -c 200 err.txt)"

# 2. With consent: deployed; the known_hosts line has the [host]:port form and OpenSSH finds it.
"$CLI" board deploy "$HOST" "${COMMON[@]}" --accept-new --model "$MODEL" --json deploy.json > out.txt 2> err.txt || fail "deploy: $(cat err.txt)"
grep -q "^\[127.0.0.1\]:$PORT ssh-ed25519 " "$D/known_hosts" || fail "known_hosts line: $(cat "$D/known_hosts")"
ssh-keygen -F "[127.0.0.1]:$PORT" -f "$D/known_hosts" > /dev/null || fail "ssh-keygen cannot find our known_hosts line"
[ -x "$REMOTE_DIR/agent/$(uname -m)/bin/npuwb-agent" ] || fail "agent not in the cache folder"
ls "$REMOTE_DIR/models/"*.onnx > /dev/null || fail "model not in the cache folder"
echo "ok 2 deploy with --accept-new: $(cat out.txt | tr '\n' ' ')"

# 2b. --accept-new adds to a known_hosts that already has other boards (read and rewritten on purpose, not refused
# as "an input of this command").
echo "other.board ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHmVvY3Vc2E0dGhpcy1pcy1ub3QtYS1yZWFsLWtleS0wMDAw" > "$D/known_hosts_other"
"$CLI" board probe "$HOST" "${BASE[@]}" --known-hosts "$D/known_hosts_other" --accept-new > out.txt 2> err.txt ||
  fail "--accept-new with an existing known_hosts: $(cat err.txt)"
[ "$(wc -l < "$D/known_hosts_other")" = 2 ] && grep -q "^other.board " "$D/known_hosts_other" ||
  fail "known_hosts did not keep its line and gain ours: $(cat "$D/known_hosts_other")"
echo "ok 2b --accept-new appends to an existing known_hosts"

# 3. A second deploy uploads nothing.
"$CLI" board deploy "$HOST" "${COMMON[@]}" --model "$MODEL" > out.txt 2> err.txt || fail "redeploy: $(cat err.txt)"
grep -q "(0 file(s) uploaded)" out.txt || fail "agent uploaded again: $(cat out.txt)"
grep -q "already at" out.txt || fail "model uploaded again: $(cat out.txt)"
echo "ok 3 warm deploy uploads nothing"

# 4. ssh config alias (HostName, Port, User, IdentityFile from the config).
"$CLI" board probe testboard --ssh-config "$D/ssh_config" --known-hosts "$D/known_hosts" --remote-dir "$REMOTE_DIR" -q --json probe.json > /dev/null 2> err.txt || fail "probe via alias: $(cat err.txt)"
/usr/bin/python3 - probe.json <<'PY' || fail "probe JSON"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["agent"]["agent"] == "npuwb-agent" and j["agent"]["protocol"] == 4, j["agent"]
assert isinstance(j["probe"], dict) and j["probe"], j
PY
echo "ok 4 probe through an ssh config alias"

# 5. profile --board: same layers and op types as a local run; hostile model file name.
HOSTILE="$D/a b;touch PWNED;\$(touch PWNED2).onnx"
cp "$MODEL" "$HOSTILE"
"$CLI" profile "$HOSTILE" --board "$HOST" "${COMMON[@]}" --runs 3 --warmup 1 --backend reference --json remote.json > table.txt 2> err.txt || fail "profile --board: $(cat err.txt)"
"$CLI" profile "$MODEL" --runs 3 --warmup 1 --backend reference -q --json local.json > /dev/null
/usr/bin/python3 - remote.json local.json <<'PY' || fail "remote and local reports differ"
import json, sys
r, l = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda rep: [(x["fullName"], x["opType"], x["outputShape"], x["macs"]) for x in rep["layers"]]
assert key(r) == key(l), "layers differ"
assert len(r["layers"]) > 5 and r["run"]["runs"] == 3, r["run"]
assert r["environment"]["device"].startswith("board "), r["environment"]
print("remote %d layers, median %.1f us; local median %.1f us" % (len(r["layers"]), r["run"]["medianUs"], l["run"]["medianUs"]))
PY
grep -q "^Total: " table.txt || fail "no table printed"
for f in PWNED PWNED2 PWNED3 PWNED4; do
  for where in "$D" "$D/work" "$HOME" "$REMOTE_DIR" "$D/board cache;touch PWNED3;"; do
    [ ! -e "$where/$f" ] || fail "injection: $where/$f exists"
  done
done
echo "ok 5 profile --board matches local; hostile names did not inject"

# 6. Changed host key: refused even with --accept-new, naming both fingerprints.
KEY=$(cut -d' ' -f1,2 "$D/other_host_key.pub")
echo "[127.0.0.1]:$PORT $KEY" > "$D/known_hosts_changed"
if "$CLI" board probe "$HOST" "${BASE[@]}" --known-hosts "$D/known_hosts_changed" --accept-new > out.txt 2> err.txt; then fail "changed key accepted"; fi
grep -q "CHANGED" err.txt || fail "no CHANGED warning: $(cat err.txt)"
[ "$(grep -o 'SHA256:[A-Za-z0-9+/]*' err.txt | sort -u | wc -l)" -ge 2 ] || fail "both fingerprints not shown: $(cat err.txt)"
echo "ok 6 changed key refused: $(head -c 300 err.txt)"

# 7. Wrong password (no usable key): a clear error, exit 1, no hang.
if echo "not-the-password" | env -u SSH_AUTH_SOCK HOME="$D/work" "$CLI" board probe "$HOST" --known-hosts "$D/known_hosts" --ssh-config "$D/empty_config" --password-stdin --timeout 60 -q > out.txt 2> err.txt; then fail "wrong password accepted"; fi
grep -q "authentication failed" err.txt && grep -q "password" err.txt || fail "unclear auth error: $(cat err.txt)"
echo "ok 7 wrong password: $(cat err.txt)"
echo "all cli board checks passed"
