#!/usr/bin/env python3
# tests/check-test-paths.py
# Copyright 2026 The Rivulet authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: check-test-paths.py NAME… PROGRAM… (as many programs as names)
#
# One path style for the GLib tests: every case of the program test-NAME is
# /NAME/… and of test-ui-NAME /ui/NAME/…, so that a path says which file holds
# it. Asks each program for its cases (-l) and prints TAP, one line a program.
import os
import subprocess
import sys


def prefix(name):
    subject = name[len("test-"):]
    if subject.startswith("ui-"):
        subject = "ui/" + subject[len("ui-"):]
    return "/" + subject + "/"


def main():
    args = sys.argv[1:]
    if not args or len(args) % 2:
        print("usage: check-test-paths.py NAME... PROGRAM...", file=sys.stderr)
        return 2
    half = len(args) // 2
    pairs = sorted(zip(args[:half], args[half:]))
    env = dict(os.environ)
    # Listing runs no test: what a program sets up for its cases is not freed
    # then, and LeakSanitizer would call that a leak (each program's own run
    # under ASan checks its leaks).
    if "ASAN_OPTIONS" in env:
        env["ASAN_OPTIONS"] += ":detect_leaks=0"
    failed = 0
    print(f"1..{len(pairs)}")
    for number, (name, program) in enumerate(pairs, 1):
        listed = subprocess.run([program, "-l"], capture_output=True, text=True, timeout=30,
                                env=env)
        # GLib 2.74 lists a path a line; 2.84 as TAP comments ("# /json/…").
        lines = [line.strip().removeprefix("# ") for line in listed.stdout.splitlines()]
        paths = [line for line in lines if line.startswith("/")]
        wrong = [path for path in paths if not path.startswith(prefix(name))]
        if listed.returncode != 0 or not paths or wrong:
            failed += 1
            print(f"not ok {number} {name}")
            if listed.returncode != 0:
                print(f"# {program} -l exited with {listed.returncode}: {listed.stderr.strip()}")
            if not paths:
                print("# it lists no test case")
            for path in wrong:
                print(f"# {path} is not under {prefix(name)}")
        else:
            print(f"ok {number} {name} ({len(paths)} cases under {prefix(name)})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
