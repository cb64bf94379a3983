"""Scenarios against real Gradio (issue 40, item 2): `rivulet-cli load --scenarios FILE` on
apps/scenario_app.py, on every version.

- Two endpoints by weight: 8 users send 50 jobs each (400), each job drawn "echo" (weight 3)
  or "reverse" (weight 1) from a random seed. The draws are independent, so the echo jobs are
  binomial (n 400, p 3/4, sd sqrt(400 · 3/4 · 1/4) ≈ 8.7): their count must be within 4 sd
  (34 jobs) of 300 (a correct run fails that about once in 16,000). Each endpoint's count in
  the summary agrees with the records, and every record's output is its endpoint's answer.
- A chat of three turns in one session: the "talk" scenario ("turns": 3) sends to a function
  whose memory is a gr.State, which Gradio keeps per session_hash (the client sends null for
  it); beside it an "echo" scenario of one job. Every talk job's reply names its turn and the
  message of the turn before it, its own user's, in the same session; every conversation has a
  session of its own.

Called from suite.py's run_version() with the suite module itself.
"""
import json
import os
import random
import subprocess

JOBS = 400
TOLERANCE = 34   # 4 sd of the binomial (400, 3/4)


def run(mod, suite, py, cli, version, workdir):
    label = f"gradio {version}"
    app = mod.Server(py, version, "scenarios", workdir, script="scenario_app.py")
    try:
        ready = app.wait_ready(suite.args.start_limit)

        def starts():
            mod.check(ready, f"the scenario app did not answer on {app.url}:\n{app.tail()}")
            return app.url
        if suite.case(f"{label}: scenarios: app starts", starts) not in ("OK", "FILTERED"):
            return
        suite.case(f"{label}: scenarios: two endpoints follow their weights (3:1, 400 jobs, "
                   f"within 4 sd)", weights_case, mod, cli, app)
        suite.case(f"{label}: scenarios: a chat of 3 turns keeps its gr.State in its session",
                   session_case, mod, cli, app)
    finally:
        app.stop()


def load(mod, cli, url, name, scenarios):
    """Runs load --scenarios with this file; returns (exit status, summary, records, stderr)."""
    path = os.path.join(cli.scratch, f"{name}.json")
    out = os.path.join(cli.scratch, f"{name}.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(scenarios, f)
    argv = [cli.path, "load", "--url", url, "--scenarios", path, "--json", "--output", out,
            "--timeout", "120"]
    cli.last_command = " ".join(argv)
    p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    mod.check(lines, f"no --json summary (exit {p.returncode}):\n{p.stderr[-3000:]}")
    with open(out, encoding="utf-8") as f:
        records = sorted((json.loads(l) for l in f if l.strip()), key=lambda r: r["index"])
    return p.returncode, json.loads(lines[-1]), records, p.stderr


def weights_case(mod, cli, app):
    seed = random.randrange(1 << 32)
    status, summary, records, err = load(mod, cli, app.url, "weights", {
        "users": 8, "iterations": JOBS // 8, "seed": seed,
        "thresholds": ["failed==0", "p95{endpoint:/reverse}<10s"],
        "scenarios": {
            "echo": {"endpoint": "/echo", "data": ["job {i}"], "weight": 3},
            "reverse": {"endpoint": "reverse", "data": ["job {i}"], "weight": 1}}})
    mod.check(status == 0, f"exit {status} (seed {seed}):\n{err[-2000:]}")
    mod.check(summary["completed"] == JOBS, f"{summary['completed']} of {JOBS} completed")
    scenarios = summary["scenarios"]
    n_echo = scenarios["echo"]["completed"]
    n_reverse = scenarios["reverse"]["completed"]
    mod.check(n_echo + n_reverse == JOBS, f"echo {n_echo} + reverse {n_reverse} != {JOBS}")
    mod.check(abs(n_echo - JOBS * 3 / 4) <= TOLERANCE,
              f"echo {n_echo} of {JOBS}: beyond 300 ± {TOLERANCE} (seed {seed})")
    mod.check(scenarios["echo"]["endpoint"] == "/echo" and
              scenarios["reverse"]["endpoint"] == "/reverse", f"endpoints: {scenarios}")
    mod.check(len(records) == JOBS, f"{len(records)} records")

    def expect(i, r):
        text = f"job {i}"
        want = {"echo": f"echo: {text}", "reverse": text[::-1]}.get(r.get("scenario"))
        if want is None:
            return f"scenario {r.get('scenario')!r}"
        if r.get("endpoint") != "/" + r["scenario"]:
            return f"scenario {r['scenario']} sent to {r.get('endpoint')}"
        return None if mod.first_output(r) == want else f"{mod.first_output(r)!r}, not {want!r}"
    bad = mod.job_failures(records, expect)
    mod.check(not bad, "\n".join(bad[:10]))
    by_record = sum(1 for r in records if r["scenario"] == "echo")
    mod.check(by_record == n_echo, f"records say echo {by_record}, the summary {n_echo}")
    return f"echo {n_echo}, reverse {n_reverse} (expected 300 ± {TOLERANCE}); seed {seed}"


def session_case(mod, cli, app):
    users, per_user = 4, 12
    status, summary, records, err = load(mod, cli, app.url, "session", {
        "users": users, "iterations": per_user, "seed": 7,
        "scenarios": {
            "talk": {"endpoint": "/remember", "data": ["user {u} job {i}"], "turns": 3},
            "echo": {"endpoint": "/echo", "data": ["job {i}"]}}})
    mod.check(status == 0, f"exit {status}:\n{err[-2000:]}")
    mod.check(len(records) == users * per_user, f"{len(records)} records")
    sessions = set()
    talk = full = 0
    for u in range(1, users + 1):
        turn, previous, session = 1, None, None
        for r in (r for r in records if r["user"] == u):   # in the order the user sent them
            mod.check(r["status"] == "completed", f"job {r['index']}: {r['status']} {r.get('error')}")
            if r["scenario"] == "echo":
                mod.check(turn == 1, f"job {r['index']}: an echo in the middle of a conversation")
                continue
            talk += 1
            mod.check(r.get("turn") == turn, f"job {r['index']}: turn {r.get('turn')}, not {turn}")
            if turn == 1:
                mod.check(r["session"] not in sessions,
                          f"job {r['index']}: a new conversation in an old session")
                session, previous = r["session"], None
                sessions.add(session)
            else:
                mod.check(r["session"] == session, f"job {r['index']}: turn {turn} in another session")
            message = f"user {u} job {r['index']}"
            before = f"before that, “{previous}”." if previous else "nothing before."
            want = f"Turn {turn} of this session. You said “{message}”; {before}"
            mod.check(mod.first_output(r) == want,
                      f"job {r['index']}: {mod.first_output(r)!r}, not {want!r}")
            previous = message
            full += turn == 3
            turn = turn % 3 + 1
    mod.check(talk == summary["scenarios"]["talk"]["completed"], "talk jobs: records and summary")
    mod.check(full > 0, "no conversation ran its three turns")
    return f"{talk} turns in {len(sessions)} sessions ({full} full conversations), each reply right"
