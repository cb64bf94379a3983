"""Hugging Face Spaces by name against real Gradio (issue 40): `rivulet-cli --url OWNER/SPACE`.

The suite starts a fake Hub in its own process, on 127.0.0.1 (HF_ENDPOINT points there), that
answers GET /api/spaces/{id} and /api/spaces/{id}/runtime with the Hub's reply shapes and its
errors (X-Error-Code, X-Error-Message); every Space's host is the version's real Gradio app
(the "main" app of apps/rivulet_apps.py), on loopback. Nothing leaves the machine. Its Spaces:
rivulet/building (BUILDING once, then RUNNING), rivulet/private (401 without the token), and
rivulet/zerogpu (running; its jobs fail with ZeroGPU's quota texts through the app's "fail"
endpoint, as a ZeroGPU Space's jobs do).

Called from suite.py's run_version() with the suite module itself, for its check.
"""
import contextlib
import http.server
import json
import os
import subprocess
import threading

TOKEN = "hf_rivuletFakeHubT0ken"


class FakeHub:
    """The Hub's two Space routes, served from a thread of this process."""

    def __init__(self, host):
        self.host = host
        self.lock = threading.Lock()
        self.requests = []       # (path, the Authorization header or None)
        self.building_polls = 0
        hub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                hub.answer(self)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def answer(self, h):
        path = h.path.split("?")[0]
        auth = h.headers.get("Authorization")
        with self.lock:
            self.requests.append((path, auth))
        runtime = path.endswith("/runtime")
        space = path[len("/api/spaces/"):-len("/runtime") if runtime else None]
        if not path.startswith("/api/spaces/") or space not in (
                "rivulet/building", "rivulet/private", "rivulet/zerogpu"):
            return self.error(h, 404, "RepoNotFound", "Repository not found")
        if space == "rivulet/private" and auth != f"Bearer {TOKEN}":
            return self.error(h, 401, "RepoNotFound", "Repository not found")
        stage = "RUNNING"
        if space == "rivulet/building":
            with self.lock:
                stage = "RUNNING" if runtime and self.building_polls > 0 else "BUILDING"
                self.building_polls += runtime
        runtime_body = {"stage": stage, "hardware": {"current": "cpu-basic", "requested": "cpu-basic"},
                        "storage": None, "gcTimeout": 172800, "replicas": {"current": 1, "requested": 1},
                        "devMode": False, "domains": [{"domain": space.replace("/", "-") + ".hf.space",
                                                       "stage": "READY"}]}
        body = runtime_body if runtime else {
            "_id": "6751c0ffee0000000000abcd", "id": space, "author": "rivulet",
            "sha": "0" * 40, "lastModified": "2026-12-01T00:00:00.000Z",
            "private": space == "rivulet/private", "gated": False, "disabled": False,
            "host": self.host, "subdomain": space.replace("/", "-"), "likes": 0, "sdk": "gradio",
            "tags": ["gradio"], "runtime": runtime_body, "siblings": [{"rfilename": "app.py"}]}
        self.reply(h, 200, body)

    def error(self, h, status, code, message):
        self.reply(h, status, {"error": message}, {"X-Error-Code": code, "X-Error-Message": message})

    @staticmethod
    def reply(h, status, body, headers=None):
        data = json.dumps(body).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)


@contextlib.contextmanager
def hub_environment(hub, home):
    """HF_ENDPOINT at the fake Hub, HF_HOME a folder without a token file, no HF_TOKEN."""
    saved = {k: os.environ.get(k) for k in ("HF_ENDPOINT", "HF_HOME", "HF_TOKEN", "HF_TOKEN_PATH",
                                            "HUGGING_FACE_HUB_TOKEN")}
    os.environ.update(HF_ENDPOINT=hub.url, HF_HOME=home)
    for k in ("HF_TOKEN", "HF_TOKEN_PATH", "HUGGING_FACE_HUB_TOKEN"):
        os.environ.pop(k, None)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run(mod, suite, cli, main, label):
    check = mod.check
    home = os.path.join(cli.scratch, "hf-home")
    os.makedirs(home, exist_ok=True)

    def building():
        p = subprocess.run([cli.path, "inspect", "--url", "rivulet/building"], capture_output=True,
                           text=True, timeout=120)
        check(p.returncode == 0, f"inspect exit {p.returncode}:\n{p.stderr}")
        check("Space rivulet/building is building (stage BUILDING)" in p.stderr,
              f"the wait was not said:\n{p.stderr}")
        check(f"Space rivulet/building is at {main.url}" in p.stderr, f"no app URL said:\n{p.stderr}")
        check("batch_echo" in p.stdout and "predict" in p.stdout,
              f"the real app's endpoints are not listed:\n{p.stdout}")
        check(hub.building_polls == 2, f"{hub.building_polls} runtime polls, not 2")
        return "inspect waited for the build, then listed the app"

    def private():
        p = subprocess.run([cli.path, "inspect", "--url", "rivulet/private"], capture_output=True,
                           text=True, timeout=120)
        check(p.returncode == 1 and "HTTP 401, RepoNotFound: Repository not found" in p.stderr,
              f"without a token: exit {p.returncode}:\n{p.stderr}")
        status, summary, _, stderr = cli.load("rivulet/private", "predict", 5, ["Space {i}"],
                                              extra=["--hf-token", TOKEN])
        check(summary is not None and summary["completed"] == 5,
              f"exit {status}, summary {summary}:\n{stderr}")
        check(TOKEN not in stderr and TOKEN not in json.dumps(summary), "the token was printed")
        with hub.lock:
            sent = [auth for path, auth in hub.requests if "/rivulet/private" in path]
        check(sent and sent[-1] == f"Bearer {TOKEN}", f"the Hub got {sent[-1:]!r}")
        return f"{summary['completed']} jobs completed on the private Space's app"

    def zerogpu():
        found = []
        for text in ("You have exceeded your free GPU quota ({i}0s requested vs. 5s left). "
                     "Try again in 0:0{i}:05",
                     "You have exceeded your GPU quota ({i}s left vs. 60s requested). "
                     "Please retry in 0:0{i}:13"):
            status, summary, _, stderr = cli.load("rivulet/zerogpu", "fail", 4, [text])
            check(summary is not None and summary["failed"] == 4,
                  f"exit {status}, summary {summary}:\n{stderr}")
            check(summary["errors"] == [{"error": "ZeroGPU quota exceeded", "count": 4}],
                  f"errors {summary['errors']}")
            check("4 job(s): ZeroGPU quota exceeded" in stderr, f"not in the summary:\n{stderr}")
            found.append(summary["errors"][0]["count"])
        return f"both wordings counted as one class ({' + '.join(map(str, found))} jobs)"

    with FakeHub(main.url) as hub, hub_environment(hub, home):
        suite.case(f"{label}: Hugging Face Space by name (fake Hub): building, then the app", building)
        suite.case(f"{label}: Hugging Face Space by name (fake Hub): private, with --hf-token", private)
        suite.case(f"{label}: Hugging Face Space by name (fake Hub): ZeroGPU quota errors, one class",
                   zerogpu)
