#!/bin/sh
# Every shell example of README.md and docs/*.md runs: build-aux/doc-blocks.awk
# extracts the fenced ```sh blocks, and each document's blocks run in order, as
# a reader would type them, in a fresh git work tree holding the repository's
# experiments/ and examples/, with labrun on PATH and the store it finds there
# (no LABRUN_STORE). A block must exit 0, or the N of its "sh exit=N" tag.
# Blocks tagged "ci" build and test labrun itself: .ci/run runs those, and this
# test checks that it does.
. "$TOP_SRCDIR/tests/cli/lib.sh"

mkdir "$T/bin" "$T/blocks"
ln -s "$LABRUN" "$T/bin/labrun"
cd "$TOP_SRCDIR"
docs="README.md $(ls docs/*.md)"
awk -v dir="$T/blocks" -f build-aux/doc-blocks.awk $docs >"$T/index" ||
	fail "doc-blocks.awk refused a block (above)"
[ "$(wc -l <"$T/index")" -ge 8 ] || fail "only $(wc -l <"$T/index") blocks found"
ok "$(wc -l <"$T/index") shell blocks in $(echo $docs | wc -w) documents"

grep -q 'doc-blocks.awk' .ci/run && grep -q 'README.md' .ci/run ||
	fail ".ci/run does not run README.md's ci blocks"

# A fresh work tree per document: its store starts empty, so run ids are as the
# document says.
prepare() {
	W="$T/docs/$1"
	mkdir -p "$W/home"
	make_repo "$W/tree"
	cp -R "$TOP_SRCDIR/experiments" "$TOP_SRCDIR/examples" "$W/tree/"
	git -C "$W/tree" add experiments examples
	git -C "$W/tree" commit -qm "experiments and examples"
}

current=
while read -r n file line tags; do
	case " $tags " in
	*" ci "*)
		[ "$file" = README.md ] || fail "$file:$line: only README.md's commands are run by CI"
		ok "$file:$line is run by .ci/run"
		continue ;;
	esac
	[ "$file" = "$current" ] || { prepare "$(echo "$file" | tr / -)"; current=$file; }
	expected=0
	for t in $tags; do
		case $t in
		exit=*) expected=${t#exit=} ;;
		*) fail "$file:$line: unknown tag '$t'" ;;
		esac
	done
	set +e
	(cd "$W/tree" && env -u LABRUN_STORE HOME="$W/home" PATH="$T/bin:$PATH" \
		sh -e "$T/blocks/$n.sh" >"$T/out" 2>"$T/err" </dev/null)
	got=$?
	set -e
	[ "$got" = "$expected" ] || {
		echo "--- $file:$line" >&2; cat "$T/blocks/$n.sh" >&2
		echo "--- stdout" >&2; tail -n 30 "$T/out" >&2
		echo "--- stderr" >&2; tail -n 30 "$T/err" >&2
		fail "$file:$line: exit $got, expected $expected"
	}
	ok "$file:$line exits $expected"
done <"$T/index"
