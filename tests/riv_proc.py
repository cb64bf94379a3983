# riv_proc.py
# Copyright 2026 The Rivulet authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# For the Python tests in this folder: ending a process they started in a
# process group of its own (start_new_session=True).

import os
import signal
import subprocess


def stop(proc):
    """Ends proc's group: SIGTERM, then after 15 s SIGKILL."""
    if proc and proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
