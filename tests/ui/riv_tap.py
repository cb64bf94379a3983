# riv_tap.py
# Copyright 2026 The Rivulet authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The TAP report of the Python checks in this folder: results are
# (ok, what, details) with details a text or a list of lines, printed as
# comments under a failed check (under every check with always=True).


def finish(results, always=False):
    """Prints results as TAP; the exit status (1 when one failed)."""
    print(f'1..{len(results)}')
    failed = 0
    for number, (ok, what, details) in enumerate(results, 1):
        print(f'{"ok" if ok else "not ok"} {number} - {what}')
        failed += not ok
        if ok and not always:
            continue
        lines = details.splitlines() if isinstance(details, str) else details
        for line in lines:
            print(f'# {line}')
    return 1 if failed else 0
