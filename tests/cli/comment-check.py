#!/usr/bin/python3
"""What an issue comment must be, checked apart from labrun's C code (issue 41, docs/labrun.md
'report'), from the facts of where it is pasted (GitHub: 65,536 characters at most; <details> folds,
Markdown inside one rendered only after a blank line following its <summary>).

    comment-check.py check REPORT.md MAX [--full FULL.md] [--forbid TEXT]...
        at most MAX characters (code points); every <details> closed before the next opens, each
        <summary> line followed by a blank line; no TEXT (a machine's path); no base64 run of 60 or
        more characters (a signature), hex digests apart; with FULL (the same report uncut): every
        fold of FULL that REPORT lacks is named on REPORT's closing line or counted there, and the
        closing line is there exactly when something was left out. Prints what it found.
    comment-check.py groups REPORT.md REPORT.json
        the grouped failing cases of the Markdown, each line's case ranges and routes expanded, are
        exactly the cases of the JSON's full list (serving.failing): none lost, none added.
"""
import json
import re
import sys

SUMMARY = re.compile(r"^<details><summary>(.*)</summary>$")


def fail(msg):
    sys.exit("comment-check: " + msg)


def folds(text):
    """The summaries of the folds, checking that they open and close in turn, a blank line after each summary."""
    lines, out, open_at = text.split("\n"), [], None
    for i, line in enumerate(lines):
        if line.startswith("<details>"):
            m = SUMMARY.match(line)
            if not m:
                fail("line %d: <details> without its <summary> on the line: %r" % (i + 1, line))
            if open_at is not None:
                fail("line %d: a <details> opens inside the one of line %d" % (i + 1, open_at + 1))
            if i + 1 >= len(lines) or lines[i + 1] != "":
                fail("line %d: no blank line after the summary: Markdown inside would not render" % (i + 1))
            open_at = i
            out.append(m.group(1))
        elif line.startswith("</details>"):
            if open_at is None:
                fail("line %d: </details> with none open" % (i + 1))
            open_at = None
    if open_at is not None:
        fail("line %d: <details> never closed" % (open_at + 1))
    if text.count("<details>") != text.count("</details>"):
        fail("%d <details> but %d </details>" % (text.count("<details>"), text.count("</details>")))
    return out


def unhtml(s):
    return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")


def check(args):
    path, most, full, forbid = args[0], int(args[1]), None, []
    rest = args[2:]
    while rest:
        if rest[0] == "--full":
            full = open(rest[1], encoding="utf-8").read()
        elif rest[0] == "--forbid":
            forbid.append(rest[1])
        else:
            fail("unknown argument " + rest[0])
        rest = rest[2:]
    text = open(path, encoding="utf-8").read()
    if len(text) > most:
        fail("%s: %d characters, more than %d" % (path, len(text), most))
    have = folds(text)
    for f in forbid:
        if f in text:
            line = next(l for l in text.split("\n") if f in l)
            fail("%s holds %r: %r" % (path, f, line[:200]))
    for run in re.findall(r"[A-Za-z0-9+/=]{60,}", text):
        if not re.fullmatch(r"[0-9a-f]+", run):
            fail("%s holds a base64 run of %d characters: %s..." % (path, len(run), run[:40]))
    closing = [l for l in text.split("\n") if l.startswith("Left out to keep this report within ")]
    if len(closing) > 1:
        fail("more than one closing line")
    left = []
    if full is not None:
        left = [unhtml(s) for s in folds(full) if s not in have]
        shorter = len(text) < len(full)
        if shorter != bool(closing):
            fail("%s: %s, but %s closing line" % (path, "shorter than the whole" if shorter else "whole",
                                                  "no" if not closing else "a"))
        if closing:
            m = re.search(r"and (\d+) more part", closing[0])
            unnamed = [s for s in left if s[:40] not in closing[0]]
            if len(unnamed) > (int(m.group(1)) if m else 0):
                fail("closing line names neither nor counts: %s" % unnamed)
    if closing and "labrun report --format json" not in closing[0]:
        fail("the closing line does not say where the whole report is")
    print("%s: %d characters (at most %d), %d folds, %d folds left out%s" %
          (path, len(text), most, len(have), len(left), ", named on the closing line" if closing else ""))


def expand(cases):
    """'q01-q03, x7' as ['q01', 'q02', 'q03', 'x7']."""
    out = []
    for part in cases.split(", "):
        m = re.fullmatch(r"(.*?)(\d+)-(.*?)(\d+)", part)
        if not m or m.group(1) != m.group(3):
            out.append(part)
            continue
        width = len(m.group(2)) if m.group(2).startswith("0") else 0
        for n in range(int(m.group(2)), int(m.group(4)) + 1):
            out.append(m.group(1) + str(n).zfill(width))
    return out


def what_of(s):
    return re.sub(r"[; ]+$", "", s).replace(";", ",")


def groups(args):
    md, data = open(args[0], encoding="utf-8").read(), json.load(open(args[1], encoding="utf-8"))
    want = set()
    for s in data["serving"]["failing"]:
        m = re.fullmatch(r"(.+?) / (\S+)(?: \([^)]*\))?(?:: case (\S+))?: (.*)", s)
        if not m:
            fail("cannot read the failing case %r" % s)
        want.add((m.group(1), m.group(2), m.group(3), what_of(m.group(4))))
    block = md.split("\nFailing and missing cases:\n", 1)[1].split("\n\n", 1)[0]
    got, lines = set(), 0
    for line in block.split("\n"):
        m = re.fullmatch(r"\* (.+?)(?:, (\S+(?:, \S+)*))? on (.+?)(?: \(([^)]*)\))?: (.*)", line)
        if not m:
            fail("cannot read the grouped line %r" % line)
        lines += 1
        routes = re.split(r", | and ", m.group(3))
        for route in routes:
            for case in expand(m.group(2)) if m.group(2) else [None]:
                got.add((m.group(1), route, case, unhtml(m.group(5))))
    if got != want:
        fail("grouped lines say %s more and %s fewer than the full list" % (sorted(got - want)[:5],
                                                                          sorted(want - got)[:5]))
    print("%d grouped lines hold the %d failing cases of the full list, no more" % (lines, len(want)))


{"check": check, "groups": groups}[sys.argv[1]](sys.argv[2:])
