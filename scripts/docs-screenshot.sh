#!/usr/bin/env bash
# `make docs`: the README's picture, docs/images/ledger-check.png, drawn from the shipped governance
# example by `aicost ledger check -o html` in headless Chromium. It goes through the browser test
# (tests/browser/html_report_test.sh; ctest runs this script as browser.html.ledger_check), so a
# picture is written only of a page whose charts all rendered. The picture is generated, never
# edited: rerun this after a change to the report and commit what it writes.
#
#   scripts/docs-screenshot.sh AICOST [OUT_DIR]    (OUT_DIR defaults to docs/images)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
aicost=$(realpath "$1")
out=$(realpath -m "${2:-$root/docs/images}")
mkdir -p "$out"
bash "$root/tests/browser/html_report_test.sh" "$aicost" "$root" "$out" ledger-check 8 window=1280,1060 exit=3 \
  "text=budget (period)" "text=scope, days (direction)" "text=cumulative spend (USD)" "text=day (00:00 UTC)" \
  marks=bar:0:budget,spend \
  "setup=ledger ingest --db {tmp}/gov.db examples/governance/focus-ai-lab-2025-05-06.csv examples/governance/dcgm-ai-lab-2025-06-26.prom" \
  -- ledger check --db {tmp}/gov.db --budgets examples/governance/budgets.yaml --as-of 2025-06-28
