#!/usr/bin/python3
"""A forged bundle, for t0400: run UUID's bundle on the remote (read from stdin as JSON text)
given a new uuid and one change, with its seal and a ledger entry recomputed by the published rules
(docs/remote.md, docs/schema.md), written apart from labrun's C code: a table or a column this
labrun does not know (a newer labrun's), an artifact naming a path or an object the bundle does
not carry, a host row whose facts are not those its fingerprint names, a row that breaks a CHECK of the schema,
or a recorded command that
preloads a library and paints the terminal (a hostile host's). Prints the new bundle's sha256 and text, tab-separated.

    future-bundle.py NEW_UUID table|column|objpath|objhash|hostfpr|check|preload [MARK] < bundle.json
"""
import hashlib
import json
import struct
import sys

new_uuid, mode = sys.argv[1], sys.argv[2]
b = json.load(sys.stdin)
tables = b["tables"]
run = tables["run"]
old_uuid = run["rows"][0][run["columns"].index("uuid")]
run["rows"][0][run["columns"].index("uuid")] = new_uuid
if mode == "table":
    tables["zz_future"] = {"columns": ["run_id", "x"], "rows": [[run["rows"][0][0], "v"]]}
elif mode in ("objpath", "objhash"):
    art = tables["artifact"]
    art["rows"][0][art["columns"].index("sha256")] = \
        "../../../../../../../../etc/passwd" if mode == "objpath" else "ab" * 32
elif mode == "hostfpr":
    host = tables["host"]
    host["rows"][0][host["columns"].index("cpu_model")] = "a faster CPU than the one measured"
elif mode == "check":
    art = tables["artifact"]
    art["rows"][0][art["columns"].index("role")] = "exfiltrate"
elif mode == "preload":
    run["rows"][0][run["columns"].index("argv_json")] = json.dumps(
        ["sh", "-c", "echo \x1b[2Jpwned >\"$0\"", sys.argv[3]])
    env = tables["env_var"]
    for name, value in (("LD_PRELOAD", "/nonexistent/evil.so"), ("BASH_ENV", "/nonexistent/evil.sh")):
        env["rows"].append([run["rows"][0][0], name, value, 0])
    env["rows"].sort(key=lambda r: r[1])
else:
    tables["run_issue"] = tables.get("run_issue", {"columns": ["run_id", "issue_ref"], "rows": []})
    tables["run_issue"]["columns"].append("zz_future_column")
    for row in tables["run_issue"]["rows"]:
        row.append(1)


def digest(rows):
    h = hashlib.sha256()
    for row in rows:
        for v in row:
            if v is None:
                h.update(b"\x05")
            elif isinstance(v, bool) or isinstance(v, int):
                h.update(b"\x01" + struct.pack("<q", int(v)))
            elif isinstance(v, float):
                h.update(b"\x02" + struct.pack("<d", v))
            else:
                h.update(b"\x03" + v.encode())
            h.update(b"\x1f")
        h.update(b"\x1e")
    return h.hexdigest()


names = set(json.loads(b["seal"]["tables"])) | set(tables)
seal_tables = {n: digest(tables.get(n, {"rows": []})["rows"]) for n in names}
seal_text = json.dumps(seal_tables, separators=(",", ":"), sort_keys=True)
seal = hashlib.sha256(seal_text.encode()).hexdigest()
b["seal"] = {"digest": seal, "tables": seal_text}
prev = "0" * 64
entry = "labrun-ledger-1\n1\n%s\nfinal\n%s\n%s\n" % (new_uuid, seal, prev)
b["ledger"] = [{"seq": 1, "kind": "final", "content": seal, "prev": prev,
                "digest": hashlib.sha256(entry.encode()).hexdigest(), "appended_at": "2026-12-01T00:00:00.000Z"}]
text = json.dumps(b, separators=(",", ":"), sort_keys=True)
print(hashlib.sha256(text.encode()).hexdigest() + "\t" + text)
assert old_uuid != new_uuid
