#!/usr/bin/python3
"""Write a .npy of random BF16 bit patterns ('<u2') of a given shape, with the standard library only.

    make-bf16-npy.py OUT.npy SEED D0,D1,...
"""
import random
import sys

out, seed, shape = sys.argv[1], int(sys.argv[2]), tuple(int(x) for x in sys.argv[3].split(","))
n = 1
for d in shape:
    n *= d
header = "{'descr': '<u2', 'fortran_order': False, 'shape': (%s), }" % "".join("%d, " % d for d in shape).rstrip(" ")
pad = 64 - (10 + len(header) + 1) % 64
header = header + " " * pad + "\n"
rng = random.Random(seed)
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode("latin1"))
    f.write(rng.randbytes(2 * n))
