#!/usr/bin/python3
"""An attacker's tool for t0260: recompute one table's digest in a run's seal
after editing its rows, following the seal's published canonical form
(docs/schema.md), written apart from labrun's C code.

    reseal.py DB RUN_ID TABLE "SELECT ... WHERE run_id = ? ORDER BY ..."
"""
import hashlib
import json
import sqlite3
import struct
import sys

db, run, table, query = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
con = sqlite3.connect(db)
h = hashlib.sha256()
for row in con.execute(query, (run,)):
    for v in row:
        if v is None:
            h.update(b"\x05")
        elif isinstance(v, int):
            h.update(b"\x01" + struct.pack("<q", v))
        elif isinstance(v, float):
            h.update(b"\x02" + struct.pack("<d", v))
        elif isinstance(v, str):
            h.update(b"\x03" + v.encode())
        else:
            h.update(b"\x04" + bytes(v))
        h.update(b"\x1f")
    h.update(b"\x1e")
tables = json.loads(con.execute("SELECT tables FROM run_seal WHERE run_id = ?", (run,)).fetchone()[0])
tables[table] = h.hexdigest()
text = json.dumps(tables, separators=(",", ":"), sort_keys=True)
con.execute("UPDATE run_seal SET tables = ?, digest = ? WHERE run_id = ?",
            (text, hashlib.sha256(text.encode()).hexdigest(), run))
con.commit()
