#!/bin/sh
# Every file labrun takes from a user is opened the one bounded way (lr_open_input): a regular file
# only, never a blocking open of a FIFO, never a device streamed, and within a size cap for its
# kind. Issue 44: 'verify --key /dev/zero', 'key trust FIFO', 'ingest FIFO' and a FIFO as a
# definition, answers, trusted-keys or signing-key file, signed head or scan baseline blocked for
# ever. Each command runs under 'timeout 10', so a hang fails this test (exit 124), not the suite.
. "$(dirname "$0")/lib.sh"
L=$LABRUN

"$L" key init >/dev/null 2>&1 || fail "key init"
"$L" record -q -- echo hello >/dev/null 2>&1 || fail "record"
"$L" manifest --run 1 -o crate --license CC-BY-4.0 >/dev/null 2>&1 || fail "manifest"
mkfifo fifo
ln -s /dev/zero zero.link

# refused DESC TEXT CMD...: exits non-zero within the timeout, stderr naming the file as no regular file
refused() {
	desc=$1 text=$2
	shift 2
	set +e
	timeout 10 "$@" >"$T/out" 2>"$T/err"
	got=$?
	set -e
	[ "$got" != 124 ] || fail "$desc: it hung"
	[ "$got" != 0 ] || fail "$desc: it was accepted"
	ok "$desc: refused, no hang (exit $got)"
	contains "$T/err" "$text" "$desc: the error names it"
}
nr="it is not a regular file"
refused "verify --key FIFO" "refusing to read key 'fifo': $nr" "$L" verify --key fifo crate
refused "verify --key /dev/zero" "refusing to read key '/dev/zero': $nr" "$L" verify --key /dev/zero crate
refused "verify --trust FIFO" "'fifo': $nr" "$L" verify --trust fifo crate
refused "key trust FIFO" "refusing to read key 'fifo': $nr" "$L" key trust fifo
refused "key trust /dev/zero" "refusing to read key '/dev/zero': $nr" "$L" key trust /dev/zero
refused "ingest FIFO" "refusing to read responses 'fifo': $nr" "$L" ingest responses --run 1 --route r fifo
refused "ingest a link to /dev/zero" "refusing to read responses 'zero.link': $nr" \
	"$L" ingest responses --run 1 --route r zero.link
equals "$(q "SELECT count(*) FROM response_set")" 0 "ingest stored nothing"
refused "run FIFO" "refusing to read experiment 'fifo': $nr" "$L" run fifo
"$L" ingest responses --run 1 --route gpu "$TOP_SRCDIR/tests/fixtures/serving/gpu.jsonl" >/dev/null ||
	fail "ingest the fixture"
expect_exit 0 "ingest '-' reads standard input (a pipe), as documented" \
	"$L" ingest responses --run 1 --route piped - <"$TOP_SRCDIR/tests/fixtures/serving/gpu.jsonl"
refused "gate --answers FIFO" "refusing to read answer key 'fifo': $nr" \
	"$L" gate --run 1 --route gpu --answers fifo
refused "audit --head FIFO" "refusing to read signed head 'fifo': $nr" "$L" audit --head fifo
refused "scan --baseline FIFO" "refusing to read baseline 'fifo': $nr" "$L" scan --run 1 --baseline fifo
refused "verify FIFO" "cannot verify 'fifo': it is neither a crate directory nor an archive file" "$L" verify fifo
refused "archive --verify FIFO" "cannot verify 'fifo': it is neither" "$L" archive --verify fifo
mkdir out
refused "archive --extract FIFO" "refusing to read archive 'fifo': $nr" "$L" archive --extract fifo out
"$L" archive --run 1 -o a.tar.gz >/dev/null 2>&1 || fail "archive"
"$L" archive --extract a.tar.gz out >/dev/null || fail "extract"
expect_exit 1 "extracting over what is there is refused" "$L" archive --extract a.tar.gz out
contains "$T/err" "already exists" "named"
contains "$T/err" "hint: nothing was extracted; extract into an empty directory, none is replaced" \
	"with the hint for that, not one about links and devices"
LABRUN_TRUSTED_KEYS=$T/work/fifo refused "a FIFO as the trusted-keys file" \
	"refusing to read trusted keys '$T/work/fifo': $nr" "$L" verify crate
LABRUN_KEY=$T/work/fifo refused "a FIFO as the signing key" "refusing to read signing key '$T/work/fifo': $nr" \
	"$L" key show
ss=$HOME/.config/labrun/signed-stores
mv "$ss" "$T/signed-stores"
mkfifo "$ss"
refused "a FIFO as the signed-stores file" "refusing to read signed stores '$ss': $nr" "$L" key list
rm "$ss"
mv "$T/signed-stores" "$ss"

# caps: a key file is a few hundred bytes, a trusted-keys file at most 1 MiB, a definition at most
# 1 MiB; larger ones are refused whole, before they are read
head -c 70000 /dev/urandom >big.pem
chmod 600 big.pem
LABRUN_KEY=$T/work/big.pem refused "a 70 KB signing key" \
	"refusing to read signing key '$T/work/big.pem': it is 70000 bytes, more than the 65536 bytes" "$L" key show
head -c 2000000 /dev/urandom >huge.pem
refused "a 2 MB key to trust" "refusing to read trusted keys 'huge.pem': it is 2000000 bytes, more than the 1048576" \
	"$L" key trust huge.pem
awk 'BEGIN { for (i = 0; i < 70000; i++) print "# padding padding" }' >big.ini
refused "a definition over 1 MiB" "refusing to read experiment 'big.ini': it is 1260000 bytes, more than the 1048576" \
	"$L" run big.ini

# a crate file that is there but no regular file is named as unreadable, not as missing
cp -R crate c2
rm c2/ledger.json
mkfifo c2/ledger.json
expect_exit 1 "verify of a crate whose ledger.json is a FIFO" timeout 10 "$L" verify c2
contains "$T/out" "ledger.json: cannot be read: it is not a regular file" "named as unreadable"
lacks "$T/out" "ledger.json: is missing" "not as missing"

# outputs written in place: a FIFO as the scan baseline or the design head blocked for ever on its open
ow="it is a FIFO, which an output never replaces"
refused "scan --write-baseline FIFO" "cannot write 'fifo': $ow" "$L" scan --write-baseline fifo "$TOP_SRCDIR/README.md"
runs=$(q "SELECT count(*) FROM run")
refused "run --design-head FIFO" "cannot write 'fifo': $ow" \
	"$L" run -q --design-head fifo "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini"
equals "$(q "SELECT count(*) FROM run")" "$runs" "no run was stored"
[ -p fifo ] || fail "the FIFO was replaced"
echo "1..$tests"
