#!/usr/bin/env bash
# A throwaway PostgreSQL server for the test suite: unix socket only, trust auth, no fsync.
#
#   scripts/pg-test-server.sh start DIR   initdb into DIR/data, start, create aicost_test, print the URL
#   scripts/pg-test-server.sh url DIR     print the URL of the server in DIR
#   scripts/pg-test-server.sh stop DIR    stop it and remove DIR
#
# `start` on a running server only prints the URL. Run as root, the server runs as the unprivileged
# `postgres` user (PostgreSQL refuses root), which then owns DIR.
set -euo pipefail

usage() {
  echo "usage: $0 start|stop|url DIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
cmd=$1
case "$cmd" in
  start) mkdir -p "$2" ;;
  stop) [ -d "$2" ] || exit 0 ;;
  url) ;;
  *) usage ;;
esac
dir=$(cd "$2" 2>/dev/null && pwd) || { echo "$0: no such folder: $2" >&2; exit 1; }
data=$dir/data
sock=$dir/sock
log=$dir/server.log
db=aicost_test

bindir=""
for d in $(printf "%s\n" /usr/lib/postgresql/*/bin | sort -V); do
  [ -x "$d/initdb" ] && bindir=$d
done
if [ -z "$bindir" ]; then
  if command -v initdb >/dev/null 2>&1; then
    bindir=$(dirname "$(command -v initdb)")
  else
    echo "$0: no PostgreSQL server found (scripts/install-deps.sh installs the postgresql package)" >&2
    exit 1
  fi
fi

if [ "$(id -u)" -eq 0 ]; then
  user=postgres
  id -u "$user" >/dev/null 2>&1 || { echo "$0: running as root needs the '$user' user (postgresql package)" >&2; exit 1; }
  as_server() { runuser -u "$user" -- "$@"; }
else
  user=$(id -un)
  as_server() { "$@"; }
fi

# Percent-encodes what a URI query value cannot hold as it is (spaces, &, %, ...).
encode() {
  local s=$1 out="" c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case "$c" in
      [A-Za-z0-9/._~-]) out+=$c ;;
      *) out+=$(printf '%%%02X' "'$c") ;;
    esac
  done
  echo "$out"
}

url() { echo "postgresql:///$db?host=$(encode "$sock")&user=$(encode "$user")"; }

running() { [ -f "$data/postmaster.pid" ] && as_server "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; }

case "$cmd" in
  url)
    url
    ;;
  start)
    if running; then
      url
      exit 0
    fi
    # sun_path holds 107 bytes: DIR/sock/.s.PGSQL.5432 must fit.
    if [ $((${#sock} + 17)) -gt 107 ]; then
      echo "$0: $dir is too deep for a unix socket path; use a shorter folder" >&2
      exit 1
    fi
    mkdir -p "$sock"
    if [ "$(id -u)" -eq 0 ]; then
      chown -R "$user" "$dir"
      as_server test -x "$dir" || { echo "$0: user $user cannot reach $dir (a parent folder is closed to it)" >&2; exit 1; }
    fi
    if [ ! -f "$data/PG_VERSION" ]; then
      # C collation: ORDER BY sorts bytes, as SQLite does.
      as_server "$bindir/initdb" -D "$data" -U "$user" --auth=trust --encoding=UTF8 --no-locale --no-sync >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    as_server "$bindir/pg_ctl" -D "$data" -l "$log" -w -t 30 \
      -o "-c listen_addresses='' -c unix_socket_directories='$sock' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=500" \
      start >/dev/null || { cat "$log" >&2; exit 1; }
    for _ in $(seq 60); do
      "$bindir/pg_isready" -q -h "$sock" -d postgres -U "$user" && break
      sleep 0.5
    done
    "$bindir/pg_isready" -q -h "$sock" -d postgres -U "$user" || { echo "$0: server not ready after 30 s" >&2; cat "$log" >&2; exit 1; }
    if [ "$("$bindir/psql" -h "$sock" -U "$user" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'")" != 1 ]; then
      "$bindir/createdb" -h "$sock" -U "$user" "$db"
    fi
    url
    ;;
  stop)
    if running; then
      as_server "$bindir/pg_ctl" -D "$data" -m fast -w stop >/dev/null
    fi
    rm -rf "$dir"
    ;;
esac
