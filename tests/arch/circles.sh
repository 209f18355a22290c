#!/bin/sh
# No circles between files: over the built objects of src/, one file calls
# another's functions (nm: a symbol one object needs and another defines),
# and no file reaches itself that way. A circle means two files each need the
# other, so neither has one job; the fix is a third file for what both use.
# (cmd/bench*.c, store/core.c with seals.c, expdef.c with expdef-check.c were
# such circles once.)
#
# usage: circles.sh [BUILDDIR]   (make check passes TOP_BUILDDIR)
set -eu
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${1:-${TOP_BUILDDIR:-$top}}
cd "$top"
list=$(mktemp)
trap 'rm -f "$list"' EXIT
for c in $(find src -name '*.c' | sort); do
	dir=${c%/*} base=${c##*/}
	o=$build/${c%.c}.o
	# a file built with flags of its own (the SIMD kernels) is named after its library
	[ -f "$o" ] || o=$(ls "$build/$dir"/*-"${base%.c}.o" 2>/dev/null | head -n 1)
	[ -n "$o" ] && [ -f "$o" ] || { echo "not ok - $c: no object in $build (build first)"; exit 1; }
	printf '%s %s\n' "$c" "$o" >>"$list"
done
python3 - "$list" <<'EOF'
import collections, subprocess, sys

files = [line.split() for line in open(sys.argv[1])]
source = {obj: src for src, obj in files}
defines, needs = {}, {src: set() for src, obj in files}
# one nm for every object: -A puts "OBJECT:" before each symbol
for line in subprocess.run(["nm", "-A"] + [obj for src, obj in files], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    obj, _, sym = line.rpartition(":")  # a symbol has no colon; a path might
    f = sym.split()
    src = source[obj]
    if len(f) == 3 and f[1] in "TDBR":
        defines[f[2]] = src
    elif len(f) == 2 and f[0] == "U":
        needs[src].add(f[1])
edges = {s: {defines[x] for x in u if x in defines and defines[x] != s} for s, u in needs.items()}

# Tarjan's strongly connected components, iteratively: every component of more than one file is a circle
index, low, stack, on, circles, n = {}, {}, [], set(), [], 0
for root in sorted(edges):
    if root in index:
        continue
    work = [(root, iter(sorted(edges[root])))]
    index[root] = low[root] = n; n += 1; stack.append(root); on.add(root)
    while work:
        v, it = work[-1]
        for w in it:
            if w not in index:
                index[w] = low[w] = n; n += 1; stack.append(w); on.add(w)
                work.append((w, iter(sorted(edges[w]))))
                break
            if w in on:
                low[v] = min(low[v], index[w])
        else:
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    circles.append(sorted(comp))
for comp in circles:
    print("circle: " + " <-> ".join(comp))
    for a in comp:
        for b in sorted(edges[a] & set(comp)):
            used = sorted(x for x in needs[a] if defines.get(x) == b)
            print("  %s calls %s: %s" % (a, b, ", ".join(used[:6]) + (" ..." if len(used) > 6 else "")))
if circles:
    print("not ok - %d circle(s) between files: move what both use into a file of its own" % len(circles))
    sys.exit(1)
print("ok 1 - no circles between the %d files of src/" % len(files))
print("1..1")
EOF
