#!/usr/bin/env bash
# `aicost calibrate --write` through the built binary: the overlay is written only when everything
# succeeded (too few rows, an unknown GPU, an unwritable path: exit code, no file, no temporary
# left), and the file written is one `--catalog` takes: the calibrated value replaces the shipped
# one in `aicost validate` of the same rows, and the other generations are untouched.
#
#   tests/cli/calibrate_cli_test.sh AICOST SOURCE_DIR
set -u
aicost=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/aicost-calibrate.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$src" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_refused CODE ARGS...: aicost exits CODE and leaves the folder empty.
expect_refused() {
  local want=$1; shift
  "$aicost" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" = "$want" ] || fail "exit $rc, expected $want: $*"
  [ -z "$(ls -A "$tmp/w")" ] || fail "files left after a refusal: $(ls -A "$tmp/w") ($*)"
}
mkdir -p "$tmp/w"
expect_refused 2 calibrate data/validation/inference-dev.csv --write "$tmp/w/p.yaml"
expect_refused 2 calibrate tests/plans/calibrate-unknown-gpu.csv --write "$tmp/w/p.yaml"
expect_refused 1 calibrate examples/calibration/blackwell-runs.csv --write "$tmp/w/missing/p.yaml"
chmod a-w "$tmp/w"
if [ "$(id -u)" != 0 ]; then  # root writes anywhere
  expect_refused 1 calibrate examples/calibration/blackwell-runs.csv --write "$tmp/w/p.yaml"
fi
chmod u+w "$tmp/w"

# Success: the file is there, whole, and --catalog takes it.
"$aicost" calibrate examples/calibration/blackwell-runs.csv --write "$tmp/w/p.yaml" >"$tmp/out" 2>"$tmp/err" ||
  fail "calibrate failed: $(cat "$tmp/err")"
[ "$(ls -A "$tmp/w")" = "p.yaml" ] || fail "expected only p.yaml, found: $(ls -A "$tmp/w")"
grep -q '^    gemm_max: 56%$' "$tmp/w/p.yaml" || fail "gemm_max not written: $(cat "$tmp/w/p.yaml")"
# The in-sample prediction of the report is what validate gives with the overlay.
want=$("$aicost" calibrate examples/calibration/blackwell-runs.csv -o json |
       sed -n 's/^ *"in_sample": \([0-9.e+-]*\),*$/\1/p' | head -1)
got=$("$aicost" --catalog "$tmp/w/p.yaml" validate examples/calibration/blackwell-runs.csv -o csv |
      sed -n '2p' | awk -F, '{print $(NF-1)}')
python3 - "$want" "$got" <<'PY' || fail "validate with the overlay: $got, calibrate in-sample: $want"
import sys
w, g = float(sys.argv[1]), float(sys.argv[2])
sys.exit(0 if abs(w - g) <= 1e-3 * w else 1)
PY
# Other generations keep the shipped profile: validate of a hopper file is unchanged.
a=$("$aicost" validate examples/calibration/hopper-serving-runs.csv -o csv)
b=$("$aicost" --catalog "$tmp/w/p.yaml" validate examples/calibration/hopper-serving-runs.csv -o csv)
[ "$a" = "$b" ] || fail "the overlay changed hopper predictions"

[ "$failures" = 0 ] && echo "calibrate CLI: ok" || exit 1
