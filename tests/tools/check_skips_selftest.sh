#!/usr/bin/env bash
# check_skips.py on a real CTest run of a tiny project: GoogleTest-style, QtTest-style, return-code and disabled
# skips are all seen; allowed ones pass with their reason, any other fails; a stale allowed entry is named.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
D=$(mktemp -d "${TMPDIR:-/tmp}/npuwb-skips-XXXXXX")
trap 'rm -rf "$D"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$D/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(skips NONE)
enable_testing()
add_test(NAME runs COMMAND true)
add_test(NAME gtest_style COMMAND sh -c "echo 'x_test.cpp:9: Skipped'; echo 'plugin not built'; echo '[  SKIPPED ] A.B (0 ms)'")
set_tests_properties(gtest_style PROPERTIES SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
add_test(NAME qtest_style COMMAND sh -c "echo 'SKIP   : T::f() no /usr/sbin/sshd'")
set_tests_properties(qtest_style PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP   :")
add_test(NAME return_code COMMAND sh -c "echo 'no model'; exit 77")
set_tests_properties(return_code PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME disabled COMMAND true)
set_tests_properties(disabled PROPERTIES DISABLED TRUE)
CMAKE
cmake -S "$D" -B "$D/build" > /dev/null
ctest --test-dir "$D/build" --output-junit "$D/junit.xml" > /dev/null
printf '# comment\ngtest_style  the plugin is optional\nqtest_*  no sshd\nreturn_code  no model\nnever_skips  stale\n' > "$D/allowed.txt"
if /usr/bin/python3 "$HERE/check_skips.py" "$D/junit.xml" --allowed "$D/allowed.txt" > "$D/out.txt"; then
  fail "the disabled test passed the check: $(cat "$D/out.txt")"
fi
grep -q "UNEXPECTED SKIP  disabled" "$D/out.txt" || fail "disabled test not flagged: $(cat "$D/out.txt")"
grep -q "allowed skip  gtest_style (notrun: plugin not built)" "$D/out.txt" || fail "gtest reason: $(cat "$D/out.txt")"
grep -q "allowed skip  qtest_style (notrun: no /usr/sbin/sshd)" "$D/out.txt" || fail "qtest reason: $(cat "$D/out.txt")"
grep -q "'never_skips' matched no skipped test" "$D/out.txt" || fail "stale entry not named: $(cat "$D/out.txt")"
grep -q "check_skips: 1 test(s) skipped that should run (of 5)" "$D/out.txt" || fail "summary: $(cat "$D/out.txt")"
echo "disabled  now allowed" >> "$D/allowed.txt"
/usr/bin/python3 "$HERE/check_skips.py" "$D/junit.xml" --allowed "$D/allowed.txt" > "$D/out.txt" ||
  fail "all skips allowed, still failed: $(cat "$D/out.txt")"
printf 'no_reason\n' > "$D/bad.txt"
if /usr/bin/python3 "$HERE/check_skips.py" "$D/junit.xml" --allowed "$D/bad.txt" 2> "$D/err.txt"; then fail "entry without reason accepted"; fi
grep -q "has no reason" "$D/err.txt" || fail "entry without reason: $(cat "$D/err.txt")"
echo "check_skips: skips of every kind seen, allowed ones pass, others and entries without reason fail"
