# Sourced by the RADOS Gateway tests after lib.sh: a throwaway one-node Ceph cluster of the test's
# own (one monitor, one OSD keeping its objects in memory (memstore), one radosgw), its files under a
# temporary directory, listening on 127.0.0.1 only, run as an unprivileged user (nobody, when the
# test runs as root), and stopped by the pids it started. No cephx: nothing else can reach it.
# Sets RGW_URL (the S3 endpoint), S3_KEY and S3_SECRET (a user made here), and s3py (boto3 against
# the gateway, as that user); rgw_stop and rgw_start stop and start the gateway alone (the cluster
# keeps what it holds); rgw_log is its request log. Needs Debian's radosgw, ceph-mon, ceph-osd and
# ceph-common (build-aux/install-deps --ci), and boto3 in the python3 on PATH. RGW_FRONTEND_OPTS
# adds options to the gateway's beast frontend (tcp_nodelay=1, say, to compare in a benchmark).
for b in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph; do
	if ! command -v "$b" >/dev/null; then
		echo "1..0 # SKIP no $b: install Debian's radosgw ceph-mon ceph-osd ceph-common (build-aux/install-deps --ci)"
		exit 77
	fi
done
S3PY=$(command -v python3)
"$S3PY" -c 'import boto3' 2>/dev/null || { echo "1..0 # SKIP no boto3 in the python3 on PATH"; exit 77; }
CEPHD=$(mktemp -d /tmp/lr-ceph.XXXXXX)
mkdir -p "$CEPHD/run" "$CEPHD/log" "$CEPHD/mon.a" "$CEPHD/osd.0" "$CEPHD/rgw.a"
# the daemons never run as root; setpriv execs, so a daemon started as '$AS_CEPH daemon ... &' has $! as its pid
AS_CEPH=""
[ "$(id -u)" != 0 ] || AS_CEPH="setpriv --reuid=nobody --regid=nogroup --clear-groups --"
as_ceph() { $AS_CEPH "$@"; }
[ "$(id -u)" = 0 ] && chown -R nobody:nogroup "$CEPHD"
ports=$("$S3PY" -c 'import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
set -- $ports
RGW_PORT=$1 MON_PORT=$2 MON_V1_PORT=$3
RGW_URL="http://127.0.0.1:$RGW_PORT"
CONF="$CEPHD/ceph.conf"
cat >"$CONF" <<CONF
[global]
fsid = $(cat /proc/sys/kernel/random/uuid)
mon host = [v2:127.0.0.1:$MON_PORT,v1:127.0.0.1:$MON_V1_PORT]
public addr = 127.0.0.1
cluster addr = 127.0.0.1
# no cephx on a throwaway loopback cluster; 'none' speaks only crc, not the daemons' default 'secure'
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc
ms client mode = crc
ms mon cluster mode = crc
ms cluster mode = crc
run dir = $CEPHD/run
crash dir = $CEPHD/run
exec dir = $CEPHD/run
log file = $CEPHD/log/\$name.log
admin socket = $CEPHD/run/\$name.asok
pid file = $CEPHD/run/\$name.pid
mon cluster log file = $CEPHD/log/cluster.log
log to stderr = false
mon allow pool size one = true
mon warn on pool no redundancy = false
# the test disk may be fuller than a monitor likes; the cluster holds its objects in memory
mon data avail warn = 1
mon data avail crit = 0
mon max pg per osd = 1000
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
# one consensus round per pool the gateway makes at its first start: 1.6 s in all instead of 12
paxos propose interval = 0.05
paxos min wait = 0.01

[mon]
mon data = $CEPHD/mon.\$id

[osd]
osd data = $CEPHD/osd.\$id
osd objectstore = memstore
memstore device bytes = ${RGW_MEMSTORE_BYTES:-1073741824}
osd class load list = *
osd class default list = *
osd fast shutdown = true

[client.rgw.a]
rgw data = $CEPHD/rgw.a
rgw frontends = beast endpoint=127.0.0.1:$RGW_PORT${RGW_FRONTEND_OPTS:+ $RGW_FRONTEND_OPTS}
rgw thread pool size = 64
CONF
[ "$(id -u)" = 0 ] && chown nobody:nogroup "$CONF"
ceph_() { as_ceph timeout 10 ceph -c "$CONF" --connect-timeout 5 "$@"; }
# wait_until WHAT COMMAND...: up to 60 s
wait_until() {
	what=$1
	shift
	i=0
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 300 ] || { tail -n 20 "$CEPHD"/log/*.out >&2; fail "the Ceph cluster: $what"; }
		sleep 0.2
	done
}
MON_PID="" OSD_PID="" RGW_PID=""
ceph_kill() { # a daemon by its pid: TERM, then KILL after 5 s
	[ -n "$1" ] || return 0
	kill "$1" 2>/dev/null || return 0
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 50 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	kill -9 "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}
rgw_stop() { ceph_kill "$RGW_PID"; RGW_PID=""; }
rgw_up() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$RGW_URL/")" = 200 ]; }
rgw_start() {
	$AS_CEPH radosgw -f -c "$CONF" -n client.rgw.a </dev/null >>"$CEPHD/log/rgw.out" 2>&1 &
	RGW_PID=$!
	wait_until "radosgw on $RGW_URL" rgw_up
}
ceph_stop() { rgw_stop; ceph_kill "$OSD_PID"; ceph_kill "$MON_PID"; }
cleanup() { ceph_stop; rm -rf "$T" "$CEPHD"; }
rgw_log="$CEPHD/log/client.rgw.a.log"

as_ceph monmaptool --create --fsid "$(sed -n 's/^fsid = //p' "$CONF")" \
	--addv a "[v2:127.0.0.1:$MON_PORT,v1:127.0.0.1:$MON_V1_PORT]" --enable-all-features \
	--set-min-mon-release pacific "$CEPHD/monmap" >"$CEPHD/log/monmap.out" 2>&1 || fail "monmaptool"
as_ceph ceph-mon -c "$CONF" --mkfs -i a --monmap "$CEPHD/monmap" >"$CEPHD/log/mon-mkfs.out" 2>&1 ||
	{ cat "$CEPHD/log/mon-mkfs.out" >&2; fail "ceph-mon --mkfs"; }
$AS_CEPH ceph-mon -f -c "$CONF" -i a </dev/null >"$CEPHD/log/mon.out" 2>&1 &
MON_PID=$!
wait_until "the monitor's quorum" ceph_ quorum_status
OSD_UUID=$(cat /proc/sys/kernel/random/uuid)
[ "$(ceph_ osd new "$OSD_UUID")" = 0 ] || fail "the Ceph cluster: ceph osd new"
as_ceph ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$OSD_UUID" >"$CEPHD/log/osd-mkfs.out" 2>&1 ||
	{ cat "$CEPHD/log/osd-mkfs.out" >&2; fail "ceph-osd --mkfs"; }
$AS_CEPH ceph-osd -f -c "$CONF" -i 0 </dev/null >"$CEPHD/log/osd.out" 2>&1 &
OSD_PID=$!
osd_up() { ceph_ osd dump | grep -q '^osd\.0 up'; }
wait_until "osd.0 up" osd_up
rgw_start
S3_KEY=$("$S3PY" -c 'import secrets; print("LR" + secrets.token_hex(9).upper())')
S3_SECRET=$("$S3PY" -c 'import secrets; print(secrets.token_urlsafe(30))') # made here: the repository scans clean
as_ceph radosgw-admin -c "$CONF" -n client.admin user create --uid=lab --display-name=lab \
	--access-key="$S3_KEY" --secret="$S3_SECRET" >"$CEPHD/log/user.out" 2>&1 ||
	{ cat "$CEPHD/log/user.out" >&2; fail "radosgw-admin user create"; }
export AWS_ACCESS_KEY_ID="$S3_KEY" AWS_SECRET_ACCESS_KEY="$S3_SECRET"
unset AWS_SESSION_TOKEN AWS_PROFILE AWS_ENDPOINT_URL AWS_REGION AWS_DEFAULT_REGION
s3py() { "$S3PY" - "$RGW_URL" "$@"; } # a script on stdin; sys.argv[1] the endpoint
s3py <<'PY' || fail "cannot make the buckets"
import sys
import boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
s3.create_bucket(Bucket="lab")
s3.create_bucket(Bucket="lab-evidence")
PY
