#!/bin/sh
# The architecture check can fail: on a copy of the tree it must refuse an
# include that points up the map's order, a folder the map does not name and a
# source file it does not list, and pass on the copy as it is.
set -eu
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=$(pwd) # make check runs in the build tree, where config.h is (out of tree too)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
fail() { echo "not ok - $*"; exit 1; }

# Three folders are enough to plant in, and keep it quick (the map's other folders are not checked).
fresh() {
	rm -rf "$tmp/t" && mkdir -p "$tmp/t/docs" "$tmp/t/src"
	cp -R "$top/src/base" "$top/src/store" "$top/src/cmd" "$tmp/t/src/" && find "$tmp/t/src" -type f ! -name "*.[ch]" -delete
	cp "$top/docs/architecture.md" "$tmp/t/docs/"
}
layers() { TOP_SRCDIR="$tmp/t" sh "$top/tests/arch/layers.sh" >"$tmp/out" 2>&1; }

fresh
layers || { cat "$tmp/out"; fail "the copy as it is does not pass"; }
ok "the tree as it is passes"

printf '#include "cmd/cmd.h"\n' >>"$tmp/t/src/store/dir.c"
! layers || fail "an upward include passed"
grep -q 'src/store/dir.c: includes cmd/, which is above store/' "$tmp/out" || { cat "$tmp/out"; fail "not named"; }
ok "an include from store/ up to cmd/ fails, naming the file"

fresh
mkdir "$tmp/t/src/extra" && printf 'int lr_extra;\n' >"$tmp/t/src/extra/extra.c"
! layers || fail "an unlisted folder passed"
grep -q 'src/extra/: a folder docs/architecture.md does not name' "$tmp/out" || { cat "$tmp/out"; fail "not named"; }
ok "a folder the map does not name fails"

fresh
printf 'int lr_stray;\n' >"$tmp/t/src/base/stray.c"
! layers || fail "an unlisted file passed"
grep -q 'src/base/stray.c: not listed in docs/architecture.md' "$tmp/out" || { cat "$tmp/out"; fail "not named"; }
ok "a source file the map does not list fails"

fresh
rm "$tmp/t/src/base/csv.c" "$tmp/t/src/base/csv.h"
! layers || fail "a map naming a file that does not exist passed"
grep -q 'docs/architecture.md lists src/base/csv.c, which does not exist' "$tmp/out" || { cat "$tmp/out"; fail "not named"; }
ok "a file the map lists but the tree lacks fails"

fresh
awk 'NR == 5 { print "int lr_long(void)\n{"; for (i = 0; i < 85; i++) print "\tlr_x();"; print "}" } { print }' \
	"$top/src/base/csv.c" >"$tmp/t/src/base/csv.c"
! layers || fail "a function of 88 lines passed"
grep -q 'function of 88 lines (at most 80)' "$tmp/out" || { cat "$tmp/out"; fail "not named"; }
ok "a function over 80 lines fails"

# The rules read code through gcc -fpreprocessed whatever CC is: under CC=clang (CI's sanitizer
# build) they once read nothing, as clang has no such mode, and so could not fail.
fresh
printf 'void lr_noisy(void) { printf("hello\\n"); }\n' >>"$tmp/t/src/store/dir.c"
! CC=clang layers || fail "a printf outside src/cmd passed (CC=clang)"
grep -q 'src/store/dir.c:[0-9]*: prints or exits outside src/cmd' "$tmp/out" || { cat "$tmp/out"; fail "not named"; }
ok "a printf outside src/cmd fails, with CC=clang too"

# a command's parse filled by position, and a helper a header declares that only its own file uses
fresh
printf 'static const struct cmd_parse planted = { "list", "usage" };\n' >>"$tmp/t/src/cmd/list.c"
printf 'int cmd_lonely(void);\n' >>"$tmp/t/src/cmd/options.h"
printf 'int cmd_lonely(void)\n{\n\treturn 0;\n}\n' >>"$tmp/t/src/cmd/options.c"
! layers || fail "a positional struct cmd_parse and a lonely helper passed"
grep -q 'src/cmd/list.c:[0-9]*: struct cmd_parse filled by position' "$tmp/out" || { cat "$tmp/out"; fail "positional: not named"; }
grep -q 'src/cmd/options.h: declares cmd_lonely, which only the file that defines it uses' "$tmp/out" ||
	{ cat "$tmp/out"; fail "lonely helper: not named"; }
ok "a struct cmd_parse filled by position, and a declared helper only its own file uses, fail"

# a function exported without its layer's prefix (store/dir.c once had store_is_dir)
fresh
printf 'int stray_is_dir(const char *p)\n{\n\treturn p != 0;\n}\n' >>"$tmp/t/src/store/dir.c"
! layers || fail "an unprefixed export passed"
grep -q "src/store/dir.c: stray_is_dir: exported without its layer's prefix" "$tmp/out" || { cat "$tmp/out"; fail "not named"; }
ok "a function exported without its layer's prefix fails, naming it"

# base/banned.h: a banned string function in any file is a compile error, not a habit
for call in 'strcpy(d, "x")' 'strcat(d, "x")' 'sprintf(d, "%d", 1)' 'strncpy(d, "x", 1)' 'strtok(d, ",")' 'gmtime(&t)'; do
	printf '#include "base/system.h"\nvoid lr_f(char *d, time_t t);\nvoid lr_f(char *d, time_t t) { (void)t; (void)%s; }\n' "$call" >"$tmp/banned.c"
	if "${CC:-cc}" -fsyntax-only -I"$build" -I"$top/src" -include config.h "$tmp/banned.c" 2>"$tmp/out"; then
		fail "a call of ${call%%(*} compiled"
	fi
	grep -q "sorry_${call%%(*}_is_banned_in_labrun" "$tmp/out" || { cat "$tmp/out"; fail "not named"; }
done
ok "every banned function is a compile error that names itself"
