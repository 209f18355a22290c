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
#     what commands share lives in the shared files (errors.c, cancel.c,
#     common.c, progress.c, open.c, options.c), so no command file calls
#     into another; what they print is src/report/'s.
#  7. No build product is tracked by git.
#  8. In src/cmd/, struct cmd_parse is filled by name, and what a header
#     declares is used beyond the file that defines it.
#  9. What a file exports carries its layer's prefix: cmd_ in src/cmd/ (and
#     main), lr_ everywhere else, and db_ for what src/store/ shares inside
#     itself (store-int.h), so a name says where it lives.
# Comments and string literals are left out (the preprocessor strips comments
# without expanding includes), so a rule is about code, not prose.
set -eu
src=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/src
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# Every source file once through gcc's preprocessor with -fpreprocessed, which
# strips comments and expands nothing (clang has no such mode, hence gcc even
# when CC is clang); its line markers say which file and line each is. One
# input with a line marker per file: one compiler process, not one per file.
files=$(cd "$src" && find . -name '*.[ch]' ! -name 'schema*-sql.c' ! -name '*-py.c' | sed 's|^\./||' | sort)
(cd "$src" && for f in $files; do printf '# 1 "%s"\n' "$f"; cat "$f"; done | gcc -w -fpreprocessed -dD -E -x c -) \
	> "$tmp/all.i" 2> "$tmp/pp.err" || {
	echo "layers: gcc -fpreprocessed failed:"; cat "$tmp/pp.err"; exit 1
}
[ "$(grep -c '^# 1 "' "$tmp/all.i")" -ge "$(echo $files | wc -w)" ] || {
	echo "layers: the preprocessor did not return every file"; exit 1
}

cat > "$tmp/match.awk" <<'AWK'
/^# [0-9]+ "/ { line = $2 - 1; f = $3; gsub(/"/, "", f); next }
f ~ allowed { next }
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
	awk -v rule="$1" -v re="$2" -v allowed="^($3)" -f "$tmp/match.awk" "$tmp/all.i" || fail=1
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
# Each folder named in the order, each of its files in its section (a .h
# with a .c of the same name is listed with it).
{ printf '%s\n' $files | sed 's/^/FILE /'; (cd "$src" && ls -d */) | sed 's/^/DIR /'
  (cd "$src" && find . -type f | sed 's|^\./|ANY |'); } |
	awk -v order="$order" -v map="$map" '
	BEGIN {
		n = split(order, o, "[ \n]+"); for (i = 1; i <= n; i++) named[o[i]] = 1
		while ((getline line < map) > 0) {
			if (line ~ /^### `src\/[a-z]+\/`/) { sec = line; sub(/^### `src\//, "", sec); sub(/\/.*/, "", sec); continue }
			if (line ~ /^#/) { sec = ""; continue }
			if (sec != "" && line ~ /^\* `[^`]+`/) { f = line; sub(/^\* `/, "", f); sub(/`.*/, "", f); listed[sec "/" f] = 1 }
		}
	}
	$1 == "ANY" { any[$2] = 1; next }
	$1 == "DIR" { d = $2; sub(/\/$/, "", d); present[d] = 1; if (!(d in named)) { printf "src/%s/: a folder docs/architecture.md does not name: add it to the layer diagram, in its place\n", d; bad = 1 } next }
	{ have[$2] = 1; all[++nf] = $2 }
	END {
		for (i = 1; i <= nf; i++) {
			f = all[i]; d = f; sub(/\/.*/, "", d); b = f; sub(/^[^\/]*\//, "", b)
			if (!(d in named)) continue
			if (b ~ /\.h$/) { c = f; sub(/\.h$/, ".c", c); if (c in have) continue }
			if (!((d "/" b) in listed)) { printf "src/%s: not listed in docs/architecture.md (section `src/%s/`): say what it is for\n", f, d; bad = 1 }
		}
		for (l in listed)
			if (!(l in any) && (substr(l, 1, index(l, "/") - 1) in present))
				{ printf "docs/architecture.md lists src/%s, which does not exist: take it off the map\n", l; bad = 1 }
		exit bad
	}' || fail=1
# Every include between folders points down the order.
(cd "$src" && grep -H '^#include "[a-z]*/' $files) |
	awk -v order="$order" 'BEGIN { n = split(order, o, "[ \n]+"); for (i = 1; i <= n; i++) rank[o[i]] = i }
	{
		file = $0; sub(/:.*/, "", file)
		from = file; sub(/\/.*/, "", from)
		to = $0; sub(/^[^"]*"/, "", to); sub(/\/.*/, "", to)
		if (from != to && (from in rank) && (to in rank) && rank[to] < rank[from]) {
			printf "src/%s: includes %s/, which is above %s/ in docs/architecture.md'"'"'s order\n", file, to, from
			bad = 1
		}
	}
	END { exit bad }' || fail=1
check "run lifecycle outside src/record/session.c" \
	'(^|[^_A-Za-z0-9])(lr_spool_lock|lr_spool_unlock|lr_store_run_begin|lr_store_run_finish)[ \t]*\(' \
	'store/|record/session\.c|record/spool\.[ch]'

# Command files: every non-static function is an entry point of the command table.
# A command too big for one file is split into cmd/NAME.c and cmd/NAME-PART.c,
# which share cmd_NAME_* functions through cmd/NAME-int.h and nothing else.
entries=$(grep -o 'cmd_[a-z_]*' "$src/cmd/labrun.c" | sort -u)
for f in $(cd "$src" && ls cmd/*.c); do
	case $f in cmd/common.c|cmd/errors.c|cmd/cancel.c|cmd/open.c|cmd/options.c|cmd/progress.c|cmd/labrun.c) continue ;; esac
	name=$(basename "$f" .c | sed 's/-.*//')
	for fn in $(grep -v ';[ \t]*$' "$src/$f" | grep -o '^[a-z][a-z_ ]*[ *]cmd_[a-z_]*(' | sed 's/.*\(cmd_[a-z_]*\)(/\1/'); do
		case $fn in "cmd_${name}_"*) [ -f "$src/cmd/$name-int.h" ] && continue ;; esac
		if ! printf '%s\n' $entries | grep -qx "$fn"; then
			echo "src/$f: defines $fn, which is not a command: move what commands share to common.c, or what they print to src/report/"
			fail=1
		fi
	done
done

# A command's parse is filled by name: by position, a field added to struct cmd_parse would shift
# every command's meaning without a warning.
check "struct cmd_parse filled by position (name each field: { .cmd = ..., .usage = ... })" \
	'struct[ \t]+cmd_parse[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*=[ \t]*\{[ \t]*[^. \t}]' 'no file/'

# What the headers of cmd/ declare is used beyond the file that defines it: a helper only its own
# file calls is static there (options.h once declared three such).
awk '/^# [0-9]+ "/ { f = $3; gsub(/"/, "", f); next }
	f ~ /^cmd\/.*\.h$/ && match($0, /^[a-z][a-z0-9_ ]*[ *]cmd_[a-z0-9_]+\(/) {
		d = substr($0, RSTART, RLENGTH - 1); sub(/.*[ *]/, "", d); declared[d] = f
	}
	f ~ /^cmd\/.*\.c$/ {
		line = $0
		while (match(line, /cmd_[a-z0-9_]+/)) {
			t = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
			if (!((t, f) in seen)) { seen[t, f] = 1; files[t]++ }
		}
	}
	END {
		for (d in declared)
			if (files[d] < 2) { printf "src/%s: declares %s, which only the file that defines it uses: make it static there\n", declared[d], d; bad = 1 }
		exit bad
	}' "$tmp/all.i" || fail=1

# Exported names carry their layer's prefix (store/dir.c once exported store_is_dir and
# store_make_layout). No file defines another library's function under its name: that would
# replace it for the whole process (record/gitsrc.c once stood in for mbedTLS's CA loader).
unprefixed=$(for f in $files; do
	case $f in *.c) ;; *) continue ;; esac
	case $f in cmd/*) want='cmd_|main$' ;; store/*) want='lr_|db_' ;; *) want='lr_' ;; esac
	grep -v ';[ \t]*$' "$src/$f" | grep -E '^[A-Za-z_][A-Za-z0-9_ ]*[ *]+[A-Za-z_][A-Za-z0-9_]*\(' |
		grep -vE '^(static|typedef)[ \t]' | sed -E 's/^[^(]*[ *]([A-Za-z_][A-Za-z0-9_]*)\(.*/\1/' |
		grep -vE "^($want)" | sed "s|^|src/$f: |"
done)
if [ -n "$unprefixed" ]; then
	printf '%s\n' "$unprefixed" | sed 's/$/: exported without its layer'"'"'s prefix (make it static, or name it cmd_, lr_ or, inside store\/, db_)/'
	fail=1
fi

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
(cd "$src/.." && awk -f "$tmp/fnlen.awk" $(cd "$src/.." && find src -name '*.c' ! -name 'schema*-sql.c' ! -name '*-py.c' | sort)) || fail=1
(cd "$src" && wc -l $files) | awk '$2 != "total" && $1 > 600 { printf "src/%s: %d lines (at most 600): move a concern into a file of its own\n", $2, $1; bad = 1 } END { exit bad }' || fail=1

[ "$fail" = 0 ] && echo "layers: ok; each folder uses only those after it: $(echo $order)"
exit $fail
