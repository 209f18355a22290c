#!/bin/sh
# The architecture, checked: the folders of src/ are layers, and these rules keep them so.
#  1. Only src/cmd/ prints to stdout/stderr or exits: every lower layer returns
#     an error code and a message (base/error.h) and leaves the talking to commands.
#  2. Only src/store/ speaks SQLite: the schema is reached through store/store.h.
#  3. The folders include each other in the order of docs/architecture.md
#     only: an include that points up the order fails, and so does a folder of
#     src/ or a source file that the map does not list.
#  4. No function is longer than 80 lines, and no source file longer than 600
#     (generated ones aside): past that, split by concern.
#  5. A run's life (spool lock, 'running' row, final row) is written once, in
#     src/record/session.c: nothing else takes the lock or writes those rows.
#  6. A command file defines only its commands (those in labrun.c's table);
#     what commands share lives in common.c and print.c, so no command file
#     calls into another.
#  7. No build product is tracked by git.
# Comments and string literals are left out (the preprocessor strips comments
# without expanding includes), so a rule is about code, not prose.
set -eu
src=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/src
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

cat > "$tmp/match.awk" <<'AWK'
/^# [0-9]+ / { line = $2 - 1; next }
{
	line++
	code = $0
	gsub(/"([^"\\]|\\.)*"/, "\"\"", code)
	gsub(/'([^'\\]|\\.)*'/, "0", code)
	if (code ~ re) { printf "src/%s:%d: %s: %s\n", f, line, rule, $0; bad = 1 }
}
END { exit bad }
AWK

check() { # RULE REGEX ALLOWED: the files allowed to match, an extended regex on their path in src/
	for f in $(cd "$src" && find . -name '*.[ch]' ! -name 'schema-sql.c' | sed 's|^\./||' | grep -Ev "^($3)" | sort); do
		${CC:-cc} -fpreprocessed -dD -E -x c "$src/$f" |
			awk -v f="$f" -v rule="$1" -v re="$2" -f "$tmp/match.awk" || fail=1
	done
}

check "prints or exits outside src/cmd" \
	'(^|[^_A-Za-z0-9])(printf|vprintf|puts|putchar|perror|exit|abort|err|errx|warn|warnx)[ \t]*\(|(^|[^_A-Za-z0-9])(stdout|stderr)([^_A-Za-z0-9]|$)|write[ \t]*\([ \t]*(STDOUT_FILENO|STDERR_FILENO)' 'cmd/'
check "SQLite outside src/store" '(^|[^_A-Za-z0-9])(sqlite3|SQLITE)_|sqlite3\.h' 'store/'

# The map: docs/architecture.md's layer diagram gives the order (first line of
# each " name/" entry in its first fenced block), its "### `src/NAME/`"
# sections list the files.
map=${MAP:-$src/../docs/architecture.md}
order=$(awk '/^```/ { n++; next } n == 1 && /^ [a-z]+\// { sub(/^ /, ""); sub(/\/.*/, ""); print }' "$map")
[ -n "$order" ] || { echo "$map: no layer diagram (a fenced block of ' name/' lines)"; fail=1; }
rank() { printf '%s\n' $order | grep -nx "$1" | cut -d: -f1; }
for d in $(cd "$src" && ls -d */ | tr -d /); do
	if [ -z "$(rank "$d")" ]; then
		echo "src/$d/: a folder docs/architecture.md does not name: add it to the layer diagram, in its place"
		fail=1
		continue
	fi
	listed=$(awk -v h="### \`src/$d/\`" 'index($0, h) == 1 { on = 1; next } /^#/ { on = 0 } on' "$map")
	for f in $(cd "$src/$d" && ls *.c *.h 2>/dev/null); do
		case $f in schema-sql.c | schema-pg-sql.c) continue ;; esac
		case $f in *.h) [ -f "$src/$d/${f%.h}.c" ] && continue ;; esac # listed with its .c
		printf '%s\n' "$listed" | grep -qF "* \`$f\`" || {
			echo "src/$d/$f: not listed in docs/architecture.md (section \`src/$d/\`): say what it is for"
			fail=1
		}
	done
done
# Every include between folders points down the order.
(cd "$src" && grep -H '^#include "[a-z]*/' $(find . -name '*.[ch]' | sort)) | sed 's|^\./||' |
while IFS= read -r line; do
	file=${line%%:*} from=${line%%/*} to=${line#*#include \"} to=${to%%/*}
	[ "$from" = "$to" ] && continue
	rf=$(rank "$from") rt=$(rank "$to")
	if [ -n "$rf" ] && [ -n "$rt" ] && [ "$rt" -lt "$rf" ]; then
		echo "src/$file: includes $to/, which is above $from/ in docs/architecture.md's order"
		exit 1
	fi
done || fail=1
check "run lifecycle outside src/record/session.c" \
	'(^|[^_A-Za-z0-9])(lr_spool_lock|lr_spool_unlock|lr_store_run_begin|lr_store_run_finish)[ \t]*\(' \
	'store/|record/session\.c|record/spool\.[ch]'

# Command files: every non-static function is an entry point of the command table.
# A command too big for one file is split into cmd/NAME.c and cmd/NAME-PART.c,
# which share cmd_NAME_* functions through cmd/NAME-int.h and nothing else.
entries=$(grep -o 'cmd_[a-z_]*' "$src/cmd/labrun.c" | sort -u)
for f in $(cd "$src" && ls cmd/*.c); do
	case $f in cmd/common.c|cmd/open.c|cmd/render.c|cmd/options.c|cmd/print.c|cmd/labrun.c) continue ;; esac
	name=$(basename "$f" .c | sed 's/-.*//')
	for fn in $(grep -v ';[ \t]*$' "$src/$f" | grep -o '^[a-z][a-z_ ]*[ *]cmd_[a-z_]*(' | sed 's/.*\(cmd_[a-z_]*\)(/\1/'); do
		case $fn in "cmd_${name}_"*) [ -f "$src/cmd/$name-int.h" ] && continue ;; esac
		if ! printf '%s\n' $entries | grep -qx "$fn"; then
			echo "src/$f: defines $fn, which is not a command: move what commands share to common.c or print.c"
			fail=1
		fi
	done
done

# Build products do not belong in git (make builds them; make clean deletes them).
if git -C "$src/.." rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	tracked=$(git -C "$src/.." ls-files '*.o' '*.a' '*.so' '*.so.*' | head -5)
	if [ -n "$tracked" ]; then
		echo "build products tracked by git: $tracked"
		fail=1
	fi
fi

# Function lengths: from a definition's first line to its closing brace in column 0.
cat > "$tmp/fnlen.awk" <<'AWK'
FNR == 1 { infn = 0; sig = 0 }
!infn && /^[A-Za-z_]/ && !/;[ \t]*$/ && !/^(struct|enum|union|typedef)[^(]*$/ { if (!sig) { sig = FNR; name = $0 } }
!infn && (/^$/ || /;[ \t]*$/ || /^#/ || /^\}/) { sig = 0 }
/^\{/ && !infn { infn = 1; if (!sig) sig = FNR }
/^\}/ && infn { infn = 0; if (FNR - sig + 1 > 80) { printf "%s:%d: function of %d lines (at most 80): %s\n", FILENAME, sig, FNR - sig + 1, name; bad = 1 }; sig = 0 }
END { exit bad }
AWK
(cd "$src/.." && awk -f "$tmp/fnlen.awk" $(cd "$src/.." && find src -name '*.c' ! -name schema-sql.c | sort)) || fail=1
for f in $(cd "$src/.." && find src -name '*.[ch]' ! -name 'schema*-sql.c' | sort); do
	n=$(wc -l < "$src/../$f")
	if [ "$n" -gt 600 ]; then
		echo "$f: $n lines (at most 600): move a concern into a file of its own"
		fail=1
	fi
done

[ "$fail" = 0 ] && echo "layers: ok; each folder uses only those after it: $(echo $order)"
exit $fail
