#!/usr/bin/env python3
"""The SHA-256 tree hash labrun records as an import's device_state_tree, recomputed apart from labrun.

    python3 examples/treehash.py FILE...

Prints the tree hash of each FILE (or of standard input for '-'), one line each, as sha256sum
prints digests. The definition (docs/schema.md, run_digest): cut the bytes into leaves of 1 MiB,
the last one possibly shorter; hash each leaf with SHA-256; then, level by level, replace each pair
of neighbours (left, right) by the SHA-256 of their two 32-byte digests side by side, a last node
without a partner going up unchanged, until one digest is left. No bytes at all: the SHA-256 of
nothing. Only Python's standard library is used.
"""
import hashlib
import sys

LEAF = 1 << 20


def tree_hash(stream):
    level = []
    while True:
        leaf = stream.read(LEAF)
        if not leaf:
            break
        level.append(hashlib.sha256(leaf).digest())
        if len(leaf) < LEAF:
            break
    if not level:
        return hashlib.sha256(b"").hexdigest()
    while len(level) > 1:
        up = [hashlib.sha256(level[i] + level[i + 1]).digest() for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            up.append(level[-1])
        level = up
    return level[0].hex()


def read_whole(f):
    """A file object whose read(n) returns n bytes until the end (pipes may return fewer)."""
    class Whole:
        def read(self, n):
            parts, got = [], 0
            while got < n:
                b = f.read(n - got)
                if not b:
                    break
                parts.append(b)
                got += len(b)
            return b"".join(parts)
    return Whole()


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: treehash.py FILE...\n")
        return 2
    for name in argv[1:]:
        if name == "-":
            print("%s  -" % tree_hash(read_whole(sys.stdin.buffer)))
        else:
            with open(name, "rb") as f:
                print("%s  %s" % (tree_hash(read_whole(f)), name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
