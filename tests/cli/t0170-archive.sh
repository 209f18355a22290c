#!/bin/sh
# labrun archive: create, verify and extract round trip; --verify checks what verify checks (an
# archive no key signed, or one that holds no crate, is refused); tampered archives are named; malicious archives (absolute path, '..', symlink escape, hard-link
# escape, device node) are refused with nothing written inside or outside.
. "$(dirname "$0")/lib.sh"

A="$TOP_SRCDIR/tests/fixtures/archives"
printf 'weights\n' >model.bin
"$LABRUN" record -q --issue 270 --artifact model.bin -- sh -c 'echo out; echo err >&2' >/dev/null 2>&1
"$LABRUN" run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" >/dev/null 2>&1

expect_exit 0 "archive a recorded run" "$LABRUN" archive --run 1 -o run1.tar.zst
# --verify is verify's check: the sums, then the signatures (this store has no key), rows and report
expect_exit 1 "an archive no key signed does not verify" "$LABRUN" archive --verify run1.tar.zst
contains "$T/out" "PROBLEM crate.intoto.json: is not signed by a key you trust" "says so, as verify does"
expect_exit 0 "verify it, unsigned allowed" "$LABRUN" archive --allow-unsigned --verify run1.tar.zst
contains "$T/out" "0 problem(s)" "its crate holds"
contains "$T/out" "13 member(s) match SHA256SUMS" "run.json, stdout, stderr, the artifact, bundle.json, the run attestation, the ledger entries and signed head, the crate manifests, crate.intoto.json, and report.md and report.json (a recorded run is in the report)"
expect_exit 2 "--allow-unsigned without --verify" "$LABRUN" archive --run 1 --allow-unsigned -o never.tar.zst
[ ! -e never.tar.zst ] || fail "an archive was written"
ok "is a usage error, and writes nothing"
mkdir x1
expect_exit 0 "extract it" "$LABRUN" archive --extract run1.tar.zst x1
cmp x1/run-1/output/model.bin model.bin || fail "artifact differs after the round trip"
equals "$(cat x1/run-1/stdout/stdout)" "out" "stdout after the round trip"
ok "artifact and logs come back byte for byte"
expect_exit 0 "the extracted archive is a valid RO-Crate" "$LABRUN" manifest --validate x1
expect_exit 1 "extracting over existing files is refused" "$LABRUN" archive --extract run1.tar.zst x1

# the crate an archive is packed from is written in $TMPDIR, as every scratch directory (it went to /tmp)
expect_exit 1 "an archive with a TMPDIR that does not exist" env TMPDIR="$PWD/nowhere" "$LABRUN" archive --run 1 -o tmp.tar.zst
contains "$T/err" "cannot create a temporary directory in '$PWD/nowhere'" "names \$TMPDIR"
[ ! -e tmp.tar.zst ] || fail "an archive was written"
ok "no archive written"
expect_exit 0 "archive an issue's runs" "$LABRUN" archive --issue 205
[ -f labrun-issue-205.tar.zst ] || fail "default name"
expect_exit 0 "verify the issue archive" "$LABRUN" archive --allow-unsigned --verify labrun-issue-205.tar.zst
mkdir x2
"$LABRUN" archive --extract labrun-issue-205.tar.zst x2 >/dev/null
cmp x2/run-2/definition.ini "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" || fail "definition"
equals "$(tail -n +2 x2/run-2/repetitions.csv | wc -l | tr -d ' ')" "$(q "SELECT count(*) FROM repetition WHERE run_id = 2")" \
	"every repetition is in the archive"
# the archive holds the report the crate of the same runs holds, titled alike (it was titled
# with the archive's file name)
expect_exit 0 "a crate of the same issue" "$LABRUN" manifest --issue 205 -o c2
equals "$(sed -n 1p x2/report.md)" "# labrun report: labrun evidence for issue 205" "the report names the evidence, not the file"
equals "$(cmp x2/report.md c2/report.md && echo same)" same "the archive's report is the crate's"

expect_exit 1 "an archive whose members match its sums but that holds no crate" \
	"$LABRUN" archive --allow-unsigned --verify "$A/intact.tar"
contains "$T/err" "archive '$A/intact.tar' is not a crate labrun can verify: it has no crate.intoto.json" \
	"is not verified: nothing signed it"
expect_exit 1 "a changed member is named" "$LABRUN" archive --verify "$A/tampered.tar"
contains "$T/err" "member 'run-1/a.txt' does not match its sha256" "names it"
expect_exit 1 "an unlisted member is named" "$LABRUN" archive --verify "$A/unlisted.tar"
contains "$T/err" "member 'run-1/b.txt' is not in SHA256SUMS" "names it"
expect_exit 1 "a listed but absent member is named" "$LABRUN" archive --verify "$A/missing.tar"
contains "$T/err" "member 'run-1/b.txt' is listed in SHA256SUMS but missing" "names it"
expect_exit 1 "a member changed with its SHA256SUMS line is caught by the crate's own manifest" \
	"$LABRUN" archive --verify "$A/resummed.tar"
contains "$T/err" "member 'run-1/a.txt' does not match manifest-sha256.txt" "names it and the list"
expect_exit 1 "a missing member whose name ends another's is named" "$LABRUN" archive --verify "$A/suffix.tar"
contains "$T/err" "member 'b.txt' is listed in SHA256SUMS but missing" "by its whole name"
mkdir box-tampered
expect_exit 1 "a tampered archive is not extracted" "$LABRUN" archive --extract "$A/resummed.tar" box-tampered
contains "$T/err" "refusing to extract" "says so"
[ -z "$(ls -A box-tampered)" ] || fail "something was written from a tampered archive"
ok "nothing written from the tampered archive"

# the same evidence gives the same archive bytes: dates come from the runs, not the clock
expect_exit 0 "archive run 1 again" "$LABRUN" archive --run 1 -o again.tar.zst
cmp -s run1.tar.zst again.tar.zst || fail "two archives of the same run differ"
ok "two archives of the same run are byte for byte equal"

rm -f /tmp/labrun-archive-escape-absolute
for kind in absolute dotdot symlink hardlink device; do
	mkdir -p "box-$kind/target"
	expect_exit 1 "evil-$kind.tar is refused" "$LABRUN" archive --extract "$A/evil-$kind.tar" "box-$kind/target"
	contains "$T/err" "refusing to extract" "evil-$kind: says why"
	# what --extract refuses, --verify does not pass (it passed a hard link, device or FIFO entry)
	expect_exit 1 "evil-$kind.tar does not verify" "$LABRUN" archive --verify "$A/evil-$kind.tar"
	contains "$T/err" "refusing to verify" "evil-$kind: verify says why"
	[ -z "$(ls -A "box-$kind/target")" ] || fail "evil-$kind: something was written into the target"
	[ "$(ls -A "box-$kind")" = "target" ] || fail "evil-$kind: something was written next to the target"
	ok "evil-$kind: nothing written inside or outside"
done
[ ! -e /tmp/labrun-archive-escape-absolute ] || fail "the absolute path was written"
ok "the absolute path was not written"

# --prune: logs only these runs use leave the store; cat, audit and fsck read them from the archive
"$LABRUN" record -q -- sh -c 'echo only-in-run-5; echo e5 >&2' >/dev/null 2>&1
rid=$(q "SELECT max(id) FROM run")
sha=$(q "SELECT sha256 FROM artifact WHERE run_id = $rid AND role = 'stdout'")
objfile="$T/store/objects/$(echo "$sha" | cut -c1-2)/$(echo "$sha" | cut -c3-)"
expect_exit 0 "archive with --prune" "$LABRUN" archive --run "$rid" -o pruned.tar.zst --prune
contains "$T/out" "pruned 2 log object(s)" "both logs pruned"
expect_exit 0 "show of a run whose logs were pruned" "$LABRUN" show "$rid"
contains "$T/out" "(in archive '" "says the log lives in its archive (it said 'not readable')"
contains "$T/out" "'labrun cat $rid stdout' reads it" "and how to read it"
[ ! -e "$objfile" ] || fail "the stdout object is still in the store"
ok "the object left the store"
equals "$("$LABRUN" cat "$rid" stdout)" "only-in-run-5" "cat reads it from the archive"
expect_exit 0 "audit checks it in the archive" "$LABRUN" audit --run "$rid"
expect_exit 0 "fsck does not miss it" "$LABRUN" fsck
contains "$T/out" "2 pruned log(s) checked in their archives, 0 missing or changed" "fsck checks pruned logs in the archive"
expect_exit 1 "an archive holding pruned logs is never overwritten" "$LABRUN" archive --run "$rid" -o pruned.tar.zst
contains "$T/err" "refusing to overwrite archive 'pruned.tar.zst': 2 pruned log(s)" "says why"
expect_exit 0 "it still verifies" "$LABRUN" archive --allow-unsigned --verify pruned.tar.zst
mv pruned.tar.zst elsewhere.tar.zst
expect_exit 1 "a lost archive is found by audit" "$LABRUN" audit --run "$rid"
contains "$T/out" "was pruned to archive" "names the archive"
expect_exit 1 "and by cat" "$LABRUN" cat "$rid" stdout
contains "$T/err" "cannot read archive" "says why"
expect_exit 1 "and by fsck" "$LABRUN" fsck
contains "$T/out" "2 pruned log(s) checked in their archives, 2 missing or changed" "fsck names the lost archive's logs"

# Artifact names that would escape or break a crate: '../x', a UTF-8 name and a name that is not
# UTF-8 archive, extract and validate, with nothing written outside the target (in the C locale CI
# runs in).
mkdir -p names/work
printf 'up\n' >names/x.txt
printf 'r\n' >"names/work/$(printf 'r\303\251sultats.csv')"
printf 'l\n' >"names/work/$(printf 'caf\351.csv')"
(cd names/work && "$LABRUN" record -q --artifact ../x.txt --artifact "$(printf 'r\303\251sultats.csv')" \
	--artifact "$(printf 'caf\351.csv')" -- true) >"$T/rec.out" 2>&1 || { cat "$T/rec.out" >&2; fail "record"; }
nrun=$(q "SELECT max(id) FROM run")
expect_exit 0 "a run with '../x.txt' and 'r\303\251sultats.csv' archives" "$LABRUN" archive --run "$nrun" -o names.tar.zst
mkdir -p names/box/target
expect_exit 0 "and extracts" "$LABRUN" archive --extract names.tar.zst names/box/target
[ "$(ls -A names/box)" = "target" ] || fail "something was written beside the target"
[ -f "names/box/target/run-$nrun/output/%2E%2E/x.txt" ] || fail "'../x.txt' is not at its escaped place"
[ -f "names/box/target/run-$nrun/output/$(printf 'r\303\251sultats.csv')" ] || fail "the UTF-8 name is not kept"
[ -f "names/box/target/run-$nrun/output/caf%E9.csv" ] || fail "the Latin-1 name is not at its escaped place"
ok "'../x.txt' stays inside as %2E%2E/x.txt; the UTF-8 name is kept; caf\\351.csv is caf%E9.csv"
equals "$(jq -r '.artifacts[] | select(.role == "output") | .name | if type == "object" then "escaped:\(.escaped)" else . end' \
	"names/box/target/run-$nrun/run.json" | sort | tr '\n' ' ')" \
	"../x.txt escaped:caf%E9.csv $(printf 'r\303\251sultats.csv') " "run.json lists all three; the non-UTF-8 name escaped, not dropped"
expect_exit 0 "the extracted crate validates" "$LABRUN" manifest --validate names/box/target

# --site: the static site in the archive's crate, as 'manifest --site' puts it, and verify checks it
expect_exit 0 "archive --site" "$LABRUN" archive --run 1 --site -o site.tar.zst
mkdir site-box && expect_exit 0 "extracts" "$LABRUN" archive --extract site.tar.zst site-box
[ -f site-box/site/index.html ] && [ -f site-box/site/run-1.html ] || fail "no site in the archive: $(ls site-box)"
grep -q '"@id": "site/index.html"' site-box/ro-crate-metadata.json || fail "the site's pages are not File entities"
ok "the site is in the archive, each page a File entity"
expect_exit 0 "verify checks the archive with its site" "$LABRUN" verify --allow-unsigned site.tar.zst

# -o names the output, written beside it and renamed over it: only a regular file (or nothing) is
# replaced. 'archive -o /dev/null' as root made /dev/null a regular file; so did 'report -o'.
mkdir outs && mkfifo outs/fifo && echo kept >outs/target && ln -s target outs/link && mkdir outs/dir
for o in fifo link dir; do
	expect_exit 2 "archive -o a $o is refused" "$LABRUN" archive --run 1 -o "outs/$o"
	contains "$T/err" "cannot write 'outs/$o': it is a" "naming what it is"
	contains "$T/err" "which an output never replaces" "and why"
	expect_exit 2 "report -o a $o is refused" "$LABRUN" report --run 1 -o "outs/$o"
	contains "$T/err" "cannot write 'outs/$o': it is a" "naming what it is"
done
[ -p outs/fifo ] && [ -L outs/link ] && [ -d outs/dir ] && [ "$(cat outs/target)" = kept ] || fail "an output was replaced"
[ "$(ls outs)" = "$(printf 'dir\nfifo\nlink\ntarget')" ] || fail "something was left beside them: $(ls outs)"
ok "the FIFO, the link, its target and the directory are as they were, nothing beside them"
expect_exit 2 "archive -o into a directory that is not there" "$LABRUN" archive --run 1 -o nowhere/a.tar.zst
contains "$T/err" "cannot write 'nowhere/a.tar.zst': 'nowhere' is not a directory that exists" "named, not libarchive's temporary name"
contains "$T/err" "hint: create the directory first" "with the fix"
# a directory that refuses a new file (/proc takes none, root or not): its errno and the fix
expect_exit 1 "archive -o into /proc" "$LABRUN" archive --run 1 -o /proc/a.tar.zst
contains "$T/err" "cannot create archive '/proc/a.tar.zst': cannot create '/proc/a.tar.zst.tmp-" "named"
contains "$T/err" "beside it: No such file or directory" "with the system's reason"
contains "$T/err" "hint: give -o a file in a directory you can write" "and the fix"
echo "1..$tests"
