#!/usr/bin/python3
"""An attacker's tool for t0285, written from docs/verify.md apart from labrun's
C code: after editing a crate's files, make every statement agree with them
again and sign it with a key of one's own (through the openssl command).

    dsse-resign.py CRATE KEY.pem [--carry] [--keep-metadata]

Each run's run.intoto.json gets the run's files as subjects again (all but
its run.sigstore.json, whose dsseEnvelope becomes the new envelope, its other
fields kept), ro-crate-metadata.json each file's digest and size and
manifest-sha256.txt its list (unless --keep-metadata), and crate.intoto.json
every other file; --carry also puts the key's public key beside every ledger
entry in ledger.json, as if the crate vouched for it.
"""
import base64
import hashlib
import json
import os
import subprocess
import sys
import tempfile

crate, key = sys.argv[1], sys.argv[2]
carry = "--carry" in sys.argv[3:]
keep_metadata = "--keep-metadata" in sys.argv[3:]
TYPE = "application/vnd.in-toto+json"


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def files(prefix=""):
    out = []
    for root, _, names in os.walk(os.path.join(crate, prefix)):
        for n in names:
            rel = os.path.relpath(os.path.join(root, n), crate)
            out.append(rel)
    return sorted(out)


def pub_hex():
    der = subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-outform", "DER"], capture_output=True,
                         check=True).stdout
    return der[-32:].hex()


def sign(payload):
    pae = b"DSSEv1 %d %s %d " % (len(TYPE), TYPE.encode(), len(payload)) + payload
    with tempfile.NamedTemporaryFile() as f:
        f.write(pae)
        f.flush()
        sig = subprocess.run(["openssl", "pkeyutl", "-sign", "-inkey", key, "-rawin", "-in", f.name],
                             capture_output=True, check=True).stdout
    keyid = hashlib.sha256(('{"keytype":"ed25519","keyval":{"public":"%s"},"scheme":"ed25519"}'
                            % pub_hex()).encode()).hexdigest()
    return {"payload": base64.b64encode(payload).decode(), "payloadType": TYPE,
            "signatures": [{"keyid": keyid, "sig": base64.b64encode(sig).decode()}]}


def restate(rel, subjects):
    env = json.load(open(os.path.join(crate, rel)))
    stmt = json.loads(base64.b64decode(env["payload"]))
    if subjects is not None:
        stmt["subject"] = [{"name": n, "digest": {"sha256": sha(os.path.join(crate, n))}} for n in subjects]
    payload = json.dumps(stmt, separators=(",", ":"), sort_keys=True).encode()
    json.dump(sign(payload), open(os.path.join(crate, rel), "w"), separators=(",", ":"), sort_keys=True)


if carry:
    ledger = json.load(open(os.path.join(crate, "ledger.json")))
    for e in ledger:
        e["public_key"] = pub_hex()
    json.dump(ledger, open(os.path.join(crate, "ledger.json"), "w"), indent=2)
restate("ledger-head.intoto.json", None)
for d in sorted(os.listdir(crate)):
    if d.startswith("run-") and os.path.isdir(os.path.join(crate, d)):
        att, bundle = d + "/run.intoto.json", d + "/run.sigstore.json"
        if not os.path.exists(os.path.join(crate, att)):  # a forger may have left one out
            continue
        restate(att, [f for f in files(d) if f not in (att, bundle)])
        if os.path.exists(os.path.join(crate, bundle)):
            b = json.load(open(os.path.join(crate, bundle)))
            b["dsseEnvelope"] = json.load(open(os.path.join(crate, att)))
            json.dump(b, open(os.path.join(crate, bundle), "w"), separators=(",", ":"), sort_keys=True)
# the RO-Crate's File entities and its list of files, made to agree with the files as they are now
meta_path = os.path.join(crate, "ro-crate-metadata.json")
if os.path.exists(meta_path) and not keep_metadata:
    meta = json.load(open(meta_path))
    for e in meta.get("@graph", []):
        p = os.path.join(crate, e.get("@id", ""))
        if e.get("@type") == "File" and os.path.isfile(p):
            e["sha256"], e["contentSize"] = sha(p), str(os.path.getsize(p))
    json.dump(meta, open(meta_path, "w"), indent=2)
    with open(os.path.join(crate, "manifest-sha256.txt"), "w") as bag:
        for e in meta.get("@graph", []):
            if e.get("@type") == "File":
                bag.write("%s  %s\n" % (e.get("sha256", ""), e.get("@id", "")))
restate("crate.intoto.json", [f for f in files() if f != "crate.intoto.json"])
