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
