#!/usr/bin/env python3
# check-potfiles.py
# Copyright 2026 The Rivulet authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Fails (TAP) when a source file with translatable strings is missing from
# po/POTFILES.in, or when POTFILES.in names a file that does not exist or
# is not sorted. Translatable means: gettext calls in C (_(), N_(), C_(),
# NC_(), g_dngettext(), g_dpgettext2(), ngettext()), translatable="yes" in
# GtkBuilder files, summaries and descriptions of a GSettings schema with a
# gettext-domain, and the translatable keys and elements of the desktop
# entry and AppStream metainfo templates.
#
# Usage: check-potfiles.py SOURCE_ROOT

import pathlib
import re
import sys

C_GETTEXT = re.compile(r'\b(?:_|N_|C_|NC_|g_dngettext|g_dpgettext2|g_dgettext|ngettext)\s*\(')
UI_TRANSLATABLE = re.compile(r'translatable\s*=\s*"(?:yes|true|1)"')
SCHEMA_STRINGS = re.compile(r'<(?:summary|description)>')
SCHEMA_DOMAIN = re.compile(r'gettext-domain\s*=')
DESKTOP_KEYS = re.compile(r'^(?:Name|GenericName|Comment|Keywords|X-GNOME-FullName)=', re.M)
METAINFO_ELEMENTS = re.compile(r'<(?:name|summary|p|li|caption|developer_name)(?:\s[^>]*)?>')


def strip_c_comments(text):
    return re.sub(r'/\*.*?\*/|//[^\n]*', '', text, flags=re.S)


def translatable(path):
    text = path.read_text(encoding='utf-8', errors='replace')
    name = path.name
    if name.endswith('.c') or name.endswith('.h'):
        return bool(C_GETTEXT.search(strip_c_comments(text)))
    if name.endswith('.ui'):
        return bool(UI_TRANSLATABLE.search(text))
    if name.endswith('.gschema.xml'):
        return bool(SCHEMA_DOMAIN.search(text) and SCHEMA_STRINGS.search(text))
    if name.endswith('.desktop.in'):
        return bool(DESKTOP_KEYS.search(text))
    if name.endswith('.xml.in'):
        return bool(METAINFO_ELEMENTS.search(text))
    if name.endswith('.in'):
        return bool(DESKTOP_KEYS.search(text) or UI_TRANSLATABLE.search(text))
    return False


def candidates(root):
    patterns = ['app/**/*.c', 'app/**/*.h', 'ui/**/*.ui', 'data/*.in', 'data/*.gschema.xml']
    seen = set()
    for pattern in patterns:
        for path in sorted(root.glob(pattern)):
            if path.is_file() and path not in seen:
                seen.add(path)
                yield path


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else '.').resolve()
    potfiles = root / 'po' / 'POTFILES.in'
    listed = [line.strip() for line in potfiles.read_text(encoding='utf-8').splitlines()
              if line.strip() and not line.lstrip().startswith('#')]

    results = []
    for path in candidates(root):
        if not translatable(path):
            continue
        rel = path.relative_to(root).as_posix()
        results.append((rel in listed, f'{rel} has translatable strings and is in POTFILES.in'))

    for rel in listed:
        results.append(((root / rel).is_file(), f'POTFILES.in entry {rel} exists'))
    results.append((listed == sorted(listed), 'POTFILES.in is sorted'))
    results.append((len(listed) == len(set(listed)), 'POTFILES.in has no duplicates'))

    print(f'1..{len(results)}')
    failed = 0
    for number, (ok, what) in enumerate(results, 1):
        print(f'{"ok" if ok else "not ok"} {number} - {what}')
        failed += not ok
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
