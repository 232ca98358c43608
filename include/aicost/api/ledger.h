// The ledger commands as library calls: `aicost ledger ingest|report|sources|check` for the CLI
// (apps/aicost), the Python module (python/) and the dashboard, so they print the same bytes for
// the same ledger (docs/LEDGER.md, docs/GOVERNANCE.md).
//
// Each call opens the ledger `LedgerDb` names, does its work and returns what it rendered in the
// format asked for, or a core::Error with the ledger's password hidden (scrub_error). Nothing
// prints or exits: a person's notices (a write waiting for another, a ledger made) go to
// LedgerDb::notice. The only files written are the ledger and the ones an option names
// (--prometheus). Thread safety: the calls share no state; each opens its own connection.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "aicost/api/api.h"
#include "aicost/config/budgets.h"
#include "aicost/core/result.h"
#include "aicost/governance/check.h"
#include "aicost/ledger/change.h"
#include "aicost/ledger/report.h"
#include "aicost/ledger/store.h"
#include "aicost/report/format.h"
#include "aicost/report/governance_report.h"
#include "aicost/store/open.h"

namespace aicost::api {

// Which ledger, and how to reach it: `aicost ledger --db --threads --lock-timeout`.
struct LedgerDb {
  std::string db;        // a SQLite file or a PostgreSQL connection string (store::open_store)
  unsigned threads = 0;  // threads a read of a large SQLite ledger may use (0: every core)
  std::string lock_timeout =
      "10min";  // how long a write waits for another, as a duration ("30s", "0s")
  // Told, as a line for a person without a prefix, when a write starts waiting for another
  // ("another ingest is running (pid ...); waiting up to 10min (--lock-timeout)") and when a
  // ledger was made ("created a new ledger at PATH") and `created` was not asked for. May be empty.
  std::function<void(const std::string& line)> notice;
};

// Opens the ledger `d` names. Only OpenMode::kCreate makes a missing one (then *created is set
// when given, else `notice` is told). Errors carry the context "--db" (or "--lock-timeout").
core::Result<std::unique_ptr<ledger::Store>> open_ledger(const LedgerDb& d, store::OpenMode mode,
                                                         bool* created = nullptr);

// `e` with every form of db's password hidden (libpq's messages quote parts of a connection
// string).
core::Error scrub_error(const core::Error& e, const std::string& db);

// A --as-of day (YYYY-MM-DD, errors name "--as-of"); "" is today (UTC).
core::Result<ledger::Day> as_of_day(const std::string& text);

struct LedgerIngestOptions {
  std::vector<std::string> files;  // files, folders or manifests; "-" is standard input
  std::string format = "auto";     // billing::parse_format's names (errors name "--format")
  std::string rate_card;           // YAML prices for usage without a bill ("": none)
  std::vector<std::string>
      catalog_files;        // the catalog the rate card names GPUs from (load_catalog)
  bool replace = false;     // a path loaded before with other bytes: swap the new content in
  bool restate = false;     // each file is the whole delivery of its billing periods
  std::string export_name;  // the export a restating file belongs to ("": the default)
};
// What happened to one file of an ingest: its rendered result (report::render_ingest) or its error.
using IngestEach =
    std::function<void(const std::string& file, const core::Result<std::string>& outcome)>;
struct LedgerIngestSummary {
  bool rows_left_out = false;  // some file had rows that were not loaded (`--strict` fails on it)
  int files_failed = 0;
};
// `aicost ledger ingest`: each file is one transaction, loaded in order; `each` is called after
// each one (after its commit), so a caller can show a file's result before the next one starts. A
// file that fails does not stop the ones after it. An error is returned only when nothing could
// start (the format, the ledger, the rate card); makes the ledger when it is missing.
core::Result<LedgerIngestSummary> ledger_ingest(const LedgerDb& d,
                                                const LedgerIngestOptions& options,
                                                report::Format fmt, const IngestEach& each);

struct LedgerReportOptions {
  std::string by;                     // comma-separated dimensions or tag:KEY ("": one total)
  std::string from, to;               // YYYY-MM-DD (or YYYY-MM); `to` is the first day left out
  std::string granularity = "total";  // total, day, week or month
  std::size_t top = 0;                // keep the N groups that cost most, fold the rest (0: all)
  std::vector<std::string> filters;   // DIMENSION=VALUE
  std::vector<std::string> aliases;   // KEY=OTHER[,OTHER...]
  bool useful = false;                // join loaded GPU telemetry (useful_pct)
};
// The request the options describe; errors name the option (--by, --from, ...).
core::Result<ledger::ReportRequest> ledger_report_request(const LedgerReportOptions& options);
// `aicost ledger report`, written to `out` as it is made (report::write_ledger_report): a report
// of millions of lines is never held whole. Nothing is written when it fails.
core::Status ledger_report(const LedgerDb& d, const LedgerReportOptions& options,
                           report::Format fmt, std::ostream& out);

// `aicost ledger sources`: the files loaded, their formats, rows and totals.
core::Result<Output> ledger_sources(const LedgerDb& d, report::Format fmt);

struct LedgerCheckOptions {
  std::string budgets;  // the budget file (YAML, docs/GOVERNANCE.md)
  std::string as_of;    // YYYY-MM-DD: spend before it counts ("": today, UTC)
  std::string webhook;  // POST new alerts here ("": none); $AICOST_WEBHOOK_AUTHORIZATION is sent
  int webhook_attempts = 4;
  double webhook_timeout_s = 5;
  double webhook_max_retry_after_s = 60;
  // Prometheus text of the gauges: "" none, "-" returned in LedgerCheckOutput::metrics, else
  // written to this file (beside it first, then renamed).
  std::string prometheus;
  std::string
      guardrails;        // a guardrails file whose journal limits hold for every change ("": none)
  bool dry_run = false;  // send nothing, remember nothing
  bool strict = false;   // stale or missing data fails the gate too
  int stale_after_days = 3;
  // At most this many waste findings in the text and the metrics, the largest, and a warning that
  // counts the rest (report::largest_waste); 0: all. Alerts are sent for every finding.
  std::size_t limit = 0;
  // The same for -o html while `limit` is 0 (a page is for a person; the metrics keep `limit`);
  // 0: all.
  std::size_t html_limit = report::kHtmlWasteFindings;
};
struct LedgerCheckOutput : Output {
  std::string metrics;  // the Prometheus text when LedgerCheckOptions::prometheus is "-"
};
// `aicost ledger check`: status 3 when a budget is at a gating level (or a change at stop-loss, or
// under `strict` the data is stale). JSON carries the warnings; other forms return them in
// `warnings`. Unless dry_run, the alerts that are new are sent (to the webhook) and recorded, each
// by exactly one of the checks that run at once; a failure there, or in writing the metrics, is
// `error_after` (the report stands).
core::Result<LedgerCheckOutput> ledger_check(const LedgerDb& d, const LedgerCheckOptions& options,
                                             report::Format fmt);

// The reading half of ledger_check, for a caller that holds an open ledger (`aicost serve`): the
// budget file with the options' as_of, strict, stale_after_days and guardrails set, and the check
// run over it with the alerts sent before; nothing is sent, recorded or rendered.
core::Result<config::BudgetFile> check_budgets(const LedgerCheckOptions& options);
core::Result<governance::CheckResult> read_check(ledger::Store& store,
                                                 const config::BudgetFile& budgets);

// The change journal's limits of a guardrails file (`--guardrails G.yaml`, the file `aicost
// optimize` reads: its max_cost_rise and min_gpu_activity); none for "". Errors name --guardrails.
core::Result<std::vector<ledger::Guardrail>> journal_guardrails(const std::string& path);

}  // namespace aicost::api
