#!/usr/bin/env bash
# Renders one `aicost ... -o html` report in headless Chromium (Debian's `chromium`) and checks
# that its charts were drawn: the page says every chart rendered (data-charts-rendered), no
# chart or script error is on it, each expected text (axis titles, units) is in the drawn SVG,
# and each mark kind has one mark per data row of the specs. Then it takes a screenshot,
# SHOTS/NAME.png (under the build folder, not in git), for a person to look at.
#
#   tests/browser/html_report_test.sh AICOST SOURCE_DIR SHOTS NAME CHARTS [checks...] -- ARGS...
#     CHARTS          the number of charts the page must have drawn
#     text=T          T appears in the drawn page (an axis or legend title)
#     marks=R:N:K,..  the number of SVG marks with aria-roledescription="R" is N plus the number
#                     of "K": keys in the page's specs (one mark per data row), for each K listed
#     setup=ARGS      runs `aicost ARGS` first (words split on spaces; must exit 0), e.g. to load a
#                     ledger; "{tmp}" in ARGS and in the report's arguments is a scratch folder
#     exit=N          the report's command exits N (default 0; `ledger check` exits 3 at a gate)
#     window=W,H      the browser window, and so the screenshot, in pixels (default 1280,2400)
#     golden=FILE     the page's specs (the JSON array of Vega-Lite specs) equal FILE, relative to
#                     SOURCE_DIR; AICOST_UPDATE_GOLDEN=1 rewrites it (review the diff). Checked
#                     before the browser runs.
#
# Chromium's profile, cache and temporary files go into a scratch folder that is removed on exit
# (HOME, TMPDIR and XDG_* point there), so nothing is left in /tmp or the home folder.
set -u
aicost=$1 src=$2 shots=$3 name=$4 charts=$5
shift 5
checks=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do checks+=("$1"); shift; done
shift  # --
browser=$(command -v chromium || command -v chromium-browser) || {
  echo "FAIL: chromium is not installed (scripts/install-deps.sh installs it)"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/aicost-html.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$shots" "$tmp/home" "$tmp/tmp"
cd "$src" || exit 1

fail() { echo "FAIL ($name): $*"; exit 1; }

for c in "${checks[@]}"; do
  [[ $c == setup=* ]] || continue
  read -r -a setup <<<"${c#setup=}"
  "$aicost" "${setup[@]//\{tmp\}/$tmp}" >/dev/null 2>"$tmp/stderr" || fail "setup aicost ${c#setup=} failed: $(cat "$tmp/stderr")"
done
args=("${@//\{tmp\}/$tmp}")
want_exit=0 window=1280,2400
for c in "${checks[@]}"; do
  [[ $c == exit=* ]] && want_exit=${c#exit=}
  [[ $c == window=* ]] && window=${c#window=}
done
"$aicost" "${args[@]}" -o html >"$tmp/page.html" 2>"$tmp/stderr"
rc=$?
[ "$rc" = "$want_exit" ] || fail "aicost $* -o html exited $rc, not $want_exit: $(cat "$tmp/stderr")"
grep -q '<script src' "$tmp/page.html" && fail "the page loads a script from elsewhere (it must be self-contained)"

# The specs alone (the libraries inline in the page hold JSON-like text too).
awk '/id="aicost-specs"/ { on = 1 } on { print } on && /<\/script>/ { exit }' "$tmp/page.html" |
  sed -e 's/^<script type="application\/json" id="aicost-specs">//' -e 's/<\/script>$//' >"$tmp/specs.json"
[ -s "$tmp/specs.json" ] || fail "no chart specs in the page"
for c in "${checks[@]}"; do
  [[ $c == golden=* ]] || continue
  golden=$src/${c#golden=}
  if [ "${AICOST_UPDATE_GOLDEN:-}" = 1 ]; then
    cp "$tmp/specs.json" "$golden"
  elif ! diff -u "$golden" "$tmp/specs.json" >"$tmp/specs.diff"; then
    fail "the specs differ from $golden (AICOST_UPDATE_GOLDEN=1 rewrites it):
$(head -40 "$tmp/specs.diff")"
  fi
done

run_browser() {
  HOME="$tmp/home" TMPDIR="$tmp/tmp" XDG_CONFIG_HOME="$tmp/home/.config" XDG_CACHE_HOME="$tmp/home/.cache" \
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
    --user-data-dir="$tmp/profile" --virtual-time-budget=20000 --hide-scrollbars "$@" 2>>"$tmp/browser.log"
}
run_browser --dump-dom "file://$tmp/page.html" >"$tmp/dom.html" || fail "chromium --dump-dom failed: $(tail -5 "$tmp/browser.log")"

dom="$tmp/dom.html"
drawn=$(grep -o 'data-charts-rendered="[0-9]*"' "$dom" | grep -o '[0-9]*')
[ "$drawn" = "$charts" ] || fail "expected $charts charts drawn, the page says '${drawn:-none}'"
grep -q 'data-chart-errors="' "$dom" && fail "a chart failed: $(grep -o 'data-chart-errors="[^"]*"' "$dom")"
grep -q '<div id="js-errors"></div>' "$dom" || fail "script errors: $(grep -o '<div id="js-errors">[^<]*' "$dom")"
svgs=$(grep -o '<svg' "$dom" | wc -l)
[ "$svgs" -ge "$charts" ] || fail "$charts charts but $svgs SVG elements"

for c in "${checks[@]}"; do
  case $c in
    text=*)
      t=${c#text=}
      grep -qF ">$t</text>" "$dom" || fail "no drawn text '$t'"
      ;;
    marks=*)
      IFS=: read -r role extra keys <<<"${c#marks=}"
      want=$extra
      for k in ${keys//,/ }; do
        want=$((want + $(grep -o "\"$k\":" "$tmp/specs.json" | wc -l)))
      done
      got=$(grep -o "aria-roledescription=\"$role\"" "$dom" | wc -l)
      [ "$got" = "$want" ] || fail "expected $want '$role' marks (one per data row), drew $got"
      ;;
    golden=* | setup=* | exit=* | window=*) ;;
    *) fail "unknown check '$c'" ;;
  esac
done
# The screenshot last, so that one is written only of a page that passed.
run_browser --window-size="$window" --screenshot="$tmp/shot.png" "file://$tmp/page.html" >/dev/null ||
  fail "chromium --screenshot failed: $(tail -5 "$tmp/browser.log")"
[ -s "$tmp/shot.png" ] || fail "chromium wrote no screenshot"
mv "$tmp/shot.png" "$shots/$name.png"
echo "ok ($name): $drawn charts drawn; screenshot $shots/$name.png"
