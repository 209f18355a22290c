#!/bin/sh
# Done-when 8: docs/schema.md names every table, column and view, and its
# example queries run.
. "$(dirname "$0")/lib.sh"

doc="$TOP_SRCDIR/docs/schema.md"
[ -f "$doc" ] || fail "docs/schema.md is missing"
make_repo "$T/repo"
cd "$T/repo"
echo x >>tracked.txt
export HF_TOKEN=hf_example_value_0123
"$LABRUN" record -q --issue 270 --experiment encoder205 --geometry model=qwen3-4b --binding device=atom:0 \
	--tool rebel-compiler=0.11.0 -- sh -c 'echo out' >/dev/null 2>&1
"$LABRUN" import --model qwen3-0.6b --tokens 32 >/dev/null 2>&1
"$LABRUN" run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" >/dev/null 2>&1
"$LABRUN" replay -q "$("$LABRUN" sql --csv "SELECT max(id) FROM run WHERE kind = 'experiment'" | sed -n 2p | tr -d '\r')" >/dev/null 2>&1
"$LABRUN" record -q --issue 270 -- false >/dev/null 2>&1 || true

# Every table and view, and every column of each, appears in the doc.
"$LABRUN" sql --csv "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p
	WHERE m.type IN ('table', 'view') ORDER BY 1, 2" | tail -n +2 | tr -d '\r' >"$T/cols"
[ "$(wc -l <"$T/cols")" -gt 50 ] || fail "too few columns listed"
# (one awk: a table's section is its "### `name`" heading down to the next heading)
awk -F, 'NR == FNR {
		if ($0 ~ /^### `[^`]+`$/) { t = $0; gsub(/^### `|`$/, "", t); tables[t] = 1; next }
		if ($0 ~ /^##/) { t = ""; next }
		if (t != "" && $0 ~ /^\| `[^`]+` /) { c = $0; sub(/^\| `/, "", c); sub(/`.*/, "", c); cols[t "." c] = 1 }
		next
	}
	!($1 in tables) { if (!seen[$1]++) printf "table or view '"'"'%s'"'"' not documented\n", $1; bad = 1; next }
	!(($1 "." $2) in cols) { printf "column '"'"'%s.%s'"'"' not documented\n", $1, $2; bad = 1 }
	END { exit bad }' "$doc" "$T/cols" >&2 || fail "docs/schema.md misses tables or columns"
ok "every table, view and column is documented"

# Each ```sql block under "Example queries" runs and returns rows.
awk '/^## Example queries/ {on=1} on && /^```sql$/ {grab=1; q=""; next}
     grab && /^```$/ {grab=0; gsub(/\n/, " ", q); print q; next} grab {q = q " " $0}' "$doc" >"$T/queries"
n=$(wc -l <"$T/queries")
[ "$n" -ge 5 ] || fail "only $n example queries"
while IFS= read -r sql; do
	"$LABRUN" sql "$sql" >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "example query fails: $sql"; }
	[ "$(wc -l <"$T/out")" -ge 3 ] || { cat "$T/out" >&2; fail "example query returns no rows: $sql"; }
done <"$T/queries"
ok "$n example queries run and return rows"

# The "median" example query computes the median labrun report shows (it once computed a mean).
sql=$(awk '/^Median time per execution/ {on=1} on && /^```sql$/ {grab=1; next} grab && /^```$/ {exit} grab' "$doc")
run=$("$LABRUN" sql --csv "SELECT min(id) FROM run WHERE kind = 'experiment'" | sed -n 2p | tr -d '\r')
got=$("$LABRUN" sql --csv "$sql" | awk -F, -v r="$run" 'NR > 1 && $1 == r && $5 == "lookup" { print $7; exit }' | tr -d '\r')
want=$("$LABRUN" report --run "$run" --format json | jq -r '.runs[0].tables[0].rows[0].baseline_median_ms')
awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-7 * b) }' ||
	fail "the median query gives '$got' ms, labrun report '$want' ms"
ok "the median example query agrees with labrun report ($got ms)"
