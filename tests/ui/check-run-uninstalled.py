#!/usr/bin/env python3
# check-run-uninstalled.py
# Copyright 2026 The Rivulet authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Runs rivulet as a user would without installing it (TAP): from the build
# tree with no GSETTINGS_SCHEMA_DIR it finds the build tree's schema; a copy
# of the binary outside the build tree, where no schema is to be found, runs
# on the schema compiled into it (settings not saved) instead of aborting.
# Each run submits one job to the embedded server and must finish it with
# exit status 0.
#
# Usage: check-run-uninstalled.py RIVULET_BINARY

import os
import shutil
import subprocess
import sys
import tempfile

APP_ID = 'io.github.rivulet.Rivulet'
NOT_SAVED = 'settings will not be saved'
ARGS = ['--burst', '1', '--quit-after-burst', '--endpoint', 'batch_echo']


def run(binary):
    env = {k: v for k, v in os.environ.items() if k != 'GSETTINGS_SCHEMA_DIR'}
    env['GSETTINGS_BACKEND'] = 'memory'
    proc = subprocess.run([binary] + ARGS, capture_output=True, text=True, env=env, timeout=120)
    return proc.returncode, proc.stdout + proc.stderr


def installed():
    """Whether the schema is installed on this machine (then the copy finds it)."""
    env = {k: v for k, v in os.environ.items() if k != 'GSETTINGS_SCHEMA_DIR'}
    gsettings = shutil.which('gsettings')
    if gsettings is None:
        return False
    proc = subprocess.run([gsettings, 'list-schemas'], capture_output=True, text=True, env=env)
    return APP_ID in proc.stdout.split()


def main():
    binary = sys.argv[1]
    results = []

    code, output = run(binary)
    results.append((code == 0 and 'burst of 1: 1 done' in output and NOT_SAVED not in output,
                    'from the build tree: runs on the build tree\'s schema', output))

    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, 'rivulet')
        shutil.copy2(binary, copy)
        code, output = run(copy)
    expect_fallback = not installed()
    results.append((code == 0 and 'burst of 1: 1 done' in output and
                    (NOT_SAVED in output) == expect_fallback,
                    'outside the build tree, schema ' +
                    ('not installed: runs with settings in memory' if expect_fallback
                     else 'installed: runs on it'), output))

    print(f'1..{len(results)}')
    failed = 0
    for number, (ok, what, output) in enumerate(results, 1):
        print(f'{"ok" if ok else "not ok"} {number} - {what}')
        if not ok:
            failed += 1
            for line in output.splitlines():
                print(f'# {line}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
