#!/usr/bin/env bash
# Runs a command beside a private PostgreSQL from Debian's packages: a fresh cluster in a
# temporary directory (trust authentication, a free port on 127.0.0.1, fsync off), with
# BATON_TEST_PG_URL (and BATON_TEST_PG_CTL, BATON_TEST_PG_DATA, to stop and start it) set,
# then stops the server and removes the directory. As root, the server runs as `postgres`
# (PostgreSQL refuses to run as root).
set -euo pipefail
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[ -x "$bin/initdb" ] || { echo "PostgreSQL's server is not installed (apt-get install postgresql)" >&2; exit 1; }
dir="$(mktemp -d /tmp/baton-pg.XXXXXX)"
chmod 755 "$dir"
as=()
if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; as=(runuser -u postgres --); fi
stop() {
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop > /dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT
"${as[@]}" "$bin/initdb" -D "$dir/data" -A trust -U baton --no-sync > /dev/null
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" start > /dev/null
export BATON_TEST_PG_URL="postgres://baton@127.0.0.1:$port/postgres"
export BATON_TEST_PG_DATA="$dir/data" BATON_TEST_PG_PORT="$port" BATON_TEST_PG_SOCKETS="$dir"
export BATON_TEST_PG_CTL="${as[*]:+${as[*]} }$bin/pg_ctl"
"$@"
