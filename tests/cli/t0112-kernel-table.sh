#!/bin/sh
# 'auto' takes the kernel 'labrun bench encoder' measured fastest on this CPU at the nearest size
# (encode/ktable.h); without a measurement, the first of avx512, avx2, lookup, scalar it can run.
# Tested with the SIMD kernels hidden, so that the two left (lookup, scalar) exist on every CPU.
. "$(dirname "$0")/lib.sh"

F="$TOP_SRCDIR/tests/fixtures/npy"
table="$HOME/.cache/labrun/kernels"
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -1 | tr '\t|' '  ')
key="${model:-unknown CPU}|lookup,scalar"
export LABRUN_CPU_HIDE=avx512,avx2

# 1 KiB and 256 KiB of BF16 input (512 and 131,072 elements), raw
head -c 1024 /dev/zero >small.bin
head -c 262144 /dev/zero >big.bin
kernel_of() { sed -n 's/.* with \([a-z0-9]*\) (.*/\1/p' "$T/out"; }

expect_exit 0 "encode with no table" "$LABRUN" encode --shape 1,2,1,4,64 small.bin o.bin
equals "$(kernel_of)" "lookup" "no table, SIMD hidden: lookup, not scalar (lookup is 1.7x scalar on every seed shape)"

mkdir -p "$(dirname "$table")"
printf '%s\t1024\tscalar\n%s\t1048576\tlookup\n' "$key" "$key" >"$table"
expect_exit 0 "encode 1 KiB" "$LABRUN" encode --shape 1,2,1,4,64 small.bin o.bin
equals "$(kernel_of)" "scalar" "1 KiB: the entry at 1 KiB"
expect_exit 0 "encode 256 KiB" "$LABRUN" encode --shape 1,2,8,64,128 big.bin o.bin
equals "$(kernel_of)" "lookup" "256 KiB: the entry at 1 MiB is nearer by ratio (4x) than the one at 1 KiB (256x)"
expect_exit 0 "bench header" "$LABRUN" bench encoder --shape 1,2,1,64,64 --reps 2 --no-files
contains "$T/out" "auto kernel lookup" "with no size known: the entry at the largest size"

# lines that are not this CPU's, name a kernel it cannot run, or do not parse are not taken
printf 'another CPU|lookup,scalar\t1024\tlookup\n%s\t2048\tavx512\n%s\tmany\tlookup\ngarbage\n%s\t1024\tscalar\n' \
	"$key" "$key" "$key" >"$table"
expect_exit 0 "encode with foreign and broken lines" "$LABRUN" encode --shape 1,2,1,4,64 small.bin o.bin
equals "$(kernel_of)" "scalar" "only this CPU's runnable entry counts"
expect_exit 0 "--kernel lookup is still taken as given" "$LABRUN" encode --kernel lookup --shape 1,2,1,4,64 small.bin o.bin
equals "$(kernel_of)" "lookup" "an explicit kernel is not the table's business"

# bench encoder writes its measurement: this CPU's entries at the sizes it ran, the rest kept
expect_exit 0 "bench encoder measures" "$LABRUN" bench encoder --shape 1,2,1,8,32 --reps 3 --no-files
contains "$T/out" "Auto takes scalar at this size (the fastest at the nearest size" "the summary says what auto took and why"
contains "$T/out" "auto now takes the kernel fastest here" "and that the table changed"
equals "$(grep -c '^another CPU|' "$table")" "1" "another CPU's line is kept"
best=$(sed -n 's/.*Best kernel \([a-z0-9]*\):.*/\1/p' "$T/out")
equals "$(grep -F "$key" "$table" | awk -F '\t' '$2 == 1024 { print $3 }')" "$best" "the entry at 1 KiB is the kernel it measured best"
equals "$(grep -cF "$key	1024	" "$table")" "1" "once"

# a replay runs the kernel its original resolved auto to, not today's pick
cat >auto.ini <<'EOF'
[experiment]
name = auto-replay
target = encode
[design]
blocks = 2
exploratory = yes
warmup = 0
[arm a]
kernel = auto
[arm b]
kernel = lookup
[grid]
model = qwen3-0.6b
layers = 1
tokens = 16
EOF
printf '%s\t1024\tscalar\n' "$key" >"$table"
expect_exit 0 "an experiment with an auto arm" "$LABRUN" run -q auto.ini
orig=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT kernel FROM arm WHERE run_id = $orig AND name = 'a'")" "scalar" "the arm records the kernel auto resolved to"
printf '%s\t1024\tlookup\n' "$key" >"$table"
expect_exit 0 "replay after the table changed" "$LABRUN" replay -q "$orig"
equals "$(q "SELECT kernel FROM arm WHERE run_id = (SELECT max(id) FROM run) AND name = 'a'")" "scalar" \
	"the replay runs the recorded kernel"
echo "1..$tests"
