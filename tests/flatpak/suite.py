#!/usr/bin/env python3
"""Rivulet's Flatpak as a user meets it: the cases of `make test-flatpak`.

Started by tests/flatpak/run once the bundle is built. Installs the bundle with
`flatpak install --user --bundle`, then runs the sandboxed app: its window under Xvfb
on the embedded server, rivulet-cli bursts inside the sandbox, a real Gradio 6.25 app
on loopback (started with tests/gradio's machinery), and its permissions. Then the same
build as published to Rivulet's own signed repository (tests/flatpak/repo_cases.py). Each case is
one entry of a meson-style JSON test log (--log) that .ci/summarize.py counts.
"""
import argparse
import configparser
import json
import os
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gradio"))
from suite import (CaseSkipped, Python, Server, Suite, check, free_port)  # noqa: E402

APP_ID = "io.github.rivulet.Rivulet"
# What the app needs, and nothing more: network, IPC (X11 shared memory), Wayland with
# X11 as fallback, DRI for GL. Files go through the portals (no --filesystem).
# flatpak info lists fallback-x11 together with x11 (x11 is then granted only where there is
# no Wayland), so x11 is expected there beside it.
WANT_PERMISSIONS = {"shared": {"network", "ipc"}, "sockets": {"wayland", "fallback-x11", "x11"},
                    "devices": {"dri"}}
WANT_FINISH_ARGS = ["--share=network", "--share=ipc", "--socket=wayland", "--socket=fallback-x11",
                    "--device=dri"]
# Distinct non-grey colours on screen: the window with the embedded demo's one PNG picture
# has about 1,000; with the Gradio app's WebP gradients (a picture and a gallery) over 100,000.
PICTURE_COLOURS = 20000


def run(argv, timeout=300, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)


def xvfb(argv, size="1400x900"):
    """argv under a fresh Xvfb and session bus (flatpak's D-Bus proxy needs one)."""
    return ["xvfb-run", "-a", "-n", str(100 + os.getpid() % 4000), "-s",
            f"-screen 0 {size}x24 -nolisten tcp", "dbus-run-session", "--"] + argv


# The sandboxed window under Xvfb: software rendering (no GPU here), X11.
FLATPAK_RUN = ["flatpak", "run", "--user", "--env=GSK_RENDERER=cairo", "--env=GDK_BACKEND=x11"]


def saturated_colours(png):
    """Distinct non-grey colours in a screenshot (its raw RGB pixels from ImageMagick)."""
    p = subprocess.run(["convert", png, "-depth", "8", "rgb:-"], capture_output=True, timeout=60)
    check(p.returncode == 0, f"convert {png}: {p.stderr.decode(errors='replace')}")
    raw = p.stdout
    colours = {raw[i:i + 3] for i in range(0, len(raw) - 2, 3)}
    return sum(1 for c in colours if max(c) - min(c) > 40)


class Flatpak:
    def __init__(self, args):
        self.args = args
        self.scratch = args.scratch

    def shot(self, name, app_args, extra_env=(), width=1400):
        """Runs tests/flatpak/screenshot; returns (png path, its output)."""
        png = os.path.join(self.scratch, name + ".png")
        if os.path.exists(png):
            os.unlink(png)
        p = run(["bash", os.path.join(HERE, "screenshot"), png, str(width)] + list(extra_env)
                + ["--"] + app_args, timeout=240)
        check(p.returncode == 0 and os.path.exists(png),
              f"screenshot exit {p.returncode}:\n{(p.stdout + p.stderr)[-2000:]}")
        return png, p.stdout + p.stderr

    def cli(self, *argv, timeout=300):
        return run(["flatpak", "run", "--user", "--command=rivulet-cli", APP_ID] + list(argv),
                   timeout=timeout)

    def serve_in_sandbox(self):
        """rivulet-cli serve inside the sandbox on a free loopback port; returns (proc, url)."""
        port = free_port()
        log = open(os.path.join(self.scratch, "serve.log"), "w")
        proc = subprocess.Popen(["flatpak", "run", "--user", "--command=rivulet-cli", APP_ID,
                                 "serve", "--port", str(port)], stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                urllib.request.urlopen(url + "/config", timeout=2).read()
                return proc, url
            except OSError:
                time.sleep(0.3)
        self.kill(proc)
        raise AssertionError(f"rivulet-cli serve in the sandbox did not answer on {url}")

    @staticmethod
    def kill(proc):
        # The sandbox outlives `flatpak run` while anything runs in it: end the app's instances.
        run(["flatpak", "kill", APP_ID], timeout=30)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def load_summary(p):
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    check(lines, f"rivulet-cli load printed no JSON summary (exit {p.returncode}):\n{p.stderr[-1500:]}")
    return json.loads(lines[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--build", required=True, help="the build folder (its flatpak/repo is published)")
    ap.add_argument("--manifest", required=True, help="the published manifest (its finish-args)")
    ap.add_argument("--runtime", required=True, help="the runtime the bundle was built against")
    ap.add_argument("--log", required=True)
    ap.add_argument("--scratch", required=True)
    ap.add_argument("--gradio-root", help="the real-Gradio Debian root (mounted), for the Gradio case")
    ap.add_argument("--gradio-skip", help="why the Gradio case cannot run here")
    ap.add_argument("--jobs", type=int, default=1000)
    args = ap.parse_args()
    args.expected_failures = []
    suite = Suite(args)
    fp = Flatpak(args)

    def install():
        run(["flatpak", "--user", "uninstall", "-y", "--noninteractive", APP_ID], timeout=120)
        p = run(["flatpak", "--user", "install", "-y", "--noninteractive", "--bundle", args.bundle])
        check(p.returncode == 0, f"flatpak install --user --bundle: exit {p.returncode}\n{p.stderr}")
        p = run(["flatpak", "--user", "info", "--show-runtime", APP_ID])
        runtime = p.stdout.strip()
        name, version = args.runtime.split("//")
        check(p.returncode == 0 and runtime == f"{name}/x86_64/{version}",
              f"installed app runs on {runtime!r}, built against {args.runtime!r}")
        return f"installed, runtime {runtime}"

    if suite.case("flatpak: the bundle installs with flatpak install --user --bundle", install) != "OK":
        return 1

    def permissions():
        p = run(["flatpak", "--user", "info", "--show-permissions", APP_ID])
        check(p.returncode == 0, p.stderr)
        kf = configparser.ConfigParser(interpolation=None)
        kf.optionxform = str
        kf.read_string(p.stdout)
        got = {k: {v for v in kf["Context"][k].split(";") if v} for k in kf["Context"]} \
            if kf.has_section("Context") else {}
        check(got == WANT_PERMISSIONS and kf.sections() == ["Context"],
              f"flatpak info --show-permissions:\n{p.stdout}\nwant exactly {WANT_PERMISSIONS}")
        with open(args.manifest, encoding="utf-8") as f:
            finish = json.load(f)["finish-args"]
        check(sorted(finish) == sorted(WANT_FINISH_ARGS), f"finish-args {finish}, want {WANT_FINISH_ARGS}")
        return "; ".join(f"{k}={';'.join(sorted(v))}" for k, v in sorted(got.items()))

    suite.case("flatpak: permissions are exactly network, ipc, wayland + x11 fallback, dri", permissions)

    def window_burst():
        p = run(xvfb(FLATPAK_RUN + [APP_ID, "--burst", "20", "--quit-after-burst"]), timeout=300)
        lines = [l for l in p.stdout.splitlines() if l.startswith("rivulet: burst of")]
        check(lines and "burst of 20: 20 done, 0 failed, 0 cancelled, 0 lost" in lines[-1],
              f"window exit {p.returncode}: {lines}\n{p.stderr[-1500:]}")
        return lines[-1][len("rivulet: "):]

    suite.case("flatpak: the sandboxed window connects to its embedded server (burst of 20)",
               window_burst)

    def window_shot():
        png, out = fp.shot("window", [APP_ID, "--burst", "3"])
        p = run(["identify", "-format", "%w %h %k", png])
        w, h, colours = (int(v) for v in p.stdout.split())
        check(w >= 600 and h >= 300 and colours >= 16,
              f"{png}: {w}x{h}, {colours} colours: blank or not the window\n{out[-1000:]}")
        return f"{w}x{h}, {colours} colours"

    suite.case("flatpak: the sandboxed window shows on screen (screenshot not blank)", window_shot)

    def cli_burst():
        proc, url = fp.serve_in_sandbox()
        try:
            p = fp.cli("load", "--url", url, "--endpoint", "batch_echo", "--count", str(args.jobs),
                       "--json", "--timeout", "300", timeout=420)
        finally:
            fp.kill(proc)
        s = load_summary(p)
        check(p.returncode == 0 and s.get("completed") == args.jobs and s.get("lost") == 0,
              f"exit {p.returncode}, summary {json.dumps(s)[:800]}")
        return f"{s['completed']} of {args.jobs} completed, {s['lost']} lost in {s['wall_s']:.1f} s"

    suite.case(f"flatpak: rivulet-cli in the sandbox, {args.jobs:,} jobs on its own server, 0 lost",
               cli_burst)

    def webp_loader():
        p = run(["flatpak", "run", "--user", "--command=sh", APP_ID, "-c",
                 "cat /usr/lib/*/gdk-pixbuf-2.0/2.10.0/loaders.cache || echo NO-LOADERS-CACHE"])
        if "NO-LOADERS-CACHE" in p.stdout:
            # GNOME 50's gdk-pixbuf has glycin built in; the Gradio case's window shows WebP there.
            raise CaseSkipped(f"{args.runtime} has no gdk-pixbuf loaders.cache (glycin decodes "
                              "images there): no loader module to look for")
        check(p.returncode == 0 and '"image/webp"' in p.stdout,
              f"no WebP loader registered in the runtime's gdk-pixbuf:\n{p.stderr}")
        return "image/webp in the runtime's loaders.cache"

    suite.case("flatpak: the runtime's gdk-pixbuf loads WebP", webp_loader)

    def gradio():
        if not args.gradio_root:
            raise CaseSkipped(args.gradio_skip or "no real-Gradio root")
        py = Python(root=args.gradio_root)
        py.scratch = args.scratch
        workdir = py.workdir("6.25.0")
        os.makedirs(workdir[0], exist_ok=True)
        server = Server(py, "6.25.0", "main", workdir)
        try:
            check(server.wait_ready(180), f"Gradio 6.25 did not start:\n{server.tail()}")
            p = fp.cli("load", "--url", server.url, "--endpoint", "webp_gallery", "--count", "2",
                       "--data", "[3, 0.1]", "--json", "--output", "-", timeout=240)
            s = load_summary(p) if p.returncode != 0 else None
            records = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
            check(p.returncode == 0 and records, f"exit {p.returncode} {s}\n{p.stderr[-1500:]}")
            webp = sum(json.dumps(r).count(".webp") for r in records)
            check(webp >= 2, f"no WebP outputs in the records: {json.dumps(records)[:800]}")
            png, out = fp.shot("gradio-webp", [APP_ID, "--server", server.url, "--endpoint",
                                               "webp_gallery", "--data", "[4, 0.1]", "--burst", "1"])
            n = saturated_colours(png)
            check(n >= PICTURE_COLOURS, f"{png}: {n} non-grey colours, fewer than the "
                  f"{PICTURE_COLOURS} of a WebP gradient on screen\n{out[-1000:]}")
            return f"{webp} WebP outputs via rivulet-cli; window shows {n} non-grey colours"
        finally:
            server.stop()

    suite.case("flatpak: the sandboxed app reaches real Gradio 6.25 and shows its WebP picture",
               gradio)

    def portals():
        # No --filesystem: opening and saving files goes through the FileChooser portal.
        if not os.path.exists("/usr/libexec/xdg-desktop-portal"):
            raise CaseSkipped("no xdg-desktop-portal on this machine: files through the portals "
                              "cannot be tried here")
        raise CaseSkipped("xdg-desktop-portal is installed, but its file dialog is not driven "
                          "by this suite: files through the portals are not tried")

    suite.case("flatpak: files open and save through the portals", portals)

    # Rivulet's own signed repository: published, added, installed, updated, tampered with.
    from repo_cases import run_cases
    run_cases(suite, args)

    run(["flatpak", "kill", APP_ID], timeout=30)
    return 1 if any(e["result"] == "FAIL" for e in suite.results) else 0


if __name__ == "__main__":
    sys.exit(main())
