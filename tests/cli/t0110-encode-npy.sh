#!/bin/sh
# labrun encode/decode round-trip .npy files that NumPy wrote (fixtures made by
# tests/fixtures/make-npy-fixtures.py, expected outputs computed there with
# NumPy), and malformed files each give a clear error and no output.
. "$(dirname "$0")/lib.sh"

F="$TOP_SRCDIR/tests/fixtures/npy"

expect_exit 0 "--verify checks every available kernel against the oracle" "$LABRUN" encode --verify
contains "$T/out" "scalar    saturate  65536/65536 patterns match" "scalar, saturate"
contains "$T/out" "lookup    ninf      65536/65536 patterns match" "lookup, ninf"
lacks "$T/out" "FAILED" "no kernel failed"

for k in lookup scalar auto; do
	expect_exit 0 "encode all 65,536 patterns with $k" "$LABRUN" encode --kernel $k "$F/all-patterns.npy" out.npy
	cmp out.npy "$F/all-patterns.dlf16.npy" || fail "$k: output differs from NumPy's expected file"
	ok "$k output is byte-identical to the file NumPy wrote"
done
expect_exit 0 "ninf contract" "$LABRUN" encode --contract ninf "$F/all-patterns.npy" ninf.npy
cmp ninf.npy "$F/all-patterns.ninf.dlf16.npy" || fail "ninf output differs"
ok "ninf output matches"
expect_exit 0 "decode back to BF16" "$LABRUN" decode --to bf16 out.npy back.npy
cmp back.npy "$F/all-patterns.roundtrip.npy" || fail "round trip differs"
ok "BF16 -> DLF16 -> BF16 matches NumPy's round trip"
expect_exit 0 "decode to f32" "$LABRUN" decode out.npy f32.npy
[ "$(head -c 40 f32.npy | tail -c 30 | tr -d '\0')" != "" ] && grep -q "'<f4'" f32.npy || fail "f32 header"
ok "f32 output is a '<f4' .npy"

expect_exit 0 "--permute encodes a token-major export head-major in one pass" \
	"$LABRUN" encode --permute 0,1,3,2,4 --threads 2 "$F/token-major.npy" perm.npy
cmp perm.npy "$F/token-major.permuted.dlf16.npy" || fail "permuted output differs"
ok "permuted output matches NumPy's transpose + encode"

for f in small.v2 small.v3 small.fortran small.void; do
	expect_exit 0 "read $f.npy" "$LABRUN" encode "$F/$f.npy" o.npy
	cmp o.npy "$F/small.dlf16.npy" || fail "$f: output differs"
	ok "$f.npy encodes like the version-1 C-order file"
done
expect_exit 0 "0-d array" "$LABRUN" encode "$F/scalar.npy" s.npy
cmp s.npy "$F/scalar.dlf16.npy" || fail "0-d output differs"
ok "0-d output matches"
expect_exit 0 "empty array" "$LABRUN" encode "$F/empty.npy" e.npy
cmp e.npy "$F/empty.dlf16.npy" || fail "empty output differs"
ok "empty output matches"

# raw files with --shape
tail -c 131072 "$F/all-patterns.npy" >raw.bin
expect_exit 0 "raw input with --shape" "$LABRUN" encode --shape 2,2,4,64,64 raw.bin raw.out
tail -c 131072 "$F/all-patterns.dlf16.npy" >want.bin
cmp raw.out want.bin || fail "raw output differs"
ok "raw in, raw out"
expect_exit 2 "raw input with a wrong --shape" "$LABRUN" encode --shape 2,2,4,64,63 raw.bin x.out
contains "$T/err" "the shape needs 129024" "says what the shape needs"
[ ! -e x.out ] || fail "output created"

for b in magic version truncated-header truncated-data extra-data dtype-f8 big-endian no-newline \
	no-shape shape-not-tuple header-too-long empty-file; do
	expect_exit 4 "bad-$b.npy is refused" "$LABRUN" encode "$F/bad-$b.npy" bad.npy
	contains "$T/err" "cannot read '$F/bad-$b.npy' as .npy" "bad-$b: names the file"
	contains "$T/err" "hint:" "bad-$b: gives a hint"
	[ ! -e bad.npy ] && [ -z "$(ls | grep tmp- || true)" ] || fail "bad-$b left an output"
	ok "bad-$b: no output written"
done
expect_exit 4 "big-endian is named as such" "$LABRUN" encode "$F/bad-big-endian.npy" bad.npy
contains "$T/err" "big-endian" "the error says big-endian"

expect_exit 2 "unknown kernel" "$LABRUN" encode --kernel sse9 "$F/small.v2.npy" o.npy
contains "$T/err" "unknown kernel 'sse9'" "names the kernel"
# LABRUN_CPU_HIDE hides instruction sets from the dispatch, as on a CPU without them
for k in avx2 avx512; do
	expect_exit 2 "--kernel $k with $k hidden" env LABRUN_CPU_HIDE="sse4,$k" "$LABRUN" encode --kernel $k "$F/small.v2.npy" hidden.npy
	contains "$T/err" "kernel '$k' is not available" "$k: refused, named"
	[ ! -e hidden.npy ] || fail "a refused kernel wrote an output"
done
expect_exit 0 "the bench header with both hidden" env LABRUN_CPU_HIDE=avx512,avx2 "$LABRUN" bench encoder \
	--shape 1,2,1,64,64 --reps 2 --no-files
contains "$T/out" "auto kernel lookup" "auto falls back to the fastest of what is left: lookup, 1.7x scalar, not scalar"
lacks "$T/out" "encode: avx" "and no hidden kernel is timed"
expect_exit 0 "--verify with avx512 hidden checks what is left" env LABRUN_CPU_HIDE=avx512 "$LABRUN" encode --verify
contains "$T/out" "avx512    not available: " "the hidden kernel is not run"
lacks "$T/out" "avx512    saturate" "nor checked"
expect_exit 2 "bad --permute" "$LABRUN" encode --permute 0,0 "$F/small.v2.npy" o.npy
expect_exit 2 "missing input" "$LABRUN" encode nosuch.npy o.npy
contains "$T/err" "cannot read 'nosuch.npy'" "names the input"
