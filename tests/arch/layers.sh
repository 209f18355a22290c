#!/bin/sh
# The architecture, checked: the folders of src/ are layers, and these rules keep them so.
#  1. Only src/cmd/ prints to stdout/stderr or exits: every lower layer returns
#     an error code and a message (base/error.h) and leaves the talking to commands.
#  2. Only src/store/ speaks SQLite: the schema is reached through store/store.h.
#  3. The folders include each other in one direction only: no cycle.
#  4. No function is longer than 120 lines, and the store's core file stays
#     under 600: past that, split by concern.
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

# Folder edges from the #include lines; tsort finds any cycle.
(cd "$src" && grep -H '^#include "[a-z]*/' $(find . -name '*.[ch]' | sort)) |
	sed 's|^\./\([a-z]*\)/[^:]*:#include "\([a-z]*\)/.*|\1 \2|' | awk '$1 != $2' | sort -u > "$tmp/edges"
if ! tsort "$tmp/edges" > "$tmp/order" 2> "$tmp/loops"; then
	echo "folders of src/ include each other in a cycle:"
	cat "$tmp/loops"
	fail=1
fi
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
/^\}/ && infn { infn = 0; if (FNR - sig + 1 > 120) { printf "%s:%d: function of %d lines (at most 120): %s\n", FILENAME, sig, FNR - sig + 1, name; bad = 1 }; sig = 0 }
END { exit bad }
AWK
(cd "$src/.." && awk -f "$tmp/fnlen.awk" $(cd "$src/.." && find src -name '*.c' ! -name schema-sql.c | sort)) || fail=1
core=$(wc -l < "$src/store/core.c")
if [ "$core" -ge 600 ]; then
	echo "src/store/core.c: $core lines (under 600): move a concern into its own store file"
	fail=1
fi

[ "$fail" = 0 ] && echo "layers: ok; each folder uses only those after it: $(tr '\n' ' ' < "$tmp/order")"
exit $fail
