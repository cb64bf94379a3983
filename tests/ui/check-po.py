#!/usr/bin/env python3
# check-po.py
# Copyright 2026 The Rivulet authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Fails (TAP) unless every language in po/LINGUAS is complete for the
# current sources: its .po passes `msgfmt --check` with no fuzzy or
# untranslated message, and so does the .po merged with a template freshly
# extracted from the files in po/POTFILES.in (a string added to the code
# but not translated fails here). Also checks that po/rivulet.pot is
# current.
#
# Usage: check-po.py SOURCE_ROOT XGETTEXT MSGMERGE MSGFMT

import pathlib
import re
import subprocess
import sys
import tempfile

# The keywords of meson's i18n 'glib' preset.
XGETTEXT_ARGS = [
    '--from-code=UTF-8', '--add-comments',
    '--keyword=_', '--keyword=N_', '--keyword=C_:1c,2', '--keyword=NC_:1c,2',
    '--keyword=g_dcgettext:2', '--keyword=g_dngettext:2,3', '--keyword=g_dpgettext2:2c,3',
    '--flag=N_:1:pass-c-format', '--flag=C_:2:pass-c-format', '--flag=NC_:2:pass-c-format',
    '--flag=g_dngettext:2:pass-c-format', '--flag=g_strdup_printf:1:c-format',
]

STATS = re.compile(r'(\d+) translated messages?(?:, (\d+) fuzzy translations?)?'
                   r'(?:, (\d+) untranslated messages?)?\.')


def msgids(pot_text):
    """The (context, msgid) pairs of a .pot, header excluded."""
    ids = set()
    context = None
    current = None
    field = None
    for line in pot_text.splitlines() + ['']:
        if line.startswith('msgctxt '):
            context = line[8:].strip()[1:-1]
            field = 'ctx'
        elif line.startswith('msgid '):
            current = line[6:].strip()[1:-1]
            field = 'id'
        elif line.startswith('"') and field in ('ctx', 'id'):
            if field == 'ctx':
                context += line.strip()[1:-1]
            else:
                current += line.strip()[1:-1]
        elif line.startswith('msgid_plural') or line.startswith('msgstr'):
            field = None
        elif not line.strip():
            if current:
                ids.add((context, current))
            context = current = field = None
    return ids


def statistics(msgfmt, po):
    run = subprocess.run([msgfmt, '--check', '--statistics', '-o', '/dev/null', str(po)],
                         capture_output=True, text=True, env={'LC_ALL': 'C'})
    match = STATS.search(run.stderr)
    if run.returncode != 0 or not match:
        return None, run.stderr.strip()
    return (int(match.group(1)), int(match.group(2) or 0), int(match.group(3) or 0)), run.stderr.strip()


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    xgettext, msgmerge, msgfmt = sys.argv[2:5]
    po_dir = root / 'po'
    languages = (po_dir / 'LINGUAS').read_text(encoding='utf-8').split()
    results = []

    with tempfile.TemporaryDirectory() as tmp:
        fresh = pathlib.Path(tmp) / 'fresh.pot'
        subprocess.run([xgettext, '--package-name=rivulet', '-D', str(root),
                        '-f', str(po_dir / 'POTFILES.in'), '-o', str(fresh)] + XGETTEXT_ARGS,
                       check=True, capture_output=True)
        fresh_ids = msgids(fresh.read_text(encoding='utf-8'))
        results.append((len(fresh_ids) > 0, f'{len(fresh_ids)} messages extracted from POTFILES.in'))

        pot = po_dir / 'rivulet.pot'
        stale = pot.exists() and msgids(pot.read_text(encoding='utf-8')) != fresh_ids
        results.append((pot.exists() and not stale,
                        'po/rivulet.pot is current (meson compile -C BUILDDIR rivulet-pot)'))

        results.append((len(languages) > 0, f'po/LINGUAS lists {" ".join(languages)}'))
        for lang in languages:
            po = po_dir / f'{lang}.po'
            if not po.exists():
                results.append((False, f'{lang}.po exists'))
                continue

            stats, text = statistics(msgfmt, po)
            results.append((stats is not None and stats[1] == 0 and stats[2] == 0,
                            f'{lang}.po: msgfmt --check: {text}'))

            merged = pathlib.Path(tmp) / f'{lang}.po'
            subprocess.run([msgmerge, '--quiet', '--no-fuzzy-matching', '-o', str(merged),
                            str(po), str(fresh)], check=True, capture_output=True)
            stats, text = statistics(msgfmt, merged)
            results.append((stats == (len(fresh_ids), 0, 0),
                            f'{lang}.po translates all {len(fresh_ids)} current messages: {text}'))

    print(f'1..{len(results)}')
    failed = 0
    for number, (ok, what) in enumerate(results, 1):
        print(f'{"ok" if ok else "not ok"} {number} - {what}')
        failed += not ok
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
