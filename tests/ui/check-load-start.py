#!/usr/bin/env python3
# check-load-start.py
# Copyright 2026 The Rivulet authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A load test started from rivulet's command line (TAP), as a person
# retaking the screenshots or a script would: --users/--duration and
# --stages open the Load mode and run on the embedded server; with
# --quit-after-burst the window prints the run's summary and closes, exit
# status 0 when every job completed and 1 when some failed. Bad values are
# refused before any window opens, with exit status 2 and the option named.
# Each run has a D-Bus session of its own (dbus-run-session).
#
# Usage: check-load-start.py RIVULET_BINARY

import os
import re
import subprocess
import sys

import riv_tap

COMMON = ['--quit-after-burst']


def run(binary, args):
    env = dict(os.environ)
    env['GSETTINGS_BACKEND'] = 'memory'
    # A session bus of its own: on a shared one, a rivulet already running
    # (another test's) would be handed the command line instead.
    proc = subprocess.run(['dbus-run-session', '--', binary] + args, capture_output=True,
                          text=True, env=env, timeout=180)
    return proc.returncode, proc.stdout, proc.stderr


def summary(stdout):
    """The figures of the printed summary: completed, failed, lost (None: no summary)."""
    line = next((l for l in stdout.splitlines() if l.startswith('rivulet: load test: ')), None)
    if line is None:
        return None
    figures = {}
    for word in ('completed', 'failed', 'lost'):
        m = re.search(r'(\d+) ' + word, line)
        figures[word] = int(m.group(1)) if m else None
    return figures


def main():
    binary = sys.argv[1]
    results = []

    code, out, err = run(binary, ['--users', '3', '--duration', '2', '--endpoint', 'batch_echo',
                                  '--data', '["user {u}", 0.05]'] + COMMON)
    s = summary(out)
    results.append((code == 0 and s is not None and s['completed'] and s['completed'] > 3 and
                    s['failed'] == 0 and s['lost'] == 0,
                    '--users 3 --duration 2: runs in the window, every job completed, exit 0',
                    out + err))

    code, out, err = run(binary, ['--stages', '1s:2,1s:2', '--think', '0.1', '--endpoint',
                                  'batch_echo', '--data', '["x", 0.05]'] + COMMON)
    s = summary(out)
    results.append((code == 0 and s is not None and s['completed'] and s['completed'] > 0 and
                    s['failed'] == 0,
                    '--stages 1s:2,1s:2 --think 0.1: ramps and completes, exit 0', out + err))

    code, out, err = run(binary, ['--users', '2', '--duration', '1', '--endpoint', 'shapes_fail',
                                  '--data', '[0.05]'] + COMMON)
    s = summary(out)
    results.append((code == 1 and s is not None and s['failed'] and s['failed'] > 0,
                    'a load test whose jobs fail: the summary counts them, exit 1', out + err))

    for args, named in ((['--users', '0'], '--users'),
                        (['--users', 'many'], '--users'),
                        (['--users', '2.5'], '--users'),
                        (['--duration', '0'], '--duration'),
                        (['--think', '-1'], '--think'),
                        (['--stages', '2s:twenty'], 'stage 1'),
                        (['--stages', '2s:5', '--users', '5'], '--stages'),
                        (['--burst', '5', '--users', '5'], '--burst')):
        code, out, err = run(binary, args)
        results.append((code == 2 and named in err and 'load test:' not in out,
                        f'{" ".join(args)}: refused with exit 2, naming {named}', out + err))

    return riv_tap.finish(results)


if __name__ == '__main__':
    sys.exit(main())
