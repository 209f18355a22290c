#!/bin/sh
# The repository says in its own words what users need: no tracked file points
# outside it (to the material it was first written from, or to a path on one
# machine), and every docs/ page a file names exists.
set -eu
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
[ -e .git ] || { echo "self-contained: not a git checkout, skipped"; exit 77; }
fail=0
# this file names the patterns, so it is left out
files=$(git ls-files | grep -v '^tests/arch/self-contained.sh$' | grep -v '^tests/fixtures/')
if grep -nE '\.\./shared/|shared/spec|(^|[[:space:]"(=:])/work/' $files; then
	echo "self-contained: the lines above point outside the repository" >&2
	fail=1
fi
for page in $(grep -ohE 'docs/[a-z0-9-]+\.md' $files | sort -u); do
	[ -f "$page" ] || { echo "self-contained: $page is named but does not exist" >&2; fail=1; }
done
[ $fail = 0 ] && echo "self-contained: ok; no file points outside, every docs page named exists"
exit $fail
