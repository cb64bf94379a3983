#!/usr/bin/env python3
# tests/check-architecture.py
# Copyright 2026 The Rivulet authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: check-architecture.py SOURCE_ROOT
#
# app/ARCHITECTURE.md is the map of the code: every .c and .h file under app/
# has its line there (by its name, or as riv-foo.[ch] for the pair), and every
# file the map names under a layer's heading exists. Prints TAP: one line for
# the files the map misses, one for the names it keeps of files that are gone.
import os
import re
import sys


def main():
    if len(sys.argv) != 2:
        print("usage: check-architecture.py SOURCE_ROOT", file=sys.stderr)
        return 2
    root = sys.argv[1]
    app = os.path.join(root, "app")
    with open(os.path.join(app, "ARCHITECTURE.md"), encoding="utf-8") as f:
        text = f.read()

    files = set()
    for folder, _, names in os.walk(app):
        files.update(name for name in names if name.endswith((".c", ".h")))

    def named(name):
        stem, _ = os.path.splitext(name)
        return f"`{name}`" in text or f"`{stem}.[ch]`" in text or re.search(
            r"[`\s,(]" + re.escape(name) + r"[`\s,):]", text) is not None

    missing = sorted(name for name in files if not named(name))
    # Names in backquotes that look like our files: riv-….c, riv-….h, riv-….[ch]
    # (riv-foo is the map's own example of the naming).
    mentioned = set()
    for match in re.finditer(r"`((?:riv|bench|test)-[a-z0-9-]+)\.(c|h|\[ch\])`", text):
        stem, ext = match.groups()
        if stem.startswith(("bench-", "test-")) or stem.startswith("riv-foo"):
            continue
        mentioned.update([stem + ".c", stem + ".h"] if ext == "[ch]" else [f"{stem}.{ext}"])
    gone = sorted(name for name in mentioned if name not in files)

    print("1..2")
    print(("ok" if not missing else "not ok") + " 1 every file under app/ has its line")
    for name in missing:
        print(f"# not in app/ARCHITECTURE.md: {name}")
    print(("ok" if not gone else "not ok") + " 2 every file the map names exists")
    for name in gone:
        print(f"# named in app/ARCHITECTURE.md but not under app/: {name}")
    return 1 if missing or gone else 0


if __name__ == "__main__":
    sys.exit(main())
