#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then the installed programs, run from another folder with nothing of the
# build or source tree in reach: the layout is complete, nothing points back at the build tree, the CLI finds its
# chip profiles and plugins, reports validate against the installed schema, the agent runs a job, the GUI draws a
# window offscreen, and the installed CLI deploys the installed agent bundle to a board (a real sshd on loopback).
# The prefix is renamed after installing, so anything that remembered where it was installed fails too.
# usage: installed_tree.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
BUILD=$(cd "$1" && pwd); SRC=$(cd "$2" && pwd)
D=$(mktemp -d "${TMPDIR:-/tmp}/npuwb-install-XXXXXX")
SSHD_PID=""
cleanup() { [ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
PY=/usr/bin/python3

cmake --install "$BUILD" --prefix "$D/staged" > "$D/install.log" || fail "cmake --install: $(tail -5 "$D/install.log")"
mv "$D/staged" "$D/prefix"
P="$D/prefix"
mkdir -p "$D/work"
# The installed programs run from an unrelated folder, with no search-path overrides from the caller.
run() { (cd "$D/work" && env -u NPUWB_CHIPS_DIR -u NPUWB_PLUGIN_PATH -u LD_LIBRARY_PATH -u NPUWB_AGENT_DIR "$@"); }

# 1. Layout: every program, library, plugin, chip profile, the schema, the desktop entry and the icon.
for f in bin/npuwb bin/npuwb-cli bin/npuwb-agent lib/libnpuwb-engine.so.0 lib/libnpuwb-imageio.so.0 \
         lib/npuwb/plugins/libnpuwb-runtime-rknpu.so share/npuwb/schema/report.schema.json \
         share/npuwb/samples/tiny_mobilenet.onnx share/applications/npuwb.desktop \
         share/icons/hicolor/scalable/apps/npuwb.svg share/doc/npuwb/README.md; do
  [ -e "$P/$f" ] || fail "$f not installed (installed: $(cd "$P" && find . -type f | sort | tr '\n' ' '))"
done
want_chips=$(cd "$SRC/resources/chips" && ls -- *.json | sort)
have_chips=$(cd "$P/share/npuwb/chips" && ls -- *.json | sort)
[ "$want_chips" = "$have_chips" ] || fail "chip profiles: installed [$have_chips], source has [$want_chips]"
plugins=()
for f in "$P"/lib/npuwb/plugins/libnpuwb-backend-*.so; do
  [ -e "$f" ] && plugins+=("$(basename "$f" .so | sed 's/^libnpuwb-backend-//')")
done
[ ${#plugins[@]} -gt 0 ] || fail "no backend plugin in $P/lib/npuwb/plugins"
desktop-file-validate "$P/share/applications/npuwb.desktop" || fail "npuwb.desktop does not validate"
$PY -c 'import sys, xml.etree.ElementTree as ET; r = ET.parse(sys.argv[1]).getroot(); assert r.tag.endswith("svg"), r.tag' \
  "$P/share/icons/hicolor/scalable/apps/npuwb.svg" || fail "npuwb.svg is not an SVG document"
echo "ok 1 layout: $(cd "$P" && find . -type f | wc -l) files; plugins: ${plugins[*]}; chips: $(echo $have_chips)"

# 2. No ELF file remembers the build tree (RUNPATH/RPATH), and the CLI loads the installed engine.
while IFS= read -r elf; do
  if readelf -d "$elf" 2>/dev/null | grep -E 'R(UN)?PATH' | grep -qF "$BUILD"; then
    fail "$elf has a run path into the build tree: $(readelf -d "$elf" | grep -E 'R(UN)?PATH')"
  fi
done < <(find "$P/bin" "$P/lib" -type f)
engine=$(run ldd "$P/bin/npuwb-cli" | awk '/libnpuwb-engine/ {print $3}')
[ "$(readlink -f "$engine")" = "$(readlink -f "$P/lib/libnpuwb-engine.so.0")" ] || fail "npuwb-cli loads the engine from '$engine'"
echo "ok 2 run paths stay inside the prefix; npuwb-cli loads $engine"

# 3. The CLI: info, chip list, estimate on every bundled sample (chip profiles from share/npuwb/chips).
SCHEMA="$P/share/npuwb/schema/report.schema.json"
run "$P/bin/npuwb-cli" estimate --list-chips > chips.txt 2> err.txt || fail "estimate --list-chips: $(cat err.txt)"
mv chips.txt err.txt "$D/"
for chip in $have_chips; do grep -qi "^${chip%.json}\b" "$D/chips.txt" || fail "--list-chips lacks ${chip%.json}: $(cat "$D/chips.txt")"; done
# An unknown chip names where it looked: the installed folder, and nothing of the build or source tree.
status=0
run "$P/bin/npuwb-cli" estimate "$SRC/resources/samples/tiny_mobilenet.onnx" --target no-such-chip > /dev/null \
  2> "$D/err.txt" || status=$?
[ "$status" = 1 ] || fail "unknown chip: exit $status, wanted 1: $(cat "$D/err.txt")"
grep -qF "searched: $P/share/npuwb/chips;" "$D/err.txt" || fail "unknown chip, searched folders: $(cat "$D/err.txt")"
for model in "$SRC"/resources/samples/*.onnx; do
  name=$(basename "$model" .onnx)
  run "$P/bin/npuwb-cli" info "$model" --json "$D/work/$name.info.json" > "$D/info.txt" 2> "$D/err.txt" ||
    fail "info $model: $(cat "$D/err.txt")"
  run "$P/bin/npuwb-cli" estimate "$model" --target rk3588 --json "$D/work/$name.estimate.json" > "$D/estimate.txt" \
    2> "$D/err.txt" || fail "estimate $model: $(cat "$D/err.txt")"
  $PY - "$SCHEMA" "$D/work/$name.info.json" "$D/work/$name.estimate.json" <<'PYCHECK' || fail "$name: info/estimate output"
import json, sys
import jsonschema
schema, info, est = (json.load(open(p)) for p in sys.argv[1:4])
jsonschema.validate(info, schema)
jsonschema.validate(est, schema)
assert info["model"]["macs"] > 0 and info["model"]["parameterCount"] > 0 and info["model"]["opHistogram"], info["model"]
assert est["kind"] == "estimate" and est["environment"]["device"].lower().startswith("rk3588"), est["environment"]
assert est["layers"] and est["run"]["medianUs"] > 0, est["run"]
print(f"  {sys.argv[2]}: {info['model']['macs']} MACs; estimate on {est['environment']['device']}: "
      f"{len(est['layers'])} layers, {est['run']['medianUs']:.0f} us")
PYCHECK
done
echo "ok 3 info and estimate --target rk3588 on every sample"

# 4. profile on each installed plugin backend: the report names it (no fallback to the reference executor).
SAMPLE="$SRC/resources/samples/tiny_mobilenet.onnx"
for backend in "${plugins[@]}"; do
  run "$P/bin/npuwb-cli" profile "$SAMPLE" --backend "$backend" --runs 3 --warmup 1 -q --json "$D/work/profile-$backend.json" \
    > "$D/profile.txt" 2> "$D/err.txt" || fail "profile --backend $backend: $(cat "$D/err.txt")"
  grep -q "reference executor" "$D/err.txt" && fail "profile --backend $backend fell back: $(cat "$D/err.txt")"
  $PY "$SRC/tests/cli/validate_report.py" "$SCHEMA" "$D/work/profile-$backend.json" > /dev/null || fail "profile report ($backend)"
  $PY -c 'import json, sys; e = json.load(open(sys.argv[1]))["environment"]; assert e["backend"] == sys.argv[2], e' \
    "$D/work/profile-$backend.json" "$backend" || fail "the $backend report names another backend"
done
echo "ok 4 profile on ${plugins[*]}: valid reports naming their backend"

# 4b. The model-runtime plugin loads from the installed folder: without Rockchip's runtime, profile MODEL.rknn says so (exit 1).
: > "$D/work/empty.rknn"
status=0
run "$P/bin/npuwb-cli" profile "$D/work/empty.rknn" > /dev/null 2> "$D/err.txt" || status=$?
[ "$status" = 1 ] && grep -q "librknnrt.so not available" "$D/err.txt" ||
  fail "profile .rknn without librknnrt: exit $status: $(cat "$D/err.txt")"
echo "ok 4b the rknpu model runtime loads: $(head -c 120 "$D/err.txt")"

# 5. The installed agent runs a job on a plugin backend (the engine next to it finds lib/npuwb/plugins).
printf '{"model": "%s", "backend": "%s", "runs": 2, "warmup": 1}\n' "$SAMPLE" "${plugins[0]}" > "$D/job.json"
run "$P/bin/npuwb-agent" run "$D/job.json" > "$D/agent.jsonl" 2> "$D/err.txt" || fail "npuwb-agent run: $(cat "$D/err.txt") $(tail -1 "$D/agent.jsonl")"
$PY - "$D/agent.jsonl" "${plugins[0]}" <<'PYCHECK' || fail "agent output"
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
report = next(e["report"] for e in events if e.get("event") == "report")
assert report["environment"]["backend"] == sys.argv[2], report["environment"]
PYCHECK
echo "ok 5 npuwb-agent run on ${plugins[0]}"

# 6. The GUI, offscreen: the estimate view on rk3588 (chip profiles found), saved as a 1400x900 picture.
QT_QPA_PLATFORM=offscreen run "$P/bin/npuwb" "$SAMPLE" --view estimate --target rk3588 --screenshot "$D/work/gui.png" \
  > "$D/gui.txt" 2>&1 || fail "npuwb --screenshot: $(cat "$D/gui.txt")"
$PY - "$D/work/gui.png" <<'PYCHECK' || fail "GUI screenshot"
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
width, height = struct.unpack(">II", data[16:24])
assert (width, height) == (1400, 900) and len(data) > 20000, (width, height, len(data))
print(f"  screenshot {width}x{height}, {len(data)} bytes")
PYCHECK
echo "ok 6 GUI estimate view offscreen"

# 7. The installed CLI deploys the installed agent bundle to a board (loopback sshd) and profiles there on a plugin.
. "$SRC/tests/remote/loopback_sshd.sh"
start_loopback_sshd "$D" || fail "cannot start sshd"
BOARD="$D/board cache"
run "$P/bin/npuwb-cli" profile "$SAMPLE" --board "$(id -un)@127.0.0.1:$SSHD_PORT" --identity "$D/client_key" \
  --known-hosts "$D/known_hosts" --accept-new --remote-dir "$BOARD" --timeout 120 --backend "${plugins[0]}" \
  --runs 2 --warmup 1 -q --json "$D/work/board.json" > "$D/board.txt" 2> "$D/err.txt" ||
  fail "profile --board: $(cat "$D/err.txt")"
arch=$(uname -m)
for f in bin/npuwb-agent lib/libnpuwb-engine.so.0 "lib/plugins/libnpuwb-backend-${plugins[0]}.so" \
         lib/plugins/libnpuwb-runtime-rknpu.so; do
  [ -e "$BOARD/agent/$arch/$f" ] || fail "$f not deployed (board has: $(cd "$BOARD/agent/$arch" && find . | tr '\n' ' '))"
done
$PY -c 'import json, sys; e = json.load(open(sys.argv[1]))["environment"]; assert e["backend"] == sys.argv[2] and e["device"].startswith("board "), e' \
  "$D/work/board.json" "${plugins[0]}" || fail "the board report"
echo "ok 7 installed agent bundle deployed and run on ${plugins[0]} over SSH"
echo "all install checks passed"
