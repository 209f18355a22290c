#!/bin/sh
# labrun verify walks a crate without leaving it (issue 43, an outside attacker's trial): a
# directory symlink is named, not followed (before, one to an empty directory passed, one to a
# full directory had its files read); a FIFO or device is named, never opened (before, one aborted
# verify); a file the signed statement does not list is named as added without being read (before,
# every file was hashed first, a 3 GB one included); and a name with a newline or a backslash is
# printed escaped, so no name can forge a PROBLEM line.
. "$(dirname "$0")/lib.sh"

L=$LABRUN
"$L" key init >/dev/null 2>&1 || fail "key init"
"$L" key export >"$T/lab.pub.pem"
"$L" record -q --issue 43 -- echo hello >/dev/null 2>&1 || fail "record"
expect_exit 0 "a crate of one record, with its site" "$L" manifest --run 1 --site -o "$T/crate" --license CC-BY-4.0
verify() { env -u LABRUN_STORE "$L" verify --key "$T/lab.pub.pem" "$@"; }
expect_exit 0 "the crate verifies" verify "$T/crate"
tampered() { rm -rf "$T/bad" && cp -R "$T/crate" "$T/bad"; }

# 1. a directory symlink: to an empty directory (which added no file to name) and to a full one
mkdir "$T/outside-empty" "$T/outside"
echo secret >"$T/outside/secret.txt"
tampered
ln -s "$T/outside-empty" "$T/bad/run-1/elsewhere"
expect_exit 1 "a symlink to an empty directory outside the crate fails" verify "$T/bad"
contains "$T/out" "PROBLEM run-1/elsewhere: is a symbolic link" "the link is named by its path"
tampered
ln -s "$T/outside" "$T/bad/away"
ln -s ../report.md "$T/bad/run-1/same-crate-link"
cp -R "$T/bad/site/data" "$T/outside/data" && rm -r "$T/bad/site/data" && ln -s "$T/outside/data" "$T/bad/site/data"
expect_exit 1 "a symlink to a full directory outside the crate fails" verify "$T/bad"
contains "$T/out" "PROBLEM away: is a symbolic link" "named"
contains "$T/out" "PROBLEM run-1/same-crate-link: is a symbolic link" "a link inside the crate is named too"
contains "$T/out" "PROBLEM site/data: is a symbolic link" "a link in the site is named"
contains "$T/out" "PROBLEM site/data/index.js: is signed in crate.intoto.json but not in the crate: removed" \
	"and its pages are not read through it"
lacks "$T/out" "secret.txt" "nothing behind the link was looked at"
# the crate's own directory reached through a link the reviewer gives is the crate, not a link in it
ln -s "$T/crate" "$T/crate-link"
expect_exit 0 "a crate named through a link verifies" verify "$T/crate-link"

# 2. a FIFO: added, and in place of a signed file (opening it would wait for a writer forever)
tampered
mkfifo "$T/bad/pipe"
rm "$T/bad/report.md"
mkfifo "$T/bad/report.md"
expect_exit 1 "a crate with FIFOs fails, not aborts or hangs" timeout 300 env -u LABRUN_STORE "$L" verify \
	--key "$T/lab.pub.pem" "$T/bad"
contains "$T/out" "PROBLEM pipe: is a FIFO, socket or device" "the added FIFO is named"
contains "$T/out" "PROBLEM report.md: is a FIFO, socket or device" "the FIFO in a signed file's place is named"
contains "$T/out" "PROBLEM report.md: is signed in crate.intoto.json but not in the crate: removed" \
	"and the signed file is missing"
tampered
ln -s /dev/zero "$T/bad/zero"
expect_exit 1 "a link to a device fails" verify "$T/bad"
contains "$T/out" "PROBLEM zero: is a symbolic link" "named, and /dev/zero never read"

# 3. extra files, one beside the runs and one where the site's logs are (which verify compares by
# their digests): each is named without being read; their access times, set in the past, stay there
tampered
head -c 1048576 /dev/zero >"$T/bad/extra.bin"
cp "$T/bad/extra.bin" "$T/bad/site/logs/extra.txt"
touch -a -d '2001-01-01 00:00:00' "$T/bad/extra.bin" "$T/bad/site/logs/extra.txt"
before=$(stat -c %X "$T/bad/extra.bin")
cat "$T/bad/extra.bin" >/dev/null
if [ "$(stat -c %X "$T/bad/extra.bin")" = "$before" ]; then
	ok "# skip: this file system does not record reads in access times"
else
	touch -a -d '2001-01-01 00:00:00' "$T/bad/extra.bin"
	expect_exit 1 "extra files fail" verify "$T/bad"
	contains "$T/out" "PROBLEM extra.bin: is not among the files crate.intoto.json signs" "named as added"
	contains "$T/out" "PROBLEM site/logs/extra.txt: is not among the files crate.intoto.json signs" "this one too"
	equals "$(stat -c %X "$T/bad/extra.bin")" "$before" "and never read"
	equals "$(stat -c %X "$T/bad/site/logs/extra.txt")" "$before" "not by the site's check either"
fi

# 4. names with a newline, a tab or a backslash: each problem stays one line, the name escaped
tampered
nl='
'
echo x >"$T/bad/a${nl}PROBLEM forged: all good"
printf 'x\n' >"$T/bad/b	c\\n"
expect_exit 1 "a crate with odd names fails" verify "$T/bad"
contains "$T/out" 'PROBLEM a\nPROBLEM forged: all good: is not among the files' "the newline escaped C-style"
contains "$T/out" 'PROBLEM b\tc\\n: is not among the files' "a tab escaped, a backslash doubled"
equals "$(grep -c '^PROBLEM forged' "$T/out")" 0 "no forged line"
equals "$(grep -c '^PROBLEM' "$T/out")" 2 "one line for each of the two problems"
expect_exit 1 "a crate that is not there" verify "$T/no${nl}such"
equals "$(wc -l <"$T/err")" 1 "its error is one line (no hint for it)"
contains "$T/err" "no\\nsuch" "the name in an error escaped as well"
