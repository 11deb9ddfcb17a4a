#!/usr/bin/python3
"""Reads an `npuwb-agent run` stream on stdin, checks it ends in a report and prints a one-line summary."""
import json
import sys

events = [json.loads(line) for line in sys.stdin if line.strip()]
kinds = [e["event"] for e in events]
if not kinds or kinds[-1] != "report":
    sys.exit(f"the run did not end with a report: {events[-1] if events else 'no output'}")
r = events[-1]["report"]
print(f"  {len(events)} events ({kinds.count('progress')} progress, {kinds.count('telemetry')} telemetry); "
      f"backend {r['environment']['backend']} on {r['environment']['arch']}, {len(r['layers'])} layers, "
      f"median {r['run']['medianUs']:.0f} us, {len(r['fallbacks'])} fallbacks")
