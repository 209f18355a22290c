#!/bin/sh
# manifest and archive read one snapshot of the store (docs/design.md, "One snapshot per crate"):
# with a writer loop ingesting responses into a run of the crate and recording runs, each crate
# made while the writer committed is one 'labrun verify' accepts. The writer shows the commits:
# it appends a crate maker's pid to 'during' when that process was running both before one of
# its commands started and after that command had committed, so the commit fell inside the
# maker's run. Ten manifests (with their site) and three archives must each have had one;
# a maker that had none is verified all the same and another is made, up to a bound.
# make check-slow: the writer never rests, which costs more CPU than make check can spare.
. "$(dirname "$0")/../cli/lib.sh"

[ -r /proc/self/stat ] || { echo "SKIP: no /proc to see whether the crate maker still runs"; exit 77; }
L=$LABRUN
F="$TOP_SRCDIR/tests/fixtures/serving"
"$L" key init >/dev/null 2>&1 || fail "key init"
"$L" key export >"$T/lab.pub.pem"
cat >outs.ini <<'EOF'
[experiment]
name = outs
issues = 270
target = command
[design]
blocks = 6
[arm a]
command = sh -c 'echo same >"$1"' sh {outdir}/out.txt
outputs = out.txt
[arm b]
command = sh -c 'echo same >"$1"' sh {outdir}/out.txt
outputs = out.txt
EOF
"$L" run -q outs.ini >/dev/null 2>&1 || fail "the command experiment"
"$L" ingest responses --run 1 --route gpu "$F/gpu.jsonl" >/dev/null 2>&1 || fail "ingest"
"$L" record -q --issue 270 -- echo hello >/dev/null 2>&1 || fail "record"

# running PID: PID is a crate maker (labrun manifest or archive) that has not exited
running() {
	[ -n "$1" ] || return 1
	case "$(cat "/proc/$1/cmdline" 2>/dev/null | tr '\0' ' ')" in
	"$L manifest "* | "$L archive "*) ;;
	*) return 1 ;;
	esac
	[ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]
}
# writer: amend run 1 (three routes in turn) and record runs of another issue until told to stop
writer() {
	set +e
	i=0
	while [ ! -e "$T/stop" ]; do
		i=$((i + 1))
		for cmd in ingest record; do
			p=$(cat "$T/maker" 2>/dev/null || true)
			running "$p" && was=1 || was=0
			if [ $cmd = ingest ]; then
				"$L" ingest responses --run 1 --route "r$((i % 3))" "$F/atom.jsonl"
			else
				"$L" record -q --issue 271 -- true
			fi >/dev/null 2>"$T/writer.last" || { echo "$cmd $i failed:" && cat "$T/writer.last"; } >>"$T/writer.err"
			if [ $was = 1 ] && running "$p"; then
				echo "$p" >>"$T/during"
			fi
		done
	done
}
: >"$T/during"
writer &
W=$!
trap 'touch "$T/stop"; wait $W; cleanup' EXIT

# make NAME CMD...: run the crate maker CMD in the background, tell the writer its pid, wait for it;
# $made is 1 when the writer committed while it ran
make_crate() {
	name=$1
	shift
	"$@" >"$T/$name.out" 2>"$T/$name.err" &
	pid=$!
	echo "$pid" >"$T/maker.tmp" && mv "$T/maker.tmp" "$T/maker"
	wait "$pid" || { cat "$T/$name.err" >&2; fail "$name: $* failed under the writer"; }
	rm -f "$T/maker"
	grep -qx "$pid" "$T/during" && made=1 || made=0
}
head_seq() { q "SELECT max(seq) FROM ledger"; }
# crate_head DIR: the ledger head the crate's signed statement names
crate_head() { jq -r .payload "$1/crate.intoto.json" | base64 -d | jq -r .predicate.head.seq; }

good=0 tries=0
while [ $good -lt 10 ]; do
	tries=$((tries + 1))
	[ $tries -le 40 ] || fail "only $good of 40 manifests had a writer commit while they ran"
	make_crate "m$tries" "$L" manifest --issue 270 --site -o "$T/c$tries" --license CC-BY-4.0
	"$L" verify --key "$T/lab.pub.pem" "$T/c$tries" >"$T/v$tries.out" 2>&1 ||
		{ grep -v '^ok' "$T/v$tries.out" | head -20 >&2; fail "manifest $tries (writers committed: $made): verify refuses its crate"; }
	[ "$(crate_head "$T/c$tries")" -lt "$(head_seq)" ] || [ $made = 0 ] ||
		fail "manifest $tries: its signed head is the store's newest though the writer committed while it ran"
	good=$((good + made))
	rm -rf "$T/c$tries"
done
ok "ten manifests with the writer committing while each ran: verify accepts each crate ($tries made)"

good=0 tries=0
while [ $good -lt 3 ]; do
	tries=$((tries + 1))
	[ $tries -le 15 ] || fail "only $good of 15 archives had a writer commit while they ran"
	make_crate "a$tries" "$L" archive --issue 270 -o "$T/a$tries.tar.zst"
	"$L" verify --key "$T/lab.pub.pem" "$T/a$tries.tar.zst" >"$T/va$tries.out" 2>&1 ||
		{ grep -v '^ok' "$T/va$tries.out" | head -20 >&2; fail "archive $tries (writers committed: $made): verify refuses it"; }
	good=$((good + made))
	rm -f "$T/a$tries.tar.zst"
done
ok "three archives with the writer committing while each ran: verify accepts each ($tries made)"

touch "$T/stop"
wait $W
[ ! -s "$T/writer.err" ] || { cat "$T/writer.err" >&2; fail "the writer failed while the crates were made"; }
ok "every write of the writer committed ($(wc -l <"$T/during") inside crate makers): none held it up"
