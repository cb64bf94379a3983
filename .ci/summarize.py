#!/usr/bin/env python3
"""Counts test cases in meson's JSON test logs and prints 'N passed, N failed'.

A test that printed TAP is counted by its subtests; one that did not counts as
one case. A test that failed, errored or timed out without any 'not ok' line
(an abort mid-run) adds one failure. Exits non-zero on any failure, when a log
is missing, or when nothing ran.
"""
import json
import re
import sys

TAP_LINE = re.compile(r"^(not ok|ok)\b(.*)$")
BAD = {"FAIL", "ERROR", "TIMEOUT", "UNEXPECTEDPASS", "INTERRUPT"}


def count(entry):
    ok = bad = skip = 0
    for line in (entry.get("stdout") or "").splitlines():
        m = TAP_LINE.match(line.strip())
        if not m:
            continue
        rest = m.group(2).upper()
        if "# SKIP" in rest:
            skip += 1
        elif m.group(1) == "ok" or "# TODO" in rest:
            ok += 1
        else:
            bad += 1
    result = entry.get("result", "ERROR")
    if ok + bad + skip == 0:
        if result in ("OK", "EXPECTEDFAIL"):
            ok = 1
        elif result == "SKIP":
            skip = 1
        else:
            bad = 1
    elif result in BAD and bad == 0:
        bad = 1
    return ok, bad, skip


def main(paths):
    passed = failed = skipped = 0
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError:
            print(f"missing test log: {path}", file=sys.stderr)
            failed += 1
            continue
        for raw in lines:
            if not raw.strip():
                continue
            ok, bad, skip = count(json.loads(raw))
            passed += ok
            failed += bad
            skipped += skip
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["_build/meson-logs/testlog.json"]))
