#!/usr/bin/env python3
"""rivulet-cli load's memory stays flat in the number of jobs (TAP; issue 37).

The built rivulet-cli (RIVULET_CLI) serves the demo server and runs 100 virtual users
against it, batch_echo with no delay (as fast as it goes), with --output (to /dev/null:
each record is written as its job is counted) and --timeseries. Not --json nor --metrics:
their live lint (app/trace/riv-lint.c) holds the jobs of its last 10 s, a plateau that
makes the samples of a 2-minute run too uneven for a slope of 1 MB a minute. While it runs, the load
process's resident memory (VmRSS in /proc) is sampled every few seconds; after a warm-up
the least-squares slope of those samples must stay under a bound. A fitted slope, not
the largest minus the smallest sample: on a busy two-core machine single samples jump
by a megabyte or two either way, a steady leak does not.

The same script is the bench's one-hour soak (tests/bench/load-soak) with other values:
  RIV_SOAK_S=120          how long the load runs, seconds
  RIV_SOAK_WARMUP_S=30    samples before this are not fitted
  RIV_SOAK_SAMPLE_S=3     seconds between samples
  RIV_SOAK_PRINT_S=30     a line with the RSS this often
  RIV_SOAK_MAX_SLOPE=1.0  MB a minute, the bound on the fitted slope
  RIV_SOAK_MAX_GROWTH=    MB, optional: bound on the last minute's mean RSS less the
                          mean of the minute after the warm-up
  RIV_SOAK_USERS=100
"""
import os
import re
import subprocess
import sys
import tempfile
import time

from riv_proc import stop

CLI = os.environ.get("RIVULET_CLI")


def env_float(name, default):
    value = os.environ.get(name, "")
    return float(value) if value else default


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def slope(points):
    """Least-squares slope of (t, y) points."""
    n = len(points)
    mt = sum(t for t, _ in points) / n
    my = sum(y for _, y in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    return sum((t - mt) * (y - my) for t, y in points) / var if var > 0 else 0.0


def sample_while_running(load, duration, sample_s, print_s):
    """[(t, MB)] of the load process until it ends; prints one every print_s."""
    samples = []
    start = time.monotonic()
    next_print = print_s
    while load.poll() is None:
        time.sleep(sample_s)
        kb = rss_kb(load.pid)
        t = time.monotonic() - start
        if kb is None or load.poll() is not None or t > duration:
            break
        samples.append((t, kb / 1024))
        if t >= next_print:
            print(f"# {t:6.0f} s  RSS {kb / 1024:7.1f} MB", flush=True)
            next_print += print_s
    return samples


def child_env():
    """The environment of the two processes. Under ASan (the asan test setup sets
    ASAN_OPTIONS) the resident memory is mostly ASan's own: freed blocks held in its
    quarantine (256 MB) and every allocation's call stack kept in its stack depot,
    which grows with each new stack seen (+4 to +6 MB a minute here, while the
    same run's heap is flat). Those two are turned off for this test only, so that
    what is fitted is Rivulet's memory; ASan still checks every access and LSan
    still checks for leaks at exit."""
    env = dict(os.environ)
    if env.get("ASAN_OPTIONS"):
        env["ASAN_OPTIONS"] += ":quarantine_size_mb=0:malloc_context_size=0:fast_unwind_on_malloc=1"
    return env


def run(scratch):
    duration = env_float("RIV_SOAK_S", 120)
    warmup = env_float("RIV_SOAK_WARMUP_S", 30)
    sample_s = env_float("RIV_SOAK_SAMPLE_S", 3)
    print_s = env_float("RIV_SOAK_PRINT_S", 30)
    max_slope = env_float("RIV_SOAK_MAX_SLOPE", 1.0)
    max_growth = env_float("RIV_SOAK_MAX_GROWTH", -1)
    users = int(env_float("RIV_SOAK_USERS", 100))
    checks = []
    serve = load = None
    try:
        serve = subprocess.Popen([CLI, "serve", "--host", "127.0.0.1", "--port", "0",
                                  "--concurrency", "64"], stdout=subprocess.PIPE, env=child_env(),
                                 stderr=subprocess.DEVNULL, text=True, start_new_session=True)
        url = re.search(r"http://127\.0\.0\.1:[0-9]+", serve.stdout.readline()).group(0)
        series = os.path.join(scratch, "series.csv")
        load = subprocess.Popen([CLI, "load", "--url", url, "--endpoint", "batch_echo",
                                 "--users", str(users), "--duration", str(duration),
                                 "--data", '["soak {i}", 0]', "--output", "/dev/null",
                                 "--timeseries", series],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True, env=child_env())
        samples = sample_while_running(load, duration, sample_s, print_s)
        out, err = load.communicate(timeout=duration + 300)
        checks.append((load.returncode == 0, "the load run ends with every job completed",
                       f"exit {load.returncode}: {err.strip()[-300:]}"))
        completed = re.search(r'^completed +([0-9]+)', out, re.M)
        completed = int(completed.group(1)) if completed else 0
        rate = completed / duration
        print(f"# {completed} jobs completed, {rate:.0f} jobs/s", flush=True)
        checks.append((completed >= 50 * duration, "at least 50 jobs a second were counted",
                       f"{completed} jobs"))
        fitted = [(t, mb) for t, mb in samples if t >= warmup]
        enough = len(fitted) >= 5
        checks.append((enough, "enough memory samples after the warm-up", f"{len(fitted)}"))
        if enough:
            per_min = slope(fitted) * 60
            print(f"# RSS {fitted[0][1]:.1f} MB at {fitted[0][0]:.0f} s, {fitted[-1][1]:.1f} MB "
                  f"at {fitted[-1][0]:.0f} s; fitted slope {per_min:+.3f} MB/minute "
                  f"({len(fitted)} samples)", flush=True)
            checks.append((per_min <= max_slope,
                           f"the fitted RSS slope is at most {max_slope} MB/minute",
                           f"{per_min:+.3f} MB/minute"))
            if max_growth >= 0:
                first = [mb for t, mb in fitted if t < warmup + 60]
                last = [mb for t, mb in fitted if t > fitted[-1][0] - 60]
                growth = sum(last) / len(last) - sum(first) / len(first)
                print(f"# growth after the first minute: {growth:+.1f} MB", flush=True)
                checks.append((growth < max_growth,
                               f"RSS grows by less than {max_growth} MB after the warm-up",
                               f"{growth:+.1f} MB"))
    finally:
        stop(load)
        stop(serve)
    return checks


def main():
    if not CLI:
        print("1..0 # SKIP RIVULET_CLI is not set")
        return 0
    with tempfile.TemporaryDirectory(prefix="riv-test-load-memory-") as scratch:
        checks = run(scratch)
    print(f"1..{len(checks)}")
    failed = 0
    for i, (ok, name, detail) in enumerate(checks, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {name}" + ("" if ok else f" # {detail}"))
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
