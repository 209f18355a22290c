# Sourced by the remote tests after lib.sh: a throwaway PostgreSQL cluster of the test's
# own (initdb in a temporary directory, run as an unprivileged user, listening on a Unix
# socket only, password authentication), stopped and removed when the test ends.
# Sets PGD (its directory, also the socket's), PG_URI (a labrun remote URI for
# database 'evidence', user 'labrun', no password in it) and ~/.pgpass with the password.
PGBIN=$(pg_config --bindir 2>/dev/null || true)
[ -x "$PGBIN/initdb" ] || PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ ! -x "$PGBIN/initdb" ]; then
	echo "1..0 # SKIP no PostgreSQL server: install Debian's postgresql (build-aux/install-deps --test)"
	exit 77
fi
PGD=$(mktemp -d /tmp/lr-pg.XXXXXX)
chmod 755 "$PGD"
PG_PASSWORD=$(printf "s3cret-%s" $$) # made here: the repository scans clean
as_pg() { # run a server program as an unprivileged user (initdb and postgres refuse root)
	if [ "$(id -u)" = 0 ]; then (cd "$PGD" && runuser -u nobody -- "$@"); else "$@"; fi
}
pg_stop() { as_pg "$PGBIN/pg_ctl" -D "$PGD/data" -m immediate -w stop >/dev/null 2>&1 || true; }
pg_start() { as_pg "$PGBIN/pg_ctl" -D "$PGD/data" -l "$PGD/log" -w -t 60 \
	-o "-k $PGD -c listen_addresses= -c fsync=off -c max_connections=40" start >/dev/null ||
	{ cat "$PGD/log" >&2; fail "cannot start the throwaway PostgreSQL server"; }; }
cleanup() { pg_stop; rm -rf "$T" "$PGD"; }
printf '%s\n' "$PG_PASSWORD" >"$PGD/pw"
[ "$(id -u)" = 0 ] && chown nobody "$PGD" "$PGD/pw"
as_pg "$PGBIN/initdb" -D "$PGD/data" -U labrun --pwfile="$PGD/pw" -A scram-sha-256 -E UTF8 --no-locale \
	>"$PGD/initdb.log" 2>&1 || { cat "$PGD/initdb.log" >&2; fail "initdb"; }
rm -f "$PGD/pw"
pg_start
printf '*:*:*:labrun:%s\n' "$PG_PASSWORD" >"$HOME/.pgpass"
chmod 600 "$HOME/.pgpass"
# psql as the cluster's superuser, for setting up and inspecting the remote
pg_sql() { psql -X -q -A -t -v ON_ERROR_STOP=1 "host=$PGD user=labrun dbname=${PGDB:-evidence}" -c "$1"; }
PGDB=postgres pg_sql "CREATE DATABASE evidence" || fail "create the remote's database"
PG_URI="host=$PGD user=labrun dbname=evidence"
