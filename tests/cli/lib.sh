# Sourced by every tests/cli/t*.sh: a temporary work area and store per test,
# and small assertion helpers that say what failed.
set -eu
: "${LABRUN:?run through 'make check', which sets LABRUN}"
: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"

T=$(mktemp -d "${TMPDIR:-/tmp}/labrun-cli.XXXXXX")
cleanup() { rm -rf "$T"; }
trap cleanup EXIT
# stopped (Ctrl-C on make check, a timeout), clean up all the same: the EXIT trap runs on exit, and
# a test's EXIT trap (pg.sh's stops its PostgreSQL server) is not left running with nobody to stop it
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
export LABRUN_STORE="$T/store"
export HOME="$T/home"
unset XDG_CACHE_HOME LABRUN_KERNEL_TABLE # the kernel table auto reads is the test's own, under HOME
mkdir -p "$HOME" "$T/work"
# Commands run in work/; captured output stays beside it in $T/out and $T/err.
cd "$T/work"
tests=0

# The runner's own secret-looking variables would be scrubbed from logs the
# tests compare; tests that need one set it themselves.
# (One awk for all of them: a process per variable cost the suite seconds.)
for v in $(env | awk -F= '/^[A-Za-z_][A-Za-z0-9_]*=/ &&
	toupper($1) ~ /TOKEN|SECRET|KEY|PASSW|CREDENTIAL|AUTH|PRIVATE|COOKIE|SESSION|SIGNATURE/ { print $1 }'); do
	unset "$v"
done

fail() { echo "not ok - $*" >&2; exit 1; }
ok() { tests=$((tests + 1)); echo "ok $tests - $*"; }

# expect_exit N DESCRIPTION CMD...: run CMD, capture out/err into $T/out, $T/err.
expect_exit() {
	want=$1 desc=$2
	shift 2
	set +e
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	set -e
	[ "$got" = "$want" ] || {
		echo "--- stdout" >&2; cat "$T/out" >&2
		echo "--- stderr" >&2; cat "$T/err" >&2
		fail "$desc: exit $got, expected $want"
	}
	ok "$desc"
}

# contains FILE TEXT DESCRIPTION
contains() {
	grep -qF -- "$2" "$1" || { echo "--- $1" >&2; cat "$1" >&2; fail "$3: '$2' not found"; }
	ok "$3"
}

# lacks FILE TEXT DESCRIPTION
lacks() {
	! grep -qF -- "$2" "$1" || { echo "--- $1" >&2; cat "$1" >&2; fail "$3: '$2' found"; }
	ok "$3"
}

# equals GOT WANT DESCRIPTION
equals() {
	[ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
	ok "$3"
}

# lab_key: the lab's signing key made (labrun key init), its public key in $T/lab.pub.pem, its private
# key's path in LABKEY (for a forger's re-signing), and the forger's tool in RESIGN
lab_key() {
	"$LABRUN" key init >/dev/null 2>&1 || fail "key init"
	"$LABRUN" key export >"$T/lab.pub.pem" || fail "key export"
	LABKEY="$HOME/.config/labrun/signing-key.pem"
	[ -f "$LABKEY" ] || fail "no lab key at $LABKEY"
	RESIGN="$TOP_SRCDIR/tests/cli/dsse-resign.py"
}

# q SQL: one value from the store through labrun sql
q() { "$LABRUN" sql --csv "$1" | sed -n '2{s/\r//g;p;}'; }

# A throwaway git repository with one commit, as a source tree.
make_repo() {
	mkdir -p "$1"
	git -C "$1" init -q
	git -C "$1" config user.email t@example.org
	git -C "$1" config user.name t
	echo base >"$1/tracked.txt"
	git -C "$1" add tracked.txt
	git -C "$1" commit -qm base
}

# A report's sections (Markdown) one a line, sorted, run numbers as "run N": a recorded run's are its
# lines under "Recorded runs", each folded detail one of its own. Stores that pulled the same runs
# under other ids give the same lines (the remote tests compare a puller's report with its origins').
sections() { awk 'function out(x) { sub(/(\\n)+$/, "", x); if (x != "") print x }
	/^## /{ out(s); s = $0; rec = $0 == "## Recorded runs"; next } rec && /^\* run /{ out(s); s = $0; next }
	/^<details>/{ out(s); s = $0; rec = 0; next }
	s != "" { s = s "\\n" $0 } END { out(s) }' "$1" | grep -v '^## Recorded runs' | sed 's/[Rr]un [0-9][0-9]*/run N/g' | sort; }

# The remote tests' hosts: stores A, B, C and D under $T, and la, lb, lc and ld running labrun in
# each; 'hosts a b c' makes those stores.
A="$T/a" B="$T/b" C="$T/c" D="$T/d"
la() { LABRUN_STORE=$A "$LABRUN" "$@"; }
lb() { LABRUN_STORE=$B "$LABRUN" "$@"; }
lc() { LABRUN_STORE=$C "$LABRUN" "$@"; }
ld() { LABRUN_STORE=$D "$LABRUN" "$@"; }
hosts() { for s in "$@"; do LABRUN_STORE=$T/$s "$LABRUN" init >/dev/null || fail "init store $s"; done; }

# push_at_once STORE_A STORE_B: both push to their only remote at the same moment; their output in
# $T/pa and $T/pb (the remote tests' two hosts)
push_at_once() {
	LABRUN_STORE=$1 "$LABRUN" push >"$T/pa" 2>&1 &
	pa=$!
	LABRUN_STORE=$2 "$LABRUN" push >"$T/pb" 2>&1 &
	pb=$!
	wait $pa || { cat "$T/pa" >&2; fail "push from $1"; }
	wait $pb || { cat "$T/pb" >&2; fail "push from $2"; }
}

# report_is_union ISSUE STORE_A STORE_B STORE_C: C's report for ISSUE holds A's and B's sections,
# run ids aside (what C pulled from both)
report_is_union() {
	LABRUN_STORE=$2 "$LABRUN" report --issue "$1" >"$T/ra.md"
	LABRUN_STORE=$3 "$LABRUN" report --issue "$1" >"$T/rb.md"
	LABRUN_STORE=$4 "$LABRUN" report --issue "$1" >"$T/rc.md"
	sections "$T/ra.md" >"$T/sa"
	sections "$T/rb.md" >"$T/sb"
	sections "$T/rc.md" >"$T/sc"
	[ -s "$T/sa" ] && [ -s "$T/sb" ] || fail "A's or B's report is empty"
	sort "$T/sa" "$T/sb" | cmp - "$T/sc" || { diff "$T/sc" "$T/sa"; fail "C's report is not the union of A's and B's"; }
	ok "C's report for issue $1 is the union of A's and B's, run ids aside"
}
