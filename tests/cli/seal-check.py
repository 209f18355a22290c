#!/usr/bin/python3
"""Seals and the ledger recomputed from docs/schema.md alone, apart from labrun's
C code (Python's standard library, and the openssl command to sign):

    seal-check.py verify DB SCHEMA.md
        recompute every run's seal from its rows, the ledger's chain and each
        design entry's design digest; print
        what was checked; exit 1 on the first mismatch, naming it
    seal-check.py reseal DB SCHEMA.md RUN_ID
        an attacker's step: write run RUN_ID's seal again from its rows now
    seal-check.py rechain DB SCHEMA.md FROM [KEY.pem]
        an attacker's step: number the ledger 1, 2, ... again, and from entry
        FROM on point each run's newest entry at its seal now and recompute
        prev and digest; those entries are unsigned, or signed with KEY.pem
        (its public key put in the store)

The sealed tables and their row orders come from the table under "Every sealed
table" in docs/schema.md; the value encoding from the paragraph above it.
"""
import hashlib
import json
import re
import sqlite3
import struct
import subprocess
import sys
import tempfile

GENESIS = "0" * 64


def queries_under(schema_md, heading, what, least):
    """The (name, query) rows of the table under 'heading' in docs/schema.md, ":run" a parameter."""
    text = open(schema_md, encoding="utf-8").read()
    part = text[text.index(heading):]
    part = part[:part.index("\n### ")]
    rows = re.findall(r"^\| `([a-z_]+)` \| `(SELECT [^`]+)` \|$", part, re.M)
    if len(rows) < least:
        sys.exit("seal-check: no table of %s found in %s" % (what, schema_md))
    return [(t, q.replace(":run", "?")) for t, q in rows]


def seal_queries(schema_md):
    return queries_under(schema_md, "Every sealed table", "sealed tables", 10)


def design_parts(schema_md):
    """The parts of a design digest and their queries, from the table under "Design entries"."""
    return queries_under(schema_md, "#### Design entries", "design parts", 5)


def table_digest(con, query, run):
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
    return h.hexdigest()


EMPTY = hashlib.sha256(b"").hexdigest()


def seal_now(con, queries, run, keys=None):
    """The seal's JSON text and digest from the rows now; 'keys': the tables an older seal covers."""
    tables = {}
    for t, q in queries:
        d = table_digest(con, q, run)
        if keys is None or t in keys:
            tables[t] = d
        elif d != EMPTY:
            tables[t] = d  # rows where the old seal has none: the text will differ, as it must
    text = json.dumps(tables, separators=(",", ":"), sort_keys=True)
    return text, hashlib.sha256(text.encode()).hexdigest()


def entry_digest(seq, uuid, kind, content, prev):
    text = "labrun-ledger-1\n%d\n%s\n%s\n%s\n%s\n" % (seq, uuid, kind, content, prev)
    return hashlib.sha256(text.encode()).hexdigest()


def verify(con, queries, parts):
    seals = designs = 0
    for run, stored, digest in con.execute("SELECT run_id, tables, digest FROM run_seal ORDER BY run_id").fetchall():
        keys = set(json.loads(stored))
        text, now = seal_now(con, queries, run, keys)
        if text != stored or now != digest:
            sys.exit("seal-check: run %d: its rows give seal %s, the store holds %s" % (run, now, digest))
        seals += 1
    prev, n = GENESIS, 0
    newest = {}
    for seq, uuid, kind, content, was, digest in con.execute(
            "SELECT seq, run_uuid, kind, content, prev, digest FROM ledger ORDER BY seq"):
        n += 1
        if seq != n or was != prev or entry_digest(seq, uuid, kind, content, prev) != digest:
            sys.exit("seal-check: ledger entry %d does not recompute" % seq)
        if kind == "design":  # its content is the design digest its run's rows give
            run = con.execute("SELECT id FROM run WHERE uuid = ?", (uuid,)).fetchone()
            if run and seal_now(con, parts, run[0])[1] != content:
                sys.exit("seal-check: ledger entry %d: run %s's rows do not give its design digest" % (seq, uuid))
            designs += 1
        else:
            newest[uuid] = content
        prev = digest
    for uuid, content in newest.items():
        row = con.execute("SELECT s.digest FROM run_seal s JOIN run r ON r.id = s.run_id WHERE r.uuid = ?",
                          (uuid,)).fetchone()
        if row and row[0] != content:
            sys.exit("seal-check: run %s: its newest ledger entry holds %s, its seal is %s" % (uuid, content, row[0]))
    print("seal-check: %d seals and %d ledger entries recomputed from docs/schema.md (%d design entries among them)"
          % (seals, n, designs))


def reseal(con, queries, run):
    text, digest = seal_now(con, queries, run)
    con.execute("UPDATE run_seal SET tables = ?, digest = ? WHERE run_id = ?", (text, digest, run))


def sign(key, digest):
    with tempfile.NamedTemporaryFile() as msg:  # Ed25519 signs the whole message at once: a file, not a pipe
        msg.write(digest.encode())
        msg.flush()
        sig = subprocess.run(["openssl", "pkeyutl", "-sign", "-inkey", key, "-rawin", "-in", msg.name],
                             capture_output=True, check=True).stdout
    der = subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-outform", "DER"], capture_output=True,
                         check=True).stdout
    return der[-32:].hex(), sig.hex()


def rechain(con, start, key):
    con.executescript("DROP TRIGGER IF EXISTS ledger_append_only_update; DROP TRIGGER IF EXISTS ledger_append_only_delete;")
    rows = con.execute("SELECT seq, run_uuid, kind, content, key_fingerprint, signature FROM ledger ORDER BY seq").fetchall()
    con.execute("DELETE FROM ledger")
    last = {r[1]: i for i, r in enumerate(rows)}
    prev = GENESIS
    for i, (seq, uuid, kind, content, fpr, sig) in enumerate(rows):
        seq = i + 1
        if seq >= start:
            if last[uuid] == i:
                row = con.execute("SELECT s.digest FROM run_seal s JOIN run r ON r.id = s.run_id WHERE r.uuid = ?",
                                  (uuid,)).fetchone()
                content = row[0] if row else content
            digest = entry_digest(seq, uuid, kind, content, prev)
            fpr = sig = None
            if key:
                pub, sig = sign(key, digest)
                fpr = hashlib.sha256(bytes.fromhex(pub)).hexdigest()
                con.execute("INSERT OR IGNORE INTO signing_key(fingerprint, public_key, added_at) VALUES (?, ?, ?)",
                            (fpr, pub, "2026-01-01T00:00:00Z"))
        else:
            digest = entry_digest(seq, uuid, kind, content, prev)
        con.execute("INSERT INTO ledger(seq, run_uuid, kind, content, prev, digest, appended_at, key_fingerprint,"
                    " signature) VALUES (?, ?, ?, ?, ?, ?, '2026-01-01T00:00:00Z', ?, ?)",
                    (seq, uuid, kind, content, prev, digest, fpr, sig))
        prev = digest


def main():
    cmd, db, schema_md = sys.argv[1:4]
    queries = seal_queries(schema_md)
    con = sqlite3.connect(db)
    con.execute("PRAGMA foreign_keys = OFF")
    if cmd == "verify":
        verify(con, queries, design_parts(schema_md))
    elif cmd == "reseal":
        reseal(con, queries, int(sys.argv[4]))
    elif cmd == "rechain":
        rechain(con, int(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else None)
    else:
        sys.exit("seal-check: unknown command " + cmd)
    con.commit()


main()
