#!/usr/bin/env python3
"""Recompute every further metric's table of a report from the store's rows.

usage: metric-check.py STORE.db REPORT.json

Written from docs/method.md alone, not from labrun's code: for each run of
the report's JSON and each of its "metric_tables", the stored `metric` rows
of the timed executions (blocks from the design's warm-up on) are read from
the store opened read-only; per condition, each arm's median pools its
values; per block, d_i = ln((B1 + B2) / (A1 + A2)); the estimate is
exp(median d_i); the 95% interval is [d(k), d(n+1-k)], k the largest count
with P(Binomial(n, 1/2) < k) <= 2.5%, computed exactly. Each must equal the
report's figure. Also: a table for every metric the run wrote beyond the
design's, with a row per condition. Prints how many rows were checked;
exits 1 naming the first figure that differs.
"""
import json
import math
import sqlite3
import statistics
import sys
from fractions import Fraction


def sign_test_k(n):
    """The largest k with P(Binomial(n, 1/2) < k) <= 2.5%, 0 when there is none."""
    best, below = 0, Fraction(0)
    for k in range(1, n // 2 + 1):
        below += Fraction(math.comb(n, k - 1), 2 ** n)  # P(X <= k - 1) = P(X < k)
        if below > Fraction(1, 40):
            break
        best = k
    return best


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def main():
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    report = json.load(open(sys.argv[2], encoding="utf-8"))
    checked = 0
    for run in report["runs"]:
        rid = run["run"]
        warmup, design_metric = db.execute("SELECT warmup, metric FROM run_design WHERE run_id = ?", (rid,)).fetchone()
        arms = [name for (name,) in db.execute("SELECT name FROM arm WHERE run_id = ? ORDER BY idx", (rid,))]
        labels = {}
        for cond, key, value in db.execute("SELECT condition_idx, key, value FROM condition_param WHERE run_id = ?"
                                           " ORDER BY condition_idx, position", (rid,)):
            labels[cond] = (labels.get(cond, "") + f" {key}={value}").strip()
        values = {}  # (metric, cond, arm) -> {block: [value, ...]}
        for cond, arm, block, name, value in db.execute(
                "SELECT e.condition_idx, e.arm_idx, e.block, m.name, m.value FROM metric m"
                " JOIN execution e ON e.run_id = m.run_id AND e.condition_idx = m.condition_idx AND e.seq = m.seq"
                " WHERE m.run_id = ? AND e.block IS NOT NULL AND e.block >= ? ORDER BY e.seq", (rid, warmup)):
            values.setdefault((name, cond, arm), {}).setdefault(block, []).append(value)
        names = sorted({k[0] for k in values} - {design_metric})
        tables = run.get("metric_tables", [])
        shown = sorted({t["metric"] for t in tables})
        if shown != names:
            sys.exit(f"run {rid}: metric tables {shown}, its rows have {names}")
        for t in tables:
            b = arms.index(t["arm"])
            if t["baseline"] != arms[0] or t["exploratory"] is not True:
                sys.exit(f"run {rid} {t['metric']}: baseline {t['baseline']}, exploratory {t['exploratory']}")
            conds = sorted({k[1] for k in values if k[0] == t["metric"]})
            if [r["condition"] for r in t["rows"]] != conds:
                sys.exit(f"run {rid} {t['metric']}: rows for conditions {[r['condition'] for r in t['rows']]}")
            for row in t["rows"]:
                c = row["condition"]
                va, vb = values[(t["metric"], c, 0)], values[(t["metric"], c, b)]
                blocks = sorted(va)
                d = sorted(math.log(sum(vb[i]) / sum(va[i])) for i in blocks)
                n, k = len(d), sign_test_k(len(d))
                want = {
                    "label": labels.get(c, "all"),
                    "blocks": n,
                    "baseline_median": statistics.median(x for i in blocks for x in va[i]),
                    "arm_median": statistics.median(x for i in blocks for x in vb[i]),
                    "ratio": math.exp(statistics.median(d)),
                    "interval": [math.exp(d[k - 1]), math.exp(d[n - k])] if k else None,
                }
                for key, w in want.items():
                    got = row.get(key)
                    if isinstance(w, list):
                        same = isinstance(got, list) and len(got) == 2 and all(map(close, got, w))
                    else:
                        same = close(got, w) if isinstance(w, float) else got == w
                    if not same:
                        sys.exit(f"run {rid} {t['metric']} {t['arm']} condition {c}: {key} is {got}, the rows give {w}")
                checked += 1
    print(checked)


main()
