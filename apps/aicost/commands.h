// The CLI's subcommands. Each registers its options on a CLI11 app and runs with the shared
// options; handlers print to stdout (results) and stderr (errors) and return the exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "aicost/api/api.h"
#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"
#include "aicost/ledger/change.h"
#include "aicost/ledger/store.h"
#include "aicost/report/format.h"
#include "aicost/store/open.h"

namespace aicost::app {

struct GlobalOptions {
  std::vector<std::string> catalog_files;  // --catalog, plus $AICOST_CATALOG (':'-separated)
  std::string output = "table";            // -o
};

// Exit codes (README "Exit codes"): 0 ok, 1 failure, 2 usage or input error, 3 a budget gate
// (`aicost ledger check`), 4 rows left out (`aicost ledger ingest --strict`).
int exit_code(const core::Error& e);
// Prints an error to stderr (as JSON when the output format is json) and returns its exit code.
int report_error(const core::Error& e, const GlobalOptions& g);
// After a table on standard output, its warnings on standard error ("warning: ..."), so that
// programs reading the table get the table alone. JSON carries them inside; Markdown keeps them.
void print_warnings(const std::vector<std::string>& warnings, report::Format f);
// Builtin catalog plus the user's files.
core::Result<catalog::Catalog> load_catalog(const GlobalOptions& g);
core::Result<report::Format> output_format(const GlobalOptions& g);

struct Command {
  const char* name;
  const char* help;
  // Adds options to `sub` and returns the handler to run when the subcommand is chosen.
  std::function<std::function<int()>(CLI::App& sub, const GlobalOptions& g)> setup;
};

// Prints what an api call produced: the text on stdout, its warnings on stderr (print_warnings),
// then an error that came after the text; returns the exit code. An error: report_error.
int print_output(const core::Result<api::Output>& out, report::Format fmt, const GlobalOptions& g);
// The progress bar of a long computation on stderr (progress.h), for api::*Options::progress.
api::Progress progress_bar();

Command estimate_command();
Command diff_command();
Command catalog_command();
Command validate_command();
Command calibrate_command();
Command search_command();
Command optimize_command();
Command reliability_command();
Command ledger_command();
// Shell completions and the man page, written from the command definitions (shell.cc, man_page.cc).
Command completion_command();
Command man_command();
// The options of `aicost ledger` that its subcommands share.
struct LedgerDb {
  std::string db;                      // --db (default store::default_db())
  unsigned threads = 0;                // --threads (0: every core this process may run on)
  std::string lock_timeout = "10min";  // --lock-timeout: how long a write waits for another
};
// Opens the ledger `d` names. Only OpenMode::kCreate (ingest, init) makes a missing one: it says so
// on stderr, or sets *created when given. A write that waits for another says so on stderr.
core::Result<std::unique_ptr<ledger::Store>> open_ledger(const LedgerDb& d, store::OpenMode mode, bool* created = nullptr);
// `e` with the ledger's password hidden in every form it may take (libpq's messages quote parts of
// a connection string).
core::Error scrub_error(const core::Error& e, const std::string& db);
// report_error of scrub_error(e, d.db).
int ledger_error(const core::Error& e, const LedgerDb& d, const GlobalOptions& g);

// A --as-of day (YYYY-MM-DD); "" is today (UTC).
core::Result<ledger::Day> as_of_day(const std::string& text);

// The change journal's limits of a guardrails file (`--guardrails G.yaml`, the file `aicost
// optimize` reads: its max_cost_rise and min_gpu_activity); none for "".
core::Result<std::vector<ledger::Guardrail>> journal_guardrails(const std::string& path);

// `aicost ledger check`: registers its options on `check`; `d` holds `aicost ledger --db`,
// `--threads` and `--lock-timeout` once parsed.
std::function<int()> setup_ledger_check(CLI::App* check, const GlobalOptions& g, const LedgerDb& d);
// `aicost ledger change add` and `aicost ledger changes` under `ledger`; `on` sets a subcommand's
// handler as cmd_ledger.cc does.
void setup_ledger_changes(CLI::App& ledger, const GlobalOptions& g, const LedgerDb& d,
                          const std::function<void(CLI::App*, std::function<int()>)>& on);

}  // namespace aicost::app
