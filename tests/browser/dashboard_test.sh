#!/usr/bin/env bash
# `aicost serve` in headless Chromium (Debian's `chromium`): starts the dashboard on a free
# loopback port against the example governance ledger, loads each page (and the what-if page
# running a plan of --plans) and checks that every
# chart it has was drawn (data-charts-rendered, SVG marks), with no chart or script error; that
# /api/check is the CLI's `ledger check -o json` byte for byte; and that SIGTERM stops the server
# with exit 0. Screenshots go to SHOTS/dashboard-PAGE.png (under the build folder) to be looked at.
#
#   tests/browser/dashboard_test.sh AICOST SOURCE_DIR SHOTS
#
# The server is killed and the scratch folder (ledger, Chromium's profile, HOME, TMPDIR) removed
# on every exit, failed or not.
set -u
aicost=$1 src=$2 shots=$3
browser=$(command -v chromium || command -v chromium-browser) || {
  echo "FAIL: chromium is not installed (scripts/install-deps.sh installs it)"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/aicost-dash.XXXXXX") || exit 1
server=
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then kill "$server"; wait "$server" 2>/dev/null; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$shots" "$tmp/home" "$tmp/tmp" "$tmp/plans"
cd "$src" || exit 1
fail() { echo "FAIL (dashboard): $*"; exit 1; }

"$aicost" ledger ingest --db "$tmp/gov.db" examples/governance/focus-ai-lab-2025-05-06.csv \
  examples/governance/dcgm-ai-lab-2025-06-26.prom >/dev/null 2>"$tmp/stderr" || fail "ingest: $(cat "$tmp/stderr")"
cp examples/gpt3-175b-a100.yaml "$tmp/plans/"
"$aicost" serve --db "$tmp/gov.db" --budgets examples/governance/budgets.yaml --as-of 2025-06-28 \
  --plans "$tmp/plans" --listen 127.0.0.1:0 2>"$tmp/serve.log" &
server=$!
url=
for _ in $(seq 1 300); do
  url=$(grep -o 'http://127.0.0.1:[0-9]*/' "$tmp/serve.log" | head -1)
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || fail "aicost serve exited: $(cat "$tmp/serve.log")"
  sleep 0.1
done
[ -n "$url" ] || fail "aicost serve said no address in 30 s: $(cat "$tmp/serve.log")"

# The numbers behind the pages are the CLI's.
curl -sf "${url}api/check" >"$tmp/api-check.json" || fail "GET /api/check failed"
"$aicost" ledger check --dry-run -o json --db "$tmp/gov.db" --budgets examples/governance/budgets.yaml \
  --as-of 2025-06-28 >"$tmp/cli-check.json" 2>/dev/null
cmp -s "$tmp/api-check.json" "$tmp/cli-check.json" || fail "/api/check differs from aicost ledger check -o json"

run_browser() {
  HOME="$tmp/home" TMPDIR="$tmp/tmp" XDG_CONFIG_HOME="$tmp/home/.config" XDG_CACHE_HOME="$tmp/home/.cache" \
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
    --user-data-dir="$tmp/profile" --virtual-time-budget=20000 --hide-scrollbars "$@" 2>>"$tmp/browser.log"
}
# NAME=PATH: the what-if page runs the plan of --plans (estimate and optimize charts).
for pair in overview= budgets=budgets anomalies=anomalies waste=waste plans=plans \
  "whatif=whatif?plan=gpt3-175b-a100.yaml&run=1"; do
  page=${pair%%=*} path=${pair#*=}
  curl -sf "$url$path" >"$tmp/$page.html" || fail "GET /$path failed"
  want=$(grep -o '<div class="chart" id="chart-' "$tmp/$page.html" | wc -l)
  [ "$want" -ge 1 ] || fail "/$path has no chart"
  run_browser --dump-dom "$url$path" >"$tmp/$page.dom" || fail "chromium --dump-dom /$path: $(tail -5 "$tmp/browser.log")"
  run_browser --window-size=1280,2000 --screenshot="$shots/dashboard-$page.png" "$url$path" >/dev/null ||
    fail "chromium --screenshot /$path: $(tail -5 "$tmp/browser.log")"
  drawn=$(grep -o 'data-charts-rendered="[0-9]*"' "$tmp/$page.dom" | grep -o '[0-9]*')
  [ "$drawn" = "$want" ] || fail "/$path: expected $want charts drawn, the page says '${drawn:-none}'"
  grep -q 'data-chart-errors="' "$tmp/$page.dom" && fail "/$path: a chart failed"
  grep -q '<div id="js-errors"></div>' "$tmp/$page.dom" || fail "/$path: script errors: $(grep -o '<div id="js-errors">[^<]*' "$tmp/$page.dom")"
  marks=$(grep -o 'aria-roledescription="bar"' "$tmp/$page.dom" | wc -l)
  [ "$marks" -ge 1 ] || fail "/$path: no bar drawn"
  echo "ok (/$path): $drawn charts, $marks bars; screenshot $shots/dashboard-$page.png"
done

kill "$server"
wait "$server"
rc=$?
server=
[ "$rc" = 0 ] || fail "aicost serve exited $rc on SIGTERM: $(cat "$tmp/serve.log")"
echo "ok (dashboard): stopped cleanly"
