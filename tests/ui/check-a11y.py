#!/usr/bin/env python3
# check-a11y.py
# Copyright 2026 The Rivulet authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Rivulet as a screen reader hears it, through AT-SPI (TAP). Starts the app
# on its embedded demo server with accessibility on, then:
#  - walks the window's accessibility tree and fails on any control whose
#    spoken name is empty, a GTK/libadwaita/Rivulet class name
#    ("GtkMenuButton"), shows a mnemonic underscore ("_Submit"), or says its
#    label twice ("_Submit Submit", "step_delay step_delay");
#  - drives one whole demo session with the keyboard only (key events
#    synthesised through the AT-SPI registry): Tab to the endpoint list, pick
#    batch_echo, Tab to its text input, type a text, Tab to Submit and press
#    it, and read the finished job's output text back through AT-SPI;
#  - hears the finished job announced ("Job #1 finished. /batch_echo
#    completed in …"), on GTK 4.14 and later (GTK before it cannot announce).
# It needs python3-pyatspi and the AT-SPI bus (at-spi2-core), and runs
# inside the test suite's private D-Bus session under Xvfb.
#
# Usage: check-a11y.py RIVULET_BINARY

import os
import re
import subprocess
import sys
import time

import pyatspi
import riv_tap
from gi.repository import Atspi, GLib

CONTROL_ROLES = {
    pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_TOGGLE_BUTTON, pyatspi.ROLE_CHECK_BOX,
    pyatspi.ROLE_RADIO_BUTTON, pyatspi.ROLE_COMBO_BOX, pyatspi.ROLE_SPIN_BUTTON,
    pyatspi.ROLE_SLIDER, pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY, pyatspi.ROLE_PASSWORD_TEXT,
    pyatspi.ROLE_PAGE_TAB, pyatspi.ROLE_MENU_ITEM, pyatspi.ROLE_CHECK_MENU_ITEM,
    pyatspi.ROLE_RADIO_MENU_ITEM, pyatspi.ROLE_LINK, pyatspi.ROLE_PROGRESS_BAR,
}
CLASS_NAME = re.compile(r'^(Gtk|Adw|Riv)[A-Z][A-Za-z]*$')
MNEMONIC = re.compile(r'(^|\s)_\w')
ECHO = 'spoken by the keyboard'


def gtk_announces():
    """Whether the GTK the app is built on can announce (4.14 and later)."""
    proc = subprocess.run(['pkg-config', '--modversion', 'gtk4'], capture_output=True, text=True)
    parts = proc.stdout.strip().split('.')
    return proc.returncode == 0 and tuple(int(p) for p in parts[:2]) >= (4, 14)


ANNOUNCED = []


def on_announcement(event):
    ANNOUNCED.append(event.any_data if isinstance(event.any_data, str) else str(event.any_data))


def pump():
    """Delivers the AT-SPI events that have arrived."""
    context = GLib.MainContext.default()
    while context.pending():
        context.iteration(False)


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pump()
        try:
            value = predicate()
        except Exception:   # the tree changes under us while the app starts
            value = None
        if value:
            return value
        time.sleep(0.1)
    raise TimeoutError(what)


def nodes(node):
    yield node
    for child in node:
        if child is not None:
            yield from nodes(child)


def showing(node):
    # GTK 4.8 sets VISIBLE, never SHOWING.
    return node.getState().contains(pyatspi.STATE_VISIBLE)


def labels_of(node):
    """Names of the objects node is labelled by."""
    names = []
    for relation in node.getRelationSet():
        if relation.getRelationType() == pyatspi.RELATION_LABELLED_BY:
            for i in range(relation.getNTargets()):
                target = relation.getTarget(i)
                if target is not None and target.name:
                    names.append(target.name)
    return names


def bad_name(node):
    """Why node's spoken name is wrong, or None."""
    name = node.name or ''
    if node.getRole() == pyatspi.ROLE_TEXT and not node.getState().contains(pyatspi.STATE_EDITABLE):
        return None   # read-only text (the output) is read, not named
    if not name.strip():
        return 'no name'
    if CLASS_NAME.match(name):
        return 'a class name'
    if MNEMONIC.search(name):
        return 'a mnemonic underscore'
    words = name.split()
    half = len(words) // 2
    if len(words) % 2 == 0 and half > 0 and words[:half] == words[half:]:
        return 'said twice'
    for label in labels_of(node):
        if label != name and label in name:
            return f'its label “{label}” and more'
    return None


def find_app(name):
    for app in pyatspi.Registry.getDesktop(0):
        if app is not None and app.name == name and app.childCount > 0:
            return app
    return None


def focused(app):
    for node in nodes(app):
        if node.getState().contains(pyatspi.STATE_FOCUSED) and showing(node):
            return node
    return None


KEYSYMS = {'Tab': 0xff09, 'Return': 0xff0d, 'Down': 0xff54, 'space': 0x20}


def key(keysym):
    """Presses and releases keysym (a name in KEYSYMS)."""
    Atspi.generate_keyboard_event(KEYSYMS[keysym], None, Atspi.KeySynthType.PRESSRELEASE |
                                  Atspi.KeySynthType.SYM)
    time.sleep(0.15)


def type_text(text):
    Atspi.generate_keyboard_event(0, text, Atspi.KeySynthType.STRING)
    time.sleep(0.3)


def tab_to(app, predicate, what, limit=60):
    visited = []
    for _ in range(limit):
        node = focused(app)
        if node is not None and predicate(node):
            return node
        visited.append(f'{node.getRoleName()} “{node.name}”' if node is not None else 'nothing')
        key('Tab')
    raise TimeoutError(f'Tab never reached {what} (focus went: {", ".join(visited)})')


def main():
    binary = sys.argv[1]
    env = {k: v for k, v in os.environ.items() if k != 'GTK_A11Y'}
    env.setdefault('GSETTINGS_BACKEND', 'memory')
    listener = Atspi.EventListener.new(on_announcement)
    listener.register('object:announcement')
    proc = subprocess.Popen([binary, '--endpoint', 'fake_diffusion'], env=env)
    app_name = os.path.basename(binary)
    results = []
    try:
        app = wait_for(lambda: find_app(app_name), 60, 'the app on the AT-SPI bus')
        wait_for(lambda: any(n.name == 'Connected' for n in nodes(app)), 60, 'connected')
        time.sleep(1)

        # 1. Every control showing has one proper spoken name.
        bad = []
        seen = 0
        for node in nodes(app):
            if node.getRole() not in CONTROL_ROLES or not showing(node):
                continue
            seen += 1
            why = bad_name(node)
            if why:
                bad.append(f'{node.getRoleName()} “{node.name}”: {why}')
        results.append((seen >= 10 and not bad,
                        f'{seen} controls, each with one proper spoken name', bad))

        # 2. One demo session, keyboard only.
        steps = []
        ok = True
        try:
            combo = tab_to(app, lambda n: n.getRole() == pyatspi.ROLE_COMBO_BOX, 'the endpoint list')
            steps.append(f'focused the endpoint list “{combo.name}”')
            key('space')
            wait_for(lambda: any(n.getRole() == pyatspi.ROLE_LIST_ITEM and showing(n) and
                                 n.getState().contains(pyatspi.STATE_FOCUSED) for n in nodes(app)),
                     10, 'the endpoint list open')
            for _ in range(10):
                item = focused(app)
                if item is not None and any(c.name == '/batch_echo' for c in nodes(item)):
                    break
                key('Down')
            key('Return')
            wait_for(lambda: any(n.getRole() == pyatspi.ROLE_ENTRY and n.name == 'text' and showing(n)
                                 or n.getRole() == pyatspi.ROLE_TEXT and n.name == 'text' and showing(n)
                                 for n in nodes(app)), 10, 'batch_echo\'s text input')
            steps.append('picked /batch_echo')
            # The first input follows the endpoint list. GTK 4.8 reports
            # neither the focus nor the text inside an AdwEntryRow: the
            # output (batch_echo echoes its input) proves where the keys went.
            entry = next(n for n in nodes(app) if n.name == 'text' and showing(n) and
                         n.getRole() in (pyatspi.ROLE_ENTRY, pyatspi.ROLE_TEXT))
            key('Tab')   # keyboard focus selects the input's text: typing replaces it
            type_text(ECHO)
            steps.append(f'typed into “{entry.name}”')
            submit = tab_to(app, lambda n: n.getRole() == pyatspi.ROLE_PUSH_BUTTON and
                            n.name == 'Submit', 'the Submit button')
            key('space')
            steps.append(f'pressed “{submit.name}”')
            output = wait_for(
                lambda: next((n for n in nodes(app) if n.getRole() == pyatspi.ROLE_TEXT and
                              showing(n) and n.name != 'text' and
                              n.queryText().getText(0, -1) == ECHO), None),
                60, 'the finished job\'s output')
            steps.append(f'read the output: “{output.queryText().getText(0, -1)}”')
        except TimeoutError as error:
            ok = False
            steps.append(f'stopped: {error}')
            for node in nodes(app):
                if node.getRole() == pyatspi.ROLE_TEXT and showing(node):
                    steps.append(f'text “{node.name}” holds “{node.queryText().getText(0, -1)}”')
        results.append((ok, 'keyboard-only session: endpoint, input, submit, output', steps))

        # 3. The finished job, announced.
        if not gtk_announces():
            results.append((True, 'the finished job announced # SKIP GTK before 4.14 cannot '
                            'announce', []))
        else:
            heard = None
            try:
                heard = wait_for(lambda: next((a for a in ANNOUNCED if re.match(
                    r'Job #\d+ finished\. /batch_echo completed in ', a)), None), 30,
                    'the announcement')
            except TimeoutError:
                pass
            results.append((heard is not None, 'the finished job announced',
                            [f'heard “{a}”' for a in ANNOUNCED] or ['heard nothing']))
    except TimeoutError as error:
        results.append((False, f'the app on the AT-SPI bus: {error}', []))
    finally:
        proc.terminate()
        proc.wait(timeout=30)

    return riv_tap.finish(results, always=True)


if __name__ == '__main__':
    sys.exit(main())
