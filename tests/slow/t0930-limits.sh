#!/bin/sh
# make check-slow: resources and faults (issue 24, done-when 4). A daemon that detaches from its
# execution, 2 GB on stdout, a full $TMPDIR and a full store disk: each is contained, capped or named,
# and each ends with a clean fsck and audit. The full disks are size-limited tmpfs mounts, which need
# root; without it those two parts say so and are skipped.
. "$(dirname "$0")/../cli/lib.sh"

clean() { # fsck and audit of store $1 after part $2
	expect_exit 0 "$2: fsck afterwards" env LABRUN_STORE="$1" "$LABRUN" fsck
	expect_exit 0 "$2: audit afterwards" env LABRUN_STORE="$1" "$LABRUN" audit
	contains "$T/out" "0 problem(s)" "$2: audit finds nothing wrong"
}
def() { # def NAME ARM-A-COMMAND [DESIGN-LINES]: a command experiment of two arms
	printf '[experiment]\nname = %s\ntarget = command\n[design]\nblocks = 6\nwarmup = 0\n%s\n[arm a]\ncommand = %s\n[arm b]\ncommand = true\n' \
		"$1" "${3:-}" "$2" >"$1.ini"
}
"$LABRUN" init >/dev/null

# --- a detaching daemon: setsid and a double fork leave the execution's group and session
cat >daemon.sh <<'EOF2'
# a daemon as they are made: a double fork (the subshell exits at once) and a session of its own;
# this execution ends once the daemon has written its pid
touch daemon.pids
n=$(wc -l <daemon.pids)
(setsid sh -c 'echo $$ >>daemon.pids; exec sleep 600' </dev/null >/dev/null 2>&1 &)
while [ "$(wc -l <daemon.pids)" = "$n" ]; do sleep 0.01; done
EOF2
def daemon "sh $PWD/daemon.sh"
expect_exit 0 "daemon: an arm that leaves a daemon behind" "$LABRUN" run -q daemon.ini
[ -s daemon.pids ] || fail "daemon: no daemon was started"
alive=0
while read -r pid; do kill -0 "$pid" 2>/dev/null && alive=$((alive + 1)); done <daemon.pids
equals "$alive" "0" "daemon: none of $(wc -l <daemon.pids | tr -d ' ') outlives its execution"
clean "$LABRUN_STORE" daemon

# --- 2 GB on stdout: an experiment keeps 64 MiB a log by default, record keeps what --max-output says
def chatty 'sh -c "[ $0 = parity ] && head -c 2G /dev/zero; true" {block}'
avail_before=$(df -k --output=avail "$LABRUN_STORE" | tail -1)
expect_exit 0 "2 GB: an execution that writes 2 GiB on stdout" "$LABRUN" run -q chatty.ini
contains "$T/err" "passed [design] output_cap (64.0 MiB a log)" "2 GB: warned"
id=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT cap_bytes || ' ' || dropped_bytes FROM output_dropped WHERE run_id = $id")" \
	"$((64 << 20)) $(((2048 - 64) << 20))" "2 GB: 64 MiB kept, the rest counted"
used=$(( avail_before - $(df -k --output=avail "$LABRUN_STORE" | tail -1) ))
[ "$used" -lt $((200 * 1024)) ] || fail "2 GB: the run took $used KiB of the store's disk"
ok "2 GB: the store's disk took $used KiB, not gigabytes"
expect_exit 0 "2 GB: record --max-output 64M" "$LABRUN" record -q --max-output 64M -- head -c 2G /dev/zero
contains "$T/err" "stdout passed --max-output 67108864: $(((2048 - 64) << 20)) byte(s)" "2 GB: record warns"
clean "$LABRUN_STORE" "2 GB"

can_mount() { [ "$(id -u)" = 0 ] && mkdir -p "$T/probe" && mount -t tmpfs -o size=1m none "$T/probe" 2>/dev/null &&
	umount "$T/probe"; }
if ! can_mount; then
	echo "# skipping the full-disk parts: size-limited tmpfs mounts need root (uid $(id -u)) and a kernel that allows them"
	exit 0
fi
trap 'umount "$T/tmpdir" "$T/disk" 2>/dev/null; rm -rf "$T"' EXIT

# --- a full $TMPDIR: the command's writes into {outdir} fail; the failure says the scratch disk is full
mkdir -p "$T/tmpdir" && mount -t tmpfs -o size=2m none "$T/tmpdir"
def scratch 'sh -c "head -c 4000000 /dev/zero >{outdir}/big"'
expect_exit 1 "full TMPDIR: an arm that fills the scratch disk" env TMPDIR="$T/tmpdir" "$LABRUN" run -q scratch.ini
contains "$T/out" "the file system of its scratch directory" "full TMPDIR: named as such"
contains "$T/out" "(\$TMPDIR) is full" "full TMPDIR: with the variable to change"
equals "$(find "$T/tmpdir" -mindepth 1 | wc -l | tr -d ' ')" "0" "full TMPDIR: the scratch directory is removed"
clean "$LABRUN_STORE" "full TMPDIR"

# --- a full store disk: the error says so, fsck reclaims what the failed writer left, nothing is lost
mkdir -p "$T/disk" && mount -t tmpfs -o size=8m none "$T/disk"
S="$T/disk/store"
LABRUN_STORE=$S "$LABRUN" record -q -- echo before >/dev/null 2>&1 || fail "full store: the first run"
# what a writer killed by an older labrun left (2 MiB), then a disk filled to the last block
mkdir -p "$S/objects/tmp" && head -c $((2 << 20)) /dev/zero >"$S/objects/tmp/obj-dead01"
touch -d '2 hours ago' "$S/objects/tmp/obj-dead01"
# room for the run's rows (a commit writes whole 16 KiB pages to the WAL), not for its 6 MB log
avail=$(df -k --output=avail "$T/disk" | tail -1 | tr -d ' ')
head -c $(((avail - 3072) << 10)) /dev/zero >"$T/disk/filler" 2>/dev/null || true
got=0
LABRUN_STORE=$S "$LABRUN" record -q -- head -c 6000000 /dev/zero >"$T/out" 2>"$T/err" || got=$?
equals "$got" "125" "full store: a run whose log does not fit fails"
contains "$T/err" "no space left for" "full store: named as such"
contains "$T/err" "free space" "full store: with what to do"
head -c $((8 << 20)) /dev/zero >>"$T/disk/filler" 2>/dev/null || true
expect_exit 0 "full store: fsck on the full disk works, reclaiming first" env LABRUN_STORE=$S "$LABRUN" fsck
contains "$T/out" "temporary:  1 file(s) of writers that died removed (2.0 MiB)" "full store: the dead writer's 2 MiB come back"
rm -f "$T/disk/filler"
expect_exit 0 "full store: once there is room, fsck" env LABRUN_STORE=$S "$LABRUN" fsck
equals "$(LABRUN_STORE=$S "$LABRUN" sql --csv "SELECT group_concat(status, ' ') FROM (SELECT status FROM run ORDER BY id)" | sed -n 2p | tr -d '\r')" \
	"passed abandoned" "full store: the first run is intact, the second kept as abandoned"
equals "$(find "$S/objects/tmp" -type f | wc -l | tr -d ' ')" "0" "full store: no temporary file is left"
clean "$S" "full store"

# --- a full store disk with nothing to reclaim (issue 44, item 6): fsck failed "database or disk is
# full" and the partial log waited with no way shown. Now fsck runs on the full disk, says what waits
# and how much space recovering it needs, and once there is room recovers it: nothing recorded is lost.
head -c $((8 << 20)) /dev/zero >"$T/disk/filler" 2>/dev/null || true
truncate -s -3M "$T/disk/filler" # room for the run's rows, not for its log
got=0
LABRUN_STORE=$S "$LABRUN" record -q -- sh -c 'echo first-line; echo to-stderr >&2; head -c 6000000 /dev/zero' \
	>"$T/out" 2>"$T/err" || got=$?
equals "$got" "125" "full store, nothing to reclaim: the run whose log does not fit fails"
spooled=$(cat "$S"/spool/*.stdout | wc -c | tr -d ' ')
[ "$spooled" -gt 0 ] || fail "full store, nothing to reclaim: no partial log in the spool"
# Before any labrun command can recover it: the WAL emptied (a commit then needs new space; the
# WAL's old frames would take it without any) and the disk filled to the last block.
sqlite3 "$S/labrun.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
head -c $((8 << 20)) /dev/zero >>"$T/disk/filler" 2>/dev/null || true
id=$(LABRUN_STORE=$S "$LABRUN" sql --csv "SELECT max(id) FROM run" | sed -n 2p | tr -d '\r')
equals "$(df -k --output=avail "$T/disk" | tail -1 | tr -d ' ')" "0" "full store, nothing to reclaim: the disk is full"
expect_exit 1 "full store, nothing to reclaim: fsck runs and names what waits" env LABRUN_STORE=$S "$LABRUN" fsck
contains "$T/out" "recovery:   WAITING: 1 run(s) whose recorder died keep" "full store, nothing to reclaim: the waiting run"
contains "$T/out" "recovering them needs 1.0 MiB: free space there and run 'labrun fsck' again" \
	"full store, nothing to reclaim: the space it needs and what to do"
contains "$T/out" "integrity:  ok" "full store, nothing to reclaim: the other checks still run"
expect_exit 1 "full store, nothing to reclaim: fsck --json" env LABRUN_STORE=$S "$LABRUN" fsck --json
equals "$(jq -r '[.ok, .recovery.ok, .recovery.waiting, .recovery.available, .recovery.needs, .recovery.bytes > 0] | map(tostring) | join(" ")' "$T/out")" \
	"false false 1 0 1048576 true" "full store, nothing to reclaim: the same as JSON"
equals "$(cat "$S"/spool/*.stdout | wc -c | tr -d ' ')" "$spooled" "full store, nothing to reclaim: the partial log is kept"
rm -f "$T/disk/filler"
expect_exit 0 "full store, nothing to reclaim: once there is room, fsck recovers" env LABRUN_STORE=$S "$LABRUN" fsck
contains "$T/out" "abandoned:  1 run(s) marked now" "full store, nothing to reclaim: the run is recovered"
equals "$(LABRUN_STORE=$S "$LABRUN" sql --csv "SELECT status FROM run WHERE id = $id" | sed -n 2p | tr -d '\r')" \
	"abandoned" "full store, nothing to reclaim: kept as abandoned"
LABRUN_STORE=$S "$LABRUN" cat "$id" stdout >"$T/log" || fail "full store, nothing to reclaim: its stdout cannot be read"
equals "$(wc -c <"$T/log" | tr -d ' ')" "$spooled" "full store, nothing to reclaim: every byte of the partial stdout recorded"
equals "$(head -1 "$T/log")" "first-line" "full store, nothing to reclaim: the stdout as written"
equals "$(LABRUN_STORE=$S "$LABRUN" cat "$id" stderr)" "to-stderr" "full store, nothing to reclaim: the stderr as written"
equals "$(find "$S/spool" -type f | wc -l | tr -d ' ')" "0" "full store, nothing to reclaim: the spool is empty"
clean "$S" "full store, nothing to reclaim"
