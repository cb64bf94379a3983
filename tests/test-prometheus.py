#!/usr/bin/env python3
"""rivulet-cli load --metrics as Prometheus sees it (TAP).

The built rivulet-cli (RIVULET_CLI) serves the demo server and runs 1,000 virtual users
against it with --metrics on a free loopback port. While they run, this test scrapes
/metrics itself (every counter consistent and never going down, the histogram counting
what completed, 1,000 users seen), asks once for OpenMetrics, and has promtool check the
text; Debian's real
Prometheus, started here on loopback with a scrape config pointing at Rivulet, scrapes the
run, and its HTTP API must give back the counters the run's own summary printed.
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from riv_proc import stop

CLI = os.environ.get("RIVULET_CLI")
USERS = 1000
results = []


def report(ok, name, detail=""):
    results.append((ok, name, detail))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=10, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.read().decode("utf-8"), r.headers.get("Content-Type", "")


def parse(text):
    """{(name, labels): value} of the samples of a text-format page."""
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$', line)
        if not m:
            raise AssertionError(f"not a sample line: {line!r}")
        samples[(m.group(1), m.group(2) or "")] = float(m.group(3))
    return samples


def main():
    if not CLI:
        print("1..0 # SKIP RIVULET_CLI is not set")
        return 0
    scratch = tempfile.mkdtemp(prefix="riv-test-prometheus-")
    serve = load = prom = None
    try:
        serve = subprocess.Popen([CLI, "serve", "--port", "0"], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True, start_new_session=True)
        line = serve.stdout.readline()
        url = re.search(r"http://[0-9.:]+", line).group(0)

        metrics_port = free_port()
        target = f"127.0.0.1:{metrics_port}"
        prometheus = shutil.which("prometheus")
        prom_url = None
        if prometheus:
            prom_port = free_port()
            config = os.path.join(scratch, "prometheus.yml")
            with open(config, "w") as f:
                f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                        "scrape_configs:\n  - job_name: rivulet\n"
                        f"    static_configs:\n      - targets: ['{target}']\n")
            prom = subprocess.Popen([prometheus, f"--config.file={config}",
                                     f"--storage.tsdb.path={os.path.join(scratch, 'data')}",
                                     f"--web.listen-address=127.0.0.1:{prom_port}"],
                                    stdout=open(os.path.join(scratch, "prometheus.log"), "w"),
                                    stderr=subprocess.STDOUT, start_new_session=True)
            prom_url = f"http://127.0.0.1:{prom_port}"
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    get(prom_url + "/-/ready", timeout=2)
                    break
                except OSError:
                    time.sleep(0.3)
            else:
                raise AssertionError("prometheus did not become ready:\n" +
                                     open(os.path.join(scratch, "prometheus.log")).read()[-2000:])

        # Up to 1,000 users in 5 s, held 12 s, then 4 s with none (the last scrapes see the end).
        out_file = open(os.path.join(scratch, "load.out"), "w+")
        err_file = open(os.path.join(scratch, "load.err"), "w+")
        load = subprocess.Popen([CLI, "load", "--url", url, "--endpoint", "stream_text",
                                 "--data", '["u{u}", 5, 0.05]', "--stages",
                                 f"5s:{USERS},12s:{USERS},1s:0,4s:0", "--metrics", target,
                                 "--json", "--timeout", "120"],
                                # Files, not pipes: nothing reads while the run goes, and a
                                # summary longer than a pipe holds would block the run's end.
                                stdout=out_file, stderr=err_file, text=True,
                                start_new_session=True)
        scrapes, pages, errors = [], [], []
        openmetrics = None
        while load.poll() is None:
            if openmetrics is None and len(scrapes) == 4:
                try:
                    openmetrics = get(f"http://{target}/metrics", timeout=5, headers={
                        "Accept": "application/openmetrics-text;version=1.0.0"})
                except OSError as e:
                    errors.append(str(e))
            try:
                text, ctype = get(f"http://{target}/metrics", timeout=5)
                scrapes.append(parse(text))
                pages.append(text)
            except OSError as e:
                errors.append(str(e))
            time.sleep(0.5)
        load.wait()
        out_file.seek(0)
        err_file.seek(0)
        out, err = out_file.read(), err_file.read()
        out_file.close()
        err_file.close()
        summary = json.loads([l for l in out.splitlines() if l.startswith("{")][-1])

        # 1: the scrapes while the run went.
        good = [s for s in scrapes]
        problems = []
        if len(good) < 10:
            problems.append(f"only {len(good)} scrapes answered ({errors[:3]})")
        peak = max((s[("rivulet_users", "")] for s in good), default=0)
        if peak < USERS:
            problems.append(f"rivulet_users peaked at {peak}, not {USERS}")
        counters = [k for k in (good[0] if good else {}) if k[0].endswith("_total")
                    or k[0].endswith("_count") or k[0].endswith("_bucket")]
        for a, b in zip(good, good[1:]):
            down = [k for k in counters if b[k] < a[k]]
            if down:
                problems.append(f"counters went down between scrapes: {down[:3]}")
                break
        for s in good:
            finished = sum(s[("rivulet_jobs_finished_total", f'{{outcome="{o}"}}')]
                           for o in ("completed", "failed", "cancelled", "lost"))
            if finished > s[("rivulet_jobs_submitted_total", "")]:
                problems.append(f"{finished} jobs finished of {s[('rivulet_jobs_submitted_total', '')]} submitted")
                break
            if s[("rivulet_job_latency_seconds_count", "")] != s[("rivulet_jobs_finished_total", '{outcome="completed"}')]:
                problems.append("the latency histogram does not count the completed jobs")
                break
            if s[("rivulet_job_latency_seconds_bucket", '{le="+Inf"}')] != s[("rivulet_job_latency_seconds_count", "")]:
                problems.append("the +Inf bucket is not the count")
                break
            if s[("rivulet_job_first_update_seconds_count", "")] != s[("rivulet_jobs_finished_total", '{outcome="completed"}')]:
                problems.append("the first-update histogram does not count the completed jobs")
                break
        last = good[-1] if good else {}
        if last and last[("rivulet_jobs_submitted_total", "")] != summary["submitted"]:
            problems.append(f"last scrape {last[('rivulet_jobs_submitted_total', '')]} submitted, "
                            f"the summary {summary['submitted']}")
        if last and last[("rivulet_update_gap_seconds_count", "")] != summary["streaming"]["gaps"]:
            problems.append(f"last scrape {last[('rivulet_update_gap_seconds_count', '')]} gaps, "
                            f"the summary {summary['streaming']['gaps']}")
        if last and last[("rivulet_stream_stalls_total", "")] != summary["streaming"]["stalls"]:
            problems.append("the stalls counter is not the summary's")
        if summary["streaming"]["gaps"] != summary["completed"] * 4:
            problems.append(f"{summary['streaming']['gaps']} gaps for {summary['completed']} jobs of 5 tokens")
        if summary["completed"] != summary["submitted"] or summary["users"] < USERS:
            problems.append(f"the run itself: {summary}")
        report(not problems and load.returncode == 0,
               f"{len(good)} scrapes during {USERS} users stay consistent",
               "; ".join(problems) or f"peak users {peak:.0f}, {summary['submitted']} jobs" +
               ("" if load.returncode == 0 else f"; exit {load.returncode}: {err[-2000:]}"))

        # OpenMetrics when asked for (what Prometheus asks for first).
        om_problems = []
        if openmetrics is None:
            om_problems.append("no OpenMetrics scrape answered")
        else:
            text, ctype = openmetrics
            if not ctype.startswith("application/openmetrics-text"):
                om_problems.append(f"Content-Type {ctype!r}")
            if not text.endswith("\n# EOF\n"):
                om_problems.append("the page does not end with # EOF")
            if "# TYPE rivulet_jobs_submitted counter\n" not in text:
                om_problems.append("a counter's family is not named without _total")
            if "\nrivulet_jobs_submitted_total " not in text:
                om_problems.append("a counter's sample has no _total")
        report(not om_problems, "OpenMetrics when the scraper asks for it", "; ".join(om_problems))

        # 2: promtool on the busiest page.
        promtool = shutil.which("promtool")
        if not promtool:
            report(None, "promtool check metrics", "no promtool (Debian's prometheus package has it)")
        else:
            busiest = max(range(len(pages)), key=lambda i: scrapes[i][("rivulet_users", "")]) if pages else None
            p = subprocess.run([promtool, "check", "metrics"], input=pages[busiest] if pages else "",
                               capture_output=True, text=True)
            report(p.returncode == 0 and pages, "promtool check metrics", (p.stdout + p.stderr).strip())

        # 3: Prometheus' own view of the run, over its HTTP API.
        if not prom_url:
            report(None, "Prometheus scraped the run", "no prometheus on this machine (.ci/deps installs it)")
        else:
            def query(q):
                text, _ = get(prom_url + "/api/v1/query?" + urllib.parse.urlencode({"query": q}))
                res = json.loads(text)["data"]["result"]
                return float(res[0]["value"][1]) if res else None
            want = {"max_over_time(rivulet_jobs_submitted_total[10m])": summary["submitted"],
                    'max_over_time(rivulet_jobs_finished_total{outcome="completed"}[10m])': summary["completed"],
                    'max_over_time(rivulet_jobs_finished_total{outcome="lost"}[10m])': summary["lost"],
                    "max_over_time(rivulet_job_latency_seconds_count[10m])": summary["completed"],
                    "max_over_time(rivulet_job_first_update_seconds_count[10m])": summary["completed"],
                    "max_over_time(rivulet_update_gap_seconds_count[10m])": summary["streaming"]["gaps"],
                    "max_over_time(rivulet_stream_stalls_total[10m])": summary["streaming"]["stalls"]}
            got = {q: query(q) for q in want}
            users = query("max_over_time(rivulet_users[10m])")
            bad = [f"{q} = {got[q]}, the summary says {w}" for q, w in want.items() if got[q] != w]
            if users is None or users < USERS:
                bad.append(f"max_over_time(rivulet_users[10m]) = {users}")
            report(not bad, "Prometheus scraped the run: its counters are the summary's",
                   "; ".join(bad) or f"{summary['submitted']} submitted, {summary['completed']} completed, peak users {users:.0f}")
    finally:
        stop(load)
        stop(prom)
        stop(serve)
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"1..{len(results)}")
    failed = 0
    for i, (ok, name, detail) in enumerate(results, 1):
        if ok is None:
            print(f"ok {i} - {name} # SKIP {detail}")
        elif ok:
            print(f"ok {i} - {name}")
            if detail:
                print(f"# {detail}")
        else:
            failed += 1
            print(f"not ok {i} - {name}")
            for l in detail.splitlines():
                print(f"#   {l}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
