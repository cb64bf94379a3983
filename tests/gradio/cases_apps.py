"""Issue 23's real-Gradio cases: files from the CLI (--count and --users, each job its own
file through {i}), @gr.cache, api_visibility, gr.Success logs, gr.update, a matplotlib plot, a
five-output function, a multimodal ChatInterface, and on 6.25 the server's profiling timings
joined to the records. The app is apps/engine_apps.py, started here; suite.py calls
engine_cases() once per version."""
import json
import os
import subprocess
import time
import urllib.request

# suite.py runs as __main__: its own classes (CaseSkipped is caught by identity).
from __main__ import CaseFailed, CaseSkipped, Server, check, first_output, job_failures, png_bytes


def file_data(path):
    return {"path": path, "meta": {"_type": "gradio.FileData"}}


def engine_cases(suite, py, cli, version, workdir):
    label = f"gradio {version}"
    six = version.startswith("6.")
    # Its per-event timings on 6.x (Gradio 6.10+ serves them; older ones ignore the variable).
    app = Server(py, version, "engine", workdir, script="engine_apps.py",
                 env={"GRADIO_PROFILING": "1"} if six else None)
    try:
        ready = app.wait_ready(suite.args.start_limit)

        def starts():
            check(ready, f"the engine app did not answer on {app.url}:\n{app.tail()}")
            return app.url
        if suite.case(f"{label}: apps: engine app starts", starts) not in ("OK", "FILTERED"):
            return
        run_cases(suite, cli, app.url, label, version, six)
        streaming_cases(suite, cli, app.url, label, version)
        typed_cases(suite, cli, app.url, label, version, "gr.api")
        examples_cases(suite, cli, app.url, label)
        render_cases(suite, cli, app.url, label)
    finally:
        app.stop()
    if six:
        server_cases(suite, py, cli, version, workdir)


def examples_cases(suite, cli, url, label):
    """gr.Examples: inspect lists an endpoint's examples (labels, cached or not); load
    --examples gives job i example i mod N. An Interface's image examples: listed, taken in
    turn, and in the window shown as thumbnails that fill the form when clicked."""
    def listed():
        p = subprocess.run([cli.path, "inspect", "--url", url], capture_output=True, text=True,
                           timeout=120)
        check(p.returncode == 0, f"inspect exit {p.returncode}: {p.stderr}")
        out = p.stdout
        greet = out[out.index("/greet_times"):]
        check('1. two for Ada  ["Ada",2]' in greet and '3. one for Linus  ["Linus",1]' in greet,
              f"greet_times' examples not listed:\n{greet[:800]}")
        check("examples (load --examples)" in greet, f"greet_times not plain examples:\n{greet[:800]}")
        shout = out[out.index("/shout"):]
        check("examples, cached by the app (load --examples)" in shout and '2. ["ho"]' in shout,
              f"shout's cached examples not listed:\n{shout[:800]}")
        return "three labelled examples; two cached ones"

    def loaded():
        status, summary, records, stderr = cli.load(url, "greet_times", 6, None, extra=["--examples"])
        check(status == 0 and summary is not None and summary["completed"] == 6,
              f"{summary} (exit {status})\n{stderr}\n{cli.last_command}")
        outs = [r["outputs"][0] for r in cli.need_records(records)]
        expect = ["hi Ada hi Ada", "hi Grace hi Grace hi Grace", "hi Linus"] * 2
        check(outs == expect, f"outputs {outs}, expected {expect}")
        status, summary, records, stderr = cli.load(url, "count_up", 1, None, extra=["--examples"])
        check(status == 2 and "count_up has no examples" in stderr, f"exit {status}: {stderr}")
        return "6 jobs took the 3 examples twice, in turn"

    # The Interface's examples= with images: a red 64x48 and a blue 32x24 picture.
    pictures = ["red one: 64x48 mean 220,40,40", "blue one: 32x24 mean 40,60,220"]

    def image_listed():
        p = subprocess.run([cli.path, "inspect", "--url", url], capture_output=True, text=True,
                           timeout=120)
        check(p.returncode == 0, f"inspect exit {p.returncode}: {p.stderr}")
        out = p.stdout[p.stdout.index("/describe"):]
        check("examples (load --examples)" in out and '"orig_name":"red.png"' in out and
              '"orig_name":"blue.png"' in out, f"describe's image examples not listed:\n{out[:1200]}")
        status, summary, records, stderr = cli.load(url, "describe", 4, None, extra=["--examples"])
        check(status == 0 and summary is not None and summary["completed"] == 4,
              f"{summary} (exit {status})\n{stderr}\n{cli.last_command}")
        outs = [r["outputs"][0] for r in cli.need_records(records)]
        check(outs == pictures * 2, f"outputs {outs}, expected {pictures * 2}")
        return "two image examples listed; 4 jobs took each picture twice, as the app has it"

    def image_window():
        seen = cli.window(url, "describe", {"example": "blue.png · blue one"})
        check(seen["status"] == "completed", f"job {seen['status']}: {seen['error']!r}")
        shown = seen["examples"]
        check(shown["thumbnails"] == [[64, 48], [32, 24]],
              f"the example rows show {shown['thumbnails']}, not the red 64x48 and blue 32x24 pictures")
        check(shown["input"] == [32, 24], f"the image input shows {shown['input']} after the click")
        check(seen["text"] == pictures[1], f"the job's output reads {seen['text']!r}, not {pictures[1]!r}")
        return "thumbnails 64x48 and 32x24; the click filled the picture and the note; the job saw blue"

    suite.case(f"{label}: apps: examples listed by inspect, cached ones marked", listed)
    suite.case(f"{label}: apps: Interface image examples listed and taken in turn", image_listed)
    suite.case(f"{label}: apps: the window shows image examples and a click fills the form",
               image_window)
    suite.case(f"{label}: apps: load --examples gives job i example i mod N", loaded)


def render_cases(suite, cli, url, label):
    """gr.render: the endpoint known as one (inspect says so, though Gradio 4 and 5 hide it
    from the API), each job's record names the components it rendered, and the window
    shows them instead of an empty column."""
    want = ["textbox \u201cbox 1\u201d", "textbox \u201cbox 2\u201d", "textbox \u201cbox 3\u201d",
            "button \u201cdone\u201d"]

    def rendered():
        p = subprocess.run([cli.path, "inspect", "--url", url], capture_output=True, text=True,
                           timeout=120)
        check(p.returncode == 0, f"inspect exit {p.returncode}: {p.stderr}")
        at = p.stdout.find("/apply")
        check(at >= 0 and "renders components" in p.stdout[at:at + 300],
              f"/apply not listed as a render endpoint:\n{p.stdout[-1500:]}")
        status, summary, records, stderr = cli.load(url, "apply", 2, [3])
        check(status == 0 and summary is not None and summary["completed"] == 2,
              f"{summary} (exit {status})\n{stderr}\n{cli.last_command}")
        recs = cli.need_records(records)
        got = [r.get("rendered") for r in recs]
        check(all(g == want for g in got), f"rendered {got}, expected {want} each")
        return "inspect marks /apply; 2 jobs, each rendered 3 textboxes and a button"

    def window():
        seen = cli.window(url, "apply", [3])
        check(seen["status"] == "completed", f"job {seen['status']}: {seen['error']!r}")
        cards = seen["cards"]
        check(len(cards) == 1 and "4 components" in (cards[0]["text"] or "")
              and all(w in cards[0]["text"] for w in want),
              f"cards {cards!r}: expected one card listing the 4 rendered components")
        return cards[0]["text"].replace("\n", " ")

    suite.case(f"{label}: apps: gr.render endpoint known, records name what it rendered", rendered)
    suite.case(f"{label}: apps: the window lists what gr.render rendered", window)


def server_cases(suite, py, cli, version, workdir):
    """Gradio 6's gr.Server: an app of typed API endpoints only."""
    label = f"gradio {version}"
    app = Server(py, version, "server", workdir, script="engine_apps.py")
    try:
        ready = app.wait_ready(suite.args.start_limit)

        def starts():
            check(ready, f"the gr.Server app did not answer on {app.url}:\n{app.tail()}")
            return app.url
        if suite.case(f"{label}: apps: gr.Server app starts", starts) not in ("OK", "FILTERED"):
            return
        typed_cases(suite, cli, app.url, label, version, "gr.Server")
    finally:
        app.stop()


def typed_cases(suite, cli, url, label, version, kind):
    """Typed API endpoints (gr.api in Blocks on 5.x and 6.x, gr.Server on 6.x): --data as
    keyword arguments by the parameters' names from /info, defaults filled in, an unknown or a
    missing parameter refused by name (exit 2)."""
    if version.startswith("4."):
        return   # no gr.api before Gradio 5

    def keywords():
        status, summary, records, stderr = cli.load(url, "typed_add", 3, {"a": 40})
        check(status == 0 and summary is not None and summary["completed"] == 3,
              f"{summary} (exit {status})\n{stderr}\n{cli.last_command}")
        records = cli.need_records(records)
        outs = [r["outputs"] for r in records]
        check(all(o == [42] for o in outs), f"typed_add(a=40) with b's default 2 gave {outs}")
        status, summary, records, stderr = cli.load(
            url, "typed_greet", 2, {"tags": ["x", "y"], "name": "Ann {i}", "excited": True})
        check(status == 0 and summary is not None and summary["completed"] == 2,
              f"{summary} (exit {status})\n{stderr}\n{cli.last_command}")
        outs = sorted(r["outputs"][0] for r in cli.need_records(records))
        check(outs == ["Hello Ann 1!", "Hello Ann 2!"] and
              all(r["outputs"][1] == 2 for r in cli.need_records(records)), f"typed_greet gave {outs}")
        return "typed_add(a=40) = 42 thrice; typed_greet by name, in any order"

    def refused():
        said = []
        for data, expect in (({"a": 1, "c": 2}, 'unknown parameter "c" (the parameters are: a, b)'),
                             ({"b": 1}, 'missing parameter "a", which has no default')):
            status, summary, records, stderr = cli.load(url, "typed_add", 1, data)
            check(status == 2 and expect in stderr, f"exit {status}: {stderr}\n{cli.last_command}")
            said.append(stderr.strip().splitlines()[0])
        return "; ".join(said)

    suite.case(f"{label}: apps: {kind} typed endpoints take keyword --data", keywords)
    suite.case(f"{label}: apps: {kind} typed endpoints refuse unknown or missing parameters by name",
               refused)


def run_cases(suite, cli, url, label, version, six):
    scratch = os.path.join(cli.scratch, f"engine-{version}")
    os.makedirs(scratch, exist_ok=True)
    n = 6
    # Each job its own picture (i+1 pixels wide) and its own file.
    for i in range(1, n + 1):
        with open(os.path.join(scratch, f"img{i}.png"), "wb") as f:
            f.write(png_bytes(i + 1, 3))
        with open(os.path.join(scratch, f"doc{i}.txt"), "w") as f:
            f.write(f"line of doc {i}\nsecond line\n")

    def load(endpoint, count, data, extra=()):
        status, summary, records, stderr = cli.load(url, endpoint, count, data, extra=list(extra),
                                                    timeout=120)
        check(summary is not None, f"no summary (exit {status}):\n{stderr}\n{cli.last_command}")
        return status, summary, cli.need_records(records), stderr

    def files(endpoint, name, mode, expect):
        def run():
            extra = ["--users", "3", "--iterations", "2"] if mode == "users" else []
            count = n
            data = [file_data(os.path.join(scratch, name))]
            status, summary, records, stderr = load_mode(endpoint, count, data, extra)
            check(status == 0 and summary["completed"] == count,
                  f"{summary} (exit {status})\n{stderr}\n{cli.last_command}")
            bad = job_failures(records, expect)
            check(not bad, f"{cli.last_command}\n" + "\n".join(bad[:10]))
            check(all(isinstance(r.get("upload_s"), (int, float)) for r in records),
                  "a record without upload_s")
            check(summary["uploads"]["jobs"] == count, f"uploads {summary['uploads']}")
            return f"{count} jobs, each its own file, uploads mean {summary['uploads']['mean_s']:.3f} s"
        return run

    def load_mode(endpoint, count, data, extra):
        if "--users" in extra:
            import json as _json
            out = os.path.join(cli.scratch, f"users-{time.monotonic_ns()}.jsonl")
            argv = [cli.path, "load", "--url", url, "--endpoint", endpoint, "--json", "--timeout", "120",
                    "--data", _json.dumps(data), "--output", out] + list(extra)
            cli.last_command = " ".join(argv)
            p = subprocess.run(argv, capture_output=True, text=True, timeout=200)
            summary = next((_json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")), None)
            records = [_json.loads(l) for l in open(out)] if os.path.exists(out) else []
            return p.returncode, summary, records, p.stderr
        return load(endpoint, count, data, extra)

    def image_expect(i, r):
        want = f"{i + 1}x3 mean"
        if r["status"] != "completed" or not str(first_output(r)).startswith(want):
            return f"{r['status']} {r.get('error')!r} {first_output(r)!r}, wanted {want}…"

    def file_expect(i, r):
        want = f"doc{i}.txt {len(f'line of doc {i}') + 13} line of doc {i}"
        if r["status"] != "completed" or first_output(r) != want:
            return f"{r['status']} {r.get('error')!r} {first_output(r)!r}, wanted {want!r}"

    suite.case(f"{label}: apps: image input, each job its own file (--count, {{i}})",
               files("image_info", "img{i}.png", "count", image_expect))
    suite.case(f"{label}: apps: image input, each job its own file (--users, {{i}})",
               files("image_info", "img{i}.png", "users", image_expect))
    suite.case(f"{label}: apps: file input, each job its own file (--count, {{i}})",
               files("file_info", "doc{i}.txt", "count", file_expect))
    suite.case(f"{label}: apps: file input, each job its own file (--users, {{i}})",
               files("file_info", "doc{i}.txt", "users", file_expect))

    def missing_file():
        status, summary, records, stderr = cli.load(url, "file_info", 8,
                                                    [file_data(os.path.join(scratch, "doc{i}.txt"))])
        check(status == 2 and "job 7's file" in stderr and "doc7.txt" in stderr,
              f"exit {status}\n{stderr}")
        return "exit 2 before any job: " + stderr.splitlines()[0]
    suite.case(f"{label}: apps: a {{i}} file path that runs out stops the run (exit 2)", missing_file)

    def cached():
        if not hasattr_version(version, 6, 12):
            raise CaseSkipped(f"@gr.cache is Gradio 6.12+, this is {version}")
        # One after the other: the first computes, the next ones find it cached.
        status, summary, records, stderr = load_mode("cached_square", 4, [7],
                                                     ["--users", "1", "--iterations", "4"])
        check(status == 0 and all(first_output(r) == 49 for r in records),
              f"{[first_output(r) for r in records]} (exit {status})\n{stderr}")
        hits = [r for r in records if r.get("cache")]
        check(summary["cached"] == len(hits) and len(hits) >= 1,
              f"summary cached {summary['cached']}, records with cache {len(hits)}")
        check(all(h["cache"]["used"] in ("full", "partial") for h in hits), f"{hits[0]['cache']}")
        return f"cached: {summary['cached']} of 4 jobs"
    suite.case(f"{label}: apps: @gr.cache answers counted (cached: N jobs)", cached)

    def visibility():
        if not six:
            raise CaseSkipped(f"api_visibility is Gradio 6, this is {version}")
        p = subprocess.run([cli.path, "inspect", "--url", url], capture_output=True, text=True,
                           timeout=60)
        check(p.returncode == 0, p.stderr)
        check("/hidden" not in p.stdout and "private endpoint(s) not shown" in p.stdout,
              p.stdout[-2000:])
        check("undocumented" in p.stdout.split("/undocumented", 1)[1].splitlines()[0], p.stdout[-2000:])
        status, summary, records, stderr = cli.load(url, "hidden", 1, ["x"])
        check(status == 2 and "private" in stderr, f"exit {status}\n{stderr}")
        return "inspect hides /hidden, marks /undocumented; load refuses /hidden"
    suite.case(f"{label}: apps: api_visibility private not offered, undocumented marked", visibility)

    def simple(endpoint, data, expect, what):
        def run():
            status, summary, records, stderr = load(endpoint, 3, data)
            bad = job_failures(records, expect)
            check(status == 0 and not bad, f"exit {status}\n" + "\n".join(bad[:5]) + f"\n{stderr}")
            return what
        return run

    def log_expect(i, r):
        levels = sorted(l["level"] for l in r.get("logs") or [])
        # The app says whether its Gradio has gr.Success (5 and later).
        want = ["info", "success"] if str(first_output(r)).endswith(" with success") else ["info"]
        if r["status"] != "completed" or levels != want:
            return f"{r['status']} levels {levels}, wanted {want}"
    suite.case(f"{label}: apps: gr.Success and gr.Info logs in the records",
               simple("success_log", ["s{i}"], log_expect, "levels as sent"))

    def update_expect(i, r):
        out = first_output(r)
        if r["status"] != "completed" or not (isinstance(out, dict) and out.get("value") == f"updated u{i}"
                                              and out.get("visible") is True):
            return f"{r['status']} {out!r}"
    suite.case(f"{label}: apps: gr.update kept raw in the records",
               simple("update_value", ["u{i}"], update_expect, "raw update objects"))

    def plot_expect(i, r):
        out = first_output(r)
        if r["status"] != "completed" or not isinstance(out, dict) or "matplotlib" not in str(out.get("type")) \
                or not str(out.get("plot", "")).startswith("data:image/"):
            return f"{r['status']} {str(out)[:200]!r}"
    suite.case(f"{label}: apps: matplotlib gr.Plot arrives as a data URL",
               simple("plot", [5], plot_expect, "matplotlib data URLs"))

    def five_expect(i, r):
        outs = r.get("outputs") or []
        if r["status"] != "completed" or len(outs) != 5:
            return f"{r['status']} {len(outs)} outputs"
        if outs[1] != "text 7" or not isinstance(outs[0], dict) or outs[2].get("seed") != 7 \
                or "odd" not in str(outs[3]) or "Seed 7" not in str(outs[4]):
            return f"outputs {str(outs)[:300]}"
    suite.case(f"{label}: apps: five outputs (image, text, JSON, label, markdown)",
               simple("five", [7], five_expect, "all five outputs"))

    def chat_case():
        path = os.path.join(scratch, "doc1.txt")
        status, summary, records, stderr = load("chat", 2, [{"text": "hi {i}", "files": [file_data(path)]}])
        check(status == 0 and summary["uploads"]["jobs"] == 2,
              f"exit {status} {summary.get('uploads')}\n{stderr}\n{cli.last_command}")
        for r in records:
            out = str(first_output(r))
            check("hi " in out and "1 file(s)" in out and "doc1.txt" in out, f"{out[:300]}")
        return "multimodal message with its file uploaded"
    suite.case(f"{label}: apps: ChatInterface(multimodal=True) with a file", chat_case)

    def transports():
        if not hasattr_version(version, 6, 13):
            raise CaseSkipped(f"/call/v2 is Gradio 6.13+, this is {version}")
        seen = {}
        for transport in ("queue", "call"):
            for endpoint, data in (("count_up", [6]), ("five", [7]), ("file_info", [file_data(
                    os.path.join(scratch, "doc{i}.txt"))])):
                status, summary, records, stderr = load(endpoint, 4, data,
                                                        ["--transport", transport])
                check(status == 0 and summary["completed"] == 4,
                      f"{transport} {endpoint}: {summary} (exit {status})\n{stderr}\n{cli.last_command}")
                seen[(transport, endpoint)] = [r["outputs"] for r in records]
                if endpoint == "count_up":
                    check(all(r["updates"] >= 2 for r in records),
                          f"{transport}: updates {[r['updates'] for r in records]}")
        for endpoint in ("count_up", "five", "file_info"):
            q, c = seen[("queue", endpoint)], seen[("call", endpoint)]
            if endpoint == "five":   # the picture's cache path differs per job
                q, c = [o[1:] for o in q], [o[1:] for o in c]
            check(q == c, f"{endpoint}: queue {str(q)[:300]} vs call {str(c)[:300]}")
        return "count_up, five and file_info: the same outputs through queue/join and /call/v2"
    suite.case(f"{label}: apps: --transport call gives what --transport queue gives", transports)

    def profiling():
        if not hasattr_version(version, 6, 10):
            raise CaseSkipped(f"profiling is Gradio 6.10+, this is {version}")
        status, summary, records, stderr = load("image_info", 6,
                                                [file_data(os.path.join(scratch, "img{i}.png"))])
        if not (status == 0 and summary.get("server") and summary["server"]["jobs"] == 6):
            try:
                seen = urllib.request.urlopen(url + "/gradio_api/profiling/traces?last_n=2",
                                              timeout=10).read()[:1500]
            except OSError as e:
                seen = e
            raise CaseFailed(f"server {summary.get('server')} (exit {status})\n{stderr}\n"
                             f"the server's last traces: {seen}\n"
                             f"event ids: {[r.get('event_id') for r in records]}")
        bad = []
        for r in records:
            s = r.get("server")
            if not s or not (0 <= s["total_s"] <= r["latency_s"]) or \
                    abs(s["client_network_s"] - (r["latency_s"] - s["total_s"])) > 1e-6:
                bad.append(f"job {r['index']}: latency {r['latency_s']} server {s}")
        check(not bad, "\n".join(bad))
        return (f"server p50 {summary['server']['server_p50_s']:.3f} s, network + client p50 "
                f"{summary['server']['client_network_p50_s']:.3f} s")
    suite.case(f"{label}: apps: the server's profiling timings joined (server ≤ latency, every job)",
               profiling)


def streaming_cases(suite, cli, url, label, version):
    """The streaming figures against a generator whose schedule is known (engine_apps.py's
    paced: 12 tokens, the first 0.3 s after the start, a fixed gap apart, 1.2 s more after
    the 6th): the first update after start, the gaps, exactly one stall a job where the
    pause is, and --until-break stopping on a time-to-first-update threshold.

    Gradio 4.44 and 5.49 hand a session's messages to its stream on a 50 ms poll (routes.py,
    sse_stream: check_rate = 0.05, asyncio.sleep when the queue is empty); 6.x awaits the
    queue. What a client sees of a stream there is quantized to that poll: the schedule
    uses 0.1 s gaps (two polls), and each message can arrive up to one poll late."""
    polled = not hasattr_version(version, 6, 0)
    gap_s = 0.1 if polled else 0.04
    late_s = 0.05 if polled else 0.0

    def timings():
        status, summary, records, stderr = cli.load(url, "paced", 4, [12, 0.3, gap_s, 6, 1.2])
        check(status == 0 and summary and summary["completed"] == 4,
              f"{summary} (exit {status})\n{stderr}\n{cli.last_command}")
        s = summary["streaming"]
        first = s["first_after_start_s"]["p50"]
        gap = s["gap_s"]["p50"]
        check(abs(first - 0.3) <= 0.02 + late_s,
              f"first update after start p50 {first:.4f} s, not 0.3 ± {0.02 + late_s:.2f}")
        check(abs(gap - gap_s) <= 0.01, f"gap p50 {gap:.4f} s, not {gap_s} ± 0.01")
        check(s["stalls"] == 4 and s["stalled_jobs"] == 4, f"stalls {s['stalls']} in {s['stalled_jobs']} jobs")
        check(s["gaps"] == 4 * 11, f"{s['gaps']} gaps, not 44")
        if records is not None:
            bad = [r for r in records if r.get("stalls") != 1 or r.get("gaps") != 11]
            check(not bad, f"records: {[(r.get('stalls'), r.get('gaps')) for r in bad]}")
        return (f"first after start p50 {first * 1000:.1f} ms, gap p50 {gap * 1000:.1f} ms, "
                f"max {s['gap_s']['max']:.3f} s, {s['stalls']} stalls")
    suite.case(f"{label}: streaming: a known schedule measured (first update, gaps, one stall a job)",
               timings)

    def until_break():
        argv = [cli.path, "load", "--url", url, "--endpoint", "paced_one", "--data",
                json.dumps([2, 0.1, 0.05, 0, 0]), "--stages", "20s:12", "--until-break",
                "--threshold", "ttfu_p95<600ms", "--json", "--timeout", "120"]
        cli.last_command = " ".join(argv)
        p = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        status, stderr = p.returncode, p.stderr
        lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
        summary = json.loads(lines[-1]) if lines else None
        bp = (summary or {}).get("breakpoint") or {}
        reason = bp.get("reason") or ""
        check(reason.startswith("time to first update p95 went over 600.0ms"),
              f"breakpoint {bp} (exit {status})\n{stderr}\n{cli.last_command}")
        check(bp.get("users", 99) < 12, f"found at {bp.get('users')} users")
        return f"at {bp.get('users')} users: {reason}"
    suite.case(f"{label}: streaming: --until-break stops on time to first update", until_break)


def hasattr_version(version, major, minor):
    parts = [int(p) for p in version.split(".")[:2]]
    return parts >= [major, minor]
