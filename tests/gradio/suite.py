#!/usr/bin/env python3
"""Rivulet against real Gradio servers: the cases of `make test-gradio`.

Started by tests/gradio/run, which provisions the Python and mounts what the Debian root
needs. For each Gradio version this starts the apps of apps/rivulet_apps.py on 127.0.0.1,
runs `rivulet-cli` against them and checks what a user would see. Every case is one entry
of a meson-compatible JSON test log (--log), so .ci/summarize.py counts it; the runner also
prints "ok"/"not ok" lines as it goes and a side-by-side table of the bursts at the end.
"""
import argparse
import fnmatch
import hashlib
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
import zlib

import cases_breakpoint
import cases_scenarios
import cases_spaces

HERE = os.path.dirname(os.path.abspath(__file__))
AUTH = ("rivulet", "s3cret")


class CaseFailed(Exception):
    pass


class CaseSkipped(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CaseFailed(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def png_bytes(width, height):
    """A small RGB PNG, written with zlib alone."""
    raw = b"".join(b"\0" + b"".join(bytes((x * 7 % 256, y * 7 % 256, 128)) for x in range(width))
                   for y in range(height))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


class Python:
    """Where the Gradio apps run: the Debian root (chroot) or a given Python."""

    def __init__(self, root=None, python=None):
        self.root, self.python = root, python

    def workdir(self, version):
        """(host path, path as the apps see it) of a version's scratch folder."""
        inner = f"/opt/rivulet/run/{version}"
        host = self.root + inner if self.root else os.path.join(self.scratch, version)
        return host, (inner if self.root else host)

    def command(self, version, argv, env_extra):
        if self.root:
            top = f"/opt/rivulet/gradio-{version}"
            env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8",
                   "PYTHONPATH": f"/opt/rivulet/tests/stubs:{top}:{top}/client/python",
                   "PYTHONDONTWRITEBYTECODE": "1"}
            env.update(env_extra)
            script = "/opt/rivulet/tests/apps/" + argv[0]
            return (["chroot", self.root, "/usr/bin/env", "-i"]
                    + [f"{k}={v}" for k, v in env.items()] + ["python3", script] + argv[1:]), None
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        env.update(env_extra)
        return [self.python, os.path.join(HERE, "apps", argv[0])] + argv[1:], env


class Server:
    def __init__(self, py, version, app, workdir, script="rivulet_apps.py", env=None):
        host_dir, inner_dir = workdir
        self.port = free_port()
        self.app = app
        self.log_path = os.path.join(host_dir, f"{app}.log")
        env_extra = {"GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1",
                     "GRADIO_TEMP_DIR": f"{inner_dir}/tmp-{app}",
                     "RIVULET_GRADIO_AUTH": ":".join(AUTH), "PYTHONUNBUFFERED": "1", **(env or {})}
        argv, env = py.command(version, [script, app, "--port", str(self.port),
                                         "--logdir", inner_dir], env_extra)
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(argv, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        self.url = f"http://127.0.0.1:{self.port}" + ("/sub" if app == "sub" else "")

    def wait_ready(self, limit):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                urllib.request.urlopen(self.url + "/config", timeout=2).read()
                return True
            except urllib.error.HTTPError:
                return True  # it answers (the auth app says 401 before a login)
            except OSError:
                time.sleep(0.3)
        return False

    def tail(self, n=25):
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


class Cli:
    def __init__(self, path, probe_path, scratch):
        self.path = path
        self.probe_path = probe_path
        self.scratch = scratch
        help_text = subprocess.run([path, "load", "--help"], capture_output=True, text=True).stdout
        self.has_output = "--output" in help_text
        self.has_auth = "--auth" in help_text
        self.lint_runs = []   # (url, endpoint, count, the --json summary's "lint") of every load

    def load(self, url, endpoint, count, data=None, extra=(), timeout=300):
        """Runs `rivulet-cli load`; returns (exit status, --json summary, per-job records, stderr)."""
        out = os.path.join(self.scratch, f"jobs-{uuid.uuid4().hex}.jsonl")
        argv = [self.path, "load", "--url", url, "--endpoint", endpoint, "--count", str(count),
                "--json", "--timeout", str(timeout)] + list(extra)
        if data is not None:
            argv += ["--data", json.dumps(data)]
        if self.has_output:
            argv += ["--output", out]
        self.last_command = " ".join(argv)
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout + 60)
        summary = None
        for line in p.stdout.splitlines():
            if line.startswith("{"):
                try:
                    summary = json.loads(line)
                except ValueError:
                    pass
        if summary is not None:
            self.lint_runs.append((url, endpoint, count, summary.get("lint")))
        records = None
        if self.has_output and os.path.exists(out):
            with open(out, encoding="utf-8") as f:
                records = [json.loads(line) for line in f if line.strip()]
            # --output writes a record as its job is counted (the order jobs
            # ended); the cases read them in job order.
            records.sort(key=lambda r: r.get("index", 0))
            os.unlink(out)
        return p.returncode, summary, records, p.stderr

    def probe(self, *argv, timeout=120):
        """Runs riv-gradio-probe (Rivulet's client: upload, cancel); returns its JSON lines."""
        p = subprocess.run([self.probe_path] + [str(a) for a in argv], capture_output=True,
                           text=True, timeout=timeout)
        self.last_command = " ".join([self.probe_path] + [str(a) for a in argv])
        check(p.returncode == 0, f"{self.last_command}: exit {p.returncode}\n{p.stderr}")
        return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")], p.stderr

    def upload(self, url, name, data):
        path = os.path.join(self.scratch, name)
        with open(path, "wb") as f:
            f.write(data)
        lines, _ = self.probe("upload", url, path)
        return lines[0]["path"]

    def window(self, url, endpoint, data, width=None, env_extra=None, timeout=420):
        """tests/gradio/riv-gradio-window (Rivulet's window, under its own Xvfb) on one job;
        returns what it reports (see the program's header)."""
        program = os.path.join(os.path.dirname(self.probe_path), "riv-gradio-window")
        if not os.access(program, os.X_OK):
            raise CaseSkipped(f"no {program} (built only with GTK 4 and libadwaita)")
        if not shutil.which("xvfb-run") or not shutil.which("dbus-run-session"):
            raise CaseSkipped("no xvfb-run / dbus-run-session (make deps installs them)")
        build = os.path.dirname(os.path.dirname(os.path.dirname(self.probe_path)))
        env = {k: v for k, v in os.environ.items()
               if k not in ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS")}
        env.update({"GSETTINGS_SCHEMA_DIR": os.path.join(build, "data"),
                    "GSETTINGS_BACKEND": "memory", "GTK_A11Y": "none", "GDK_BACKEND": "x11",
                    "GSK_RENDERER": "cairo", "NO_PROXY": "*", "no_proxy": "*"})
        env.update(env_extra or {})
        argv = ["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24 -nolisten tcp",
                "dbus-run-session", "--", program, url, endpoint, json.dumps(data)]
        if width is not None:
            argv.append(str(width))
        self.last_command = " ".join(argv)
        p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
        lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
        errors = "\n".join(l for l in p.stderr.splitlines() if "DEBUG" not in l)[-2000:]
        check(p.returncode == 0 and lines, f"{program} exit {p.returncode}:\n{errors}")
        return json.loads(lines[-1])

    def need_records(self, records):
        if records is None:
            raise CaseSkipped("rivulet-cli load has no --output (per-job records) yet: "
                              "each job's outputs cannot be checked")
        return records


class Suite:
    def __init__(self, args):
        self.args = args
        self.results = []   # meson test log entries
        self.table = []     # per version: side-by-side burst figures
        self.log = open(args.log, "w", encoding="utf-8")

    def record(self, name, result, text, duration):
        safe = "\n".join(("| " + l if l.strip().startswith(("ok", "not ok")) else l)
                         for l in text.splitlines())
        entry = {"name": name, "suite": ["gradio"], "result": result, "duration": round(duration, 2),
                 "returncode": 0 if result in ("OK", "SKIP", "EXPECTEDFAIL") else 1,
                 "stdout": safe}
        self.log.write(json.dumps(entry) + "\n")
        self.log.flush()
        self.results.append(entry)
        n = len(self.results)
        if result == "SKIP" and "EXPECTED FAILURE" in text:
            print(f"ok {n} - {name} # SKIP expected failure (a known Rivulet bug)")
            for line in text.rstrip().splitlines():
                print("#   " + line)
        elif result == "SKIP":
            print(f"ok {n} - {name} # SKIP {text.strip().splitlines()[-1] if text.strip() else ''}")
        elif result == "EXPECTEDFAIL":
            print(f"ok {n} - {name} # TODO expected failure: {text.strip()}")
        elif result == "OK":
            print(f"ok {n} - {name}" + (f"  ({text.strip()})" if text.strip() and "\n" not in text.strip() else ""))
        else:
            print(f"not ok {n} - {name}")
            for line in text.rstrip().splitlines():
                print("#   " + line)
        sys.stdout.flush()

    def case(self, name, fn, *args):
        only = getattr(self.args, "only", None)
        # "deploy" and "deploy:TEXT" are filtered by cases_deploy.run, which calls only
        # the cases it wants.
        if only and not only.startswith("deploy") and only not in name:
            return "FILTERED"   # RIVULET_GRADIO_ONLY while developing: not run, not counted
        t0 = time.monotonic()
        try:
            text = fn(*args) or ""
            result = "OK"
        except CaseSkipped as e:
            result, text = "SKIP", f"SKIP: {e}"
        except CaseFailed as e:
            result, text = "FAIL", str(e)
        except Exception as e:  # a bug in the case itself still fails it, with its reason
            result, text = "FAIL", f"{type(e).__name__}: {e}"
        reason = expected_failure(self.args.expected_failures, name)
        if reason and result == "FAIL":
            # Counted as skipped in the closing line: a known bug is never a pass.
            result, text = "SKIP", f"{text}\n{reason}"
        elif reason and result == "OK":
            text = (f"{text}; listed in tests/gradio/expected-failures but passed: "
                    f"take it out of that list").lstrip("; ")
        self.record(name, result, text, time.monotonic() - t0)
        return result


def load_expected_failures(path):
    """tests/gradio/expected-failures: lines "VERSION | CASE | REASON" (VERSION may be *,
    CASE a shell-style pattern)."""
    rules = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    version, case, reason = (part.strip() for part in line.split("|", 2))
                    rules.append((version, case, reason))
    except OSError:
        pass
    return rules


def expected_failure(rules, name):
    """The reason a case named "gradio VERSION: CASE" is expected to fail, or None."""
    head, _, case = name.partition(": ")
    version = head.replace("gradio ", "", 1)
    for v, c, reason in rules:
        if v in ("*", version) and fnmatch.fnmatchcase(case, c):
            return f"EXPECTED FAILURE (a known Rivulet bug): {reason}"
    return None


def wait_lines(path, at_least, limit=10.0):
    deadline = time.monotonic() + limit
    while True:
        lines = read_lines(path)
        if len(lines) >= at_least or time.monotonic() > deadline:
            return lines
        time.sleep(0.1)


def read_lines(path):
    try:
        with open(path, encoding="utf-8") as f:
            return [l.rstrip("\n") for l in f]
    except OSError:
        return []


def job_failures(records, expect):
    """Which records do not match expect(index, record) (None when right)."""
    bad = []
    for r in records:
        why = expect(r["index"], r)
        if why:
            bad.append(f"job {r['index']}: {why}")
    return bad


def first_output(r):
    outs = r.get("outputs")
    return outs[0] if isinstance(outs, list) and outs else None


def run_version(suite, py, cli, version):
    args = suite.args
    workdir = py.workdir(version)
    host_dir = workdir[0]
    shutil.rmtree(host_dir, ignore_errors=True)
    os.makedirs(host_dir)
    label = f"gradio {version}"
    servers = {app: Server(py, version, app, workdir) for app in ("main", "sub", "auth")}
    try:
        ready = {app: s.wait_ready(args.start_limit) for app, s in servers.items()}
        for app, s in servers.items():
            def started(s=s, ok=ready[app]):
                check(ok, f"the {s.app} app did not answer on {s.url} within {args.start_limit:.0f} s:\n{s.tail()}")
                return s.url
            suite.case(f"{label}: {app} app starts", started)
        if not ready["main"]:
            return
        main = servers["main"]
        batches_log = os.path.join(host_dir, "batches.log")
        row = {"version": version, "rivulet": [], "client": None}
        suite.table.append(row)
        cli.lint_runs = []

        for k in range(1, args.bursts + 1):
            burst(suite, cli, main, batches_log, label, k, args.jobs, row)
        official_client(suite, py, version, main, label, args, row)
        endpoint_cases(suite, cli, main, label, host_dir, version)
        window_case(suite, cli, main, label)
        if ready["sub"]:
            sub_cases(suite, cli, servers["sub"], label)
        if ready["auth"]:
            auth_cases(suite, cli, servers["auth"], label)
        record_cases(suite, cli, main, label)
        lint_silent(suite, cli, label)
        from cases_apps import engine_cases   # issue 23's apps (apps/engine_apps.py)
        engine_cases(suite, py, cli, version, workdir)
        cases_scenarios.run(sys.modules[__name__], suite, py, cli, version, workdir)   # issue 40
        cases_breakpoint.run(sys.modules[__name__], suite, py, cli, version, workdir)
        cases_spaces.run(sys.modules[__name__], suite, cli, main, label)   # issue 40: Spaces by name
    finally:
        for s in servers.values():
            s.stop()


def burst(suite, cli, main, batches_log, label, k, jobs, row):
    name = f"{label}: batch_echo burst {k}/{suite.args.bursts} of {jobs}"
    before = len(read_lines(batches_log))
    t0 = time.monotonic()
    status, summary, records, stderr = cli.load(main.url, "batch_echo", jobs, ["job {i}"])
    wall = time.monotonic() - t0
    figures = {}

    def counts():
        check(summary is not None, f"no --json summary (exit {status}):\n{stderr}")
        figures.update(completed=summary["completed"], lost=summary["lost"],
                       wall_s=summary.get("wall_s", wall), inferred=summary["batches"]["count"])
        check(summary["completed"] == jobs and summary["lost"] == 0 and status == 0,
              f"{summary['completed']}/{jobs} completed, {summary['failed']} failed, "
              f"{summary['cancelled']} cancelled, {summary['lost']} lost (exit {status})\n{stderr}")
        return f"{jobs}/{jobs} completed, 0 lost, {figures['wall_s']:.2f} s"

    def outputs():
        recs = cli.need_records(records)
        check(len(recs) == jobs, f"{len(recs)} records for {jobs} jobs")
        bad = job_failures(recs, lambda i, r: None if r["status"] == "completed"
                           and first_output(r) == f"echo: job {i}" else
                           f"{r['status']} {r.get('error')!r} outputs {r.get('outputs')!r}")
        check(not bad, f"{len(bad)} wrong:\n" + "\n".join(bad[:10]))
        return f"{jobs} outputs right"

    def run_time():
        recs = cli.need_records(records)
        # Each batch sleeps 0.01 s: no job of it ran in no time.
        zero = [r["index"] for r in recs if not (r.get("run_s") or 0) > 0]
        check(not zero, f"{len(zero)} jobs report a run time of 0 s (jobs {zero[:10]})")
        runs = sorted(r["run_s"] for r in recs)
        return f"run_s median {runs[len(runs) // 2]:.3f} s"

    def membership():
        recs = cli.need_records(records)
        check(len(recs) == jobs, f"{len(recs)} records for {jobs} jobs")
        loose = [r["index"] for r in recs if not r.get("batch")]
        check(not loose, f"{len(loose)} jobs belong to no inferred batch (jobs {loose[:10]})")
        groups = {}
        for r in recs:
            groups.setdefault(r["batch"]["id"], []).append(r["batch"])
        bad = []
        for bid, members in groups.items():
            sizes = {m["size"] for m in members}
            indices = sorted(m["index"] or 0 for m in members)
            if sizes != {len(members)} or indices != list(range(1, len(members) + 1)):
                bad.append(f"batch {bid}: {len(members)} members, sizes {sorted(sizes)}, indices {indices}")
        check(not bad, f"{len(bad)} inconsistent batches:\n" + "\n".join(bad[:10]))
        return f"{len(groups)} batches, members share id and size, indices 1..size"

    def batches():
        check(summary is not None, "no summary")
        server = wait_lines(batches_log, before + 1)[before:]
        n_server = len(server)
        sizes = sum(int(x) for x in server)
        figures["server"] = n_server
        check(sizes == jobs, f"the server ran {sizes} jobs in its batches, not {jobs}")
        inferred = summary["batches"]["count"]
        check(abs(inferred - n_server) <= 0.10 * n_server,
              f"Rivulet inferred {inferred} batches, the server ran {n_server} (more than 10 % apart)")
        return f"inferred {inferred}, server ran {n_server}"

    suite.case(name + ": all completed", counts)
    suite.case(name + ": every output checked", outputs)
    suite.case(name + ": every job in one consistent inferred batch", membership)
    if k == 1:
        suite.case(f"{label}: batch_echo jobs report their run time", run_time)
    suite.case(name + ": batches as the server ran them", batches)
    row["rivulet"].append(figures)


def official_client(suite, py, version, main, label, args, row):
    limit = args.client_limit

    def run():
        cmd, env = py.command(version, ["client_burst.py", main.url, str(args.jobs), str(limit)],
                              {"GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1",
                               "HF_HUB_DISABLE_TELEMETRY": "1", "PYTHONUNBUFFERED": "1"})
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=limit + 120)
        line = [l for l in p.stdout.splitlines() if l.startswith("{")]
        check(line, f"the official client did not run (exit {p.returncode}):\n{p.stderr[-3000:]}")
        res = json.loads(line[-1])
        row["client"] = res
        note = ""
        if res["timed_out"]:
            note = f"; stalled: {res['unfinished']} unfinished after {limit:.0f} s (Gradio issue #9968)"
        return (f"gradio_client {res['client']}: {res['completed']}/{res['submitted']} right, "
                f"{res['wrong']} wrong, failed {res['failed'] or 0}, {res['wall_s']} s{note}")

    suite.case(f"{label}: official Python client, same burst (reported, not judged)", run)


def endpoint_cases(suite, cli, main, label, host_dir, version):
    url = main.url

    def simple(endpoint, count, data, expect, want_status=0):
        status, summary, records, stderr = cli.load(url, endpoint, count, data, timeout=120)
        check(summary is not None, f"no summary (exit {status}):\n{stderr}\n{cli.last_command}")
        recs = cli.need_records(records)
        check(len(recs) == count, f"{len(recs)} records for {count} jobs")
        bad = job_failures(recs, expect)
        check(not bad, f"{cli.last_command}\n" + "\n".join(bad[:10]))
        if want_status is not None:
            check(status == want_status, f"exit status {status}, expected {want_status}\n{stderr}")
        return recs, summary

    def stream_text():
        def expect(i, r):
            want = f"p{i}" + "".join(f" tok{t}" for t in range(1, 31))
            if r["status"] != "completed" or first_output(r) != want:
                return f"{r['status']} {r.get('error')!r} {first_output(r)!r}"
            if (r.get("updates") or 0) < 10:
                return f"only {r.get('updates')} updates for 30 tokens"
        simple("stream_text", 5, ["p{i}", 30, 0.01], expect)
        return "5 jobs, full text after every diff"

    def stream_run_time():
        recs, _ = simple("stream_text", 3, ["r{i}", 30, 0.01], lambda i, r: None
                         if r["status"] == "completed" and (r.get("run_s") or 0) >= 0.3
                         else f"{r['status']}: run_s {r.get('run_s')} for 30 tokens 0.01 s apart")
        return "run_s " + ", ".join(f"{r['run_s']:.2f}" for r in recs) + " s"

    def fake_image():
        def expect(i, r):
            out = first_output(r)
            if r["status"] != "completed" or not isinstance(out, dict):
                return f"{r['status']} {r.get('error')!r} {out!r}"
            u = out.get("url") or ""
            if not u.endswith(".webp"):
                return f"image url {u!r} is not a .webp"
            with urllib.request.urlopen(u, timeout=30) as resp:
                head = resp.read(12)
            if not (head[:4] == b"RIFF" and head[8:12] == b"WEBP"):
                return f"{u} is not a WebP file: {head!r}"
        simple("fake_image", 2, [5], expect)
        return "FileData with a .webp url that serves WebP"

    def rapid():
        want = "".join(f"{n}\n" for n in range(3000))
        simple("rapid", 2, [3000], lambda i, r: None if r["status"] == "completed" and first_output(r) == want
               else f"{r['status']} {r.get('error')!r}, {len(first_output(r) or '')} chars of {len(want)}")
        return "3,000 updates each, final text complete"

    def predict():
        simple("predict", 20, ["n{i}"], lambda i, r: None if r["status"] == "completed"
               and first_output(r) == f"Hello, n{i}!" else f"{r['status']} {r.get('error')!r} {r.get('outputs')!r}")

    def fail():
        simple("fail", 3, ["x{i}"], lambda i, r: None if r["status"] == "failed"
               and f"refused: x{i}" in (r.get("error") or "") else f"{r['status']} {r.get('error')!r}",
               want_status=1)
        return "failed jobs carry gr.Error's message"

    def notify():
        def expect(i, r):
            if r["status"] != "completed" or first_output(r) != f"notified m{i}":
                return f"{r['status']} {r.get('error')!r} {r.get('outputs')!r}"
            if "logs" not in r:
                raise CaseSkipped("rivulet-cli load --output has no per-job logs yet")
            logs = r["logs"] or []
            levels = {(str(l.get("level")).lower(), l.get("message")) for l in logs}
            if ("info", f"info about m{i}") not in levels or ("warning", f"careful with m{i}") not in levels:
                return f"logs {logs!r}"
        simple("notify", 3, ["m{i}"], expect)
        return "gr.Info and gr.Warning in each job's logs"

    def no_queue():
        simple("no_queue", 5, ["q{i}"], lambda i, r: None if r["status"] == "completed"
               and first_output(r) == f"Q{i}" else f"{r['status']} {r.get('error')!r} {r.get('outputs')!r}")

    def chat():
        def expect(i, r):
            out = first_output(r)
            if r["status"] != "completed" or not isinstance(out, list) or len(out) != 2:
                return f"{r['status']} {r.get('error')!r} {out!r}"
            got = [(m.get("role"), m.get("content")) for m in out]
            want = [("user", f"hi {i}"), ("assistant", f"You said: hi {i}")]
            # Gradio 6 sends content as a list of typed parts.
            norm = [(role, c if isinstance(c, str) else
                     "".join(p.get("text", "") for p in c if isinstance(p, dict))) for role, c in got]
            if norm != want:
                return f"messages {out!r}"
        simple("chat", 3, ["hi {i}", []], expect)
        return "messages in, messages out"

    def gallery():
        def expect(i, r):
            out = first_output(r)
            if r["status"] != "completed" or not isinstance(out, list) or len(out) != 3:
                return f"{r['status']} {r.get('error')!r} {out!r}"
            for item in out:
                media = item.get("image") or item.get("video") or item if isinstance(item, dict) else None
                if not isinstance(media, dict) or not media.get("url"):
                    return f"gallery item without a file url: {item!r}"
        simple("gallery", 2, [3], expect)
        return "3 pictures with urls"

    def file_info():
        data = os.urandom(5000)
        path = os.path.join(cli.scratch, "sample.bin")   # a local file: rivulet-cli load uploads it
        with open(path, "wb") as f:
            f.write(data)
        fd = {"path": path, "meta": {"_type": "gradio.FileData"}}
        want = hashlib.sha256(data).hexdigest()
        simple("file_info", 2, [fd], lambda i, r: None if r["status"] == "completed"
               and (first_output(r) or "").endswith(f" 5000 {want}") else f"{r['status']} {r.get('error')!r} {r.get('outputs')!r}")
        return "a local file reaches the function intact (uploaded by rivulet-cli load)"

    def image_info():
        path = cli.upload(url, "sample.png", png_bytes(31, 17))
        # Already on the server: without "meta", a FileData is sent as it is, not uploaded.
        fd = {"path": path, "orig_name": "sample.png"}
        simple("image_info", 2, [fd], lambda i, r: None if r["status"] == "completed"
               and first_output(r) == "31x17 RGB" else f"{r['status']} {r.get('error')!r} {r.get('outputs')!r}")
        return "an uploaded PNG reaches the function as a 31x17 picture"

    def state():
        recs, _ = simple("counter", 6, ["s"], lambda i, r: None if r["status"] == "completed"
                         else f"{r['status']} {r.get('error')!r}")
        got = sorted(int(first_output(r).rsplit("#", 1)[1]) for r in recs)
        check(got == list(range(1, 7)), f"the session's State counted {got}, expected 1..6")
        return "one session's State counts 1..6"

    def cancel():
        steps_log = os.path.join(host_dir, "steps.log")
        jobs, stderr = cli.probe("cancel", url, "slow_steps", 8)
        check(len(jobs) == 3, f"{len(jobs)} job lines:\n{stderr}")
        role = {j["role"]: j for j in jobs}
        check(set(role) == {"running", "queued", "other"},
              f"never one job streaming while another waited:\n{jobs}\n{stderr}")
        want = {"running": "cancelled", "queued": "cancelled", "other": "completed"}
        got = {r: j["status"] for r, j in role.items()}
        check(got == want, f"statuses {got}, expected {want}\n{jobs}\n{stderr}")
        other = role["other"]["tag"]
        check(role["other"]["output"] == f"{other} 7", f"{other} output {role['other']['output']!r}")
        wait_lines(steps_log, 1)
        time.sleep(1.0)  # a generator that was not stopped would go on logging its steps
        lines = read_lines(steps_log)

        def steps(tag):
            return [l for l in lines if l.startswith(tag + " ")]

        run, queued = steps(role["running"]["tag"]), steps(role["queued"]["tag"])
        check(run and f"{role['running']['tag']} end" not in run,
              f"the running job was not stopped on the server: {run}")
        check(f"{other} end" in steps(other), f"the job left alone did not run to its end: {steps(other)}")
        if int(version.split(".")[0]) >= 6:
            check(not queued, f"the queued job ran on the server anyway: {queued}")
            fate = "the queued job never started"
        else:
            # Gradio 4 and 5 answer /cancel for a waiting job but leave it in their queue
            # (only 6.x removes it): it starts later, with nobody listening.
            fate = f"the queued job reads cancelled (Gradio {version} still started it later)"
        return f"running job stopped after {len(run) - 1} of 8 steps; {fate}; the third completed"

    for name, fn in (("stream_text", stream_text), ("stream_text run time", stream_run_time), ("fake_image (gr.Progress, WebP)", fake_image),
                     ("rapid generator", rapid), ("plain function", predict), ("gr.Error", fail),
                     ("gr.Info / gr.Warning", notify), ("queue=False endpoint", no_queue),
                     ("Chatbot (messages)", chat), ("Gallery", gallery), ("File input", file_info),
                     ("Image input", image_info), ("State", state),
                     ("cancel a running and a queued job", cancel)):
        suite.case(f"{label}: {name}", fn)


def window_case(suite, cli, main, label):
    """Rivulet's window (tests/gradio/riv-gradio-window, under its own Xvfb) against the
    webp_gallery endpoint: a WebP picture per step and a Gallery that grows item by item."""
    count, width = 4, 64 + 16 * 3   # the app's last picture is 64 + 16k wide, 48 high

    def run():
        seen = cli.window(main.url, "webp_gallery", [count, 0.4], width)
        check(seen["status"] == "completed", f"job {seen['status']}: {seen['error']!r}")
        pic = seen["picture"]
        check(pic["error"] is None, f"the picture says: {pic['error']}")
        check((pic["width"], pic["height"]) == (width, 48),
              f"the picture shows a {pic['width']}x{pic['height']} texture, not the last "
              f"WebP frame ({width}x48)")
        galleries = [c for c in seen["cards"] if c["type"] == "gallery"]
        check(len(galleries) == 1, f"cards {seen['cards']!r}: expected one gallery card")
        bad = [c for c in seen["cards"] if c["error"] is not None]
        check(not bad, "cards with an error: " + "; ".join(f"{c['type']}: {c['error']}" for c in bad))
        g = galleries[0]
        want = [[40 + 8 * k] * 2 for k in range(count)]
        check(g["items"] == count and g["textures"] == want,
              f"gallery shows {g['items']} items, textures {g['textures']!r}; expected {want!r}")
        counts = seen["gallery_counts"]
        check(counts == sorted(counts) and any(0 < c < count for c in counts),
              f"the gallery showed {counts!r} items over the run: it did not grow item by item")
        return (f"picture {pic['width']}x{pic['height']} ({pic['frames']} WebP frames decoded), "
                f"gallery {g['items']} items, counts seen {counts}")

    suite.case(f"{label}: window shows WebP frames and a growing Gallery", run)


def sub_cases(suite, cli, sub, label):
    def predict():
        status, summary, records, stderr = cli.load(sub.url, "predict", 3, ["n{i}"], timeout=60)
        check(summary is not None and summary["completed"] == 3, f"{summary} (exit {status})\n{stderr}")
        recs = cli.need_records(records)
        bad = job_failures(recs, lambda i, r: None if first_output(r) == f"sub: n{i}" else repr(r.get("outputs")))
        check(not bad, "\n".join(bad))
        return "mounted under /sub"

    def queue_full():
        status, summary, records, stderr = cli.load(sub.url, "slow_one", 12, ["x{i}"], timeout=120)
        check(summary is not None, f"no summary (exit {status})\n{stderr}")
        check(summary["lost"] == 0 and summary["completed"] >= 1 and summary["failed"] >= 1
              and summary["completed"] + summary["failed"] == 12,
              f"expected some completed and the rest failed, none lost: {summary}")
        check(status != 0, "exit status 0 although jobs failed")
        recs = cli.need_records(records)
        errors = {r.get("error") for r in recs if r["status"] == "failed"}
        check(len(errors) == 1, f"more than one error text: {errors}")
        text = errors.pop() or ""
        check(text.lower().count("queue is full") == 1,
              f"the message should say once that the queue is full: {text!r}")
        return f"{summary['completed']} completed, {summary['failed']} failed with {text!r}"

    suite.case(f"{label}: app mounted under a sub-path", predict)
    suite.case(f"{label}: concurrency_limit=1 + max_size: queue full", queue_full)


def auth_cases(suite, cli, auth, label):
    def no_login():
        status, summary, records, stderr = cli.load(auth.url, "predict", 1, ["a"], timeout=30)
        check(status != 0, "exit status 0 without a login")
        check(stderr.strip() and "Traceback" not in stderr, f"no clear error: {stderr!r}")
        return stderr.strip().splitlines()[-1]

    def login():
        if not cli.has_auth:
            raise CaseSkipped("rivulet-cli load has no --auth yet")
        status, summary, records, stderr = cli.load(auth.url, "predict", 3, ["a{i}"], timeout=30,
                                                    extra=["--auth", ":".join(AUTH)])
        check(status == 0 and summary and summary["completed"] == 3, f"{summary} (exit {status})\n{stderr}")
        if records is None:
            return "3/3 completed with --auth (outputs not checked: no --output yet)"
        bad = job_failures(records, lambda i, r: None if first_output(r) == f"Hello, a{i}!" else repr(r.get("outputs")))
        check(not bad, "\n".join(bad))
        return "3/3 with --auth, outputs right"

    def wrong():
        if not cli.has_auth:
            raise CaseSkipped("rivulet-cli load has no --auth yet")
        status, summary, records, stderr = cli.load(auth.url, "predict", 1, ["a"], timeout=30,
                                                    extra=["--auth", AUTH[0] + ":wrong"])
        check(status != 0, "exit status 0 with a wrong password")
        check(summary is None or summary.get("submitted") == 0,
              f"jobs were submitted with a wrong password: {summary}")
        text = stderr.lower()
        check(any(w in text for w in ("login", "credential", "password", "auth")),
              f"the error does not say the login failed: {stderr!r}")
        return stderr.strip().splitlines()[-1]

    suite.case(f"{label}: auth app without a login: clear error", no_login)
    suite.case(f"{label}: auth app with --auth USER:PASS", login)
    suite.case(f"{label}: auth app with a wrong password: clear error", wrong)


def lint_silent(suite, cli, label):
    """Issue 15: the protocol lint finds nothing in any session of real Gradio."""
    def run():
        runs = list(cli.lint_runs)
        check(runs, "no load run had a --json summary")
        missing = [f"{endpoint} x{count}" for _, endpoint, count, lint in runs if lint is None]
        check(not missing, f"no \"lint\" in the --json summary of {len(missing)} runs: {missing[:10]}")
        found = [(endpoint, count, f) for _, endpoint, count, lint in runs for f in lint]
        lines = [f"{endpoint} x{count}: {f.get('rule')} {f.get('event_id')} {f.get('message')} "
                 f"(t {f.get('t')})" for endpoint, count, f in found]
        check(not found, f"{len(found)} lint findings in {len(runs)} load runs:\n" + "\n".join(lines[:30]))
        return f"{len(runs)} load runs ({sum(c for _, _, c, _ in runs)} jobs), no finding"

    suite.case(f"{label}: lint finds nothing in any load run", run)


class Replay:
    """rivulet-cli serve --replay FILE --speed 0 --port 0, until stopped."""

    def __init__(self, cli, path):
        self.proc = subprocess.Popen([cli.path, "serve", "--replay", path, "--speed", "0", "--port", "0"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     start_new_session=True)
        line = self.proc.stdout.readline()   # "Rivulet replay of PATH (…) on http://127.0.0.1:PORT"
        self.url = line.rsplit(" on ", 1)[-1].strip() if " on http://" in line else None
        if self.url is None:
            self.stop()
            raise CaseFailed(f"serve --replay {path} did not start: {line!r}\n{self.proc.stderr.read()[-2000:]}")

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def record_cases(suite, cli, main, label):
    """Issue 15: a session of real Gradio recorded (load --record), linted as a file (lint
    --file), and replayed (serve --replay) to rivulet-cli load: the same jobs complete with the
    same outputs, and the lint stays silent on all three."""
    loads = [("stream_text", 6, ["p{i}", 20, 0.01]), ("batch_echo", 40, ["job {i}"])]

    for endpoint, count, data in loads:
        path = os.path.join(cli.scratch, f"record-{endpoint}-{uuid.uuid4().hex}.jsonl")
        recorded = {}

        def record(endpoint=endpoint, count=count, data=data, path=path, recorded=recorded):
            status, summary, records, stderr = cli.load(main.url, endpoint, count, data, timeout=120,
                                                        extra=["--record", path])
            check(summary is not None and status == 0 and summary["completed"] == count,
                  f"{summary} (exit {status})\n{stderr}\n{cli.last_command}")
            check(summary.get("lint") == [], f"lint findings: {json.dumps(summary.get('lint'))[:3000]}")
            check(os.path.getsize(path) > 0, f"{path} is empty")
            recorded["outputs"] = [first_output(r) for r in cli.need_records(records)]
            return f"{count} jobs in {os.path.getsize(path)} bytes, lint silent live"

        def lint_file(path=path, recorded=recorded):
            if not recorded:
                raise CaseSkipped("nothing was recorded")
            p = subprocess.run([cli.path, "lint", "--file", path, "--strict"], capture_output=True,
                               text=True, timeout=120)
            check(p.returncode == 0 and p.stdout.endswith("0 findings\n"),
                  f"rivulet-cli lint --file {path} --strict: exit {p.returncode}\n{p.stdout[-3000:]}{p.stderr}")
            return "0 findings"

        def replay(endpoint=endpoint, count=count, data=data, path=path, recorded=recorded):
            if not recorded:
                raise CaseSkipped("nothing was recorded")
            server = Replay(cli, path)
            try:
                status, summary, records, stderr = cli.load(server.url, endpoint, count, data, timeout=120)
            finally:
                server.stop()
            check(summary is not None and status == 0 and summary["completed"] == count and summary["lost"] == 0,
                  f"{summary} (exit {status})\n{stderr}\n{cli.last_command}")
            check(summary.get("lint") == [], f"lint findings: {json.dumps(summary.get('lint'))[:3000]}")
            outputs = [first_output(r) for r in cli.need_records(records)]
            check(outputs == recorded["outputs"],
                  f"replayed outputs differ from the recorded ones: {outputs[:5]} vs {recorded['outputs'][:5]}")
            return f"{count}/{count} completed with the recorded outputs, lint silent"

        name = f"{label}: {endpoint} x{count} recorded"
        suite.case(name + " (load --record)", record)
        suite.case(name + ", the file lints clean (lint --file)", lint_file)
        suite.case(name + ", replayed (serve --replay) to rivulet-cli load", replay)


def print_table(suite):
    """The side-by-side table of app/docs/real-gradio.md."""
    n = suite.args.jobs
    print(f"\nBursts of {n:,} jobs to batch_echo (max_batch_size 16), Rivulet vs the official Python client:")
    print("| Gradio | Rivulet: completed / lost per burst | Rivulet wall s (min / median / max) "
          "| batches inferred / run by the server (median burst) | gradio_client: completed / not | client wall s |")
    print("|---|---|---|---|---|---|")
    for row in suite.table:
        runs = [r for r in row["rivulet"] if "completed" in r]
        if runs:
            done = sorted({r["completed"] for r in runs})
            comp = (f"{len(runs)} × {done[0]:,} / {sum(r['lost'] for r in runs)}" if len(done) == 1
                    else "/".join(str(r["completed"]) for r in runs) + f" / {sum(r['lost'] for r in runs)}")
            walls = sorted(r["wall_s"] for r in runs)
            wall = f"{walls[0]:.1f} / {walls[len(walls) // 2]:.1f} / {walls[-1]:.1f}"
            pairs = sorted((r.get("server", 0), r.get("inferred", 0)) for r in runs)
            med = pairs[len(pairs) // 2]
            batches = f"{med[1]} / {med[0]}"
        else:
            comp = wall = batches = "—"
        c = row["client"]
        if c:
            client = f"{c['completed']:,} / {c['submitted'] - c['completed']:,}" + \
                (f" (stalled, {c['client']})" if c["timed_out"] else f" ({c['client']})")
            cwall = f"{c['wall_s']:.1f}" + (" (limit)" if c["timed_out"] else "")
        else:
            client = cwall = "—"
        print(f"| {row['version']} | {comp} | {wall} | {batches} | {client} | {cwall} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--probe", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--root")
    ap.add_argument("--python")
    ap.add_argument("--scratch", required=True)
    ap.add_argument("--versions", nargs="+", required=True)
    ap.add_argument("--bursts", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--client-limit", type=float, default=20)
    ap.add_argument("--start-limit", type=float, default=120)
    ap.add_argument("--only", help="run only the cases whose name contains this text")
    args = ap.parse_args()
    # Cases that fail for a reason already reported as a Rivulet bug.
    args.expected_failures = load_expected_failures(os.path.join(HERE, "expected-failures"))

    os.makedirs(args.scratch, exist_ok=True)
    py = Python(root=args.root, python=args.python)
    py.scratch = args.scratch
    cli = Cli(args.cli, args.probe, args.scratch)
    suite = Suite(args)
    t0 = time.monotonic()
    for version in args.versions:
        print(f"== Gradio {version}", flush=True)
        if not (args.only or "").startswith("deploy"):
            run_version(suite, py, cli, version)
        __import__("cases_deploy").run(suite, py, cli, version, args.only)   # nginx, TLS, faults
    print_table(suite)
    print(f"\nreal-Gradio suite took {time.monotonic() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
