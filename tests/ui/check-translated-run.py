#!/usr/bin/env python3
# check-translated-run.py
# Copyright 2026 The Rivulet authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Runs the rivulet binary from the build tree with LANGUAGE set to each
# language of po/LINGUAS and checks (TAP) that its --help summary comes out
# translated, i.e. main.c found the build tree's catalogues; that it stays
# English without LANGUAGE; and that RIVULET_LOCALEDIR overrides where the
# catalogues are looked for.
#
# Usage: check-translated-run.py SOURCE_ROOT RIVULET_BINARY

import os
import pathlib
import subprocess
import sys
import tempfile

SUMMARY = 'Demo and load-test Gradio job queues.'


def unquote(line):
    return line.strip()[1:-1].replace('\\"', '"').replace('\\n', '\n').replace('\\\\', '\\')


def translation(po, msgid):
    """The msgstr of msgid in a .po (no context, no plural)."""
    lines = po.read_text(encoding='utf-8').splitlines()
    for i, line in enumerate(lines):
        if not line.startswith('msgid '):
            continue
        text, j = unquote(line[6:]), i + 1
        while j < len(lines) and lines[j].startswith('"'):
            text += unquote(lines[j])
            j += 1
        if text != msgid or not lines[j].startswith('msgstr '):
            continue
        result, j = unquote(lines[j][7:]), j + 1
        while j < len(lines) and lines[j].startswith('"'):
            result += unquote(lines[j])
            j += 1
        return result
    return None


def help_text(binary, **env):
    full_env = {k: v for k, v in os.environ.items()
                if k not in ('LANGUAGE', 'LANG', 'LC_ALL', 'LC_MESSAGES', 'RIVULET_LOCALEDIR')}
    full_env.update(env)
    run = subprocess.run([binary, '--help'], capture_output=True, text=True, env=full_env,
                         timeout=30)
    return run.returncode, run.stdout


def utf8_locale():
    """A UTF-8 locale other than C: glibc 2.37 and later (Debian 13) ignore LANGUAGE
    under C.UTF-8, as under C. Debian 12's C.UTF-8 does not, so it serves there."""
    try:
        names = subprocess.run(['locale', '-a'], capture_output=True, text=True,
                               timeout=30).stdout.split()
    except (OSError, subprocess.SubprocessError):
        names = []
    utf8 = sorted(n for n in names if n.lower().endswith(('.utf8', '.utf-8'))
                  and not n.upper().startswith(('C.', 'POSIX')))
    preferred = [n for n in utf8 if n.startswith('en_')]
    return (preferred or utf8 or ['C.UTF-8'])[0]


def main():
    root = pathlib.Path(sys.argv[1])
    binary = sys.argv[2]
    languages = (root / 'po' / 'LINGUAS').read_text(encoding='utf-8').split()
    results = []
    locale = utf8_locale()
    print(f'# LANG={locale}')

    code, text = help_text(binary, LANG=locale)
    results.append((code == 0 and SUMMARY in text, 'untranslated without LANGUAGE'))

    for lang in languages:
        expected = translation(root / 'po' / f'{lang}.po', SUMMARY)
        code, text = help_text(binary, LANG=locale, LANGUAGE=lang)
        results.append((bool(expected) and expected != SUMMARY and code == 0 and expected in text,
                        f'LANGUAGE={lang}: --help says “{expected}”'))

    if languages:
        with tempfile.TemporaryDirectory() as empty:
            code, text = help_text(binary, LANG=locale, LANGUAGE=languages[0],
                                   RIVULET_LOCALEDIR=empty)
            results.append((code == 0 and SUMMARY in text,
                            'RIVULET_LOCALEDIR (without catalogues) is used instead'))

    print(f'1..{len(results)}')
    failed = 0
    for number, (ok, what) in enumerate(results, 1):
        print(f'{"ok" if ok else "not ok"} {number} - {what}')
        failed += not ok
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
