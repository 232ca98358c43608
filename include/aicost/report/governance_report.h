// `aicost ledger check` output: budgets, alerts due, anomalies (table / JSON / CSV / Markdown),
// the webhook payload, and the Prometheus text exposition for Grafana (docs/GOVERNANCE.md).
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "aicost/governance/check.h"
#include "aicost/report/format.h"

namespace aicost::report {

std::string render_check(const governance::CheckResult& r, Format f);
// The check as `aicost ledger check --limit N` and `aicost serve`'s `?limit=N` show it: its
// waste findings cut to the `limit` largest (CheckResult::waste is sorted largest saving first)
// and, when some are left out, a warning (last in `warnings`) that counts them and sums their
// monthly saving per currency. Everything else as it is; limit 0: the whole check.
governance::CheckResult largest_waste(const governance::CheckResult& r, std::size_t limit);
// The monthly saving of r.waste[from..] per currency, summed in the order of the list (largest
// first, so the figure is the same wherever it is computed): "1234.50 USD, 12.00 EUR".
std::string waste_saving_from(const governance::CheckResult& r, std::size_t from);
// The waste findings a page for a person lists when no limit is asked for (`ledger check -o html`,
// the dashboard's /waste): the largest, the rest counted in one line. A ledger of 1M generated
// charges had 4,968 findings, a 3.3 MB page (docs/REPORTS.md).
inline constexpr std::size_t kHtmlWasteFindings = 50;
// The tables of render_check(r, Format::kTable) that have rows, without the gate line: a part of
// a check (`aicost serve`'s anomaly, waste and plan pages show theirs alone).
std::string render_check_part(const governance::CheckResult& r);
// One JSON document of what is new (alerts due, anomalies and waste findings not sent before) for a
// webhook; each item carries its `key`, by which a receiver can drop one it has seen.
std::string check_payload(const governance::CheckResult& r);
// The same, only with the items whose key is in `only`: those this check won the claims of
// (ledger::Store::claim_alerts).
std::string check_payload(const governance::CheckResult& r, const std::set<std::string>& only);
// Budget burn, forecast, levels and anomalies as Prometheus text format 0.0.4 (a textfile for
// node_exporter's collector, or a scrape target's body).
std::string render_prometheus(const governance::CheckResult& r);

}  // namespace aicost::report
