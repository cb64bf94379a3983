#!/usr/bin/env python3
# check-run-uninstalled.py
# Copyright 2026 The Rivulet authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Runs rivulet as a user would without installing it (TAP): from the build
# tree with no GSETTINGS_SCHEMA_DIR it finds the build tree's schema; a copy
# of the binary outside the build tree, where no schema is to be found, runs
# on the schema compiled into it (settings not saved) instead of aborting.
# While it runs, its heap is on transparent huge pages (main.c re-executes it
# with glibc's tunable), unless the user's GLIBC_TUNABLES says otherwise.
# Each run submits one job to the embedded server and must finish it with
# exit status 0.
#
# Usage: check-run-uninstalled.py RIVULET_BINARY
# RIVULET_SANITIZE: the build's b_sanitize (a sanitizer's allocator stands in
# for glibc's malloc).

import os
import shutil
import subprocess
import sys
import tempfile
import time

import riv_tap

APP_ID = 'io.github.rivulet.Rivulet'
NOT_SAVED = 'settings will not be saved'
ARGS = ['--burst', '1', '--quit-after-burst', '--endpoint', 'batch_echo']


def run(binary):
    env = {k: v for k, v in os.environ.items() if k != 'GSETTINGS_SCHEMA_DIR'}
    env['GSETTINGS_BACKEND'] = 'memory'
    proc = subprocess.run([binary] + ARGS, capture_output=True, text=True, env=env, timeout=120)
    return proc.returncode, proc.stdout + proc.stderr


def heap_advised(binary, tunables):
    """Runs a job of 3 s; whether glibc advised the window's heap for
    transparent huge pages meanwhile (the "hg" flag of its [heap] mapping),
    with GLIBC_TUNABLES set to tunables (None: unset)."""
    env = {k: v for k, v in os.environ.items() if k != 'GLIBC_TUNABLES'}
    env['GSETTINGS_BACKEND'] = 'memory'
    if tunables is not None:
        env['GLIBC_TUNABLES'] = tunables
    proc = subprocess.Popen([binary] + ARGS + ['--data', '["hold", 3]'], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    advised = False
    deadline = time.monotonic() + 120
    # The same pid after the re-execution; its heap is advised as it grows.
    while not advised and proc.poll() is None and time.monotonic() < deadline:
        try:
            with open(f'/proc/{proc.pid}/smaps') as f:
                smaps = f.read().splitlines()
        except OSError:
            break
        heap = next((i for i, line in enumerate(smaps) if line.endswith('[heap]')), None)
        flags = next((line for line in smaps[heap:] if line.startswith('VmFlags:')), '') \
            if heap is not None else ''
        advised = ' hg' in flags
        time.sleep(0.05)
    output, _ = proc.communicate(timeout=120)
    return advised, proc.returncode == 0 and 'burst of 1: 1 done' in output, output


def huge_pages_skip():
    """Why the huge-pages checks cannot be made here (None: they can)."""
    if os.environ.get('RIVULET_SANITIZE', 'none') != 'none':
        return "a sanitizer's allocator stands in for glibc's malloc"
    try:
        with open('/sys/kernel/mm/transparent_hugepage/enabled') as f:
            mode = f.read()
    except OSError:
        mode = ''
    if '[madvise]' not in mode:
        return 'transparent huge pages are not in madvise mode here: glibc advises none'
    return None


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

    skip = huge_pages_skip()
    for tunables, want, what in ((None, True, 'on transparent huge pages'),
                                 ('glibc.malloc.hugetlb=0', False,
                                  'not on huge pages when GLIBC_TUNABLES says so')):
        if skip is not None:
            results.append((True, f'{what} # SKIP {skip}', ''))
            continue
        advised, done, output = heap_advised(binary, tunables)
        results.append((done and advised == want, what, output))

    return riv_tap.finish(results)


if __name__ == '__main__':
    sys.exit(main())
