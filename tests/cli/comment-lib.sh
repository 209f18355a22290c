# What the issue-comment tests share (t0247, tests/slow/t0960): sourced after lib.sh. Skips without
# GitHub's renderer or python3; comment NAME FILE MAX [WHOLE] checks a Markdown report as a comment.
command -v cmark-gfm >/dev/null ||
	{ echo "SKIP: cmark-gfm (Debian package cmark-gfm, build-aux/install-deps --test) renders the comment as GitHub does"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is needed for the test server and comment-check.py"; exit 77; }
L=$LABRUN
C="$TOP_SRCDIR/tests/cli/comment-check.py"
machine= # a machine's paths start with /home, /tmp, /work or /root: none in the comment
for d in home tmp work root; do machine="$machine --forbid /$d/"; done

# comment NAME FILE MAX [WHOLE]: within MAX, folds closed, no machine path, no blob, what is left out
# named (against WHOLE, the same report uncut); and GitHub's renderer renders every fold and table
comment() {
	python3 "$C" check "$2" "$3" ${4:+--full "$4"} --forbid "$T" --forbid "$TOP_SRCDIR" $machine >"$T/check" 2>&1 ||
		{ cat "$T/check" >&2; fail "$1"; }
	ok "$1: $(cat "$T/check")"
	cmark-gfm -e table -e autolink -e strikethrough --unsafe "$2" >"$T/rendered.html" || fail "$1: cmark-gfm cannot render it"
	equals "$(grep -c '^<details>' "$T/rendered.html" || true) $(grep -c '<table>' "$T/rendered.html" || true)" \
		"$(grep -c '^<details>' "$2" || true) $(grep -c '^|---' "$2" || true)" \
		"$1: cmark-gfm renders every fold, and every table in them (a blank line after each summary)"
}
