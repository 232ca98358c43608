// `aicost ledger check`: budgets, forecasts and anomalies against the ledger; alerts printed, sent
// to a webhook and remembered in the ledger so each goes out once (docs/GOVERNANCE.md).
#include <iostream>
#include <string>

#include "aicost/api/ledger.h"
#include "aicost/report/governance_report.h"
#include "commands.h"

namespace aicost::app {
namespace {

int run_check(const api::LedgerCheckOptions& o, const LedgerDb& d, const GlobalOptions& g) {
  auto fmt = output_format(g);
  if (!fmt) return report_error(fmt.error(), g);
  auto r = api::ledger_check(cli_ledger_db(d), o, *fmt);
  if (!r) return report_error(r.error(), g);
  // With `--prometheus -` standard output is the metrics alone, so a collector can read it as it
  // is; the report goes to standard error.
  std::ostream& report_out = o.prometheus == "-" ? std::cerr : std::cout;
  report_out << r->text;
  report_out.flush();
  // JSON carries the warnings; every other form (Markdown too) prints them on standard error.
  for (const auto& w : r->warnings) std::cerr << "warning: " << w << "\n";
  std::cout << r->metrics;
  if (r->error_after) return report_error(*r->error_after, g);
  return r->status;
}

}  // namespace

std::function<int()> setup_ledger_check(CLI::App* check, const GlobalOptions& g,
                                        const LedgerDb& d) {
  auto o = std::make_shared<api::LedgerCheckOptions>();
  check->add_option("--budgets", o->budgets, "the budget file (YAML, docs/GOVERNANCE.md)")
      ->required();
  check->add_option(
      "--as-of", o->as_of,
      "check as of this day, YYYY-MM-DD: spend before it counts (default: today, UTC)");
  check->add_option("--webhook", o->webhook,
                    "POST new alerts as JSON here (http:// or https://; "
                    "$AICOST_WEBHOOK_AUTHORIZATION is sent as Authorization)");
  check
      ->add_option("--webhook-attempts", o->webhook_attempts,
                   "tries before giving up (backoff 0.5 s, doubling)")
      ->capture_default_str();
  check->add_option("--webhook-timeout", o->webhook_timeout_s, "seconds per attempt")
      ->capture_default_str();
  check
      ->add_option("--webhook-max-retry-after", o->webhook_max_retry_after_s,
                   "seconds: a Retry-After up to this is honoured as asked; a webhook that asks "
                   "for longer is "
                   "left to the next check (a check run by cron should end in minutes)")
      ->capture_default_str();
  check->add_option(
      "--prometheus", o->prometheus,
      "write budget burn, forecast and anomaly gauges in Prometheus text format to this file ('-': "
      "standard output, which then holds the metrics alone; the report goes to standard error)");
  check->add_option("--guardrails", o->guardrails,
                    "a guardrails file (YAML, as `aicost optimize` reads): its max_cost_rise and "
                    "min_gpu_activity "
                    "hold for every change of the journal besides its own, for the stop-loss");
  check->add_flag("--dry-run", o->dry_run, "print, send nothing, remember nothing");
  check->add_option("--limit", o->limit,
                    "list at most N waste findings, the largest, in the report and the metrics; "
                    "a warning counts the rest and their saving (alerts still go out for all; "
                    "default: all, and the " +
                        std::to_string(report::kHtmlWasteFindings) + " largest in -o html)");
  check
      ->add_option(
          "--stale-after", o->stale_after_days,
          "warn when the newest charge is this many days or more older than the day before --as-of")
      ->capture_default_str()
      ->check(CLI::Range(1, 3650));
  check->add_flag("--strict", o->strict,
                  "stale or missing data (no charges, the newest too old, a budget with none in "
                  "its period) fails "
                  "the gate too (exit 3)");
  check->footer(
      "Exit status: 0 ok, 3 a budget is at a gating level (red or breached, on actual or forecast "
      "spend), a "
      "change of the journal is at stop-loss (`aicost ledger changes`), or, "
      "under --strict, the data is stale or missing; "
      "1 or 2 an error.\nExample: aicost ledger check --budgets examples/governance/budgets.yaml "
      "--as-of 2025-06-28");
  return [o, &g, &d] { return run_check(*o, d, g); };
}

}  // namespace aicost::app
