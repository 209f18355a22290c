#!/bin/sh
# Every C file of src/ and tests/ is laid out as .clang-format says, so a
# change's diff holds what it changes and nothing of someone's editor. The
# files made from SQL and Python (src/store/schema*-sql.c, *-py.c) are built,
# not written. Fix a file with: clang-format -i --style=file FILE
#
# usage: format.sh   (skipped, exit 77, where clang-format is not installed)
set -eu
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
command -v clang-format >/dev/null 2>&1 || { echo "SKIP: clang-format is not installed"; exit 77; }
files=$(find src tests/unit tests/fuzz tests/shim -name '*.[ch]' ! -name 'schema*-sql.c' ! -name '*-py.c' | sort)
if out=$(clang-format --style=file --dry-run -Werror $files 2>&1); then
	echo "ok - $(echo "$files" | wc -l) files laid out as .clang-format says"
	exit 0
fi
echo "$out" | sed -n "s/:[0-9]*:[0-9]*: error: .*//p" | sort -u | sed "s/^/not laid out as .clang-format says: /"
echo "hint: clang-format -i --style=file FILE"
exit 1
