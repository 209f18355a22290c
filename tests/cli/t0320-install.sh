#!/bin/sh
# make install puts the binary, labrun(1) and one page per command (each renders with man -l),
# the bash completion (driven here as bash would) and the shipped experiments.
. "$(dirname "$0")/lib.sh"

: "${TOP_BUILDDIR:?run through make check}"
command -v man >/dev/null || { echo "man is needed (Debian package man-db)"; exit 77; }
${MAKE:-make} -s -C "$TOP_BUILDDIR" install DESTDIR="$T/inst" prefix=/usr >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log" >&2; fail "make install failed"; }
ok "make install DESTDIR=..."
I="$T/inst/usr"
[ -x "$I/bin/labrun" ] || fail "no binary"
ok "the binary is installed"
pages=0
for c in "" $("$I/bin/labrun" --help | sed -n 's/^  \([a-z]\+\) .*/\1/p'); do
	page="$I/share/man/man1/labrun${c:+-$c}.1"
	[ -f "$page" ] || fail "no man page for '${c:-labrun}'"
	MANWIDTH=80 man -l "$page" >"$T/page" 2>"$T/man.err" || { cat "$T/man.err" >&2; fail "man -l $page failed"; }
	grep -Eq "labrun${c:+-$c} +- " "$T/page" || fail "the page of '${c:-labrun}' has no NAME line"
	pages=$((pages + 1))
done
ok "$pages man pages, one per command and labrun(1), each renders"
MANWIDTH=80 man -l "$I/share/man/man1/labrun-record.1" >"$T/page"
contains "$T/page" "--follow-links" "a page carries its command's options"
for x in aa-noise encoder205 import270 layout205; do
	[ -f "$I/share/labrun/experiments/$x.ini" ] || fail "experiment $x.ini is not installed"
done
ok "the experiments are installed"
# every document a page or an error hint names is installed (docs/remote.md, named by every page, once was not)
named=$( (cat "$I"/share/man/man1/*.1; strings "$I/bin/labrun") | grep -o 'docs/[a-z0-9-]*\.md' | sort -u)
[ -n "$named" ] || fail "no page names a document: has see-also.h2m changed?"
for d in $named; do
	[ -f "$I/share/doc/labrun/${d#docs/}" ] || fail "$d is named but not installed"
done
ok "the $(echo "$named" | wc -l | tr -d ' ') documents the pages and hints name are installed"

# the completion, as bash calls it
"$I/bin/labrun" record -q --issue 205 -- true >/dev/null 2>&1
"$I/bin/labrun" record -q --issue RBLN-SW/optimum-rbln#827 -- true >/dev/null 2>&1
complete() { # WORDS...: the completions bash would offer for the last word
	PATH="$I/bin:$PATH" bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _labrun; printf "%s\n" "${COMPREPLY[@]}"' \
		sh "$I/share/bash-completion/completions/labrun" "$@"
}
equals "$(complete labrun li)" "list" "commands"
equals "$(complete labrun list --iss)" "--issue" "a command's options, read from its -h"
equals "$(complete labrun list --issue "" | tr '\n' ' ')" "205 RBLN-SW/optimum-rbln#827 " "issue references from the store"
equals "$(complete labrun --store "$T/sto" re | sort | tr '\n' ' ')" "record register remote replay report " \
	"after a global option"
"$I/bin/labrun" remote add lab "host=/nowhere dbname=x" || fail "remote add"
equals "$(complete labrun push "")" "lab" "remote names for push"
equals "$(complete labrun remote "" | tr '\n' ' ')" "add list remove init " "remote's subcommands"
equals "$(complete labrun remote remove "")" "lab" "remote names for remove"
equals "$(complete labrun show "" | tr '\n' ' ')" "last last~1 1 2 " "run ids, relative references first"

# a store named on the line: every word offered comes from it, not from LABRUN_STORE's
S2="$T/other store"
echo art >"$T/work/a.txt"
for i in 1 2 3; do LABRUN_STORE=$S2 "$I/bin/labrun" record -q --artifact a.txt -- true >/dev/null 2>&1; done
LABRUN_STORE=$S2 "$I/bin/labrun" ingest responses --run 3 --route rngd-atom "$TOP_SRCDIR/tests/fixtures/serving/atom.jsonl" \
	>/dev/null || fail "ingest into the second store"
equals "$(complete labrun --store "$S2" show "" | tr '\n' ' ')" "last last~1 1 2 3 " "--store DIR: its run ids"
equals "$(complete labrun --store="$S2" diff 1 "" | tr '\n' ' ')" "last last~1 1 2 3 " "--store=DIR, diff's second run"
equals "$(complete labrun --store "$S2" cat 2 "" | tr '\n' ' ')" "stdout stderr a.txt output:a.txt " "cat: the run's logs and artifacts"
equals "$(complete labrun --store "$S2" cat last~1 "" | tr '\n' ' ')" "stdout stderr a.txt output:a.txt " "cat after a relative reference"
equals "$(complete labrun --store "$S2" gate --route "")" "rngd-atom" "routes from the store"
equals "$(complete labrun --store "$S2" compare --run 3 --candidate r)" "rngd-atom" "after an option's value"
equals "$(complete labrun ingest "")" "responses" "ingest's subcommand"
equals "$(complete labrun ingest responses --run 1 --co)" "--condition" "ingest's options"
equals "$(complete labrun key "" | tr '\n' ' ')" "init show export trust untrust list " "key's subcommands"
equals "$(complete labrun config "" | tr '\n' ' ')" "manifest.license manifest.author manifest.publisher scan.internal scan.baseline " \
	"config keys, from its -h"
equals "$(complete labrun config --unset scan | tr '\n' ' ')" "scan.internal scan.baseline " "config --unset KEY"
equals "$(complete labrun report --format "" | tr '\n' ' ')" "md csv json html text tidy " "report --format's choices"
equals "$(complete labrun pull --objects "" | tr '\n' ' ')" "all lazy " "pull --objects' choices"
equals "$(complete labrun report -o "$T/other" | tr '\n' ' ')" "$T/other store " "-o takes a file"
