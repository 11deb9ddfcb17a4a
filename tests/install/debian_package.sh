#!/usr/bin/env bash
# CPack's .deb: its Depends line names the Debian packages of the libraries the programs and plugins link (from
# dpkg-shlibdeps), it holds the whole installed tree under /usr, and the CLI unpacked from it works.
# usage: debian_package.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "$1" && pwd)
D=$(mktemp -d "${TMPDIR:-/tmp}/npuwb-deb-XXXXXX")
trap 'rm -rf "$D"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cpack --config "$BUILD/CPackConfig.cmake" -G DEB -B "$D/out" > "$D/cpack.log" 2>&1 || fail "cpack: $(tail -20 "$D/cpack.log")"
deb=$(find "$D/out" -maxdepth 1 -name 'npuwb_*.deb')
[ -f "$deb" ] || fail "no npuwb_*.deb in $D/out: $(ls "$D/out")"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# A library of each kind the programs link: Qt widgets (GUI), ONNX and protobuf (import), libssh (boards),
# oneDNN (cpu-onednn plugin, x86 only), the C++ runtime.
for pkg in libqt6widgets6 libonnx libprotobuf libssh libstdc++6; do
  grep -q "\b$pkg" <<<"$depends" || fail "Depends lacks $pkg"
done
if [ "$(uname -m)" = x86_64 ]; then grep -q "\blibdnnl" <<<"$depends" || fail "Depends lacks libdnnl"; fi
grep -q "npuwb" <<<"$depends" && fail "Depends names our own library: $depends"

dpkg-deb -c "$deb" | awk '{print $6}' > "$D/contents.txt"
for f in ./usr/bin/npuwb ./usr/bin/npuwb-cli ./usr/bin/npuwb-agent ./usr/share/npuwb/chips/rk3588.json \
         ./usr/share/npuwb/schema/report.schema.json ./usr/share/applications/npuwb.desktop \
         ./usr/share/icons/hicolor/scalable/apps/npuwb.svg; do
  grep -qxF "$f" "$D/contents.txt" || fail "$f not in the package"
done
grep -q "^./usr/lib/libnpuwb-engine.so" "$D/contents.txt" || fail "the engine library is not in the package"
grep -q "^./usr/lib/npuwb/plugins/libnpuwb-backend-.*\.so$" "$D/contents.txt" || fail "no plugin in the package"

# The stripped programs from the package run: an estimate from the unpacked tree finds the packaged chip profiles.
dpkg-deb -x "$deb" "$D/root"
(cd "$D" && env -u NPUWB_CHIPS_DIR -u NPUWB_PLUGIN_PATH -u LD_LIBRARY_PATH "$D/root/usr/bin/npuwb-cli" estimate \
  "$D/root/usr/share/npuwb/samples/tiny_mobilenet.onnx" --target rk3566 > "$D/estimate.txt" 2>&1) ||
  fail "estimate from the unpacked package: $(cat "$D/estimate.txt")"
echo "ok $(basename "$deb"): $(wc -l < "$D/contents.txt") entries, $(du -h "$deb" | cut -f1)"
