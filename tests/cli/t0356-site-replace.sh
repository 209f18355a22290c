#!/bin/sh
# site -o DIR replaces DIR only while it holds nothing 'labrun site' did not write (issue 44, item 6):
# a directory with an empty .labrun-site marker lost the files a user had added to it.
. "$(dirname "$0")/lib.sh"
"$LABRUN" record -q -- echo one >/dev/null 2>&1 || fail "a run to publish"

# the trial's input: an empty marker and a user's files
mkdir mine && : >mine/.labrun-site && echo keep >mine/notes.txt
expect_exit 2 "a directory with an empty marker and a user's file" "$LABRUN" site -o mine
contains "$T/err" "cannot write the site into 'mine': it holds 'notes.txt', which 'labrun site' did not write" \
	"names the file"
contains "$T/err" "hint: move your files out of 'mine' or give -o another directory; --force replaces it" "says what to do"
equals "$(cat mine/notes.txt)" "keep" "the user's file is kept"
[ ! -e mine/index.html ] || fail "the site was written over it"
ok "nothing written"
[ -z "$(find . -maxdepth 1 -name 'mine.tmp-*')" ] || fail "the site's temporary directory is left"
ok "no temporary directory left"

# a site labrun wrote is replaced, as before
expect_exit 0 "a site" "$LABRUN" site -o site
grep -q "^[0-9]* index.html$" site/.labrun-site || fail "the marker does not list index.html"
ok "the marker lists the files the site wrote"
expect_exit 0 "the same site again, over itself" "$LABRUN" site -o site

# one file added anywhere in it, or a file of it changed, and it is no longer only labrun's
echo mine >site/data/extra.txt
expect_exit 2 "a site with a file added in a subdirectory" "$LABRUN" site -o site
contains "$T/err" "it holds 'data/extra.txt'" "names the added file with its path"
equals "$(cat site/data/extra.txt)" "mine" "the added file is kept"
rm site/data/extra.txt
echo "<!-- my edit -->" >>site/index.html
expect_exit 2 "a site whose page was edited" "$LABRUN" site -o site
contains "$T/err" "it holds 'index.html', which 'labrun site' did not write (or which changed since)" "names the edited page"
grep -q "my edit" site/index.html || fail "the edit was lost"
ok "the edit is kept"
expect_exit 0 "--force" "$LABRUN" site --force -o site
! grep -q "my edit" site/index.html || fail "--force kept the edit"
ok "--force: the site replaced with everything in it"
mkdir site/empty-of-mine
expect_exit 2 "a site with a directory added" "$LABRUN" site -o site
contains "$T/err" "it holds 'empty-of-mine'" "names the added directory"
rmdir site/empty-of-mine
ln -s /etc/hostname site/link
expect_exit 2 "a site with a link added" "$LABRUN" site -o site
contains "$T/err" "it holds 'link'" "names the link"
rm site/link

# a file of it deleted is no reason to refuse
rm site/run-1.html
expect_exit 0 "a site with one of its files deleted is replaced" "$LABRUN" site -o site
[ -s site/run-1.html ] || fail "the deleted page is not written again"
ok "the deleted page is back"

# a directory without the marker is still never replaced, --force or not
mkdir other && echo keep >other/file
expect_exit 2 "--force on a directory labrun did not write" "$LABRUN" site --force -o other
contains "$T/err" "it exists and labrun did not write it" "says why"
equals "$(cat other/file)" "keep" "and leaves it as it was"
