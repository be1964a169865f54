#!/usr/bin/env bash
# Installs PostgreSQL from Debian's packages and starts a throw-away server on
# loopback for the store and service tests. Progress goes to stderr; stdout is
# a single line for the caller to evaluate:
#
#   eval "$(bash .ci/postgres.sh)"   # exports CBANDIT_TEST_POSTGRES
#
# It also exports CBANDIT_TEST_PG_CTL (pg_ctl's path) and CBANDIT_TEST_PG_DATA
# (the data directory) for the outage test, which stops and restarts the
# server (service's TestOutagePostgres: run it alone, see .ci/run).
#
# Environment: CBANDIT_PG_PORT (default 55432), CBANDIT_PG_DIR (default
# /tmp/cbandit-pg). The server listens on 127.0.0.1 only and trusts local
# connections; its settings are in its postgresql.conf, so that
#   runuser -u postgres -- "$CBANDIT_TEST_PG_CTL" -D "$CBANDIT_TEST_PG_DATA" -w start
# starts it again after
#   runuser -u postgres -- "$CBANDIT_TEST_PG_CTL" -D "$CBANDIT_TEST_PG_DATA" stop
set -euo pipefail
port="${CBANDIT_PG_PORT:-55432}"
dir="${CBANDIT_PG_DIR:-/tmp/cbandit-pg}"
log() { echo "postgres.sh: $*" >&2; }

if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
	log "installing postgresql"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update >&2
	apt-get install -y --no-install-recommends postgresql >&2
fi
bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
log "using $bin"

if runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
	log "stopping the server left in $dir"
	runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m immediate stop >&2 || true
fi
rm -rf "$dir"
mkdir -p "$dir"
chown postgres:postgres "$dir"
runuser -u postgres -- "$bin/initdb" -D "$dir/data" -A trust -U postgres >&2
cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
fsync = on
synchronous_commit = on
max_connections = 200
CONF
runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >&2
log "PostgreSQL listening on 127.0.0.1:$port"
echo "export CBANDIT_TEST_POSTGRES='postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable' CBANDIT_TEST_PG_CTL='$bin/pg_ctl' CBANDIT_TEST_PG_DATA='$dir/data'"
