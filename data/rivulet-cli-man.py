#!/usr/bin/env python3
# data/rivulet-cli-man.py
# Copyright 2026 The Rivulet authors
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write rivulet-cli's man page from its help text.

Runs RIVULET_CLI with --help, finds its commands there, runs each command with
--help-all (every option group; a command with commands of its own, such as
"report", with --help, and each of those with --help-all), and writes one troff
page of section 1 from what they print (and --version). The output depends on
that text alone, so the page in the tree (data/rivulet-cli.1) can be checked against a
build:

  rivulet-cli-man.py RIVULET_CLI                   the page on standard output
  rivulet-cli-man.py --output FILE RIVULET_CLI     the page into FILE
  rivulet-cli-man.py --check FILE RIVULET_CLI      exit 1 with a diff when FILE differs

Standard library only.
"""

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path


class HelpError(Exception):
    pass


def run_help(cli, args):
    """The help text of `cli args`, or None when it exits with a status other than 0."""
    env = dict(os.environ)
    # The same text in every environment: no translation, one character set, and
    # no re-execution for the allocator (riv-malloc.c).
    for name in ("LANGUAGE", "LANG", "LC_MESSAGES", "LC_CTYPE"):
        env.pop(name, None)
    env["LC_ALL"] = "C.UTF-8"
    env["RIVULET_NO_REEXEC"] = "1"
    proc = subprocess.run([cli] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=env, timeout=60, check=False)
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("utf-8")


# ---------------------------------------------------------------------------
# Reading the help texts

def parse_top(text):
    """rivulet-cli --help: its usage, description, commands, options and the rest."""
    lines = text.rstrip("\n").split("\n")
    m = re.match(r"Usage:\s+(.*)$", lines[0])
    if not m:
        raise HelpError("rivulet-cli --help does not start with \"Usage:\"")
    top = {"usage": m.group(1).strip(), "paragraphs": [], "lists": {}, "after": []}
    current = None          # the name of the list being read ("Commands", …)
    seen_lists = False
    para = []

    def end_para():
        if para:
            (top["after"] if seen_lists else top["paragraphs"]).append(" ".join(para))
            para.clear()

    for line in lines[1:]:
        if not line.strip():
            end_para()
            current = None
        elif line.startswith(" ") and current is not None:
            top["lists"][current].append(line.strip())
        elif re.match(r"^\S[^:]*:$", line):
            end_para()
            current = line[:-1]
            top["lists"][current] = []
            seen_lists = True
        else:
            current = None
            para.append(line.strip())
    end_para()

    commands = []
    for item in top["lists"].get("Commands", []):
        m = re.match(r"(\S+)\s+(.*)$", item)
        if not m:
            raise HelpError("cannot read the command line %r" % item)
        commands.append((m.group(1), m.group(2)))
    if not commands:
        raise HelpError("rivulet-cli --help lists no commands")
    top["commands"] = commands
    options = []
    for item in top["lists"].get("Options", []):
        m = re.match(r"(.*?\S)\s{2,}(.*)$", item)
        if not m:
            raise HelpError("cannot read the option line %r" % item)
        options.append(parse_option_names(m.group(1)) + (m.group(2),))
    top["options"] = options
    return top


def parse_option_names(spec):
    """"-p, --port=PORT" -> ("-p", "--port", "PORT")."""
    m = re.match(r"^(?:(-[^-\s]), )?(--?[^\s=]+)(?:[= ](\S+))?$", spec)
    if not m:
        raise HelpError("cannot read the option %r" % spec)
    return (m.group(1), m.group(2), m.group(3))


OPTION_LINE = re.compile(r"^  (?:(-[^-\s]), )?(--[^\s=]+)(?:=(\S+))?(?:\s{2,}(.*))?$")


def parse_goption(text):
    """A command's GOption help: usage lines, description, option groups, epilogue."""
    lines = text.rstrip("\n").split("\n")
    if not lines or lines[0] != "Usage:":
        raise HelpError("a command's help does not start with \"Usage:\"")
    i = 1
    usages = []
    while i < len(lines) and lines[i].startswith("  "):
        usages.append(lines[i].strip())
        i += 1
    blocks = []             # description: ("para", text) and ("item", name, text)
    groups = []             # (title, [(short, long, arg, help)])
    epilogue = []
    para = []

    def end_para(into):
        if para:
            into.append(("para", " ".join(para)))
            para.clear()

    group = None
    for line in lines[i:]:
        if not line.strip():
            end_para(epilogue if groups else blocks)
            group = None
            continue
        m = re.match(r"^(\S.*Options):$", line)
        if m:
            end_para(epilogue if groups else blocks)
            group = (m.group(1), [])
            groups.append(group)
            continue
        if group is not None:
            m = OPTION_LINE.match(line)
            if m:
                group[1].append([m.group(1), m.group(2), m.group(3), m.group(4) or ""])
            elif line.startswith("    ") and group[1]:
                group[1][-1][3] = (group[1][-1][3] + " " + line.strip()).strip()
            else:
                raise HelpError("cannot read the option line %r" % line)
            continue
        into = epilogue if groups else blocks
        # "  /name   what it is" is a list item, and so is "name: what it does" at
        # the start of a paragraph or after a sentence ("merge: …" / "compare: …").
        m = re.match(r"^  (\S+)\s{2,}(.*)$", line)
        if not m and (not para or para[-1].endswith(".")):
            m = re.match(r"^([a-z][a-z-]*): (.*)$", line)
        if m:
            end_para(into)
            into.append(("item", m.group(1), m.group(2)))
        else:
            para.append(line.strip())
    end_para(epilogue if groups else blocks)
    return {"usages": usages, "blocks": blocks, "groups": groups, "epilogue": epilogue}


def split_usage(usage):
    """"rivulet-cli serve [OPTION…] — run the server" -> (synopsis, summary)."""
    parts = usage.split(" \u2014 ", 1)
    return parts[0].strip(), (parts[1].strip() if len(parts) > 1 else "")


def read_cli(cli):
    top_text = run_help(cli, ["--help"])
    if top_text is None:
        raise HelpError("%s --help failed" % cli)
    top = parse_top(top_text)
    version = run_help(cli, ["--version"])
    top["version"] = version.strip() if version else ""
    sections = []           # (title, summary from the command list or None, parsed help)
    for name, summary in top["commands"]:
        text = run_help(cli, [name, "--help-all"])
        if text is not None and re.search(r"^\S.*Options:$", text, re.M):
            sections.append((name, summary, parse_goption(text), None))
            continue
        # A command of commands: its --help names them in its usage lines.
        text = run_help(cli, [name, "--help"])
        if text is None:
            raise HelpError("%s %s --help failed" % (cli, name))
        outer = parse_goption(text)
        subs = []
        for usage in outer["usages"]:
            words = usage.split()
            if len(words) > 2 and re.match(r"^[a-z][a-z-]*$", words[2]) and words[2] not in subs:
                subs.append(words[2])
        if not subs:
            raise HelpError("%s %s --help shows neither options nor commands" % (cli, name))
        sections.append((name, summary, outer, subs))
        for sub in subs:
            text = run_help(cli, [name, sub, "--help-all"]) or run_help(cli, [name, sub, "--help"])
            if text is None:
                raise HelpError("%s %s %s --help failed" % (cli, name, sub))
            sections.append((name + " " + sub, None, parse_goption(text), None))
    return top, sections


# ---------------------------------------------------------------------------
# Writing troff

def esc(text):
    """Text as troff reads it literally: escapes, hyphens as minus signs (options
    are typed with them), quotes that stay ASCII, everything else ASCII."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\e")
        elif ch == "-":
            out.append("\\-")
        elif ch == "'":
            out.append("\\(aq")
        elif ch == "`":
            out.append("\\(ga")
        elif ch == "^":
            out.append("\\(ha")
        elif ch == "~":
            out.append("\\(ti")
        elif ord(ch) > 126 or ord(ch) < 32:
            out.append("\\[u%04X]" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def text_line(text):
    """One input line of running text; a leading dot would make it a request (the
    other control character, the quote, is always escaped)."""
    line = esc(text)
    if line.startswith("."):
        line = "\\&" + line
    return line


def bold(text):
    return "\\fB" + esc(text) + "\\fR"


def italic(text):
    return "\\fI" + esc(text) + "\\fR"


def synopsis(usage):
    """A usage line with the program, commands and options bold, the values italic."""
    out = []
    for word in usage.split():
        m = re.match(r"^([\[(]*)(.*?)([\])\u2026]*)$", word)
        head, core, tail = m.groups()
        if not core or core == "|":
            styled = esc(core)
        elif core.startswith("-") or (not out and core) or re.match(r"^[a-z][a-z-]*$", core):
            styled = bold(core)
        else:
            styled = italic(core)
        out.append(esc(head) + styled + esc(tail))
    return " ".join(out)


def option_tag(short, long, arg):
    tag = (bold(short) + ", " if short else "") + bold(long)
    if arg:
        tag += "=" + italic(arg)
    return tag


def sentence(text):
    text = text.strip()
    if text and not text.endswith((".", "!", "?")):
        text += "."
    return text[:1].upper() + text[1:]


def blocks_out(out, blocks):
    """Paragraphs as paragraphs, "name  text" items as tagged paragraphs."""
    for block in blocks:
        if block[0] == "para":
            out += [".PP", text_line(block[1])]
        else:
            out += [".TP", bold(block[1]), text_line(block[2])]


def exit_sentences(blocks):
    found = []
    for block in blocks:
        if block[0] != "para":
            continue
        for s in re.split(r"(?<=\.)\s+(?=[A-Z])", block[1]):
            if re.match(r"^Exit(s|\s+status)\b", s):
                found.append(s)
    return found


def man_page(top, sections):
    prog = top["usage"].split()[0]
    name = top["paragraphs"][0] if top["paragraphs"] else prog
    out = [
        '.\\" Generated by data/rivulet-cli-man.py from "%s --help" and each' % prog,
        '.\\" command\'s --help-all. Do not edit: run "ninja -C _build rivulet-cli-man".',
        '.TH %s 1 "" "%s" "User Commands"' % (esc(prog.upper()), esc(top["version"] or prog)),
        # Option names are not hyphenated, and lines are not stretched to the margin.
        ".nh",
        ".ad l",
        ".SH NAME",
        text_line("%s - %s" % (prog, (name[:1].lower() + name[1:]).rstrip("."))),
        ".SH SYNOPSIS",
    ]
    usages = [top["usage"]]
    for title, summary, help_, subs in sections:
        if subs is None:
            usages += [split_usage(u)[0] for u in help_["usages"]]
    for i, usage in enumerate(usages):
        if i:
            out.append(".br")
        out.append(synopsis(usage))

    out.append(".SH DESCRIPTION")
    for para in top["paragraphs"]:
        out += [".PP", text_line(para)]
    for list_name, items in top["lists"].items():
        if list_name != "Commands":
            continue
        out += [".PP", text_line(list_name + ":")]
        width = max(len(name_) for name_, summary in top["commands"]) + 2
        for i, (name_, summary) in enumerate(top["commands"]):
            out += [".TP %d" % width if i == 0 else ".TP", bold(name_), text_line(summary)]
    examples = top["lists"].get("Examples", [])
    for para in top["after"]:
        out += [".PP", text_line(para)]

    out.append(".SH OPTIONS")
    for short, long, arg, help_text in top["options"]:
        out += [".TP", option_tag(short, long, arg), text_line(help_text)]

    out.append(".SH COMMANDS")
    for title, summary, help_, subs in sections:
        out.append('.SS "%s"' % esc(title))
        if subs is not None:
            # A command of commands: its own help, then a subsection each.
            out += [".PP", text_line(sentence(summary))]
            blocks_out(out, help_["blocks"])
            continue
        tagline = " ".join(split_usage(u)[1] for u in help_["usages"]).strip()
        out += [".PP", synopsis(split_usage(help_["usages"][0])[0])]
        for u in help_["usages"][1:]:
            out += [".br", synopsis(split_usage(u)[0])]
        if tagline:
            out += [".PP", text_line(sentence(tagline))]
        blocks_out(out, help_["blocks"])
        # -h, --help is the same for every command: said once, under OPTIONS.
        groups = [g for g in help_["groups"]
                  if not (g[0] == "Help Options"
                          and all(o[1] in ("--help", "--help-all") for o in g[1]))]
        for group_title, options in groups:
            out += [".PP", italic((group_title if len(groups) > 1 else "Options") + ":")]
            for short, long, arg, help_text in options:
                out += [".TP", option_tag(short, long, arg)]
                if help_text:
                    out.append(text_line(help_text))
        blocks_out(out, help_["epilogue"])

    if examples:
        out += [".SH EXAMPLES", ".PP", ".RS", ".nf"]
        out += [text_line(e) for e in examples]
        out += [".fi", ".RE"]

    out += [".SH EXIT STATUS", ".PP",
            text_line("Every command exits 0 when it did what it was asked, 1 when it could not "
                      "(a server it could not reach, a file it could not read), and 2 for bad "
                      "arguments, with a line saying what is wrong. What the commands say of "
                      "their status:")]
    for title, summary, help_, subs in sections:
        found = exit_sentences(help_["blocks"])
        if found:
            out += [".TP", bold(title), text_line(" ".join(found))]

    # Every environment variable the help names, with the options that name it.
    variables = {}
    for title, summary, help_, subs in sections:
        for group_title, options in help_["groups"]:
            for short, long, arg, help_text in options:
                for var in re.findall(r"\$([A-Z][A-Z0-9_]+)", help_text):
                    entry = variables.setdefault(var, {})
                    entry.setdefault((long, help_text), []).append(title)
    if variables:
        out.append(".SH ENVIRONMENT")
        for var in sorted(variables):
            out += [".TP", bold(var)]
            for i, ((long, help_text), titles) in enumerate(variables[var].items()):
                if i:
                    out.append(".br")
                out.append(bold(long) + " (" + esc(", ".join(titles)) + "): " + esc(help_text))

    out += [".SH SEE ALSO",
            text_line("The window, rivulet, runs the same client and load engine. "
                      "The guide to these commands, with examples, is app/docs/cli.md "
                      "in Rivulet's source tree, and the protocol they speak "
                      "app/docs/protocol.md.")]
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description="Write rivulet-cli's man page from its help text.")
    parser.add_argument("cli", help="the rivulet-cli executable")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--output", "-o",
                      help="write the page to this file (default: standard output)")
    what.add_argument("--check", metavar="FILE",
                      help="compare FILE with the page; exit 1, with a diff, when they differ")
    args = parser.parse_args()

    try:
        page = man_page(*read_cli(args.cli))
    except (HelpError, OSError, subprocess.SubprocessError) as e:
        print("rivulet-cli-man.py: %s" % e, file=sys.stderr)
        return 2

    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            generated = Path(tmp) / "rivulet-cli.1"
            generated.write_text(page, encoding="utf-8")
            new = generated.read_text(encoding="utf-8").splitlines(keepends=True)
        try:
            old = Path(args.check).read_text(encoding="utf-8").splitlines(keepends=True)
        except OSError as e:
            print("rivulet-cli-man.py: %s" % e, file=sys.stderr)
            old = []
        if old == new:
            print("%s matches %s --help" % (args.check, args.cli))
            return 0
        sys.stdout.writelines(difflib.unified_diff(old, new, args.check,
                                                   "%s --help" % args.cli))
        cli = Path(os.path.abspath(args.cli))
        page_path = os.path.normpath(os.path.abspath(args.check))
        build = cli.parents[2] if cli.parent.name == "cli" else "BUILDDIR"
        print("\n%s no longer matches the help text of %s. Update it with:\n"
              "  ninja -C %s rivulet-cli-man\n"
              "or\n"
              "  python3 %s --output %s %s"
              % (page_path, cli, build, os.path.abspath(__file__), page_path, cli))
        return 1

    if args.output:
        Path(args.output).write_text(page, encoding="utf-8")
    else:
        sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
