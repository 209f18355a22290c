#!/bin/sh
# One document's shell examples, run as a reader would type them: the
# ```sh blocks of DOC (build-aux/doc-blocks.awk), in order, in a fresh git work
# tree holding the repository's experiments/ and examples/, with labrun on PATH
# and the store it finds there (no LABRUN_STORE). A block must exit 0, or the N
# of its "sh exit=N" tag. Blocks tagged "ci" build and test labrun itself and
# are run by .ci/run; blocks tagged "slow" (a scale example of a minute) run
# only under 'make check-slow' (LABRUN_DOCS_SLOW=1), so no later block of the
# document may depend on one.
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
cp -R "$TOP_SRCDIR/experiments" "$TOP_SRCDIR/examples" "$T/tree/"
git -C "$T/tree" add experiments examples
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
