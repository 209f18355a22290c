#!/bin/sh
# labrun scan: one planted secret of each kind is found at FILE:LINE, baselined ones are not
# reported, fingerprints survive edits elsewhere, --changed scans only what changed, and
# manifest and archive refuse a run holding a new finding unless --allow-findings.
# The secrets are made here, not committed: the repository itself scans clean.
. "$(dirname "$0")/lib.sh"

a36=$(printf 'a%.0s' $(seq 36))
mkdir tree
printf 'first line\n-----BEGIN %s PRIVATE KEY-----\nMIIE\n' RSA >tree/key.pem
{
	echo "github = ghp_$a36"
	echo "gitlab = glpat-$(printf 'b%.0s' $(seq 20))"
	echo "aws = AKIA$(printf 'C%.0s' $(seq 16))"
	echo "slack = xoxb-$(printf '1%.0s' $(seq 12))"
	echo "hf = hf_$(printf 'd%.0s' $(seq 34))"
	echo "openai = sk-$(printf 'e%.0s' $(seq 40))"
	echo "google = AIza$(printf 'f%.0s' $(seq 35))"
	echo "db = postgres://app:hunter$((20 + 2))@db.lab.example/kv"
	echo "placeholder = postgres://app:\${DB_PASSWORD}@db.lab.example/kv"
	echo "host = 10.20.30.40"
} >tree/tokens.txt
printf 'machine hub.example login me password pw\n' >tree/.netrc
printf 'nothing to see\n' >tree/clean.txt
: >tree/empty.txt # an empty file maps to NULL: UBSan caught arithmetic on it

expect_exit 1 "a tree with planted secrets fails the scan" "$LABRUN" scan tree --internal '10\.20\.[0-9]+\.[0-9]+'
for want in "tree/key.pem:2: private-key" "tree/tokens.txt:1: github-token" "tree/tokens.txt:2: gitlab-token" \
	"tree/tokens.txt:3: aws-access-key" "tree/tokens.txt:4: slack-token" "tree/tokens.txt:5: huggingface-token" \
	"tree/tokens.txt:6: openai-key" "tree/tokens.txt:7: google-api-key" "tree/tokens.txt:8: url-password" \
	"tree/tokens.txt:10: internal-address" "tree/.netrc:1: credential-file"; do
	contains "$T/out" "$want" "found: $want"
done
lacks "$T/out" "tree/tokens.txt:9:" "a \${VAR} standing in for a password is not a finding"
lacks "$T/out" "hunter22" "the matched text is never printed"
equals "$(wc -l <"$T/out" | tr -d ' ')" "11" "exactly the eleven planted findings"
contains "$T/err" "11 finding(s): 11 new, 0 baselined" "the summary counts them"

# the formats labrun's own docs tell users to write, and what scanners of the gitleaks kind find by
# keyword; each at its line. The values are made here, so the repository scans clean.
pw=$(printf 'Zq7-%s' pW2x) tok=$(printf 'Tq93kLmZ%s' 0vXa81bCw2)
mkdir tree2
{
	echo "conninfo = host=db.example password=$pw dbname=evidence"
	echo "db.example.org:5432:evidence:alice:$pw"
	echo "export PGPASSWORD=$pw"
	echo "url = postgresql://alice:pa/$pw@db.example/evidence"
	echo "jwt = eyJhbGciOiJIUzI1NiJ9.$(printf 'eyJzdWIiOiIxMjM0NTY3ODkwIn0').dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	echo "app = xa$(printf 'pp-1-A0123456789-1234567890123-abcdef0123456789')"
	echo "hook = https://hooks.slack.com/services/T00000000/B00000000/$tok"
	echo "  api_key: $tok"
	echo "{\"client_secret\": \"$tok\"}"
	echo "cache = redis://:$pw@cache.example:6379/0"
} >tree2/config.txt
{
	echo "url = postgresql://alice:\${PGPASSWORD}@db.example/evidence"
	echo "password = <your password>"
	echo "password=args.password"
	echo "max_tokens = 256"
	echo '"tokens": [151644, 872], "output_tokens": 2'
	echo "https://host.example:8080/path/x@y"
	echo "fe80:0:0:0:1"
	echo "\"key_sha256\": \"$(printf x | sha256sum | cut -c1-64)\""
	echo "token_sha256=$(printf y | sha256sum | cut -c1-64)"
} >tree2/lookalike.txt
expect_exit 1 "each format is found" "$LABRUN" scan tree2
n=0
# the last, a URL with an empty user (redis://:PASSWORD@host), was missed: the rule wanted a user
for want in keyword-assigned pgpass-line keyword-assigned url-password jwt slack-token slack-webhook keyword-assigned \
	keyword-assigned url-password; do
	n=$((n + 1))
	contains "$T/out" "tree2/config.txt:$n: $want" "found at line $n: $want"
done
lacks "$T/out" "lookalike.txt" "none of the look-alikes is a finding"
lacks "$T/out" "$pw" "the matched text is never printed"

expect_exit 0 "accept them in a baseline" "$LABRUN" scan tree --internal '10\.20\.[0-9]+\.[0-9]+' --write-baseline base.txt
expect_exit 0 "baselined findings pass" "$LABRUN" scan tree --internal '10\.20\.[0-9]+\.[0-9]+' --baseline base.txt
equals "$(cat "$T/out")" "" "and are not reported"
# a line added above moves every finding; the fingerprints do not change
{ echo "a new first line"; cat tree/tokens.txt; echo "aws2 = ASIA$(printf 'G%.0s' $(seq 16))"; } >tree/t && mv tree/t tree/tokens.txt
expect_exit 1 "a new finding fails" "$LABRUN" scan tree --internal '10\.20\.[0-9]+\.[0-9]+' --baseline base.txt
equals "$(sed 's/ [0-9a-f]\{16\}$//' "$T/out")" "tree/tokens.txt:12: aws-access-key" "only the new one is reported, at its line"
contains "$T/err" "12 finding(s): 1 new, 11 baselined" "the moved findings are still baselined"
cp base.txt .labrun-scan-baseline
expect_exit 1 "the baseline in the working directory is the default" "$LABRUN" scan tree --internal '10\.20\.[0-9]+\.[0-9]+'
contains "$T/err" "1 new, 11 baselined" "used"
rm .labrun-scan-baseline

# --changed: only files that differ from a revision
make_repo repo
cp tree/key.pem repo/old-key.pem
git -C repo add old-key.pem && git -C repo commit -qm key
expect_exit 0 "nothing changed since HEAD: nothing to find" sh -c 'cd repo && "$LABRUN" scan --changed HEAD'
echo "token = ghp_$a36" >repo/new.txt
expect_exit 1 "an untracked file with a token is found" sh -c 'cd repo && "$LABRUN" scan --changed HEAD'
contains "$T/out" "new.txt:1: github-token" "at its line"
lacks "$T/out" "old-key.pem" "the committed, unchanged key is not scanned"
# a finding accepted in a baseline stays accepted under --changed: it compared absolute paths with
# the baseline's relative ones, so the finding was new again once its file changed
expect_exit 0 "accept the new file's finding" sh -c 'cd repo && "$LABRUN" scan . --write-baseline .labrun-scan-baseline'
git -C repo add new.txt && git -C repo commit -qm new
echo "more text" >>repo/new.txt
expect_exit 0 "--changed of the edited file: the finding is baselined" sh -c 'cd repo && "$LABRUN" scan --changed HEAD'
contains "$T/err" "1 finding(s): 0 new, 1 baselined" "baselined, not new"
mkdir -p repo/sub && echo "token = ghp_$a36" >repo/sub/t.txt
expect_exit 1 "from a subdirectory, paths are relative to it" sh -c 'cd repo/sub && "$LABRUN" scan --changed HEAD'
contains "$T/out" "t.txt:1: github-token" "named from where the scan runs"
contains "$T/out" "../new.txt:1: github-token" "and a file above it with ../"
rm -r repo/sub repo/.labrun-scan-baseline
expect_exit 2 "an unknown revision is refused" sh -c 'cd repo && "$LABRUN" scan --changed no-such-rev'
contains "$T/err" "no such revision" "named"

# publication: manifest and archive scan the runs and refuse new findings
"$LABRUN" record -q --issue 7 -- sh -c "echo 'token ghp_$a36'" >/dev/null 2>&1
expect_exit 1 "scan --run finds the token in the stored log" "$LABRUN" scan --run last
contains "$T/out" "run-1/stdout:1: github-token" "named by run and log"
contains "$T/out" "run-1/run.json:" "and in the recorded command line"
expect_exit 1 "manifest refuses a run holding a new finding" "$LABRUN" manifest --run last -o crate
contains "$T/err" "run-1/stdout:1: github-token" "the finding is listed"
contains "$T/err" "refusing to write the crate: the scan has 2 new finding(s)" "and the refusal says why"
[ ! -e crate ] || fail "a crate was written"
ok "no crate was written"
expect_exit 1 "so does archive" "$LABRUN" archive --issue 7 -o a.tar.zst
[ ! -e a.tar.zst ] || fail "an archive was written"
ok "no archive was written"
expect_exit 0 "--allow-findings publishes anyway, with a warning" "$LABRUN" manifest --run last -o crate --allow-findings
contains "$T/err" "2 new scan finding(s) published (--allow-findings)" "warned"
expect_exit 0 "accepting the finding in the baseline" "$LABRUN" scan --run last --write-baseline .labrun-scan-baseline
expect_exit 0 "lets archive publish" "$LABRUN" archive --issue 7 -o a.tar.zst

# labrun's own crates: hashes, public keys, signatures and envelopes are never findings
"$LABRUN" key init >/dev/null 2>&1 || fail "key init"
"$LABRUN" record -q -- true >/dev/null 2>&1 || fail "a signed run"
expect_exit 0 "a crate of a signed run is written: it scans clean" "$LABRUN" manifest --run last -o own-crate
expect_exit 0 "and scanning it finds nothing" "$LABRUN" scan own-crate
contains "$T/err" "0 finding(s)" "zero findings"
