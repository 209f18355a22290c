#!/bin/sh
# labrun bench encoder runs, checks parity before timing and prints every
# variant. Figures are printed, never asserted: performance is measured by
# running the benchmark, not by this test.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "a small benchmark runs" "$LABRUN" bench encoder --shape 1,2,2,256,128 --shape 2,2,1,64,64 --reps 3
for v in "copy: memcpy" "copy: vector" "copy: non-temporal" "encode: lookup" "encode: scalar" "permuted view"; do
	contains "$T/out" "$v" "prints '$v'"
done
contains "$T/out" "parity: every encoder and the permuted view give identical bytes" "parity checked"
contains "$T/out" "<- ceiling" "names the ceiling"
contains "$T/out" "<- best kernel" "names the best kernel"
[ "$(grep -c '^shape \[' "$T/out")" = 2 ] || fail "one block per shape"
ok "one block per shape"
expect_exit 2 "a shape that is not [L,2,H,T,D]" "$LABRUN" bench encoder --shape 4,4
contains "$T/err" "expected [L,2,H,T,D]" "says the expected form"
expect_exit 2 "an unknown benchmark" "$LABRUN" bench decoder
expect_exit 2 "no benchmark named" "$LABRUN" bench

# an empty shape has nothing to time: it printed -nan ratios and exited 0
expect_exit 2 "a shape with no elements is refused" "$LABRUN" bench encoder --shape 1,2,0,4,8 --reps 2
contains "$T/err" "shape [1,2,0,4,8] holds no elements" "named"
lacks "$T/out" "nan" "no -nan figure is printed"

# --json: the same figures as one object, the CPU with them, nothing modelled
expect_exit 0 "bench encoder --json" "$LABRUN" bench encoder --shape 1,2,2,64,16 --reps 3 --json
equals "$(jq -r '[.modelled, (.host.cpu | length > 0), (.shapes | length), (.shapes[0].output_sha256 | length),
	([.shapes[0].variants[] | select(.gbps > 0)] | length) == (.shapes[0].variants | length),
	([.shapes[0].variants[] | select(.kind == "copy")] | length)] | map(tostring) | join(" ")' "$T/out")" \
	"false true 1 64 true 3" "parses: the CPU named, every variant measured, the three copies"

# progress on a terminal (it ran 70 s in silence), none when stderr is not one
expect_exit 0 "bench with stderr to a file" "$LABRUN" bench encoder --shape 1,2,2,64,16 --reps 2
lacks "$T/err" "shape 1 of 1" "no progress in a file"
if command -v script >/dev/null; then
	script -qc "'$LABRUN' bench encoder --shape 1,2,2,64,16 --shape 1,2,2,128,16 --reps 2 >/dev/null" /dev/null >"$T/tty"
	contains "$T/tty" "shape 2 of 2 [1,2,2,128,16]" "progress on a terminal, shape by shape"
fi
