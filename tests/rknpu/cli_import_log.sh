#!/bin/bash
# npuwb-cli import-log on real published RKNN logs (table, --top, JSON that validates against the schema), clear
# errors on damaged logs (`profile MODEL.rknn` is cli_profile_rknn.sh).
# usage: cli_import_log.sh NPUWB_CLI WORK_DIR SOURCE_DIR
set -u
cli=$1 work=$2 src=$3
logs=$src/tests/data/rknn-logs
schema=$src/resources/schema/report.schema.json
validate="/usr/bin/python3 $src/tests/cli/validate_report.py $schema"
rm -rf "$work" && mkdir -p "$work"
fails=0 passes=0
check() {  # check NAME CONDITION...
    local name=$1; shift
    if "$@"; then passes=$((passes + 1)); else echo "FAIL: $name"; fails=$((fails + 1)); fi
}

# A full RK3588 log: every row, the vendor's total, a report that validates.
"$cli" import-log "$logs/rk3588-yolov8n-1920x1088-perf-detail.txt" --json "$work/yolo.json" >"$work/yolo.out" 2>"$work/yolo.err"
check "import-log exits 0" test $? -eq 0
check "table has 108 rows" test "$(grep -cE '^[0-9]+ +[A-Za-z]' "$work/yolo.out")" -eq 108
check "total printed" grep -q 'Total Operator Elapsed Per Frame Time(us): 96186.0' "$work/yolo.out"
check "ranking lists ConvExSwish first" bash -c "grep -A1 '^OpType' '$work/yolo.out' | tail -1 | grep -q '^ConvExSwish  *57 '"
check "report validates" $validate "$work/yolo.json"
check "report total" /usr/bin/python3 -c "
import json; r = json.load(open('$work/yolo.json'))
assert r['run']['medianUs'] == 96186 and r['environment']['backend'] == 'rknpu' and len(r['layers']) == 108
assert r['layers'][1]['cycles'] == {'ddr': 1222645, 'npu': 4700160, 'total': 4700160}, r['layers'][1]['cycles']"

# --top: the slowest layers only, slowest first (ID 4, 12009 us in the vendor's numbering; step 3 in the report).
"$cli" import-log "$logs/rk3588-yolov8n-1920x1088-perf-detail.txt" --top 3 >"$work/top.out" 2>&1
check "--top shows 3 rows" test "$(grep -cE '^[0-9]+ +[A-Za-z]' "$work/top.out")" -eq 3
check "--top slowest first" bash -c "grep -E '^[0-9]+ +[A-Za-z]' '$work/top.out' | head -1 | grep -q '12009.0'"

# Older formats: 1.5's split cycle columns with rows left out, toolkit1 with wrapped names and no total.
"$cli" import-log "$logs/toolkit2-1.5.1-board-test-readme.txt" --json "$work/board.json" >"$work/board.out" 2>"$work/board.err"
check "1.5 log imports" test $? -eq 0
check "1.5 log warns about left-out rows" grep -q 'toolkit2-1.5.1-board-test-readme.txt:10: rows were left out' "$work/board.err"
check "1.5 report validates" $validate "$work/board.json"
"$cli" import-log "$logs/toolkit1-rv1126-mobilenetv1-issue388-excerpt.txt" --json "$work/tk1.json" >"$work/tk1.out" 2>"$work/tk1.err"
check "toolkit1 log imports" test $? -eq 0
check "toolkit1 report validates" $validate "$work/tk1.json"

# Damaged logs: exit 1 and the file and line named; never a crash.
head -c 5000 "$logs/rk3588-yolov8n-1920x1088-perf-detail.txt" >"$work/cut.txt"
"$cli" import-log "$work/cut.txt" >/dev/null 2>"$work/cut.err"
check "cut log exits 1" test $? -eq 1
check "cut log names file:line" grep -qE "cut.txt:[0-9]+: row has" "$work/cut.err"
printf 'hello\nworld\n' >"$work/nolog.txt"
"$cli" import-log "$work/nolog.txt" >/dev/null 2>"$work/nolog.err"
check "no table exits 1" test $? -eq 1
check "no table said" grep -q "nolog.txt: no RKNN per-layer perf table found" "$work/nolog.err"
"$cli" import-log "$work/missing.txt" >/dev/null 2>&1
check "missing file exits 1" test $? -eq 1

echo "$passes passed, $fails failed"
test "$fails" -eq 0
