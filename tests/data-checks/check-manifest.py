#!/usr/bin/env python3
# tests/data-checks/check-manifest.py
# Copyright 2026 The Rivulet authors
# SPDX-License-Identifier: GPL-3.0-or-later
"""Offline checks that the Flatpak manifest, the desktop entry, the AppStream
metainfo and the app icons agree with each other. Prints TAP, one line per check.

Needs only the Python standard library. When flatpak-builder is installed it
also asks `flatpak-builder --show-manifest` to parse the manifest; otherwise
that check is reported as skipped, with the reason.
"""

import argparse
import configparser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

ALLOWED_FINISH_ARGS = [
    "--share=network",
    "--share=ipc",
    "--socket=wayland",
    "--socket=fallback-x11",
    "--device=dri",
]
MIN_RUNTIME_VERSION = 50
SVG_NS = "{http://www.w3.org/2000/svg}"


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, cond, what, why=""):
        self.n += 1
        if cond:
            print(f"ok {self.n} - {what}")
        else:
            self.failed += 1
            print(f"not ok {self.n} - {what}")
            for line in str(why).splitlines():
                print(f"# {line}")
        return cond

    def skip(self, what, why):
        self.n += 1
        print(f"ok {self.n} - {what} # SKIP {why}")

    def finish(self):
        print(f"1..{self.n}")
        return 1 if self.failed else 0


def load_desktop(path):
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # desktop entry keys are case-sensitive
    with open(path, encoding="utf-8") as f:
        parser.read_file(f)
    return parser["Desktop Entry"]


def exec_program(exec_line):
    # The first word of Exec= is the program; field codes (%U…) come later.
    words = exec_line.split()
    return words[0] if words else ""


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise ValueError("not a PNG file")
    return struct.unpack(">II", head[16:24])


def check_screenshots(tap, component, srcdir, version):
    # Screenshot URLs point at the repository's raw files at this version's
    # tag; the files they name must be in the checkout, as PNGs at least as
    # large as AppStream's composer expects (624x351).
    prefix = f"https://raw.githubusercontent.com/rivulet-app/rivulet/v{version}/"
    shots = component.findall("screenshots/screenshot")
    tap.check(len(shots) >= 1 and sum(1 for s in shots if s.get("type") == "default") == 1,
              "metainfo has screenshots, exactly one of them the default", f"{len(shots)} screenshots")
    for shot in shots:
        url = (shot.findtext("image") or "").strip()
        what = f"screenshot {url.rsplit('/', 1)[-1] or '?'} is a captioned PNG in the checkout"
        if not url.startswith(prefix) or not (shot.findtext("caption") or "").strip():
            tap.check(False, what, f"image {url!r} outside {prefix} or no caption")
            continue
        path = os.path.join(srcdir, url[len(prefix):])
        try:
            width, height = png_size(path)
            tap.check(width >= 624 and height >= 351, what, f"{path}: {width}x{height}")
        except (OSError, ValueError) as e:
            tap.check(False, what, e)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--desktop", required=True)
    ap.add_argument("--metainfo", required=True)
    ap.add_argument("--icons", required=True, help="the data/icons directory")
    ap.add_argument("--srcdir", required=True, help="the source tree (for screenshots)")
    ap.add_argument("--version", required=True, help="the project's version")
    args = ap.parse_args()
    tap = Tap()

    # --- The manifest itself --------------------------------------------------
    manifest = None
    try:
        with open(args.manifest, encoding="utf-8") as f:
            manifest = json.load(f)
        ok = isinstance(manifest, dict)
        tap.check(ok, "manifest is a valid JSON object", "top level is not an object")
        if not ok:
            manifest = None
    except (OSError, ValueError) as e:
        tap.check(False, "manifest is a valid JSON object", e)

    if manifest is None:
        return tap.finish()

    app_id = manifest.get("app-id", "")
    command = manifest.get("command", "")
    tap.check(re.fullmatch(r"[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*){2,}", app_id or "") is not None,
              "manifest app-id is a reverse-DNS id", f"app-id = {app_id!r}")
    tap.check(os.path.basename(args.manifest) == app_id + ".json",
              "manifest file is named after its app-id",
              f"{os.path.basename(args.manifest)} vs {app_id}.json")
    tap.check(manifest.get("runtime") == "org.gnome.Platform" and manifest.get("sdk") == "org.gnome.Sdk",
              "runtime is org.gnome.Platform with sdk org.gnome.Sdk",
              f"runtime = {manifest.get('runtime')!r}, sdk = {manifest.get('sdk')!r}")

    version = manifest.get("runtime-version")
    try:
        version_ok = isinstance(version, str) and int(version) >= MIN_RUNTIME_VERSION
    except ValueError:
        version_ok = False
    tap.check(version_ok, f"runtime-version is a GNOME release >= {MIN_RUNTIME_VERSION}",
              f"runtime-version = {version!r}")

    finish_args = manifest.get("finish-args", [])
    tap.check(not any(str(a).startswith(("--filesystem", "--persist")) for a in finish_args),
              "finish-args grant no filesystem access (file dialogs use portals)",
              "\n".join(a for a in finish_args if str(a).startswith(("--filesystem", "--persist"))))
    tap.check(sorted(finish_args) == sorted(ALLOWED_FINISH_ARGS) and len(set(finish_args)) == len(finish_args),
              "finish-args are exactly the allowed set",
              f"extra: {sorted(set(finish_args) - set(ALLOWED_FINISH_ARGS))}, "
              f"missing: {sorted(set(ALLOWED_FINISH_ARGS) - set(finish_args))}, "
              f"count: {len(finish_args)}")

    modules = manifest.get("modules", [])
    main_module = modules[-1] if modules and isinstance(modules[-1], dict) else {}
    tap.check(main_module.get("name") == "rivulet" and main_module.get("buildsystem") == "meson"
              and "--buildtype=release" in main_module.get("config-opts", []),
              "last module builds rivulet with meson, --buildtype=release",
              json.dumps(main_module, indent=2))
    sources = main_module.get("sources", [])
    src_ok = False
    why = json.dumps(sources)
    if len(sources) == 1 and sources[0].get("type") == "dir":
        src_dir = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(args.manifest)),
                                                sources[0].get("path", "")))
        try:
            with open(os.path.join(src_dir, "meson.build"), encoding="utf-8") as f:
                src_ok = re.search(r"project\(\s*'rivulet'", f.read()) is not None
        except OSError as e:
            why = e
    tap.check(src_ok, "module source is the checkout (a dir whose meson.build is project 'rivulet')", why)

    # The build folders the Makefile and CI make stay out of the Flatpak's sources.
    build_dirs = set()
    for name in ("Makefile", os.path.join(".ci", "run")):
        try:
            with open(os.path.join(args.srcdir, name), encoding="utf-8") as f:
                build_dirs |= set(re.findall(r"(?<![\w/.-])(_build(?:-[a-z]+)?)\b", f.read()))
        except OSError as e:
            tap.check(False, f"{name} is readable", e)
    skip = set(sources[0].get("skip", [])) if sources else set()
    tap.check(build_dirs and build_dirs <= skip, "module source skips every build folder of the Makefile and CI",
              f"build folders {sorted(build_dirs)}, skipped {sorted(skip)}")
    # No tests or benchmarks in the Flatpak: a native file sets rivulet_tests = false.
    natives = [o.split("=", 1)[1] for o in main_module.get("config-opts", []) if o.startswith("--native-file=")]
    native_ok, why = False, f"config-opts {main_module.get('config-opts')}"
    if len(natives) == 1:
        # flatpak-builder runs meson in a folder inside the module's source.
        path = os.path.normpath(os.path.join(args.srcdir, "_flatpak_build", natives[0]))
        try:
            with open(path, encoding="utf-8") as f:
                native_ok = re.search(r"^\[properties\][^[]*^rivulet_tests\s*=\s*false\s*$",
                                      f.read(), re.M) is not None
            why = f"{path} does not set rivulet_tests = false under [properties]"
        except OSError as e:
            why = e
    tap.check(native_ok, "the Flatpak build leaves out tests and benchmarks (native file: rivulet_tests = false)", why)

    # --- Desktop entry ----------------------------------------------------------
    try:
        desktop = load_desktop(args.desktop)
    except (OSError, configparser.Error, KeyError) as e:
        tap.check(False, "desktop file parses", e)
        desktop = None
    if desktop is not None:
        tap.check(os.path.basename(args.desktop) == app_id + ".desktop",
                  "desktop file is named <app-id>.desktop", os.path.basename(args.desktop))
        tap.check(exec_program(desktop.get("Exec", "")) == command,
                  "desktop Exec runs the manifest command",
                  f"Exec = {desktop.get('Exec')!r}, command = {command!r}")
        tap.check(desktop.get("Icon") == app_id, "desktop Icon is the app-id",
                  f"Icon = {desktop.get('Icon')!r}")
        tap.check(desktop.get("DBusActivatable", "false") == "false",
                  "desktop entry is not DBusActivatable (the app does not implement it)",
                  f"DBusActivatable = {desktop.get('DBusActivatable')!r}")

    # --- AppStream metainfo ----------------------------------------------------
    try:
        component = ET.parse(args.metainfo).getroot()
    except (OSError, ET.ParseError) as e:
        tap.check(False, "metainfo parses", e)
        component = None
    if component is not None:
        tap.check(component.findtext("id") == app_id, "metainfo id is the app-id",
                  f"id = {component.findtext('id')!r}")
        launchables = [l.text for l in component.findall("launchable") if l.get("type") == "desktop-id"]
        tap.check(launchables == [app_id + ".desktop"] and os.path.basename(args.desktop) == launchables[0],
                  "metainfo launchable is the installed desktop file", f"launchables = {launchables}")
        binaries = [b.text for b in component.findall("provides/binary")]
        tap.check(command in binaries and "rivulet-cli" in binaries,
                  "metainfo provides the manifest command and rivulet-cli", f"binaries = {binaries}")
        check_screenshots(tap, component, args.srcdir, args.version)
        releases = [r.get("version") for r in component.findall("releases/release")]
        tap.check(args.version in releases, "metainfo has a release entry for this version",
                  f"version {args.version}, releases {releases}")
        developer = component.find("developer")
        named = (developer is not None and developer.get("id") and developer.findtext("name")) \
            or component.findtext("developer_name")
        tap.check(bool(named), "metainfo names its developer (with an id on AppStream 1.0)",
                  "no developer block or developer_name")

    # --- Icons -------------------------------------------------------------------
    scalable = os.path.join(args.icons, "hicolor", "scalable", "apps", app_id + ".svg")
    symbolic = os.path.join(args.icons, "hicolor", "symbolic", "apps", app_id + "-symbolic.svg")
    try:
        root = ET.parse(scalable).getroot()
        tap.check(root.tag == SVG_NS + "svg" and root.get("viewBox", "").split() == ["0", "0", "128", "128"],
                  "scalable app icon is named after the app-id, an SVG with a 128x128 viewBox",
                  f"root = {root.tag}, viewBox = {root.get('viewBox')!r}")
    except (OSError, ET.ParseError) as e:
        tap.check(False, "scalable app icon is named after the app-id, an SVG with a 128x128 viewBox", e)
    try:
        root = ET.parse(symbolic).getroot()
        colours = set()
        gradients = 0
        for el in root.iter():
            if el.tag.endswith("Gradient"):
                gradients += 1
            for attr in ("fill", "stroke"):
                v = el.get(attr)
                if v and v not in ("none",):
                    colours.add(v.lower())
            for m in re.finditer(r"(?:fill|stroke)\s*:\s*([^;]+)", el.get("style", "")):
                if m.group(1).strip() != "none":
                    colours.add(m.group(1).strip().lower())
        tap.check(root.tag == SVG_NS + "svg" and root.get("viewBox", "").split() == ["0", "0", "16", "16"]
                  and gradients == 0 and colours <= {"#2e3436"},
                  "symbolic icon is a 16x16 SVG in #2e3436 only, without gradients",
                  f"viewBox = {root.get('viewBox')!r}, colours = {sorted(colours)}, gradients = {gradients}")
    except (OSError, ET.ParseError) as e:
        tap.check(False, "symbolic icon is a 16x16 SVG in #2e3436 only, without gradients", e)

    # --- flatpak-builder's own parser ---------------------------------------------
    builder = shutil.which("flatpak-builder")
    if builder is None:
        tap.skip("flatpak-builder --show-manifest accepts the manifest",
                 "flatpak-builder is not installed")
    else:
        try:
            res = subprocess.run([builder, "--show-manifest", os.path.abspath(args.manifest)],
                                 capture_output=True, text=True, timeout=60)
            # Unknown keys are only a warning there (exit 0), so treat any
            # diagnostic on stderr as a failure too.
            tap.check(res.returncode == 0 and "warning" not in res.stderr.lower()
                      and "error" not in res.stderr.lower(),
                      "flatpak-builder --show-manifest accepts the manifest",
                      f"exit {res.returncode}\n{res.stderr}")
        except (OSError, subprocess.TimeoutExpired) as e:
            tap.check(False, "flatpak-builder --show-manifest accepts the manifest", e)

    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
