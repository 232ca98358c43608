#!/usr/bin/env bash
# A password in a PostgreSQL connection string is never printed. It is planted in every form libpq
# takes (URI userinfo, percent-encoded, ?password=, keyword=value), given by --db and by $AICOST_DB,
# against a server that is not there and, when $AICOST_TEST_PG_URL names one, a server that is
# (trust auth: the planted password is ignored, so every command gets past connecting). Every
# `aicost ledger` subcommand runs in every output mode, and --help; stdout and stderr are searched
# for the password. So are webhook URLs with credentials and tokens, and the Authorization token.
#
#   tests/cli/ledger_secrets_test.sh AICOST SOURCE_DIR
set -u
aicost=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/aicost-secrets.XXXXXX") || exit 1
schema="secrets_$$_$(date +%s)"
pg=${AICOST_TEST_PG_URL:-}
cleanup() {
  [ -n "$pg" ] && psql "$pg" -qAtc "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
runs=0
secret=PlantedPw9Zq
sample=$src/examples/ledger/focus-ai-lab-2025-06.csv
budgets=$src/examples/governance/budgets.yaml

# check LABEL ARGS...: runs aicost (in an empty folder of its own) and fails when the password, as
# written or decoded, is anywhere in what it printed.
check() {
  local label=$1
  shift
  mkdir -p "$tmp/cwd"
  (cd "$tmp/cwd" && "$aicost" "$@") >"$tmp/out" 2>"$tmp/err"
  runs=$((runs + 1))
  for s in "$secret" "Planted%50w9Zq"; do
    if grep -qF -- "$s" "$tmp/out" "$tmp/err"; then
      echo "FAIL: $label printed the password: $(grep -hF -- "$s" "$tmp/out" "$tmp/err" | head -3)" >&2
      failures=$((failures + 1))
      break
    fi
  done
  # And made no file named after it (a connection string taken for a SQLite path).
  if [ -n "$(ls -A "$tmp/cwd")" ]; then
    echo "FAIL: $label made files: $(ls -A "$tmp/cwd")" >&2
    failures=$((failures + 1))
    rm -rf "$tmp/cwd"
  fi
}

# every_command LABEL DB: every subcommand in every output mode, the db given by --db and by
# $AICOST_DB; and --help with it as the default.
every_command() {
  local label=$1 db=$2
  for o in table json csv markdown; do
    for cmd in "init" "ingest $sample" "report --by service" "sources" "compact" \
               "check --budgets $budgets --as-of 2025-06-28" "check --budgets $budgets --as-of 2025-06-28 --dry-run" \
               "validate $sample"; do
      # shellcheck disable=SC2086
      check "$label: ledger --db DB $cmd -o $o" ledger --db "$db" $cmd -o "$o"
      # shellcheck disable=SC2086
      AICOST_DB=$db check "$label: AICOST_DB=DB ledger $cmd -o $o" ledger $cmd -o "$o"
    done
  done
  AICOST_DB=$db check "$label: ledger --help" ledger --help
  for cmd in init ingest report sources compact check validate; do
    AICOST_DB=$db check "$label: ledger $cmd --help" ledger "$cmd" --help
  done
  AICOST_DB=$db check "$label: --help" --help
}

# A server that is not there (port 1 refuses at once).
every_command "unreachable userinfo" "postgresql://aicost:$secret@127.0.0.1:1/ledger?connect_timeout=3"
every_command "unreachable userinfo, percent-encoded" "postgresql://aicost:Planted%50w9Zq@127.0.0.1:1/ledger?connect_timeout=3"
every_command "unreachable ?password=" "postgresql://aicost@127.0.0.1:1/ledger?password=$secret&connect_timeout=3"
every_command "unreachable keyword=value" "host=127.0.0.1 port=1 dbname=ledger user=aicost password=$secret connect_timeout=3"
every_command "unreachable keyword=value, quoted" "host=127.0.0.1 port=1 dbname=ledger password='$secret' user=aicost"
every_command "malformed keyword=value" "host=127.0.0.1 port=1 passwrd=$secret"
every_command "malformed URI" "postgresql://aicost:$secret@127.0.0.1:1/ledger?sslmode=bogus"

# Webhooks: credentials in the URL, a token in its path or query, and the Authorization header
# ($AICOST_WEBHOOK_AUTHORIZATION), against a port that refuses (port 1) and one that is not a URL.
ledger=$tmp/webhook.db
"$aicost" ledger --db "$ledger" ingest "$src/examples/governance/focus-ai-lab-2025-05-06.csv" >/dev/null 2>&1 ||
  { echo "FAIL: could not make the webhook test's ledger" >&2; exit 1; }
gov_budgets="--budgets $src/examples/governance/budgets.yaml --as-of 2025-06-28"
for hook in "http://alerts:$secret@127.0.0.1:1/hook" "http://127.0.0.1:1/services/T000/B000/$secret" \
            "http://127.0.0.1:1/hook?token=$secret" "https://127.0.0.1:1/hooks/$secret" "htp://x/$secret"; do
  for o in table json; do
    # shellcheck disable=SC2086
    AICOST_WEBHOOK_AUTHORIZATION="Bearer $secret" check "webhook $hook -o $o" \
      ledger --db "$ledger" check $gov_budgets --webhook "$hook" --webhook-attempts 1 -o "$o"
  done
done

# A server that is there: a schema of this test's own, named in each form.
if [ -n "$pg" ]; then
  if ! command -v psql >/dev/null; then
    echo "FAIL: \$AICOST_TEST_PG_URL is set but psql is missing" >&2
    exit 1
  fi
  if ! psql "$pg" -qAtc "CREATE SCHEMA $schema" >/dev/null; then
    echo "FAIL: cannot create schema $schema on \$AICOST_TEST_PG_URL" >&2
    exit 1
  fi
  IFS='|' read -r user dbname host port <<<"$(psql "$pg" -qAtc "SELECT current_user, current_database(), \
    COALESCE(host(inet_server_addr()), current_setting('unix_socket_directories')), current_setting('port')")"
  options="options=-csearch_path%3D$schema"
  sep='?'
  case "$pg" in *\?*) sep='&' ;; esac
  every_command "reachable ?password=" "$pg${sep}password=$secret&$options"
  every_command "reachable userinfo" "postgresql://$user:$secret@/$dbname?host=$host&port=$port&$options"
  every_command "reachable keyword=value" \
    "host=$host port=$port dbname=$dbname user=$user password=$secret options='-csearch_path=$schema'"
  rows=$(psql "$pg" -qAtc "SELECT count(*) FROM $schema.sources")
  [ "${rows:-0}" -ge 1 ] || { echo "FAIL: the reachable server got no ingest (sources: ${rows:-none})" >&2; failures=$((failures + 1)); }
else
  echo "note: \$AICOST_TEST_PG_URL is not set: the reachable-server half did not run"
  if [ "${AICOST_TEST_PG_REQUIRED:-}" = 1 ]; then
    echo "FAIL: PostgreSQL is required here" >&2
    exit 1
  fi
fi

if [ "$failures" -gt 0 ]; then
  echo "$failures of $runs runs failed" >&2
  exit 1
fi
echo "ledger secrets: $runs runs, no password printed"
