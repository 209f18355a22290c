#!/bin/sh
# Statistics at any size (issue 11, done-when 3): a 1,100-block A/A run reports all 1,100 blocks
# and an interval containing 0% (the sign test once collapsed to a point from 1,075 blocks), and a
# report names the newest A/A run on the host as its noise floor.
. "$(dirname "$0")/lib.sh"

cat >aa.ini <<'EOF2'
[experiment]
name = aa1100
target = encode
[design]
blocks = 1100
warmup = 1
[arm a]
kernel = scalar
[arm b]
kernel = scalar
[grid]
model = qwen3-0.6b
layers = 1
tokens = 16
EOF2
# An A/A interval contains 0% with probability 95%: a second, independent run decides when the
# first misses (both miss with probability 0.25%).
for attempt in 1 2; do
	expect_exit 0 "a 1,100-block A/A run (attempt $attempt)" "$LABRUN" run -q aa.ini
	run=$(q "SELECT max(id) FROM run")
	"$LABRUN" report --run "$run" --format json >"$T/aa.json"
	equals "$(jq -r '.runs[0].tables[0].rows[0].blocks' "$T/aa.json")" "1100" "all 1,100 blocks are reported"
	lo=$(jq -r '.runs[0].tables[0].rows[0].interval[0]' "$T/aa.json")
	hi=$(jq -r '.runs[0].tables[0].rows[0].interval[1]' "$T/aa.json")
	awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo < hi) }' || fail "the interval [$lo, $hi] is a single point"
	if awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo <= 1 && 1 <= hi) }'; then
		ok "the interval [$lo, $hi] contains 0%"
		break
	fi
	[ $attempt = 2 ] && fail "two A/A runs in a row exclude 0%: [$lo, $hi]"
done

"$LABRUN" run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" >/dev/null 2>&1
expect_exit 0 "a report after the A/A run" "$LABRUN" report --experiment tiny-encode
contains "$T/out" "* Noise floor: A/A run $run (aa1100), on this host, of this target, started before this run; its widest 95% interval is" "the A/A run is the noise floor"
contains "$T/out" "| drift lookup/scalar |" "drift per condition"
