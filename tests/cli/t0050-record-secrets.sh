#!/bin/sh
# Done-when 6: a secret's value appears nowhere under the store.
. "$(dirname "$0")/lib.sh"

export API_TOKEN=s3cr3t-value
export OMP_NUM_THREADS=4
expect_exit 0 "record a command that prints the secret" \
	"$LABRUN" record --note "token s3cr3t-value" --binding "dev=s3cr3t-value" \
	-- sh -c 'echo "token=$API_TOKEN"; echo "$API_TOKEN" >&2; env' s3cr3t-value
contains "$T/out" "token=s3cr3t-value" "the terminal still sees the real output"
expect_exit 0 "stdout is stored" "$LABRUN" cat last stdout
contains "$T/out" "token=<redacted>" "stored log has the value scrubbed"
equals "$(q "SELECT value || ' ' || redacted FROM env_var WHERE name = 'API_TOKEN'")" "<redacted> 1" \
	"variable recorded as redacted"
equals "$(q "SELECT value FROM env_var WHERE name = 'OMP_NUM_THREADS'")" "4" "allowlisted variable kept"
equals "$(q "SELECT value FROM binding WHERE key = 'omp_num_threads'")" "4" "thread setting in the binding"

echo "key is s3cr3t-value" >leak.txt
expect_exit 125 "an artifact holding the secret is refused" "$LABRUN" record --artifact leak.txt -- true
contains "$T/err" "refusing to store artifact 'leak.txt'" "refusal names the artifact"

# Search everything, the WAL included, then again after a checkpoint.
for when in before after; do
	if grep -rqa "s3cr3t-value" "$T/store"; then
		grep -rla "s3cr3t-value" "$T/store" >&2
		fail "the secret value reached the store ($when the checkpoint)"
	fi
	ok "the value appears nowhere under the store ($when the checkpoint)"
	sqlite3 "$T/store/labrun.db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
done
