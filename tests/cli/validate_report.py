#!/usr/bin/python3
"""Validates a report against resources/schema/report.schema.json and checks it is internally consistent."""
import json
import sys

import jsonschema

schema_path, report_path = sys.argv[1], sys.argv[2]
schema = json.load(open(schema_path))
report = json.load(open(report_path))
jsonschema.Draft202012Validator.check_schema(schema)
jsonschema.validate(report, schema)
layers = report["layers"]
assert layers, "report has no layers"
ids = [l["id"] for l in layers] + [l["id"] for l in report.get("removedLayers", [])]
assert len(ids) == len(set(ids)), "two layers share an ID"
if report["environment"]["backend"] != "rknpu":  # the board runtime numbers its own layers
    missing = set(range(report["model"]["nodeCount"])) - set(ids)
    assert not missing, f"model nodes with neither a row nor a removed entry: IDs {sorted(missing)[:10]}"
assert abs(sum(l["timePercent"] for l in layers) - 100.0) < 0.5, "time percentages do not add up to 100"
if report["environment"]["backend"] != "rknpu":  # RKNN runs and imported vendor logs have no planned arena
    assert report["memory"]["arenaBytes"] >= report["memory"]["lowerBoundBytes"] > 0, "arena smaller than its lower bound"
assert report["model"]["macs"] == sum(l["macs"] for l in layers) or report["model"]["macs"] > 0
print(f"{report_path}: valid ({len(layers)} layers, median {report['run']['medianUs']:.0f} us)")
