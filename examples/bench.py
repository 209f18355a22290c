#!/usr/bin/env python3
"""A stand-in for a team benchmark, for the README's record example.

It times a small, real computation (summing a list) and writes its result
where the example's --artifact results/ collects it. It exercises no
accelerator: replace it with your own harness.
"""
import json
import os
import time

N = 1_000_000
start = time.perf_counter()
total = sum(range(N))
elapsed = time.perf_counter() - start

os.makedirs("results", exist_ok=True)
with open("results/result.json", "w") as f:
    json.dump({"n": N, "sum": total, "seconds": elapsed}, f)
    f.write("\n")
print(f"summed {N} integers in {elapsed * 1000:.1f} ms")
