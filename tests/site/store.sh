# Sourced by tests/cli/t0355-site.sh and tests/slow/t0955-site-crate-scan.sh after lib.sh:
# the store whose site and crate they check. Run 1 an experiment, unsigned; then a key
# (this HOME trusts it) signs run 2, the serving example (its responses, comparisons and a
# failing case), and two records of issue 270, the second failed with a geometry.
cp -r "$TOP_SRCDIR/examples" .
"$LABRUN" run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" >/dev/null 2>&1 || fail "an experiment"
"$LABRUN" key init >/dev/null 2>&1 || fail "key init" # the runs after this one are signed, by a key this HOME trusts
"$LABRUN" run -q examples/serving-sim.ini >/dev/null 2>&1 || fail "the serving example"
"$LABRUN" record -q --issue 270 -- sh -c 'echo one' >/dev/null 2>&1
"$LABRUN" record -q --issue 270 --geometry model=qwen3-4b -- sh -c 'echo two; exit 3' >/dev/null 2>&1 || true
