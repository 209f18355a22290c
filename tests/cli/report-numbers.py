#!/usr/bin/env python3
"""Every number of every Markdown table of a report is in its JSON and its CSV.

usage: report-numbers.py REPORT.md REPORT.json REPORT.csv

Each Markdown table row is matched to its object in the JSON and its row in
the CSV (an experiment row by run, arm and condition label; a further
metric's row by run, arm, metric and condition label; a matrix cell by
row label and route; a route's timing by route; a collected pass by its run
and set, its latency by metric, its occupancy by requests in flight). Every number the row shows
outside its label must then be a number of that object or row (strings do
not count) equal to it at the precision shown. Signs are compared as shown
in tables; verdict words state sizes without sign ("34.3% lower"), so
magnitudes are compared there. Prints how many numbers were checked; exits 1
naming the first number that is not found.
"""
import csv
import io
import json
import re
import sys

NUM = re.compile(r"[-+]?\d+(?:\.\d+)?")


def numbers_of(obj, out):
    """Every JSON number in obj, recursively (booleans are not numbers)."""
    if isinstance(obj, bool):
        return out
    if isinstance(obj, (int, float)):
        out.append(float(obj))
    elif isinstance(obj, dict):
        for v in obj.values():
            numbers_of(v, out)
    elif isinstance(obj, list):
        for v in obj:
            numbers_of(v, out)
    return out


def csv_numbers(row):
    out = []
    for v in row.values():
        try:
            out.append(float(v))
        except (TypeError, ValueError):
            pass
    return out


def found(shown, pool, signed):
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    want = float(shown)
    for v in pool:
        x = v if signed else abs(v)
        w = want if signed else abs(want)
        if abs(round(x, decimals) - w) < 10 ** -decimals / 2 + 1e-9:
            return True
    return False


def md_tables(text):
    """(heading, header cells, [row cells]) of every Markdown table, under its nearest heading."""
    heading, tables, cur = "", [], None
    for line in text.splitlines():
        if line.startswith("#"):
            heading = line
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cur is None:
                cur = (heading, cells, [])
                tables.append(cur)
            elif not all(re.fullmatch(r"-+:?", c) for c in cells):
                cur[2].append(cells)
        else:
            cur = None
    return tables


def csv_sections(text):
    """The CSV's sections (separated by an empty line), each a list of dicts."""
    parts = re.split(r"\r?\n\r?\n", text.strip("\r\n"))
    return [list(csv.DictReader(io.StringIO(p))) for p in parts if p.strip()]


def main():
    md, js, cs = (open(p, encoding="utf-8").read() for p in sys.argv[1:4])
    doc = json.loads(js)
    sections = csv_sections(cs)
    runs = {r["run"]: r for r in doc.get("runs", [])}
    checked = 0

    def check(where, cells, jpool, cpool, verdict_col=None):
        nonlocal checked
        for i, cell in enumerate(cells[1:], 1):
            # "p under 0.001" states a bound, not a figure of the data
            for shown in NUM.findall(re.sub(r"\bunder \d+(?:\.\d+)?", "", cell)):
                signed = i != verdict_col
                if not found(shown, jpool, signed):
                    sys.exit(f"{where}: {shown} (in '{cell}') is not a number of the JSON")
                if not found(shown, cpool, signed):
                    sys.exit(f"{where}: {shown} (in '{cell}') is not a number of the CSV")
                checked += 1

    for heading, header, rows in md_tables(md):
        m = re.match(r"### (.+) \(.*\) vs (.+) \(.*\), run (\d+)$", heading)
        x = re.match(r"### (.+) \(.*\) vs (.+) \(.*\), run (\d+): exploratory metric `([^`]+)` \(", heading)
        if x:  # a further metric's table: its rows in metric_tables, and in the CSV's last section
            arm, run, metric = x.group(1), int(x.group(3)), x.group(4)
            table = next(t for t in runs[run]["metric_tables"] if t["arm"] == arm and t["metric"] == metric)
            section = next(s for s in sections if s and "exploratory" in s[0])
            for cells in rows:
                jrow = next(r for r in table["rows"] if r["label"] == cells[0])
                crow = next(r for r in section if int(r["run"]) == run and r["arm"] == arm and
                            r["metric"] == metric and r["model"] == cells[0])
                check(f"run {run} {arm} {metric} {cells[0]}", cells, numbers_of(jrow, []), csv_numbers(crow),
                      verdict_col=len(cells) - 1)
        elif m:  # an experiment table
            arm, run = m.group(1), int(m.group(3))
            r = runs[run]
            table = next(t for t in r["tables"] if t["arm"] == arm)
            extra = numbers_of(r["design"], []) + numbers_of(r["noise_floor"], [])
            for cells in rows:
                jrow = next(x for x in table["rows"] if x["label"] == cells[0])
                crow = next(x for x in sections[0] if int(x["run"]) == run and x["arm"] == arm and
                            (x["model"] == cells[0] or f"{x['model']} {x['layers']}/{x['tokens']}" == cells[0]))
                check(f"run {run} {arm} {cells[0]}", cells, numbers_of(jrow, []) + extra,
                      csv_numbers(crow), verdict_col=len(cells) - 1)
        elif header[0] == "Run / condition":  # the serving matrix
            sv = doc["serving"]
            for cells in rows:
                jrow = next(x for x in sv["rows"] if x["label"] == cells[0])
                for k, route in enumerate(header[1:], 1):
                    jcell = next(c for c in jrow["cells"] if c["route"] == route)
                    crow = next(x for x in sections[1] if x["row"] == cells[0] and x["route"] == route)
                    check(f"{cells[0]} / {route}", [cells[0], cells[k]], numbers_of(jcell, []), csv_numbers(crow))
        elif header[0] == "Route":  # per-route timing
            sv = doc["serving"]
            for cells in rows:
                jst = next(x for x in sv["route_stats"] if x["route"] == cells[0])
                crow = next(x for x in sections[2] if x["route"] == cells[0])
                check(f"route {cells[0]}", cells, numbers_of(jst, []), csv_numbers(crow))
        elif header[0] == "Pass":  # collected passes: throughput and concurrency, latency, occupancy
            sv = doc["serving"]
            kind = {"Route": 3, "metric": 4, "source": 5}[header[1]]
            for cells in rows:
                run, sset = map(int, re.match(r"run (\d+), set (\d+)$", cells[0]).groups())
                jp = next(x for x in sv["passes"] if x["run"] == run and x["set"] == sset)
                if kind == 3:
                    jpool, crow = jp, next(x for x in sections[3] if x["pass"] == cells[0])
                elif kind == 4:
                    key = cells[1].lower() + "_ms"
                    jpool = jp[key]
                    crow = next(x for x in sections[4] if x["pass"] == cells[0] and x["metric"] == cells[1])
                    cells = [cells[0]] + cells[2:]
                else:
                    key = "occupancy_pct" if cells[1] == "client" else "gauge_occupancy_pct"
                    jpool = {"k": int(cells[2]), "pct": jp[key][int(cells[2])]}
                    crow = next(x for x in sections[5] if x["pass"] == cells[0] and x["source"] == cells[1]
                                and x["in_flight"] == cells[2])
                check(f"{cells[0]} ({header[1]})", cells, numbers_of(jpool, []), csv_numbers(crow))
        else:
            sys.exit(f"a Markdown table this check does not know: {header}")
    print(checked)


main()
