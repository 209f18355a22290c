#!/bin/sh
# make check-slow: every document that has a block tagged "slow" (a scale
# example), run whole with its slow blocks, as a reader following it would.
. "$(dirname "$0")/../cli/lib.sh"

cd "$TOP_SRCDIR"
docs=$(grep -l '^ *```sh.* slow\( \|$\)' README.md docs/*.md || true)
[ -n "$docs" ] || fail "no document has a block tagged slow: is doc-blocks.awk's tag still 'slow'?"
for d in $docs; do
	LABRUN_DOCS_SLOW=1 sh tests/docs/doc.sh "$d" >"$T/doc.out" 2>&1 || {
		cat "$T/doc.out" >&2
		fail "$d, slow blocks included"
	}
	sed 's/^/# /' "$T/doc.out"
	ok "$d, slow blocks included"
done
