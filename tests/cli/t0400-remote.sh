#!/bin/sh
# Remotes: two stores push to one PostgreSQL remote (a throwaway cluster started here) and a
# third pulls both: its report for the issue is the union of theirs and its audit is clean.
# Pushing again changes nothing; the same uuid with other content is refused and named;
# passwords never reach the store; a wrong password, a missing or newer schema and a stopped
# server are each one message naming the remote, exit 3.
. "$(dirname "$0")/lib.sh"
. "$TOP_SRCDIR/tests/cli/pg.sh"
X="$TOP_SRCDIR/tests/fixtures/experiments"
F="$TOP_SRCDIR/tests/fixtures/serving"
hosts a b c

# --- remotes are names for connection strings, without passwords
expect_exit 2 "a URI with a password is refused" la remote add lab "postgresql://labrun:$(echo hunter2)@localhost/evidence"
contains "$T/err" "its connection string holds a password" "says why"
contains "$T/err" "~/.pgpass" "and where passwords go"
expect_exit 2 "a keyword password is refused too" la remote add lab "host=/tmp password=$(echo hunter2)"
[ -z "$(LABRUN_STORE=$A "$LABRUN" sql --csv "SELECT name FROM remote" | tail -n +2)" ] || fail "a refused remote was stored"
ok "nothing stored"
expect_exit 2 "a bad name is refused" la remote add "-x" "$PG_URI"
expect_exit 2 "an unreadable URI is refused" la remote add lab "postgresql://[::1"
for s in a b c; do LABRUN_STORE=$T/$s "$LABRUN" remote add lab "$PG_URI" || fail "remote add in $s"; done
expect_exit 0 "remote list" la remote list
contains "$T/out" "lab	$PG_URI	(added " "lists name and URI"
expect_exit 1 "a remote of the same name is refused" la remote add lab "$PG_URI"
expect_exit 1 "an unknown remote" la push nowhere
contains "$T/err" "there is no remote 'nowhere'" "names it"

# --- a remote without the schema
expect_exit 3 "push to a database without the schema" la push
contains "$T/err" "remote 'lab' (database 'evidence' on $PGD:5432) has no labrun schema" "names the remote"
contains "$T/err" "labrun remote init lab" "and the fix"
expect_exit 0 "remote init" la remote init lab
contains "$T/out" "applied 2 migrations, schema version 2" "applies the migrations"
expect_exit 0 "remote init again" lb remote init
contains "$T/out" "schema version 2, up to date" "idempotent"

# --- evidence on two hosts (stores): experiment runs, a record with an artifact, a failed run
(cd "$T/work" && la run -q "$X/tiny-encode.ini" >/dev/null 2>&1) || fail "tiny-encode in A"
echo "result of a" >"$T/work/out-a.txt"
la record -q --issue 205 --artifact out-a.txt -- sh -c 'echo a; echo "{\"name\": \"exactness\", \"passed\": 65536, \"total\": 65536}" >>"$LABRUN_CHECKS"' \
	>/dev/null 2>&1 || fail "record in A"
(cd "$T/work" && lb run -q "$X/tiny-encode.ini" >/dev/null 2>&1) || fail "tiny-encode in B"
expect_exit 3 "a failed run in B (kept)" lb record -q --issue 205 -- sh -c 'echo b; exit 3'
lb ingest responses --run 2 --route atom "$F/atom.jsonl" >/dev/null || fail "ingest in B"
expect_exit 0 "push A" la push
contains "$T/out" "remote 'lab': 2 runs pushed, 0 already there, 0 refused, 0 skipped; 3 objects sent" "counts A's runs and objects"
grep -q "3 objects sent ([0-9]* B)" "$T/out" || fail "a few small objects' size is not in bytes (it once said 0.0 MiB)"
ok "small sizes in bytes"
expect_exit 0 "push B" lb push -v
contains "$T/out" "pushed   $(LABRUN_STORE=$B "$LABRUN" sql --csv "SELECT uuid FROM run WHERE id = 2" | sed -n 2p | tr -d '\r')" "names each run with -v"
equals "$(pg_sql "SELECT count(*) FROM run")" "4" "four runs on the remote"
equals "$(pg_sql "SELECT count(*) FROM run WHERE status = 'failed'")" "1" "the failed run is kept"
equals "$(pg_sql "SELECT r.uuid, c->>2 AS name, (c->>3)::bigint AS passed, (c->>4)::bigint AS total
FROM run r, jsonb_array_elements(r.bundle::jsonb->'tables'->'check_result'->'rows') c;" | cut -d'|' -f2-)" \
	"exactness|65536|65536" "a run's checks travel in its bundle (docs/remote.md's query)"
equals "$(pg_sql "SELECT count(DISTINCT pushed_by) || ' ' || count(DISTINCT pushed_from) FROM run")" "1 1" "who pushed from where"
equals "$(pg_sql "SELECT count(*) FROM object o WHERE size = (SELECT sum(length(data)) FROM object_chunk c WHERE c.sha256 = o.sha256)")" \
	"$(pg_sql "SELECT count(*) FROM object")" "every object is whole"
expect_exit 0 "push A again" la push
contains "$T/out" "0 runs pushed, 2 already there, 0 refused" "idempotent"
expect_exit 0 "push --progress" la push --progress
contains "$T/err" "labrun push: pushed 2 of 2 runs" "progress on stderr when asked"
expect_exit 0 "push without" la push
lacks "$T/err" "labrun push:" "none by default off a terminal"
equals "$(pg_sql "SELECT count(*) FROM run")" "4" "still four runs"

# --- a third store pulls both
expect_exit 0 "pull into C" lc pull
contains "$T/out" "remote 'lab': 4 runs pulled, 0 already here, 0 refused" "pulls the four runs"
expect_exit 0 "fsck of the pulling store: every object named by a pulled row is here" lc fsck
contains "$T/out" "0 missing or corrupt" "none missing (response files included)"
expect_exit 0 "audit of the pulled runs" lc audit
contains "$T/out" "audit: 4 run(s)" "audits all four"
contains "$T/out" "0 problem(s)" "and finds them sound"
equals "$(lc sql --csv "SELECT count(*) FROM pulled_run WHERE remote = 'lab'" | sed -n 2p | tr -d '\r')" "4" "each pulled run is marked with its remote"
equals "$(lc sql --csv "SELECT count(*) FROM run r JOIN host h ON h.id = r.host_id WHERE h.hostname = '$(hostname)'" | sed -n 2p | tr -d '\r')" "4" "pulled runs keep their origin host"
equals "$(lc sql --csv "SELECT name || ' ' || passed || '/' || total FROM check_result" | sed -n 2p | tr -d '\r')" \
	"exactness 65536/65536" "the pulled run has its check"
# a report is sections per run (a recorded run's are its lines under "Recorded runs", each folded
# detail one of its own): C's sections are A's and B's, run ids aside
report_is_union 205 "$A" "$B" "$C"
# each experiment run's design entry travels in its bundle: C cites it as the run's origin wrote it,
# and holds the pulled rows to it (a margin edited here is named)
equals "$(grep -c '^Design registered before the first block: ledger entry 1, ' "$T/rc.md")" "2" \
	"C's report cites both pulled runs' design entries"
cp -R "$C" "$T/c-edited"
sqlite3 "$T/c-edited/labrun.db" "UPDATE run_design SET margin = 0.5 WHERE run_id = (SELECT min(run_id) FROM run_design)" ||
	fail "edit a pulled run's margin"
expect_exit 1 "a pulled run's margin edited" env LABRUN_STORE="$T/c-edited" "$LABRUN" audit
contains "$T/out" "its design differs from the design its origin registered in ledger entry 1" "is named against its origin's entry"
expect_exit 0 "cat a pulled artifact" lc cat "$(la sql --csv "SELECT uuid FROM run WHERE id = 2" | sed -n 2p | tr -d '\r')" out-a.txt
equals "$(cat "$T/out")" "result of a" "its bytes came along"
# a reviewer starts from nothing, as docs/remote.md shows: remote add and pull create the store
mkdir "$T/reviewer" && git init -q "$T/reviewer"
(cd "$T/reviewer" && env -u LABRUN_STORE "$LABRUN" remote add lab "$PG_URI" && env -u LABRUN_STORE "$LABRUN" pull) \
	>"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "remote add and pull in a fresh directory"; }
contains "$T/out" "remote 'lab': 4 runs pulled" "a fresh directory pulls every run"
[ -f "$T/reviewer/.labrun/labrun.db" ] || fail "the store is at the work tree's top"
ok "the store was created at the work tree's top"
expect_exit 0 "pull again, LABRUN_PROGRESS=1" env LABRUN_PROGRESS=1 LABRUN_STORE="$C" "$LABRUN" pull
contains "$T/err" "labrun pull: pulled 4 of 4 runs" "progress on stderr with LABRUN_PROGRESS=1"
contains "$T/out" "0 runs pulled, 4 already here" "pull is idempotent"
expect_exit 0 "push from C (pulled runs travel as they came)" lc push
contains "$T/out" "0 runs pushed, 4 already there, 0 refused" "nothing conflicts"

# --- a replay travels with the run it replays
la replay -q 2 >/dev/null 2>&1 || fail "replay in A"
expect_exit 0 "push the replay" la push --run last
ruuid=$(la sql --csv "SELECT uuid FROM run WHERE id = 3" | sed -n 2p | tr -d '\r')
ouuid=$(la sql --csv "SELECT uuid FROM run WHERE id = 2" | sed -n 2p | tr -d '\r')
RS="$T/f"
LABRUN_STORE=$RS "$LABRUN" init >/dev/null && LABRUN_STORE=$RS "$LABRUN" remote add lab "$PG_URI"
expect_exit 0 "pull the replay alone" env LABRUN_STORE=$RS "$LABRUN" pull --run "$ruuid"
contains "$T/out" "2 runs pulled" "its original comes first"
equals "$(LABRUN_STORE=$RS "$LABRUN" sql --csv "SELECT o.uuid FROM run r JOIN run o ON o.id = r.replay_of WHERE r.uuid = '$ruuid'" | sed -n 2p | tr -d '\r')" \
	"$ouuid" "replay_of points at the original here"
expect_exit 0 "audit of the pulled replay" env LABRUN_STORE=$RS "$LABRUN" audit
contains "$T/out" "0 problem(s)" "sound"

# --- a comparison against another run's responses travels with that run
G="$T/g"
LABRUN_STORE=$G "$LABRUN" init >/dev/null && LABRUN_STORE=$G "$LABRUN" remote add lab "$PG_URI"
for r in ref atom; do
	LABRUN_STORE=$G "$LABRUN" record -q -- true >/dev/null 2>&1
	LABRUN_STORE=$G "$LABRUN" ingest responses --run last --route $r "$F/$r.jsonl" >/dev/null || fail "ingest $r"
done
expect_exit 0 "a comparison with another run's route (all exact)" env LABRUN_STORE=$G "$LABRUN" compare --run 2 --reference 1:ref --candidate atom
LABRUN_STORE=$G "$LABRUN" push >/dev/null || fail "push the comparison"
cuuid=$(LABRUN_STORE=$G "$LABRUN" sql --csv "SELECT uuid FROM run WHERE id = 2" | sed -n 2p | tr -d '\r')
expect_exit 0 "pull the candidate alone" env LABRUN_STORE=$RS "$LABRUN" pull --run "$cuuid"
contains "$T/out" "2 runs pulled" "the reference's run comes first"
equals "$(LABRUN_STORE=$RS "$LABRUN" sql --csv "SELECT count(*) FROM comparison c JOIN response_set s ON s.id = c.reference_set_id JOIN run o ON o.id = s.run_id WHERE o.uuid <> '$cuuid'" | sed -n 2p | tr -d '\r')" \
	"1" "the stored comparison points at the other run's set here"
LABRUN_STORE=$G "$LABRUN" compare --run 2 --reference 1:ref --candidate atom --json | jq -S '.cases' >want.json
LABRUN_STORE=$RS "$LABRUN" compare --run "$cuuid" --reference "$(LABRUN_STORE=$RS "$LABRUN" sql --csv "SELECT r.id FROM run r WHERE r.uuid = '$(LABRUN_STORE=$G "$LABRUN" sql --csv "SELECT uuid FROM run WHERE id = 1" | sed -n 2p | tr -d '\r')'" | sed -n 2p | tr -d '\r'):ref" \
	--candidate atom --json | jq -S '.cases' >got.json
[ -s want.json ] && cmp want.json got.json || fail "the pulled responses compare differently"
ok "the pulled responses compare as at home"
expect_exit 0 "push from a store that amended a pulled run" env LABRUN_STORE=$RS "$LABRUN" push
contains "$T/err" "labrun: skipped: run 4 was pulled and then amended here: it is not sent on" "the amended run is skipped, and why"
contains "$T/out" "0 runs pushed, 3 already there, 0 refused, 1 skipped" "the others are already there"

# --- a full disk here: exit 3 naming the remote, nothing of the run stored (a file size limit stands in)
head -c 8000000 /dev/urandom >"$T/work/eight.bin"
LABRUN_STORE=$G "$LABRUN" record -q --issue 417 --artifact eight.bin -- true >/dev/null 2>&1 || fail "record the 8 MB run"
LABRUN_STORE=$G "$LABRUN" push --run last >/dev/null || fail "push the 8 MB run"
H="$T/h"
LABRUN_STORE=$H "$LABRUN" init >/dev/null && LABRUN_STORE=$H "$LABRUN" remote add lab "$PG_URI"
set +e
(trap '' XFSZ; ulimit -f 4096; LABRUN_STORE=$H exec "$LABRUN" pull --issue 417) >"$T/out" 2>"$T/err"
got=$?
set -e
equals "$got" "3" "a disk that fills during a pull: exit 3"
contains "$T/err" "cannot pull run $(LABRUN_STORE=$G "$LABRUN" sql --csv "SELECT uuid FROM run WHERE id = 3" | sed -n 2p | tr -d '\r') from remote 'lab' into this store" "names the run and the remote"
contains "$T/err" "hint: nothing of that run was stored" "and says what happened"
equals "$(LABRUN_STORE=$H "$LABRUN" sql --csv "SELECT (SELECT count(*) FROM run) || ' ' || (SELECT count(*) FROM object)" | sed -n 2p | tr -d '\r') $(find "$H/objects/tmp" -type f | wc -l | tr -d ' ')" \
	"0 0 0" "no run, no object row, no partial file"
expect_exit 0 "with room, the same pull succeeds" env LABRUN_STORE=$H "$LABRUN" pull --issue 417
contains "$T/out" "1 run pulled" "the run arrives"

# --- a run from a newer labrun, with a table or a column this one does not know, is refused whole
src=$(la sql --csv "SELECT uuid FROM run WHERE id = 2" | sed -n 2p | tr -d '\r')
for mode in table column; do
	new=00000000-0000-4000-8000-00000000000$([ $mode = table ] && echo 1 || echo 2)
	pg_sql "SELECT bundle FROM run WHERE uuid = '$src'" | python3 "$TOP_SRCDIR/tests/cli/future-bundle.py" "$new" $mode >fut.tsv
	pg_sql "INSERT INTO run(uuid, bundle_sha256, bundle, kind, status, hostname, started_at, seal_digest, pushed_from)
		SELECT '$new', '$(cut -f1 fut.tsv)', \$b\$$(cut -f2- fut.tsv)\$b\$, kind, status, hostname, started_at, 'future', 'future'
		FROM run WHERE uuid = '$src'" || fail "plant the $mode bundle"
	expect_exit 1 "a bundle with an unknown $mode is refused" env LABRUN_STORE=$RS "$LABRUN" pull --run "$new"
	[ $mode = table ] && want="its bundle has rows of table 'zz_future', which this store does not know" ||
		want="its table 'run_issue' has a column 'zz_future_column' this store does not know"
	contains "$T/err" "run $new: $want" "names the $mode"
	contains "$T/err" "upgrade labrun on this host" "and the fix"
	equals "$(LABRUN_STORE=$RS "$LABRUN" sql --csv "SELECT count(*) FROM run WHERE uuid = '$new'" | sed -n 2p | tr -d '\r')" "0" "nothing of it stored"
done
pg_sql "DELETE FROM run_issue WHERE uuid LIKE '00000000-%'; DELETE FROM run WHERE uuid LIKE '00000000-%'"

# --- a bundle is data: an artifact naming a path (fsck and scan once read /etc/shadow through one),
# an object the bundle does not carry, or a host row whose fingerprint is not that of its facts is
# refused whole, and the store is left byte for byte
src=$(la sql --csv "SELECT uuid FROM run WHERE id = 2" | sed -n 2p | tr -d '\r')
n=2
for mode in objpath objhash hostfpr check; do
	n=$((n + 1)) new=00000000-0000-4000-8000-00000000000$n
	pg_sql "SELECT bundle FROM run WHERE uuid = '$src'" | python3 "$TOP_SRCDIR/tests/cli/future-bundle.py" "$new" $mode >fut.tsv
	pg_sql "INSERT INTO run(uuid, bundle_sha256, bundle, kind, status, hostname, started_at, seal_digest, pushed_from)
		SELECT '$new', '$(cut -f1 fut.tsv)', \$b\$$(cut -f2- fut.tsv)\$b\$, kind, status, hostname, started_at, 'forged', 'forged'
		FROM run WHERE uuid = '$src'" || fail "plant the $mode bundle"
	before=$(sha256sum <"$RS/labrun.db")
	expect_exit 1 "a forged bundle ($mode) is refused" env LABRUN_STORE=$RS "$LABRUN" pull --run "$new"
	case $mode in
	objpath) want="its table 'artifact', column 'sha256', row 1, names an object by something that is not a sha256" ;;
	objhash) want="its table 'artifact', column 'sha256', row 1, names object $(printf 'ab%.0s' $(seq 32)), which the bundle does not carry" ;;
	check) want="its table 'artifact', row 1, breaks a rule of this store's schema (CHECK constraint failed: role IN" ;;
	hostfpr) want="its host row's fingerprint $(la sql --csv "SELECT substr(fingerprint, 1, 12) FROM host" | sed -n 2p | tr -d '\r')... is not the sha256 of its facts" ;;
	esac
	contains "$T/err" "run $new: $want" "names what is wrong ($mode)"
	contains "$T/out" "0 runs pulled, 0 already here, 1 refused" "and the summary counts it ($mode)"
	lacks "$T/err" "etc/passwd" "and does not repeat what the bundle says"
	equals "$(sha256sum <"$RS/labrun.db")" "$before" "labrun.db is byte for byte as before ($mode)"
	equals "$(LABRUN_STORE=$RS "$LABRUN" sql --csv "SELECT count(*) FROM run WHERE uuid = '$new'" | sed -n 2p | tr -d '\r')" "0" "nothing of it stored ($mode)"
done

# --- a pulled run is another host's command: replay shows it, escaped, and runs it only with --foreign
new=00000000-0000-4000-8000-000000000009
pg_sql "SELECT bundle FROM run WHERE uuid = '$src'" |
	python3 "$TOP_SRCDIR/tests/cli/future-bundle.py" "$new" preload "$T/foreign-ran" >fut.tsv
pg_sql "INSERT INTO run(uuid, bundle_sha256, bundle, kind, status, hostname, started_at, seal_digest, pushed_from)
	SELECT '$new', '$(cut -f1 fut.tsv)', \$b\$$(cut -f2- fut.tsv)\$b\$, kind, status, hostname, started_at, 'forged', 'elsewhere'
	FROM run WHERE uuid = '$src'" || fail "plant the preload bundle"
expect_exit 0 "a consistently sealed bundle is data: it is pulled" env LABRUN_STORE=$RS "$LABRUN" pull --run "$new"
before=$(sha256sum <"$RS/labrun.db")
expect_exit 1 "replay of a pulled run without --foreign is refused" env LABRUN_STORE=$RS "$LABRUN" replay -q "$new"
contains "$T/err" "came from another host: pulled from remote 'lab', pushed from 'elsewhere'" "says where it came from"
contains "$T/err" "command: sh -c \$'echo \\x1b[2Jpwned" "shows the command, its escape sequence escaped"
contains "$T/err" "env: LD_PRELOAD=/nonexistent/evil.so   <- changes which program starts or how it loads" "flags the loader variable"
contains "$T/err" "env: BASH_ENV=/nonexistent/evil.sh   <- changes" "and the shell's start-up file"
contains "$T/err" "labrun replay --foreign" "and how to run it anyway"
if grep -q "$(printf '\033')" "$T/err"; then fail "an escape sequence reached the terminal"; fi
ok "no raw escape sequence printed"
[ ! -e "$T/foreign-ran" ] || fail "the foreign command ran"
ok "nothing ran"
equals "$(sha256sum <"$RS/labrun.db")" "$before" "labrun.db is byte for byte as before"
expect_exit 0 "replay --foreign of the pulled replay" env LABRUN_STORE=$RS "$LABRUN" replay -q --foreign "$ruuid"
contains "$T/out" "run $(LABRUN_STORE=$RS "$LABRUN" sql --csv "SELECT id FROM run WHERE uuid = '$ruuid'" | sed -n 2p | tr -d '\r') came from another host" "says so for a replay too"
lastid=$(LABRUN_STORE=$RS "$LABRUN" sql --csv "SELECT max(id) FROM run" | sed -n 2p | tr -d '\r')
expect_exit 1 "a replay of that replay is as foreign" env LABRUN_STORE=$RS "$LABRUN" replay -q "$lastid"
contains "$T/err" "it replays run" "and names the pulled run it comes from"
expect_exit 0 "replay --foreign runs it" env LABRUN_STORE=$RS "$LABRUN" replay -q --foreign "$new"
[ -e "$T/foreign-ran" ] || fail "the command did not run with --foreign"
ok "with --foreign it runs"
# a refused bundle stopped the pull: the runs after it were not pulled, and the summary was not printed
other=$(LABRUN_STORE=$B "$LABRUN" sql --csv "SELECT uuid FROM run WHERE id = 1" | sed -n 2p | tr -d '\r')
before=$(sha256sum <"$RS/labrun.db")
expect_exit 1 "a pull of a forged run and a sound one" env LABRUN_STORE=$RS "$LABRUN" pull --run 00000000-0000-4000-8000-000000000003 --run "$other"
contains "$T/out" "1 run pulled, 0 already here, 1 refused" "the sound one arrives, the forged one is counted"
contains "$T/err" "labrun: refused 00000000-0000-4000-8000-000000000003" "and named"
equals "$(LABRUN_STORE=$RS "$LABRUN" sql --csv "SELECT count(*) FROM run WHERE uuid = '$other'" | sed -n 2p | tr -d '\r')" "1" "it is here"
pg_sql "DELETE FROM run_issue WHERE uuid LIKE '00000000-%'; DELETE FROM run WHERE uuid LIKE '00000000-%'"

# --- lazy objects: fetched on first read
D="$T/d"
LABRUN_STORE=$D "$LABRUN" init >/dev/null && LABRUN_STORE=$D "$LABRUN" remote add lab "$PG_URI"
expect_exit 0 "pull --objects lazy" env LABRUN_STORE=$D "$LABRUN" pull --issue 205 --objects lazy
contains "$T/out" "0 objects fetched (0 B), 0 already here, the rest on first read" "fetches no object"
[ -z "$(find "$D/objects" -type f ! -path '*/tmp/*')" ] || fail "objects arrived before they were read"
ok "objects/ is empty"
expect_exit 0 "fsck: objects still on the remote are not missing" env LABRUN_STORE=$D "$LABRUN" fsck
lacks "$T/out" "object " "no object reported"
[ -z "$(find "$D/objects" -type f ! -path '*/tmp/*')" ] || fail "fsck fetched objects"
ok "and fsck fetches nothing"
ruuid2=$(la sql --csv "SELECT uuid FROM run WHERE id = 2" | sed -n 2p | tr -d '\r')
expect_exit 0 "show --tail of a lazily pulled run" env LABRUN_STORE=$D "$LABRUN" show "$ruuid2" --tail 5
equals "$(sed -n '/^stdout (/{n;p;}' "$T/out")" "    a" "shows its stdout, fetched from the remote"
lacks "$T/out" "not shown" "fetched, not refused"
expect_exit 0 "cat fetches the object" env LABRUN_STORE=$D "$LABRUN" cat "$(la sql --csv "SELECT uuid FROM run WHERE id = 2" | sed -n 2p | tr -d '\r')" out-a.txt
equals "$(cat "$T/out")" "result of a" "with its bytes"
expect_exit 0 "audit fetches the rest" env LABRUN_STORE=$D "$LABRUN" audit
contains "$T/out" "0 problem(s)" "and finds them sound"

# --- the same uuid with other content is refused and named
cp -a "$B" "$T/b2"
uuid=$(lb sql --csv "SELECT uuid FROM run WHERE id = 1" | sed -n 2p | tr -d '\r')
LABRUN_STORE=$T/b2 "$LABRUN" ingest responses --run 1 --route gpu "$F/gpu.jsonl" >/dev/null || fail "amend the copy"
expect_exit 1 "a changed run is refused" env LABRUN_STORE=$T/b2 "$LABRUN" push
contains "$T/err" "remote 'lab' refuses run $uuid: it holds that uuid with other content" "names the run"
contains "$T/err" "hint: a remote keeps a run as it was first pushed" "and says what to do instead"
contains "$T/err" "put the amendment in a run of its own and push that" "in so many words"
contains "$T/out" "0 runs pushed, 1 already there, 1 refused" "the other run still counts"
equals "$(pg_sql "SELECT count(*) FROM run_issue WHERE uuid = '$uuid'")" "1" "the remote's copy is untouched"
# and pulling it into a store that holds the other content is refused too
expect_exit 1 "pulling it into the changed store is refused" env LABRUN_STORE=$T/b2 "$LABRUN" pull --host "$(hostname)" --run "$uuid"
contains "$T/err" "refused $uuid: this store holds that uuid with other content" "names the run"
contains "$T/out" "0 runs pulled, 0 already here, 1 refused" "and counts it"

# --- a reader role can pull, not push (docs/remote.md's grants)
pg_sql "CREATE ROLE labrun_reader; GRANT SELECT ON ALL TABLES IN SCHEMA public TO labrun_reader;
	CREATE ROLE reader LOGIN PASSWORD '$PG_PASSWORD' IN ROLE labrun_reader" || fail "create the reader role"
E="$T/e"
LABRUN_STORE=$E "$LABRUN" init >/dev/null && LABRUN_STORE=$E "$LABRUN" remote add lab "host=$PGD user=reader dbname=evidence"
printf '*:*:*:reader:%s\n' "$PG_PASSWORD" >>"$HOME/.pgpass"
expect_exit 0 "the reader pulls" env LABRUN_STORE=$E "$LABRUN" pull
contains "$T/out" "8 runs pulled" "every run"
LABRUN_STORE=$E "$LABRUN" record -q -- true >/dev/null 2>&1
n_before="$(pg_sql "SELECT count(*) FROM run") $(pg_sql "SELECT count(*) FROM object")"
expect_exit 3 "the reader cannot push" env LABRUN_STORE=$E "$LABRUN" push
contains "$T/err" "permission denied" "says why"
contains "$T/err" "docs/remote.md" "and where the roles are"
equals "$(pg_sql "SELECT count(*) FROM run") $(pg_sql "SELECT count(*) FROM object")" "$n_before" "nothing of the refused push was written"
# a writer needs SELECT and INSERT only: labrun never updates or deletes on a remote
pg_sql "CREATE ROLE labrun_writer; GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO labrun_writer;
	CREATE ROLE writer LOGIN PASSWORD '$PG_PASSWORD' IN ROLE labrun_writer" || fail "create the writer role"
LABRUN_STORE=$E "$LABRUN" remote add labw "host=$PGD user=writer dbname=evidence"
printf '*:*:*:writer:%s\n' "$PG_PASSWORD" >>"$HOME/.pgpass"
expect_exit 0 "the writer pushes" env LABRUN_STORE=$E "$LABRUN" push labw
contains "$T/out" "remote 'labw': 1 run pushed, 8 already there" "the new run, the pulled ones already there"
equals "$(pg_sql "SELECT pushed_by FROM run ORDER BY pushed_at DESC LIMIT 1")" "writer" "the remote says who pushed it"

# --- errors reaching the remote: exit 3, the remote named, never the password
mv "$HOME/.pgpass" "$HOME/pgpass.off"
expect_exit 3 "a wrong password" env PGPASSWORD=not-the-password "$LABRUN" --store "$A" push
contains "$T/err" "cannot connect to remote 'lab' (database 'evidence' on $PGD:5432)" "names the remote"
contains "$T/err" "password authentication failed" "says why"
contains "$T/err" "hint: check the password for this user in ~/.pgpass or PGPASSWORD" "and where to fix it"
lacks "$T/err" "not-the-password" "never prints the password"
mv "$HOME/pgpass.off" "$HOME/.pgpass"
pg_sql "INSERT INTO labrun_migration(version, name) VALUES (99, '0099-future')"
expect_exit 3 "a newer remote schema" la push
contains "$T/err" "remote 'lab' (database 'evidence' on $PGD:5432) has schema version 99; this labrun knows up to 2" "names both versions"
pg_sql "DELETE FROM labrun_migration WHERE version = 99"
# a secret's value reaches neither a pushed bundle nor a pushed object: a failing command that prints it
set +e
API_TOKEN=$(echo s3cr3t-remote-value) la record -q -- sh -c 'echo "$API_TOKEN"; echo "token $API_TOKEN" >&2; exit 3' >/dev/null 2>&1
set -e
expect_exit 0 "push the run that printed a secret" la push --run last
equals "$(pg_sql "SELECT count(*) FROM run WHERE bundle LIKE '%s3cr3t-remote-value%'")" "0" "no bundle holds the value"
equals "$(pg_sql "SELECT count(*) FROM object_chunk WHERE position(convert_to('s3cr3t-remote-value', 'UTF8') in data) > 0")" "0" \
	"no object holds it"
equals "$(pg_sql "SELECT count(*) FROM object_chunk WHERE position(convert_to('<redacted>', 'UTF8') in data) > 0")" "2" \
	"its two logs went, scrubbed"

before=$(cksum <"$A/labrun.db")
# --- pull holds signatures to the keys you trust: a run signed by a colleague's key is refused until trusted
K="$T/signed"
KH="$T/colleague"
mkdir -p "$KH"
env XDG_CONFIG_HOME="$KH" LABRUN_STORE=$K "$LABRUN" key init >/dev/null
env XDG_CONFIG_HOME="$KH" LABRUN_STORE=$K "$LABRUN" init >/dev/null
env XDG_CONFIG_HOME="$KH" LABRUN_STORE=$K "$LABRUN" remote add lab "$PG_URI" >/dev/null
env XDG_CONFIG_HOME="$KH" LABRUN_STORE=$K "$LABRUN" record -q -- echo signed >/dev/null 2>&1
env XDG_CONFIG_HOME="$KH" LABRUN_STORE=$K "$LABRUN" push >/dev/null || fail "push the signed run"
kuuid=$(LABRUN_STORE=$K "$LABRUN" sql --csv "SELECT uuid FROM run" | sed -n 2p | tr -d '\r')
kfpr=$(env XDG_CONFIG_HOME="$KH" "$LABRUN" key show | sed -n 's/^fingerprint: //p')
env XDG_CONFIG_HOME="$KH" "$LABRUN" key export >"$T/colleague.pub.pem"
expect_exit 1 "pull of a run signed by a key not trusted" lc pull --run "$kuuid"
contains "$T/err" "refused $kuuid: its ledger entry 1 (run $kuuid) is signed by key $(printf %.16s "$kfpr")..., which is not among your trusted keys" \
	"is refused, naming the entry and the key"
equals "$(lc sql --csv "SELECT count(*) FROM run WHERE uuid = '$kuuid'" | sed -n 2p | tr -d '\r')" "0" "and nothing of it is stored"
expect_exit 0 "pull --trust the colleague's key" lc pull --run "$kuuid" --trust "$T/colleague.pub.pem"
equals "$(lc sql --csv "SELECT count(*) FROM run WHERE uuid = '$kuuid'" | sed -n 2p | tr -d '\r')" "1" "then the run arrives"

pg_stop
expect_exit 3 "a stopped server" la pull
contains "$T/err" "cannot connect to remote 'lab'" "names the remote"
contains "$T/err" "is the server running" "hints at the server"
equals "$(cksum <"$A/labrun.db")" "$before" "the store is unchanged"
! grep -rq "$PG_PASSWORD" "$A" "$B" "$C" "$D" "$E" || fail "a password reached a store"
ok "no password in any store"

# --- audit checks a pulled run's origin too: a bundle edited here (its sha256 made to match) is found
id=$(lc sql --csv "SELECT run_id FROM pulled_run p JOIN run r ON r.id = p.run_id WHERE r.kind = 'record' ORDER BY run_id LIMIT 1" | sed -n 2p | tr -d '\r')
python3 - "$C/labrun.db" "$id" <<'PY'
import hashlib, json, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
b = json.loads(con.execute("SELECT bundle FROM pulled_run WHERE run_id = ?", (int(sys.argv[2]),)).fetchone()[0])
run = b["tables"]["run"]
run["rows"][0][run["columns"].index("exit_code")] = 0 if run["rows"][0][run["columns"].index("exit_code")] else 1
text = json.dumps(b, separators=(",", ":"), sort_keys=True)
con.execute("UPDATE pulled_run SET bundle = ?, bundle_sha256 = ? WHERE run_id = ?",
            (text, hashlib.sha256(text.encode()).hexdigest(), int(sys.argv[2])))
con.commit()
PY
expect_exit 1 "audit finds the edited origin bundle" lc audit
contains "$T/out" "it was pulled from a remote, and the bundle it was pulled in: run " "says where"
contains "$T/out" "its rows of table 'run' do not give the seal they carry" "names the table"

echo "1..$tests"
