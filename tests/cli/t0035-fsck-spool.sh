#!/bin/sh
# fsck removes spool files no run needs, and only those: not a live
# recorder's, not a lock someone holds, not one created a moment ago.
. "$(dirname "$0")/lib.sh"

"$LABRUN" init >/dev/null
"$LABRUN" record -q -- true >/dev/null
sp="$T/store/spool"
done_uuid=$(q "SELECT uuid FROM run WHERE id = 1")
dead=11111111-1111-4111-8111-111111111111
young=22222222-2222-4222-8222-222222222222
held=33333333-3333-4333-8333-333333333333

# A finished run's leftover log and checks file, and a recorder that died before its row: stray.
touch -d '2 hours ago' "$sp/$done_uuid.stdout" "$sp/$done_uuid.checks" "$sp/$dead.lock" "$sp/$dead.stderr"
# A lock created just now, as by a recorder between open and flock: kept.
touch "$sp/$young.lock"
# An old lock held by a live process, with its log: kept.
touch -d '2 hours ago' "$sp/$held.lock" "$sp/$held.stdout"
flock "$sp/$held.lock" sleep 60 &
holder=$!
# Not a spool name at all: kept.
touch -d '2 hours ago' "$sp/notes.txt"

# A live recorder whose log has not changed for hours: kept.
"$LABRUN" record -q -- sleep 60 >/dev/null 2>&1 &
rec=$!
i=0
while [ $i -lt 100 ] && [ "$(q "SELECT count(*) FROM run WHERE status = 'running'")" != 1 ]; do
	sleep 0.1
	i=$((i + 1))
done
live_uuid=$(q "SELECT uuid FROM run WHERE status = 'running'")
[ -n "$live_uuid" ] || fail "the live recorder never started"
touch -d '2 hours ago' "$sp/$live_uuid.stdout" "$sp/$live_uuid.lock"
i=0
while [ $i -lt 50 ] && flock -n "$sp/$held.lock" true; do
	sleep 0.1
	i=$((i + 1))
done

expect_exit 0 "fsck sweeps the spool" "$LABRUN" fsck
contains "$T/out" "spool:      4 stray file(s) removed" "four stray files counted"
contains "$T/out" "abandoned:  0 run(s)" "the live recorder is not abandoned"
for f in "$done_uuid.stdout" "$done_uuid.checks" "$dead.lock" "$dead.stderr"; do
	[ ! -e "$sp/$f" ] || fail "stray $f kept"
done
ok "stray files removed"
for f in "$young.lock" "$held.lock" "$held.stdout" notes.txt "$live_uuid.stdout" "$live_uuid.lock"; do
	[ -e "$sp/$f" ] || fail "$f removed"
done
ok "young, held, live and foreign files kept"

expect_exit 0 "a second fsck" "$LABRUN" fsck
contains "$T/out" "spool:      0 stray file(s) removed" "nothing left to sweep"

kill $(pgrep -P "$holder") "$holder" 2>/dev/null || true # flock and the sleep it runs
child=$(pgrep -P "$rec" || true)
kill -TERM "$rec" 2>/dev/null || true
wait "$rec" 2>/dev/null || true
[ -n "$child" ] && kill -9 "$child" 2>/dev/null || true
wait "$holder" 2>/dev/null || true
equals "$(q "SELECT status FROM run WHERE uuid = '$live_uuid'")" "cancelled" "the live run ends as its recorder says"

# --json: the same checks as one object
expect_exit 0 "fsck --json" "$LABRUN" fsck --json
equals "$(jq -r '[.ok, .integrity.ok, .spool.ok, (.objects.checked > 0), (.objects.bad | length)] | map(tostring) | join(" ")' "$T/out")" \
	"true true true true 0" "parses: every check ok"
obj=$(find "$T/store/objects" -type f -path '*/[0-9a-f][0-9a-f]/*' | head -1)
rm "$obj"
expect_exit 1 "fsck --json with an object gone" "$LABRUN" fsck --json
equals "$(jq -r '[.ok, .objects.bad[0].kind, (.objects.bad[0].sha256 | length)] | map(tostring) | join(" ")' "$T/out")" \
	"false object 64" "names the missing object"

# --- temporary object files: an ingest killed by SIGTERM once left its copy in objects/tmp, and a
# file system full after 23 GB left 23 GB that nothing removed. Writers use unnamed files now
# (O_TMPFILE); a named one (no O_TMPFILE, or an older labrun) is removed by fsck when its writer is gone.
tmpd="$T/store/objects/tmp"
mkdir -p "$tmpd"
mkfifo "$T/slow.jsonl"
for i in 0 1 2; do printf '{"case_id": "c%d", "tokens": [1], "text": "t", "finish_reason": "stop"}\n' $i; done >"$T/whole.jsonl"
head -1 "$T/whole.jsonl" >"$T/half.jsonl"
# the copy gets one line, then nothing until the ingest is killed
python3 "$TOP_SRCDIR/tests/cli/fifo-feed.py" "$T/slow.jsonl" --stall "$T/half.jsonl" &
writer=$!
# (a FIFO named as the file is refused: the stall comes through standard input, '-')
"$LABRUN" ingest responses --run 1 --route slow - <"$T/slow.jsonl" >"$T/ing.out" 2>"$T/ing.err" &
ing=$!
i=0
until [ -n "$(find /proc/$ing/fd -lname '*objects/tmp*' 2>/dev/null)" ] || [ $i -ge 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
[ $i -lt 200 ] || { cat "$T/ing.err" >&2; fail "the ingest never began its copy"; }
kill -TERM $ing
wait $ing || true
kill $writer 2>/dev/null || true; wait $writer 2>/dev/null || true
equals "$(find "$tmpd" -type f | wc -l | tr -d ' ')" "0" "an ingest killed during its copy leaves no temporary file"
equals "$(q "SELECT count(*) FROM response_set WHERE route = 'slow'")" "0" "and no rows"

head -c 1048576 /dev/zero >"$tmpd/obj-dead01"
touch -d '2 hours ago' "$tmpd/obj-dead01"
head -c 100 /dev/zero >"$tmpd/obj-young1"
head -c 100 /dev/zero >"$tmpd/obj-held01" && touch -d '2 hours ago' "$tmpd/obj-held01"
flock "$tmpd/obj-held01" sleep 60 &
holder=$!
i=0
while [ $i -lt 50 ] && flock -n "$tmpd/obj-held01" true; do
	sleep 0.1
	i=$((i + 1))
done
touch -d '2 hours ago' "$tmpd/notes.txt"
expect_exit 1 "fsck (an object is still gone)" "$LABRUN" fsck
contains "$T/out" "temporary:  1 file(s) of writers that died removed (1.0 MiB)" "removes the dead writer's file and counts its bytes"
[ ! -e "$tmpd/obj-dead01" ] || fail "the dead writer's file was kept"
for f in obj-young1 obj-held01 notes.txt; do
	[ -e "$tmpd/$f" ] || fail "$f removed"
done
ok "a young file, a held one and a foreign name are kept"
kill $(pgrep -P "$holder") "$holder" 2>/dev/null || true # flock and the sleep it runs
