#!/usr/bin/python3
"""Fails when CTest skipped a test that is expected to run.

  check_skips.py CTEST_JUNIT.xml [--allowed tests/allowed-skips.txt]

Reads the JUnit file `ctest --output-junit` wrote, takes every skipped or disabled test and compares it with the
allowed list (one CTest name or shell pattern per line, then the reason; '#' starts a comment). Prints each skip
with the reason its output gives; exits 1 on any skip the list does not allow, and names list entries that matched
nothing (stale, worth deleting).
"""
import argparse
import fnmatch
import os
import re
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
# How each test framework states its reason: GoogleTest's GTEST_SKIP() << ..., QtTest's QSKIP(...), scripts' own words.
# Otherwise the output's last line.
REASON = [re.compile(p, re.MULTILINE) for p in (r"^\S*: Skipped\n(.+)", r"^SKIP\s*:\s*\S+\s+(.+)")]


def allowed_list(path):
    entries = []
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(None, 1)
        if len(parts) < 2:
            sys.exit(f"{path}:{n}: '{parts[0]}' has no reason (NAME REASON)")
        entries.append((parts[0], parts[1], n))
    return entries


def skipped_tests(junit):
    out = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        status = case.get("status", "")
        if status in ("notrun", "disabled") or case.find("skipped") is not None:
            text = "".join(case.find("system-out").itertext()) if case.find("system-out") is not None else ""
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            reason = lines[-1] if lines else ""
            for pattern in REASON:
                m = pattern.search(text)
                if m:
                    reason = m.group(1).strip()
                    break
            out.append((case.get("name"), status or "skipped", reason[:200]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("junit")
    ap.add_argument("--allowed", default=os.path.join(HERE, "..", "allowed-skips.txt"))
    args = ap.parse_args()
    allowed_path = os.path.normpath(args.allowed)
    allowed = allowed_list(allowed_path)
    used = set()
    bad = 0
    skips = skipped_tests(args.junit)
    for name, status, reason in skips:
        match = next((e for e in allowed if fnmatch.fnmatchcase(name, e[0])), None)
        shown = f"{name} ({status}{': ' + reason if reason else ''})"
        if match:
            used.add(match[0])
            print(f"allowed skip  {shown}  -- {match[1]}")
        else:
            bad += 1
            print(f"UNEXPECTED SKIP  {shown}")
    for pattern, reason, n in allowed:
        if pattern not in used:
            print(f"note: {allowed_path}:{n}: '{pattern}' matched no skipped test (stale?)")
    total = sum(1 for _ in ET.parse(args.junit).getroot().iter("testcase"))
    if bad:
        print(f"check_skips: {bad} test(s) skipped that should run (of {total}); make them run, or add them to "
              f"{allowed_path} with the reason")
        return 1
    print(f"check_skips: {len(skips)} skipped of {total}, all allowed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
