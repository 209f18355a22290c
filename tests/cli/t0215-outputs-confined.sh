#!/bin/sh
# A command experiment's declared outputs stay inside {outdir}: a link out of it (/etc/passwd
# reached the store and every crate of the run through one) fails the execution, an absolute path
# or a '..' is refused when the definition is loaded (tests/cli/t0217), each naming the output, and
# nothing of the file reaches the store. A link that stays inside is followed.
. "$(dirname "$0")/lib.sh"

define() { # NAME COMMAND OUTPUTS
	printf '[experiment]\nname = %s\ntarget = command\n[design]\nblocks = 6\nwarmup = 0\n' "$1"
	for arm in a b; do printf '[arm %s]\ncommand = %s\noutputs = %s\n' "$arm" "$2" "$3"; done
}
passwd=$(sha256sum </etc/passwd | cut -c1-64)

define link "ln -s /etc/passwd {outdir}/out.txt" out.txt >link.ini
expect_exit 1 "an output that is a link out of {outdir}" "$LABRUN" run -q link.ini
contains "$T/out" "declared output 'out.txt' leads out of {outdir} (a link)" "named"
equals "$(q "SELECT count(*) FROM execution_output WHERE sha256 = '$passwd'")" 0 "no row names the file"
[ ! -e "$LABRUN_STORE/objects/$(echo "$passwd" | cut -c1-2)/$(echo "$passwd" | cut -c3-)" ] ||
	fail "/etc/passwd is an object of the store"
ok "its bytes are not in the store"

define dotdot "sh -c 'echo x >\"\$1/../x.txt\"' sh {outdir}" ../x.txt >dotdot.ini
expect_exit 2 "an output named with '..' (refused when the definition is loaded)" "$LABRUN" run -q dotdot.ini
contains "$T/err" "dotdot.ini:9: [arm a] declared output '../x.txt' is not a path inside {outdir}" "named"

define absolute "true" /etc/passwd >absolute.ini
expect_exit 2 "an absolute output (refused when the definition is loaded)" "$LABRUN" run -q absolute.ini
contains "$T/err" "absolute.ini:9: [arm a] declared output '/etc/passwd' is not a path inside {outdir}" "named"

define inner "sh -c 'echo same >\"\$1/real.txt\" && ln -s real.txt \"\$1/out.txt\"' sh {outdir}" out.txt >inner.ini
expect_exit 0 "a link that stays inside {outdir}" "$LABRUN" run -q inner.ini
contains "$T/out" "parity: 1 passed, 0 failed, 0 missing" "is followed"
echo "1..$tests"
