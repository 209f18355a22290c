#!/bin/sh
# Declared inputs, outputs, directories and logs are stored by content.
. "$(dirname "$0")/lib.sh"

mkdir -p in
printf 'weights' >in/model.bin
printf 'ref' >ref.txt
expect_exit 0 "record with artifacts" "$LABRUN" record -q --input in --reference ref.txt \
	--artifact out --log run.log --source in/model.bin --tool rebel-compiler=0.11.0 \
	-- sh -c 'mkdir -p out/sub; printf a >out/a.txt; printf b >out/sub/b.txt; printf log >run.log'
expect_exit 0 "sql lists them" "$LABRUN" sql --csv "SELECT role, name, size FROM artifact ORDER BY role, name"
tr -d '\r' <"$T/out" >"$T/arts"
contains "$T/arts" "input,in/model.bin,7" "input directory file"
contains "$T/arts" "reference,ref.txt,3" "reference"
contains "$T/arts" "output,out/a.txt,1" "output file"
contains "$T/arts" "output,out/sub/b.txt,1" "nested output file"
contains "$T/arts" "log,run.log,3" "log file"
equals "$("$LABRUN" cat last out/sub/b.txt)" "b" "cat an artifact"
equals "$("$LABRUN" cat last output:out/a.txt)" "a" "cat with a role prefix"
equals "$(q "SELECT git_status FROM source_file WHERE path LIKE '%/in/model.bin'")" "external" "--source hashed"
equals "$(q "SELECT version FROM tool_version WHERE name = 'rebel-compiler'")" "0.11.0" "tool version"

# Same content, one object.
expect_exit 0 "record again" "$LABRUN" record -q --artifact out -- true
equals "$(q "SELECT count(*) FROM object")" "$(q "SELECT count(DISTINCT sha256) FROM artifact")" \
	"one object per distinct content"
n=$(find "$T/store/objects" -path "$T/store/objects/tmp" -prune -o -type f -print | wc -l)
equals "$n" "$(q "SELECT count(*) FROM object")" "one file per object"
for sha in $(q "SELECT group_concat(sha256, ' ') FROM object"); do
	f="$T/store/objects/$(echo $sha | cut -c1-2)/$(echo $sha | cut -c3-)"
	[ "$(sha256sum "$f" | cut -d' ' -f1)" = "$sha" ] || fail "object $sha has other content"
done
ok "every object file hashes to its name"

# Links are stored as links (a link to a file outside once stored that file's bytes with nothing
# saying so); --follow-links stores what they point to and says so. An empty directory is kept;
# a FIFO or device is named and refused.
mkdir -p "$T/outside" links/empty links/sub
echo "outside-only-bytes" >"$T/outside/shadow"
echo data >links/sub/a.txt
ln -s "$T/outside/shadow" links/escape
ln -s sub/a.txt links/rel
expect_exit 0 "record a directory holding links and an empty directory" "$LABRUN" record -q --artifact links -- true
lid=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT group_concat(name || ' ' || kind || ' ' || coalesce(target, '-'), '; ') FROM (SELECT * FROM artifact_entry WHERE run_id = $lid ORDER BY name)")" \
	"links/empty/ directory -; links/escape symlink $T/outside/shadow; links/rel symlink sub/a.txt" "each entry says what it was"
expect_exit 0 "cat of a link gives its target" "$LABRUN" cat "$lid" links/escape
equals "$(cat "$T/out")" "$T/outside/shadow" "the link's content is its target"
if grep -rqa "outside-only-bytes" "$T/store"; then fail "the file outside the tree reached the store"; fi
ok "the bytes of the file outside never reach the store"
expect_exit 0 "show names the link" "$LABRUN" show "$lid"
contains "$T/out" "links/escape (symlink) -> $T/outside/shadow" "with its target"
expect_exit 0 "--follow-links stores what the links point to" "$LABRUN" record -q --follow-links --artifact links -- true
fid=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT kind || ' ' || target FROM artifact_entry WHERE run_id = $fid AND name = 'links/escape'")" \
	"followed-symlink $T/outside/shadow" "and records where each led"
expect_exit 0 "the followed file's bytes" "$LABRUN" cat "$fid" links/escape
equals "$(cat "$T/out")" "outside-only-bytes" "are the file's"
mkfifo links/pipe
expect_exit 125 "a FIFO among the artifacts fails the run" timeout 20 "$LABRUN" record -q --artifact links -- true
contains "$T/err" "refusing to store artifact 'links': 'links/pipe' is a FIFO" "naming it"
expect_exit 125 "with --follow-links too" timeout 20 "$LABRUN" record -q --follow-links --artifact links -- true
contains "$T/err" "'links/pipe': it is a FIFO, socket or device" "naming it"
rm links/pipe
