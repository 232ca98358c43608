// `aicost ledger check` output: budgets, alerts due, anomalies (table / JSON / CSV / Markdown),
// the webhook payload, and the Prometheus text exposition for Grafana (docs/GOVERNANCE.md).
#pragma once

#include <string>
#include <vector>

#include "aicost/governance/check.h"
#include "aicost/report/format.h"

namespace aicost::report {

std::string render_check(const governance::CheckResult& r, Format f);
// One JSON document of what is new (alerts due and anomalies not sent before) for a webhook.
std::string check_payload(const governance::CheckResult& r);
// Budget burn, forecast, levels and anomalies as Prometheus text format 0.0.4 (a textfile for
// node_exporter's collector, or a scrape target's body).
std::string render_prometheus(const governance::CheckResult& r);

}  // namespace aicost::report
