#!/bin/sh
# One path rule for every file a definition names inside a run's work area ({outdir}): outputs and
# responses. A name that is absolute, climbs out with '..', or is declared twice (or as a file and
# as its directory) is refused when the definition is loaded, naming the line, before anything runs;
# a link out of {outdir} (to /etc/passwd, to /dev/zero) or a name that is a directory fails the
# execution at run time, naming the file, and nothing of it reaches the store. Issue 44: responses
# were read from outside {outdir} and stored as evidence (a link to /dev/zero read 64 MiB first);
# two outputs of one file, or a name that was a directory, stopped 'run' with a constraint
# violation (exit 3, "a bug in labrun") and left the condition not completed.
. "$(dirname "$0")/lib.sh"

define() { # NAME COMMAND KEY VALUE: two arms that run COMMAND and declare KEY = VALUE
	printf '[experiment]\nname = %s\ntarget = command\n[design]\nblocks = 6\nwarmup = 0\n' "$1"
	for arm in a b; do printf '[arm %s]\ncommand = %s\n%s = %s\n' "$arm" "$2" "$3" "$4"; done
}
runs() { q "SELECT count(*) FROM run"; }

# refused at load, naming the line: nothing runs, no run is recorded
refused() { # DESC FILE TEXT
	expect_exit 2 "$1: refused when the definition is loaded" "$LABRUN" run -q "$2"
	contains "$T/err" "$3" "$1: the error names the line and the file"
	[ ! -e "$LABRUN_STORE/labrun.db" ] || equals "$(runs)" 0 "$1: no run recorded"
}
define up true responses ../r.jsonl >up.ini
refused "responses named with '..'" up.ini \
	"up.ini:9: [arm a] responses file '../r.jsonl' is not a path inside {outdir}"
define abs true responses /etc/passwd >abs.ini
refused "absolute responses" abs.ini "abs.ini:9: [arm a] responses file '/etc/passwd' is not a path inside {outdir}"
define outdir true responses '{outdir}/r.jsonl' >outdir.ini
refused "responses named from {outdir}" outdir.ini \
	"outdir.ini:9: [arm a] responses file '{outdir}/r.jsonl' is not a path inside {outdir}"
define twice "sh -c 'echo x >{outdir}/o.txt'" outputs "o.txt o.txt" >twice.ini
refused "one output declared twice" twice.ini "twice.ini:9: [arm a] declared output 'o.txt' is declared twice"
define alias "sh -c 'echo x >{outdir}/o.txt'" outputs "o.txt ./o.txt" >alias.ini
refused "one output under two names" alias.ini \
	"alias.ini:9: [arm a] declared output './o.txt' is declared twice (as 'o.txt' too)"
define nested "true" outputs "d d/o.txt" >nested.ini
refused "an output and its directory" nested.ini \
	"nested.ini:9: [arm a] declared output 'd' is a directory of 'd/o.txt': a file and a directory at once"

# at run time: the execution fails, naming the file; nothing of it is stored
define zero "ln -s /dev/zero {outdir}/r.jsonl" responses r.jsonl >zero.ini
expect_exit 1 "responses that link to /dev/zero fail the execution (no hang)" timeout 10 "$LABRUN" run -q zero.ini
contains "$T/out" "responses file 'r.jsonl' leads out of {outdir} (a link)" "named"
equals "$(q "SELECT count(*) FROM response")" 0 "no response stored"

passwd=$(sha256sum </etc/passwd | cut -c1-64)
cp "$TOP_SRCDIR/tests/fixtures/serving/gpu.jsonl" "$T/outside.jsonl"
define link "ln -s $T/outside.jsonl {outdir}/r.jsonl" responses r.jsonl >link.ini
expect_exit 1 "responses that link out of {outdir} fail the execution" "$LABRUN" run -q link.ini
contains "$T/out" "responses file 'r.jsonl' leads out of {outdir} (a link)" "named"
equals "$(q "SELECT count(*) FROM response")" 0 "nothing of the file outside is stored"

define dirresp "mkdir {outdir}/r.jsonl" responses r.jsonl >dirresp.ini
expect_exit 1 "responses that are a directory fail the execution" "$LABRUN" run -q dirresp.ini
contains "$T/out" "responses file 'r.jsonl' is not a regular file" "named"

define inside "sh -c 'cp $T/outside.jsonl {outdir}/r.jsonl'" responses r.jsonl >inside.ini
expect_exit 0 "responses inside {outdir} are ingested" "$LABRUN" run -q inside.ini
[ "$(q "SELECT count(*) FROM response")" -gt 0 ] || fail "the responses inside {outdir} were not stored"
ok "and stored"

# a name, then a directory: the execution fails cleanly, the condition is completed (failed)
define dirout "sh -c 'mkdir {outdir}/d && echo x >{outdir}/o.txt'" outputs "d o.txt" >dirout.ini
expect_exit 1 "a declared output that is a directory fails the execution, no constraint violation" \
	"$LABRUN" run -q dirout.ini
contains "$T/out" "declared output 'd' is not a regular file" "named"
lacks "$T/err" "bug in labrun" "no internal error"
equals "$(q "SELECT status FROM run ORDER BY id DESC LIMIT 1")" failed "the run is completed, as failed"

# a grid value that makes two outputs alike: refused when the names are known, never a crash
printf '[experiment]\nname = grid\ntarget = command\n[grid]\nk = o, p\n[design]\nblocks = 6\nwarmup = 0\n' >grid.ini
for arm in a b; do
	printf "[arm %s]\ncommand = sh -c 'echo x >{outdir}/o.txt; echo y >{outdir}/p.txt'\noutputs = {k}.txt o.txt\n" \
		"$arm" >>grid.ini
done
expect_exit 1 "outputs made alike by a grid value fail the execution" "$LABRUN" run -q grid.ini
contains "$T/out" "declared output 'o.txt' is declared twice" "named"
lacks "$T/err" "bug in labrun" "no internal error"
echo "1..$tests"
