#!/usr/bin/env bash
# `profile` on a backend that fuses (cpu-onednn): a fused kernel is one table row, named by its op types joined
# ("Conv+Relu") and holding the kernel's time once, with a line saying how many nodes ran inside fused layers; in the
# JSON each such node keeps its row (ID, shapes) with time 0 and `fusedInto` naming the layer that lists it in
# `fusedNodes`.
set -u
CLI="$1"; WORK="$2"; MODEL="$3"
mkdir -p "$WORK"
"$CLI" profile "$MODEL" --backend cpu-onednn --threads 1 --runs 3 --warmup 1 -q --json "$WORK/fused.json" \
  > "$WORK/table.txt" || { echo "FAIL profile exited $?"; exit 1; }
failures=0
grep -qE '^[0-9]+ +[A-Za-z]+\+[A-Za-z+]+ ' "$WORK/table.txt" && echo "ok   a fused row in the table" ||
  { echo "FAIL no 'A+B' op type row"; failures=$((failures + 1)); }
grep -qE '^\([0-9]+ nodes ran inside a fused layer' "$WORK/table.txt" && echo "ok   the folded nodes are counted" ||
  { echo "FAIL no line counting the nodes inside fused layers"; failures=$((failures + 1)); }
/usr/bin/python3 - "$WORK/fused.json" "$WORK/table.txt" <<'PY' || failures=$((failures + 1))
import json, sys
layers = json.load(open(sys.argv[1]))["layers"]
table = open(sys.argv[2]).read()
by_name = {l["fullName"]: l for l in layers}
members = [l for l in layers if l.get("fusedInto")]
assert members, "no row has fusedInto"
assert len({l["id"] for l in layers}) == len(layers), "two rows share an ID"
for m in members:
    anchor = by_name[m["fusedInto"]]
    assert m["fullName"] in anchor.get("fusedNodes", []), f'{anchor["fullName"]} does not list {m["fullName"]}'
    assert m["timeUs"] == 0, f'{m["fullName"]} has a time of its own: {m["timeUs"]}'
    assert anchor["timeUs"] > 0 and anchor["id"] < m["id"], anchor["fullName"]
    assert f' {m["fullName"]}\n' not in table, f'{m["fullName"]} printed as a row of its own'
for a in layers:
    for f in a.get("fusedNodes", []):
        assert by_name[f].get("fusedInto") == a["fullName"], f
print(f"ok   {len(members)} nodes point at their fused layer, which lists them; none printed on its own")
PY
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
