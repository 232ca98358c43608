#!/usr/bin/env bash
# `aicost ledger` as cron jobs and people run it, through the built binary: only ingest and init
# make a ledger (a typo in --db is an error with a did-you-mean, not an empty ledger that reports 0
# spent), new files are private, a keyword=value connection string is not taken for a file name,
# each ingested file's line reaches stdout before a kill, two ingests of one file load it once,
# and a writer that waits for another says who holds the ledger.
#
#   tests/cli/ledger_cli_test.sh AICOST SOURCE_DIR
set -u
aicost=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/aicost-cli.XXXXXX") || exit 1
holder=""
cleanup() {
  [ -n "$holder" ] && kill "$holder" 2>/dev/null && wait "$holder" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  echo "  stdout: $(head -c 2000 "$tmp/out" 2>/dev/null)" >&2
  echo "  stderr: $(head -c 2000 "$tmp/err" 2>/dev/null)" >&2
  failures=$((failures + 1))
}
# run ARGS...: aicost with ARGS; sets rc, stdout in $tmp/out, stderr in $tmp/err.
run() {
  "$aicost" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}
has() { grep -qF -- "$2" "$tmp/$1"; }
mode() { stat -c %a "$1"; }

sample=$src/examples/ledger/focus-ai-lab-2025-06.csv
budgets=$src/examples/governance/budgets.yaml
umask 022

# --- No false green: only ingest and init make a ledger -------------------------------------
mkdir -p "$tmp/a"
run ledger init --db "$tmp/a/ledger.db"
[ "$rc" = 0 ] && has out "created a new ledger at $tmp/a/ledger.db" || fail "init did not say it created the ledger"
run ledger init --db "$tmp/a/ledger.db"
[ "$rc" = 0 ] && has out "a ledger is already at $tmp/a/ledger.db" || fail "a second init did not say the ledger was there"
for cmd in "report" "sources" "compact" "check --budgets $budgets --as-of 2025-06-28"; do
  for o in table json; do
    # shellcheck disable=SC2086
    run ledger $cmd --db "$tmp/a/ledgr.db" -o $o
    [ "$rc" = 2 ] || fail "ledger $cmd -o $o on a missing ledger: exit $rc, not 2"
    has err "there is no ledger here" && has err "Did you mean '$tmp/a/ledger.db'?" ||
      fail "ledger $cmd -o $o on a missing ledger: no did-you-mean"
    [ -e "$tmp/a/ledgr.db" ] && fail "ledger $cmd made a ledger at the mistyped path" && rm -f "$tmp/a/ledgr.db"
  done
done
# The default path: say to ingest first, make nothing.
mkdir -p "$tmp/home"
HOME=$tmp/home AICOST_DB= XDG_DATA_HOME= run ledger report
[ "$rc" = 2 ] && has err "aicost ledger ingest FILE" || fail "report on the default path without a ledger"
[ -e "$tmp/home/.local" ] && fail "report made folders under \$HOME"
# ingest makes one and says so on stderr, in folders of its own (0700), as a file only its owner reads.
run ledger ingest --db "$tmp/b/c/ledger.db" "$sample"
[ "$rc" = 0 ] && has err "created a new ledger at $tmp/b/c/ledger.db" || fail "ingest did not say it created the ledger"
[ "$(mode "$tmp/b")" = 700 ] && [ "$(mode "$tmp/b/c")" = 700 ] || fail "new folders are $(mode "$tmp/b") $(mode "$tmp/b/c"), not 700"
[ "$(mode "$tmp/b/c/ledger.db")" = 600 ] || fail "a new ledger is $(mode "$tmp/b/c/ledger.db"), not 600"
[ "$(mode "$tmp/a/ledger.db")" = 600 ] || fail "init made a ledger $(mode "$tmp/a/ledger.db"), not 600"
run ledger ingest --db "$tmp/b/c/ledger.db" "$sample"
[ "$rc" = 0 ] && ! has err "created" || fail "a second ingest said it created the ledger"
# A libpq keyword=value string is PostgreSQL: no file named after its password.
mkdir -p "$tmp/cwd"
(cd "$tmp/cwd" && "$aicost" ledger report --db "host=127.0.0.1 port=1 dbname=x user=u password=Sekr1t connect_timeout=3" \
  >"$tmp/out" 2>"$tmp/err")
rc=$?
[ "$rc" = 1 ] || fail "a keyword=value string that reaches no server: exit $rc, not 1"
[ -z "$(ls -A "$tmp/cwd")" ] || fail "a keyword=value string made files: $(ls -A "$tmp/cwd")"
has out Sekr1t || has err Sekr1t && fail "the password of a keyword=value string was printed"

# --- Each file's line is on stdout once its transaction commits --------------------------------
# The second file (814 rows) is killed at 500 (the test hook); the first, of 74 rows, had committed.
{ cat "$sample"; for _ in 1 2 3 4 5 6 7 8 9 10; do tail -n +2 "$sample"; done; } >"$tmp/big.csv"
(
  AICOST_TEST_KILL_AFTER_ROWS=500 "$aicost" ledger ingest --db "$tmp/f.db" "$sample" "$tmp/big.csv" >"$tmp/out" 2>"$tmp/err"
  exit $?
) 2>/dev/null  # the shell's "Killed"
rc=$?
[ "$rc" = 137 ] || fail "the ingest was not killed (exit $rc)"
has out "$sample: loaded 74 rows" || fail "the committed file's line was lost with the kill"

# --- Two ingests of one file at once: one loads it, the other finds it loaded ---------------------
"$aicost" ledger init --db "$tmp/g.db" >/dev/null 2>&1
"$aicost" ledger ingest --db "$tmp/g.db" "$tmp/big.csv" >"$tmp/g1" 2>&1 &
first=$!
"$aicost" ledger ingest --db "$tmp/g.db" "$tmp/big.csv" >"$tmp/g2" 2>&1
rc2=$?
wait "$first"
rc1=$?
cat "$tmp/g1" "$tmp/g2" >"$tmp/out"
: >"$tmp/err"
[ "$rc1" = 0 ] && [ "$rc2" = 0 ] || fail "two ingests of one file: exit $rc1 and $rc2, not 0 and 0"
[ "$(grep -c ": loaded 814 rows" "$tmp/out")" = 1 ] && [ "$(grep -c "already loaded" "$tmp/out")" = 1 ] ||
  fail "two ingests of one file did not load it once"

# --- A second writer says who holds the ledger, waits, and gives up after --lock-timeout ---------
# A writer as aicost records itself in the lock file, holding its flock.
hold() {
  (
    exec 9>"$1.lock"
    printf 'pid 4242\nsince 2026-01-01T00:00:00Z\nwhat ingest\n' >&9
    flock 9
    touch "$tmp/held"
    exec sleep 60
  ) &
  holder=$!
  for _ in $(seq 100); do [ -e "$tmp/held" ] && break; sleep 0.1; done
}
release() {
  kill "$holder" 2>/dev/null
  wait "$holder" 2>/dev/null
  holder=""
  rm -f "$tmp/held"
}
hold "$tmp/g.db"
run ledger --lock-timeout 1s ingest --db "$tmp/g.db" "$sample"
[ "$rc" = 1 ] || fail "a writer that timed out: exit $rc, not 1"
has err "aicost: another ingest is running (pid 4242, since 2026-01-01T00:00:00Z); waiting up to 1s (--lock-timeout)" ||
  fail "the waiting writer did not say who holds the ledger"
has err "still held the ledger after 1s" || fail "the writer that gave up did not say why"
# Readers do not wait for it.
run ledger sources --db "$tmp/g.db"
[ "$rc" = 0 ] || fail "a reader failed while a writer held the ledger"
# With time to wait, it goes on once the holder is done.
"$aicost" ledger --lock-timeout 60s ingest --db "$tmp/g.db" "$sample" >"$tmp/out" 2>"$tmp/err" &
waiter=$!
for _ in $(seq 300); do has err "waiting up to 1min" && break; sleep 0.1; done
has err "waiting up to 1min" || fail "the writer did not say it waits"
release
wait "$waiter"
rc=$?
[ "$rc" = 0 ] && has out ": loaded 74 rows" || fail "the waiting writer did not load once the holder was done"

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "ledger CLI: all passed"
