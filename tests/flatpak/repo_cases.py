"""Rivulet's own Flatpak repository as a user meets it: cases of `make test-flatpak`,
run after the bundle's (tests/flatpak/suite.py calls run_cases() last).

tests/flatpak/publish (make flatpak-repo) publishes the build into a repository signed
with a throwaway GPG key made here (in a temporary GNUPGHOME, deleted at the end), and a
server on loopback serves it over HTTP. The cases add it as a user would (`flatpak
remote-add --user` of its .flatpakrepo), install from it, update to a newer build, refuse
the repository when it is tampered with in two ways, and install from its .flatpakref.
The app installed from the bundle is uninstalled for them and installed again from the
bundle at the end; the remote they add is deleted.
"""
import base64
import configparser
import http.server
import os
import re
import shutil
import subprocess
import tempfile
import threading

from suite import check  # tests/gradio/suite.py (on the path)

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.dirname(os.path.dirname(HERE))
APP_ID = "io.github.rivulet.Rivulet"
REMOTE = "rivulet-repo-test"   # not "rivulet": a user's own remote of that name is left alone
# Loopback only, whatever proxy the environment names.
ENV = dict(os.environ, no_proxy="127.0.0.1", NO_PROXY="127.0.0.1")
PUBLISH_VARS = ("GPG_KEY", "GPG_HOMEDIR", "REPO_URL", "REPO_DIR", "REPO_SUBJECT", "REPO_FORCE",
                "REPO_REMOTE", "RUNTIME_REPO")


def run(argv, timeout=300, env=None):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env or ENV)


def flatpak(*argv, timeout=300):
    return run(["flatpak", "--user"] + list(argv), timeout=timeout)


class RepoServer(http.server.ThreadingHTTPServer):
    """Serves a folder on 127.0.0.1 at a free port. `root` can be switched to another
    folder: the same address then serves what someone else put there."""

    def __init__(self, root):
        self.root = root
        self.paths = []
        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def stop(self):
        self.shutdown()
        self.server_close()


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, request, client_address, server):
        super().__init__(request, client_address, server, directory=server.root)

    def do_GET(self):
        # No 304s: what is served under a name can change within a second (a new summary,
        # another folder), which If-Modified-Since, to the second, would not tell apart.
        del self.headers["If-Modified-Since"]
        self.server.paths.append(self.path)
        super().do_GET()

    def log_message(self, *args):
        pass


def make_key(home, uid):
    """A throwaway signing key in a new GnuPG home; returns its fingerprint."""
    os.makedirs(home, mode=0o700)
    p = run(["gpg", "--homedir", home, "--batch", "--passphrase", "", "--quick-gen-key", uid,
             "ed25519", "sign", "never"], timeout=60)
    check(p.returncode == 0, f"gpg --quick-gen-key: {p.stderr[-800:]}")
    p = run(["gpg", "--homedir", home, "--batch", "--with-colons", "--list-secret-keys"])
    fprs = [l.split(":")[9] for l in p.stdout.splitlines() if l.startswith("fpr:")]
    check(fprs, f"no key in {home} after gpg --quick-gen-key:\n{p.stdout}")
    return fprs[0]


def key_group(path, group):
    kf = configparser.ConfigParser(interpolation=None)
    kf.optionxform = str
    kf.read(path, encoding="utf-8")
    check(kf.has_section(group), f"{path} has no [{group}] group")
    return dict(kf[group])


def no_criticals(*outputs):
    bad = [l for out in outputs for l in out.splitlines() if "CRITICAL" in l or "-WARNING" in l]
    check(not bad, "flatpak printed:\n" + "\n".join(bad))


class Repo:
    def __init__(self, args):
        self.build = args.build
        self.bundle = args.bundle
        arch = run(["flatpak", "--default-arch"]).stdout.strip()
        self.ref = f"app/{APP_ID}/{arch}/master"
        self.work = tempfile.mkdtemp(prefix="riv-fprepo-")   # short: gpg-agent's socket path
        self.homes = {"own": os.path.join(self.work, "key"),
                      "other": os.path.join(self.work, "other-key")}
        self.served = os.path.join(self.work, "served")
        self.server = RepoServer(self.served)
        self.key = None
        with open(os.path.join(CHECKOUT, "meson.build"), encoding="utf-8") as f:
            self.version = re.search(r"version:\s*'([^']+)'", f.read()).group(1)

    def publish(self, out, key, home, build=None, make=False, **extra):
        """tests/flatpak/publish, or with make=True `make flatpak-repo` with the same
        variables on its command line, as packaging.md shows it."""
        env = {k: v for k, v in ENV.items() if k not in PUBLISH_VARS}
        given = dict(REPO_DIR=out, REPO_URL=self.server.url, REPO_REMOTE=REMOTE, **extra)
        if key:
            given.update(GPG_KEY=key, GPG_HOMEDIR=home)
        build = os.path.abspath(build or self.build)
        if make:
            argv = ["make", "-s", "-C", CHECKOUT, "flatpak-repo", f"BUILD={build}"]
            return run(argv + [f"{k}={v}" for k, v in given.items()], env=env, timeout=180)
        env.update(given)
        return run(["bash", os.path.join(HERE, "publish"), build], env=env, timeout=180)

    def commit_of(self, repo):
        p = run(["ostree", f"--repo={repo}", "rev-parse", self.ref])
        check(p.returncode == 0, f"ostree rev-parse {self.ref} in {repo}: {p.stderr}")
        return p.stdout.strip()

    def installed(self):
        """The installed app's Origin, Commit and Subject, as flatpak info shows them."""
        p = flatpak("info", APP_ID)
        check(p.returncode == 0, f"flatpak info {APP_ID}: {p.stderr}")
        return {k: v.strip() for k, v in re.findall(r"^\s*(\w+): (.*)$", p.stdout, re.M)
                if k in ("Origin", "Commit", "Subject")}

    def runs(self):
        p = run(["flatpak", "run", "--user", "--command=rivulet-cli", APP_ID, "--version"])
        check(p.returncode == 0 and p.stdout.strip() == f"rivulet-cli {self.version}",
              f"rivulet-cli --version in the sandbox: exit {p.returncode}, {p.stdout!r}\n"
              f"{p.stderr}")
        return p.stdout.strip()

    def forget(self):
        """Neither the app nor the test remote installed."""
        flatpak("uninstall", "-y", "--noninteractive", APP_ID, timeout=120)
        if REMOTE in flatpak("remotes").stdout.split():
            p = flatpak("remote-delete", "--force", REMOTE)
            check(p.returncode == 0, f"flatpak remote-delete {REMOTE}: {p.stderr}")

    def newer_build(self, stamp):
        """A build folder as make flatpak leaves it, whose app holds one file more than this
        build's (/app/share/rivulet/newer-build, reading stamp): what publishing after a
        rebuild with a change sends. Made from this build's app (checked out, the file added,
        exported again with flatpak build-export), without building anything."""
        out = os.path.join(self.work, "newer-build")
        flat = os.path.join(out, "flatpak")
        repo, tree = os.path.join(flat, "repo"), os.path.join(self.work, "newer-tree")
        os.makedirs(flat)
        shutil.copy(os.path.join(self.build, "flatpak", "runtime"), flat)
        with open(os.path.join(flat, "source"), "w", encoding="utf-8") as f:
            f.write("a newer build (make test-flatpak)\n")
        src = os.path.join(self.build, "flatpak", "repo")
        for argv in (["ostree", "init", "--mode=archive-z2", f"--repo={repo}"],
                     ["ostree", "checkout", f"--repo={src}", "-U", self.ref, tree]):
            p = run(argv)
            check(p.returncode == 0, f"{' '.join(argv)}: {p.stderr}")
        share = os.path.join(tree, "files", "share", "rivulet")
        os.makedirs(share, exist_ok=True)
        with open(os.path.join(share, "newer-build"), "w", encoding="utf-8") as f:
            f.write(stamp + "\n")
        p = run(["flatpak", "build-export", "--no-update-summary", repo, tree, "master"])
        check(p.returncode == 0, f"flatpak build-export of the newer build: {p.stdout}{p.stderr}")
        return out

    def stamp(self):
        """What the installed app's /app/share/rivulet/newer-build reads (None: no such file)."""
        p = run(["flatpak", "run", "--user", "--command=cat", APP_ID, "/app/share/rivulet/newer-build"])
        return p.stdout.strip() if p.returncode == 0 else None

    def tampered_copy(self, name):
        """A copy of the served folder, to be altered and then served at the same address."""
        out = os.path.join(self.work, name)
        shutil.copytree(self.served, out, symlinks=True)
        return out

    def refused(self, out, evidence):
        """Serves `out` at the repository's address: flatpak update must leave the app as it
        is, and flatpak remote-info must fail on the signature (its message has `evidence`)."""
        before = self.installed()
        self.server.root = out
        try:
            up = flatpak("update", "-y", "--noninteractive", APP_ID)
            info = flatpak("remote-info", REMOTE, APP_ID)
        finally:
            self.server.root = self.served
        after = self.installed()
        check(after == before, f"flatpak update installed from the tampered repository: "
              f"{before} -> {after}\n{up.stdout}{up.stderr}")
        check(info.returncode != 0 and evidence in info.stderr,
              f"flatpak remote-info on the tampered repository: exit {info.returncode}, want "
              f"{evidence!r} in its error:\n{info.stdout}{info.stderr}")
        return " ".join(l for l in info.stderr.splitlines() if evidence in l)[:160]

    def close(self):
        self.forget()
        # As the bundle's cases left it, for tests/flatpak/shots and the next run.
        flatpak("install", "-y", "--noninteractive", "--bundle", self.bundle, timeout=300)
        self.server.stop()
        for home in self.homes.values():
            if os.path.isdir(home):
                run(["gpgconf", "--homedir", home, "--kill", "gpg-agent"], timeout=30)
        shutil.rmtree(self.work, ignore_errors=True)


def run_cases(suite, args):
    r = Repo(args)
    try:
        cases(suite, r)
    finally:
        r.close()


def cases(suite, r):
    repo = os.path.join(r.served, "repo")
    src = os.path.join(r.build, "flatpak", "repo")
    state = {}

    def published():
        # What a publisher is told without a key or without a build; then published, signed.
        p = r.publish(r.served, None, None, make=True)
        check(p.returncode != 0 and "flatpak-repo: no signing key" in p.stderr and
              not os.path.exists(repo), f"make flatpak-repo without GPG_KEY: exit "
              f"{p.returncode}\n{p.stdout}{p.stderr}")
        p = r.publish(r.served, "0123456789ABCDEF", r.work, build=r.work)
        check(p.returncode == 1 and "run make flatpak first" in p.stderr,
              f"without a build: exit {p.returncode}\n{p.stderr}")
        r.key = make_key(r.homes["own"], "Rivulet test repository <test@rivulet.invalid>")
        p = r.publish(r.served, "0123456789ABCDEF", r.homes["own"])
        check(p.returncode == 2 and "no secret key" in p.stderr,
              f"with a key not in GPG_HOMEDIR: exit {p.returncode}\n{p.stderr}")
        p = r.publish(r.served, r.key, r.homes["own"], make=True)
        check(p.returncode == 0 and "flatpak-repo: published" in p.stdout,
              f"make flatpak-repo: exit {p.returncode}\n{p.stdout}{p.stderr}")
        state["first"] = r.commit_of(repo)
        # The files of the bundle's build, in a commit signed by the key, a signed summary.
        a = run(["ostree", f"--repo={repo}", "ls", "-R", "-C", r.ref])
        b = run(["ostree", f"--repo={src}", "ls", "-R", "-C", r.ref])
        check(a.returncode == 0 and a.stdout == b.stdout,
              "the published files differ from the build's")
        pub = subprocess.run(["gpg", "--homedir", r.homes["own"], "--batch", "--export", r.key],
                             capture_output=True, timeout=60).stdout
        # ostree reads the keyrings (*.gpg) in the folder it is given.
        keyring = os.path.join(r.work, "keyring")
        os.makedirs(keyring)
        with open(os.path.join(keyring, "rivulet.gpg"), "wb") as f:
            f.write(pub)
        p = run(["ostree", f"--repo={repo}", "show", f"--gpg-homedir={keyring}", r.ref])
        check(p.returncode == 0 and "Good signature" in p.stdout,
              f"the published commit is not signed by the test key:\n{p.stdout}{p.stderr}")
        for sig in ("summary.sig", "summary.idx.sig"):
            check(os.path.getsize(os.path.join(repo, sig)) > 0, f"empty {sig}")
        want = {"Title": "Rivulet", "Url": f"{r.server.url}/repo/",
                "GPGKey": base64.b64encode(pub).decode()}
        fr = key_group(os.path.join(r.served, "rivulet.flatpakrepo"), "Flatpak Repo")
        ref = key_group(os.path.join(r.served, f"{APP_ID}.flatpakref"), "Flatpak Ref")
        for name, kf in (("rivulet.flatpakrepo", fr), (f"{APP_ID}.flatpakref", ref)):
            got = {k: kf.get(k) for k in want}
            check(pub and got == want and kf.get("Homepage", "").startswith("https://"),
                  f"{name}: {kf}, want {want} and a Homepage")
        want = {"Name": APP_ID, "Branch": "master", "IsRuntime": "false",
                "SuggestRemoteName": REMOTE}
        check({k: ref.get(k) for k in want} == want and ref.get("RuntimeRepo"),
              f"{APP_ID}.flatpakref: {ref}, want {want} and a RuntimeRepo")
        return (f"commit {state['first'][:12]} signed by the test key; both files name "
                f"{r.server.url}")

    if suite.case("flatpak repo: make flatpak-repo publishes the build signed, and says why not "
                  "without a key or a build", published) != "OK":
        return

    def install():
        r.forget()
        del r.server.paths[:]
        p = flatpak("remote-add", REMOTE, f"{r.server.url}/rivulet.flatpakrepo")
        check(p.returncode == 0, f"flatpak remote-add: exit {p.returncode}\n{p.stderr}")
        q = flatpak("install", "-y", "--noninteractive", REMOTE, APP_ID)
        check(q.returncode == 0,
              f"flatpak install {REMOTE} {APP_ID}: exit {q.returncode}\n{q.stderr}")
        no_criticals(p.stderr, q.stdout, q.stderr)
        with open(os.path.join(r.build, "flatpak", "source"), encoding="utf-8") as f:
            subject = f"Rivulet {r.version} (built from git {f.read().strip()})"
        got = r.installed()
        want = {"Origin": REMOTE, "Commit": state["first"], "Subject": subject}
        check(got == want, f"installed {got}, want {want}")
        check("/repo/summary.idx" in r.server.paths and
              any(x.startswith("/repo/objects/") for x in r.server.paths),
              f"not fetched over HTTP: {r.server.paths[:20]}")
        return f"{r.runs()} from {REMOTE}, commit {state['first'][:12]}"

    if suite.case("flatpak repo: flatpak remote-add of rivulet.flatpakrepo (HTTP on loopback), "
                  "install, run", install) != "OK":
        return

    def update():
        p = r.publish(r.served, r.key, r.homes["own"])
        check(p.returncode == 0 and "nothing new" in p.stdout and
              r.commit_of(repo) == state["first"],
              f"publishing the same build again: exit {p.returncode}\n{p.stdout}{p.stderr}")
        check(r.stamp() is None, "the first build already has /app/share/rivulet/newer-build")
        subject = f"Rivulet {r.version}: a newer build (make test-flatpak)"
        stamp = f"newer build {os.getpid()}"
        p = r.publish(r.served, r.key, r.homes["own"], build=r.newer_build(stamp),
                      REPO_SUBJECT=subject)
        state["second"] = r.commit_of(repo)
        check(p.returncode == 0 and state["second"] != state["first"],
              f"publishing a newer build: exit {p.returncode}\n{p.stdout}{p.stderr}")
        q = flatpak("update", "-y", "--noninteractive")
        check(q.returncode == 0, f"flatpak update: exit {q.returncode}\n{q.stdout}{q.stderr}")
        no_criticals(q.stdout, q.stderr)
        got = r.installed()
        want = {"Origin": REMOTE, "Commit": state["second"], "Subject": subject}
        check(got == want, f"after flatpak update: {got}, want {want}")
        check(r.stamp() == stamp, f"after flatpak update the app's newer-build file reads "
              f"{r.stamp()!r}, not {stamp!r}: the newer build's files did not arrive")
        r.runs()
        return (f"{state['first'][:12]} -> {state['second'][:12]}, flatpak info: {subject!r}; "
                f"the sandbox reads the newer build's file")

    if suite.case("flatpak repo: flatpak update installs a newer build published to the repo",
                  update) != "OK":
        return

    def other_key():
        out = r.tampered_copy("other-key-served")
        other = make_key(r.homes["other"], "Someone else <else@rivulet.invalid>")
        p = r.publish(out, other, r.homes["other"], REPO_FORCE="1", REPO_SUBJECT="not from Rivulet")
        check(p.returncode == 0, f"publishing with the other key: {p.stdout}{p.stderr}")
        # gpg names the key it could not check by its last 16 hex digits.
        return r.refused(out, other[-16:])

    suite.case("flatpak repo: a newer build signed with another key is refused, the app unchanged",
               other_key)

    def altered():
        # A new commit that no one signed, and the summaries remade to name it, beside the
        # signatures of the summaries as they were.
        out = r.tampered_copy("altered-served")
        trepo = os.path.join(out, "repo")
        sigs = {}
        for s in ("summary.sig", "summary.idx.sig"):
            with open(os.path.join(trepo, s), "rb") as f:
                sigs[s] = f.read()
        p = run(["flatpak", "build-commit-from", f"--src-repo={src}", "--force", "--timestamp=NOW",
                 "--subject=altered", "--no-update-summary", trepo, r.ref])
        check(p.returncode == 0, f"flatpak build-commit-from: {p.stderr}")
        p = run(["flatpak", "build-update-repo", trepo])
        check(p.returncode == 0, f"flatpak build-update-repo: {p.stderr}")
        for s, data in sigs.items():
            with open(os.path.join(trepo, s), "wb") as f:
                f.write(data)
        check(r.commit_of(trepo) != state["second"], "the altered copy names the same commit")
        return r.refused(out, "BAD signature")

    suite.case("flatpak repo: a summary altered after signing is refused, the app unchanged",
               altered)

    def flatpakref():
        r.forget()
        p = flatpak("install", "-y", "--noninteractive", f"{r.server.url}/{APP_ID}.flatpakref")
        check(p.returncode == 0, f"flatpak install URL.flatpakref: exit {p.returncode}\n{p.stderr}")
        no_criticals(p.stdout, p.stderr)
        got = r.installed()
        want = {"Origin": REMOTE, "Commit": r.commit_of(repo)}
        check({k: got.get(k) for k in want} == want, f"installed {got}, want {want}")
        return f"{r.runs()} from the remote it suggests, {REMOTE}"

    suite.case("flatpak repo: flatpak install of the .flatpakref URL adds the remote and installs",
               flatpakref)
