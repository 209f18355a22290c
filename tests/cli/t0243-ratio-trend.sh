#!/bin/sh
# Drift that means something (issue 42, part 5): a drift both arms share is information, never a flag,
# and the paired ratio cancels it; a trend of the block ratios themselves, which ABBA does not cancel,
# qualifies the verdict, and the verdict says why. Before, every row whose arms drifted past the margin
# was marked DRIFT (all four of the Quick start's) and no verdict was ever qualified. A harness writes
# known values: both arms rise 2% a block (+19.5% over 10 blocks); in condition 'flat' arm b is 0.7 of
# arm a with a little scatter and no trend, in 'trend' its ratio grows 1% a block.
. "$(dirname "$0")/lib.sh"

L=$LABRUN
cat >harness.sh <<'EOF2'
# ARM MODE BLOCK: the cost of one execution
arm=$1 mode=$2 block=$3
case $block in parity) block=0 ;; esac
awk -v arm="$arm" -v mode="$mode" -v b="$block" 'BEGIN {
	v = 100 * 1.02 ^ b                                         # the drift both arms share
	if (arm == "b" && mode == "flat") v *= 0.7 * (1 + ((b * 7) % 10) / 1000)
	if (arm == "b" && mode == "trend") v *= 0.7 * 1.01 ^ b
	printf "{\"name\": \"cost\", \"value\": %.6f, \"unit\": \"units\", \"better\": \"lower\"}\n", v
}' >>"$LABRUN_METRICS"
EOF2
cat >t.ini <<'EOF2'
[experiment]
name = trend
target = command
[design]
blocks = 10
warmup = 0
metric = cost
[arm a]
command = sh harness.sh a {mode} {block}
[arm b]
command = sh harness.sh b {mode} {block}
[grid]
mode = flat, trend
EOF2
expect_exit 0 "an experiment whose arms both drift" "$L" run -q t.ini
expect_exit 0 "its report" "$L" report --run 1
cp "$T/out" r.md
lacks r.md "DRIFT" "a drift both arms share marks no row"
contains r.md "| mode=flat | " "the flat condition has its row"
grep '| mode=flat |' r.md | grep -q "qualified" && fail "the trend-free ratio's verdict is qualified: $(grep '| mode=flat |' r.md)"
ok "the trend-free ratio's verdict stands unqualified, though each arm drifted +19.5%"
grep '| mode=flat |' r.md | grep -q '+19.5%/+19.' || fail "each arm's drift is still shown: $(grep '| mode=flat |' r.md)"
ok "each arm's drift is still shown, as information"
contains r.md "b has 29.7% lower cost [29.4%, 29.9%] |" "the flat condition's verdict, as the rows give it"
contains r.md "; qualified: the block ratio trends +9.4% over the blocks (p under 0.001) |" \
	"the trending ratio's verdict is qualified, and says why"
contains r.md "A trend of the block ratios" "the method paragraph says what qualifies a verdict"
expect_exit 0 "the report as JSON" "$L" report --run 1 --format json
equals "$(jq -r '[.runs[0].tables[0].rows[] | .ratio_trend.qualified] | join(" ")' "$T/out")" "false true" \
	"the data says which verdict is qualified"
equals "$(jq -r '.runs[0].tables[0].rows[1].ratio_trend.p < 0.001 and .runs[0].tables[0].rows[0].ratio_trend.p > 0.02' "$T/out")" \
	"true" "with the trend test's p"
equals "$(jq -r '[.runs[0].tables[0].rows[] | .drifted] | join(" ")' "$T/out")" "true true" \
	"per-arm drift past the margin is kept in the data, as information"
