#!/usr/bin/env bash
# Installs PostgreSQL from Debian's packages and starts a throw-away server on
# loopback for the store and service tests. Progress goes to stderr; stdout is
# a single line for the caller to evaluate:
#
#   eval "$(bash .ci/postgres.sh)"   # exports CBANDIT_TEST_POSTGRES
#
# Environment: CBANDIT_PG_PORT (default 55432), CBANDIT_PG_DIR (default
# /tmp/cbandit-pg). The server listens on 127.0.0.1 only and trusts local
# connections; it is stopped with
#   runuser -u postgres -- "$PGBIN/pg_ctl" -D "$CBANDIT_PG_DIR/data" stop
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
runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
	-o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=on -c synchronous_commit=on -c max_connections=200" start >&2
log "PostgreSQL listening on 127.0.0.1:$port"
echo "export CBANDIT_TEST_POSTGRES='postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable'"
