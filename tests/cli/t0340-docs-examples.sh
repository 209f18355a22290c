#!/bin/sh
# The docs harness itself: every shell example of README.md and docs/*.md is run
# by tests/docs/doc.sh, one test per document (Makefile.am's DOC_TESTS), so a
# page that is not listed there would go untested and uninstalled. Blocks
# tagged "ci" are README.md's own build and test commands: .ci/run runs them.
# Blocks tagged "slow" run under make check-slow (tests/slow/t0920).
. "$TOP_SRCDIR/tests/cli/lib.sh"

cd "$TOP_SRCDIR"
docs="README.md $(ls docs/*.md)"
mkdir "$T/blocks"
awk -v dir="$T/blocks" -f build-aux/doc-blocks.awk $docs >"$T/index" ||
	fail "doc-blocks.awk refused a block (above)"
[ "$(wc -l <"$T/index")" -ge 8 ] || fail "only $(wc -l <"$T/index") blocks found"
ok "$(wc -l <"$T/index") shell blocks in $(echo $docs | wc -w) documents"

# The installed pages are the tested ones: dist_doc_DATA is README.md and DOC_PAGES (DOC_LONG, the
# pages that take longest, and DOC_REST), and TESTS runs them all (the long ones first).
listed="README.md $(sed -n '/^DOC_\(LONG\|REST\) *=/,/[^\\]$/p' Makefile.am | tr -d '\\' | sed 's/^DOC_[A-Z]* *=//')"
grep -q '^DOC_PAGES *= *$(DOC_LONG) $(DOC_REST)$' Makefile.am || fail "Makefile.am: DOC_PAGES is not \$(DOC_LONG) \$(DOC_REST)"
grep -q '^dist_doc_DATA *= *README.md $(DOC_PAGES)$' Makefile.am || fail "Makefile.am: dist_doc_DATA is not README.md \$(DOC_PAGES)"
grep '^TESTS *=' Makefile.am | grep -v '$(DOC_LONG) .*README.md .*$(DOC_REST)' &&
	fail "Makefile.am: a TESTS does not run \$(DOC_LONG), README.md and \$(DOC_REST)"
for d in $docs; do
	printf '%s\n' $listed | grep -qx "$d" || fail "$d is neither installed nor run: add it to DOC_PAGES in Makefile.am"
done
ok "every document is installed and run by make check"

grep -q 'doc-blocks.awk' .ci/run && grep -q 'README.md' .ci/run ||
	fail ".ci/run does not run README.md's ci blocks"
ci=0 slow=0
while read -r n file line tags; do
	case " $tags " in *" ci "*)
		[ "$file" = README.md ] || fail "$file:$line: only README.md's commands are run by CI"
		ci=$((ci + 1)) ;;
	esac
	case " $tags " in *" slow "*) slow=$((slow + 1)) ;; esac
done <"$T/index"
[ "$ci" -ge 2 ] || fail "README.md has $ci blocks tagged ci, expected its two commands"
ok "$ci README blocks are run by .ci/run, $slow slow blocks by make check-slow"
