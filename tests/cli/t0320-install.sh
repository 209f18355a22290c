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

# the completion, as bash calls it
"$I/bin/labrun" record -q --issue 205 -- true >/dev/null 2>&1
"$I/bin/labrun" record -q --issue RBLN-SW/optimum-rbln#827 -- true >/dev/null 2>&1
complete() { # WORDS...: the completions bash would offer for the last word
	PATH="$I/bin:$PATH" bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _labrun; printf "%s\n" "${COMPREPLY[@]}"' \
		sh "$I/share/bash-completion/completions/labrun" "$@"
}
equals "$(complete labrun li)" "list" "commands"
equals "$(complete labrun list --iss)" "--issue" "a command's options, read from its -h"
equals "$(complete labrun show "" | tr '\n' ' ')" "last 1 2 " "run ids from the store"
equals "$(complete labrun list --issue "" | tr '\n' ' ')" "205 RBLN-SW/optimum-rbln#827 " "issue references from the store"
equals "$(complete labrun --store "$T/sto" re | sort | tr '\n' ' ')" "record register remote replay report " \
	"after a global option"
"$I/bin/labrun" remote add lab "host=/nowhere dbname=x" || fail "remote add"
equals "$(complete labrun push "")" "lab" "remote names for push"
equals "$(complete labrun remote "" | tr '\n' ' ')" "add list remove init " "remote's subcommands"
