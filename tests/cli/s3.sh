# Sourced by the S3 remote tests after lib.sh: a throwaway S3 server of the test's own (moto's
# server mode, from the Python on PATH that has moto and boto3, listening on 127.0.0.1 only, its
# request signatures checked), stopped by its pid when the test ends. It makes an IAM user with an
# access key allowed s3:* and buckets 'lab' and 'lab-evidence'. Sets S3_URL (the endpoint), S3_KEY and S3_SECRET (the
# key, made here, so the repository scans clean), and s3py (boto3 against the server, as that user).
S3PY=$(command -v python3)
if ! "$S3PY" -c 'import moto.server, boto3' 2>/dev/null; then
	echo "1..0 # SKIP no moto and boto3 in the python3 on PATH (this machine image carries both)"
	exit 77
fi
S3D=$(mktemp -d /tmp/lr-s3.XXXXXX)
S3_PORT=$("$S3PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
S3_URL="http://127.0.0.1:$S3_PORT"
# four requests unsigned (the user, its key, its policy, the policy attached), then every one checked
INITIAL_NO_AUTH_ACTION_COUNT=4 "$S3PY" "$TOP_SRCDIR/tests/cli/s3-server.py" -H 127.0.0.1 -p "$S3_PORT" \
	>"$S3D/log" 2>&1 &
S3_PID=$!
s3_stop() { kill "$S3_PID" 2>/dev/null; wait "$S3_PID" 2>/dev/null || true; }
cleanup() { s3_stop; rm -rf "$T" "$S3D"; }
i=0
until "$S3PY" -c "import urllib.request as u; u.urlopen('$S3_URL/moto-api/')" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 600 ] && kill -0 "$S3_PID" 2>/dev/null || { cat "$S3D/log" >&2; fail "the S3 server did not start"; }
	sleep 0.1
done
"$S3PY" - "$S3_URL" >"$S3D/key" <<'PY' || { cat "$S3D/log" >&2; fail "cannot make the S3 user and bucket"; }
import json, sys
import boto3
url = sys.argv[1]
iam = boto3.client("iam", endpoint_url=url, region_name="us-east-1", aws_access_key_id="setup",
                   aws_secret_access_key="setup")
iam.create_user(UserName="lab")
key = iam.create_access_key(UserName="lab")["AccessKey"]
policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
arn = iam.create_policy(PolicyName="s3-all", PolicyDocument=json.dumps(policy))["Policy"]["Arn"]
iam.attach_user_policy(UserName="lab", PolicyArn=arn)
s3 = boto3.client("s3", endpoint_url=url, region_name="us-east-1", aws_access_key_id=key["AccessKeyId"],
                  aws_secret_access_key=key["SecretAccessKey"])
s3.create_bucket(Bucket="lab")
s3.create_bucket(Bucket="lab-evidence")  # docs/remote.md's
print(key["AccessKeyId"], key["SecretAccessKey"])
PY
read -r S3_KEY S3_SECRET <"$S3D/key"
rm -f "$S3D/key"
export AWS_ACCESS_KEY_ID="$S3_KEY" AWS_SECRET_ACCESS_KEY="$S3_SECRET"
unset AWS_SESSION_TOKEN AWS_PROFILE AWS_ENDPOINT_URL AWS_REGION AWS_DEFAULT_REGION
s3py() { "$S3PY" - "$S3_URL" "$@"; } # a script on stdin; sys.argv[1] the endpoint
# Parts of objects under bucket 'lab', prefix $1, the server has logged a PUT of since its log was emptied.
s3_parts() { grep -ac "PUT /lab/$1objects/[0-9a-f]*?partNumber=" "$S3D/log" || true; }
# Empty the log, run a push (the words after the first two) in the background and kill it once the
# server logged $2 parts under prefix $1; then the parts it holds of that prefix's unfinished uploads,
# as boto3 lists them (the most of any upload), in $held.
s3_kill_push_after() {
	prefix=$1 want=$2
	shift 2
	: >"$S3D/log"
	"$@" >/dev/null 2>&1 &
	kp=$!
	i=0
	until [ "$(s3_parts "$prefix")" -ge "$want" ] || ! kill -0 $kp 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 6000 ] || fail "the push did not send $want parts in ten minutes"
		sleep 0.1
	done
	kill -9 $kp 2>/dev/null || true
	wait $kp 2>/dev/null || true
	held=$(s3py "$prefix" <<'PY'
import sys
import boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
ups = s3.list_multipart_uploads(Bucket="lab", Prefix=sys.argv[2] + "objects/").get("Uploads", [])
print(max([len(s3.list_parts(Bucket="lab", Key=u["Key"], UploadId=u["UploadId"], MaxParts=1000).get("Parts", []))
           for u in ups] or [0]))
PY
)
}
# s3_proxy MODE: a fault proxy (tests/cli/s3-faults.py) in front of the server, in MODE (written to
# $T/mode, which the test may change), passing each request after 2 refusals in 'storm' mode; sets
# P_PORT and P_PID, and stops it with the server.
s3_proxy() {
	P_PORT=$("$S3PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	echo "$1" >"$T/mode"
	"$S3PY" "$TOP_SRCDIR/tests/cli/s3-faults.py" "$P_PORT" "$S3_PORT" "$T/mode" 2 2>"$T/proxy.log" &
	P_PID=$!
	cleanup() { kill "$P_PID" 2>/dev/null; s3_stop; rm -rf "$T" "$S3D"; }
	i=0
	until "$S3PY" -c "import socket; socket.create_connection(('127.0.0.1', $P_PORT)).close()" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 600 ] && kill -0 "$P_PID" 2>/dev/null || fail "the fault proxy did not start"
		sleep 0.1
	done
}
