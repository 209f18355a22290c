#!/bin/sh
# The noise floor means something (issue 25, item 1): the A/A run that qualifies a result is on the
# same host, of the same target, started before it, and its intervals contain 1; a result inside
# its interval claims no effect. Each case below once chose the wrong floor or none at all: the
# newest A/A of the whole store (a later one, another host's, an encoder A/A for commands), one
# whose interval excluded 1, and a verdict beside a floor 100 times wider than the effect.
. "$(dirname "$0")/lib.sh"
X="$TOP_SRCDIR/tests/fixtures/experiments"
floor() { "$LABRUN" report --run "$1" | sed -n 's/^\* Noise floor: //p'; }
# the A/A control, and a real comparison, on one small condition
sed -e 's/^name = tiny-encode/name = aa-tiny/' -e 's/^kernel = .*/kernel = auto/' \
	-e 's/^layers = 1, 2/layers = 1/' "$X/tiny-encode.ini" >aa.ini
sed -e 's/^layers = 1, 2/layers = 1/' "$X/tiny-encode.ini" >enc.ini
# times set by hand, so that each interval is what the case needs: arm 1 against arm 0 per block
set_times() { # times RUN SQL-EXPRESSION-OF-block-FOR-arm-1
	sqlite3 "$LABRUN_STORE/labrun.db" "UPDATE repetition SET wall_s = 0.001 WHERE run_id = $1 AND arm_idx = 0;
		UPDATE repetition SET wall_s = 0.001 * ($2) WHERE run_id = $1 AND arm_idx = 1" || fail "set the times of run $1"
}

"$LABRUN" run -q enc.ini >/dev/null 2>&1 || fail "a comparison before any A/A"
early=$(q "SELECT max(id) FROM run")
"$LABRUN" run -q aa.ini >/dev/null 2>&1 || fail "the A/A run"
aa=$(q "SELECT max(id) FROM run")
set_times "$aa" "CASE block % 2 WHEN 0 THEN 1.3 ELSE 0.7 END" # wide, around 1
"$LABRUN" run -q aa.ini >/dev/null 2>&1 || fail "a second A/A run"
aa2=$(q "SELECT max(id) FROM run")
set_times "$aa2" "CASE block % 2 WHEN 0 THEN 1.01 ELSE 0.99 END" # narrow, inside the first
"$LABRUN" run -q enc.ini >/dev/null 2>&1 || fail "a comparison after the A/A runs"
late=$(q "SELECT max(id) FROM run")

case "$(floor "$early")" in
"none: no A/A run of this target on this host started before this run"*) ok "an A/A run started later is no floor" ;;
*) fail "the comparison before the A/A run names: $(floor "$early")" ;;
esac
case "$(floor "$aa2")" in
"A/A run $aa (aa-tiny), on this host, of this target, started before this run; its widest 95% interval is [-30.0%, +30.0%]"*)
	ok "the A/A run before it is its floor, with its interval" ;;
*) fail "the second A/A run's floor: $(floor "$aa2")" ;;
esac
expect_exit 0 "report of a result inside the floor" "$LABRUN" report --run "$aa2"
contains "$T/out" "within the A/A noise floor of run $aa [-30.0%, +30.0%]: no effect is claimed" "claims no effect"
expect_exit 0 "report --format json of it" "$LABRUN" report --run "$aa2" --format json
contains "$T/out" "within the A/A noise floor of run $aa" "and the JSON says the same"
case "$(floor "$late")" in "A/A run $aa2 (aa-tiny)"*) ok "the newest A/A before it is the floor" ;;
*) fail "the late comparison's floor: $(floor "$late")" ;; esac
"$LABRUN" report --run "$late" | grep -q "within the A/A noise floor" && fail "a large effect was called noise"
ok "an effect far outside the floor keeps its verdict"

# the newest by start time, not by run number: a pulled run may have a higher id and an older start
sqlite3 "$LABRUN_STORE/labrun.db" "UPDATE run SET started_at = '2000-01-01T00:00:00.000Z' WHERE id = $aa2" || fail "move a start"
case "$(floor "$late")" in "A/A run $aa (aa-tiny)"*) ok "the newest start wins, not the highest run id" ;; *) fail "$(floor "$late")" ;; esac
sqlite3 "$LABRUN_STORE/labrun.db" "UPDATE run SET started_at = '2999-01-01T00:00:00.000Z' WHERE id = $aa2" || fail "move a start"
case "$(floor "$late")" in "A/A run $aa (aa-tiny)"*) ok "one that started after the run does not qualify" ;; *) fail "$(floor "$late")" ;; esac
sqlite3 "$LABRUN_STORE/labrun.db" "UPDATE run SET started_at = '2999-01-01T00:00:00.000Z' WHERE id = $aa" || fail "move a start"
case "$(floor "$late")" in "none: no A/A run"*) ok "with both after it, none" ;; *) fail "$(floor "$late")" ;; esac
sqlite3 "$LABRUN_STORE/labrun.db" "UPDATE run SET started_at = '2000-01-01T00:00:00.000Z' WHERE id = $aa"

# another host's A/A is no floor here
sqlite3 "$LABRUN_STORE/labrun.db" "INSERT INTO host(fingerprint, hostname, os, kernel, arch, cpu_model, cpu_flags, cores)
	SELECT 'other', 'elsewhere', os, kernel, arch, cpu_model, cpu_flags, cores FROM host LIMIT 1;
	UPDATE run SET host_id = (SELECT id FROM host WHERE fingerprint = 'other') WHERE id = $aa" || fail "move a run"
case "$(floor "$late")" in "none: no A/A run"*) ok "another host's A/A is no floor" ;; *) fail "$(floor "$late")" ;; esac
sqlite3 "$LABRUN_STORE/labrun.db" "UPDATE run SET host_id = (SELECT host_id FROM run WHERE id = $late) WHERE id = $aa"

# an A/A whose interval excludes 1 shows a bias: it is named, and no floor is claimed
set_times "$aa" "1.5"
case "$(floor "$late")" in
"none: A/A run $aa (aa-tiny) has an interval that excludes 1 (a bias between identical arms), so it is no floor")
	ok "an A/A excluding 1 is named and is no floor" ;;
*) fail "$(floor "$late")" ;;
esac

# an encoder A/A is no floor for a command experiment
printf '[experiment]\nname = cmd\ntarget = command\n[design]\nblocks = 6\nwarmup = 0\n[arm a]\ncommand = true\n[arm b]\ncommand = sh -c true\n' >cmd.ini
"$LABRUN" run -q cmd.ini >/dev/null 2>&1 || fail "a command experiment"
case "$(floor "$(q "SELECT max(id) FROM run")")" in "none: no A/A run of this target"*) ok "an encoder A/A is no floor for commands" ;;
*) fail "the command experiment's floor: $(floor "$(q "SELECT max(id) FROM run")")" ;; esac
sed -e 's/^name = cmd/name = cmd-aa/' -e 's/^command = sh -c true/command = true/' cmd.ini >cmd-aa.ini
"$LABRUN" run -q cmd-aa.ini >/dev/null 2>&1 || fail "a command A/A"
caa=$(q "SELECT max(id) FROM run")
"$LABRUN" run -q cmd.ini >/dev/null 2>&1 || fail "a command experiment after it"
case "$(floor "$(q "SELECT max(id) FROM run")")" in "A/A run $caa (cmd-aa)"*|"none: A/A run $caa"*) ok "a command A/A is" ;;
*) fail "the command experiment's floor: $(floor "$(q "SELECT max(id) FROM run")")" ;; esac
