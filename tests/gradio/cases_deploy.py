"""Real deployments (issue 22): Rivulet against real Gradio behind nginx, under TLS and
through faults. Called by suite.py once per Gradio version.

The suite starts Debian's nginx on 127.0.0.1 (free ports) with a config it writes into its
scratch folder, following Gradio's nginx guide: the app under a sub-path (root_path),
proxy_buffering off, Host $host, X-Forwarded-Host, X-Forwarded-Proto. One nginx serves
several server blocks, each on its own port: the guide's config as written, a copy with
gzip on for text/event-stream, one with proxy_buffering on, two with a short
proxy_read_timeout (one per heartbeat interval of the app behind it), and one that ends
TLS with a certificate the suite makes with openssl (a CA and a certificate for the IP
127.0.0.1). The apps are tests/gradio/apps/deploy_app.py.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request

# suite.py runs as __main__: take its classes from there, so that its case() knows them.
_suite = sys.modules.get("suite") or sys.modules["__main__"]
CaseFailed, CaseSkipped, check = _suite.CaseFailed, _suite.CaseSkipped, _suite.check
first_output, free_port = _suite.first_output, _suite.free_port

ROOT_PATH = "/gradio-demo"
# The proxy_read_timeout of the timeout cases (nginx's default is 60 s; short to keep CI short).
READ_TIMEOUT_S = 3
HEARTBEAT_FAST_S = 1     # app "fast": heartbeats more often than the timeout
HEARTBEAT_RARE_S = 40    # app "rare": heartbeats rarer than the timeout
GZIP = "    gzip on;\n    gzip_types text/event-stream;\n    gzip_min_length 0;"


def run(suite, py, cli, version, only=None):
    """All deploy cases of one Gradio version (a subset on 4.44 and 5.49)."""
    label = f"gradio {version}"
    full = int(version.split(".")[0]) >= 6
    # --only TEXT (or "deploy:TEXT", which skips the other modules' cases): the cases named so.
    text = only.split(":", 1)[1] if only and only.startswith("deploy:") else only
    want = lambda name: not text or text == "deploy" or text in name   # noqa: E731
    if not shutil.which("nginx") or not shutil.which("openssl"):
        def missing():
            raise CaseSkipped("no nginx or openssl on this machine (.ci/deps installs them)")
        suite.case(f"{label}: behind nginx", missing)
        return
    host_dir = py.workdir(version)[0]
    work = os.path.join(host_dir, "deploy")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    apps = {"fast": DeployApp(py, version, work, "fast", HEARTBEAT_FAST_S)}
    if full:
        apps["rare"] = DeployApp(py, version, work, "rare", HEARTBEAT_RARE_S)
    netns = Netns.create(work) if full else None
    nginx = None
    try:
        for a in apps.values():
            a.start()
        ready = {name: a.wait_ready(suite.args.start_limit) for name, a in apps.items()}
        certs = make_certs(work)
        nginx = Nginx(work, apps, certs, netns)
        started = nginx.start()

        def up():
            check(ready["fast"], f"the deploy app did not start:\n{apps['fast'].tail()}")
            check(started is None, f"nginx did not start: {started}")
            return f"nginx {nginx.version} on {', '.join(f'{k} :{p}' for k, p in nginx.ports.items())}"

        if suite.case(f"{label}: nginx in front of Gradio starts", up) != "OK":
            return
        cases = Cases(suite, cli, label, apps, nginx, certs, netns, version)
        plan = [("nginx, Gradio's guide config on another port: root corrected", cases.root_corrected),
                ("nginx (proxy_buffering off): the stream arrives as made", cases.stream_live),
                ("nginx gzip on text/event-stream (buffered upstream): lint names the held-back "
                 "stream", cases.gzip),
                ("nginx proxy_buffering on, gzip unbuffered: measured (reported, not judged)",
                 cases.buffering_on),
                ("https through nginx: untrusted certificate, clear error", cases.tls_untrusted),
                ("https through nginx: certificate for another host, clear error", cases.tls_wrong_host),
                ("https through nginx: --insecure, said in the summary", cases.tls_insecure),
                ("https through nginx (--ca-file): burst, 0 lost", cases.tls_burst),
                ("nginx reloaded mid-stream (nginx -s reload)", cases.reload)]
        if full:
            plan += [("window over https through nginx, CA file in the connect popover",
                      cases.window_https),
                     ("window through gzip on the event stream: the lint badge says so",
                      cases.window_gzip)]
        if full:
            plan += [(f"nginx proxy_read_timeout {READ_TIMEOUT_S} s, heartbeats every "
                      f"{HEARTBEAT_FAST_S} s: long job passes", cases.timeout_pass),
                     (f"nginx proxy_read_timeout {READ_TIMEOUT_S} s, heartbeats every "
                      f"{HEARTBEAT_RARE_S} s: the cut is named", cases.timeout_cut),
                     ("netem 100 ms delay, 1 % loss between client and nginx", cases.netem),
                     ("server killed mid-burst: every job accounted for, named", cases.killed)]
        else:
            plan += [("heartbeat cases", cases.no_heartbeat_setting)]
        plan += [("server restarted under a user load: outage window", cases.restarted)]
        for name, fn in plan:
            if want(name):
                suite.case(f"{label}: {name}", fn)
    finally:
        if nginx is not None:
            nginx.stop()
        for a in apps.values():
            a.stop()
        if netns is not None:
            netns.remove()


class DeployApp(_suite.Server):
    """tests/gradio/apps/deploy_app.py on a free port, with a given heartbeat interval; waits,
    stops and shows its log as suite.py's servers do, and can be killed and started again."""

    def __init__(self, py, version, work, name, heartbeat):   # noqa: super().__init__ starts another app
        self.py, self.version, self.app = py, version, name
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = os.path.join(work, f"app-{name}.log")
        inner = py.workdir(version)[1]
        self.env = {"GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1",
                    "GRADIO_TEMP_DIR": f"{inner}/deploy/tmp-{name}", "PYTHONUNBUFFERED": "1",
                    "GRADIO_HEARTBEAT_INTERVAL": str(heartbeat)}
        self.proc = None
        self.log = open(os.devnull, "w")

    def start(self):
        argv, env = self.py.command(self.version, ["deploy_app.py", "--port", str(self.port),
                                                   "--root-path", ROOT_PATH], self.env)
        self.log.close()
        self.log = open(self.log_path, "a")
        self.proc = subprocess.Popen(argv, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)

    def kill(self):
        """SIGKILL: the server goes away without a word."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def make_certs(work):
    """A CA and a server certificate it signs for the IP 127.0.0.1 (no host name)."""
    d = os.path.join(work, "tls")
    os.makedirs(d, exist_ok=True)
    ca_key, ca, key, csr, crt = (os.path.join(d, n) for n in
                                 ("ca.key", "ca.pem", "server.key", "server.csr", "server.pem"))
    ext = os.path.join(d, "server.ext")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"
                "basicConstraints=critical,CA:FALSE\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for argv in (["openssl", "req", "-x509"] + ec + ["-keyout", ca_key, "-out", ca, "-days", "2",
                  "-subj", "/CN=Rivulet test CA",
                  "-addext", "basicConstraints=critical,CA:TRUE",
                  "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
                 ["openssl", "req"] + ec + ["-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1"],
                 ["openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key,
                  "-CAcreateserial", "-out", crt, "-days", "2", "-extfile", ext]):
        p = subprocess.run(argv, capture_output=True, text=True)
        if p.returncode != 0:
            raise CaseFailed(f"{' '.join(argv)}: {p.stderr}")
    return {"ca": ca, "cert": crt, "key": key}


class Nginx:
    """Debian's nginx, in the foreground, with a config and pid file of the suite's own."""

    def __init__(self, work, apps, certs, netns):
        self.dir = os.path.join(work, "nginx")
        os.makedirs(self.dir, exist_ok=True)
        self.conf = os.path.join(self.dir, "nginx.conf")
        self.pid_file = os.path.join(self.dir, "nginx.pid")
        self.log_path = os.path.join(self.dir, "error.log")
        self.apps, self.certs, self.netns = apps, certs, netns
        self.ports = {name: free_port() for name in
                      ("guide", "gzip", "gzip_unbuffered", "buffering", "tls", "timeout_fast",
                       "timeout_rare")}
        self.proc = None
        p = subprocess.run(["nginx", "-v"], capture_output=True, text=True)
        self.version = (p.stderr.strip().split("/")[-1] or "?")
        self.generation = 0

    def url(self, name, scheme="http", host="127.0.0.1"):
        return f"{scheme}://{host}:{self.ports[name]}{ROOT_PATH}"

    def location(self, app, extra=""):
        # Gradio's guide, as written (it also says $http_host would keep the port).
        return f"""
        location {ROOT_PATH}/ {{
            proxy_pass http://127.0.0.1:{self.apps[app].port}/;
            proxy_buffering off;
            proxy_redirect off;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection "upgrade";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-Host $host;
            proxy_set_header X-Forwarded-Proto $scheme;
{extra}
        }}"""

    def write(self):
        servers = [
            (f"listen 127.0.0.1:{self.ports['guide']};", self.location("fast")),
            # gzip for text/event-stream where nginx buffers the upstream (its default):
            # the common mistake (a site-wide gzip_types, or a CDN doing the same).
            (f"listen 127.0.0.1:{self.ports['gzip']};", GZIP
             + self.location("fast").replace("proxy_buffering off;", "proxy_buffering on;")),
            # The same gzip with the guide's proxy_buffering off (measured, not judged).
            (f"listen 127.0.0.1:{self.ports['gzip_unbuffered']};", GZIP + self.location("fast")),
            (f"listen 127.0.0.1:{self.ports['buffering']};",
             self.location("fast").replace("proxy_buffering off;", "proxy_buffering on;")),
            (f"listen 127.0.0.1:{self.ports['tls']} ssl;\n"
             f"    ssl_certificate {self.certs['cert']};\n"
             f"    ssl_certificate_key {self.certs['key']};",
             self.location("fast")),
            (f"listen 127.0.0.1:{self.ports['timeout_fast']};",
             self.location("fast", f"            proxy_read_timeout {READ_TIMEOUT_S}s;")),
        ]
        if "rare" in self.apps:
            servers.append((f"listen 127.0.0.1:{self.ports['timeout_rare']};",
                            self.location("rare", f"            proxy_read_timeout {READ_TIMEOUT_S}s;")))
        if self.netns is not None and self.netns.ok:
            servers.append((f"listen {self.netns.host_addr}:{self.ports['guide']};",
                            self.location("fast")))
        temp = "\n".join(f"    {k}_temp_path {self.dir}/{k};" for k in
                         ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        body = "\n".join(f"    server {{\n    {listen}\n{loc}\n    }}" for listen, loc in servers)
        with open(self.conf, "w") as f:
            f.write(f"""# Written by tests/gradio/cases_deploy.py (generation {self.generation}).
worker_processes 1;
user root;
pid {self.pid_file};
error_log {self.log_path} info;
events {{ worker_connections 4096; }}
http {{
    access_log off;
{temp}
{body}
}}
""")

    def start(self):
        self.write()
        p = subprocess.run(["nginx", "-t", "-c", self.conf, "-p", self.dir], capture_output=True,
                           text=True)
        if p.returncode != 0:
            return p.stderr.strip()
        self.proc = subprocess.Popen(["nginx", "-c", self.conf, "-p", self.dir, "-g", "daemon off;"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return f"exited {self.proc.returncode}: {self.tail()}"
            try:
                urllib.request.urlopen(self.url("guide") + "/config", timeout=2).read()
                return None
            except OSError:
                time.sleep(0.1)
        return f"no answer on {self.url('guide')}: {self.tail()}"

    def reload(self):
        """nginx -s reload with the suite's pid file: new workers, old ones finish their requests."""
        self.generation += 1
        self.write()
        return subprocess.run(["nginx", "-c", self.conf, "-p", self.dir, "-s", "reload"],
                              capture_output=True, text=True)

    def workers(self):
        try:
            out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(self.proc.pid)],
                                 capture_output=True, text=True).stdout
        except OSError:
            return set()
        return {int(x) for x in out.split()}

    def tail(self, n=15):
        return _suite.Server.tail(self, n)

    def stop(self):
        if self.proc is not None:
            self.log = open(os.devnull, "w")   # Server.stop closes it
            _suite.Server.stop(self)


class Netns:
    """A network namespace of the suite's own, joined to this one by a veth pair, with
    tc netem on its side: what the client in it sends to nginx is delayed and lost."""
    DELAY_MS, LOSS_PCT = 100, 1

    def __init__(self, work):
        tag = f"{os.getpid() % 10000:04d}"
        self.name = f"rivdep{tag}"
        self.host_if, self.ns_if = f"rvd{tag}h", f"rvd{tag}n"
        octet = os.getpid() % 60 * 4
        self.host_addr, self.ns_addr = f"10.213.{octet // 256 + 57}.{octet % 256 + 1}", None
        self.ns_addr = self.host_addr.rsplit(".", 1)[0] + "." + str(int(self.host_addr.rsplit(".", 1)[1]) + 1)
        self.ok = False
        self.reason = None

    @classmethod
    def create(cls, work):
        self = cls(work)
        if not shutil.which("ip") or not shutil.which("tc"):
            self.reason = "no ip/tc (iproute2) on this machine"
            return self
        steps = [["ip", "netns", "add", self.name],
                 ["ip", "link", "add", self.host_if, "type", "veth", "peer", "name", self.ns_if],
                 ["ip", "link", "set", self.ns_if, "netns", self.name],
                 ["ip", "addr", "add", self.host_addr + "/30", "dev", self.host_if],
                 ["ip", "link", "set", self.host_if, "up"],
                 ["ip", "netns", "exec", self.name, "ip", "addr", "add", self.ns_addr + "/30",
                  "dev", self.ns_if],
                 ["ip", "netns", "exec", self.name, "ip", "link", "set", self.ns_if, "up"],
                 ["ip", "netns", "exec", self.name, "ip", "link", "set", "lo", "up"],
                 ["ip", "netns", "exec", self.name, "tc", "qdisc", "add", "dev", self.ns_if, "root",
                  "netem", "delay", f"{self.DELAY_MS}ms", "loss", f"{self.LOSS_PCT}%"]]
        for argv in steps:
            p = subprocess.run(argv, capture_output=True, text=True)
            if p.returncode != 0:
                self.reason = f"`{' '.join(argv)}` failed: {p.stderr.strip()}"
                if "qdisc kind is unknown" in p.stderr:
                    self.reason += " (this kernel has no netem qdisc, sch_netem)"
                self.remove()
                return self
        self.ok = True
        return self

    def remove(self):
        subprocess.run(["ip", "link", "del", self.host_if], capture_output=True)
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True)

    def wrap(self, argv):
        return ["ip", "netns", "exec", self.name] + argv


def frame_times(path):
    """The arrival times (s) of a recorded session's stream frames."""
    times = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                event = json.loads(line)
                if event.get("kind") == "sse":
                    times.append(round(event["t"], 3))
    except (OSError, ValueError):
        pass
    return times


class Cases:
    def __init__(self, suite, cli, label, apps, nginx, certs, netns, version):
        self.suite, self.cli, self.label = suite, cli, label
        self.apps, self.nginx, self.certs, self.netns = apps, nginx, certs, netns
        self.version = version

    def load(self, url, endpoint, count, data, extra=(), timeout=120):
        status, summary, records, stderr = self.cli.load(url, endpoint, count, data,
                                                         extra=list(extra), timeout=timeout)
        check(summary is not None, f"no --json summary (exit {status}):\n{stderr[-3000:]}\n"
              f"{self.cli.last_command}")
        return status, summary, records or [], stderr

    def cli_run(self, *argv, timeout=60):
        p = subprocess.run([self.cli.path] + list(argv), capture_output=True, text=True,
                           timeout=timeout)
        self.cli.last_command = " ".join([self.cli.path] + list(argv))
        return p

    # --- nginx as Gradio's guide says ------------------------------------------------------

    def root_corrected(self):
        url = self.nginx.url("guide")
        with urllib.request.urlopen(url + "/config", timeout=10) as r:
            root = json.load(r).get("root")
        port = self.nginx.ports["guide"]
        check(root and f":{port}" not in root,
              f"the premise no longer holds: /config through nginx says root {root!r}, with the port")
        p = self.cli_run("inspect", "--url", url)
        check(p.returncode == 0, f"inspect: exit {p.returncode}\n{p.stderr}")
        check(f"Root      http://127.0.0.1:{port}{ROOT_PATH}" in p.stdout and "corrected" in p.stdout
              and root.rstrip("/") in p.stdout,
              f"inspect does not say the root was corrected from {root!r}:\n{p.stdout[:1500]}")
        status, summary, records, stderr = self.load(url, "echo", 5, ["n{i}"])
        check(status == 0 and summary["completed"] == 5,
              f"{summary['completed']}/5 completed through nginx (exit {status})\n{stderr[-2000:]}")
        bad = [r for r in records if first_output(r) != f"echo: n{r['index']}"]
        check(not bad, f"wrong outputs: {bad[:3]}")
        return f"/config says root {root}; Rivulet uses :{port}, 5/5 completed"

    def stream_live(self):
        status, summary, records, stderr = self.load(self.nginx.url("guide"), "tick", 3, [30, 0.05])
        check(status == 0 and summary["completed"] == 3, f"{summary}\n{stderr[-2000:]}")
        check(summary.get("lint") == [], f"lint findings: {json.dumps(summary.get('lint'))[:2000]}")
        ups = [r.get("updates") or 0 for r in records]
        check(all(u >= 20 for u in ups), f"updates per job {ups}: expected ~30 each")
        return f"3 jobs of 30 updates over 1.5 s, updates seen {ups}, lint silent"

    def buffered_findings(self, summary):
        return [f for f in summary.get("lint") or [] if f.get("rule") == "stream-buffered"]

    def gzip(self):
        # The session is recorded: its frames' arrival times are in the file.
        path = os.path.join(self.cli.scratch, f"gzip-session-{self.version}.jsonl")
        status, summary, records, stderr = self.load(self.nginx.url("gzip"), "tick", 3, [30, 0.05],
                                                     extra=["--record", path])
        check(status == 0 and summary["completed"] == 3 and summary["lost"] == 0,
              f"{summary}\n{stderr[-2000:]}")
        found = self.buffered_findings(summary)
        check(len(found) == 3, f"expected a stream-buffered finding per job, lint says "
              f"{json.dumps(summary.get('lint'))[:2000]}; frames arrived at "
              f"{frame_times(path)[:40]} (recorded in {path})")
        msg = found[0]["message"]
        check("clump" in msg and "proxy" in msg, f"not in plain words: {msg!r}")
        return msg

    def buffering_on(self):
        seen = []
        for name, what in (("buffering", "proxy_buffering on, no gzip"),
                           ("gzip_unbuffered", "gzip with the guide's proxy_buffering off")):
            status, summary, records, stderr = self.load(self.nginx.url(name), "tick", 3, [30, 0.05])
            check(status == 0 and summary["completed"] == 3, f"{what}: {summary}\n{stderr[-2000:]}")
            seen.append(f"{what}: {len(self.buffered_findings(summary))} of 3 jobs held back")
        return f"nginx {self.nginx.version}, " + "; ".join(seen)

    # --- TLS ----------------------------------------------------------------------------------

    def tls_untrusted(self):
        p = self.cli_run("load", "--url", self.nginx.url("tls", "https"), "--endpoint", "echo",
                         "--count", "1", "--data", '["x"]')
        check(p.returncode != 0, "exit 0 with an untrusted certificate")
        err = p.stderr.strip()
        check("not trusted" in err and "--ca-file" in err and "authority" in err,
              f"the error does not name the problem: {err!r}")
        return err.splitlines()[-1]

    def tls_wrong_host(self):
        p = self.cli_run("inspect", "--url", self.nginx.url("tls", "https", host="localhost"),
                         "--ca-file", self.certs["ca"])
        check(p.returncode != 0, "exit 0 with a certificate for another host")
        err = p.stderr.strip()
        check("not trusted" in err and "another host" in err,
              f"the error does not name the problem: {err!r}")
        return err.splitlines()[-1]

    def tls_insecure(self):
        status, summary, records, stderr = self.load(self.nginx.url("tls", "https"), "echo", 3,
                                                     ["s{i}"], extra=["--insecure"])
        check(status == 0 and summary["completed"] == 3, f"{summary}\n{stderr[-2000:]}")
        check(summary.get("insecure") is True, f"the --json summary does not say insecure: {summary}")
        p = self.cli_run("load", "--url", self.nginx.url("tls", "https"), "--endpoint", "echo",
                         "--count", "1", "--data", '["t"]', "--insecure")
        check(p.returncode == 0 and "NOT checked" in p.stdout,
              f"the summary does not say the certificate was not checked:\n{p.stdout}{p.stderr}")
        return "3/3 completed; summary: " + next(l for l in p.stdout.splitlines() if "NOT checked" in l)

    def tls_burst(self):
        n = self.suite.args.jobs if self.version.startswith("6.") else min(200, self.suite.args.jobs)
        t0 = time.monotonic()
        status, summary, records, stderr = self.load(self.nginx.url("tls", "https"), "batch_echo", n,
                                                     ["job {i}"], extra=["--ca-file", self.certs["ca"]])
        check(status == 0 and summary["completed"] == n and summary["lost"] == 0,
              f"{summary['completed']}/{n} completed, {summary['lost']} lost\n{stderr[-2000:]}")
        bad = [r["index"] for r in records if first_output(r) != f"echo: job {r['index']}"]
        check(not bad, f"{len(bad)} wrong outputs (jobs {bad[:10]})")
        check(summary.get("insecure") is False, "the summary says insecure without --insecure")
        wall = time.monotonic() - t0
        # Virtual users copy the first client's trust (each its own session and connections).
        argv = [self.cli.path, "load", "--url", self.nginx.url("tls", "https"), "--endpoint", "echo",
                "--users", "4", "--iterations", "3", "--data", '["u{u}"]', "--json",
                "--ca-file", self.certs["ca"]]
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        users = next((json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")), None)
        check(p.returncode == 0 and users and users["completed"] == 12,
              f"4 users × 3 jobs over HTTPS: {users} (exit {p.returncode})\n{p.stderr[-2000:]}")
        return f"{n}/{n} over HTTPS, 0 lost, outputs right, {wall:.1f} s; 4 users × 3 jobs: 12/12"

    # --- the window ---------------------------------------------------------------------------

    def window(self, url, ca=None, png=None):
        """tests/gradio/riv-gradio-window on one tick job; returns what it reports."""
        env = {}
        if ca:
            env["RIV_GRADIO_WINDOW_CA"] = ca
        shots = os.environ.get("RIVULET_GRADIO_SCREENSHOTS")
        if shots and png:
            env["RIV_GRADIO_WINDOW_PNG"] = os.path.join(shots, png)
        seen = self.cli.window(url, "tick", [20, 0.05], env_extra=env, timeout=300)
        check(seen["status"] == "completed", f"job {seen['status']}: {seen['error']!r}")
        return seen

    def window_https(self):
        url = self.nginx.url("tls", "https")
        seen = self.window(url, ca=self.certs["ca"], png=f"window-https-{self.version}.png")
        check(url in (seen["subtitle"] or ""), f"the header says {seen['subtitle']!r}, not {url}")
        check(seen["lint_badge"] is None, f"lint badge: {seen['lint_badge']!r}")
        return f"CA file in the connect popover; header {seen['subtitle']!r}; job completed"

    def window_gzip(self):
        seen = self.window(self.nginx.url("gzip"), png=f"window-gzip-{self.version}.png")
        check(seen["lint_badge"] == "Stream held back by a proxy",
              f"the lint badge says {seen['lint_badge']!r}")
        return f"badge {seen['lint_badge']!r}"

    # --- faults -------------------------------------------------------------------------------

    def reload(self):
        before = self.nginx.workers()
        argv = [self.cli.path, "load", "--url", self.nginx.url("guide"), "--endpoint", "tick",
                "--count", "4", "--data", "[30, 0.1]", "--json", "--timeout", "60"]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.2)
        r = self.nginx.reload()
        check(r.returncode == 0, f"nginx -s reload: {r.stderr}")
        out, err = proc.communicate(timeout=90)
        summary = next((json.loads(l) for l in out.splitlines() if l.startswith("{")), None)
        check(summary is not None, f"no summary (exit {proc.returncode}):\n{err[-2000:]}")
        after = self.nginx.workers()
        check(before and after and not (before & after),
              f"nginx's workers did not change (before {before}, after {after}): no reload?")
        check(summary["completed"] == 4 and summary["lost"] == 0 and proc.returncode == 0,
              f"{summary['completed']}/4 completed, {summary['lost']} lost across the reload\n{err[-2000:]}")
        return f"4 streams of 3 s, reload at 1.2 s: 4/4 completed, workers {sorted(before)} → {sorted(after)}"

    def no_heartbeat_setting(self):
        raise CaseSkipped(f"Gradio {self.version} has no GRADIO_HEARTBEAT_INTERVAL (6.16 and later): "
                          "its 15 s heartbeats against nginx's timeout would take a minute")

    def timeout_pass(self):
        quiet = READ_TIMEOUT_S + 2
        status, summary, records, stderr = self.load(self.nginx.url("timeout_fast"), "quiet", 2,
                                                     [quiet], timeout=60)
        check(status == 0 and summary["completed"] == 2,
              f"{summary['completed']}/2 completed: {summary.get('errors')}\n{stderr[-2000:]}")
        return f"2 jobs of {quiet} s, proxy_read_timeout {READ_TIMEOUT_S} s: 2/2 completed"

    def timeout_cut(self):
        t0 = time.monotonic()
        status, summary, records, stderr = self.load(self.nginx.url("timeout_rare"), "quiet", 2,
                                                     [60], timeout=90)
        wall = time.monotonic() - t0
        check(summary["completed"] == 0 and summary["lost"] + summary["failed"] == 2,
              f"expected both jobs cut off: {summary}")
        errors = [r.get("error") or "" for r in records]
        check(len(errors) == 2 and all("cut" in e and "proxy_read_timeout" in e for e in errors),
              f"the error does not name the cut: {errors}")
        return f"{wall:.0f} s: {errors[0]}"

    def netem(self):
        if self.netns is None or not self.netns.ok:
            raise CaseSkipped(f"no network namespace with netem: {self.netns.reason if self.netns else 'none'}")
        base_url = self.nginx.url("guide")
        far_url = f"http://{self.netns.host_addr}:{self.nginx.ports['guide']}{ROOT_PATH}"
        n = 200
        _, near, _, _ = self.load(base_url, "echo", n, ["n{i}"])
        argv = self.netns.wrap([self.cli.path, "load", "--url", far_url, "--endpoint", "echo",
                                "--count", str(n), "--data", '["n{i}"]', "--json", "--timeout", "120"])
        p = subprocess.run(argv, capture_output=True, text=True, timeout=200)
        far = next((json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")), None)
        check(far is not None, f"no summary through netem (exit {p.returncode}):\n{p.stderr[-2000:]}")
        check(far["completed"] == n and far["lost"] == 0 and far["failed"] == 0,
              f"through netem: {far['completed']}/{n} completed, {far['lost']} lost, {far['failed']} failed")
        shift = far["latency_s"]["p50"] - near["latency_s"]["p50"]
        check(shift >= self.netns.DELAY_MS / 1000 * 0.8,
              f"p50 moved by {shift * 1000:.0f} ms only, with {self.netns.DELAY_MS} ms of delay")
        return (f"{n}/{n} completed, 0 lost; p50 {near['latency_s']['p50'] * 1000:.0f} ms → "
                f"{far['latency_s']['p50'] * 1000:.0f} ms")

    def killed(self):
        app = self.apps["rare"]
        n = 400
        argv = [self.cli.path, "load", "--url", self.nginx.url("timeout_rare"), "--endpoint", "echo", "--count", str(n), "--data", '["k{i}"]', "--json",
                "--timeout", "60"]
        t0 = time.monotonic()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        app.kill()
        out, err = proc.communicate(timeout=120)
        wall = time.monotonic() - t0
        summary = next((json.loads(l) for l in out.splitlines() if l.startswith("{")), None)
        check(summary is not None, f"no summary (exit {proc.returncode}):\n{err[-2000:]}")
        total = summary["completed"] + summary["failed"] + summary["lost"] + summary["cancelled"]
        check(total == n and summary["submitted"] == n, f"jobs not accounted for: {summary}")
        check(summary["completed"] < n, f"all {n} completed: the kill came too late")
        check(wall < 45, f"took {wall:.0f} s to account for the jobs")
        texts = [e["error"] for e in summary["errors"]]
        check(texts and all("went away" in t for t in texts),
              f"the errors do not name the server going away: {texts}")
        return (f"{summary['completed']} completed, {summary['failed']} failed, {summary['lost']} "
                f"lost in {wall:.1f} s: " + "; ".join(f"{e['count']}× {e['error']}" for e in summary["errors"]))

    def restarted(self):
        app = self.apps["fast"]
        series = os.path.join(os.path.dirname(app.log_path), "restarted-timeseries.csv")
        argv = [self.cli.path, "load", "--url", self.nginx.url("guide"), "--endpoint", "echo",
                "--users", "6", "--duration", "14", "--think", "0.2", "--data", '["u{u}-{i}"]',
                "--json", "--timeout", "60", "--timeseries", series]
        t0 = time.monotonic()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(3.0)
        app.kill()
        killed_at = time.monotonic()
        app.start()
        check(app.wait_ready(60), f"the app did not come back:\n{app.tail()}")
        back_after = time.monotonic() - killed_at
        out, err = proc.communicate(timeout=120)
        summary = next((json.loads(l) for l in out.splitlines() if l.startswith("{")), None)
        check(summary is not None, f"no summary (exit {proc.returncode}):\n{err[-2000:]}")
        check(summary["failed"] + summary["lost"] > 0, f"no user saw the restart: {summary}")
        texts = [e["error"] for e in summary["errors"]]
        check(all("went away" in t for t in texts),
              f"the errors do not name the server going away: {texts}")
        outage = summary.get("outage")
        check(outage and outage.get("end_s") is not None,
              f"no outage window in the summary (or not over): {outage}; the server was away "
              f"{back_after:.1f} s from {killed_at - t0:.1f} s; the run's seconds:\n"
              + (open(series).read() if os.path.exists(series) else "(no time series)"))
        check(outage["end_s"] - outage["start_s"] >= back_after * 0.5,
              f"outage {outage} but the server was away {back_after:.1f} s")
        check(summary["completed"] > 0, "nothing completed")
        return (f"server away {back_after:.1f} s; summary: outage {outage['start_s']:.0f}–"
                f"{outage['end_s']:.0f} s, {summary['completed']} completed, {summary['failed']} "
                f"failed, {summary['lost']} lost: "
                + "; ".join(f"{e['count']}× {e['error']}" for e in summary["errors"][:3]))
