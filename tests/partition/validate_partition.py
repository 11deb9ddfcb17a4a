#!/usr/bin/python3
"""Validates a partition report against resources/schema/report.schema.json and checks the plan is consistent:
every node assigned once with a reason, the stages cover the nodes in order, the timelines hold every frame of
every schedule on the lanes they name. Usage: validate_partition.py SCHEMA REPORT [--measured]"""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
measured = "--measured" in sys.argv
jsonschema.Draft202012Validator.check_schema(schema)
jsonschema.validate(report, schema)
assert report["kind"] == "partition"
p = report["partition"]
nodes = [a["node"] for a in p["assignments"]]
assert nodes and len(set(nodes)) == len(nodes), "nodes assigned twice"
assert all(a["reason"] and a["unit"] in a["costUs"] for a in p["assignments"]), "an assignment without reason or cost"
assert [n for s in p["stages"] for n in s["nodes"]] == nodes, "stages do not cover the nodes in order"
units = {u["name"] for u in p["units"]}
assert all(s["unit"] in units for s in p["stages"])
for i in range(1, len(p["stages"])):
    assert p["stages"][i]["unit"] != p["stages"][i - 1]["unit"], "two neighbouring stages on one unit"
for c in p["cuts"]:
    assert c["fromUnit"] != c["toUnit"] and c["fromStage"] < c["toStage"], c
for s in p["schedules"]:
    for source in ["predicted"] + (["measured"] if measured else []):
        traces = [t for t in report["traces"] if t["name"] == s["schedule"] and t["source"] == source]
        assert len(traces) == 1, (s["schedule"], source)
        t = traces[0]
        assert {e["lane"] for e in t["events"]} <= set(t["lanes"]), "an event on a lane the trace does not list"
        assert {e["frame"] for e in t["events"]} == set(range(s["frames"])), "frames missing from " + t["name"]
    if measured:
        assert s["measured"] is not None and s["measured"]["framesPerSecond"] > 0, s
print(f"{sys.argv[2]}: valid ({len(nodes)} nodes, {len(p['stages'])} stages, "
      + ", ".join(f"{s['schedule']} {s['predicted']['framesPerSecond']:.1f} fps predicted"
                  + (f" / {s['measured']['framesPerSecond']:.1f} measured" if s["measured"] else "")
                  for s in p["schedules"]) + ")")
