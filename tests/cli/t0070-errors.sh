#!/bin/sh
# Done-when 7: clear errors (what, which object, why, hint), non-zero exits,
# and nothing changed in the store.
. "$(dirname "$0")/lib.sh"

"$LABRUN" record -q -- true 2>/dev/null
runs() { q "SELECT count(*) FROM run"; }

expect_exit 2 "unknown global option" "$LABRUN" --bogus
contains "$T/err" "unknown option '--bogus'" "names the option"
expect_exit 125 "unknown record option" "$LABRUN" record --bogus -- true
contains "$T/err" "unknown option '--bogus' for 'labrun record'" "names option and command"
contains "$T/err" "hint: see 'labrun record -h'" "hint"
expect_exit 2 "unknown command" "$LABRUN" frobnicate
contains "$T/err" "unknown command 'frobnicate'" "names the command"
expect_exit 125 "record without a command" "$LABRUN" record --issue 270
contains "$T/err" "no command to record" "says what is missing"
expect_exit 125 "record with an empty command after --" "$LABRUN" record --
expect_exit 125 "option without its value" "$LABRUN" record --issue
contains "$T/err" "needs a value" "says the value is missing"
expect_exit 125 "bad issue reference" "$LABRUN" record --issue not-an-issue -- true
contains "$T/err" "invalid issue reference 'not-an-issue'" "names the reference"
expect_exit 125 "bad geometry value" "$LABRUN" record --geometry layers=many -- true
contains "$T/err" "'layers' must be a positive integer" "names the field"
expect_exit 125 "bad timeout" "$LABRUN" record --timeout soon -- true
expect_exit 125 "missing --input is refused before running" "$LABRUN" record --input nope.bin -- touch ran
[ ! -e ran ] || fail "the command ran despite the bad input"
contains "$T/err" "cannot record --input 'nope.bin'" "names the input"
equals "$(runs)" "1" "bad input stored no run"

expect_exit 127 "a command that does not exist" "$LABRUN" record -- labrun-no-such-cmd
contains "$T/err" "cannot execute 'labrun-no-such-cmd'" "names the command"
contains "$T/err" "hint:" "with a hint"
equals "$(q "SELECT status || ' ' || exit_code FROM run WHERE id = 2")" "failed 127" "kept as a failed run"

expect_exit 125 "a missing declared artifact fails the run" "$LABRUN" record --artifact out/result.bin -- true
contains "$T/err" "declared artifact 'out/result.bin' is missing" "names the artifact"
equals "$(q "SELECT status FROM run WHERE id = 3")" "failed" "run is failed"
equals "$(q "SELECT count(*) FROM artifact WHERE run_id = 3 AND name = 'out/result.bin' AND sha256 IS NULL")" "1" \
	"missing artifact recorded as missing"

touch afile
expect_exit 125 "a store under a file cannot be created" "$LABRUN" --store "$T/work/afile/store" record -- true
contains "$T/err" "cannot create store '$T/work/afile/store'" "names the store"
contains "$T/err" "hint:" "with a hint"
expect_exit 3 "a store in /proc cannot be created" "$LABRUN" --store /proc/labrun-store init

expect_exit 1 "show of an unknown run" "$LABRUN" show 99
contains "$T/err" "cannot find run '99'" "names the run"
expect_exit 1 "cat of an unknown artifact" "$LABRUN" cat 1 nothing.txt
contains "$T/err" "run 1 has no artifact 'nothing.txt'" "names the artifact"

# A store written by a newer labrun is refused and left untouched.
sqlite3 "$T/store/labrun.db" 'PRAGMA user_version = 99'
sum=$(sha256sum "$T/store/labrun.db")
expect_exit 3 "a newer schema is refused" "$LABRUN" list
contains "$T/err" "schema version 99 is newer than this labrun" "says why"
contains "$T/err" "upgrade labrun" "hint"
expect_exit 125 "recording into it is refused too" "$LABRUN" record -- true
equals "$(sha256sum "$T/store/labrun.db")" "$sum" "the newer store is byte-for-byte untouched"

# what was printed must have reached its reader: a full disk fails the command, with the reason
if [ -c /dev/full ]; then
	export LABRUN_STORE="$T/full-store"
	"$LABRUN" record -q -- true >/dev/null 2>&1
	rc=0
	"$LABRUN" list >/dev/full 2>"$T/err" || rc=$?
	equals "$rc" "1" "list > /dev/full exits 1"
	contains "$T/err" "cannot write the output: No space left on device" "and says why"
	rc=0
	"$LABRUN" --version >/dev/full 2>"$T/err" || rc=$?
	equals "$rc" "1" "--version > /dev/full exits 1 too"
fi

# numbers are checked for range and overflow, never truncated: 4294967296 was once 0 threads,
# lane 0 and (4294967298 layers) 2 layers
for opt in "--threads 4294967296" "--lane 4294967296" "--layers 4294967298" "--tokens -5" "--seed 99999999999999999999"; do
	set -- $opt
	expect_exit 2 "import $opt is refused" "$LABRUN" import --model qwen3-0.6b --tokens 64 "$1" "$2"
	contains "$T/err" "invalid $1 '$2': expected a whole number from" "import $opt: named with its range"
done
expect_exit 2 "show --tail 4294967297 is refused" "$LABRUN" show --tail 4294967297 last
contains "$T/err" "invalid --tail '4294967297': expected a whole number from 0 to 1000000" "with its range"
expect_exit 2 "list -n past 64 bits is refused" "$LABRUN" list -n 99999999999999999999
expect_exit 2 "a condition index past int is refused" "$LABRUN" compare --run 1 --reference a --candidate b --condition 4294967296
expect_exit 2 "a flipped-bit arm past int is refused" "$LABRUN" run --fault-flip-bit 4294967296 x.ini
equals "$(q "SELECT count(*) FROM run WHERE kind = 'import'")" "0" "and nothing was imported"

# a wait on a store another process has locked is said after a second, then the write goes on
export LABRUN_STORE="$T/lock-store"
"$LABRUN" record -q -- true >/dev/null 2>&1
# (.timeout: the holder waits out the probe below, which holds the lock for an instant); it lets
# go once the waiting writer has said so
: >"$T/lock.err"
(echo ".timeout 20000"; echo "BEGIN IMMEDIATE;"; echo "INSERT INTO setting VALUES ('manifest.author', 'x', 't');"
	i=0; until grep -q "another process holds its lock" "$T/lock.err" || [ $i -ge 400 ]; do i=$((i + 1)); sleep 0.05; done
	echo "ROLLBACK;") |
	sqlite3 "$LABRUN_STORE/labrun.db" &
holder=$!
# wait until the holder has the write lock (sqlite3 itself does not wait: a busy store fails at once)
i=0
while sqlite3 "$LABRUN_STORE/labrun.db" "BEGIN IMMEDIATE; ROLLBACK;" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 400 ] || fail "the lock holder never took the lock"
	sleep 0.01
done
"$LABRUN" record -q -- true >"$T/out" 2>"$T/lock.err" || fail "record on a locked store failed: $(cat "$T/lock.err")"
ok "record on a locked store waits, then records"
wait $holder
cp "$T/lock.err" "$T/err"
contains "$T/err" "waiting for store '$LABRUN_STORE/labrun.db': another process holds its lock" "and says it is waiting"
equals "$(q "SELECT count(*) FROM run")" "2" "both runs are stored"

# another program's SQLite file named labrun.db is refused, untouched, even by a reader
mkdir -p "$T/foreign"
sqlite3 "$T/foreign/labrun.db" "CREATE TABLE notes(x); INSERT INTO notes VALUES ('mine')"
before=$(sha256sum "$T/foreign/labrun.db")
for cmd in list fsck "record -- true"; do
	expect_exit "$(case $cmd in record*) echo 125 ;; *) echo 3 ;; esac)" "labrun $cmd on a foreign database is refused" \
		"$LABRUN" --store "$T/foreign" $cmd
	contains "$T/err" "is a database of another program" "labrun $cmd: says why"
done
equals "$(sha256sum "$T/foreign/labrun.db")" "$before" "the foreign database is byte-for-byte untouched"
equals "$(ls "$T/foreign")" "labrun.db" "and nothing was added beside it"

# encode and decode never replace a link, a device or a FIFO, and never wait on a FIFO as input
in="$TOP_SRCDIR/tests/fixtures/npy/all-patterns.npy"
mkdir -p "$T/files" && printf 'keep\n' >"$T/files/target.txt"
ln -s "$T/files/target.txt" "$T/files/link.npy"
expect_exit 2 "encode into a symlink is refused" "$LABRUN" encode "$in" "$T/files/link.npy"
contains "$T/err" "it is a symbolic link, which an output never replaces" "says why"
[ -L "$T/files/link.npy" ] && [ "$(cat "$T/files/target.txt")" = keep ] || fail "the link or its target changed"
ok "the link and its target are untouched"
mkfifo "$T/files/fifo.npy"
expect_exit 2 "encode into a FIFO is refused" "$LABRUN" encode "$in" "$T/files/fifo.npy"
[ -p "$T/files/fifo.npy" ] || fail "the FIFO was replaced"
expect_exit 2 "a FIFO as input is refused at once" timeout 10 "$LABRUN" encode "$T/files/fifo.npy" "$T/files/out.npy"
contains "$T/err" "not a regular file (FIFO)" "named"
expect_exit 2 "decode into /dev/null is refused" "$LABRUN" decode "$TOP_SRCDIR/tests/fixtures/npy/all-patterns.dlf16.npy" /dev/null
contains "$T/err" "it is a device" "named"
[ -c /dev/null ] || fail "/dev/null is no longer a device"

# a run whose artifacts cannot be collected is stored failed, with the command's exit status and
# timing, never 'abandoned' (--follow-links: without it the link is stored as a link, no cycle)
mkdir -p cyc && ln -s "$PWD/cyc" cyc/self
expect_exit 125 "an artifact directory with a cycle fails the run" "$LABRUN" record --follow-links --artifact cyc -- sh -c 'sleep 0.1; exit 0'
contains "$T/err" "labrun could not collect the declared artifacts" "says why"
equals "$(q "SELECT status || ' ' || exit_code || ' ' || (wall_s >= 0.1) FROM run ORDER BY id DESC LIMIT 1")" \
	"failed 0 1" "stored failed, with exit code 0 and its wall time"
contains "$(q "SELECT failure FROM run ORDER BY id DESC LIMIT 1" >"$T/failure"; echo "$T/failure")" \
	"directory cycle through a symlink" "and the reason"

# a CPU pin this process cannot have is refused before anything is stored (it was stored as pinned)
runs=$(q "SELECT count(*) FROM run")
sed 's/^\[design\]/[design]\ncpu = 4000/' "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" >cpu4000.ini
expect_exit 2 "cpu = 4000 is refused" "$LABRUN" run cpu4000.ini
contains "$T/err" "cpu = 4000 in [design]: this process may not run on CPU 4000 (it may use" "names the value and what may be used"
equals "$(q "SELECT count(*) FROM run")" "$runs" "and stores no run"

# a full disk while the artifacts are stored (a file size limit stands in for it): the run is
# stored failed with the command's status and time, and no partial object is left (a limit of
# 16 MiB: room for the store, its pages 16 KiB)
head -c 20000000 /dev/urandom >big.bin
expect_exit 125 "an artifact that cannot be written fails the run" \
	bash -c 'trap "" XFSZ; ulimit -f 16384; exec "$0" record --artifact big.bin -- sh -c "sleep 0.1; exit 0"' "$LABRUN"
contains "$T/err" "labrun could not collect the declared artifacts: cannot write" "says why"
contains "$T/err" "File too large" "with the system's reason"
equals "$(q "SELECT status || ' ' || exit_code || ' ' || (wall_s >= 0.1) FROM run ORDER BY id DESC LIMIT 1")" \
	"failed 0 1" "stored failed, with exit code 0 and its wall time"
equals "$(ls "$T/store/objects/tmp" | wc -l | tr -d ' ')" "0" "no partial object is left"
