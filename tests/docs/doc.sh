#!/bin/sh
# One document's shell examples, run as a reader would type them: the
# ```sh blocks of DOC (build-aux/doc-blocks.awk), in order, in a fresh git work
# tree holding the repository's experiments/ and examples/, with labrun on PATH
# and the store it finds there (no LABRUN_STORE). A block must exit 0, or the N
# of its "sh exit=N" tag. Blocks tagged "ci" build and test labrun itself and
# are run by .ci/run; blocks tagged "slow" (a scale example of a minute) run
# only under 'make check-slow' (LABRUN_DOCS_SLOW=1), so no later block of the
# document may depend on one. A "ci main" block is the Quick start's: its last
# command (after the final '&& ') is the main job, and under make check-slow it
# runs first, so the blocks after it find the store a newcomer would.
#
# Then, when tests/docs/NAME.check.sh exists (NAME the document's, without
# .md), it runs in the same tree and store: it checks that the commands did
# what their comments say (for README.md: the tour's runs are the ones it
# names, and its outputs left the work tree clean).
#
# make check runs this once per document (Makefile.am: DOC_TESTS), so the
# documents run in parallel under -j.
#
# usage: doc.sh DOC
doc=${1:?usage: doc.sh DOC}
[ -f "$doc" ] || doc=$TOP_SRCDIR/$doc
doc=$(cd "$(dirname "$doc")" && pwd)/$(basename "$doc")
. "$TOP_SRCDIR/tests/cli/lib.sh"
name=${doc#"$(cd "$TOP_SRCDIR" && pwd)"/}
mkdir "$T/bin" "$T/blocks"
ln -s "$LABRUN" "$T/bin/labrun"
awk -v dir="$T/blocks" -f "$TOP_SRCDIR/build-aux/doc-blocks.awk" "$doc" >"$T/index" ||
	fail "$name: doc-blocks.awk refused a block (above)"

make_repo "$T/tree"
cp -R "$TOP_SRCDIR/experiments" "$TOP_SRCDIR/examples" "$TOP_SRCDIR/.gitignore" "$T/tree/"
git -C "$T/tree" add experiments examples .gitignore
git -C "$T/tree" commit -qm "experiments and examples"

ran=0
while read -r n file line tags; do
	expected=0 skip=
	for t in $tags; do
		case $t in
		exit=*) expected=${t#exit=} ;;
		ci) [ "$name" = README.md ] || fail "$name:$line: only README.md's commands are run by CI"
			skip="run by .ci/run" ;;
		slow) [ "${LABRUN_DOCS_SLOW:-0}" = 1 ] || skip="slow: make check-slow runs it" ;;
		main) [ "$skip" = "run by .ci/run" ] || fail "$name:$line: 'main' marks a 'ci' block's main job"
			grep -q ' && \./labrun [^&]*$' "$T/blocks/$n.sh" ||
				fail "$name:$line: a 'ci main' block ends in '&& ./labrun ...'"
			if [ "${LABRUN_DOCS_SLOW:-0}" = 1 ]; then
				sed -n 's/.* && \.\/\(labrun [^&]*\)$/\1/p' "$T/blocks/$n.sh" >"$T/blocks/$n.main.sh"
				n=$n.main skip=
			else
				skip="the main job: make check-slow runs it"
			fi ;;
		*) fail "$name:$line: unknown tag '$t'" ;;
		esac
	done
	if [ -n "$skip" ]; then
		ok "$name:$line: $skip"
		continue
	fi
	start=$(date +%s%N)
	set +e
	(cd "$T/tree" && env -u LABRUN_STORE HOME="$T/home" PATH="$T/bin:$PATH" \
		sh -e "$T/blocks/$n.sh" >"$T/out" 2>"$T/err" </dev/null)
	got=$?
	set -e
	[ "$got" = "$expected" ] || {
		echo "--- $name:$line" >&2; cat "$T/blocks/$n.sh" >&2
		echo "--- stdout" >&2; tail -n 30 "$T/out" >&2
		echo "--- stderr" >&2; tail -n 30 "$T/err" >&2
		fail "$name:$line: exit $got, expected $expected"
	}
	ran=$((ran + 1))
	ok "$name:$line exits $expected ($(( ($(date +%s%N) - start) / 1000000 )) ms)"
done <"$T/index"
echo "# $ran blocks of $name run"
check=$TOP_SRCDIR/tests/docs/$(basename "$name" .md).check.sh
if [ -f "$check" ]; then
	(cd "$T/tree" && env -u LABRUN_STORE HOME="$T/home" PATH="$T/bin:$PATH" LABRUN="$LABRUN" TOP_SRCDIR="$TOP_SRCDIR" sh -e "$check") ||
		fail "$name: $check found a command that did not do what its comment says"
	ok "$name: what its commands say they do ($(basename "$check"))"
fi
