// The CLI's subcommands. Each registers its options on a CLI11 app and runs with the shared
// options; handlers print to stdout (results) and stderr (errors) and return the exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "aicost/api/api.h"
#include "aicost/api/ledger.h"
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
Command serve_command();
// Shell completions and the man page, written from the command definitions (shell.cc, man_page.cc).
Command completion_command();
Command man_command();
// The options of `aicost ledger` that its subcommands share (--db, --threads, --lock-timeout;
// default db: store::default_db()).
struct LedgerDb : api::LedgerDb {};
// `d` with its notices (a write waiting for another, a ledger made) printed on stderr.
api::LedgerDb cli_ledger_db(const LedgerDb& d);
// Opens the ledger `d` names. Only OpenMode::kCreate (ingest, init) makes a missing one: it says so
// on stderr, or sets *created when given. A write that waits for another says so on stderr.
core::Result<std::unique_ptr<ledger::Store>> open_ledger(const LedgerDb& d, store::OpenMode mode,
                                                         bool* created = nullptr);
using api::as_of_day;
using api::journal_guardrails;
using api::scrub_error;
// report_error of scrub_error(e, d.db).
int ledger_error(const core::Error& e, const LedgerDb& d, const GlobalOptions& g);

// `aicost ledger check`: registers its options on `check`; `d` holds `aicost ledger --db`,
// `--threads` and `--lock-timeout` once parsed.
std::function<int()> setup_ledger_check(CLI::App* check, const GlobalOptions& g, const LedgerDb& d);
// `aicost ledger change add` and `aicost ledger changes` under `ledger`; `on` sets a subcommand's
// handler as cmd_ledger.cc does.
void setup_ledger_changes(CLI::App& ledger, const GlobalOptions& g, const LedgerDb& d,
                          const std::function<void(CLI::App*, std::function<int()>)>& on);

}  // namespace aicost::app
